"""Hard constraints: sentences that state a rule (never, must, only, 不得, 必须 …), or text the
author marked pinned with ``ctxlint: pinned`` … ``ctxlint: end``."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

from ctxlint.directives import Directives
from ctxlint.model import Request, Segment, SourceKind, Span

_NEWLINE = re.compile("\n")
_WORD = re.compile(r"\w")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s+|(?<=[。！？；])")


@dataclass(frozen=True)
class Constraint:
    index: int  # the segment it is in
    span: Span
    text: str
    pinned: bool  # marked by the author, not found by its wording
    end: int = 0  # where it ends in the segment's text


@lru_cache(maxsize=64)
def _pattern(words: tuple[str, ...]) -> re.Pattern:
    parts = []
    for word in words:
        escaped = re.escape(word).replace(r"\ ", r"\s+")
        # Word boundaries only make sense for scripts that separate words with spaces.
        parts.append(rf"\b{escaped}\b" if word.isascii() else escaped)
    return re.compile("|".join(parts), re.IGNORECASE)


def find(sentences: list[Constraint], words: list[str]) -> list[Constraint]:
    """The ``sentences`` (a request's, :func:`sentences`) that state a constraint or are marked pinned.

    A heading (``## Never do this``, ``Rules you must follow:``) introduces constraints but is
    not one: cutting it loses a title, not a rule.
    """
    pattern = _pattern(tuple(words))
    # Each distinct text judged once: a long template repeats its sentences.
    states = cache(lambda text: bool(pattern.search(text)) and not is_heading(text))
    return [c for c in sentences if c.pinned or states(c.text)]


_NUMBER = re.compile(r"\d")


def find_with_numbers(sentences: list[Constraint], words: list[str]) -> list[Constraint]:
    """Constraints, plus sentences that state a number (``Write 800-1000 words.``): a limit is
    a rule even when no keyword says so."""
    pattern = _pattern(tuple(words))
    heading = cache(is_heading)
    states = cache(lambda text: bool(pattern.search(text) or _NUMBER.search(text)))
    return [c for c in sentences if not heading(c.text) and (c.pinned or states(c.text))]


_HEADING_WORDS = 8


def is_heading(text: str) -> bool:
    """A Markdown heading, a bold title line, or a short lead-in ending with a colon."""
    stripped = text.strip()
    if stripped.startswith("#") or (stripped.startswith("**") and stripped.endswith("**")):
        return True
    return stripped.endswith((":", "：")) and len(stripped.split()) <= _HEADING_WORDS


def sentences(request: Request, directives: Directives) -> list[Constraint]:
    """Every sentence of static text, as a candidate constraint."""
    return _sentences_of(request.segments, directives)


def in_segments(segments: tuple[Segment, ...], directives: Directives, words: list[str]) -> list[Constraint]:
    """The constraints in the static text of ``segments`` (a message the front-end read out of
    code, outside any request)."""
    return find(_sentences_of(segments, directives), words)


def cut_by(segment: Segment, directives: Directives, words: list[str]) -> list[tuple[Constraint, str]]:
    """Constraints inside text that ``segment``'s slot truncates, beyond the characters kept,
    each with the truncation's description (``RULES[:2000]``)."""
    pattern = _pattern(tuple(words))
    found = []
    for source in segment.slot.sources if segment.slot else ():
        if source.kind is not SourceKind.TRUNCATION or not source.content:
            continue
        starts, offset = [], 0
        for part in source.content:
            starts.append(offset)
            offset += len(part.text)
        for constraint in _sentences_of(source.content, directives):
            if not (constraint.pinned or pattern.search(constraint.text)):
                continue
            if source.kept is None or starts[constraint.index] + constraint.end > source.kept:
                found.append((constraint, source.detail))
    return found


def _sentences_of(segments, directives: Directives) -> list[Constraint]:
    found = []
    # A "sentence" with no word in it (`---`, `***`, a row of `=`) states nothing; only text the
    # author pinned is kept whatever it says. (A generated prompt of 180,000 `---` lines spent
    # seconds locating them.)
    wordless_too = bool(directives.pinned)
    # The sentences of each distinct text, found once: a long template repeats its texts.
    read: dict[str, list[tuple[int, int, str]]] = {}
    for index, segment in enumerate(segments):
        if segment.slot is not None:
            continue
        pieces = read.get(segment.text)
        if pieces is None:
            pieces = read[segment.text] = [
                (start, end, " ".join(segment.text[start:end].split())) for start, end in _sentences(segment.text)
                if wordless_too or _WORD.search(segment.text, start, end) is not None]
        if not pieces:
            continue
        position = _positions(segment)
        for start, end, text in pieces:
            span = substring_span(segment, start, end, position)
            found.append(Constraint(index, span, text, directives.is_pinned(span.line), end))
    return found


def _sentences(text: str):
    """(start, end) of each non-blank sentence, never spanning lines."""
    offset = 0
    for line in text.split("\n"):
        cursor = 0
        for match in [*_SENTENCE_END.finditer(line), None]:
            stop = match.start() if match else len(line)
            piece = line[cursor:stop]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                yield offset + cursor + lead, offset + cursor + len(piece.rstrip())
            if match:
                cursor = match.end()
        offset += len(line) + 1


def substring_span(segment: Segment, start: int, end: int,
                   position: Callable[[int], tuple[int, int]] | None = None) -> Span:
    """The span of ``segment.text[start:end]``, assuming the text is laid out as in the source.

    ``position`` is ``_positions(segment)``, for callers that locate many substrings of one segment.
    """
    position = position or _positions(segment)
    line, column = position(start)
    end_line, end_column = position(end)
    return Span(segment.span.path, line, column, end_line, end_column)


def _positions(segment: Segment) -> Callable[[int], tuple[int, int]]:
    """From offsets in a segment's text to file positions, in time logarithmic in its size."""
    newlines = [m.start() for m in _NEWLINE.finditer(segment.text)]
    # A one-line span whose text has line breaks: they are written as `\n` escapes (a JSON
    # string, a Python "…\n…" literal), two characters in the source for one in the text.
    escaped = segment.span.line == segment.span.end_line and bool(newlines)
    first_line, first_column = segment.span.line, segment.span.column

    def position(offset: int) -> tuple[int, int]:
        before = bisect.bisect_left(newlines, offset)  # the newlines in text[:offset]
        if escaped:
            return first_line, first_column + offset + before
        if not before:
            return first_line, first_column + offset
        return first_line + before, offset - newlines[before - 1]

    return position


def normalised(text: str) -> str:
    """For comparing restatements: case, spacing and trailing punctuation do not count."""
    return " ".join(text.lower().split()).rstrip(".!。！")
