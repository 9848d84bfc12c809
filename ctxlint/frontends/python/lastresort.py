"""A cut made only when nothing else is left to cut.

Code that fits a prompt to a budget usually cuts the text that matters least first, and cuts the
one that matters most (the user's question) only in the branch where the budget cannot even hold
it whole::

    if budget > count(question):
        context = decode(encode(context)[:budget - count(question)])   # the routine cut
    else:
        question = decode(encode(question)[:budget])                   # the last resort

The second cut fires only when that one text alone overflows everything the prompt has room
for: the request would fail without it, and a marker would not save what it drops. The routine
cut in the first branch is the one worth a note.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Evidence, EvidenceKind


def last_resort(m: Unit, cut: ast.expr) -> tuple[Evidence, ...]:
    """The step that shows ``cut`` sits in the ``else`` of an ``if`` that tests the budget the cut
    is sized by and, in its own branch, cuts another text to that budget instead; () when it
    does not."""
    bound = _bound(m, cut)
    if bound is None:
        return ()
    child: ast.AST = cut
    parent = m.parents.get(id(cut))
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(parent, ast.If) and any(child is s for s in parent.orelse) and bound in _names(parent.test):
            routine = next((n for s in parent.body for n in walk(s) if n is not cut and _bound(m, n) == bound), None)
            if routine is not None:
                return (Evidence(EvidenceKind.FLOW, f"cut only when `{m.code(parent.test)}` fails: the other branch "
                                 f"cuts `{m.code(routine)}` to the same budget, and this text alone overflows it",
                                 m.span(parent.test)),)
            return ()
        child, parent = parent, m.parents.get(id(parent))
    return ()


def _bound(m: Unit, node: ast.AST) -> str | None:
    """The name a slice of ``node`` (itself, or one inside the call it is) is cut to: the
    ``remaining_tokens`` of ``decode(encode(text)[:remaining_tokens])``."""
    for inner in walk(node) if isinstance(node, ast.Call) else (node,):
        if isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Slice) and inner.slice.step is None:
            edge = inner.slice.upper if inner.slice.lower is None else inner.slice.lower
            if isinstance(edge, ast.Name):
                return edge.id
    return None


def _names(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
