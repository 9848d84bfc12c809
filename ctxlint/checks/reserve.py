"""Output reserve and budget: room left for the answer, what fits the window, what gets cut."""

from __future__ import annotations

from ctxlint.analysis import names
from ctxlint.analysis.budget import static_chars, static_tokens, utf8_bytes
from ctxlint.checks import INTEGER, STRINGS, request_check
from ctxlint.context import CheckContext
from ctxlint.model import Evidence, EvidenceKind, Request, Role


@request_check(options={"media_models": STRINGS, "apply_models": STRINGS})
def missing_output_reserve(request: Request, ctx: CheckContext) -> None:
    """Report a request whose source can set an output limit but does not.

    A model that generates images, video or speech, or embeds text, answers with media or
    vectors, not text a token limit would bound; a fast-apply model answers with the file it is
    given, edited, which a limit would cut off: requests to either are left alone, and so is a
    probe whose answer no code reads (an access check: only whether it raises, or its status).
    """
    if not request.declares_settings or not request.answer_read or (
            request.output_limit is not None and request.reserve_kind not in ("ignored", "field-dropped")):
        return
    if request.model and names.matches(request.model, (*ctx.options["media_models"], *ctx.options["apply_models"])):
        return
    hint = request.settings_hint or "`max_tokens`"
    kind = request.reserve_kind or ("call-in-method" if request.in_method else "call")
    if kind in ("ignored", "field-dropped"):  # a limit is sent, but not the one the code holds
        held, sent = request.reserve_evidence[:2]
        where = f" (line {held.span.line})" if held.span is not None else ""
        if kind == "ignored":
            sink = "a request with a fixed output limit"
            message = (f"{held.text.split(' is accepted')[0]}{where} is accepted but never read, and {sent.text}, "
                       "so the limit a caller gives has no effect on the answer's length. Pass it on as the limit, "
                       "or take the parameter out.")
        else:
            sink = "a request whose limit comes from one field"
            message = (f"{held.text}{where}; {sent.text}, so a prompt whose limit is kept in that field gets none "
                       "here, and the answer may take whatever the window leaves. Send that field as the limit too.")
        ctx.report(request.anchor, message, kind=kind,
                   evidence=(Evidence(EvidenceKind.SINK, sink, request.anchor), *request.reserve_evidence))
        return
    if kind == "options-dropped":  # the limit is held, and left behind by an adapter
        ctx.report(request.anchor, f"{request.reserve_evidence[0].text}, so the answer may take whatever the window "
                   f"leaves, or be cut off when a long prompt leaves nothing. Pass {hint} on as the limit, under the "
                   "key the API this body goes to takes.", kind=kind, evidence=(Evidence(
                       EvidenceKind.SINK, "a request body built with no output limit", request.anchor),
                       *request.reserve_evidence))
        return
    if kind == "limit-field-unread":  # a setting the user may fill, which no request is sent with
        unread, sent = request.reserve_evidence[:2]
        ctx.report(request.anchor, f"{unread.text}, while {sent.text}, so a limit set here reaches no request and "
                   "the answer may take whatever the window leaves. Send it on as the limit, or take the field out.",
                   kind=kind, evidence=(Evidence(EvidenceKind.SINK, "a setting for a request's output limit",
                                                 request.anchor), *request.reserve_evidence))
        return
    evidence: tuple[Evidence, ...] = (
        Evidence(EvidenceKind.SINK, "a request that can set an output limit, with none set", request.anchor),)
    evidence += request.reserve_evidence
    subject = "the answer"
    if kind == "dropped":
        accepted = request.reserve_evidence[0]
        where = f" (line {accepted.span.line})" if accepted.span is not None else ""
        why = f"{accepted.text.split(' is accepted')[0]}{where} is accepted but never sent, so"
    elif kind in ("built-without", "built-and-sent"):
        why, subject = f"{request.reserve_evidence[0].text}, so", "every answer it gives"
    elif kind == "handed-to-framework":
        # a model from a project function with several builds: each build first, then the hand-over
        built = request.reserve_evidence[0]
        handed = next((e for e in request.reserve_evidence[1:] if e.kind is EvidenceKind.FLOW),
                      request.reserve_evidence[1])
        where = f" (line {handed.span.line})" if handed.span is not None else ""
        why = f"{built.text} and {handed.text}{where}, which runs requests with it, so"
        subject = "every answer it gives"
    elif kind == "passed-to-others":
        built, other = request.reserve_evidence[:2]
        where = f", line {other.span.line}" if other.span is not None else ""
        limit = other.text.split(" is passed to ")[0]
        why = (f"{built.text.split(' is built ')[0]} is built without the output limit this function gives the "
               f"other chat models it builds ({limit}{where}), so")
        subject = "every answer it gives"
    elif kind in ("none-by-default", "none-by-callers"):
        # the step that says which value is None; an object's "built without" comes first and is
        # not what happened: it is built with the limit's key, given None
        said = next((e for e in request.reserve_evidence if "is None" in e.text), request.reserve_evidence[0])
        why = f"No output limit is set by default ({said.text}), so"
    elif kind in ("empty-by-default", "caller-rest", "kwargs-by-default", "field-by-default", "subclass-by-default"):
        why = f"No output limit is set by default ({request.reserve_evidence[0].text}), so"
    elif kind == "field-none-by-default":
        why = f"No output limit is set by default ({_none_fields(request.reserve_evidence)}), so"
    elif kind == "runs-without":
        where = ", ".join(f"{step.span.path.rsplit('/', 1)[-1]} line {step.span.line}"
                          for step in request.reserve_evidence[:3] if step.span is not None)
        more = f" and {len(request.reserve_evidence) - 3} more" if len(request.reserve_evidence) > 3 else ""
        why = f"No output limit is set here, nor where the code runs this prompt ({where}{more}), so"
    elif kind == "removed":
        why = f"{request.reserve_evidence[0].text}, and nothing sets another in its place, so"
    elif kind == "set-for-some":
        why = f"{request.reserve_evidence[0].text}, so for every other model"
    elif kind == "factory-dropped":
        held, factory = request.reserve_evidence[:2]
        lines = [f" (line {step.span.line})" if step.span is not None else "" for step in (held, factory)]
        why = f"{held.text}{lines[0]} but not sent: {factory.text}{lines[1]}, so"
    elif kind in ("not-its-limit", "named-model"):
        why, subject = f"{request.reserve_evidence[0].text}, so", "every answer it gives"
    elif kind == "misnamed-key":
        why = f"{request.reserve_evidence[0].text}, so the limit is never applied and"
    elif kind == "settings-unset":
        given, settings = request.reserve_evidence[:2]
        why = f"{given.text}, nor do the settings by default ({settings.text}), so"
    elif kind in ("wrapper-call", "kwargs-unset", "settings-dropped", "unset-model", "twin-method", "given-none",
                  "model-class-unset", "batch-line", "object-unset"):
        why = f"{request.reserve_evidence[0].text}, so"
    else:
        why = "No output limit is set, so"
    ctx.report(
        request.anchor,
        f"{why} {subject} may take whatever the window leaves, or be cut off when a long prompt "
        f"leaves nothing. Set {hint} to the longest answer you expect.",
        kind=kind, evidence=evidence,
    )


def _none_fields(steps: tuple[Evidence, ...]) -> str:
    """The fields a limit is read from, None by default, and the constructions (or calls) that
    pass them on; not the wrapper's own steps a request sent through one carries after them."""
    return "; ".join(step.text for step in steps if step.kind in (EvidenceKind.SOURCE, EvidenceKind.FLOW)
                     and (step.text.startswith("the project ") or ", None by default at " in step.text)) \
        + ", and nothing else in the project gives it a value"


@request_check(options={"minimum": INTEGER, "minimum_with_tools": INTEGER, "short_answers": STRINGS,
                        "probe_tokens": INTEGER})
def reserve_too_small(request: Request, ctx: CheckContext) -> None:
    """Report an output limit below the configured minimum, or too small for a tool call.

    A tiny limit is right for a prompt that asks for a tiny answer (a label, a score, yes or
    no): without tools, a prompt whose text asks for one is left alone, and one whose text
    cannot be seen (the messages come from elsewhere) is reported at low confidence. So is a
    probe: a fixed prompt of a few tokens (`test`, `Say "ok"`) that checks a model answers.
    """
    limit = request.output_limit
    if limit is None or limit.value is None:
        return
    setting = Evidence(EvidenceKind.SOURCE, f"`{limit.key}` set to {limit.value:,}", limit.span)
    if request.tools and limit.value < ctx.options["minimum_with_tools"]:
        needed = ctx.options["minimum_with_tools"]
        ctx.report(
            limit.span,
            f"`{limit.key}: {limit.value}` leaves too little room for a complete call to one of its "
            f"{len(request.tools)} tool(s) (at least {needed:,} tokens); a cut-off tool call cannot be "
            f"parsed, and the agent fails or retries at full price. Raise it to {needed:,} or more.",
            kind="with-tools",
            evidence=(setting, Evidence(EvidenceKind.SINK, f"{len(request.tools)} tool(s) offered", request.anchor)),
        )
        return
    needed = ctx.options["minimum"]
    if limit.value >= needed:
        return
    text = " ".join(s.text for s in request.segments if s.slot is None)
    if _asks_for_short_answer(text, ctx.options["short_answers"]):
        return
    if text.strip() and all(s.slot is None and s.role is Role.USER for s in request.segments) and (
            ctx.count_tokens(text, request) <= ctx.options["probe_tokens"]):
        return
    ctx.report(
        limit.span,
        f"`{limit.key}: {limit.value}` leaves too little room for a useful answer (at least {needed:,} "
        f"tokens), so the answer is cut off mid-sentence. Raise it to {needed:,} or more, or ask for an "
        "answer that short in the prompt.",
        kind="prompt-seen" if text.strip() else "prompt-unseen",
        evidence=(setting,) if text.strip() else (
            setting, Evidence(EvidenceKind.SINK, "the prompt's text is not visible here", request.anchor, False)),
    )


def _asks_for_short_answer(text: str, phrases: list[str]) -> bool:
    lowered = " ".join(text.lower().split())
    return any(phrase.lower() in lowered for phrase in phrases)


@request_check(options={"budget": INTEGER})
def over_budget(request: Request, ctx: CheckContext) -> None:
    """Report a request whose fixed tokens plus reserve exceed the window, or a reserve above the
    model's maximum output. Both need the model: with none known, only a configured budget is
    checked."""
    info = ctx.known_model(request)
    limit = request.output_limit
    if info is not None and limit is not None and limit.value is not None and limit.value > info.max_output:
        ctx.report(
            limit.span,
            f"`{limit.key}: {limit.value:,}` is above {info.name}'s maximum output of {info.max_output:,} "
            f"tokens; the API rejects the request. Lower it to {info.max_output:,} or less.",
            kind="above-max-output",
            evidence=(Evidence(EvidenceKind.SOURCE, f"`{limit.key}` set to {limit.value:,}", limit.span),
                      Evidence(EvidenceKind.SINK, f"{info.name}: at most {info.max_output:,} output tokens", None)),
        )
    budget = ctx.options["budget"] or (info.window if info else 0)
    if not budget:
        return
    reserve = limit.value if limit is not None and limit.value is not None else 0
    # A token covers at least one byte, so bytes bound the count: most requests are settled
    # without loading a tokenizer (a request longer than the budget in characters is not).
    if static_chars(request) + reserve <= budget and static_tokens(request, utf8_bytes, info) + reserve <= budget:
        return
    fixed = static_tokens(request, lambda text: ctx.count_tokens(text, request), info)
    if fixed + reserve > budget:
        what = (f"the {budget:,}-token budget" if ctx.options["budget"] or info is None
                else f"{info.name}'s {budget:,}-token window")
        ctx.report(
            request.anchor,
            f"The fixed prompt ({fixed:,} tokens of tools and static text) plus the output reserve "
            f"({reserve:,}) is {fixed + reserve:,} tokens, over {what} by {fixed + reserve - budget:,} "
            "before any variable content is added. Trim the prompt or tools, or lower the reserve.",
            kind="over-window",
            evidence=(Evidence(EvidenceKind.SOURCE, f"{fixed:,} fixed tokens counted with the request's tokenizer",
                               request.anchor),
                      Evidence(EvidenceKind.SINK, what, None)),
        )
