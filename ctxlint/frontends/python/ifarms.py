"""What a local name holds when another arm of an ``if`` gave it its text (ordering.py: each
arm's text reaches the use, with the additions made in it)."""

from __future__ import annotations

import ast

from ctxlint.frontends.code.assigns import seen_at
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Binding


def other_arms(part: Component, node: ast.Name, binding: Binding) -> list[Binding]:
    """What a local name holds when an earlier arm of an ``if`` ran instead of the one its
    last assignment is in (``if files: text = PREFIX; text += self.files_text()`` then
    ``else: text = NOTHING``): each arm's text reaches the use, with the additions made in it."""
    scope = binding.env.scope
    if binding.owner is not None or scope.kind != "function":
        return []
    seen, index = seen_at(scope.assigns.get(node.id) or [], part.m.start(node), True, part.scopes.carried)
    if index is None or seen[index].value is not binding.value:
        return []
    bases = [i for i, record in enumerate(seen[:index]) if record.kind == "=" and record.value is not None]
    arms = []
    for n, i in enumerate(bases):
        base = seen[i]
        if base.value is not None and _exclusive(part.m.parents, base.value, binding.value):
            following = seen[i + 1 : bases[n + 1] if n + 1 < len(bases) else index]
            arms.append(Binding(base.value, binding.env, following, len(base.loops)))
    return arms


def _exclusive(parents: dict[int, ast.AST], one: ast.AST, other: ast.AST) -> bool:
    """Whether two nodes sit in different arms of one ``if``: only one of them runs."""
    arms = _if_arms(parents, one)
    return any(arms.get(key, arm) != arm for key, arm in _if_arms(parents, other).items())


def _if_arms(parents: dict[int, ast.AST], node: ast.AST) -> dict[int, bool]:
    """For each ``if`` around ``node``: whether it is in the ``if``'s body (not its ``else``)."""
    arms: dict[int, bool] = {}
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if isinstance(parent, ast.If) and node is not parent.test:
            arms[id(parent)] = any(statement is node for statement in parent.body)
        node, parent = parent, parents.get(id(parent))
    return arms
