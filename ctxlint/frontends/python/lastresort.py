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
    edge = _edge(cut)
    if not isinstance(edge, ast.Name):
        return ()  # cut to the whole budget, not to what is left of it
    bound = edge.id
    child: ast.AST = cut
    parent = m.parents.get(id(cut))
    while parent is not None and not isinstance(parent, (ast.Lambda, ast.ClassDef, ast.Module)):
        for test in _otherwise(parent, child):
            if bound not in _names(test.test):
                return ()
            routine = next((n for s in test.body for n in walk(s) if isinstance(n, ast.expr)
                            and (e := _edge(n)) is not None and bound in _names(e)), None)
            if routine is None:
                return ()
            return (Evidence(EvidenceKind.FLOW, f"cut only when `{m.code(test.test)}` fails: the other branch cuts "
                             f"`{m.code(routine)}` to the same budget, and this text alone overflows it",
                             m.span(test.test)),)
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            break
        child, parent = parent, m.parents.get(id(parent))
    return ()


def _otherwise(parent: ast.AST, child: ast.AST) -> list[ast.If]:
    """The ``if`` whose failing test alone leads to ``child``: ``parent`` itself when ``child`` is
    in its ``else``, or the ``if`` just before ``child`` in ``parent``'s block whose branch ends
    by returning (``if fits: ...; return whole`` then ``return cut``)."""
    if isinstance(parent, ast.If) and any(child is s for s in parent.orelse):
        return [parent]
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(child is s for s in block):
            at = next(i for i, s in enumerate(block) if s is child)
            before = block[at - 1] if at else None
            if isinstance(before, ast.If) and not before.orelse \
                    and isinstance(before.body[-1], (ast.Return, ast.Raise)):
                return [before]
    return []


def _edge(node: ast.AST) -> ast.expr | None:
    """The size a slice of ``node`` (itself, or one inside the call it is) is cut to: the
    ``remaining_tokens`` of ``decode(encode(text)[:remaining_tokens])``."""
    for inner in walk(node) if isinstance(node, ast.Call) else (node,):
        if isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Slice) and inner.slice.step is None:
            edge = inner.slice.upper if inner.slice.lower is None else inner.slice.lower
            if edge is not None:
                return edge
    return None


def _names(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
