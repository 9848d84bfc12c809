"""Names whose value is data read from elsewhere: what their own words claim is not evidence."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.scopes import other_branches
from ctxlint.frontends.python.values import Binding


def looked_up(read: ast.Name, binding: Binding, parents: dict[int, ast.AST]) -> bool:
    """Whether every value the name may hold at ``read`` (its last assignment in the function and
    those on the other side of an ``if``) is read out of data held elsewhere: an item or attribute
    (`prefs = stored.value["data"]`, `prefs = config["background"]`), with nothing changing it after.

    Such a value is whatever that data holds, so the name's words (`random_preferences`,
    `current_date`) say nothing of how often it changes: only what it is read from does, and its
    names are the value's own."""
    if binding.owner is not None or binding.env.scope.kind != "function" or binding.extras:
        return False
    return all(_lookup(value) for value in (binding.value, *other_branches(read, binding, parents)))


def _lookup(node: ast.expr) -> bool:
    """`a.b["c"].d`: items and attributes of a name, with constant keys, and no call."""
    if not isinstance(node, (ast.Subscript, ast.Attribute)):
        return False
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        node = node.value
    return isinstance(node, ast.Name)
