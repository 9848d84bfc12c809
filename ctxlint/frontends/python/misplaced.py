"""The tail of a text that belongs before a passage, added after it.

A window widened round a hit takes whole neighbours while they fit, and then a cut of the next
one: from the neighbour before the hit it keeps the end (the part next to the hit). Where the
function puts whole neighbours before the passage (``passage = left.text + passage``) but adds
the cut one after it (``passage += decode(left_tokens[-n:])``), the model reads the end of the
earlier text as if it followed the hit: out of order, starting mid-sentence, with nothing to say
so. An excerpt's ragged edge is expected; text in the wrong place is not.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Evidence, EvidenceKind

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def misplaced_tail(m: Unit, cut: ast.expr, fn: FunctionNode | None) -> Evidence | None:
    """The step that shows ``cut`` (a cut keeping the end of its text) is added after a text
    (``acc += cut``) that the function elsewhere puts the same text, whole, before
    (``acc = whole + acc``); None when it is not seen to be."""
    added = m.parents.get(id(cut))
    if fn is None or not (isinstance(added, ast.AugAssign) and isinstance(added.op, ast.Add)
                          and added.value is cut and isinstance(added.target, ast.Name)):
        return None
    passage = added.target.id
    wholes = _texts_cut(cut, fn)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == passage and isinstance(node.value, ast.BinOp) \
                and isinstance(node.value.op, ast.Add) and isinstance(node.value.right, ast.Name) \
                and node.value.right.id == passage and ast.dump(node.value.left) in wholes:
            return Evidence(EvidenceKind.FLOW, f"`{m.code(node.value.left)}` is put before `{passage}` whole, but "
                            "the end of it that is kept when it does not fit is added after", m.span(node))
    return None


def _texts_cut(cut: ast.expr, fn: FunctionNode) -> set[str]:
    """The text ``cut`` is a cut of, as dumped nodes: the sliced name, and what it was encoded
    from (``tokens = enc.encode(left.page_content)`` gives ``left.page_content``)."""
    sliced = [n.value for n in ast.walk(cut) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
              and n.slice.lower is not None and n.slice.upper is None]
    found = {ast.dump(n) for n in sliced}
    names = {n.id for n in sliced if isinstance(n, ast.Name)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in names and isinstance(node.value, ast.Call) and len(node.value.args) == 1:
            found.add(ast.dump(node.value.args[0]))  # `encode(text)`: the text itself
    return found
