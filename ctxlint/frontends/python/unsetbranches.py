"""A branch only a value no call gives can take: ``if version == "0.28":`` in ``def query(...,
version="1.5")``, where every call of ``query`` the project makes (one at least outside tests)
leaves ``version`` to its default. What such a branch sends (the old SDK's request kept beside the
current one) is not sent by the program as shipped, so a request there is not read. The same for
what follows an early exit that the default takes (``if max_tokens == -1: return text`` in ``def
page_text(page, max_tokens=-1)``, before a cut to ``max_tokens``) when every call keeps the default,
also through a caller that hands on a parameter of its own with the same default."""

from __future__ import annotations

import ast
from collections.abc import Callable

from ctxlint.frontends.python.callerunits import position_of
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.nodes import kept_default, signed_constant, walk
from ctxlint.frontends.python.owncode import module_in_tests
from ctxlint.frontends.python.taken import compared, test_holds
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.unsetcallers import CallersGiveNone
from ctxlint.frontends.python.values import Env, Scope


def unreached(unit: Unit, node: ast.AST, env: Env, literal: Callable[[ast.expr, Env], str | None]) -> bool:
    """Whether ``node`` sits in the body of an ``if`` that compares a parameter of its function
    with a constant other than the one it holds: the one the call being followed gives it
    (``env``, read as ``taken`` reads it), or else its default when no call of the function gives
    it one."""
    parent, tests, exits = _climb(unit, node)
    if not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for test in exits:
        found = compared(test)
        if found is None or (env.scope.node is parent and env.bound(found[0]) is not None):
            if found is not None and test_holds(test, env, literal) is True:
                return True  # the call being followed takes the exit
            continue
        name, value, equal = found
        kept = signed_constant(kept_default(parent, name))
        if kept is None:
            continue
        if equal and kept.value == value and _calls_keep(unit, parent, name, value):
            return True
        if not equal and kept.value != value and _no_call_gives(unit, parent, name, value):
            return True
    for test in tests:
        found = compared(test)
        if found is None or not found[2]:
            continue
        name, value, _ = found
        if env.scope.node is parent and env.bound(name) is not None:  # read for one call, which gives the value
            if test_holds(test, env, literal) is False:
                return True
            continue
        default = kept_default(parent, name)
        if isinstance(default, ast.Constant) and default.value != value and _no_call_gives(unit, parent, name, value):
            return True
    return False


def _no_call_gives(unit: Unit, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, value: object) -> bool:
    """Whether the project calls ``fn`` (by its name, one call at least outside tests) and no call
    can give its parameter ``name`` the constant ``value``: each leaves it out or gives another
    constant (a spread or a computed value might give it)."""
    return _every_call(unit, fn, name, lambda given, _caller, _scope: given is None or (
        isinstance(given, ast.Constant) and given.value != value))


def _every_call(unit: Unit, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str,
                fits: Callable[[ast.expr | None, Unit, Scope], bool]) -> bool:
    """Whether the project calls ``fn`` by its name (one call at least outside tests) and what each
    call gives its parameter ``name`` (None when it leaves it out) ``fits``; a call that may give it
    through a spread does not."""
    position, outside_tests = position_of(fn, name), 0
    own = {id(n) for n in walk(fn)}
    for caller in CallersGiveNone(unit).callers(fn.name):
        for call, scope in caller.calls:
            if last_name(call.func) != fn.name or id(call) in own:
                continue
            given = next((k.value for k in call.keywords if k.arg == name), None)
            if any(k.arg is None for k in call.keywords) or (given is None and position is not None and (
                    any(isinstance(a, ast.Starred) for a in call.args[:position + 1]))):
                return False
            if given is None and position is not None and position < len(call.args):
                given = call.args[position]
            if not fits(given, caller, scope):
                return False
            outside_tests += not module_in_tests(caller)
    return outside_tests > 0


def _climb(unit: Unit, node: ast.AST) -> tuple[ast.AST | None, list[ast.expr], list[ast.expr]]:
    """One climb from ``node`` to the function (or lambda) it is in: that function, the tests of the
    ``if`` statements whose body holds ``node``, and the tests of the ``if`` statements with no
    ``else`` that leave the function (their last statement a ``return`` or ``raise``) and stand
    before ``node`` in a block around it: ``node`` runs only when each of those is false."""
    inside: list[ast.expr] = []
    exits: list[ast.expr] = []
    child, parent = node, unit.parents.get(id(node))
    while parent is not None:
        if isinstance(parent, ast.If) and any(statement is child for statement in parent.body):
            inside.append(parent.test)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if not isinstance(block, list):
                continue
            at = next((i for i, s in enumerate(block) if s is child), None)
            if at is not None:
                exits += [s.test for s in block[:at] if isinstance(s, ast.If) and not s.orelse
                          and isinstance(s.body[-1], (ast.Return, ast.Raise))]
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            break
        child, parent = parent, unit.parents.get(id(parent))
    return parent, inside, exits


def _calls_keep(unit: Unit, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, value: object,
                hops: int = 0) -> bool:
    """Whether the project calls ``fn`` (by its name, one call at least outside tests) and every
    call keeps its parameter ``name`` at the constant ``value``: leaves it out, writes that
    constant, or hands on a parameter of its own function that has the same default and whose
    calls keep it too (two functions up)."""
    def keeps(given: ast.expr | None, caller: Unit, scope: Scope) -> bool:
        if isinstance(given, ast.Name) and hops < 2 and isinstance(scope.node, (ast.FunctionDef,
                                                                                 ast.AsyncFunctionDef)):
            handed = signed_constant(kept_default(scope.node, given.id))
            return handed is not None and handed.value == value \
                and _calls_keep(caller, scope.node, given.id, value, hops + 1)
        written = signed_constant(given)
        return given is None or (written is not None and written.value == value)
    return _every_call(unit, fn, name, keeps)
