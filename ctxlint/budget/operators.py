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

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ctxlint.budget.fixtures import Content
from ctxlint.budget.policy import KeyField
from ctxlint.model import ToolDef

NEAR_DUPLICATE = 0.75
SHINGLE = 5
_MIN_DEDUPE_CHARS = 12  # shorter lines (blank lines, braces, "---") repeat legitimately
_MAX_NEAR_DUPLICATE_LINES = 20_000  # above this only exact duplicates are looked for

Count = Callable[[str], int]


@dataclass(frozen=True)
class Outcome:
    text: str
    used: int
    action: str
    reason: str


# --- de-duplication ------------------------------------------------------------------------------


def normalise(line: str) -> str:
    """Compatibility forms folded (full-width to ASCII), lower case, runs of blanks as one space."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", line).lower()).strip()


def shingles(text: str, size: int = SHINGLE) -> frozenset[str]:
    return frozenset(text[i:i + size] for i in range(max(len(text) - size + 1, 0)))


def jaccard(a: str, b: str) -> float:
    """5-gram Jaccard similarity of two lines after normalisation (0 when either is too short)."""
    sa, sb = shingles(normalise(a)), shingles(normalise(b))
    return len(sa & sb) / len(sa | sb) if sa and sb else 0.0


@dataclass(frozen=True)
class Removed:
    """Lines removed as duplicates from one segment."""

    segment: str
    lines: int


def deduplicate(contents: Sequence[tuple[str, Content]], fields: Sequence[KeyField]) -> tuple[
        dict[str, Content], list[Removed]]:
    """Each segment's content without the lines that repeat an earlier one (in request order,
    across segments). Returns the new contents and what was removed where."""
    seen: dict[str, int] = {}  # normalised line -> id of the kept line
    kept_lines: list[str] = []
    kept_shingles: list[frozenset[str]] = []
    index: dict[str, list[int]] = {}
    total = sum(len(c.text.split("\n")) for _, c in contents)
    near = total <= _MAX_NEAR_DUPLICATE_LINES

    def duplicate(line: str) -> bool:
        norm = normalise(line)
        if len(norm) < _MIN_DEDUPE_CHARS:
            return False
        twin = seen.get(norm)
        if twin is None and near:
            twin = _near_twin(norm, kept_shingles, index)
        if twin is not None and not _carries_more(line, kept_lines[twin], fields):
            return True
        if norm not in seen:
            seen[norm] = len(kept_lines)
            kept_lines.append(line)
            grams = shingles(norm)
            kept_shingles.append(grams)
            for gram in grams:
                index.setdefault(gram, []).append(len(kept_lines) - 1)
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
    return result, removed


def _near_twin(norm: str, kept: list[frozenset[str]], index: dict[str, list[int]]) -> int | None:
    grams = shingles(norm)
    if not grams:
        return None
    shared: dict[int, int] = {}
    for gram in grams:
        for line_id in index.get(gram, ()):
            shared[line_id] = shared.get(line_id, 0) + 1
    for line_id, common in sorted(shared.items()):
        if common / (len(grams) + len(kept[line_id]) - common) >= NEAR_DUPLICATE:
            return line_id
    return None


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
    for position in reversed(order):
        if count(text) <= grant:
            break
        if position in chosen:
            chosen.discard(position)
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
        return _marker(f"{left_out} of {len(lines)} lines left out by extraction", ref)

    # First with the widest marker, then with the real count, which is never wider.
    kept, _ = _fit(lines, marker(len(lines)), grant, count, ranked)
    order = ranked + plain if len(kept) == len(ranked) else ranked
    kept, text = _fit(lines, marker(len(lines)), grant, count, order)
    kept, text = _fit(lines, marker(len(lines) - len(kept)), grant, count, order)
    return Outcome(text, count(text), "extract",
                   f"kept the {len(kept)} of {len(lines)} lines with the most facts, in order, + marker")


def summarize(content: Content, grant: int, count: Count, turns: int, ref: str | None) -> Outcome:
    """Keep the last ``turns`` turns and the failure lines of earlier ones; mark the rest."""
    units = list(content.units) if content.turns else [u for u in content.text.split("\n") if u.strip()]
    recent_start = max(len(units) - turns, 0)
    parts: list[tuple[int, str]] = []
    evidence: list[int] = []
    recent: list[int] = []
    for number, unit in enumerate(units):
        if number >= recent_start:
            parts.append((number * 1000, unit))
            recent.append(number * 1000)
            continue
        for offset, line in enumerate(unit.split("\n")):
            if _FAILURE.search(line):
                position = number * 1000 + min(offset, 999)
                parts.append((position, line))
                evidence.append(position)
    # The latest turn first, then the failure evidence (newest first), then the other recent turns.
    order = recent[-1:] + sorted(evidence, reverse=True) + sorted(recent[:-1], reverse=True)
    earlier = recent_start

    def marker(left_out: int) -> str:
        return _marker(f"{left_out} earlier turn{'s' if left_out != 1 else ''} summarised; failure lines kept",
                       ref) if left_out else ""

    # First with the widest marker, then with the real count, which is never wider.
    kept, text = _fit(parts, marker(len(units)), grant, count, order, marker_first=True)
    whole = sum(1 for p, _ in kept if p in recent)
    kept, text = _fit(parts, marker(len(units) - whole), grant, count, order, marker_first=True)
    whole = sum(1 for p, _ in kept if p in recent)
    lines = sum(1 for p, _ in kept if p in evidence)
    return Outcome(text, count(text), "summarize",
                   f"last {whole} of {len(units)} turns + {lines} failure line{'s' if lines != 1 else ''} "
                   f"of the {earlier} before them, + marker")


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
