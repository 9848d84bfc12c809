"""A conversation rebuilt from its two ends: ``messages = [messages[0], messages[1], ...messages.slice(-7)]``.

The turns between the kept head and the kept tail are dropped, and nothing takes their place
when every element of the new array is an item or a tail of the same conversation (a note such
as ``{role: "user", content: "[12 earlier messages omitted]"}`` among them is a marker). The cut
counts where the function then sends the conversation: a request it makes reads the name, or a
name given a value built from it (``const input = messages.map(...)``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Request, Source, SourceKind

# What a conversation is called.
HISTORY_WORDS = ("message", "history", "conversation", "turn", "chat")
MIDDLE_DROP = "middle-drop"


def assignments(m: Module) -> Iterator[tuple[Node, Node, Node]]:
    """Each ``name = value`` and ``const name = value`` of the module, with its target and value."""
    for node in walk(m.root):
        if node.type == "assignment_expression":
            target, value = m.field(node, "left"), m.field(node, "right")
        elif node.type == "variable_declarator":
            target, value = m.field(node, "name"), m.field(node, "value")
        else:
            continue
        if target is not None and value is not None and target.type == "identifier":
            yield node, target, value


def history_cuts(m: Module, requests: list[Request]) -> list[Observation]:
    """Each rebuild of a conversation from its two ends that a request of the same function sends."""
    if not requests or ".slice(" not in m.code(m.root):
        return []  # a rebuild keeps a tail (`messages.slice(-n)`) that a request of the module sends
    anchors = {(r.anchor.line, r.anchor.column) for r in requests}
    found = []
    for node, target, value in assignments(m):
        if value.type != "array":
            continue
        kept = _two_ends(m, value)
        if kept is None:
            continue
        name, head, tail = kept
        if not any(w in name.lower() for w in HISTORY_WORDS):
            continue
        sent = sent_after(m, node, {m.code(target)}, anchors)
        if sent is None:
            continue
        source = Source(SourceKind.TRUNCATION, " ".join(m.code(node).split()), m.span(value),
                        cut=Cut("items", f"{head}+{tail}", MIDDLE_DROP, history=True),
                        flow=(Evidence(EvidenceKind.SINK, f"sent by `{' '.join(m.code(sent).split())[:60]}`",
                                       m.span(sent)),))
        found.append(Observation(MIDDLE_DROP, m.span(value), "no message says what was dropped", source=source))
    return found


def _two_ends(m: Module, array: Node) -> tuple[str, int, int] | None:
    """``[x[0], x[1], ...x.slice(-7)]``: the array's name, how many items of its head and of its
    tail it keeps; None when any element is something else (a note in place of the cut)."""
    name: str | None = None
    head = tail = 0
    for element in array.named_children:
        if element.type == "comment":
            continue
        if element.type == "subscript_expression" and tail == 0:
            base, index = m.field(element, "object"), m.field(element, "index")
            if base is None or index is None or index.type != "number":
                return None
            owner, head = m.code(base), head + 1
        elif element.type == "spread_element" and element.named_children:
            call = element.named_children[0]
            callee = m.field(call, "function") if call.type == "call_expression" else None
            args = m.args(call) if callee is not None else []
            if callee is None or callee.type != "member_expression" or m.code(m.field(callee, "property")) != "slice" \
                    or len(args) != 1 or not m.code(args[0]).startswith("-") or not m.code(args[0])[1:].isdigit():
                return None
            owner, tail = m.code(m.field(callee, "object")), int(m.code(args[0])[1:])
        else:
            return None
        if name is not None and owner != name:
            return None
        name = owner
    return (name, head, tail) if name is not None and head and tail else None


def sent_after(m: Module, statement: Node, names: set[str], anchors: set[tuple[int, int]]) -> Node | None:
    """The call of a request, later in the function of ``statement``, that reads one of ``names`` or
    a name given a value built from them."""
    function = statement.parent
    while function is not None and function.type not in FUNCTIONS:
        function = function.parent
    if function is None:
        return None
    carriers = set(names)
    for node in walk(function):
        if node.start_byte < statement.end_byte:
            continue
        if node.type == "variable_declarator":
            target, value = m.field(node, "name"), m.field(node, "value")
            if target is not None and value is not None and _reads(value, carriers, m):
                carriers.add(m.code(target))
        elif node.type == "call_expression":
            span = m.span(node)
            if (span.line, span.column) in anchors and _reads(m.field(node, "arguments"), carriers, m):
                return node
    return None


def _reads(node: Node | None, names: set[str], m: Module) -> bool:
    return node is not None and any(n.type in ("identifier", "shorthand_property_identifier") and m.code(n) in names
                                    for n in walk(node))


