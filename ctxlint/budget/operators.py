"""What the allocator does to a segment that does not fit its grant, and the duplicate pass before.

Every operator returns text whose token count is at most the grant, keeps the original order of
what it keeps, and says what it left out in a marker the model can see (a cut without a marker
makes the model answer as if it had everything):

- ``compress`` on tools: descriptions go first, then enums, defaults and other annotations;
  names, parameter names and types and ``required`` stay. Whole tools are left out last, from
  the end of the list.
- ``compress`` on text is *extraction*: each line is scored for what usually carries a hard
  fact (numbers, negations and constraints, units, references, failure words, ``key = value``)
  and the best lines are kept, in their original order, with an omission marker.
- ``summarize`` keeps the last turns whole and, from the turns before them, the lines that show
  a failure; the rest becomes a one-line marker. (A static tool cannot write a real summary; this
  is the part of one that must never be lost.)
- ``truncate`` keeps a head share and a tail share of the tokens, with a marker that says how much
  is missing and, when the segment has a ``ref``, where to fetch it.
- ``drop`` leaves the segment out (with a marker naming its ``ref``, when it has one).

De-duplication runs first over the cuttable text: a line whose normalised form was seen before,
or whose 5-gram Jaccard similarity to a kept line is at least 0.75, is removed, unless it holds
a key field the line it resembles does not.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ctxlint.budget.fixtures import Content
from ctxlint.budget.policy import KeyField
from ctxlint.model import ToolDef

NEAR_DUPLICATE = 0.75
SHINGLE = 5
_MIN_DEDUPE_CHARS = 12  # shorter lines (blank lines, braces, "---") repeat legitimately
# Bounds of the near-duplicate search (exact duplicates are always removed): the lines looked
# up, and the index lookups and comparisons made, before it gives up.
_NEAR_LINES = 5_000
_NEAR_WORK = 100_000

Count = Callable[[str], int]


@dataclass(frozen=True)
class Outcome:
    text: str
    used: int
    action: str
    reason: str


# --- de-duplication ------------------------------------------------------------------------------


_BLANKS = re.compile(r"\s+")


def normalise(line: str) -> str:
    """Compatibility forms folded (full-width to ASCII), lower case, runs of blanks as one space."""
    return _BLANKS.sub(" ", unicodedata.normalize("NFKC", line).lower()).strip()


def shingles(text: str, size: int = SHINGLE) -> frozenset[str]:
    return frozenset([text[i:i + size] for i in range(max(len(text) - size + 1, 0))])  # a list: faster than a generator


def jaccard(a: str, b: str) -> float:
    """5-gram Jaccard similarity of two lines after normalisation (0 when either is too short)."""
    sa, sb = shingles(normalise(a)), shingles(normalise(b))
    return len(sa & sb) / len(sa | sb) if sa and sb else 0.0


@dataclass(frozen=True)
class Removed:
    """Lines removed as duplicates from one segment."""

    segment: str
    lines: int


@dataclass(frozen=True)
class Deduplicated:
    """The request's segments after deduplication, with what was taken out of each."""

    contents: dict[str, Content]
    removed: list[Removed]
    partial: bool  # the near-duplicate search gave up part way (see _KeptLines)


def deduplicate(contents: Sequence[tuple[str, Content]], fields: Sequence[KeyField]) -> Deduplicated:
    """Each segment's content without the lines that repeat an earlier one (in request order,
    across segments), what was removed where, and whether near duplicates were looked for in full."""
    kept = _KeptLines(contents)

    def duplicate(line: str) -> bool:
        norm = kept.normalised(line)
        if len(norm) < _MIN_DEDUPE_CHARS:
            return False
        grams = frozenset() if kept.partial else kept.shingles(norm)
        twin = kept.twin(norm, grams)
        if twin is not None and not _carries_more(line, kept.lines[twin], fields):
            return True
        kept.add(line, norm, grams)
        return False

    result: dict[str, Content] = {}
    removed: list[Removed] = []
    for name, content in contents:
        units, dropped = [], 0
        for unit in content.units:
            lines = unit.split("\n")
            survivors = [line for line in lines if not duplicate(line)]
            dropped += len(lines) - len(survivors)
            if survivors:
                units.append("\n".join(survivors))
        result[name] = replace(content, units=tuple(units))
        if dropped:
            removed.append(Removed(name, dropped))
    return Deduplicated(result, removed, kept.partial)


class _KeptLines:
    """The lines kept so far, indexed so that finding a near twin does not compare every pair.

    Prefix filtering (the AllPairs similarity join): order each line's 5-grams from the rarest
    to the most common across all the content; two lines with Jaccard similarity t or more share
    a gram among the first ``n - ceil(t * n) + 1`` of each line's ``n`` grams, so only those are
    indexed and looked up, and only the lines they lead to are compared in full. Exact, and near
    linear on real content, where most grams are rare. Content made of a few words repeated
    in every order makes every line a candidate for every other: after ``_NEAR_LINES`` lines or
    ``_NEAR_WORK`` lookups and comparisons only exact duplicates are removed, and ``partial``
    says so.
    """

    def __init__(self, contents: Sequence[tuple[str, Content]]):
        self.partial = False
        self._work = 0
        self.lines: list[str] = []
        self._grams: list[frozenset[str]] = []
        self._exact: dict[str, int] = {}
        self._index: dict[str, list[int]] = {}
        self._searched = 0  # lines looked up for near twins
        # Each line's normal form and 5-grams, made once: the ranking reads them, then the search.
        self._normal: dict[str, str] = {}
        self._shingles: dict[str, frozenset[str]] = {}
        self._last_prefix: tuple[frozenset[str], list[str]] | None = None  # twin() then add() of one line
        frequency: Counter[str] = Counter()
        eligible = (n for _, c in contents for n in map(self.normalised, c.text.split("\n"))
                    if len(n) >= _MIN_DEDUPE_CHARS)
        for norm in itertools.islice(eligible, _NEAR_LINES):
            frequency.update(self.shingles(norm))
        # Each gram's place in the global order, rarest first (ties by the gram itself): sorted by
        # gram, then by count (a stable sort keeps the grams' order among equal counts).
        ranked = sorted(frequency)
        ranked.sort(key=frequency.__getitem__)
        self._rank = {gram: i for i, gram in enumerate(ranked)}

    def normalised(self, line: str) -> str:
        norm = self._normal.get(line)
        if norm is None:
            norm = self._normal[line] = normalise(line)
        return norm

    def shingles(self, norm: str) -> frozenset[str]:
        grams = self._shingles.get(norm)
        if grams is None:
            grams = self._shingles[norm] = shingles(norm)
        return grams

    def _prefix(self, grams: frozenset[str]) -> list[str]:
        # A gram the ranked lines never had (a line past the first _NEAR_LINES) is rarer than any
        # of theirs: first, by itself, so that every line is ordered the same way. (The same
        # order as the key (rank or -1, gram), without a Python key function per gram.)
        if self._last_prefix is not None and self._last_prefix[0] is grams:
            return self._last_prefix[1]
        rank = self._rank
        unranked = sorted([gram for gram in grams if gram not in rank])
        ordered = unranked + sorted([gram for gram in grams if gram in rank], key=rank.__getitem__)
        prefix = ordered[: len(ordered) - math.ceil(NEAR_DUPLICATE * len(ordered)) + 1]
        self._last_prefix = (grams, prefix)
        return prefix

    def twin(self, norm: str, grams: frozenset[str]) -> int | None:
        """The first kept line that ``norm`` (with 5-grams ``grams``) repeats exactly or nearly."""
        exact = self._exact.get(norm)
        if exact is not None or self.partial:
            return exact
        self._searched += 1
        if self._searched > _NEAR_LINES:
            self.partial = True
            return None
        postings = [self._index.get(gram, ()) for gram in self._prefix(grams)]
        self._work += sum(len(p) for p in postings)
        candidates = sorted({i for posting in postings for i in posting})
        self._work += len(candidates)
        if self._work > _NEAR_WORK:
            self.partial = True
            return None
        for line_id in candidates:
            other = self._grams[line_id]
            common = len(grams & other)
            if common / (len(grams) + len(other) - common) >= NEAR_DUPLICATE:
                return line_id
        return None

    def add(self, line: str, norm: str, grams: frozenset[str]) -> None:
        if norm in self._exact:
            return
        line_id = len(self.lines)
        self._exact[norm] = line_id
        self.lines.append(line)
        if self.partial:  # only exact duplicates are looked for from here on
            self._grams.append(frozenset())
            return
        self._grams.append(grams)
        for gram in self._prefix(grams):
            self._index.setdefault(gram, []).append(line_id)


def _carries_more(line: str, twin: str, fields: Sequence[KeyField]) -> bool:
    """Whether ``line`` holds a key field its look-alike does not (then both are kept)."""
    return any(f.search(line) is not None and f.search(twin) is None for f in fields)


# --- line scores ---------------------------------------------------------------------------------

_DIGIT = re.compile(r"\d")
_UNIT = re.compile(
    r"\d\s*(?:%|percent\b|ms\b|s\b|secs?\b|seconds?\b|minutes?\b|mins?\b|hours?\b|h\b|days?\b|weeks?\b|"
    r"[kmg]i?b\b|tokens?\b|cents?\b|usd\b|eur\b|gbp\b|rpm\b|rps\b|秒|分钟|小时|天|元|分)"
    r"|[$€£¥]\s*\d", re.IGNORECASE)
_REFERENCE = re.compile(r"://|(?:^|[\s(\"'`])[\w.~-]*/[\w./-]+|\b[A-Z]{2,}-\d+\b|#\d+\b|\b[0-9a-f]{8,}\b")
_FAILURE = re.compile(
    r"\b(?:fail(?:s|ed|ure|ing)?|errors?|exceptions?|timed?[ -]?out|timeouts?|denied|refused|rejected|"
    r"unavailable|throttled|rate[ -]limit(?:ed)?|crash(?:ed|es)?|aborted|invalid)\b|"
    r"\b(?:http|status|code)\W{0,3}[45]\d\d\b|\b429\b|失败|错误|超时|拒绝",
    re.IGNORECASE)
_KEY_VALUE = re.compile(r"[\w\"'\]]\s*(?:=|==|:=)\s*\S|\"[\w.-]+\"\s*:\s*\S")
_NEGATION = ("not", "no", "none", "without", "cannot", "can't", "won't", "unless")


@lru_cache(maxsize=16)
def _words(constraints: tuple[str, ...]) -> re.Pattern[str]:
    parts = []
    for word in (*constraints, *_NEGATION):
        escaped = re.escape(word).replace(r"\ ", r"\s+")
        parts.append(rf"\b{escaped}\b" if word.isascii() else escaped)
    return re.compile("|".join(parts), re.IGNORECASE)


def score(line: str, constraints: Sequence[str]) -> int:
    """How likely a line is to carry a hard fact; 0 for plain narrative."""
    points = 0
    if _DIGIT.search(line):
        points += 4  # amounts, limits, dates, versions, ids
    if _words(tuple(constraints)).search(line):
        points += 4  # negations and constraints flip meaning when lost
    if _UNIT.search(line):
        points += 3
    if _FAILURE.search(line):
        points += 3  # why something failed is what the next step needs
    if _REFERENCE.search(line):
        points += 2  # a URL, path or id that leads back to the full content
    if _KEY_VALUE.search(line):
        points += 2
    return points


# --- text operators --------------------------------------------------------------------------------


def _fit(parts: list[tuple[int, str]], marker: str, grant: int, count: Count,
         order: list[int], marker_first: bool = False) -> tuple[list[tuple[int, str]], str]:
    """Keep ``parts`` (position, text) in ``order`` of preference while the joined text with
    ``marker`` (after them, or before them) fits ``grant``; the text comes back in position order."""
    chosen: set[int] = set()
    budget = grant - count(marker) - 1 if marker else grant
    used = 0
    by_position = dict(parts)
    for position in order:
        cost = count(by_position[position]) + 1  # its line break
        if used + cost <= budget:
            chosen.add(position)
            used += cost
    kept = [(p, t) for p, t in parts if p in chosen]
    # Joined text can count a token more or less than its parts: drop the least preferred part
    # until the real count fits.
    text = _join(kept, marker, marker_first)
    for position in [p for p in reversed(order) if p in chosen]:
        if count(text) <= grant:
            break
        kept = [(p, t) for p, t in kept if p != position]
        text = _join(kept, marker, marker_first)
    if count(text) > grant:
        return [], marker if count(marker) <= grant else ""
    return kept, text


def _join(kept: list[tuple[int, str]], marker: str, marker_first: bool = False) -> str:
    lines = [t for _, t in kept]
    if marker:
        lines = [marker, *lines] if marker_first else [*lines, marker]
    return "\n".join(lines)


def extract(content: Content, grant: int, count: Count, constraints: Sequence[str],
            ref: str | None) -> Outcome:
    """Keep the highest-scoring lines in their original order, plus an omission marker."""
    lines = [(i, line) for i, line in enumerate(content.text.split("\n")) if line.strip()]
    scores = {i: score(line, constraints) for i, line in lines}
    # Lines that state no fact only fill the room left once every line that does is kept.
    ranked = sorted((i for i in scores if scores[i]), key=lambda i: (-scores[i], i))
    plain = [i for i in scores if not scores[i]]
    def marker(left_out: int) -> str:
        return _marker(f"{left_out:,} of {len(lines):,} lines left out by extraction", ref)

    # First with the widest marker, then with the real count, which is never wider.
    kept, _ = _fit(lines, marker(len(lines)), grant, count, ranked)
    order = ranked + plain if len(kept) == len(ranked) else ranked
    kept, text = _fit(lines, marker(len(lines)), grant, count, order)
    kept, text = _fit(lines, marker(len(lines) - len(kept)), grant, count, order)
    return Outcome(text, count(text), "extract",
                   f"kept the {len(kept):,} of {len(lines):,} lines with the most facts, in order, + marker")


def summarize(content: Content, grant: int, count: Count, turns: int, ref: str | None) -> Outcome:
    """Keep the last ``turns`` turns and the failure lines of earlier ones; mark the rest."""
    units = list(content.units) if content.turns else [u for u in content.text.split("\n") if u.strip()]
    earlier = max(len(units) - turns, 0)
    parts: list[tuple[int, str]] = []  # (position in the text, a recent turn or an earlier failure line)
    evidence: list[int] = []
    recent: list[int] = []
    for number, unit in enumerate(units):
        if number >= earlier:
            recent.append(len(parts))
            parts.append((len(parts), unit))
            continue
        for line in unit.split("\n"):
            if _FAILURE.search(line):
                evidence.append(len(parts))
                parts.append((len(parts), line))
    # The latest turn first, then the failure evidence (newest first), then the other recent turns.
    order = recent[-1:] + evidence[::-1] + recent[-2::-1]
    recent_set, evidence_set = set(recent), set(evidence)

    def marker(left_out: int) -> str:
        return _marker(f"{left_out:,} earlier turn{'s' if left_out != 1 else ''} summarised; failure lines kept",
                       ref) if left_out else ""

    # First with the widest marker, then with the real count, which is never wider.
    kept, text = _fit(parts, marker(len(units)), grant, count, order, marker_first=True)
    whole = sum(1 for p, _ in kept if p in recent_set)
    kept, text = _fit(parts, marker(len(units) - whole), grant, count, order, marker_first=True)
    whole = sum(1 for p, _ in kept if p in recent_set)
    lines = sum(1 for p, _ in kept if p in evidence_set)
    return Outcome(text, count(text), "summarize",
                   f"last {whole:,} of {len(units):,} turns + {lines:,} failure line{'s' if lines != 1 else ''} "
                   f"of the {earlier:,} before them, + marker")


def truncate(text: str, grant: int, count: Count, head_share: int, ref: str | None,
             head: Callable[[str, int], str], tail: Callable[[str, int], str]) -> Outcome:
    """Keep ``head_share`` percent of the grant from the start and the rest from the end."""
    total = count(text)
    omitted = total
    result = ""
    for _ in range(4):  # the marker's own size depends on the number it prints
        marker = "\n" + _marker(f"{omitted:,} tokens left out", ref) + "\n"
        body = grant - count(marker)
        if body <= 0:
            result = ""
            break
        head_tokens = body * head_share // 100
        first, last = head(text, head_tokens), tail(text, body - head_tokens)
        result = first + marker + last
        new_omitted = max(total - count(first) - count(last), 0)
        if new_omitted == omitted and count(result) <= grant:
            break
        omitted = new_omitted
    if result and count(result) > grant:  # token boundaries shifted by the join
        result = head(result, grant)
    return Outcome(result, count(result), "truncate",
                   f"head {head_share}% + tail {100 - head_share}% + marker, {omitted:,} tokens left out"
                   + (f", ref {ref}" if ref else ", no ref to fetch them again"))


def drop(name: str, grant: int, count: Count, ref: str | None, requested: int) -> Outcome:
    marker = _marker(f"{name} left out", ref) if ref else ""
    if marker and count(marker) > grant:
        marker = ""
    return Outcome(marker, count(marker), "drop",
                   f"{requested:,} tokens do not fit its grant of {grant:,}; left out"
                   + (", with a marker naming its ref" if marker else ""))


def _marker(what: str, ref: str | None) -> str:
    return f"[… {what}; full text: {ref}]" if ref else f"[… {what}]"


# --- tools -------------------------------------------------------------------------------------

_KEEP_SCHEMA_KEYS = frozenset({"type", "properties", "items", "required"})


def compress_tools(tools: Sequence[ToolDef], grant: int, measure: Callable[[Sequence[ToolDef]], int]) -> tuple[
        tuple[ToolDef, ...], Outcome]:
    """Tools shrunk in stages until they fit: descriptions, then annotations, then whole tools."""
    stages = [
        ([_strip(t, annotations=False) for t in tools], "descriptions dropped; names, parameters, required kept"),
        ([_strip(t, annotations=True) for t in tools], "descriptions and enums dropped; names, types, required kept"),
    ]
    for shrunk, reason in stages:
        used = measure(shrunk)
        if used <= grant:
            return tuple(shrunk), Outcome("", used, "compress", reason)
    shrunk, reason = stages[-1]
    kept = list(shrunk)
    while kept and measure(kept) > grant:
        kept.pop()
    left_out = [t.name or "(unnamed)" for t in shrunk[len(kept):]]
    reason += f"; {len(left_out)} of {len(shrunk)} tools left out ({', '.join(left_out)})"
    return tuple(kept), Outcome("", measure(kept), "compress", reason)


def _strip(tool: ToolDef, annotations: bool) -> ToolDef:
    return ToolDef(tool.name, None, _strip_schema(tool.schema, annotations), tool.span, None)


def _strip_schema(schema: object, annotations: bool, depth: int = 0) -> object:
    if depth > 32 or not isinstance(schema, dict):
        return schema
    result: dict[str, object] = {}
    for key, value in schema.items():
        if key == "description" or (annotations and key not in _KEEP_SCHEMA_KEYS):
            continue
        if key == "properties" and isinstance(value, dict):
            result[key] = {name: _strip_schema(spec, annotations, depth + 1) for name, spec in value.items()}
        elif key == "items":
            result[key] = _strip_schema(value, annotations, depth + 1)
        else:
            result[key] = value
    return result
