"""`ctxlint budget --format json`: every plan as data, for scripts (``jq '.requests[].runs[]'``).

Shares are fractions (0.25, not 25%); ``priority`` is null for pinned segments; a run whose
budget cannot hold the pinned content has an ``error`` and no grants or fields.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ctxlint.budget.allocator import Plan
from ctxlint.budget.simulate import Simulation
from ctxlint.report.attributes import attributes


def render(simulations: Sequence[Simulation]) -> str:
    return json.dumps({"requests": [_request(s) for s in simulations]}, indent=2, ensure_ascii=False) + "\n"


def _request(simulation: Simulation) -> dict:
    request = simulation.request
    return {
        "path": request.path,
        "line": request.anchor.line,
        "model": simulation.model,
        "encoding": simulation.encoding,
        "exact": simulation.exact,
        "fixtures": str(simulation.fixtures) if simulation.fixtures is not None else None,
        "empty_segments": simulation.empty,  # no fixture and no --size: their budgets are not tested
        "reserve": simulation.reserve,
        "reserve_key": simulation.reserve_key,
        "runs": [_run(plan) for plan in simulation.plans],
    }


def _run(plan: Plan) -> dict:
    return {
        **attributes(plan, "budget", "mode", "reserve"),
        "input_cap": plan.cap,
        "error": plan.error,
        "duplicates": {
            "lines": sum(r.lines for r in plan.duplicates),
            "tokens": plan.duplicate_tokens,
            "segments": {r.segment: r.lines for r in plan.duplicates},
            "near_duplicates_partial": plan.duplicates_partial,
        },
        "rows": [
            {"segment": r.name,
             **attributes(r, "kind", "policy", "priority", "requested", "granted", "used", "action", "reason")}
            for r in plan.rows
        ],
        "totals": {
            **attributes(plan, "requested", "granted", "used"),
            "headroom": plan.headroom if plan.error is None else None,
            "input_share": round(plan.input_share, 4),
            "reserve_share": round(plan.reserve_share, 4),
        },
        "fields": [
            {"name": r.field.name, "segment": r.field.segment, "pattern": r.field.pattern,
             "status": r.status, "action": r.action,
             "path": r.span.path if r.span else None, "line": r.span.line if r.span else None,
             "column": r.span.column if r.span else None}
            for r in plan.readback
        ],
        "kept": plan.kept,
        "total": len(plan.readback),
    }
