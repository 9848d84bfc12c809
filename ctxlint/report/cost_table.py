"""`ctxlint cost` as aligned terminal tables: requests, tools per request, changes, limits.

Numbers are right-aligned with thousands separators; ``~`` marks an estimate (a model or a
request shape without published counts to reproduce), and the notes under the tables say why.
The input price is the headline; caching is priced only where the provider's rules apply
(``—`` elsewhere, with the reason in the notes); output is priced apart, as an upper bound.
With ``--model A,B`` the requests are priced side by side, one column group per model.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlint.analysis.accounting import RequestCost
from ctxlint.cost import (
    CostReport,
    FileCost,
    cache_notes,
    label,
    limits_text,
    money,
    percent_change,
    share,
    signed,
    summary,
    tokens,
    what_if_lines,
    where,
)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str, indent: str = "",
          groups: Sequence[tuple[str, int]] = ()) -> list[str]:
    """Rows padded to their widest cell: ``align`` has ``l`` or ``r`` per column. ``groups``
    puts a title over runs of columns (title, number of columns)."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    if groups:  # a group title wider than its columns widens the last of them
        start = 0
        for title, span in groups:
            inner = sum(widths[start:start + span]) + 2 * (span - 1)
            if len(title) > inner:
                widths[start + span - 1] += len(title) - inner
            start += span

    def line(cells: Sequence[str]) -> str:
        parts = [str(c).rjust(w) if a == "r" else str(c).ljust(w)
                 for c, w, a in zip(cells, widths, align, strict=False)]
        return (indent + "  ".join(parts)).rstrip()

    out = []
    if groups:
        cells, start = [], 0
        for title, span in groups:
            inner = sum(widths[start:start + span]) + 2 * (span - 1)
            cells.append(title.center(inner) if title else " " * inner)
            start += span
        out.append((indent + "  ".join(cells)).rstrip())
    return [*out, line(headers), *(line(r) for r in rows)]


def _output(r: RequestCost) -> str:
    bound = r.pricing.output_bound
    return "n/a" if bound is None else money(bound)


def _cached(r: RequestCost) -> str:
    return "—" if r.pricing.cached_input is None else money(r.pricing.cached_input)


def render(report: CostReport) -> str:
    out: list[str] = []
    comparison = report.comparison
    if not report.files:
        out += summary(report)
    elif report.what_if:
        out += _what_if(report)
    else:
        out += _requests(report)
        out.append("")
        out += summary(report)
        out += _tools(report)
    if report.set_aside:
        out.append("")
        out += _set_aside(report.set_aside)
    if comparison is not None:
        out.append("")
        out += _changes(report)
    notes = _notes(report)
    if notes:
        out.append("")
        out.append("Notes")
        out += [f"  {n}" for n in notes]
    if report.gated:
        out.append("")
        out += _limits(report)
    return "\n".join(out) + "\n"


def _requests(report: CostReport) -> list[str]:
    comparison = report.comparison
    expected = any(r.pricing.expected_output is not None for r in report.requests)
    headers = ["request", "model", "tools", "system", "messages", "input"]
    align = "llrrrr"
    if comparison is not None:
        headers.append("Δ input")
        align += "r"
    headers += ["window", "cacheable", "cached", "input $/1k", "cached $/1k", "output ≤ $/1k"]
    align += "rrrrrr"
    if expected:
        headers.append("expected $/1k")
        align += "r"
    rows = []
    for f in report.counted:
        for index, r in enumerate(f.requests):
            ex = r.exact
            row = [label(r), r.model, tokens(r.tools, ex), tokens(r.system, ex), tokens(r.messages, ex),
                   tokens(r.total_input, ex)]
            if comparison is not None:
                change = comparison.request(f.path, index)
                row.append("new" if change is None or change.before is None else signed(change.delta))
            row += [share(r.window_share), tokens(r.cacheable_prefix, ex),
                    f"{r.pricing.cached_tokens:,}" if r.pricing.cached_input is not None else "—",
                    money(r.pricing.input), _cached(r), _output(r)]
            if expected:
                row.append(money(r.pricing.expected_output))
            rows.append(row)
    t = report.totals
    requests = report.requests
    total = ["total", "", f"{t.tool_tokens:,}", f"{sum(r.system for r in requests):,}",
             f"{sum(r.messages for r in requests):,}", f"{t.input_tokens:,}"]
    if comparison is not None:
        total.append(signed(comparison.delta))
    total += ["", "", "", money(t.input_price), money(t.cached_price), money(t.output_bound)]
    if expected:
        total.append(money(t.expected_output))
    rows.append(total)
    return table(headers, rows, align)


def _what_if(report: CostReport) -> list[str]:
    """The requests priced under each ``--model``, side by side."""
    models = report.what_if
    headers = ["request"]
    align = "l"
    groups: list[tuple[str, int]] = [("", 1)]
    for model in models:
        headers += ["input", "input $/1k", "cached $/1k", "output ≤ $/1k"]
        align += "rrrr"
        groups.append((model, 4))
    rows = []
    for f in report.counted:
        for costs in f.what_if:
            row = [label(costs[0])]
            for r in costs:
                row += [tokens(r.total_input, r.exact), money(r.pricing.input), _cached(r), _output(r)]
            rows.append(row)
    total = ["total"]
    for i in range(len(models)):
        t = report.totals_for(i)
        total += [f"{t.input_tokens:,}", money(t.input_price), money(t.cached_price), money(t.output_bound)]
    rows.append(total)
    out = table(headers, rows, align, groups=groups)
    out.append("")
    out += summary(report, report.totals_for(0))[:1]
    out += [f"  {line}" for line in what_if_lines(report)]
    # Tools, side by side.
    for f in report.counted:
        for costs in f.what_if:
            if not costs[0].tool_costs:
                continue
            out.append("")
            out.append(f"Tools of {label(costs[0])} ({len(costs[0].tool_costs)} tools)")
            headers = ["tool", *models]
            rows = []
            for i, tool in enumerate(costs[0].tool_costs):
                rows.append([tool.name or "(unnamed)", *(tokens(r.tool_costs[i].tokens, r.exact) for r in costs)])
            rows.append(["all, with overhead", *(tokens(r.tools, r.exact) for r in costs)])
            out += table(headers, rows, "l" + "r" * len(models), indent="  ")
    return out


def _tools(report: CostReport) -> list[str]:
    comparison = report.comparison
    out: list[str] = []
    for f in report.counted:
        for index, r in enumerate(f.requests):
            if not r.tool_costs:
                continue
            ex = r.exact
            overhead = r.tools - sum(c.tokens for c in r.tool_costs)
            extra = f", {tokens(overhead, ex)} of tool-use overhead" if overhead > 0 else ""
            out.append("")
            n = len(r.tool_costs)
            out.append(f"Tools of {label(r)} ({r.model}, {n} tool{'s' if n != 1 else ''}, "
                       f"{tokens(r.tools, ex)} tokens{extra})")
            change = comparison.request(f.path, index) if comparison is not None else None
            deltas: dict[str, str] = {}
            if change is not None:
                for tc in change.tools:
                    deltas.setdefault(tc.name, "new" if tc.before is None else signed(tc.delta))
            headers = ["tool", "tokens", "share", "biggest field", "field tokens"]
            if comparison is not None:
                headers.append("Δ")
            rows = []
            for c in sorted(r.tool_costs, key=lambda c: (-c.tokens, c.name)):
                row = [c.name or "(unnamed)", tokens(c.tokens, ex), share(c.share), c.biggest_field,
                       tokens(c.biggest_field_tokens, ex)]
                if comparison is not None:
                    row.append(deltas.get(c.name, "0"))
                rows.append(row)
            out += table(headers, rows, "lrrlrr", indent="  ")
    return out


def _set_aside(files: Sequence[FileCost]) -> list[str]:
    rows = [[f.path, f.set_aside, f"{len(f.requests):,}", f"{f.tokens:,}"] for f in files]
    return ["Kept out of the totals (--include-set-aside counts them)",
            *table(["file", "why", "requests", "input"], rows, "llrr", indent="  ")]


def _changes(report: CostReport) -> list[str]:
    c = report.comparison
    assert c is not None
    out = [f"Changes against {c.ref} ({c.short_commit})"]
    rows = []
    for f in c.changed:
        rows.append([f.path, f.status, _n(f.before), _n(f.after), signed(f.delta), percent_change(f.before, f.after)])
        for r in f.requests:
            if r.status == "unchanged":
                continue
            rows.append([f"  request at line {r.line}", r.status, _n(r.before), _n(r.after), signed(r.delta),
                         percent_change(r.before, r.after)])
            for tool in r.changed_tools:
                rows.append([f"    tool {tool.name or '(unnamed)'}", tool.status, _n(tool.before), _n(tool.after),
                             signed(tool.delta), percent_change(tool.before, tool.after)])
    if not rows:
        out.append("  no change in any request")
    pct = f"{c.percent:+.1f}%" if c.percent is not None else ""
    rows.append(["total", "", f"{c.before:,}", f"{c.after:,}", signed(c.delta), pct])
    return out + table(["file", "status", "before", "after", "delta", "%"], rows, "llrrrr", indent="  ")


def _limits(report: CostReport) -> list[str]:
    checked = ", ".join(limits_text(report))
    if report.passed:
        return [f"Limits: passed ({checked})."]
    out = [f"Limits: FAILED ({checked})"]
    for v in report.violations:
        place = f"{v.where}: " if v.where else ""
        out.append(f"  {place}{v.message}")
    return out


def _notes(report: CostReport) -> list[str]:
    """Each distinct request note once, with the requests it applies to; then why caching does
    not apply; then file problems."""
    out = []
    for note, requests in report.notes().items():
        marker = "~ " if any(not r.exact for r in requests) else ""
        out.append(f"{marker}{note} ({where(requests)})")
    configured = [r for r in report.requests if r.model_from == "config"]
    if configured:
        out.append(f"the config's `model` ({configured[0].model}) prices what names no model ({where(configured)})")
    for note, requests in cache_notes(report).items():
        out.append(f"no prompt caching: {note} ({where(requests)})")
    for f in report.files:
        for error in f.errors:
            out.append(f"not counted: {f.path}:{error} (see `ctxlint check`)")
    return out


def _n(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"
