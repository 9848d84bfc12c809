"""Layout: is each piece of text where truncation, summarisation and attention treat it right?"""

from __future__ import annotations

import difflib

from ctxlint.analysis import constraints, names, regions
from ctxlint.checks import request_check
from ctxlint.context import CheckContext
from ctxlint.model import Region, Request


@request_check
def pinned_in_truncatable_region(request: Request, ctx: CheckContext) -> None:
    """Report hard constraints that sit in MIDDLE (inside a loop, history or between such
    blocks), or in text the code cuts to a length (``RULES[:2000]``) beyond what the cut keeps."""
    words = ctx.settings.layout["constraints"]
    for segment in request.slots():
        for constraint, cut in constraints.cut_by(segment, ctx.directives, words):
            ctx.report(
                constraint.span,
                f"The constraint \"{_excerpt(constraint.text)}\" is in text that `{cut}` (line "
                f"{segment.span.line}) cuts to a fixed length, so it is dropped, wholly or in part, "
                "whenever the cut applies. Keep constraints out of truncated text: send them whole, "
                "before the text that may be cut.",
            )
    layout = regions.analyse(request, ctx.directives, ctx.settings.layout["collections"])
    if not layout.variable:
        return
    found = constraints.find(request, ctx.directives, ctx.settings.layout["constraints"])
    # A word-for-word restatement of a HEAD constraint loses nothing when it is cut: the
    # original stays (an agent's later tool results put the current turn's restatement there).
    pinned = {constraints.normalised(c.text) for c in found if layout.regions[c.index] is Region.HEAD}
    for constraint in found:
        if layout.regions[constraint.index] is not Region.MIDDLE:
            continue
        if constraints.normalised(constraint.text) in pinned:
            continue
        segment = request.segments[constraint.index]
        where = (f"inside the loop over `{segment.loop}`" if segment.loop is not None
                 else f"between variable-length blocks ({layout.describe_variable(request, layout.variable[0])} "
                      f"and {layout.describe_variable(request, layout.variable[-1])})")
        ctx.report(
            constraint.span,
            f"The constraint \"{_excerpt(constraint.text)}\" sits {where}, in the MIDDLE region that "
            "budgets truncate or summarise first, so it can silently disappear. Move it to the system "
            "prompt before any variable content, and restate it word for word after the last one if needed.",
        )


@request_check
def restated_constraint_drift(request: Request, ctx: CheckContext) -> None:
    """Report a TAIL restatement that is close to, but not the same as, a HEAD constraint."""
    layout = regions.analyse(request, ctx.directives, ctx.settings.layout["collections"])
    found = constraints.find(request, ctx.directives, ctx.settings.layout["constraints"])
    head = [c for c in found if layout.regions[c.index] is Region.HEAD]
    # Any TAIL sentence can be a restatement: one that lost its "never" no longer looks like a rule.
    tail = [c for c in constraints.sentences(request, ctx.directives) if layout.regions[c.index] is Region.TAIL]
    if not head or not tail:
        return
    threshold = ctx.options["similarity"]
    head_texts = {constraints.normalised(c.text) for c in head}
    for restated in tail:
        text = constraints.normalised(restated.text)
        if text in head_texts:
            continue
        best, ratio = None, 0.0
        for original in head:
            score = difflib.SequenceMatcher(None, constraints.normalised(original.text).split(), text.split()).ratio()
            if score > ratio:
                best, ratio = original, score
        if best is None or ratio < threshold:
            continue
        ctx.report(
            restated.span,
            f"This restates the constraint on line {best.span.line} but differs: {_difference(best.text, restated.text)}. "
            "The model sees two rules and may follow either; restate it word for word, or drop one.",
        )


@request_check
def question_not_last(request: Request, ctx: CheckContext) -> None:
    """Report the current user input placed before variable-length content."""
    layout = regions.analyse(request, ctx.directives, ctx.settings.layout["collections"])
    if not layout.variable:
        return
    questions = [i for i, s in enumerate(request.segments)
                 if s.slot is not None and s.loop is None and not regions.is_variable(s, ctx.settings.layout["collections"])
                 and any(names.matches(n, ctx.settings.layout["questions"]) for n in s.slot.names)]
    if not questions:
        return
    question = request.segments[questions[-1]]
    # Only material in the question's own message counts: in a conversation, later turns
    # (tool calls and their results) naturally follow the question that started them.
    following = next((i for i in layout.variable if i > questions[-1]
                      and request.segments[i].message_index == question.message_index), None)
    if following is None:
        return
    ctx.report(
        question.span,
        f"The current user input `{question.text}` comes before {layout.describe_variable(request, following)}. "
        "Models answer best with the question last, after the material, and that position is the one a "
        "budget never cuts. Move it after the last variable-length block.",
    )


def _excerpt(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _difference(original: str, restated: str) -> str:
    """`HEAD says "five", TAIL says "three"` from a word-level diff."""
    a, b = original.split(), restated.split()
    parts = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, [w.lower() for w in a], [w.lower() for w in b]).get_opcodes():
        if tag == "replace":
            parts.append(f"\"{' '.join(a[i1:i2])}\" became \"{' '.join(b[j1:j2])}\"")
        elif tag == "delete":
            parts.append(f"\"{' '.join(a[i1:i2])}\" is missing")
        elif tag == "insert":
            parts.append(f"\"{' '.join(b[j1:j2])}\" was added")
    return "; ".join(parts[:3]) or "the wording differs"
