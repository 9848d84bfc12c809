"""A conversation rebuilt from its two ends: ``messages = [messages[0], messages[1], ...messages.slice(-7)]``.

The turns between the kept head and the kept tail are dropped, and nothing takes their place
when every element of the new array is an item or a tail of the same conversation (a note such
as ``{role: "user", content: "[12 earlier messages omitted]"}`` among them is a marker). The cut
counts where the function then sends the conversation: a request it makes reads the name, or a
name given a value built from it (``const input = messages.map(...)``).

The same cut made by a function given a conversation that reads only its first and its last
message (``messages[0]``, ``messages[messages.length - 1]``) and returns a new list of messages
built from them: whoever calls it sends the two ends as the whole conversation.
"""

from __future__ import annotations

from collections.abc import Iterator

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.syntax import own_nodes, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.markers import mentions_cut
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




def two_ends_returned(m: Module) -> list[Observation]:
    """Each function given a conversation that returns a list of messages built from its first and
    its last message alone (``[{role: "user", content: `${messages[0].content}...`}]``): every turn
    between them is dropped, and the caller sends what it gets as the conversation."""
    text = m.code(m.root)
    if "[0]" not in text or ".length" not in text or "role" not in text:
        return []
    found = []
    for function in m.functions:
        name = _conversation_param(m, function.node)
        ends = None if name is None else _two_end_reads(m, function.node, name)
        if ends is None:
            continue
        for built in _returned_arrays(m, function.node):
            if not _has_role(m, built) or mentions_cut(m.code(built)):
                continue
            label = _function_name(m, function.node)
            source = Source(SourceKind.TRUNCATION, " ".join(m.code(built).split())[:120], m.span(built),
                            cut=Cut("items", "1+1", MIDDLE_DROP, history=True),
                            flow=(Evidence(EvidenceKind.FLOW, f"`{' '.join(m.code(ends[0]).split())}` is the only "
                                           "message read from the start of the conversation", m.span(ends[0])),
                                  Evidence(EvidenceKind.FLOW, f"`{' '.join(m.code(ends[1]).split())}` the only one "
                                           "from its end", m.span(ends[1])),
                                  Evidence(EvidenceKind.FLOW, f"the two are returned by `{label}` as the conversation",
                                           m.span(built))))
            found.append(Observation(MIDDLE_DROP, m.span(built), "no message says what was dropped", source=source))
    return found


def _conversation_param(m: Module, function: Node) -> str | None:
    """The name of the function's first parameter when it is named for a conversation."""
    params = m.field(function, "parameters") or m.field(function, "parameter")
    first = next(iter(params.named_children if params is not None and params.type == "formal_parameters"
                      else [params] if params is not None else []), None)
    if first is not None and first.type in ("required_parameter", "optional_parameter"):
        first = m.field(first, "pattern")
    if first is None or first.type != "identifier":
        return None
    name = m.code(first)
    return name if any(w in name.lower() for w in HISTORY_WORDS) else None


def _two_end_reads(m: Module, function: Node, name: str) -> tuple[Node, Node] | None:
    """The first read of the conversation's first item and of its last item (``name[name.length - 1]``,
    ``name.at(-1)``) when every read of ``name`` in the function is one of them or its length: any
    other read (a loop, a slice, the whole list passed on or returned) may keep the turns between."""
    body = m.field(function, "body")
    if body is None:
        return None
    first: Node | None = None
    last: Node | None = None
    for node in walk(body):
        if node.type != "identifier" or m.code(node) != name:
            continue
        parent = node.parent
        if parent is None:
            return None
        if parent.type == "subscript_expression" and m.field(parent, "object") == node:
            index = m.code(m.field(parent, "index") or parent).replace(" ", "")
            if index == "0":
                first = first or parent
            elif index == f"{name}.length-1":
                last = last or parent
            else:
                return None
        elif parent.type == "member_expression" and m.field(parent, "object") == node:
            prop = m.code(m.field(parent, "property") or parent)
            call = parent.parent
            if prop == "at" and call is not None and call.type == "call_expression" \
                    and [m.code(a).replace(" ", "") for a in m.args(call)] == ["-1"]:
                last = last or call
            elif prop != "length":
                return None
        else:
            return None
    return (first, last) if first is not None and last is not None else None


def _returned_arrays(m: Module, function: Node) -> list[Node]:
    """The array literals the function returns: in place, or through a local name given one."""
    arrays: dict[str, Node] = {}
    returned = []
    for node in own_nodes(function):
        if node.type == "variable_declarator":
            target, value = m.field(node, "name"), m.field(node, "value")
            if target is not None and value is not None and value.type == "array":
                arrays[m.code(target)] = value
        elif node.type == "return_statement" and node.named_children:
            value = node.named_children[0]
            if value.type == "array":
                returned.append(value)
            elif value.type == "identifier" and m.code(value) in arrays:
                returned.append(arrays[m.code(value)])
    if function.type == "arrow_function":
        body = m.field(function, "body")
        if body is not None and body.type == "array":
            returned.append(body)
    return returned


def _has_role(m: Module, array: Node) -> bool:
    """The array holds a message: an object with a ``role``."""
    return any(element.type == "object" and any(
        pair.type == "pair" and m.code(m.field(pair, "key") or pair).strip("\"'") == "role"
        for pair in element.named_children) for element in array.named_children)


def _function_name(m: Module, function: Node) -> str:
    named = m.field(function, "name")
    if named is None and function.parent is not None and function.parent.type == "variable_declarator":
        named = m.field(function.parent, "name")
    return m.code(named) if named is not None else "the function"
