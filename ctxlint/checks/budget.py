"""Budget simulation as a rule: key fields a prompt declares must survive its declared minimum budget.

The check runs only on prompts that declare a budget (front matter, ``ctxlint: budget``
comments or a config glob) with key fields and a ``min-budget``. It simulates that one budget
with the priority allocator, exactly as ``ctxlint budget`` does, reading the fixtures beside
the prompt (or the ones it names); a check that reads a second file is the exception here, made
because the sample content is what the simulation is about. It is a file check so that it can
add the fixture files to the parsed file's ``dependencies``: a cached result must go stale when
the sample content changes, or when a fixture file appears beside the prompt.
"""

from __future__ import annotations

from pathlib import Path

from ctxlint.checks import STRINGS, file_check
from ctxlint.context import CheckContext
from ctxlint.model import Evidence, EvidenceKind, ParsedFile, Request


@file_check(options={"collections": STRINGS, "questions": STRINGS, "constraints": STRINGS})
def key_field_lost_at_budget(parsed: ParsedFile, ctx: CheckContext) -> None:
    """Report each declared key field that is lost, or absent, at the declared minimum budget."""
    found = ctx.directives
    if not (found.budget or found.front_matter or ctx.settings.budget):
        return  # nothing declared: no simulation, no tokenizer
    for request in parsed.requests:
        _check(request, parsed, ctx)


def _check(request: Request, parsed: ParsedFile, ctx: CheckContext) -> None:
    from ctxlint.budget.allocator import ABSENT, MISS
    from ctxlint.budget.fixtures import candidates
    from ctxlint.budget.policy import PolicyError
    from ctxlint.budget.segments import Words
    from ctxlint.budget.simulate import BudgetError, declarations_for, prepare, run

    found = ctx.directives
    try:
        declared = declarations_for(request, found, ctx.settings, _relpath(request.path, ctx.settings.root))
    except PolicyError as error:
        ctx.report(error.span or request.anchor, f"This budget declaration cannot be used: {error.message}.",
                   kind="simulated")
        return
    if not declared.fields or declared.min_budget is None:
        return
    budget = declared.min_budget
    where = declared.min_budget_span or request.anchor
    fixture = declared.fixtures
    depends = [fixture] if fixture is not None else candidates(Path(request.path))
    parsed.dependencies.extend(str(p) for p in depends if str(p) not in parsed.dependencies)
    try:
        simulation = prepare(request, declared, ctx.settings, Words.from_options(ctx.options), found)
    except BudgetError as error:
        ctx.report(error.span or where, f"The budget of this prompt cannot be simulated: {error.message}.",
                   kind="simulated")
        return
    if simulation.window is not None and budget > simulation.window:
        ctx.report(where, f"The declared minimum budget of {budget:,} tokens is above {simulation.model}'s "
                          f"{simulation.window:,}-token window; declare a budget the model can take.", kind="simulated")
        return
    plan = run(simulation, budget)
    if plan.error is not None:
        ctx.report(where, f"At its declared minimum budget of {budget:,} tokens this prompt cannot be sent: "
                          f"{plan.error}.", kind="simulated")
        return
    rows = {row.name: row for row in plan.rows}
    for readback in plan.readback:
        key = readback.field
        span = readback.span or where
        evidence = (Evidence(EvidenceKind.SOURCE, f"key field `{key.name}` declared", key.span),
                    Evidence(EvidenceKind.SINK, f"segment `{key.segment}` at a budget of {budget:,}"))
        if readback.status == MISS:
            row = rows[key.segment]
            ctx.report(span, (
                f"Key field `{key.name}` ({key.pattern}) is lost at the declared minimum budget of {budget:,} "
                f"tokens: `{row.action}` on segment `{key.segment}` keeps {row.used:,} of its {row.requested:,} "
                f"tokens and leaves it out. Raise `{key.segment}`'s priority or `min`, pin it, or move the field "
                "to text that is kept."), evidence=evidence, kind="simulated")
        elif readback.status == ABSENT:
            ctx.report(span, (
                f"Key field `{key.name}` ({key.pattern}) is not in segment `{key.segment}` at all, even before "
                "any cut: the text that carried it was changed, or the pattern or the sample content is wrong."),
                evidence=evidence, kind="simulated")


def _relpath(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(path).name
