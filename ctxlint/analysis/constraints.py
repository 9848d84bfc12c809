"""Hard constraints: sentences that state a rule (never, must, only, 不得, 必须 …), or text the
author marked pinned with ``ctxlint: pinned`` … ``ctxlint: end``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ctxlint.directives import Directives
from ctxlint.model import Request, Segment, SourceKind, Span

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


def find(request: Request, directives: Directives, words: list[str]) -> list[Constraint]:
    """Every sentence of static text that states a constraint or is marked pinned.

    A heading (``## Never do this``, ``Rules you must follow:``) introduces constraints but is
    not one: cutting it loses a title, not a rule.
    """
    pattern = _pattern(tuple(words))
    return [c for c in sentences(request, directives)
            if c.pinned or (pattern.search(c.text) and not is_heading(c.text))]


_NUMBER = re.compile(r"\d")


def find_with_numbers(request: Request, directives: Directives, words: list[str]) -> list[Constraint]:
    """Constraints, plus sentences that state a number (``Write 800-1000 words.``): a limit is
    a rule even when no keyword says so."""
    pattern = _pattern(tuple(words))
    return [c for c in sentences(request, directives)
            if not is_heading(c.text) and (c.pinned or pattern.search(c.text) or _NUMBER.search(c.text))]


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
    for index, segment in enumerate(segments):
        if segment.slot is not None:
            continue
        for start, end in _sentences(segment.text):
            span = substring_span(segment, start, end)
            text = " ".join(segment.text[start:end].split())
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


def substring_span(segment: Segment, start: int, end: int) -> Span:
    """The span of ``segment.text[start:end]``, assuming the text is laid out as in the source."""

    # A one-line span whose text has line breaks: they are written as `\n` escapes (a JSON
    # string, a Python "…\n…" literal), two characters in the source for one in the text.
    escaped = segment.span.line == segment.span.end_line and "\n" in segment.text

    def position(offset: int) -> tuple[int, int]:
        before = segment.text[:offset]
        if escaped:
            return segment.span.line, segment.span.column + offset + before.count("\n")
        newlines = before.count("\n")
        if not newlines:
            return segment.span.line, segment.span.column + offset
        return segment.span.line + newlines, offset - before.rfind("\n")

    line, column = position(start)
    end_line, end_column = position(end)
    return Span(segment.span.path, line, column, end_line, end_column)


def normalised(text: str) -> str:
    """For comparing restatements: case, spacing and trailing punctuation do not count."""
    return " ".join(text.lower().split()).rstrip(".!。！")
