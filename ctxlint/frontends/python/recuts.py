"""A cut that a loop after it makes again: the first, coarse step of one trim::

    if count(query) > budget:
        query = query[:int(1.5 * budget)]      # a step of the trim below
    while count(history + query) > budget:
        query = query[:step]                   # the trim: reported here (a drop loop)

The text is cut to a length and then, in the same function, cut again in a loop until it fits:
both cuts leave the same text with nothing in the place of what went, and the loop is the one
that decides what is left. One finding says it, at the loop; the step before it is not another.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.unit import Unit


def cut_again_in_loop(m: Unit, cut: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
    """Whether ``cut`` (a slice) is assigned back to the name it cuts (``x = x[:n]``) and a
    ``while`` loop after it in ``fn``, run while a size of that name is over a bound
    (``while count(x) > budget:``, not a retry ``while x == "":``), assigns it a slice of itself again."""
    name = _recut_name(m, cut)
    if name is None or fn is None:
        return False
    for loop in walk(fn):
        if isinstance(loop, ast.While) and loop.lineno > cut.lineno and _measures(loop.test, name) and any(
                _recut_name(m, n) == name for s in loop.body for n in walk(s) if isinstance(n, ast.Subscript)):
            return True
    return False


def _recut_name(m: Unit, node: ast.AST) -> str | None:
    """``x`` of ``x = x[:n]`` (``node`` the slice); None for anything else."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and isinstance(node.value, ast.Name)):
        return None
    parent = m.parents.get(id(node))
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name) and parent.targets[0].id == node.value.id:
        return node.value.id
    return None


def _measures(test: ast.expr, name: str) -> bool:
    """A comparison of a size (a call given the name: ``len(x)``, ``count(history + x)``) with a bound."""
    return any(isinstance(c, ast.Compare) and all(isinstance(o, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) for o in c.ops)
               and any(isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in ast.walk(n))
                       for side in (c.left, *c.comparators) for n in ast.walk(side))
               for c in ast.walk(test))
