"""Cache stability: what breaks the provider's prompt-cache prefix."""

from __future__ import annotations

import re

from ctxlint.analysis.volatility import (
    PER_PASS,
    daily,
    logged,
    once_per_process,
    per_call_before,
    replayed_after,
    static_until_per_call,
    volatile_reason,
)
from ctxlint.checks import INTEGER, STRING, STRINGS, request_check
from ctxlint.context import CheckContext
from ctxlint.model import Evidence, EvidenceKind, Request, Segment, Slot, Source, SourceKind


@request_check(options={"calls": STRINGS, "names": STRINGS, "filters": STRINGS, "advice": STRING,
                        "min_tokens": INTEGER, "per_call": STRINGS, "replayed": STRINGS})
def volatile_in_prefix(request: Request, ctx: CheckContext) -> None:
    """Report the first slot matching the rule's patterns that has static instructions after it.

    Only the first one matters: the cache prefix ends there, so later volatile slots cost nothing
    more (except after a date: it costs a cache write a day, so the next value that changes on every
    call is reported too). What it costs is the static text between it and the next value that differs per call
    anyway (the question, retrieved documents, another clock): after that one the prefix is lost
    in any case. A value with no static text before the next per-call value costs nothing and is
    not reported. Confidence is high for a clock or random call, medium for a variable named like
    one or a date (it changes once a day), and low when little is lost (under ``min_tokens``),
    content that differs per call already comes before it, or it is fixed when the module loads.
    """
    options = ctx.options
    # A rule that lists the evidence reports a loop's counter (CTX101; a random id's rule does not).
    loop_counters = "loop-counter" in ctx.rule.evidence
    after_daily = False
    for index, segment in request.indexed_slots():
        assert segment.slot is not None
        reason = volatile_reason(segment.slot, options["calls"], options["names"], options["filters"],
                                 loop_counters)
        # A clock read into an entry of a log is fixed when the entry is appended, and sent
        # unchanged on every later pass.
        if reason is None or after_daily and daily(segment.slot) or logged(segment.slot):
            continue
        fixed, per_day = once_per_process(segment.slot, reason), daily(segment.slot)
        picked = _picked(segment.slot, reason)

        def another(slot: Slot, first: Slot = segment.slot, per_day: bool = per_day) -> bool:
            """Another volatile value (the same one again ends nothing: it changes with the first; nor
            does one that changes at most daily after one that changes more often: the text after it
            is lost to the first)."""
            return slot.expression != first.expression and not logged(slot) and volatile_reason(
                slot, options["calls"], options["names"], options["filters"], loop_counters) is not None \
                and (per_day or not daily(slot))

        after = static_until_per_call(request, index, options["per_call"], another)
        earlier = per_call_before(request, index, options["per_call"])
        delimiter = _names_a_delimiter(request, index)
        # A value fixed per process or per day leaves a replayed conversation cached all day long;
        # after content that differs per call, or in a delimiter's nonce, it is uncached anyway.
        history = None if fixed or per_day or picked or earlier is not None or delimiter \
            else replayed_after(request, index, options["per_call"], options["replayed"])
        if not any(s.has_words for s in after) and history is None:
            return
        # A log the loop appends to and sends on every pass, rather than a replayed conversation.
        log = next((s for s in history.slot.sources if s.kind is SourceKind.LOG_ENTRY), None) \
            if history is not None and history.slot is not None else None
        lost = sum(ctx.count_tokens(s.text, request) for s in after)
        read = _read_at(segment, reason)
        if fixed:
            ctx.report(
                segment.span,
                f"`{segment.text}` is fixed when the module loads (`{reason}` in a module-level constant): each "
                f"process sends its own text, so the {lost:,} static tokens after it are cached per process, not "
                f"shared across workers, restarts and deploys, and the value goes stale while the process runs. "
                f"{options['advice']}",
                kind="once-per-process",
                evidence=(Evidence(EvidenceKind.SOURCE, f"`{reason}` runs once, when the module loads", segment.span),
                          *read, Evidence(EvidenceKind.SINK, f"{lost:,} static tokens follow it", after[0].span)),
            )
            if not per_day:
                return
            # A date fixed at load goes stale, and a time read finer after it splits the cache more.
            after_daily = True
            continue
        if picked is not None:
            ctx.report(
                segment.span,
                f"`{segment.text}` is one of the {picked.why} texts `{reason}` picks from at random, not a value "
                f"that is new on every call: the {lost:,} static tokens after it are cached once for each of them "
                "rather than once. Move it after the static text, or keep it where it is at the cost of one cache "
                "entry per text.",
                kind="one-of-few",
                evidence=(Evidence(EvidenceKind.SOURCE, f"`{reason}` picks one of {picked.why} texts the code writes",
                                   picked.span, strong=False), *read,
                          Evidence(EvidenceKind.SINK, f"{lost:,} static tokens follow it", after[0].span)),
            )
            return
        by_call = reason.endswith(")") or reason.startswith("|")
        per_pass = reason == PER_PASS
        changes = "changes once a day" if per_day else "changes on every pass of the loop that builds the prompt" \
            if per_pass else "changes on every call"
        if per_pass:
            source = _counter_evidence(segment.slot)
        else:
            source = Evidence(EvidenceKind.SOURCE if by_call else EvidenceKind.NAME,
                              f"`{reason}` {changes if by_call else 'is named like a clock or id value'}",
                              segment.span, strong=by_call)
        evidence: tuple[Evidence, ...] = (source, *read)
        if after:
            evidence += (Evidence(EvidenceKind.SINK, f"{lost:,} static tokens follow it before the next value that "
                                  "differs per call", after[0].span),)
        kind = "daily" if per_day else "call" if by_call else "loop-counter" if per_pass else "name"
        filled = segment.slot.filled_at
        if filled and kind != "loop-counter":  # a field of a prompt constant, filled with a clock where code formats it
            kind = f"format-site-{kind}"
            evidence += tuple(Evidence(EvidenceKind.FLOW, f"filled where code formats the prompt, {at.path}:{at.line}",
                                       at) for at in filled[:3])
        if delimiter:
            evidence += (Evidence(EvidenceKind.FLOW, "it names a delimiter's tag (`<transcript-{nonce}>`): a nonce "
                                  "that must differ per call, so injected text cannot close it", segment.span,
                                  strong=False),)
            kind = "delimiter-nonce"
        elif earlier is not None:
            evidence += (Evidence(EvidenceKind.SOURCE, f"`{earlier.text}` (line {earlier.span.line}) already differs "
                                  "per call before it", earlier.span, strong=False),)
            kind = "after-per-call"
        elif log is not None:
            evidence += (Evidence(EvidenceKind.SINK, f"a log after it that {log.detail} appends to here and sends on "
                                  "every pass", log.span),)
            kind = "before-log"
        elif history is not None:
            evidence += (Evidence(EvidenceKind.SINK, f"the conversation replayed after it, one message per turn "
                                  f"(`{history.loop}`)", history.span),)
            kind = "before-history"
        elif lost < options["min_tokens"]:
            kind = "short-prefix"
        between = f", nor are the {lost:,} static tokens between them" if lost else ""
        if log is not None:  # nothing else comes before it: the kind is before-log
            cost = (f"the log after it, which {log.detail} appends to on every pass (line {log.span.line}) and "
                    f"re-sends with each request, is never read from the cache{between}")
        elif history is not None:  # nothing else comes before it: the kind is before-history
            cost = (f"the conversation replayed after it (`{history.loop}`, line {history.span.line}), re-sent on "
                    f"every turn, is never read from the cache{between}")
        elif per_day:
            cost = f"the {lost:,} static tokens after it are written to the cache afresh each day, a small loss"
        else:
            cost = f"the {lost:,} static tokens after it are sent uncached each time"
        ctx.report(segment.span, f"`{segment.text}` {changes}; {cost}. {options['advice']}", kind=kind,
                   evidence=evidence)
        if not per_day:
            return
        # A date costs a cache write a day: a value after it that changes on every call (an
        # agent's iteration number two lines down) decides what is cached, and is reported too.
        after_daily = True


def _picked(slot: Slot, reason: str) -> Source | None:
    """Where the volatile call ``reason`` picks one of a few texts the code writes (`random.choice(OPENINGS)`)."""
    return next((s for s in slot.sources if s.kind is SourceKind.PICKED and f"{s.detail}()" == reason), None)


def _counter_evidence(slot: Slot) -> Evidence:
    counter = next(s for s in slot.sources if s.kind is SourceKind.PER_ITERATION)
    return Evidence(EvidenceKind.SOURCE, f"`{slot.expression}` is built from {counter.detail}", counter.span)


def _read_at(segment: Segment, reason: str) -> tuple[Evidence, ...]:
    """Where the clock or random call that makes the slot volatile is made, when that is
    somewhere else than the slot (a helper that appends `datetime.now()`)."""
    assert segment.slot is not None
    call = reason[:-2] if reason.endswith("()") else None
    at = next((span for name, span in segment.slot.called_at if name == call), None)
    if at is None or (at.path, at.line) == (segment.span.path, segment.span.line):
        return ()
    return (Evidence(EvidenceKind.FLOW, f"`{reason}` is called here", at),)


# A value written inside a tag's name: `<transcript-{nonce}>`, `</rubric_{nonce}>`.
_TAG_OPENED = re.compile(r"</?[A-Za-z][\w-]*[-_:]?$")
_TAG_CLOSED = re.compile(r"^[\w-]*>")


def _names_a_delimiter(request: Request, index: int) -> bool:
    """Whether the slot at ``index`` is part of a tag's name: a per-call nonce that delimits
    untrusted content, which changes on every call by design."""
    segments = request.segments
    before = segments[index - 1].text if index > 0 and segments[index - 1].slot is None else ""
    after = segments[index + 1].text if index + 1 < len(segments) and segments[index + 1].slot is None else ""
    return bool(_TAG_OPENED.search(before)) and bool(_TAG_CLOSED.match(after))


@request_check(options={"max_breakpoints": INTEGER})
def cache_breakpoints(request: Request, ctx: CheckContext) -> None:
    """Report breakpoints the provider rejects or that can never produce a cache hit."""
    breakpoints = request.breakpoints
    maximum = ctx.options["max_breakpoints"]
    if len(breakpoints) > maximum:
        extra = breakpoints[maximum]
        ctx.report(
            extra.span,
            f"This request sets {len(breakpoints)} `cache_control` breakpoints; the provider accepts at "
            f"most {maximum} and rejects the request. Keep the {maximum} that end the longest stable "
            "stretches (tools, system, the last turn).",
            kind="too-many",
            evidence=tuple(Evidence(EvidenceKind.SOURCE, "a cache_control breakpoint", b.span) for b in breakpoints),
        )
    seen_short_ttl = False
    for breakpoint in breakpoints:
        volatile = next((s for s in request.segments[: breakpoint.covers]
                         if s.slot is not None and _changes_per_call(s, ctx)), None)
        if volatile is not None:
            ctx.report(
                breakpoint.span,
                f"This breakpoint caches a prefix that contains `{volatile.text}` "
                f"(line {volatile.span.line}), which changes on every call, so the cache is written "
                "and paid for each time and never read. Move the value after the breakpoint.",
                kind="after-volatile",
                evidence=(Evidence(EvidenceKind.SOURCE, f"`{volatile.text}` changes on every call", volatile.span),
                          Evidence(EvidenceKind.SINK, "inside the prefix this breakpoint caches", breakpoint.span)),
            )
        if breakpoint.ttl == "1h" and seen_short_ttl:
            ctx.report(
                breakpoint.span,
                "A 1-hour cache breakpoint follows a 5-minute one; 1-hour entries must come first, "
                "and the provider rejects this order. Put the 1-hour breakpoints earlier.",
                kind="ttl-order",
            )
        seen_short_ttl = seen_short_ttl or breakpoint.ttl in (None, "5m")


def _changes_per_call(segment: Segment, ctx: CheckContext) -> bool:
    """Volatile, and not only through a module-level constant (fixed once the module loads)."""
    assert segment.slot is not None
    reason = ctx.volatility.reason(segment.slot)
    return reason is not None and not once_per_process(segment.slot, reason)

