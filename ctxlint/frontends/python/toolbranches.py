"""The widest tool list a request may offer, when a name sent as the tools is assigned again
in a branch: ``tools = [...thirty tools...]``, then ``if local: tools = [search]``. The
analysis otherwise reads a name's last assignment before its use; an assignment made under an
``if`` (or ``try``, or a loop) that does not also hold the use leaves the earlier value reaching
the call on the other path, so every such value is read and the one with the most tools kept.
A list filtered from itself (``tools = [t for t in tools if t not in slack_tools]``) is at most
what it filters, read the same way at that point.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.values import Env, Item

if TYPE_CHECKING:
    from ctxlint.frontends.python.tools import Tools

# Statements that may run or not: an assignment nested in one that does not also hold the use
# leaves the value before it reaching the use.
_BRANCHES = (ast.If, ast.Try, ast.For, ast.AsyncFor, ast.While, ast.Match)
_MAX_VALUES = 8
_MAX_DEPTH = 3


def widest_items(tools: Tools, node: ast.expr, env: Env, items: list[Item] | None) -> list[Item] | None:
    """``items`` (the list ``node`` holds as the analysis reads it), or the items of another value
    that may reach the call in its place with more tools among them."""
    if not isinstance(node, ast.Name):
        return items
    best, most = items, _count(items)
    seen: set[int] = set()
    for value, venv in _reaching(tools, node, env, 0)[1:]:
        if id(value) in seen:
            continue
        seen.add(id(value))
        found = tools.containers.items(value, venv)
        if _count(found) > most:
            best, most = found, _count(found)
    return best


def _count(items: list[Item] | None) -> int:
    """How many tools a list's items name for certain (runs of unknown length not counted)."""
    return -1 if items is None else sum(1 for item in items if not item.variable and item.loop is None)


def _reaching(tools: Tools, use: ast.Name, env: Env, depth: int) -> list[tuple[ast.expr, Env]]:
    """The plain assignments of a local name that may reach ``use``, the last first: the last one
    before it, and each earlier one while those after it sit in a branch that does not hold ``use``.
    A list filtered from the name itself stands for the values the name held where it is filtered."""
    m = tools.m
    records = env.scope.assigns.get(use.id)
    if not records or env.bound(use.id) is not None or depth > _MAX_DEPTH:
        return []
    at = m.start(use)
    before = [r for r in records if r.end <= at]
    found: list[tuple[ast.expr, Env]] = []
    cover: ast.If | None = None  # an `if` whose every arm assigns the name: nothing before it reaches
    for record in reversed(before):
        if record.kind != "=":
            if found:
                continue
            return []  # appended to after its last assignment: read as the analysis reads it
        if record.value is None or record.target is None or len(found) >= _MAX_VALUES:
            break
        if cover is not None and not m.start(cover) <= m.start(record.target) <= m.end(cover):
            break
        venv = Env(record.home, env.bindings if record.home is env.scope else (), env.depth + 1)
        inner = _filtered_self(record.value, use.id)
        if inner is not None:
            found.extend(_reaching(tools, inner, venv, depth + 1) or [(record.value, venv)])
        else:
            found.append((record.value, venv))
        branch = _outer_branch(tools, record.target, use)
        if branch is None:
            break
        if cover is None and isinstance(branch, ast.If) and _covers(branch, use.id):
            cover = branch
    return found


def _filtered_self(value: ast.expr, name: str) -> ast.Name | None:
    """The name a comprehension filters from itself (``[t for t in tools if ...]`` for ``tools``)."""
    if isinstance(value, ast.ListComp) and len(value.generators) == 1:
        generator = value.generators[0]
        if generator.ifs and isinstance(generator.iter, ast.Name) and generator.iter.id == name \
                and isinstance(generator.target, ast.Name) and isinstance(value.elt, ast.Name) \
                and value.elt.id == generator.target.id:
            return generator.iter
    return None


def _outer_branch(tools: Tools, target: ast.expr, use: ast.expr) -> ast.stmt | None:
    """The outermost branch or loop around the statement assigning ``target`` that does not hold
    ``use``; None when the assignment runs on every path to it."""
    m = tools.m
    at = m.start(use)
    found = None
    parent = m.parents.get(id(target))
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(parent, _BRANCHES) and not m.start(parent) <= at <= m.end(parent):
            found = parent
        parent = m.parents.get(id(parent))
    return found


def _covers(branch: ast.If, name: str) -> bool:
    """Whether every arm of an ``if`` (``elif`` arms included) assigns ``name`` at its top level."""
    def assigns(body: list[ast.stmt]) -> bool:
        return any(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                   for s in body)

    if not assigns(branch.body):
        return False
    orelse = branch.orelse
    if len(orelse) == 1 and isinstance(orelse[0], ast.If):
        return _covers(orelse[0], name)
    return assigns(orelse)
