"""Cache stability of serialised and iterated values: the same data must render the same bytes.

Front-ends record where a slot's value comes from (``Slot.sources``): a serialiser that keeps
insertion order, a collection iterated in no fixed order. These checks report such a source
when the slot sits in the cacheable part of the request: in a tool definition, or before static
instructions. After the last static text it changes nothing that could have been cached.
"""

from __future__ import annotations

from collections.abc import Iterator

from ctxlint.analysis.volatility import per_call_before
from ctxlint.checks import STRINGS, request_check
from ctxlint.context import CheckContext
from ctxlint.model import Evidence, EvidenceKind, Request, Role, Segment, Source, SourceKind


def sources_in_prefix(request: Request, kind: SourceKind
                      ) -> Iterator[tuple[int, Segment, Source, list[Segment]]]:
    """Each source of ``kind`` (once per location) whose slot is in a tool definition or has
    static instructions after it, with its position and the static segments that follow it."""
    seen = set()
    for index, segment in request.indexed_slots():
        assert segment.slot is not None
        for source in segment.slot.sources:
            if source.kind != kind or source.span in seen:
                continue
            after = request.static_after(index)
            if segment.role is not Role.TOOLS and not any(s.has_words for s in after):
                continue
            seen.add(source.span)
            yield index, segment, source, after


def _weighed(request: Request, index: int, segment: Segment, source: Source, ctx: CheckContext
             ) -> tuple[str, tuple[Evidence, ...]]:
    """The finding's kind of evidence and its steps: where the value is made, where it lands,
    and whether content that differs per call comes first anyway (then the prefix ends there)."""
    evidence: tuple[Evidence, ...] = (
        Evidence(EvidenceKind.SOURCE, f"`{source.detail}`", source.span, source.strong), *source.flow,
        Evidence(EvidenceKind.SINK, "a tool definition" if segment.role is Role.TOOLS
                 else f"the {segment.role.value} message, before static text", segment.span))
    earlier = per_call_before(request, index, ctx.options["per_call"])
    if earlier is not None:
        return "after-per-call", (*evidence, Evidence(
            EvidenceKind.SOURCE, f"`{earlier.text}` (line {earlier.span.line}) already differs per call before it",
            earlier.span, strong=False))
    return ("call" if source.strong else "pattern"), evidence


def _cost(ctx: CheckContext, request: Request, after: list[Segment]) -> str:
    lost = sum(ctx.count_tokens(s.text, request) for s in after)
    if lost:
        return f"the {lost:,} static tokens after it are then sent uncached"
    return "everything after the tool definitions is then sent uncached"


@request_check(options={"per_call": STRINGS})
def unstable_serialization(request: Request, ctx: CheckContext) -> None:
    """Report serialisation without sorted keys (``json.dumps`` without ``sort_keys=True``)."""
    for index, segment, source, after in sources_in_prefix(request, SourceKind.UNSORTED_SERIALIZATION):
        advice = source.fix.description if source.fix else "add sort_keys=True"
        kind, evidence = _weighed(request, index, segment, source, ctx)
        ctx.report(
            source.span,
            f"`{source.detail}` writes keys in insertion order, which is not guaranteed stable across "
            f"code paths or versions, so the cached prefix can differ byte for byte and "
            f"{_cost(ctx, request, after)}. {advice[0].upper()}{advice[1:]}.",
            source.fix,
            kind=kind, evidence=evidence,
        )


@request_check(options={"per_call": STRINGS})
def unordered_iteration(request: Request, ctx: CheckContext) -> None:
    """Report collections iterated in no fixed order (sets, directory listings, shuffles)."""
    for index, segment, source, after in sources_in_prefix(request, SourceKind.UNORDERED_ITERATION):
        kind, evidence = _weighed(request, index, segment, source, ctx)
        detail = source.detail
        if detail.startswith("random."):
            why, advice = ("is in a random order by design",
                           "Wrap it in `sorted(...)` if only the order is random, or move it after the static text.")
        elif detail in ("set", "frozenset"):
            why, advice = ("iterates in an order that changes with each process's hash seed",
                           "Wrap it in `sorted(...)`.")
        else:
            why, advice = ("lists entries in whatever order the file system returns", "Wrap it in `sorted(...)`.")
        ctx.report(
            source.span,
            f"`{detail}` {why}, so the text built from it can differ between calls and "
            f"{_cost(ctx, request, after)}. {advice}",
            kind=kind, evidence=evidence,
        )
