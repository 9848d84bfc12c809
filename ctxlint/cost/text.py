"""The wording the cost reporters share: prices, counts, labels, and the report's totals in
sentences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxlint.analysis.accounting import RequestCost
from ctxlint.config import COST_LIMITS
from ctxlint.cost.pricing import Totals
from ctxlint.cost.report import CostReport


def money(value: float | None) -> str:
    """``$1.03``, ``$1,234``, ``$0.0042``; ``n/a`` when unknown."""
    if value is None:
        return "n/a"
    if value == 0:
        return "$0"
    if value >= 1000:
        return f"${value:,.0f}"
    if value >= 0.1:
        return f"${value:,.2f}"
    return f"${value:.2g}" if value >= 0.0001 else "<$0.0001"


def share(value: float | None) -> str:
    if value is None:
        return "n/a"
    if 0 < value < 0.001:
        return "<0.1%"
    return f"{100 * value:.1f}%"


def tokens(value: int, exact: bool = True) -> str:
    return f"{'' if exact else '~'}{value:,}"


def mark(cost: RequestCost) -> str:
    """``≥`` for a lower bound (the request sends values ctxlint cannot read), ``~`` for an
    estimate, nothing for an exact count."""
    return "≥" if cost.lower_bound else "" if cost.exact else "~"


def counted(value: int, cost: RequestCost) -> str:
    """A count of ``cost``'s request with its mark: ``≥1,234``, ``~1,234`` or ``1,234``."""
    return f"{mark(cost)}{value:,}"


def total_counts(totals: Totals, requests: Sequence[RequestCost]) -> list[str]:
    """The totals row's counts of ``requests``: tools, system, messages and input tokens, each
    ``≥`` where some request's count is a lower bound."""
    floor = "≥" if totals.lower_bound_requests else ""
    counts = (totals.tool_tokens, sum(r.system for r in requests), sum(r.messages for r in requests),
              totals.input_tokens)
    return [f"{floor}{n:,}" for n in counts]


@dataclass(frozen=True)
class ToolTable:
    """The tools of one request priced on each model (``--model A,B``): a row a tool with its count
    on each model, then all its tools with the overhead."""

    request: RequestCost
    rows: list[tuple[str, list[str]]]
    total: list[str]


def tool_tables(report: CostReport) -> list[ToolTable]:
    """A table for each request that sends tools, in the report's order."""
    return [ToolTable(costs[0], [(tool.name or "(unnamed)", [counted(r.tool_costs[i].tokens, r) for r in costs])
                                 for i, tool in enumerate(costs[0].tool_costs)],
                      [counted(r.tools, r) for r in costs])
            for f in report.counted for costs in f.what_if if costs[0].tool_costs]


def signed(value: int) -> str:
    return f"{value:+,}" if value else "0"


def percent_change(before: int | None, after: int | None) -> str:
    """``+12.5%``; empty when there was nothing before (added)."""
    if not before:
        return ""
    return f"{100.0 * ((after or 0) - before) / before:+.1f}%"


def label(cost: RequestCost) -> str:
    cell = f"cell {cost.cell}:" if cost.cell is not None else ""  # a notebook, as ruff writes it
    return f"{cost.path}:{cell}{cost.line}"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def summary(report: CostReport, totals: Totals | None = None) -> list[str]:
    """The report's totals in sentences: input first (the headline), output apart, then what the
    numbers leave out. Reporters print them as they are (table) or dress them (markdown, html)."""
    t = totals or report.totals
    if not t.requests:
        return ["No requests found: no prompt template, request or tool file among the files given."]
    line = f"{plural(t.requests, 'request')} in {plural(t.files, 'file')}: {t.input_tokens:,} input tokens"
    if t.tools:
        line += f", {t.tool_tokens:,} of them in {plural(t.tools, 'tool definition')}"
    out = [line + "."]
    if t.input_price is not None:
        cached = [r for r in report.requests if r.pricing.cached_input is not None]
        line = f"Input: {money(t.input_price)} per 1,000 calls of each request"
        if cached:
            line += (f"; {money(t.cached_price)} with prompt caching where it applies "
                     f"({plural(len(cached), 'request')})")
        else:
            line += "; prompt caching applies to none of them"
        out.append(line + ".")
    if t.output_bound is not None:
        line = (f"Output, priced apart: at most {money(t.output_bound)} per 1,000 calls (each request's output "
                "limit, or its model's maximum where it sets none)")
        if t.expected_output is not None:
            expected = next((r.pricing.expected_output_tokens for r in report.requests), None)
            line += f"; {money(t.expected_output)} expected at {expected:,} tokens per answer"
        else:
            line += "; set [tool.ctxlint.cost] expected-output-tokens for an expected price"
        out.append(line + ".")
    left = []
    if t.lower_bound_requests:
        left.append(f"≥ marks lower bounds ({plural(t.lower_bound_requests, 'request')}: they send values ctxlint "
                    "cannot read, named in the notes)")
    if t.estimated_requests - t.lower_bound_requests:
        left.append(f"~ marks estimates ({plural(t.estimated_requests - t.lower_bound_requests, 'request')})")
    if t.unpriced_requests:
        left.append(f"{plural(t.unpriced_requests, 'request')} not priced (no model, or a model or price "
                    "missing from the table)")
    if left:
        text = "; ".join(left)
        out.append(text[0].upper() + text[1:])
    aside = report.set_aside
    if aside:
        reasons = sorted({f.set_aside for f in aside})
        out.append(f"Kept out of the totals: {plural(len(aside), 'file')} ({'; '.join(reasons)}), listed below; "
                   "--include-set-aside counts them.")
    return [line if line.endswith(".") else line + "." for line in out]


def what_if_lines(report: CostReport) -> list[str]:
    """One sentence per model of a ``--model A,B`` audit: its totals over the same requests."""
    out = []
    for i, model in enumerate(report.what_if):
        t = report.totals_for(i)
        line = f"{model}: {t.input_tokens:,} input tokens, {money(t.input_price)} per 1,000 calls of each request"
        if t.cached_price is not None and t.cached_price != t.input_price:
            line += f" ({money(t.cached_price)} with prompt caching)"
        if t.output_bound is not None:
            line += f"; output at most {money(t.output_bound)}"
        if t.expected_output is not None:
            line += f", expected {money(t.expected_output)}"
        if t.estimated_requests:
            line += f"; ~ {t.estimated_requests} estimated"
        if t.unpriced_requests:
            line += f"; {t.unpriced_requests} not priced"
        out.append(line + ".")
    return out


def cache_notes(report: CostReport) -> dict[str, list[RequestCost]]:
    """Why prompt caching does not apply, with the requests each reason covers."""
    out: dict[str, list[RequestCost]] = {}
    for r in report.requests:
        if r.pricing.cached_input is None and r.pricing.input is not None and r.pricing.cache_note:
            out.setdefault(r.pricing.cache_note, []).append(r)
    return out


def where(requests: Sequence[RequestCost]) -> str:
    """``a.json:1, b.j2:3`` for up to three requests, else ``5 requests``."""
    return ", ".join(label(r) for r in requests) if len(requests) <= 3 else plural(len(requests), "request")


def limits_text(report: CostReport) -> list[str]:
    """The limits that were checked, as short phrases (for the summary lines)."""
    parts = []
    if report.increase is not None and report.comparison is not None:
        parts.append(f"max increase {report.increase}")
    parts += [f"{key} {value:,}" for key, value in report.limits.items() if key in COST_LIMITS]
    if report.comparison is not None and any(v.limit in ("parse-error", "unread") for v in report.violations):
        parts.append(f"every file counted at {report.comparison.ref} still read")
    return parts


def signed_money(value: float | None) -> str:
    """``+$1.20``, ``-$0.05``, ``$0``; empty when unknown (no price on either side)."""
    if value is None:
        return ""
    if abs(value) < 0.00005:
        return "$0"
    return ("+" if value > 0 else "-") + money(abs(value))


def unmeasured_change(report: CostReport) -> str:
    """With ``--compare``, the requests whose counts are lower bounds, in a sentence: a change
    in what ctxlint cannot read is not in the delta (empty when there are none)."""
    floors = [r for r in report.requests if r.lower_bound]
    if report.comparison is None or not floors:
        return ""
    send = "sends" if len(floors) == 1 else "send"
    return (f"≥ {plural(len(floors), 'request')} {send} values ctxlint cannot read ({where(floors)}): "
            "a change in those values is not measured.")


def dollar_change(report: CostReport) -> str:
    """The change of the input price in a sentence (``--compare``), or empty when unpriced."""
    c = report.comparison
    if c is None or c.price_delta is None:
        return ""
    return (f"Input price per 1,000 calls of each request: {money(c.price_before or 0.0)} at {c.ref}, "
            f"{money(c.price_after or 0.0)} now ({signed_money(c.price_delta)}).")
