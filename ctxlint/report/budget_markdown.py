"""`ctxlint budget --format markdown`: the same tables, ready to post as a pull-request comment."""

from __future__ import annotations

from collections.abc import Sequence

from ctxlint.budget.allocator import MISS, Plan
from ctxlint.budget.simulate import Simulation
from ctxlint.report.budget_text import (
    STATUS,
    describe,
    duplicates_line,
    empty_note,
    field_summary,
    mode_line,
    priority_text,
    shares_line,
)


def render(simulations: Sequence[Simulation]) -> str:
    out = ["## ctxlint budget", ""]
    for simulation in simulations:
        where, model, fixtures = describe(simulation)
        out += [f"### `{where}`", "", f"{model}; {fixtures}", ""]
        note = empty_note(simulation)
        if note:
            out += [f"> {note}", ""]
        for plan in simulation.plans:
            out += _plan(plan, simulation)
    return "\n".join(out).rstrip("\n") + "\n"


def _plan(plan: Plan, simulation: Simulation) -> list[str]:
    out = [f"**{mode_line(plan, simulation)}**", ""]
    if plan.error is not None:
        return out + [f"> **Error:** {_cell(plan.error)}", ""]
    out += [duplicates_line(plan), ""]
    out += ["| segment | kind | prio | requested | granted | used | action | reason |",
            "|---|---|--:|--:|--:|--:|---|---|"]
    for r in plan.rows:
        out.append(f"| {r.name} | {r.kind} | {priority_text(r.priority)} | {r.requested:,} | {r.granted:,} | "
                   f"{r.used:,} | {r.action} | {_cell(r.reason)} |")
    out.append(f"| **total** | | | {plan.requested:,} | {plan.granted:,} | {plan.used:,} | | |")
    out += ["", shares_line(plan), ""]
    if plan.readback:
        for field in plan.readback:
            lost = f" (lost to {field.action})" if field.status == MISS else ""
            out.append(f"- `[{STATUS[field.status]}]` {_cell(field.field.name)} `{field.field.pattern}` "
                       f"@{field.field.segment}{lost}")
        out += ["", f"**{field_summary(plan)}**", ""]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
