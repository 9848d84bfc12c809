"""`ctxlint cost` as aligned terminal tables: requests, tools per request, changes, limits.

Numbers are right-aligned with thousands separators; ``~`` marks an estimate (a provider that
publishes no tokenizer, or a schema beyond the published formula), and the notes under the
tables say which encoding counted it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlint.cost import CostReport, label, limits_text, money, percent_change, share, signed, tokens


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str, indent: str = "") -> list[str]:
    """Rows padded to their widest cell: ``align`` has ``l`` or ``r`` per column."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        parts = [str(c).rjust(w) if a == "r" else str(c).ljust(w) for c, w, a in zip(cells, widths, align)]
        return (indent + "  ".join(parts)).rstrip()

    return [line(headers), *(line(r) for r in rows)]


def render(report: CostReport) -> str:
    out: list[str] = []
    t = report.totals
    comparison = report.comparison
    if not report.files:
        out.append("No requests found: no prompt template, request or tool file among the files given.")
    else:
        headers = ["request", "model", "encoding", "tools", "system", "messages", "input"]
        align = "lllrrrr"
        if comparison is not None:
            headers.append("Δ input")
            align += "r"
        headers += ["reserve", "window", "cacheable", "$/1k calls", "cached"]
        align += "rrrrr"
        rows = []
        for f in report.files:
            for index, r in enumerate(f.requests):
                ex = r.exact
                row = [label(r), r.model, r.encoding, tokens(r.tools, ex), tokens(r.system, ex),
                       tokens(r.messages, ex), tokens(r.total_input, ex)]
                if comparison is not None:
                    change = comparison.request(f.path, index)
                    row.append("new" if change is None or change.before is None else signed(change.delta))
                row += [f"{r.reserve:,}", share(r.window_share), tokens(r.cacheable_prefix, ex),
                        money(r.price_per_1k_calls), money(r.price_per_1k_calls_cached)]
                rows.append(row)
        total = ["total", "", "", f"{t.tool_tokens:,}", f"{sum(r.system for r in report.requests):,}",
                 f"{sum(r.messages for r in report.requests):,}", f"{t.input_tokens:,}"]
        if comparison is not None:
            total.append(signed(comparison.delta))
        total += [f"{t.reserve:,}", "", "", money(t.price_per_1k_calls), money(t.price_per_1k_calls_cached)]
        rows.append(total)
        out += table(headers, rows, align)
        out.append("")
        out.append(_summary(report))

        for f in report.files:
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
                deltas = {}
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


def _summary(report: CostReport) -> str:
    t = report.totals
    parts = [f"{t.requests} request{'s' if t.requests != 1 else ''} in {t.files} file{'s' if t.files != 1 else ''}",
             f"{t.input_tokens:,} input tokens"
             + (f" ({t.tool_tokens:,} in {t.tools} tool definitions)" if t.tools else "")]
    if t.reserve:
        parts.append(f"{t.reserve:,} reserved for output")
    if t.price_per_1k_calls is not None:
        parts.append(f"{money(t.price_per_1k_calls)} per 1,000 calls of each, "
                     f"{money(t.price_per_1k_calls_cached)} with prompt caching")
    line = "Total: " + " · ".join(parts)
    if t.unpriced_requests:
        line += f" ({t.unpriced_requests} without a known price left out)"
    if t.estimated_requests:
        line += f". ~ marks estimates ({t.estimated_requests} request{'s' if t.estimated_requests != 1 else ''})"
    return line + "."


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
        where = f"{v.path}:{v.line}: " if v.path else ""
        out.append(f"  {where}{v.message}")
    return out


def _notes(report: CostReport) -> list[str]:
    """Each distinct request note once, with the requests it applies to; then file problems."""
    out = []
    for note, requests in report.notes().items():
        marker = "~ " if any(not r.exact for r in requests) else ""
        place = ", ".join(label(r) for r in requests) if len(requests) <= 3 else f"{len(requests)} requests"
        out.append(f"{marker}{note} ({place})")
    for f in report.files:
        for error in f.errors:
            out.append(f"not counted: {f.path}:{error} (see `ctxlint check`)")
    return out


def _n(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"
