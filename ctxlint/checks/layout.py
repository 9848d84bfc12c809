"""Layout: is each piece of text where truncation, summarisation and attention treat it right?"""

from __future__ import annotations

import difflib
import re

from ctxlint.analysis import constraints, names, regions
from ctxlint.checks import NUMBER, STRINGS, request_check
from ctxlint.context import CheckContext
from ctxlint.model import Confidence, Evidence, EvidenceKind, Region, Request


@request_check(options={"collections": STRINGS, "constraints": STRINGS})
def pinned_in_truncatable_region(request: Request, ctx: CheckContext) -> None:
    """Report hard constraints that sit in MIDDLE (inside a loop over content whose size varies
    per call, history, or between such blocks), or in text the code cuts to a length
    (``RULES[:2000]``) beyond what the cut keeps."""
    words = ctx.options["constraints"]
    for segment in request.slots():
        for constraint, cut in constraints.cut_by(segment, ctx.directives, words):
            ctx.report(
                constraint.span,
                f"The constraint \"{_excerpt(constraint.text)}\" is in text that `{cut}` (line "
                f"{segment.span.line}) cuts to a fixed length, so it is dropped, wholly or in part, "
                "whenever the cut applies. Keep constraints out of truncated text: send them whole, "
                "before the text that may be cut.",
                evidence=(Evidence(EvidenceKind.SOURCE, f"`{cut}` cuts the text", segment.span),
                          Evidence(EvidenceKind.SINK, "a constraint beyond what the cut keeps", constraint.span)),
            )
    layout = regions.analyse(request, ctx.directives, ctx.options["collections"])
    if not layout.variable:
        return
    found = constraints.find(request, ctx.directives, words)
    # A word-for-word restatement of a HEAD constraint loses nothing when it is cut: the
    # original stays (an agent's later tool results put the current turn's restatement there).
    pinned = {constraints.normalised(c.text) for c in found if layout.regions[c.index] is Region.HEAD}
    first_in_loop: dict[str | None, regions.Variable] = {}  # the first block of each loop, looked up once
    for variable in layout.variable:
        first_in_loop.setdefault(request.segments[variable.index].loop, variable)
    for constraint in found:
        if layout.regions[constraint.index] is not Region.MIDDLE:
            continue
        if constraints.normalised(constraint.text) in pinned:
            continue
        segment = request.segments[constraint.index]
        if segment.loop is not None:
            block = first_in_loop.get(segment.loop)
            where = f"inside the loop over `{segment.loop}`"
        else:
            block = layout.variable[0]
            where = (f"between variable-length blocks ({layout.describe_variable(request, layout.variable[0].index)} "
                     f"and {layout.describe_variable(request, layout.variable[-1].index)})")
        if block is None:  # a loop inside the region, over a list the code supplies
            block = layout.variable[0]
        explicit = ctx.directives.region_at(constraint.span.line) is Region.MIDDLE
        ctx.report(
            constraint.span,
            f"The constraint \"{_excerpt(constraint.text)}\" sits {where}, in the MIDDLE region that "
            "budgets truncate or summarise first, so it can silently disappear. Move it to the system "
            "prompt before any variable content, and restate it word for word after the last one if needed.",
            confidence=Confidence.HIGH if explicit or constraint.pinned else block.confidence,
            evidence=(block.evidence,
                      Evidence(EvidenceKind.SINK, "a constraint in the MIDDLE region", constraint.span)),
        )


# Wordings of the same modality: a restatement that swaps one for another says the same thing.
_MODALITIES = (
    (re.compile(r"\b(?:must not|mustn't|cannot|can't|can not|do not|don't|does not|doesn't|should not|"
                r"shouldn't|may not|never|are not allowed to|is not allowed to|not allowed to|"
                r"are forbidden to|is forbidden to)\b"), " NOT "),
    (re.compile(r"\b(?:must|have to|has to|need to|needs to|should|are required to|is required to|"
                r"required to|always)\b"), " MUST "),
)


def _modal(text: str) -> str:
    text = constraints.normalised(text)
    for pattern, word in _MODALITIES:
        text = pattern.sub(word, text)
    return " ".join(text.split())


@request_check(options={"similarity": NUMBER, "collections": STRINGS, "constraints": STRINGS})
def restated_constraint_drift(request: Request, ctx: CheckContext) -> None:
    """Report a TAIL restatement that is close to, but not the same as, a HEAD constraint.

    HEAD candidates are constraints and sentences that state a number (a word limit is a rule
    without any keyword). Swapping one wording of a modality for another ("must not" for
    "cannot") is not drift; a changed number, a dropped negation or a changed word is.
    """
    layout = regions.analyse(request, ctx.directives, ctx.options["collections"])
    if not layout.variable:
        return
    found = constraints.find_with_numbers(request, ctx.directives, ctx.options["constraints"])
    head = [c for c in found if layout.regions[c.index] is Region.HEAD]
    # Any TAIL sentence can be a restatement: one that lost its "never" no longer looks like a rule.
    tail = [c for c in constraints.sentences(request, ctx.directives)
            if layout.regions[c.index] is Region.TAIL and not constraints.is_heading(c.text)]
    if not head or not tail:
        return
    threshold = ctx.options["similarity"]
    head_texts = {_modal(c.text) for c in head}
    for restated in tail:
        text = _modal(restated.text)
        if text in head_texts:
            continue
        best, ratio = None, 0.0
        for original in head:
            score = difflib.SequenceMatcher(None, _modal(original.text).split(), text.split()).ratio()
            if score > ratio:
                best, ratio = original, score
        if best is None or ratio < threshold:
            continue
        difference = _difference(best.text, restated.text)
        ctx.report(
            restated.span,
            f"This restates the constraint on line {best.span.line} but differs: {difference}. "
            "The model sees two rules and may follow either; restate it word for word, or drop one.",
            confidence=Confidence.HIGH,
            evidence=(Evidence(EvidenceKind.SOURCE, "the original, in HEAD", best.span),
                      Evidence(EvidenceKind.SINK, f"the restatement, in TAIL ({ratio:.0%} alike)", restated.span)),
        )


@request_check(options={"collections": STRINGS, "questions": STRINGS, "graded": STRINGS})
def question_not_last(request: Request, ctx: CheckContext) -> None:
    """Report the current user input placed before variable-length content.

    In an evaluation or judge prompt the question is data being graded, not the current turn:
    a request that also carries a graded answer (``answer``, ``prediction``) is left alone.
    """
    collections = ctx.options["collections"]
    layout = regions.analyse(request, ctx.directives, collections)
    if not layout.variable:
        return
    slots = [(i, s) for i, s in request.indexed_slots() if s.loop is None]
    if any(names.matches(n, ctx.options["graded"]) or names.matches(names.last(n), ctx.options["graded"])
           for _, s in slots for n in s.slot.names):  # type: ignore[union-attr]
        return
    questions = [i for i, s in slots if not regions.is_variable(s, collections, ctx.directives)
                 and any(names.matches(n, ctx.options["questions"]) for n in s.slot.names)]  # type: ignore[union-attr]
    if not questions:
        return
    question = request.segments[questions[-1]]
    # Only material in the question's own message counts: in a conversation, later turns
    # (tool calls and their results) naturally follow the question that started them.
    following = next((v for v in layout.variable if v.index > questions[-1]
                      and request.segments[v.index].message_index == question.message_index), None)
    if following is None:
        return
    ctx.report(
        question.span,
        f"The current user input `{question.text}` comes before "
        f"{layout.describe_variable(request, following.index)}. Models answer best with the question last, "
        "after the material, and that position is the one a budget never cuts. Move it after the last "
        "variable-length block.",
        confidence=following.confidence,
        evidence=(Evidence(EvidenceKind.NAME, f"`{question.text}` is named as the current user input",
                           question.span, strong=False), following.evidence),
    )


def _excerpt(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _difference(original: str, restated: str) -> str:
    """`HEAD says "five", TAIL says "three"` from a word-level diff."""
    a, b = original.split(), restated.split()
    parts = []
    matcher = difflib.SequenceMatcher(None, [w.lower() for w in a], [w.lower() for w in b])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace":
            parts.append(f"\"{' '.join(a[i1:i2])}\" became \"{' '.join(b[j1:j2])}\"")
        elif tag == "delete":
            parts.append(f"\"{' '.join(a[i1:i2])}\" is missing")
        elif tag == "insert":
            parts.append(f"\"{' '.join(b[j1:j2])}\" was added")
    return "; ".join(parts[:3]) or "the wording differs"
