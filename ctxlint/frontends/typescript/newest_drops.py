"""A conversation cut from its end until it fits: ``while (!fits(history)) history = pruneLast(history)``.

A project function that gives back its parameter whole, empty, or without its last items
(``return chatHistory.slice(0, -2)``), called in a loop on a conversation the loop writes again
until a size test passes, drops the newest turns, the latest request and the tool results the
model was about to read, and leaves nothing in their place. Dropping the oldest turns
(``history.slice(1)``) is the usual window and is not this.
"""

from __future__ import annotations

from ctxlint.frontends.typescript.history_cuts import HISTORY_WORDS
from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.truncators import Truncators
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Function
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind, Span

_LOOPS = ("while_statement", "do_statement", "for_statement")
# What a loop that goes on until the conversation fits tests.
_SIZE_WORDS = ("token", "length", "valid", "limit", "fit", "size", "context", "budget", "overflow")


def newest_drops(m: Module, truncators: Truncators) -> list[Observation]:
    """Each call, in a loop kept to a size, of a project function that drops the end of the
    conversation it is given, on a name the loop writes again."""
    found = []
    for call, scope in m.calls:
        args = m.args(call)
        history = m.unwrap(args[0]) if args else None
        if history is None or history.type != "identifier" or not _conversation(m.code(history)):
            continue
        loop = _loop_of(call)
        if loop is None or not _sized(m, loop) or not _written_in(m, loop, m.code(history)):
            continue
        callee = truncators.callee(call, scope)
        if callee is None:
            continue
        owner, function = callee
        dropped = _drops_end(owner.m, function)
        if dropped is None:
            continue
        detail = " ".join(m.code(call).split())
        step = Evidence(EvidenceKind.FLOW, f"`{m.code(m.field(call, 'function'))}` returns its conversation without "
                        f"its last items ({dropped.path}:{dropped.line})", dropped)
        cut = Cut("items", "start", "drop-loop", history=True)
        source = Source(SourceKind.TRUNCATION, detail, m.span(call), cut=cut, flow=(step,), strong=True)
        found.append(Observation("drop-loop", m.span(call), "the loop drops the newest turns until the conversation "
                                 "fits", source=source))
    return found


def _conversation(name: str) -> bool:
    return any(w in name.lower() for w in HISTORY_WORDS)


def _loop_of(call: Node) -> Node | None:
    """The loop the call runs in, within its own function."""
    node = call.parent
    while node is not None and node.type not in FUNCTIONS:
        if node.type in _LOOPS:
            return node
        node = node.parent
    return None


def _sized(m: Module, loop: Node) -> bool:
    """A loop whose test speaks of a size (``countTokens(history) > available``, ``!validation.isValid``)."""
    test = m.field(loop, "condition")
    return test is not None and any(w in m.code(test).lower() for w in _SIZE_WORDS)


def _written_in(m: Module, loop: Node, name: str) -> bool:
    """``name = ...`` in the loop: the conversation the next pass tests is the one cut."""
    return any(node.type == "assignment_expression" and m.code(m.field(node, "left") or node) == name
               for node in walk(loop))


def _drops_end(m: Module, function: Function) -> Span | None:
    """Where ``function`` returns its first parameter without its last items (``x.slice(0, -2)``),
    when every other return gives it back whole or empty; None otherwise."""
    scope = function.scope
    param = scope.positional[0] if scope.positional else None
    if param is None or not scope.returns:
        return None
    found: Span | None = None
    for returned in scope.returns:
        value = m.unwrap(returned)
        code = m.code(value)
        if code == param or (value.type == "array" and not value.named_children):
            continue
        if _slice_without_end(m, value, param):
            found = found or m.span(value)
            continue
        return None
    return found


def _slice_without_end(m: Module, value: Node, param: str) -> bool:
    """``param.slice(0, -n)`` or ``param.slice(0, param.length - n)``."""
    callee = m.field(value, "function") if value.type == "call_expression" else None
    if callee is None or callee.type != "member_expression" or m.code(m.field(callee, "property")) != "slice" \
            or m.code(m.field(callee, "object")) != param:
        return False
    args = [m.unwrap(a) for a in m.args(value)]
    if len(args) != 2 or m.code(args[0]) != "0":
        return False
    end = "".join(m.code(args[1]).split())
    return (end.startswith("-") and end[1:].isdigit()) or (end.startswith(f"{param}.length-") and end.split("-")[-1]
                                                             .isdigit())


