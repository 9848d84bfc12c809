"""Whether a value kept in a local name is only inspected, never passed on as text a model reads.

A cut kept in a name (``content = page.text[:1000].lower()``) goes somewhere only through the
name's later uses. When every one of them tests the text (``word in content``, ``if content``,
``content == ...``), logs it, raises it in an error (``raise ApiError(message=message)``), or hands
it to a function named for embeddings (vectors, not text a model answers from), the cut loses
nothing a model would have read. A use that only gives the name a new value built from the old
(``message = detail or message``) is followed by the name's later uses, which are read as well.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.cutmarkers import LOGGING
from ctxlint.frontends.python.nodes import reads_of

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def only_inspected(parents: dict[int, ast.AST], fn: FunctionNode, name: str, assign: ast.stmt) -> bool:
    """True when ``name``, given its value by ``assign`` in ``fn``, is read later in ``fn`` and
    every reading only inspects it. A name read nowhere after is not known to be unused (it may
    be returned by a later branch written in another way), so that answer is False."""
    uses = reads_of(fn, name, assign)
    return bool(uses) and all(_inspected(parents, use, name) for use in uses)


def _inspected(parents: dict[int, ast.AST], use: ast.Name, name: str) -> bool:
    current: ast.AST = use
    while True:
        parent = parents.get(id(current))
        if parent is None:
            return False
        if isinstance(parent, (ast.Compare, ast.Assert, ast.Raise)):
            return True
        if isinstance(parent, (ast.If, ast.While, ast.IfExp)) and current is parent.test:
            return True
        if isinstance(parent, ast.Call) and current is not parent.func:
            called = last_name(parent.func) or ""
            return called in LOGGING or "embed" in called.lower() or isinstance(_statement(parents, parent), ast.Raise)
        if isinstance(parent, ast.Assign):
            # `message = detail or message`: the name again, whose later uses are read as well
            return all(isinstance(t, ast.Name) and t.id == name for t in parent.targets)
        if isinstance(parent, ast.stmt):
            return False  # kept again, returned, yielded, a bare statement: it goes on
        current = parent


def _statement(parents: dict[int, ast.AST], node: ast.AST) -> ast.AST | None:
    """The statement ``node`` is part of."""
    current: ast.AST | None = node
    while current is not None and not isinstance(current, ast.stmt):
        current = parents.get(id(current))
    return current
