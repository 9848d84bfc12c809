"""Code blocks deleted from the turns of a conversation: ``msg.content.replace(/```[\\s\\S]*?```/g, "")``.

A project function given a conversation that rewrites a message's content with every fenced
block removed, and puts nothing in their place (a note only when nothing else is left,
``stripped || "[code omitted]"``, marks the empty turns alone), drops the code the model wrote
or read in those turns: the prose around it still speaks of code the model no longer sees. The
cut counts where a function of the module calls it, keeps the result in a name and a request of
the same function then sends it.
"""

from __future__ import annotations

from ctxlint.frontends.typescript.history_cuts import HISTORY_WORDS, assignments, sent_after
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.markers import mentions_cut
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Request, Source, SourceKind

STRIPPED_BLOCKS = "stripped-blocks"
_FENCE = "```"


def stripped_blocks(m: Module, requests: list[Request]) -> list[Observation]:
    """Each call of a function of the module that deletes fenced blocks from a conversation's
    messages unmarked, whose result a request of the calling function sends."""
    if not requests or _FENCE not in m.code(m.root):
        return []  # the walks below only where a request may send a conversation stripped of fences
    anchors = {(r.anchor.line, r.anchor.column) for r in requests}
    strippers = dict(_strippers(m))
    if not strippers:
        return []
    found = []
    for node, target, value in assignments(m):
        value = m.unwrap(value)
        if value.type == "await_expression" and value.named_children:
            value = value.named_children[0]
        callee = m.field(value, "function") if value.type == "call_expression" else None
        replace = strippers.get(m.code(callee)) if callee is not None else None
        if replace is None:
            continue
        sent = sent_after(m, node, {m.code(target)}, anchors)
        if sent is None:
            continue
        source = Source(SourceKind.TRUNCATION, " ".join(m.code(replace).split()), m.span(replace),
                        cut=Cut("code blocks", "start", STRIPPED_BLOCKS, history=True),
                        flow=(Evidence(EvidenceKind.FLOW, f"`{m.code(callee)}` is called on the conversation",
                                       m.span(value)),
                              Evidence(EvidenceKind.SINK, f"sent by `{' '.join(m.code(sent).split())[:60]}`",
                                       m.span(sent))))
        found.append(Observation(STRIPPED_BLOCKS, m.span(replace), "no marker says what was deleted", source=source))
    return found


def _strippers(m: Module) -> list[tuple[str, Node]]:
    """Each named function given a conversation (its first parameter named for one) that deletes
    fenced blocks from a message's content and writes no marker but a fallback for an empty turn:
    its name and the deleting call."""
    found = []
    for node in walk(m.root):
        value = m.field(node, "value") if node.type == "variable_declarator" else None
        if node.type == "function_declaration":
            name, function = m.field(node, "name"), node
        elif value is not None and value.type == "arrow_function":
            name, function = m.field(node, "name"), value
        else:
            continue
        parameters = m.field(function, "parameters")
        first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
        if name is None or first is None or not any(w in m.code(first).split(":")[0].lower() for w in HISTORY_WORDS):
            continue
        replace = next((c for c in walk(function) if _deletes_fences(m, c)), None)
        if replace is not None and not _marked(m, function):
            found.append((m.code(name), replace))
    return found


def _deletes_fences(m: Module, node: Node) -> bool:
    """``x.content.replace(/```[\\s\\S]*?```/g, "")``: every fenced block of a message's content
    replaced with nothing."""
    callee = m.field(node, "function") if node.type == "call_expression" else None
    if callee is None or callee.type != "member_expression" or m.code(m.field(callee, "property")) not in (
            "replace", "replaceAll"):
        return False
    subject, args = m.field(callee, "object"), m.args(node)
    return subject is not None and m.code(subject).endswith("content") and len(args) == 2 and \
        args[0].type == "regex" and _FENCE in m.code(args[0]) and m.code(args[0]).rsplit("/", 1)[-1].count("g") > 0 \
        and m.string_value(args[1]) == ""


def _marked(m: Module, function: Node) -> bool:
    """Whether the function writes a note of the cut other than a fallback for an empty value
    (the right side of ``stripped || "[code omitted]"``)."""
    for node in walk(function):
        if node.type not in ("string", "template_string") or not mentions_cut(m.code(node)):
            continue
        parent = node.parent
        if parent is not None and parent.type == "binary_expression" and m.field(parent, "right") == node and \
                m.code(m.field(parent, "operator")) in ("||", "??"):
            continue
        return True
    return False
