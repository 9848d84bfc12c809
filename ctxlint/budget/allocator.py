"""The deterministic allocator, the naive comparison, and the key-field readback.

Priority mode, for a budget B and the request's output reserve R (its output limit):

1. the input cap is B - R; a reserve that leaves nothing is an error;
2. duplicate lines are removed from the cuttable text (see ``operators``), saving reported;
3. pinned segments (framing, the prompt's own text, the current user message, anything declared
   ``pin``) are granted in full. If the current user message alone, or the pinned segments
   together, exceed the cap, the plan is an error: pinned content is never cut silently;
4. every other segment gets its minimum, in priority order (ties in request order);
5. what is left is shared by priority weight, over and over, until every segment has what it
   asked for or nothing is left (the last few tokens of rounding go in priority order);
6. each segment that got less than it asked for goes through its policy's operator.

Naive mode fills the segments in request order with no reserve and no de-duplication, and cuts
the one that crosses the edge at a token boundary, without a marker: what many minimal
assemblers do, shown for comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ctxlint.budget import operators
from ctxlint.budget.fixtures import Content
from ctxlint.budget.policy import KeyField
from ctxlint.budget.segments import BudgetSegment, Kind, Meter, Sample, tools_text
from ctxlint.model import Span

OK, MISS, ABSENT, UNKNOWN = "ok", "miss", "absent", "unknown"


@dataclass(frozen=True)
class Row:
    """One segment's line of the table."""

    name: str
    kind: str
    policy: str
    priority: int | None  # None for pinned segments
    requested: int
    granted: int
    used: int
    action: str
    reason: str
    text: str = field(default="", repr=False, compare=False)  # what is left of it


@dataclass(frozen=True)
class Readback:
    """Whether one key field is still there after the cuts."""

    field: KeyField
    status: str  # ok, miss, absent (not in the content to begin with), unknown (no sample content)
    action: str  # the operator applied to its segment
    span: Span | None  # where the field comes from: its text in the prompt, else its declaration


@dataclass(frozen=True)
class Plan:
    budget: int
    mode: str  # "priority" or "naive"
    reserve: int
    cap: int
    rows: tuple[Row, ...] = ()
    readback: tuple[Readback, ...] = ()
    duplicates: tuple[operators.Removed, ...] = ()
    duplicate_tokens: int = 0
    duplicates_partial: bool = False  # near duplicates were looked for in part of the content only
    error: str | None = None

    @property
    def requested(self) -> int:
        return sum(r.requested for r in self.rows)

    @property
    def granted(self) -> int:
        return sum(r.granted for r in self.rows)

    @property
    def used(self) -> int:
        return sum(r.used for r in self.rows)

    @property
    def headroom(self) -> int:
        return self.cap - self.used

    @property
    def input_share(self) -> float:
        return self.used / self.budget

    @property
    def reserve_share(self) -> float:
        return self.reserve / self.budget

    @property
    def kept(self) -> int:
        return sum(1 for r in self.readback if r.status == OK)

    @property
    def missing(self) -> list[Readback]:
        return [r for r in self.readback if r.status in (MISS, ABSENT)]


def simulate(segments: Sequence[BudgetSegment], fields: Sequence[KeyField], budget: int, reserve: int,
             meter: Meter, constraints: Sequence[str], naive: bool = False) -> Plan:
    """The plan for ``segments`` at ``budget`` tokens (input and output together)."""
    if naive:
        return _naive(segments, fields, budget, meter)
    cap = budget - reserve
    originals = {s.name: s.content for s in segments}
    if cap <= 0:
        return Plan(budget, "priority", reserve, cap, rows=_requested_rows(segments, meter), error=(
            f"the output reserve of {reserve:,} tokens leaves no room for input in a budget of {budget:,}"))

    # Filler text of a given size repeats itself by design: only real content is de-duplicated.
    cuttable = [(s.name, s.content) for s in segments
                if not s.pinned and s.kind in (Kind.VARIABLE, Kind.COLLECTION, Kind.STATIC)
                and s.sample in (Sample.PROMPT, Sample.FIXTURE)]
    deduplication = operators.deduplicate(cuttable, fields)
    deduplicated, removed = deduplication.contents, deduplication.removed
    saved = sum(meter.text(originals[name].text) - meter.text(content.text) for name, content in deduplicated.items())
    segments = [_with_content(s, deduplicated[s.name]) if s.name in deduplicated else s for s in segments]
    requested = {s.name: _size(s, meter) for s in segments}

    question = next((s for s in segments if s.kind is Kind.QUESTION), None)
    pinned = [s for s in segments if s.pinned]
    pinned_total = sum(requested[s.name] for s in pinned)
    error = None
    if question is not None and requested[question.name] > cap:
        error = (f"the current user message `{question.name}` alone needs {requested[question.name]:,} tokens, "
                 f"over the {cap:,} the budget leaves after the {reserve:,}-token reserve; it is never cut, so "
                 "this budget cannot serve it (ask for a shorter message, or refuse)")
    elif pinned_total > cap:
        listing = ", ".join(f"{s.name} {requested[s.name]:,}" for s in pinned if requested[s.name])
        error = (f"the pinned segments need {pinned_total:,} tokens ({listing}), over the {cap:,} the budget "
                 f"leaves after the {reserve:,}-token reserve; pinned content is never cut: raise the budget, "
                 "lower the reserve, or unpin a segment")
    if error is not None:
        return Plan(budget, "priority", reserve, cap, rows=_requested_rows(segments, meter),
                    duplicates=tuple(removed), duplicate_tokens=saved, duplicates_partial=deduplication.partial,
                    error=error)

    grants = _allocate([s for s in segments if not s.pinned], requested, cap - pinned_total)
    rows = []
    for segment in segments:
        if segment.pinned:
            rows.append(_pinned_row(segment, requested[segment.name], meter))
        else:
            rows.append(_apply(segment, requested[segment.name], grants[segment.name], meter, constraints))
    return Plan(budget, "priority", reserve, cap, tuple(rows), _readback(segments, originals, rows, fields),
                tuple(removed), saved, deduplication.partial)


def _allocate(others: list[BudgetSegment], requested: dict[str, int], available: int) -> dict[str, int]:
    """Minimums in priority order, then the rest by priority weight (see the module doc)."""
    ranked = sorted(enumerate(others), key=lambda item: (-item[1].priority, item[0]))
    order = [segment for _, segment in ranked]
    grants = {s.name: 0 for s in order}
    left = available
    for segment in order:
        grant = min(segment.minimum, requested[segment.name], left)
        grants[segment.name] = grant
        left -= grant
    while left > 0:
        active = [s for s in order if requested[s.name] > grants[s.name] and s.priority > 0]
        if not active:
            break
        weights = sum(s.priority for s in active)
        given = 0
        for segment in active:
            add = min(left * segment.priority // weights, requested[segment.name] - grants[segment.name])
            grants[segment.name] += add
            given += add
        left -= given
        if given == 0:  # rounding: the last few tokens go one segment at a time, by priority
            for segment in active:
                add = min(requested[segment.name] - grants[segment.name], left)
                grants[segment.name] += add
                left -= add
            break
    return grants


def _apply(segment: BudgetSegment, requested: int, grant: int, meter: Meter, constraints: Sequence[str]) -> Row:
    def row(outcome: operators.Outcome) -> Row:
        return Row(segment.name, segment.kind.value, segment.policy, segment.priority, requested, grant,
                   outcome.used, outcome.action, outcome.reason, outcome.text)

    if segment.kind is Kind.TOOLS:
        if requested <= grant:
            return row(operators.Outcome(tools_text(segment.tools), requested, "keep", "fits its grant"))
        if segment.policy == "drop":
            return row(operators.drop(segment.name, grant, meter.text, segment.ref, requested))
        kept, outcome = operators.compress_tools(segment.tools, grant, meter.tools)
        return row(operators.Outcome(tools_text(kept), outcome.used, outcome.action, outcome.reason))
    text = segment.content.text
    if requested <= grant:
        return row(operators.Outcome(text, requested, "keep", "fits its grant"))
    if segment.policy == "compress":
        return row(operators.extract(segment.content, grant, meter.text, constraints, segment.ref))
    if segment.policy == "summarize":
        return row(operators.summarize(segment.content, grant, meter.text, segment.turns, segment.ref))
    if segment.policy == "truncate":
        return row(operators.truncate(text, grant, meter.text, segment.head, segment.ref, meter.head, meter.tail))
    return row(operators.drop(segment.name, grant, meter.text, segment.ref, requested))


def _pinned_row(segment: BudgetSegment, requested: int, meter: Meter) -> Row:
    if segment.kind is Kind.FRAMING:
        reason = "message framing and reply priming"
    elif segment.kind is Kind.QUESTION:
        reason = "the current user message: never cut"
    else:
        reason = "pinned: never cut"
    text = tools_text(segment.tools) if segment.kind is Kind.TOOLS else segment.content.text
    return Row(segment.name, segment.kind.value, "pin", None, requested, requested, requested, "keep", reason, text)


def _naive(segments: Sequence[BudgetSegment], fields: Sequence[KeyField], budget: int, meter: Meter) -> Plan:
    left = budget
    rows = []
    for segment in segments:
        requested = _size(segment, meter)
        text = tools_text(segment.tools) if segment.kind is Kind.TOOLS else segment.content.text
        take = min(requested, left)
        left -= take
        if take == requested:
            action, reason, kept = "keep", "fits, in request order", text
        elif take > 0:
            kept = meter.head(text, take) if segment.kind is not Kind.FRAMING else ""
            action, reason = "hard_cut", f"cut at the budget edge after {take:,} tokens, no marker"
        else:
            action, reason, kept = "drop", "the budget ran out before it", ""
        rows.append(Row(segment.name, segment.kind.value, segment.policy, None if segment.pinned else segment.priority,
                        requested, take, take, action, reason, kept))
    originals = {s.name: s.content for s in segments}
    return Plan(budget, "naive", 0, budget, tuple(rows), _readback(segments, originals, rows, fields))


def _readback(segments: Sequence[BudgetSegment], originals: dict[str, Content], rows: Sequence[Row],
              fields: Sequence[KeyField]) -> tuple[Readback, ...]:
    by_name = {s.name: s for s in segments}
    row_by_name = {r.name: r for r in rows}
    result = []
    for key_field in fields:
        segment = by_name.get(key_field.segment)
        row = row_by_name.get(key_field.segment)
        if segment is None or row is None:
            continue  # a configured field for a segment this prompt lacks
        declared = key_field.span or segment.declared or segment.anchor
        if segment.sample in (Sample.NONE, Sample.SIZE):
            result.append(Readback(key_field, UNKNOWN, row.action, declared))
            continue
        source = tools_text(segment.tools) if segment.kind is Kind.TOOLS else originals[segment.name].text
        found = key_field.search(source)
        if found is None:
            result.append(Readback(key_field, ABSENT, row.action, declared))
            continue
        span = segment.source_span(*found) or declared
        status = OK if key_field.search(row.text) is not None else MISS
        result.append(Readback(key_field, status, row.action, span))
    return tuple(result)


def _size(segment: BudgetSegment, meter: Meter) -> int:
    if segment.kind is Kind.FRAMING:
        return segment.fixed_tokens
    if segment.kind is Kind.TOOLS:
        return meter.tools(segment.tools)
    return meter.text(segment.content.text)


def _requested_rows(segments: Sequence[BudgetSegment], meter: Meter) -> tuple[Row, ...]:
    return tuple(Row(s.name, s.kind.value, s.policy, None if s.pinned else s.priority, _size(s, meter), 0, 0,
                     "-", "") for s in segments)


def _with_content(segment: BudgetSegment, content: Content) -> BudgetSegment:
    return replace(segment, content=content)
