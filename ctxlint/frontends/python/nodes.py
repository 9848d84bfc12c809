"""Walking CPython's syntax trees quickly: every module the front-end reads is walked several
times (prefilter, depth bound, scope index), so these skip what nothing reads."""

from __future__ import annotations

import ast
from collections.abc import Iterator

# Nodes that are markers, not code: the load/store context of a name and the operator of an
# expression. Nothing reads them as nodes, and skipping them makes the walks much cheaper.
_MARKERS = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
# Nodes with no child but their marker: the most common nodes of any module.
LEAVES = frozenset({ast.Name, ast.Constant})


def children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of ``node`` in field order, as ``ast.iter_child_nodes`` gives them but
    without context and operator markers; a list, which is faster to build than the generator
    on the paths every module takes."""
    found: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            if not isinstance(value, _MARKERS):
                found.append(value)
        elif isinstance(value, list):
            found.extend(v for v in value if isinstance(v, ast.AST))
    return found


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (itself included), depth first, markers left out."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))
