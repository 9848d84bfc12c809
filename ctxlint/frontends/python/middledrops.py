"""Items of a conversation removed from its middle: ``images = [m for m in messages if m["type"] == "image"]``
then ``for m in images[1:-2]: messages.remove(m)``.

The loop keeps the first and the last of those items and removes every one between them from the
conversation the model is sent, with nothing in their place: the turns that spoke of them are read
as if nothing had been there. A loop that puts a note back (``messages.insert(i, note)``) is not
this, nor one over a slice that keeps one end only (the usual window).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ctxlint.frontends.python.loopshapes import history_name
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

MIDDLE_REMOVED = "middle-removed"
# What puts something back in the conversation in place of what the loop removed.
_PUTS_BACK = ("insert", "append", "extend", "__setitem__")


def middle_removals(m: Unit) -> list[Observation]:
    """Each loop over the middle of a selection of a conversation's items that removes them from it."""
    found: list[Observation] = []
    if ".remove(" not in m.text:  # what the loop must call on the conversation
        return found
    for fn, _scope in m.functions:
        nodes = own_nodes(fn)
        for loop in nodes:
            if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
                continue
            ends = _middle(loop.iter)
            if ends is None:
                continue
            removed_from = _removes(loop, loop.target.id)
            if removed_from is None or not history_name(removed_from):
                continue
            assert isinstance(loop.iter, ast.Subscript) and isinstance(loop.iter.value, ast.Name)
            picked = loop.iter.value.id
            if not _picked_from(nodes, picked, removed_from):
                continue
            head, tail = ends
            span = m.span(loop.iter)
            step = Evidence(EvidenceKind.FLOW, f"`{picked}` holds items of `{removed_from}`; each one the loop reaches "
                            f"is removed from it", m.span(loop.body[0]))
            source = Source(SourceKind.TRUNCATION, m.code(loop.iter), span,
                            cut=Cut("items", f"{head}+{tail}", MIDDLE_REMOVED, history=True), flow=(step,), strong=True)
            found.append(Observation(MIDDLE_REMOVED, span, f"the items between the ends are removed from "
                                     f"`{removed_from}`", source=source))
    return found


def _middle(node: ast.expr) -> tuple[int, int] | None:
    """``x[a:-b]`` with a and b positive numbers: how many items each end keeps."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Slice)):
        return None
    lower, upper, step = node.slice.lower, node.slice.upper, node.slice.step
    if step is not None or not (isinstance(lower, ast.Constant) and isinstance(lower.value, int)) or \
            not (isinstance(upper, ast.UnaryOp) and isinstance(upper.op, ast.USub)
                 and isinstance(upper.operand, ast.Constant) and isinstance(upper.operand.value, int)):
        return None
    head, tail = lower.value, upper.operand.value
    return (head, tail) if head > 0 and tail > 0 else None


def _removes(loop: ast.For, item: str) -> str | None:
    """``messages.remove(item)`` in the loop, and nothing put back in the same list."""
    calls = [(n.func.value.id, n.func.attr, n.args) for n in walk(loop) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)]
    removed = next((owner for owner, method, args in calls if method == "remove" and len(args) == 1
                    and isinstance(args[0], ast.Name) and args[0].id == item), None)
    if removed is None or any(owner == removed and method in _PUTS_BACK for owner, method, _ in calls):
        return None
    return removed


def _picked_from(nodes: Sequence[ast.AST], picked: str, conversation: str) -> bool:
    """``picked = [m for m in conversation if ...]``: a selection of the conversation's own items."""
    return any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == picked for t in n.targets)
               and isinstance(n.value, ast.ListComp) and any(
                   isinstance(g.iter, ast.Name) and g.iter.id == conversation for g in n.value.generators)
               for n in nodes)
