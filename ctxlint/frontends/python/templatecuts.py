"""The token ids of a whole conversation cut to their end: ``ids = tokenizer.apply_chat_template(messages)``
then ``ids = ids[:, -max_length:]`` (or ``ids[-n:]``) before ``model.generate(ids)``.

A chat template renders the system prompt first, then the turns, oldest first; keeping the last
tokens drops the system prompt and the earliest turns, mid-message, and a model given token ids
has nothing to tell it so. Dropping whole turns after the system message is the fix; a cut of the
ids of a text that is not a conversation (``tokenizer(text)``) is a token cut like any other and
is left to the cuts of text.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

TEMPLATE_TAIL_CUT = "template-tail-cut"
# The calls that render a conversation with the model's chat template into token ids.
_RENDERS = ("apply_chat_template",)


def template_tail_cuts(m: Unit) -> list[Observation]:
    """Each slice that keeps the end of the token ids a chat template rendered, in the function
    that rendered them."""
    found: list[Observation] = []
    if not any(render in m.text for render in _RENDERS):
        return found
    for fn, _scope in m.functions:
        nodes = own_nodes(fn)
        rendered = {target.id: node for node in nodes if isinstance(node, ast.Assign) and _renders(node.value)
                    for target in node.targets if isinstance(target, ast.Name)}
        if not rendered:
            continue
        for node in nodes:
            if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in rendered
                    and isinstance(node.ctx, ast.Load) and _keeps_end(node.slice)):
                continue
            render = rendered[node.value.id]
            span = m.span(node)
            step = Evidence(EvidenceKind.FLOW, f"`{node.value.id}` holds the conversation rendered by its chat "
                            "template, the system prompt first", m.span(render))
            source = Source(SourceKind.TRUNCATION, m.code(node), span,
                            cut=Cut("tokens", "end", TEMPLATE_TAIL_CUT, history=True), flow=(step,), strong=True)
            found.append(Observation(TEMPLATE_TAIL_CUT, span, "the start of the conversation is dropped",
                                     source=source))
    return found


def _renders(value: ast.expr) -> bool:
    if isinstance(value, ast.Await):
        value = value.value
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _RENDERS


def _keeps_end(index: ast.expr) -> bool:
    """``[-n:]``, or ``[:, -n:]`` (the last axis of a batch of ids)."""
    last = index.elts[-1] if isinstance(index, ast.Tuple) and index.elts else index
    if isinstance(index, ast.Tuple) and not all(isinstance(e, ast.Slice) and e.lower is None and e.upper is None
                                                 and e.step is None for e in index.elts[:-1]):
        return False
    return isinstance(last, ast.Slice) and last.upper is None and last.step is None and \
        isinstance(last.lower, ast.UnaryOp) and isinstance(last.lower.op, ast.USub)
