"""Trust: which slots carry third-party content, how sure we are, and whether it is labelled.

Evidence that a slot holds untrusted content (web pages, retrieved documents, tool output,
uploads, e-mails), strongest first:

- the author's ``ctxlint: untrusted=name`` comment, or a front-end's data flow from a known
  source (an HTTP body, a retriever result, a tool result): ``Source`` of kind UNTRUSTED;
- a variable (or an item of a collection) whose name says so (``page``, ``documents``), which is
  weak on its own: ``context`` is as often the user's own topic as a retrieved passage;
- the prompt's own words right before the slot (``Search results:``, ``the web page below``),
  which corroborate a name, or on their own hint at content under a name we do not know.

Labelled means the slot sits between explicit markers in its message: any XML-like tag pair,
a fenced block or triple quotes, or BEGIN/END marker lines of any wording. The scan is one
pass per message, so a prompt with thousands of slots costs no more than its length.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import NamedTuple

from ctxlint.analysis import names, reuse_last
from ctxlint.directives import Directives
from ctxlint.model import Evidence, EvidenceKind, Request, Segment, SourceKind


@dataclass(frozen=True)
class Untrusted:
    """Why a slot is taken to hold third-party content, and how sure that is."""

    reason: str  # for messages: `page`, `an item of documents`, `requests.get(...).text, line 9`
    # The kind of evidence (the trust rules' `evidence:` tables give each its confidence):
    # source, declared, weak-source-and-name, weak-source, name-in-loop, name-and-words, name,
    # prompt-words.
    kind: str
    evidence: tuple[Evidence, ...]

    @property
    def proven(self) -> bool:
        """Shown by a known source or declared by the author, not inferred from names or words."""
        return self.kind in ("source", "declared")


@dataclass(frozen=True)
class TrustOptions:
    untrusted: tuple[str, ...]  # name globs of third-party content
    trusted: tuple[str, ...]  # name globs that are never untrusted (the operator's own text)
    metadata: tuple[str, ...]  # attributes of an untrusted item that are not its content (ids, scores)
    questions: tuple[str, ...]  # the user's own turn: never third-party content, whatever else it matches
    content_words: tuple[str, ...]  # words in the text before a slot that describe third-party content

    @classmethod
    def of(cls, options: dict) -> TrustOptions:
        return cls(*(tuple(options[key]) for key in ("untrusted", "trusted", "metadata", "questions",
                                                       "content_words")))


# How far back in the message the prompt's words may describe a slot.
_LEAD_CHARS = 160


class NameFacts(NamedTuple):
    """What a slot's names (and loop) say, whatever the text around it."""

    named: tuple[str, bool] | None  # the name that makes it untrusted, and whether the author declared it
    excluded: bool  # the user's question, trusted or metadata: never content introduced by the prompt's words
    item_of: str | None  # the collection it is printed from item by item, when that says content too


Named = dict[tuple[tuple[str, ...], str | None], NameFacts]


def untrusted(request: Request, index: int, options: TrustOptions, directives: Directives,
              named_before: Named | None = None) -> Untrusted | None:
    """The evidence that segment ``index`` of ``request`` carries third-party content, or None.

    ``named_before`` keeps what each slot's names (and loop) were found to say, for a caller that
    asks about every slot under the same options and directives: a long prompt repeats a few
    slots thousands of times, each name matched against several lists of dozens of globs."""
    segment = request.segments[index]
    slot = segment.slot
    if slot is None or names.measured(slot):
        return None
    if named_before is None:
        named_before = {}
    key = (slot.names, segment.loop)
    facts = named_before.get(key)
    if facts is None:
        facts = named_before[key] = _facts(segment, options, directives)
    sink = Evidence(EvidenceKind.SINK, f"interpolated into the {segment.role.value} message", segment.span)
    for source in slot.sources:
        if source.kind is not SourceKind.UNTRUSTED:
            continue
        where = (f", line {source.span.line}"
                 if source.span.line != segment.span.line and source.span.path == segment.span.path else "")
        step = Evidence(EvidenceKind.SOURCE, source.detail, source.span, source.strong)
        if source.strong:
            return Untrusted(f"{source.detail}{where}", "source", (step, *source.flow, sink))
        # A weak source (a request body, a loose pattern) is worth a look on its own; with a
        # name that says content (`page`, `documents`) as well, two weak links agree.
        named = facts.named
        name_step = () if named is None else (
            Evidence(EvidenceKind.NAME, f"the name `{named[0]}` suggests third-party content", segment.span, False),)
        return Untrusted(f"{source.detail}{where}", "weak-source-and-name" if named else "weak-source",
                         (step, *name_step, *source.flow, sink))
    named = facts.named
    if named is None:
        # A name we do not know, but the prompt itself says what it is: worth a look, no more.
        described = None if facts.excluded else _described(request, index, options.content_words)
        if described is None:
            return None
        step = Evidence(EvidenceKind.SOURCE, f"the prompt introduces it as \"{described}\"", segment.span, False)
        return Untrusted(f"introduced as \"{described}\"", "prompt-words", (step, sink))
    name, declared = named
    if declared:
        step = Evidence(EvidenceKind.SOURCE, f"`{name}` is declared untrusted by a ctxlint comment", segment.span)
        return Untrusted(name, "declared", (step, sink))
    collection = facts.item_of
    reason = f"an item of `{collection}`" if collection == name else name
    evidence = [Evidence(EvidenceKind.NAME, f"the name `{name}` suggests third-party content", segment.span,
                         strong=False)]
    if collection is not None:
        evidence.append(Evidence(EvidenceKind.SOURCE, f"printed item by item from a loop over `{collection}`",
                                 segment.span, strong=False))
    described = _described(request, index, options.content_words)
    if described:
        reason += f", introduced as \"{described}\""
        evidence.append(Evidence(EvidenceKind.SOURCE, f"the prompt introduces it as \"{described}\"",
                                 segment.span, strong=False))
    kind = "name-in-loop" if collection is not None else "name-and-words" if described else "name"
    return Untrusted(reason, kind, (*evidence, sink))


def _facts(segment: Segment, options: TrustOptions, directives: Directives) -> NameFacts:
    slot = segment.slot
    assert slot is not None
    named = _named(segment, options, directives)
    excluded = _is_question_slot(segment, options) or any(
        _is_trusted(n, options, directives) or _is_metadata(n, options) for n in slot.names)
    # An item printed from a loop over such a collection is structure, not just a name: the
    # prompt lists records of it (documents, search results) one by one.
    collection = names.leading_name(segment.loop) if segment.loop is not None and named is not None else None
    # In a loop, a collection named like content, or a field of each item named like it
    # (`step.observation` over a scratchpad), is a record of it, printed one by one.
    item = collection is not None and named is not None and (
        collection == named[0] or "." in named[0] or names.matches(collection, options.untrusted)
        or names.matches(names.last(collection), options.untrusted))
    return NameFacts(named, excluded, collection if item else None)


def _named(segment: Segment, options: TrustOptions, directives: Directives) -> tuple[str, bool] | None:
    """The name that makes the slot untrusted and whether the author declared it, or None."""
    slot = segment.slot
    assert slot is not None
    for name in slot.names:
        if _is_trusted(name, options, directives) or _is_metadata(name, options) or _is_question(name, options):
            continue
        if names.root(name) in directives.untrusted or name in directives.untrusted:
            return name, True
        if any(names.matches(part, options.untrusted) for part in (names.root(name), name, names.last(name))):
            return name, False
    if segment.loop is not None:
        collection = names.leading_name(segment.loop)
        if collection and not _is_trusted(collection, options, directives) and not _is_question(collection, options):
            declared = collection in directives.untrusted
            if (declared or names.matches(collection, options.untrusted)
                    or names.matches(names.last(collection), options.untrusted)):
                if any(not _is_metadata(n, options) for n in slot.names):
                    return collection, declared
    return None


def _described(request: Request, index: int, words: tuple[str, ...]) -> str | None:
    """A content word in the static text just before the slot, in its message, on its line or
    the line before (``Search results:`` above ``{{ hits }}``)."""
    segments = request.segments
    segment = segments[index]
    message, line_before = segment.message_index, segment.span.line - 1
    lead = []
    size = 0
    # Walked back by position, and only so far: a prompt of thousands of slots costs no more
    # per slot than one of ten (only the last _LEAD_CHARS characters of a text can matter).
    for position in range(index - 1, max(index - 2 * _LEAD_CHARS, 0) - 1, -1):
        previous = segments[position]
        if previous.message_index != message or size >= _LEAD_CHARS or previous.span.end_line < line_before:
            break
        if previous.slot is None:
            lead.append(previous.text[-_LEAD_CHARS:])
            size += len(previous.text)
    text = "".join(reversed(lead))
    last_two_lines = text.rfind("\n", 0, max(text.rfind("\n"), 0)) + 1
    return _content_word(text[last_two_lines:][-_LEAD_CHARS:], words)


@functools.lru_cache(maxsize=4096)  # a long prompt repeats the same few lead-ins before its slots
def _content_word(text: str, words: tuple[str, ...]) -> str | None:
    match = _word_pattern(words).search(text.lower())
    return match.group(0) if match else None


_WORD_PATTERNS: dict[tuple[str, ...], re.Pattern] = {}


def _word_pattern(words: tuple[str, ...]) -> re.Pattern:
    """The content words as one pattern over lower-cased text (three times faster than matching
    with IGNORECASE, and every slot's lead-in is searched)."""
    if words not in _WORD_PATTERNS:
        alternatives = "|".join(re.escape(w.lower()).replace(r"\ ", r"[\s_-]+") for w in words) or "(?!)"
        _WORD_PATTERNS[words] = re.compile(rf"\b(?:{alternatives})s?\b")  # plurals too
    return _WORD_PATTERNS[words]


def _is_trusted(name: str, options: TrustOptions, directives: Directives) -> bool:
    return (names.root(name) in directives.trusted or name in directives.trusted
            or names.matches(name, options.trusted))


def _is_metadata(name: str, options: TrustOptions) -> bool:
    return names.matches(names.last(name), options.metadata) or names.matches(name, options.metadata)


def _is_question_slot(segment: Segment, options: TrustOptions) -> bool:
    return segment.slot is not None and any(_is_question(n, options) for n in segment.slot.names)


def _is_question(name: str, options: TrustOptions) -> bool:
    return names.matches(name, options.questions) or names.matches(names.last(name), options.questions)


# --- labels ------------------------------------------------------------------------------------

_TAG = re.compile(r"<(/?)([A-Za-z_][\w.\-:]*)((?:\s[^<>]*?)?)(/?)>")
_FENCE = re.compile(r"^[ \t]*(```+|~~~+|\"\"\"|''')", re.MULTILINE)
# A marker line: BEGIN/START ... or END ... in any wording, set off by dashes, equals signs,
# hashes, brackets or capitals (`-----BEGIN PAGE-----`, `=== START OF DOCUMENT ===`, `[END]`).
# (Possessive blanks: with two runs of blanks that can split a line of spaces between them,
# a 20 KB line of spaces took seconds of backtracking at each line start.)
_MARKER = re.compile(r"^[ \t]*+(?:[-=#*\[<>|~]+[ \t]*+)?(?P<word>BEGIN|START|END)\b[^\n]*$",
                     re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class Label:
    """What wraps a slot in its message: a tag (``document``), a fence, or marker lines."""

    kind: str  # "tag", "attribute" (inside the tag's own attributes), "fence" or "markers"
    name: str  # the tag name, the fence (```), or the opening marker's word


@reuse_last
def labels(request: Request) -> dict[int, Label]:
    """The innermost label around each slot that has one, by segment index (a dict the caller
    must not change: CTX401 and CTX403 ask for the same request's labels in turn).

    One pass over each message: its text, with each slot standing in as one placeholder
    character, is scanned for opening and closing tags, fences and marker lines in order; each
    slot joins the innermost open container, and a container's slots are labelled when (and
    only if) it closes later in the same message. A slot inside a tag's attributes
    (``<document source="{{ url }}">``) is part of the tag, not of its content.
    """
    found: dict[int, Label] = {}
    message: list[int] = []
    for index, segment in enumerate(request.segments):
        if message and segment.message_index != request.segments[message[0]].message_index:
            _label_message(request, message, found)
            message = []
        message.append(index)
    if message:
        _label_message(request, message, found)
    return found


_PLACEHOLDER = "\x00"


def _label_message(request: Request, indices: list[int], found: dict[int, Label]) -> None:
    parts, slots = [], []
    offset = 0
    for index in indices:
        segment = request.segments[index]
        if segment.slot is None:
            parts.append(segment.text)
            offset += len(segment.text)
        else:
            parts.append(_PLACEHOLDER)
            slots.append((offset, index))
            offset += 1
    if not slots:
        return
    # Markers and slots in text order; at one position a marker comes first (a slot cannot
    # start a marker, but it can follow one directly).
    events: list[tuple[int, int, _Token | int]] = [(position, 1, index) for position, index in slots]
    events += [(token.start, 0, token) for token in _tokens("".join(parts))]
    events.sort(key=lambda event: (event[0], event[1]))
    stack = _Open()
    marker_end, marker = -1, ""  # the tag whose attributes end at marker_end
    for position, _, payload in events:
        if isinstance(payload, int):
            if position < marker_end and marker:
                found[payload] = Label("attribute", marker)
            elif stack.containers:
                stack.containers[-1][1].append(payload)
        else:
            marker_end, marker = payload.end, (payload.name if payload.kind == "tag" else "")
            stack.apply(payload, found)


@dataclass(frozen=True)
class _Token:
    """An opening or closing marker: a tag, a fence (which toggles) or a BEGIN/END line."""

    start: int
    end: int
    kind: str
    name: str
    closing: bool


def _tokens(text: str) -> list[_Token]:
    found = []
    for match in _TAG.finditer(text):
        if not match.group(4):  # a self-closing tag wraps nothing
            found.append(_Token(match.start(), match.end(), "tag", match.group(2).lower(), bool(match.group(1))))
    for match in _FENCE.finditer(text):
        found.append(_Token(match.start(), match.end(), "fence", match.group(1)[:3], False))
    for match in _MARKER.finditer(text):
        found.append(_Token(match.start(), match.start() + 1, "markers", "BEGIN",
                            match.group("word").upper() == "END"))
    return found


class _Open:
    """The containers open at a point of a message, innermost last, each with the slots it holds,
    and where each kind of label is open: a closing marker finds its opener without searching
    the stack (10,000 unclosed tags and as many stray closing ones would be quadratic)."""

    def __init__(self) -> None:
        self.containers: list[tuple[Label, list[int]]] = []
        self.depths: dict[Label, list[int]] = {}  # each label's open containers, by depth

    def apply(self, token: _Token, found: dict[int, Label]) -> None:
        label = Label(token.kind, token.name)
        closing = token.closing
        if token.kind == "fence":  # a fence closes the open fence of its kind, or opens one
            closing = bool(self.depths.get(label))
        if not closing:
            self.depths.setdefault(label, []).append(len(self.containers))
            self.containers.append((label, []))
            return
        depths = self.depths.get(label)
        if not depths:
            return  # closes nothing that is open
        depth = depths[-1]
        # Containers opened inside it and never closed end with it: their slots are inside this
        # label too. Slots already labelled by an inner label keep the inner one.
        for inner, slots in self.containers[depth:]:
            for slot in slots:
                found.setdefault(slot, label)
            self.depths[inner].pop()  # the innermost of its label: containers close innermost first
        del self.containers[depth:]


def escaped(segment: Segment, escapes: list[str]) -> bool:
    slot = segment.slot
    candidates = [*slot.filters, *slot.calls] if slot else []
    return any(names.matches(c, escapes) for c in candidates)
