"""How a caller keeps what a function gives it: the names a call's result is assigned, added or
unpacked to (through the values that hold it as a part: an f-string, a dict, a call given one as a
keyword), and the flag parameter a caller must pass for the function to give it at all. Read by
orderprompts.py to follow an order up to the callers that put it in a prompt."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ctxlint.frontends.python.loopshapes import added_name, added_names

Function = ast.FunctionDef | ast.AsyncFunctionDef

_TRIMS = ("strip", "lstrip", "rstrip")  # text methods that keep the order of what they are called on
_MOST_HOLDERS = 6  # how many values around a call's result (f-strings, dicts, a call given one) are climbed


def flag_over(parents: dict[int, ast.AST], fn: Function, node: ast.AST) -> tuple[str, int] | None:
    """A parameter of ``fn`` off by default (``headings_only=False``) that an ``if`` around
    ``node`` tests (``if headings_only: ...``), with its position: only a call that passes it
    runs ``node``."""
    positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    defaults = dict(zip(positional[len(positional) - len(fn.args.defaults):], fn.args.defaults, strict=True))
    current, parent = node, parents.get(id(node))
    while parent is not None and parent is not fn:
        if isinstance(parent, ast.If) and current in parent.body and isinstance(parent.test, ast.Name) \
                and _off(defaults.get(parent.test.id)):
            index = positional.index(parent.test.id)
            return parent.test.id, index - 1 if positional[:1] in (["self"], ["cls"]) else index
        current, parent = parent, parents.get(id(parent))
    return None


def _off(default: ast.expr | None) -> bool:
    return isinstance(default, ast.Constant) and default.value in (False, None)


def passes(call: ast.Call, name: str, index: int) -> bool:
    """Whether ``call`` may pass the parameter ``name`` (at ``index``) a true value."""
    given = next((k.value for k in call.keywords if k.arg == name), None)
    if given is not None:
        return not _off(given)
    if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]) or any(k.arg is None for k in call.keywords):
        return True  # positions or keywords unknown
    return index < len(call.args) and not _off(call.args[index])


def kept_by(call: ast.Call, parents: dict[int, ast.AST]) -> set[str]:
    """The names a call's result is assigned or added to (through ``await``), or that a loop over
    it adds its items to."""
    current: ast.AST = call
    parent = parents.get(id(current))
    if isinstance(parent, ast.Await):
        current, parent = parent, parents.get(id(parent))
    while isinstance(parent, ast.Attribute) and parent.attr in _TRIMS and isinstance(
            called := parents.get(id(parent)), ast.Call) and called.func is parent:
        current, parent = called, parents.get(id(called))  # `headings = self.headings(text).strip()`
    for _ in range(_MOST_HOLDERS):
        holder = _holder(current, parent, parents)
        if holder is None:
            break
        current, parent = holder, parents.get(id(holder))
    if isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is current:
        return added_names(parent.body)
    if isinstance(parent, ast.Call) and current in parent.args and isinstance(parents.get(id(parent)), ast.Expr) \
            and (receiver := added_name(parent)) is not None:
        return {receiver}  # `found.extend(self.listed(d))`
    if isinstance(parent, ast.AugAssign) and parent.value is current and isinstance(parent.target, ast.Name):
        return {parent.target.id}
    if isinstance(parent, ast.Assign) and parent.value is current:
        return {t.id for t in unpacked(parent.targets) if isinstance(t, ast.Name)}
    return set()


def _holder(node: ast.AST, parent: ast.AST | None, parents: dict[int, ast.AST]) -> ast.AST | None:
    """The value that holds ``node``'s text as a part of it: an f-string, a sum of texts, a list
    or a dict that has it among its items (``{"facts": pick(lines)}``), or the call given one such
    as a keyword (``messages = build(inputs={"facts": ...})``: what it builds carries the text)."""
    if isinstance(parent, (ast.FormattedValue, ast.JoinedStr, ast.List, ast.Tuple)) \
            or isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add) \
            or isinstance(parent, ast.Dict) and any(v is node for v in parent.values):
        return parent
    if isinstance(parent, ast.keyword) and isinstance(call := parents.get(id(parent)), ast.Call):
        return call
    return None


def unpacked(targets: Sequence[ast.expr]) -> list[ast.expr]:
    """Assignment targets with a tuple's names taken apart (``queries, found = ...``)."""
    return [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]
