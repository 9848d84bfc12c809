"""A key of one message of a list set after the list is built: ``messages[0]["content"] = text``
(an agent rewriting its system message on every pass with what its tools gave back), or
``messages[-1]["content"] += note``. Scopes record it on the list (kind ``itemset`` or
``itemset+=``); ``changed_item`` gives the message the list holds after it (containers.bound_items).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ctxlint.frontends.code.assigns import owner
from ctxlint.frontends.python.literals import string_value
from ctxlint.frontends.python.values import Assign, Binding, Item, Loop, Scope

SET, ADDED = "itemset", "itemset+="


def _position(node: ast.expr) -> int | None:
    """An index written out: ``0``, ``-1``."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    return None


def item_key_assign(target: ast.expr, value: ast.expr, end: tuple[int, int], loops: tuple[Loop, ...],
                    scope: Scope, op: ast.operator | None = None) -> tuple[str, Assign] | None:
    """The list name and the change to record when ``target`` is a key of an item at a position
    written out (``messages[0]["content"]``), set or, with ``op`` an addition, added to; else None."""
    kind = SET if op is None else ADDED if isinstance(op, ast.Add) else None
    if kind is None or not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript)
            and isinstance(target.value.value, ast.Name) and _position(target.value.slice) is not None
            and isinstance(string_value(target.slice), str)):
        return None
    name = target.value.value.id
    home = owner(name, scope)
    return name, Assign(kind, value, end, loops, home, target, where=scope if home is not scope else None)


def changed_item(items: list[Item], binding: Binding, extra: Assign) -> None:
    """Put in ``items`` the message ``extra`` changes a key of, when the list holds a message
    written out as a dict at that position (no run of unknown length before it, or after it for a
    position from the end) and the new value can be read beside the dict's other values. A change
    that cannot be read leaves the list as it was."""
    target = extra.target
    assert isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript) and extra.value is not None
    position, key = _position(target.value.slice), string_value(target.slice)
    if position is None or not isinstance(key, str) or not -len(items) <= position < len(items):
        return
    if position < 0 and binding.loop_of(extra) is not None:
        return  # the last message, in a loop that may add more: which one it is changes
    around = items[:position + 1] if position >= 0 else items[position:]
    item = items[position]
    if any(i.variable for i in around) or not isinstance(item.node, ast.Dict):
        return
    env = binding.extras_env
    same_env = item.env.key == env.key
    memo_key = (id(item.node), same_env)  # one copy per message and change: memos go by node
    known = extra.made.get(memo_key)
    if known is None or known[0] is not item.node:
        known = extra.made[memo_key] = (item.node, _changed_dict(item.node, key, extra, same_env))
    made = known[1]
    if made is not None:
        items[position] = replace(item, node=made, env=env)


def _changed_dict(old: ast.Dict, key: str, extra: Assign, same_env: bool) -> ast.Dict | None:
    """A copy of the dict ``old`` with ``key`` set (or added to) by ``extra``; None when a value
    left from ``old`` cannot be read where the new one is (another env, and not a constant)."""
    assert extra.value is not None
    values, found = [], False
    for k, v in zip(old.keys, old.values, strict=True):
        if k is not None and string_value(k) == key:
            found = True
            if extra.kind == ADDED:
                if not same_env:
                    return None
                v = ast.copy_location(ast.BinOp(v, ast.Add(), extra.value), extra.value)
            else:
                v = extra.value
        elif not same_env and not isinstance(v, ast.Constant):
            return None
        values.append(v)
    keys: list[ast.expr | None] = list(old.keys)
    if not found:
        if extra.kind == ADDED:
            return None
        keys.append(ast.copy_location(ast.Constant(key), extra.value))
        values.append(extra.value)
    return ast.copy_location(ast.Dict(keys=keys, values=values), old)
