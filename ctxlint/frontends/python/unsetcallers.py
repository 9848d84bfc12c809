"""A method's limit parameter that no call in the project fills: ``max_tokens=max_tokens`` of
``def chat_completion(self, ..., max_tokens=None)`` where every call of ``chat_completion`` the
project makes gives none, or passes on a parameter of its own that no call fills in turn (a
facade handing its ``max_tokens`` to whichever service it holds, a call the wrapper summaries
cannot follow to this method). The calls are found by name, whatever their receiver: any one
that may give a limit (a limit keyword, a value, a spread) keeps the parameter out of this."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ctxlint.frontends.python.callerunits import caller_units, position_of
from ctxlint.frontends.python.nodes import kept_default, parameter_names, sets_name, walk
from ctxlint.frontends.python.owncode import module_in_tests
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env
from ctxlint.frontends.python.wrappers import MAX_WRAPPING
from ctxlint.providers import LIMIT_KEYWORDS

# The kind of evidence of a limit taken from such a parameter (rules/**/CTX201).
NONE_BY_CALLERS = "none-by-callers"
# How many parameters the value may be passed on through (a facade, then the service).
_MAX_HOPS = 2

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class CallersGiveNone:
    """What the calls of a method say of one of its parameters: how many there are, and whether
    each leaves it unset."""

    m: Unit
    calls: int = 0
    seen: set[str] = field(default_factory=set)

    def check(self, fn: Function, where: Unit, param: str, hops: int = 0) -> bool:
        """Whether every call of a function named like ``fn`` (of the module ``where``) the
        project makes, one at least outside tests, leaves its parameter ``param`` unset; and none
        is one the wrapper summaries follow to ``fn`` (they judge each such call where it is made)."""
        name, position = fn.name, position_of(fn, param)
        if name in self.seen:
            return True  # passed on to a method of the same name: its calls are being read
        self.seen.add(name)
        own = {id(n) for n in walk(fn)}  # its own calls (the request, when the SDK's is named the same)
        outside_tests = 0
        for unit in self.callers(name):
            for call, _ in unit.calls_named({name}):
                if id(call) in own:
                    continue
                if _followed_to(unit, call, fn, where) or not self._leaves_unset(unit, call, param, position, hops):
                    return False
                self.calls += 1
                outside_tests += not module_in_tests(unit)
        return outside_tests > 0

    def callers(self, name: str) -> list[Unit]:
        """This module and the project's modules whose text calls ``name(...)``; none when there
        may be more than the scan keeps."""
        return caller_units(self.m, name)

    def _leaves_unset(self, unit: Unit, call: ast.Call, param: str, position: int | None, hops: int) -> bool:
        """Whether ``call`` gives ``param`` no value: none written, ``None``, or a parameter of
        the calling function that is None by default and that no call of that one fills."""
        if any(k.arg in LIMIT_KEYWORDS and k.arg != param for k in call.keywords):
            return False  # a limit under another name (`max_completion_tokens=` into `**extra`)
        if any(isinstance(a, ast.Constant) and type(a.value) is int for a in call.args):
            return False  # a number where a method of the same name but another signature may take its limit
        given = next((k.value for k in call.keywords if k.arg == param), None)
        for keyword in call.keywords:
            if keyword.arg is None and not (isinstance(keyword.value, ast.Name) and _own_rest(
                    _holder_of(unit, call, keyword.value.id), keyword.value.id, param)):
                return False  # `**settings`: it may hold the limit
        if given is None and position is not None:
            if any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
                return False
            given = call.args[position] if position < len(call.args) else None
        if given is None or (isinstance(given, ast.Constant) and given.value is None):
            return True
        caller = _holder_of(unit, call, given.id) if isinstance(given, ast.Name) else None
        if not isinstance(given, ast.Name) or caller is None or hops >= _MAX_HOPS:
            return False
        return _unset_parameter(caller, given.id) and self.check(caller, unit, given.id, hops + 1)


def unset_by_callers(m: Unit, node: ast.expr, env: Env) -> tuple[str, str, int] | None:
    """The parameter, the method and how many calls of it the project makes, when ``node`` is a
    parameter of the method that is None by default and every call leaves unset (``__init__`` is
    the constructor's case, read by ``Spreads.none_by_default``)."""
    fn = env.scope.node
    if not isinstance(node, ast.Name) or env.scope.kind != "function" or env.scope.cls is None \
            or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name.startswith("__") \
            or env.bound(node.id) is not None:
        return None
    if not _unset_parameter(fn, node.id):
        return None
    search = CallersGiveNone(m)
    return (node.id, fn.name, search.calls) if search.check(fn, m, node.id) else None


def left_to_default(node: ast.expr, env: Env) -> tuple[str, str] | None:
    """The parameter and the function, when ``node`` is a parameter that is None by default, read
    while following one call of the function that does not pass it (a factory, ``llm =
    make_model("gpt-4o")`` of ``def make_model(name, max_tokens=None): return ChatOpenAI(model=name,
    max_tokens=max_tokens)``): that object is built with no limit, whatever other calls pass."""
    fn = env.scope.node
    if not isinstance(node, ast.Name) or env.depth == 0 or env.scope.kind != "function" \
            or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    param, bound = env.scope.params.get(node.id), env.bound(node.id)
    if param is None or bound is None or bound.node is not param.default:
        return None  # given by the call, or not bound at all (the call spreads what it passes)
    default = param.default
    return (node.id, fn.name) if isinstance(default, ast.Constant) and default.value is None else None


def _followed_to(unit: Unit, call: ast.Call, fn: Function, where: Unit) -> bool:
    """Whether the wrapper summaries resolve ``call`` to ``fn`` of the module ``where`` (read
    once as the file linted and once as another module of the project: the same place) and
    summarise what it sends: the call is then a request of its own, reported where it is made."""
    scope = unit.scope_of(call)
    target = unit.analyzer.wrappers.callee(call, Env(scope)) if scope is not None else None
    if target is None:
        return False
    reader = target[0] or unit.analyzer
    found, place = target[1], (fn.name, fn.lineno, where.file or where.path)
    if (found.name, found.lineno, reader.unit.file or reader.unit.path) != place:
        return False
    return reader.wrappers.summary(found, target[2], MAX_WRAPPING) is not None


def _unset_parameter(fn: Function, name: str) -> bool:
    """Whether ``name`` is a parameter of ``fn`` that is None by default and that ``fn`` never sets."""
    default = kept_default(fn, name)
    return isinstance(default, ast.Constant) and default.value is None


def _own_rest(caller: Function | None, spread: str, param: str) -> bool:
    """Whether ``**spread`` is the calling function's own ``**kwargs`` while it names ``param``
    among its parameters: then the rest cannot hold it."""
    if caller is None or caller.args.kwarg is None or spread != caller.args.kwarg.arg:
        return False
    return param in parameter_names(caller)


def _holder_of(unit: Unit, node: ast.AST, name: str) -> Function | None:
    """The function whose parameter ``name`` is where ``node`` reads it: the nearest enclosing
    one, or a function it is nested in when the inner ones never set the name (a closure)."""
    parent = unit.parents.get(id(node))
    while parent is not None:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if name in parameter_names(parent) or (parent.args.kwarg is not None and parent.args.kwarg.arg == name):
                return parent
            if sets_name(parent, name):
                return None
        parent = unit.parents.get(id(parent))
    return None
