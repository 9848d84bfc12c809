"""The returns of a function that a call can reach, where the function picks one by comparing a
parameter with a literal (``if tool_format == "markdown": return self._to_markdown()``) and the
call binds that parameter to a literal (its default, or the argument it gives)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxlint.frontends.python.nodes import signed_constant
from ctxlint.frontends.python.values import Env

if TYPE_CHECKING:
    from ctxlint.frontends.python.callees import Called


def taken_returns(target: Called, parents: dict[int, ast.AST], literal: Callable[[ast.expr, Env], str | None]
                  ) -> list[int]:
    """The positions in ``target.returns`` of those the call can reach: a return under a test of
    a parameter against a string the parameter is bound to otherwise is left out. All of them when
    that leaves none (the tests say nothing the code shows)."""
    reached = [i for i, value in enumerate(target.returns)
               if _reachable(value, target.fn, parents, target.env, literal)]
    return reached or list(range(len(target.returns)))


def _reachable(value: ast.expr, fn: ast.AST, parents: dict[int, ast.AST], env: Env,
               literal: Callable[[ast.expr, Env], str | None]) -> bool:
    child: ast.AST = value
    parent = parents.get(id(value))
    while parent is not None:
        if isinstance(parent, ast.If):
            holds = test_holds(parent.test, env, literal)
            if holds is not None and holds != any(s is child for s in parent.body):
                return False  # the branch the bound value does not take
        for block in _blocks(parent):
            index = next((i for i, s in enumerate(block) if s is child), 0)  # 0: not in this block
            if any(_leaves(s, env, literal) for s in block[:index]):
                return False  # after `if style == "markdown": return ...` that the bound value takes
        if parent is fn:
            return True
        child, parent = parent, parents.get(id(parent))
    return True


def _blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists of a statement (a body, an ``else``)."""
    return [block for block in (getattr(node, "body", None), getattr(node, "orelse", None))
            if isinstance(block, list)]


def _leaves(statement: ast.stmt, env: Env, literal: Callable[[ast.expr, Env], str | None]) -> bool:
    """Whether ``statement`` is an ``if`` that the bound value takes into a branch that returns."""
    if not isinstance(statement, ast.If):
        return False
    holds = test_holds(statement.test, env, literal)
    taken = statement.body if holds else statement.orelse if holds is False else []
    return bool(taken) and isinstance(taken[-1], (ast.Return, ast.Raise))


def test_holds(test: ast.expr, env: Env, literal: Callable[[ast.expr, Env], str | None]) -> bool | None:
    """Whether ``param == "text"`` (or ``!=``) holds for the value the call binds ``param`` to; None
    when the test is not such a comparison or the bound value is not a literal string."""
    found = compared(test)
    if found is None or not isinstance(found[1], str):
        return None
    name, value, equal = found
    bound = env.bound(name)
    given = literal(bound.node, bound.env) if bound is not None and bound.owner is None else None
    if given is None:
        return None
    return (given == value) == equal


def compared(test: ast.expr) -> tuple[str, object, bool] | None:
    """``name == constant`` or ``name != constant``, either way round: the name, the constant and
    whether the test is ``==``."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(right, ast.Name):
        left, right = right, left
    constant = signed_constant(right)
    if isinstance(left, ast.Name) and constant is not None and constant.value is not None:
        return left.id, constant.value, isinstance(test.ops[0], ast.Eq)
    return None
