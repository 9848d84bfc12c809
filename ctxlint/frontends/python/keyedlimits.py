"""A limit a method takes out of its own ``**kwargs`` by its key and sends, often only when it is
there (``max_tokens = kwargs.pop("max_tokens", None)``, then ``if max_tokens is not None:
body["max_tokens"] = max_tokens``): the request has the limit a caller passes under that key, and
none when nothing in the project passes one. The same reading as a ``**kwargs`` spread into the
call (spreads.py, ``kwargs-by-default``), for a limit picked out of it key by key."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.dispatch import limit_spread_in_bases
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.spreads import KWARGS, called_as
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.unsetcallers import CallersGiveNone
from ctxlint.frontends.python.values import Env
from ctxlint.providers import LIMIT_KEYWORDS, LIMIT_NAMES

if TYPE_CHECKING:
    from ctxlint.frontends.python.spreads import Spreads


def taken_from_kwargs(spreads: Spreads, node: ast.expr, env: Env,
                      depth: int = 0) -> tuple[str, str, str, ast.expr] | None:
    """``(key, kwargs, called, read)`` when the limit's value ``node`` is the key ``key`` of the enclosing
    method's own ``**kwargs`` (``kwargs.pop("max_tokens", None)``, ``kwargs.get("max_tokens")``,
    ``kwargs["max_tokens"]``; through a local name set once, to that alone), and nothing in the
    module or the project calls the method by its name ``called`` with a limit keyword or a spread
    that may hold one. A method reached through an object's interface, like a ``**kwargs`` spread
    (spreads.empty_by_default): a plain helper's callers may well pass the limit."""
    if depth > 3:
        return None
    if isinstance(node, ast.Name):
        binding = spreads.scopes.resolve(node, env)
        if binding is None or binding.extras or binding.owner is not None or binding.env.scope is not env.scope \
                or _assignments(env, node.id) != 1:
            return None
        return taken_from_kwargs(spreads, binding.value, binding.env, depth + 1)
    read = _keyed_read(node)
    scope = env.scope
    fn = scope.node
    if read is None or scope.kind != "function" or scope.cls is None \
            or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.args.kwarg is None \
            or fn.args.kwarg.arg != read[1] or env.bound(read[1]) is not None or _rebound(fn, read[1]):
        return None
    called = called_as(fn, scope)
    if spreads.limit_called(called) or spreads.limit_spread_in(called) \
            or limit_spread_in_bases(spreads.callees, scope.cls, called) or _project_may_give(spreads.m, called):
        return None
    return read[0], read[1], called, node


def keyed_from_empty(spreads: Spreads, node: ast.expr, env: Env) -> tuple[str, str] | None:
    """``(name, kind)`` when the limit's value ``node`` is looked up by its key in a dict that holds
    only what a caller passes, empty by default (``options["num_predict"] = hints["max_tokens"]``
    under ``if "max_tokens" in hints``, of ``hints: Mapping[str, Any] = {}``, followed through the
    calls that hand it on): the same reading as a ``**hints`` spread of it (spreads.empty_step), for
    a limit picked out of it key by key. Not the method's own ``**kwargs`` (taken_from_kwargs)."""
    read = _keyed_read(node)
    if read is None or not isinstance(node, (ast.Subscript, ast.Call)):
        return None
    held = node.value if isinstance(node, ast.Subscript) else node.func.value  # type: ignore[attr-defined]
    fn = env.scope.node
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.kwarg is not None \
            and fn.args.kwarg.arg == read[1]:
        return None
    empty = spreads.empty_by_default(held, env)
    return empty if empty is not None and empty[1] != KWARGS else None


def _project_may_give(unit: Unit, called: str) -> bool:
    """Whether a call of ``called`` in another module of the project may give the limit: a limit
    keyword, or a ``**`` spread (``self.bot.call_with_tools(**kwargs)`` in a bridge module); also
    when the project has more callers than its scan keeps."""
    callers = CallersGiveNone(unit).callers(called)
    if not callers:
        return True
    return any(last_name(call.func) == called and any(k.arg is None or k.arg in LIMIT_KEYWORDS for k in call.keywords)
               for caller in callers if caller is not unit for call, _ in caller.calls)


def _keyed_read(node: ast.expr) -> tuple[str, str] | None:
    """The limit's key and the dict's name of ``name.pop(key[, None])``, ``name.get(key[, None])``
    or ``name[key]``, for a key that names an output limit."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load) \
            and isinstance(node.slice, ast.Constant) and node.slice.value in LIMIT_NAMES:
        return node.slice.value, node.value.id
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("pop", "get")
            and isinstance(node.func.value, ast.Name) and not node.keywords and 1 <= len(node.args) <= 2):
        return None
    key = node.args[0]
    if not (isinstance(key, ast.Constant) and key.value in LIMIT_NAMES):
        return None
    if len(node.args) == 2 and not (isinstance(node.args[1], ast.Constant) and node.args[1].value is None):
        return None  # a default of the code's own (`kwargs.get("max_tokens", 1024)`)
    return str(key.value), node.func.value.id


def _assignments(env: Env, name: str) -> int:
    """How many statements of the function assign ``name``."""
    count = 0
    for node in walk(env.scope.node):
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            count += 1
        elif isinstance(node, ast.Assign):
            count += sum(isinstance(n, ast.Name) and n.id == name for t in node.targets for n in walk(t))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)):
            targets = [node.target] if isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr)) \
                else [i.optional_vars for i in node.items if i.optional_vars is not None]
            count += sum(isinstance(n, ast.Name) and n.id == name for t in targets for n in walk(t))
    return count


def _rebound(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether the function writes the dict's limit keys itself (``kwargs["max_tokens"] = 4096``,
    ``kwargs.setdefault("max_tokens", 4096)``, ``kwargs.update(...)``) or names it anew."""
    for node in walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and not isinstance(node.ctx, ast.Load) \
                and not (isinstance(node.slice, ast.Constant) and node.slice.value not in LIMIT_NAMES):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("setdefault", "update") and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == name:
            return True
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
    return False
