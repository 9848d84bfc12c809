"""A project function that keeps the words (or lines) of its text until a count reaches a budget.

``for line in text.split("\\n"): ... if count >= limit: break ... kept += word + " "``: a text built
from the words (or lines) of a parameter, in order, in a loop that stops once a count reaches a
budget (another parameter, or a number); what the function returns is the start of the text with
nothing to say the rest was left out. A marker written in the loop or a return (``kept += "
[truncated]"``) makes the cut not silent. (Read for ``cuts.summary``, which makes such a function a
truncator.)
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ctxlint.frontends.code.words import MIN_CUT
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.markers import mentions_cut


def word_budget(fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, kept: ast.expr,
                literal_str: Callable[[ast.expr, Env], str | None]
                ) -> tuple[ast.Compare, str, bool, str | None] | None:
    """The loop's test of its budget, the parameter whose words it keeps, whether it keeps words
    (else lines), and the parameter that gives the budget (if one does), when ``fn`` returns
    ``kept`` built that way."""
    if not isinstance(kept, ast.Name) or kept.id in scope.params:
        return None
    for loop in walk(fn):
        if not isinstance(loop, ast.For):
            continue
        text = _split_param(loop.iter, scope)
        if text is None or not any(isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add)
                                   and isinstance(n.target, ast.Name) and n.target.id == kept.id
                                   for n in walk(loop)):
            continue
        budget = next((n for n in walk(loop) if isinstance(n, ast.Compare) and _against_budget(n, scope, text)),
                      None)
        if budget is None or not any(isinstance(n, ast.Break) for n in walk(loop)) or _says_cut(loop, scope):
            continue
        by_words = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "split"
                       and (not n.args or literal_str(n.args[0], Env(scope)) == " ")
                       for n in walk(loop))
        limit = next((side.id for side in (budget.left, budget.comparators[0])
                      if isinstance(side, ast.Name) and side.id in scope.params), None)
        return budget, text, by_words, limit
    return None


def _says_cut(loop: ast.For, scope: Scope) -> bool:
    """Whether text written in ``loop`` or in what the function returns says that text was cut."""
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and mentions_cut(n.value)
               for root in (loop, *scope.returns) for n in walk(root))


def _split_param(iterable: ast.expr, scope: Scope) -> str | None:
    """The parameter a loop walks the words or lines of (``for line in text.split("\\n")``)."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and \
            iterable.func.attr in ("split", "splitlines") and isinstance(iterable.func.value, ast.Name) and \
            iterable.func.value.id in scope.params:
        return iterable.func.value.id
    return None


def _against_budget(test: ast.Compare, scope: Scope, text: str) -> bool:
    """``count < max_words``, ``used >= 500``: a count held against another parameter or a number."""
    if len(test.ops) != 1 or not isinstance(test.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        return False
    for side in (test.left, test.comparators[0]):
        if isinstance(side, ast.Name) and side.id in scope.params and side.id != text:
            return True
        if isinstance(side, ast.Constant) and isinstance(side.value, int) and side.value >= MIN_CUT:
            return True
    return False
