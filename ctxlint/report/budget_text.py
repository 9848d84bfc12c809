"""`ctxlint budget` as terminal text: per request and budget, the allocation table and the readback.

One block per budget: the mode, budget, reserve and input cap; the duplicate lines removed; a
row per segment (kind, priority, requested, granted, used, action, reason); totals with the
headroom and the input and reserve shares; then every key field as ``[OK]`` or ``[MISS]`` with
its segment.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

from ctxlint.budget.allocator import ABSENT, MISS, OK, Plan, Readback
from ctxlint.budget.simulate import Simulation
from ctxlint.report.cost_table import table

STATUS = {OK: "OK", MISS: "MISS", ABSENT: "ABSENT", "unknown": "NO SAMPLE"}
_NOTES = {
    ABSENT: "not in the segment's content before any cut: check the fixture or the pattern",
    "unknown": "the segment has no sample content (no fixture, or only a size)",
}


def render(simulations: Sequence[Simulation]) -> str:
    out: list[str] = []
    for simulation in simulations:
        out += header(simulation)
        for plan in simulation.plans:
            out.append("")
            out += _plan(plan, simulation)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def header(simulation: Simulation) -> list[str]:
    where, model, fixtures = describe(simulation)
    note = textwrap.wrap(empty_note(simulation), 100, subsequent_indent="  ", break_on_hyphens=False)
    return [f"{where}  {model}", fixtures, *note]


def empty_note(simulation: Simulation) -> str:
    """Which segments have no sample content and how to give them some ("" when none)."""
    empty = simulation.empty
    if not empty:
        return ""
    names = ", ".join(f"`{name}`" for name in empty)
    stem = Path(simulation.request.path).name.rsplit(".", 1)[0]
    where = (f"add them to {simulation.fixtures}" if simulation.fixtures is not None else
             f"write {stem}.fixtures.yaml beside the prompt (or pass --fixtures FILE)")
    have, budgets = ("has", "its budget is") if len(empty) == 1 else ("have", "their budgets are")
    return (f"empty: {names} {have} no sample content, so {budgets} not tested; {where} with sample "
            f"text per segment, or give a size: --size {empty[0]}=TOKENS")


def describe(simulation: Simulation) -> tuple[str, str, str]:
    """The request's location, its model and how it is counted, and where its fixtures come from."""
    request = simulation.request
    counted = "exact" if simulation.exact else "estimate"
    fixtures = (f"fixtures: {simulation.fixtures}" if simulation.fixtures is not None
                else "fixtures: none (variables filled to their declared sizes, or empty)")
    return f"{request.path}:{request.anchor.line}", f"{simulation.model} ({simulation.encoding}, {counted})", fixtures


def mode_line(plan: Plan, simulation: Simulation) -> str:
    if plan.mode == "naive":
        return (f"mode: naive (fill in request order, cut at the edge)   budget: {plan.budget:,}   "
                "reserve: 0 (naive ignores the output limit)   input cap: "
                f"{plan.cap:,}")
    return (f"mode: priority   budget: {plan.budget:,}   reserve: {reserve_text(plan, simulation)}   "
            f"input cap: {plan.cap:,}")


def reserve_text(plan: Plan, simulation: Simulation) -> str:
    if simulation.reserve_key is None:
        return "0 (no output limit is set)"
    return f"{plan.reserve:,} ({simulation.reserve_key})"


def duplicates_line(plan: Plan) -> str:
    if plan.mode == "naive":
        return "duplicates: not removed (naive)"
    partial = ("; near duplicates looked for in part of the content only (too repetitive to compare in full)"
               if plan.duplicates_partial else "")
    if not plan.duplicates:
        return "duplicates: none found" + partial
    lines = sum(r.lines for r in plan.duplicates)
    where = ", ".join(f"{r.segment} {r.lines}" for r in plan.duplicates)
    return (f"duplicates: {lines} line{'s' if lines != 1 else ''} removed ({where}), "
            f"{plan.duplicate_tokens:,} tokens saved{partial}")


def shares_line(plan: Plan) -> str:
    return (f"input {plan.input_share:.1%} of the budget; output reserve {plan.reserve_share:.1%}; "
            f"headroom {plan.headroom:,}")


def field_summary(plan: Plan) -> str:
    total = len(plan.readback)
    missing = [r.field.name for r in plan.missing]
    text = f"read back: {plan.kept}/{total} kept"
    return text + (f"; missing: {', '.join(missing)}" if missing else "; none missing")


def priority_text(priority: int | None) -> str:
    return "pin" if priority is None else str(priority)


def _plan(plan: Plan, simulation: Simulation) -> list[str]:
    out = [mode_line(plan, simulation)]
    if plan.error is not None:
        out.append(f"error: {plan.error}")
        rows = [[r.name, r.kind, priority_text(r.priority), f"{r.requested:,}"] for r in plan.rows]
        rows.append(["total", "", "", f"{plan.requested:,}"])
        out += table(["segment", "kind", "prio", "requested"], rows, "llrr")
        return out
    out.append(duplicates_line(plan))
    headers = ["segment", "kind", "prio", "requested", "granted", "used", "action", "reason"]
    rows = [[r.name, r.kind, priority_text(r.priority), f"{r.requested:,}", f"{r.granted:,}", f"{r.used:,}",
             r.action, r.reason] for r in plan.rows]
    lines = table(headers, [*rows, ["total", "", "", f"{plan.requested:,}", f"{plan.granted:,}",
                                   f"{plan.used:,}", "", ""]], "llrrrrll")
    rule = "-" * max(len(line) for line in lines)
    out += [lines[0], rule, *lines[1:-1], rule, lines[-1]]
    out.append(shares_line(plan))
    if plan.readback:
        out.append("key fields, read back after the cuts:")
        out += _readback(plan.readback)
        out.append(field_summary(plan))
    return out


def _readback(readback: Sequence[Readback]) -> list[str]:
    width = max(4, *(len(STATUS[r.status]) for r in readback))
    rows = []
    for r in readback:
        status = f"[{STATUS[r.status].ljust(width)}]"
        note = ""
        if r.status == MISS:
            note = f"lost to {r.action}"
        elif r.status in _NOTES:
            note = _NOTES[r.status]
        rows.append([status, r.field.name, r.field.pattern, f"@{r.field.segment}", note])
    return table(["", "field", "pattern", "segment", ""], rows, "lllll", indent="  ")[1:]
