"""Where a limit a function writes into a dict of keyword arguments goes: the methods of the
project it hands the dict to as ``**kwargs``, and the place each builds its request with it.

``kwargs["max_tokens"] = request.max_tokens`` then ``self.bot.call_with_tools(**kwargs)``: the
receiver's class is not known (a bot chosen by configuration), so every definition of the method
in the project (at most MAX_DEFINERS, outside tests) that takes a ``**`` parameter is read: one that
takes the limit out of it by its key (``kwargs.pop("max_tokens", None)``, ``kwargs.get(...)``,
``kwargs["max_tokens"]``) and writes a limit key of the body it builds (``body["max_tokens"] =
max_tokens``) names that body (where it is first written, ``body = {...}``), or the read when it
writes none (not one that falls back on a limit of its own, ``kwargs.pop("max_tokens", 100000)``,
``kwargs.get("max_tokens") or 1024``); one that merges the whole ``**kwargs`` into what it sends
(``args.update(kwargs)``) names that merge. These are the requests a limit left unset upstream leaves unbounded."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.callerunits import method_definitions
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.nodes import function_of, none_written, walk
from ctxlint.providers import LIMIT_NAMES

if TYPE_CHECKING:
    from ctxlint.frontends.python.unit import Unit

# A place of another module: its unit, the method's name, the node named.
Relay = tuple["Unit", str, ast.stmt | ast.expr]
_TAKEN = frozenset({"get", "pop"})


def relayed_limits(owner: Unit, read: ast.expr) -> list[Relay]:
    """The requests the limit ``read`` reaches when the function around it writes it into a dict
    by a limit key and hands that dict as ``**`` to a method of the project."""
    parent = owner.parents.get(id(read))
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Subscript)):
        return []
    target = parent.targets[0]
    if not (isinstance(target.value, ast.Name) and isinstance(target.slice, ast.Constant)
            and target.slice.value in LIMIT_NAMES):
        return []
    held, key = target.value.id, target.slice.value
    fn = function_of(parent, owner.parents)
    if fn is None:
        return []
    methods = {last_name(call.func) for call in walk(fn) if isinstance(call, ast.Call)
               and isinstance(call.func, ast.Attribute)
               and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == held for k in call.keywords)}
    found: list[Relay] = []
    for method in sorted(m for m in methods if m):
        for unit, defined in method_definitions(owner, method):
            if defined.args.kwarg is not None:
                place = _built_with(unit, defined, defined.args.kwarg.arg, key)
                if place is not None:
                    found.append((unit, method, place))
    return found


def _built_with(unit: Unit, fn: ast.FunctionDef | ast.AsyncFunctionDef, kwargs: str,
                key: str) -> ast.stmt | ast.expr | None:
    """Where ``fn`` builds its request with the limit its ``**kwargs`` carries under ``key``: the
    body it writes a limit key of (its first assignment), the read of the key, or the merge of
    the whole ``**kwargs`` into what it sends."""
    nodes = [n for n in walk(fn) if isinstance(n, (ast.stmt, ast.expr))]
    read = next((n for n in nodes if _takes(n, kwargs, key)), None)
    if read is None:
        return next((n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == "update" and len(n.args) == 1 and isinstance(n.args[0], ast.Name)
                     and n.args[0].id == kwargs), None)
    if isinstance(read, ast.Call) and len(read.args) > 1 and not none_written(read.args[1]) \
            or isinstance(unit.parents.get(id(read)), (ast.BoolOp, ast.IfExp)):
        return None  # `kwargs.pop("max_tokens", 100000)`: a limit of its own when none is given
    body = next((t.value.id for n in nodes if isinstance(n, ast.Assign) for t in n.targets
                 if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and isinstance(t.slice, ast.Constant)
                 and t.slice.value in LIMIT_NAMES), None)
    if body is None:
        return read
    return next((n for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == body), read)


def _takes(node: ast.AST, kwargs: str, key: str) -> bool:
    """``kwargs.get(key)``, ``kwargs.pop(key, ...)`` or ``kwargs[key]``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _TAKEN \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == kwargs and node.args:
        first = node.args[0]
        return isinstance(first, ast.Constant) and first.value == key
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == kwargs \
        and isinstance(node.slice, ast.Constant) and node.slice.value == key and isinstance(node.ctx, ast.Load)
