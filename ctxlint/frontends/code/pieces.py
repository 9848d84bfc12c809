"""The values the front-ends for code build: pieces of text, the facts a slot carries, and the
builder that turns pieces into a request's segments in provider order.

None of these leave the front-ends; what leaves is the shared model (requests, segments, slots).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TypeVar

from ctxlint.model import Accumulated, Breakpoint, Evidence, Role, Segment, Slot, Source, Span, ToolDef
from ctxlint.providers import part_text

T = TypeVar("T")
N = TypeVar("N")  # a front-end's syntax node
E = TypeVar("E")  # a front-end's environment
B = TypeVar("B", bound="Builder")


def read_part(node: N, env: E, entries: Mapping[str, tuple[N, E, object]] | None,
              literal: Callable[[N, E], str | None], pieces: Callable[[N, E], list[Piece]],
              content: Callable[[N, E, B, Role, str | None], None], builder: B, role: Role, loop: str | None) -> None:
    """Reads one part of a message's content list into ``builder``: a value that is not a dict is
    text, its ``pieces`` added in ``role``; a text part (``{"type": "text", "text": ...}``) adds its
    text the same way; a tool result's content is read as ``content`` in the tool role; a part that
    holds no text (an image) adds nothing."""
    if entries is None:
        builder.add(pieces(node, env), role, loop)
        return
    kind = literal(entries["type"][0], entries["type"][1]) if "type" in entries else "text"
    part = part_text(kind, entries)
    if part is None:
        return
    found = entries[part[0]]
    if part[1]:
        content(found[0], found[1], builder, Role.TOOL, loop)
    else:
        builder.add(pieces(found[0], found[1]), role, loop)


@dataclass
class Piece:
    """Part of a string value: static text (``slot is None``) or a slot, with its span, and the
    loop it is repeated in, if any."""

    text: str
    span: Span
    slot: Slot | None = None
    loop: str | None = None


class KeyIndex:
    """The keys of a list that only grows, brought up to date as it grows (see ``add_new``)."""

    __slots__ = ("keys", "indexed")

    def __init__(self) -> None:
        self.keys: set[Hashable] = set()
        self.indexed = 0  # how many of the list's items are in ``keys``


def add_new(into: list[T], items: Iterable[T], key: Callable[[T], Hashable] = lambda item: item,
            index: KeyIndex | None = None) -> None:
    """Append the items whose key is in neither ``into`` nor earlier in ``items``.

    A value merged from thousands of parts adds to the same list thousands of times: given the
    list's own ``index``, each call costs the items it adds (and those appended since the last
    call), not the length of the list, which would make the whole merge quadratic."""
    index = index if index is not None else KeyIndex()
    known = index.keys
    known.update(key(item) for item in into[index.indexed:])
    for item in items:
        item_key = key(item)
        if item_key not in known:
            known.add(item_key)
            into.append(item)
    index.indexed = len(into)


def source_key(source: Source) -> Hashable:
    return source.kind, source.span


@dataclass
class Facts:
    """What an expression shows about its value: the names and calls it reads, the sources it
    draws from, whether it has no fixed length."""

    names: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    variable_length: bool = False
    once: list[str] = field(default_factory=list)  # calls reached through module-level values: run at load
    called_at: dict[str, Span] = field(default_factory=dict)  # where each call is first made
    looked_up: list[str] = field(default_factory=list)  # names given only data read elsewhere (Slot.looked_up)
    indexes: dict[str, KeyIndex] = field(default_factory=dict, repr=False, compare=False)

    def merge(self, inner: Facts, module_level: bool = False) -> None:
        """Add the facts of ``inner`` this lacks: a value built from itself
        (``PROMPT = PROMPT + PROMPT``, forty times) keeps each fact once instead of 2**40 times.
        The calls of a module-level value run once, when the module loads."""
        add_new(self.calls, inner.calls, index=self.index("calls"))
        add_new(self.names, inner.names, index=self.index("names"))
        add_new(self.sources, inner.sources, key=source_key, index=self.index("sources"))
        add_new(self.once, inner.calls if module_level else inner.once, index=self.index("once"))
        add_new(self.looked_up, inner.looked_up, index=self.index("looked_up"))
        for call, span in inner.called_at.items():
            self.called_at.setdefault(call, span)
        self.variable_length = self.variable_length or inner.variable_length

    def adopted(self, sources: list[Source]) -> Facts:
        """A copy of these facts with ``sources`` (as seen from a module that uses the value)."""
        return replace(self, names=list(self.names), calls=list(self.calls), once=list(self.once), sources=sources,
                       called_at=dict(self.called_at), looked_up=list(self.looked_up), indexes={})

    def index(self, name: str) -> KeyIndex:
        """The key index of the list ``name`` (its lists only grow)."""
        found = self.indexes.get(name)
        if found is None:
            found = self.indexes[name] = KeyIndex()
        return found


class Builder:
    """Collects one request's segments and cache breakpoints in provider order."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.breakpoints: list[Breakpoint] = []
        self.tools: list[ToolDef] = []
        self.unseen: list[str] = []  # parts sent from values the code does not show (see Request.unseen)
        self.catalogue: list[Evidence] = []  # tools made one per item of an uncapped collection (Request.catalogue)
        self.unread: list[Span] = []  # tools a list names whose definitions were not read (Request.unread_tools)
        self.accumulated: Accumulated | None = None  # a tool added to a kept list on every call (Request.accumulated)
        self.message_index = -1
        self.sent_in: Span | None = None  # where the code writes the current message (Segment.sent_in)

    def next_message(self, at: Span | None = None) -> None:
        self.message_index += 1
        self.sent_in = at

    def add(self, pieces: list[Piece], role: Role, loop: str | None = None) -> None:
        for piece in pieces:
            slot = piece.slot
            where = piece.loop or loop
            if slot is None and not piece.text:
                continue
            if slot is not None:
                if where and not slot.variable_length:
                    slot = replace(slot, variable_length=True)
                slot = self.placed(slot, role)
            self.segments.append(Segment(role, piece.span, piece.text, slot, max(self.message_index, 0), where,
                                         self.sent_in))

    def placed(self, slot: Slot, role: Role) -> Slot:
        """The slot as it stands in a message of ``role`` (a front-end may weigh its sources
        by where they land)."""
        return slot

    def system(self, pieces: list[Piece], role: Role) -> None:
        """One message of ``pieces`` in ``role``."""
        self.next_message()
        self.add(pieces, role)


def description_text(pieces: list[Piece] | None, slot: Callable[[], Piece], builder: Builder) -> str | None:
    """A tool description's text, its slots shown as ``{expression}``; the slots become tools-role
    segments, so what flows into a description is checked like prompt text. None when the text is
    not known: the whole value (``slot()``) is then one such segment."""
    if pieces is None:
        builder.add([slot()], Role.TOOLS)
        return None
    slots = [p for p in pieces if p.slot is not None]
    if slots:
        builder.add(slots, Role.TOOLS)
    return "".join(p.text if p.slot is None else "{" + p.text + "}" for p in pieces)


def unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def replaced_by(pieces: list[Piece], old: str, new: list[Piece], count: int = -1) -> list[Piece]:
    """``pieces`` with the occurrences of ``old`` in their static text (the first ``count`` of
    them, every one for -1) replaced by ``new``, a placeholder filled by hand
    (``PROMPT.replace("{page}", page)``); the static parts around it keep the span of the text they
    were cut from."""
    found: list[Piece] = []
    for piece in pieces:
        if piece.slot is not None or old not in piece.text or count == 0:
            found.append(piece)
            continue
        parts = piece.text.split(old, count)
        count = count - (len(parts) - 1) if count > 0 else count
        for index, part in enumerate(parts):
            if part:
                found.append(Piece(part, piece.span, None, piece.loop))
            if index < len(parts) - 1:
                found.extend(Piece(p.text, p.span, p.slot, p.loop or piece.loop) for p in new)
    return found


def in_loop(pieces: list[Piece], loop: str | None) -> list[Piece]:
    return pieces if loop is None else [replace(p, loop=p.loop or loop) for p in pieces]


def slot_text(pieces: list[Piece]) -> str:
    """The static text of the pieces with each slot standing in as one non-blank character."""
    return "".join("\x00" if p.slot is not None else p.text for p in pieces)


def kept(pieces: list[Piece], keep: list[bool]) -> list[Piece]:
    """The pieces with only the characters of ``slot_text(pieces)`` that ``keep`` marks (a slot is
    always kept); a static piece left empty is dropped."""
    result, offset = [], 0
    for piece in pieces:
        width = 1 if piece.slot is not None else len(piece.text)
        if piece.slot is not None:
            result.append(piece)
        else:
            text = "".join(c for c, k in zip(piece.text, keep[offset : offset + width], strict=False) if k)
            if text:
                result.append(replace(piece, text=text))
        offset += width
    return result


def strip(pieces: list[Piece], start: bool = True, end: bool = True) -> list[Piece]:
    """The pieces with the white space at the start or end of the static text around them
    removed (a slot at either end stops it)."""
    pieces = list(pieces)
    if start:
        while pieces and pieces[0].slot is None:
            text = pieces[0].text.lstrip()
            if text:
                pieces[0] = replace(pieces[0], text=text)
                break
            pieces.pop(0)
    if end:
        while pieces and pieces[-1].slot is None:
            text = pieces[-1].text.rstrip()
            if text:
                pieces[-1] = replace(pieces[-1], text=text)
                break
            pieces.pop()
    return pieces
