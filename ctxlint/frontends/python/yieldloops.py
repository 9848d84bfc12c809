"""The loops a generator's ``yield``s sit in: what its items come in the order of."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping

Parents = Mapping[int, ast.AST]


def yielded_from(fn: ast.AST, nodes: Iterable[ast.AST], parents: Parents) -> list[ast.expr] | None:
    """The collection each ``yield`` among ``nodes`` (the generator ``fn``'s own) loops over, the
    walk for a loop over a part of what it gives (``for name in files`` in an ``os.walk``); None when
    a ``yield`` is outside every loop, unless it yields one item and the generator ends there."""
    iterables: list[ast.expr] = []
    for node in nodes:
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            loop = enclosing_loop(node, fn, parents)
            if loop is None and lone_yield(node, parents):
                continue  # `if root.is_file(): yield root; return`: that call gives one item, no order
            if loop is None:
                return None
            iterables.append(outer_walk(loop, fn, parents).iter)
    return iterables


def outer_walk(loop: ast.For | ast.AsyncFor, fn: ast.AST, parents: Parents) -> ast.For | ast.AsyncFor:
    """The loop whose items ``loop`` walks a part of: for ``for name in files:`` inside
    ``for root, dirs, files in os.walk(top):``, the walk, whose order the files come in."""
    while isinstance(loop.iter, ast.Name):
        outer = enclosing_loop(loop, fn, parents)
        if outer is None or not isinstance(outer.target, ast.Tuple) or not any(
                isinstance(e, ast.Name) and e.id == loop.iter.id for e in outer.target.elts):
            break
        loop = outer
    return loop


def lone_yield(node: ast.Yield | ast.YieldFrom, parents: Parents) -> bool:
    """Whether ``node`` yields one item as a statement a bare ``return`` follows: the generator
    gives that item alone on that path."""
    statement = parents.get(id(node))
    block = parents.get(id(statement))
    if not isinstance(node, ast.Yield) or not isinstance(statement, ast.Expr) or block is None:
        return False
    body = next((b for b in (getattr(block, f, None) for f in ("body", "orelse"))
                 if isinstance(b, list) and statement in b), None)
    if body is None:
        return False
    after = body[body.index(statement) + 1:]
    return bool(after) and isinstance(after[0], ast.Return) and after[0].value is None


def enclosing_loop(node: ast.AST, fn: ast.AST, parents: Parents) -> ast.For | ast.AsyncFor | None:
    """The innermost ``for`` around ``node`` inside ``fn``; None past a ``while`` or a nested function."""
    parent = parents.get(id(node))
    while parent is not None and parent is not fn:
        if isinstance(parent, (ast.For, ast.AsyncFor)):
            return parent
        if isinstance(parent, (ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return None
        parent = parents.get(id(parent))
    return None
