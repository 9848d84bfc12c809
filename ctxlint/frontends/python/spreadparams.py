"""A dict of settings a method takes from its callers and spreads into a wrapper's call, read at
those callers: ``self.model.complete(messages=m, **model_params)`` of ``def _reduce(self, ...,
model_params: dict)``, or ``**llm_kwargs.get("model_params", {})`` of its ``**llm_kwargs``, where
every call of ``_reduce`` the project makes passes a dict it writes out whose limit is a field of
the project's settings that is None by default (``{"max_completion_tokens":
self.config.reduce_max_completion_tokens}`` of ``reduce_max_completion_tokens: int | None =
None``, never set): the request sends no limit unless someone configures one.

Kept out: a caller that passes no dict the code shows (a name bound more than once, a spread of
its own, a dict with a ``**`` part), a limit key with any other value, a call that spreads its
arguments, and a method with no caller outside tests or more callers than the scan reads."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxlint.frontends.python.callerunits import caller_units, position_of
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.nonefields import none_field
from ctxlint.frontends.python.owncode import module_in_tests
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind
from ctxlint.providers import LIMIT_KEYWORDS

if TYPE_CHECKING:
    from ctxlint.frontends.python.scopes import Scopes

Function = ast.FunctionDef | ast.AsyncFunctionDef


def callers_dict_none(m: Unit, scopes: Scopes, spread: ast.expr, env: Env,
                      no_limit: Callable[[Unit, ast.expr, Env], bool]) -> tuple[Evidence, ...] | None:
    """The evidence that the dict ``spread`` (a parameter of the enclosing method, or a key of
    its ``**kwargs``) holds a limit None by default at every call of the method; none (an empty
    tuple) when every call gives a dict with no limit at all (one it writes out, or one
    ``no_limit`` says holds none: the wrapper summaries' reading of a spread, settings empty by
    default); None when some call may give one."""
    fn = env.scope.node
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or env.scope.cls is None \
            or fn.name.startswith("__"):
        return None
    taken = _taken(fn, spread, env)
    if taken is None:
        return None
    keyword, position = taken
    keyed = not isinstance(spread, ast.Name)
    found: tuple[Evidence, ...] = ()
    outside_tests = 0
    own = {id(n) for n in walk(fn)}
    private = fn.name.startswith("_")
    for unit in caller_units(m, fn.name, private):
        for call, scope in unit.calls_named({fn.name}):
            if id(call) in own:
                continue
            given = _given(unit, scopes if unit is m else unit.analyzer.scopes, call, keyword, position, Env(scope),
                           no_limit)
            if given is None and keyed and not _gives(call, keyword):
                given = ()  # `**kwargs.get("model_params", {})` of a call that passes none: nothing
            if given is None:
                return None
            found += tuple(step for step in given if step not in found)
            outside_tests += not module_in_tests(unit)
    return found if outside_tests else None


def _taken(fn: Function, spread: ast.expr, env: Env) -> tuple[str, int | None] | None:
    """The keyword (and position) a caller gives the spread dict under: a parameter of ``fn``
    named and never bound anew, or the key of ``kwargs.get("key", {})`` of its ``**kwargs``."""
    if isinstance(spread, ast.Name) and spread.id in env.scope.params and env.bound(spread.id) is None \
            and (fn.args.kwarg is None or fn.args.kwarg.arg != spread.id) \
            and (fn.args.vararg is None or fn.args.vararg.arg != spread.id):
        if _stored(fn, spread.id):
            return None
        return spread.id, position_of(fn, spread.id)
    if isinstance(spread, ast.Call) and isinstance(spread.func, ast.Attribute) and spread.func.attr == "get" \
            and isinstance(spread.func.value, ast.Name) and fn.args.kwarg is not None \
            and spread.func.value.id == fn.args.kwarg.arg and not spread.keywords and 1 <= len(spread.args) <= 2 \
            and isinstance(spread.args[0], ast.Constant) and isinstance(spread.args[0].value, str) \
            and not _stored(fn, spread.func.value.id):
        default = spread.args[1] if len(spread.args) == 2 else None
        if default is not None and not (isinstance(default, ast.Dict) and not default.keys):
            return None  # a default of the code's own, which may hold a limit
        return spread.args[0].value, None
    return None


def _gives(call: ast.Call, keyword: str) -> bool:
    """Whether ``call`` may give ``keyword``: by name, or through a spread."""
    return any(k.arg is None or k.arg == keyword for k in call.keywords)


def _stored(fn: Function, name: str) -> bool:
    """Whether ``fn`` writes into the dict or names it anew (``params["max_tokens"] = n``,
    ``params.update(...)``, ``params = {...}``)."""
    for node in walk(fn):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                and node.func.attr in ("update", "setdefault", "__setitem__"):
            return True
    return False


def _given(unit: Unit, scopes: Scopes, call: ast.Call, keyword: str, position: int | None,
           env: Env, no_limit: Callable[[Unit, ast.expr, Env], bool]) -> tuple[Evidence, ...] | None:
    """What one call gives the dict: the evidence of each limit in it that is None by default,
    or None when it may give a limit (or a dict the code does not show)."""
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    value = next((k.value for k in call.keywords if k.arg == keyword), None)
    if value is None and position is not None and position < len(call.args):
        value = call.args[position]
    if value is None:
        return None  # left to the method's default: read where the method sends it
    if not isinstance(value, (ast.Name, ast.Dict)):
        return () if no_limit(unit, value, env) else None  # `model_parameters=self.reduce_llm_params`
    if isinstance(value, ast.Name):
        binding = scopes.resolve(value, env)
        if binding is None or binding.extras or binding.owner is not None or not isinstance(binding.value, ast.Dict):
            return None
        value, env = binding.value, binding.env
    if not isinstance(value, ast.Dict) or any(k is None for k in value.keys):
        return None
    found: tuple[Evidence, ...] = ()
    for key, item in zip(value.keys, value.values, strict=True):
        if not isinstance(key, ast.Constant) or key.value not in LIMIT_KEYWORDS:
            continue
        steps = none_field(unit, item, env)
        if steps is None:
            return None
        written = Evidence(EvidenceKind.FLOW, f"the project calls `{last_name(call.func)}` with `{keyword}` "
                           f"holding `{key.value}: {unit.code(item)}`", unit.span(item))
        found += (written, *steps)
    return found
