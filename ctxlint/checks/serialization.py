"""Cache stability of serialised and iterated values: the same data must render the same bytes.

Front-ends record where a slot's value comes from (``Slot.sources``): a serialiser that keeps
insertion order, a collection iterated in no fixed order. These checks report such a source
when the slot sits in the cacheable part of the request: in a tool definition, or before static
instructions. After the last static text it changes nothing that could have been cached.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ctxlint.analysis.volatility import per_call_before, static_until_per_call
from ctxlint.checks import INTEGER, STRINGS, file_check, request_check
from ctxlint.context import CheckContext
from ctxlint.model import (
    QUERY_ROWS,
    Evidence,
    EvidenceKind,
    ParsedFile,
    Request,
    Role,
    Segment,
    Source,
    SourceKind,
    Span,
)


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
    if source.from_caller and source.strong and source.kind is SourceKind.UNORDERED_ITERATION:
        return "caller-call", evidence
    if source.returned and source.strong and source.kind is SourceKind.UNORDERED_ITERATION:
        return "returned-text", evidence
    return ("call" if source.strong else "pattern"), evidence


def _cost(lost: int, in_tools: bool = True) -> str:
    if lost:
        return f"the {lost:,} static tokens after it are then sent uncached"
    if not in_tools:
        return "no static text comes between it and the next value that differs per call"
    return "everything after the tool definitions is then sent uncached"


@request_check(options={"per_call": STRINGS, "min_tokens": INTEGER})
def unstable_serialization(request: Request, ctx: CheckContext) -> None:
    """Report serialisation without sorted keys (``json.dumps`` without ``sort_keys=True``).

    What it costs is the static text between it and the next value that differs per call, as for
    a clock (CTX101): after that value the prefix is lost in any case. Less than ``min_tokens`` of
    it is low confidence (a marker of a cut after a tool's result, then the cut's own numbers)."""
    for index, segment, source, after in sources_in_prefix(request, SourceKind.UNSORTED_SERIALIZATION):
        advice = source.fix.description if source.fix else "add sort_keys=True"
        kind, evidence = _weighed(request, index, segment, source, ctx)
        if segment.role is not Role.TOOLS:
            after = static_until_per_call(request, index, ctx.options["per_call"], lambda slot: False)
        lost = sum(ctx.count_tokens(s.text, request) for s in after)  # counted once: the tokenizer is not cached
        if kind != "after-per-call":
            # What makes the key order vary decides the kind: keys inserted from a set (certain),
            # data received from outside (in the sender's order), or nothing the code shows.
            kind = "insertion-order" if not source.why else "unordered-keys" if source.strong else "received"
            if segment.role is not Role.TOOLS and lost < ctx.options["min_tokens"]:
                kind = "short-prefix"
        why = (f"writes keys in insertion order, and {source.why}" if source.why else
               "writes keys in the order they were inserted, which the code here does not show")
        ctx.report(
            source.span,
            f"`{source.detail}` {why}, so the cached prefix can differ byte for byte and "
            f"{_cost(lost, segment.role is Role.TOOLS)}. {advice[0].upper()}{advice[1:]}.",
            source.fix,
            kind=kind, evidence=evidence,
        )


@file_check(options={"per_call": STRINGS, "min_tokens": INTEGER})
def unordered_iteration(parsed: ParsedFile, ctx: CheckContext) -> None:
    """Report collections iterated in no fixed order (sets, directory listings, shuffles) into the
    cacheable part of a request, and, where no request of the file includes it, one whose order
    decides which items survive a cut or what text is built from it."""
    seen: set[Span] = set()
    reported: set[Span] = set()
    # Where data flow shows a set of strings reaching a model's text, that is stronger than a
    # request's weak view of a function's returned text: the observation reports it.
    proven = [o.span for o in parsed.observations if o.kind in _PROVEN_KINDS]
    # Where a request saw content that differs per call before the collection and left it to a proven
    # observation: the step that says so, by where the request saw the collection.
    later: dict[Span, Evidence] = {}
    for request in parsed.requests:
        ctx.request = request
        seen.update(s.span for segment in request.slots() for s in (segment.slot.sources if segment.slot else ())
                    if s.kind is SourceKind.UNORDERED_ITERATION)
        _unordered_in_prefix(request, ctx, reported, proven, later)
    ctx.request = None
    for observation in parsed.observations:
        source = observation.source
        if source is None or observation.kind not in _ORDER_KINDS:
            continue
        if source.span in reported:
            continue  # a request reports the same collection where its order is taken (a batch of a listing)
        if observation.kind not in _PROVEN_KINDS or any(observation.span.covers(s) for s in reported):
            if source.span in seen or any(observation.span.covers(s) for s in seen):
                continue  # a request includes it: the prefix check above has judged it
        own_words = _OWN_WORDS.get(observation.kind)
        subject, why, advice = (f"`{source.detail}`", *own_words) if own_words \
            else _why(source.detail, source.span.path)
        step = source.flow[0] if source.flow else None
        how = _brief(step.text) if step is not None else subject
        consequence = (observation.detail if observation.kind in _OWN_CONSEQUENCE else
                       f"the text built from it changes from run to run ({observation.detail})")
        built = "requests that send it" if observation.kind in _SENT_KINDS else "prompts built from it"
        # a tool's result is sent once as the newest message and kept as written: no cache is lost
        earlier = next((e for s, e in later.items() if observation.span.covers(s)), None)
        if observation.kind in _TOOL_RESULT_KINDS:
            effect = "runs differ and cannot be reproduced"
        elif earlier is not None:
            effect = (f"{built} differ and cannot be reproduced (content that differs per call comes before it, "
                      "so no cached prefix is lost)")
        else:
            effect = f"{built} differ and cannot be cached or reproduced"
        ctx.report(observation.span, f"{subject} {why}, and {how[0].lower()}{how[1:]}: {consequence}, so "
                   f"{effect}. {advice}",
                   kind=observation.kind if earlier is None else _AFTER_PER_CALL_PROVEN,
                   evidence=(Evidence(EvidenceKind.SOURCE, f"`{source.detail}`", source.span), *source.flow,
                             Evidence(EvidenceKind.SINK, observation.detail, observation.span, strong=False),
                             *((earlier,) if earlier is not None else ())))


# What the front-end observes about order where no request includes it (ordersites.py), and the
# allowed values of a response schema taken from a set of strings (schemachoices.py).
# A set of strings whose order data flow shows reaching a call that asks a model or a chat
# message (orderprompts.py).
_PROVEN_KINDS = ("order-reaches-prompt", "order-in-message", "listing-reaches-prompt", "order-in-settings-template",
                 "completion-order", "tool-completion-order", "late-binding", "tool-order", "survivors-reach-prompt",
                 "order-in-tool-result", "shuffle-reaches-prompt", "rows-reach-prompt", "rows-tool-order",
                 "command-listing-order", "walk-cut-order")
# said whole by the front-end
# A proven kind where a request of the file shows content that differs per call before the collection:
# nothing cached is lost, what is left is a prompt that differs from run to run (calibrated apart).
_AFTER_PER_CALL_PROVEN = "reaches-prompt-after-per-call"
# `order-in-prompt-text` is followed as a cut's text is, which does not tell one assignment of a name from
# another: where a request of the file includes the collection, the request's view decides.
_OWN_CONSEQUENCE = (*_PROVEN_KINDS, "order-decides", "schema-choices", "after-per-call", "order-in-prompt-text")
_ORDER_KINDS = (*_OWN_CONSEQUENCE, "order-in-text", "order-kept")
# An order the request itself carries: a response schema's choices, the list of tools (toolorder.py).
_SENT_KINDS = ("schema-choices", "tool-order", "rows-tool-order")
# Order that reaches a model as a tool's result, not a cached prompt.
_TOOL_RESULT_KINDS = ("order-in-tool-result", "command-listing-order", "walk-cut-order")
# A shell command that walks a tree (`find`, `grep -r`), its output cut (shellcuts.py).
_COMMAND = ("prints entries in the order the file system lists them",
            "Sort the lines before the cut (`find ... | sort | head -500`).")
# A loop over a folder's listing left once a list holds enough entries (walkcuts.py).
_WALK = ("lists entries in whatever order the file system returns",
         "Sort the entries before the loop takes them (`sorted(root.rglob(pattern))`; in an `os.walk`, "
         "`dirs.sort()` and `for name in sorted(files)`).")
# A name a thread's lambda reads after the loop that set it has moved on (latebinding.py).
_LATE = ("is read when a thread runs the task, not when the loop hands it over",
         "Bind it when the task is handed over (`lambda prompt=prompt: ...`), or pass it as an argument "
         "(`pool.submit(ask, prompt)`).")
# The kinds whose claim and advice are their own rather than read off the collection's source.
_OWN_WORDS = {"late-binding": _LATE, "command-listing-order": _COMMAND, "walk-cut-order": _WALK}


def _why(detail: str, path: str) -> tuple[str, str, str]:
    """How the message names the collection, what puts it in no fixed order, and what to do (in
    the language of the file at ``path``)."""
    if detail == QUERY_ROWS:
        return ("A query with no ORDER BY", "gives its rows in whatever order the database picks, which changes with "
                "its plan and its writes", "Order the query (`ORDER BY`, `.order_by(...)`) on a column that fixes "
                "the order, or sort the rows.")
    return (f"`{detail}`", *_why_of(detail, path.endswith(_SCRIPT_SUFFIXES)))


# A quoted expression too long to read in a message: a query's SQL text, a call over many lines.
_LONG_CODE = re.compile(r"`([^`]{80,})`")


def _brief(text: str) -> str:
    """``text`` with each long quoted expression cut to its call (``db.query(...)``)."""
    def cut(match: re.Match[str]) -> str:
        code = " ".join(match.group(1).split())
        return f"`{code.split('(', 1)[0]}(...)`" if "(" in code else f"`{code}`"
    return _LONG_CODE.sub(cut, text)


# A random pick is variety on purpose: sorting it would undo the pick (and a sample's items change
# anyway), so the advice keeps it and says where it costs nothing, or how to make a run repeat.
_RANDOM_ADVICE = ("If the variety is the point, keep it and put it after the static instructions; draw from a "
                  "seeded generator (`random.Random(seed)`) where a run must repeat.")


def _random_pick(detail: str) -> str:
    """What a call of the ``random`` module does to the items it is given."""
    if detail == "random.shuffle":
        return "puts the items in a new order on every call, by design"
    return "draws other items in another order on every call, by design"


# A TypeScript or JavaScript file sorts an array in place, or a copy of it; Python wraps it.
_SCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_SORT_ADVICE = {False: "Wrap it in `sorted(...)`.", True: "Sort it first (`[...items].sort()`)."}


def _why_of(detail: str, script: bool) -> tuple[str, str]:
    if detail.startswith("random."):
        return _random_pick(detail), _RANDOM_ADVICE
    if detail in ("Promise.all", "Promise.allSettled"):
        return ("runs its tasks concurrently",
                "Take the results from the array `Promise.all` returns, which keeps the order of its input "
                "(`const results = (await Promise.all(items.map(run))).flat()`).")
    if detail == "asyncio.gather":
        return ("runs its tasks concurrently",
                "Add the messages after `gather` returns, in the order of its results.")
    if detail == "as_completed":
        return ("gives the tasks in the order they finish, which changes from run to run",
                "Take the results in the order the work was handed out (`[f.result() for f in futures]`, "
                "`pool.map(...)`, `asyncio.gather(...)`), or sort them.")
    if detail == "ThreadPoolExecutor":
        return ("finishes its tasks in an order that changes from run to run",
                "Keep the results in the order the work was handed out (`pool.map(...)`, or each with its index "
                "and sorted by it).")
    if detail in ("set", "frozenset"):
        return "iterates in an order that changes with each process's hash seed", _SORT_ADVICE[script]
    return "lists entries in whatever order the file system returns", _SORT_ADVICE[script]


def _unordered_in_prefix(request: Request, ctx: CheckContext, reported: set[Span], proven: list[Span],
                         later: dict[Span, Evidence]) -> None:
    """Report each collection once in the file: a helper that loops over it can fill several
    requests (``reported`` holds where one already was); one only seen in text a function
    returns, or after content that differs per call, is left to a stronger observation of it
    (``proven``: data flow shows its order reaching a model), the second noted in ``later``."""
    claimed: set[str] = set()  # what this request already reports before static text (`os.listdir`, `set`)
    for index, segment, source, after in sources_in_prefix(request, SourceKind.UNORDERED_ITERATION):
        assert segment.slot is not None
        if any(s.kind is SourceKind.UNSORTED_SERIALIZATION and s.strong for s in segment.slot.sources):
            continue  # the keys of a serialised dict: CTX103 reports it, and sorting the keys settles both
        if source.span in reported:
            continue
        kind, evidence = _weighed(request, index, segment, source, ctx)
        # A stronger observation of the same collection says more than a request's weak view of it:
        # text a function returns, or a prefix that content differing per call has already ended
        # (no cached prefix is lost, but data flow shows the order reaching a model: a prompt that
        # differs from run to run for the same input, which only that observation can say). Where
        # the request already reports a collection of the same kind first (the same listing read
        # twice into one message), the later read stays the request's weak view of it.
        covered = any(p.covers(source.span) for p in proven)
        if covered and (kind == "returned-text" or kind == "after-per-call" and source.detail not in claimed):
            if kind == "after-per-call":
                later[source.span] = evidence[-1]
            continue
        if kind != "after-per-call":
            claimed.add(source.detail)
        reported.add(source.span)
        if source.detail.startswith("random."):
            _random_in_prefix(request, ctx, segment, source, after, kind, evidence)
            continue
        subject, why, advice = _why(source.detail, source.span.path)
        ctx.report(
            source.span,
            f"{subject} {why}, so the text built from it can differ between calls and "
            f"{_cost(sum(ctx.count_tokens(s.text, request) for s in after))}. {advice}",
            kind=kind, evidence=evidence,
        )


def _random_in_prefix(request: Request, ctx: CheckContext, segment: Segment, source: Source, after: list[Segment],
                      kind: str, evidence: tuple[Evidence, ...]) -> None:
    """A shuffle or a sample before static text: content that differs per call on purpose, as a
    clock's value does (CTX101). Its order is not the problem, and sorting is no fix; what it costs
    is the static text after it, which matters from one step of a provider's cache."""
    lost = sum(ctx.count_tokens(s.text, request) for s in after)
    tools = segment.role is Role.TOOLS
    if kind in ("call", "caller-call", "pattern"):
        kind = "random-pick" if tools or lost >= ctx.options["min_tokens"] else "short-random-pick"
    cost = "everything after the tool definitions is sent uncached each time" if tools else \
        f"the {lost:,} static tokens after it are sent uncached each time"
    ctx.report(source.span, f"`{source.detail}` {_random_pick(source.detail)}, so {cost}. Keep the pick and move "
               "the static instructions before it: sorting its items would undo it.", kind=kind, evidence=evidence)
