"""The front-end's internal values: scopes, functions, assignments, bindings, array items, the
request builder; and the operations on pieces of text that JavaScript's semantics decide
(``dedent``, numbers as JavaScript writes them).

None of these leave the package; what leaves is the shared model (requests, segments, slots). The
pieces of text, facts and builder shared with the Python front-end are in ``frontends/code/``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ctxlint.frontends.code.pieces import Builder, Piece, kept, slot_text, strip, unique
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.model import Role, Slot, Span

REQUEST_BODY = "the request body"  # how a request body's source begins its detail
ITEM = "[item]"  # the `key` of a name bound to each item of a collection in turn


class TooDeep(Exception):
    def __init__(self, node: Node):
        self.node = node


@dataclass
class Loop:
    node: Node
    text: str


@dataclass(eq=False)
class Scope:
    kind: str  # "module" or "function"
    node: Node
    parent: Scope | None = None
    assigns: dict[str, list[Assign]] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)  # name -> type annotation text ("" if none)
    positional: list[str] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)
    returns: list[Node] = field(default_factory=list)
    tool_results: dict[str, Span] = field(default_factory=dict)
    handler: bool = False  # a request handler: `(req, res) => ...`, `export async function POST(req)`


@dataclass(eq=False)
class Function:
    """A function literal or declaration and the scope its body opens."""

    node: Node
    scope: Scope


@dataclass(eq=False)
class Assign:
    """One write to a name: what was written, where it ends, and inside which loops and scope."""

    kind: str  # "=", "+=", "append", "extend", "insert"
    value: Node | None
    end: int
    loops: tuple[Loop, ...]
    scope: Scope
    target: Node
    key: str | None = None  # `const { key } = value`: the name holds one property of the value


class Timeline:
    """A name's assignments in one scope, for finding those made before an offset in log time.

    ``before(at)`` answers what a linear scan of the records answers: the last plain ``=`` among
    the records that end by ``at`` (the latest in list order), followed by the other records after
    it in list order that end by ``at`` or that a loop around ``at`` carries back (``at`` None:
    every record). The records' ends need not be in list order (error recovery can close a
    declaration long after the assignments inside it): they are sorted once, and the last ``=``
    among each prefix of that order is kept.
    """

    def __init__(self, records: list[Assign]):
        self.records = records
        order = sorted(range(len(records)), key=lambda i: records[i].end)
        self.ends = [records[i].end for i in order]
        self.last_plain: list[int] = [-1]  # last_plain[n]: the latest `=` (in list order) among order[:n]
        for i in order:
            self.last_plain.append(max(self.last_plain[-1], i) if records[i].kind == "=" else self.last_plain[-1])
        self.others = [i for i, r in enumerate(records) if r.kind != "="]

    def before(self, at: int | None, carried: Callable[[Assign, int], bool]) -> tuple[list[Assign], int | None]:
        """The visible records from the last ``=`` on, and the index of that ``=`` (0), or ([], None)."""
        index = self.last_plain[len(self.ends) if at is None else bisect.bisect_right(self.ends, at)]
        if index < 0:
            return [], None
        later = (self.records[i] for i in self.others[bisect.bisect_right(self.others, index) :])
        visible = (r for r in later if at is None or r.end <= at or (r.loops and carried(r, at)))
        return [self.records[index], *visible], 0


@dataclass(frozen=True)
class Env:
    scope: Scope
    bindings: tuple[tuple[str, Node, Any], ...] = ()
    depth: int = 0

    def bound(self, name: str) -> tuple[Node, Env] | None:
        for param, node, env in self.bindings:
            if param == name:
                return node, env
        return None


@dataclass
class Binding:
    value: Node
    env: Env
    extras: list[Assign]
    target: Node
    loops: int = 0
    # Part of a value that cannot be read as a literal (`const { page } = await req.json()`): its
    # facts and sources are the whole value's, its text is unknown.
    part: str | None = None

    def loop_of(self, extra: Assign) -> Loop | None:
        return extra.loops[-1] if len(extra.loops) > self.loops else None


@dataclass
class Item:
    node: Node
    env: Env
    loop: str | None = None
    variable: bool = False
    # An entry a loop appends to the list on every pass, where the list is read inside that same
    # loop (an agent's log of its steps, sent with each of its requests): the loop, with the push.
    grows: tuple[Loop, Node] | None = None


class RequestBuilder(Builder):
    def placed(self, slot: Slot, role: Role) -> Slot:
        if not any(s.detail.startswith(REQUEST_BODY) for s in slot.sources):
            return slot
        # What a client posts and the app sends back as the user's turn is the user's own input.
        # In the developer's text it is suspect, but weakly: the body is most often the app's own
        # front-end forwarding its settings, so the finding is low confidence.
        users_turn = role in (Role.USER, Role.ASSISTANT)
        return replace(slot, sources=tuple(
            replace(s, strong=False) if s.detail.startswith(REQUEST_BODY) else s
            for s in slot.sources if not (users_turn and s.detail.startswith(REQUEST_BODY))))


def described(kind: str, what: str) -> str:
    if kind == "process":
        return f"a command's output ({what})"
    return f"{REQUEST_BODY} ({what})" if kind == "request" else what


def short_call(qualified: str) -> str:
    return qualified.replace("node:", "")


def named(items: list[str]) -> tuple[str, ...]:
    """The names or calls, once each, without the empty ones."""
    return unique(i for i in items if i)


def number_value(code: str) -> tuple[bool, object]:
    """The value of a number literal as JavaScript writes it (``1_000``, ``0x1f``, ``10n``)."""
    text = code.replace("_", "").rstrip("n")
    try:
        if text.lower().startswith(("0x", "0o", "0b")):
            return True, int(text, 0)
        value = float(text)
    except ValueError:
        return False, None
    return True, int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def dedent(pieces: list[Piece]) -> list[Piece]:
    """What ``dedent`` makes of the text: the common indentation removed, first and last blank
    lines dropped (each slot stands in as one non-blank character)."""
    lines = slot_text(pieces).split("\n")
    indents = [len(line) - len(line.lstrip(" \t")) for line in lines[1:] if line.strip(" \t")]
    margin = min(indents) if indents else 0
    keep: list[bool] = []
    for number, line in enumerate(lines):
        drop = 0 if number == 0 else min(margin, len(line) - len(line.lstrip(" \t")))
        keep.extend([False] * drop + [True] * (len(line) - drop))
        keep.append(True)
    return strip(kept(pieces, keep))


def evaluated_once(piece: Piece) -> Piece:
    """A piece of a module-level constant: the calls in its slot run once per process."""
    slot = piece.slot
    if slot is None or not slot.calls:
        return piece
    return replace(piece, slot=replace(slot, once=slot.calls))

def replaced(pieces: list[Piece], pattern: str, regex: bool, flags: str, replacement: str) -> list[Piece]:
    """``text.replace(pattern, "literal")``: the static pieces with the replacement made in each (a
    match across a slot is not seen). The replacement is static text, so the slots stay where they
    are; a pattern or replacement Python's ``re`` does not read the same way leaves the text as it is."""
    if "$" in replacement:
        return pieces
    if regex:
        try:
            compiled = re.compile(pattern.replace("(?<", "(?P<").replace("(?P<=", "(?<=").replace("(?P<!", "(?<!"),
                                  (re.IGNORECASE if "i" in flags else 0) | (re.MULTILINE if "m" in flags else 0)
                                  | (re.DOTALL if "s" in flags else 0))
        except re.error:
            return pieces
        count = 0 if "g" in flags else 1
        literal = replacement.replace("\\", "\\\\")
        return [p if p.slot is not None else replace(p, text=compiled.sub(literal, p.text, count=count))
                for p in pieces]
    out, done = [], False
    for p in pieces:  # a string pattern: `replace` changes its first occurrence, `replaceAll` (flags "g") each
        if p.slot is None and not done and pattern in p.text:
            p = replace(p, text=p.text.replace(pattern, replacement, -1 if "g" in flags else 1))
            done = "g" not in flags
        out.append(p)
    return out
