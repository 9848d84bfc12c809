"""What a local name holds when another arm of an ``if`` gave it its text (ordering.py: each
arm's text reaches the use, with the additions made in it)."""

from __future__ import annotations

import ast

from ctxlint.frontends.code.assigns import seen_at
from ctxlint.frontends.python.scopes import apart, branches
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Binding, unpacked_position


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
    if not bases:
        return []  # a name given its value once: no earlier arm (asked for most names, so before the climb below)
    arms = []
    # the arm of each `if` the last one is in
    sides = dict(branches(_placed(binding.value), part.m.parents, tries=False))
    for n, i in enumerate(bases):
        base = seen[i]
        if base.value is not None and apart(sides, _placed(base.value), part.m.parents, tries=False):
            following = seen[i + 1 : bases[n + 1] if n + 1 < len(bases) else index]
            arms.append(Binding(base.value, binding.env, following, len(base.loops)))
    return arms


def _placed(value: ast.expr) -> ast.expr:
    """The node of the tree a value stands in: for one name of ``names, used = route(q)``, whose
    value is made up (the item of the call's result), the call."""
    return value.value if isinstance(value, ast.Subscript) and unpacked_position(value) is not None else value
