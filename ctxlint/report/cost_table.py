"""`ctxlint cost` as aligned terminal tables: requests, tools per request, changes, limits.

Numbers are right-aligned with thousands separators; ``~`` marks an estimate (a model or a
request shape without published counts to reproduce), and the notes under the tables say why.
The input price is the headline; caching is priced only where the provider's rules apply
(``—`` elsewhere, with the reason in the notes); output is priced apart, as an upper bound.
With ``--model A,B`` the requests are priced side by side, one column group per model.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from ctxlint.analysis.accounting import RequestCost
from ctxlint.cost import CostReport, FileCost
from ctxlint.cost import text as words

DEFAULT_WIDTH = 100  # columns: what a report written to a file or a pipe fits


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str, indent: str = "",
          groups: Sequence[tuple[str, int]] = ()) -> list[str]:
    """Rows padded to their widest cell: ``align`` has ``l`` or ``r`` per column. ``groups``
    puts a title over runs of columns (title, number of columns)."""
    return fit(headers, rows, align, indent, groups, widen=True)[0]


def fit(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str, indent: str = "",
        groups: Sequence[tuple[str, int]] = (), width: int | None = None,
        ranks: Sequence[int] = (), widen: bool = False) -> tuple[list[str], list[str]]:
    """A table that fits ``width`` columns (None: any), and the headers it left out.

    Columns with the highest ``ranks`` are dropped first (0: never); when what is left is still
    too wide, a first cell longer than its share goes on a line of its own, the row's other
    cells on the next (folded). ``groups`` titles runs of columns, as in :func:`table`; a title
    is cut to the columns under it, unless ``widen`` lets it widen them (a model's name).
    """
    keep = list(range(len(headers)))
    titles = [title for title, span in groups for _ in range(span)]

    def widths(columns: list[int]) -> list[int]:
        out = [max(len(str(row[i])) for row in [headers, *rows]) for i in columns]
        start = 0
        for k in range(len(columns) if widen and titles else 0):  # a group's last column takes what its title needs
            if k + 1 == len(columns) or titles[columns[k + 1]] != titles[columns[k]]:
                inner = sum(out[start:k + 1]) + 2 * (k - start)
                out[k] += max(0, len(titles[columns[k]]) - inner)
                start = k + 1
        return out

    def total(columns: list[int]) -> int:
        return len(indent) + sum(widths(columns)) + 2 * (len(columns) - 1)

    dropped = []
    if width is not None and ranks:
        while total(keep) > width:
            candidates = [ranks[i] for i in keep if ranks[i]]
            if not candidates:
                break
            worst = max(candidates)  # every column of that rank at once (one per model side by side)
            dropped += [headers[i] for i in keep if ranks[i] == worst]
            keep = [i for i in keep if ranks[i] != worst]
    sizes = widths(keep)
    fold = None  # the first column's width when its longest cells go on their own line
    if width is not None and total(keep) > width and len(keep) > 1:
        fold = max(12, width - (total(keep) - sizes[0]))
        sizes[0] = min(sizes[0], fold)

    def line(cells: Sequence[str]) -> str:
        parts = [str(c).rjust(w) if a == "r" else str(c).ljust(w)
                 for c, w, a in zip(cells, sizes, [align[i] for i in keep], strict=False)]
        return (indent + "  ".join(parts)).rstrip()

    out = []
    if titles:
        cells, k = [], 0
        while k < len(keep):  # consecutive kept columns under one title share it
            m = k
            while m + 1 < len(keep) and titles[keep[m + 1]] == titles[keep[k]]:
                m += 1
            inner = sum(sizes[k:m + 1]) + 2 * (m - k)
            title = titles[keep[k]]  # cut to its columns (or left out): a title never widens them
            if len(title) > inner:
                title = title[:inner - 1] + "…" if inner >= 10 else ""
            cells.append(title.center(inner))
            k = m + 1
        out.append((indent + "  ".join(cells)).rstrip())
    out.append(line([headers[i] for i in keep]))
    for row in rows:
        cells = [str(row[i]) for i in keep]
        if fold is not None and len(cells[0]) > fold:
            room = max(1, (width or 0) - len(indent))
            out += [(indent + cells[0][i:i + room]).rstrip() for i in range(0, len(cells[0]), room)]
            cells[0] = ""
        out.append(line(cells))
    return out, dropped


def wrapped(text: str, width: int, indent: str = "", more: str = "    ") -> list[str]:
    """``text`` wrapped to ``width`` columns, its first line at ``indent``, the rest at ``more``."""
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + more,
                         break_on_hyphens=False) or [indent.rstrip()]  # only a word wider than a line breaks


def left_out(dropped: Sequence[str], width: int) -> list[str]:
    if not dropped:
        return []
    return wrapped(f"Left out at {width} columns: {', '.join(dropped)} (a wider terminal shows them, as do "
                   "--output-format json, markdown and html).", width, more="")


def _output(r: RequestCost) -> str:
    bound = r.pricing.output_bound
    return "n/a" if bound is None else words.money(bound)


def _cached(r: RequestCost) -> str:
    return "—" if r.pricing.cached_input is None else words.money(r.pricing.cached_input)


def render(report: CostReport, width: int = DEFAULT_WIDTH) -> str:
    """The report in ``width`` columns: the tables drop or fold columns to fit, text wraps."""
    out: list[str] = []
    comparison = report.comparison
    if not report.files:
        out += _sentences(words.summary(report), width)
    elif report.what_if:
        out += _what_if(report, width)
    else:
        out += _requests(report, width)
        out.append("")
        out += _sentences(words.summary(report), width)
        out += _tools(report, width)
    if report.set_aside:
        out.append("")
        out += _set_aside(report.set_aside)
    if comparison is not None:
        out.append("")
        out += _changes(report, width)
    notes = _notes(report)
    if notes:
        out.append("")
        out.append("Notes")
        out += [line for note in notes for line in wrapped(note, width, "  ")]
    if report.gated:
        out.append("")
        out += _limits(report, width)
    return "\n".join(out) + "\n"


def _sentences(lines: Sequence[str], width: int) -> list[str]:
    return [wrapped_line for line in lines for wrapped_line in wrapped(line, width, more="")]


# Which columns of the requests table go first when the terminal is narrow (0: never).
_DROP = {"model": 3, "tools": 6, "system": 7, "messages": 8, "window": 9, "cacheable": 10, "cached": 11,
         "cached $": 5, "output ≤ $": 4, "expected $": 2}
PRICES = "$ per 1,000 calls"  # the title over the price columns


def _requests(report: CostReport, width: int) -> list[str]:
    comparison = report.comparison
    expected = any(r.pricing.expected_output is not None for r in report.requests)
    headers = ["request", "model", "tools", "system", "messages", "input"]
    align = "llrrrr"
    if comparison is not None:
        headers.append("Δ input")
        align += "r"
    headers += ["window", "cacheable", "cached"]
    prices = ["input $", "cached $", "output ≤ $"] + (["expected $"] if expected else [])
    groups = [("", len(headers)), (PRICES, len(prices))]
    headers += prices
    align += "rrr" + "r" * len(prices)
    rows = []
    for f in report.counted:
        for index, r in enumerate(f.requests):
            row = [words.label(r), r.model, words.counted(r.tools, r), words.counted(r.system, r),
                   words.counted(r.messages, r), words.counted(r.total_input, r)]
            if comparison is not None:
                change = comparison.request(f.path, index)
                row.append("new" if change is None or change.before is None else words.signed(change.delta))
            row += [words.share(r.window_share), words.counted(r.cacheable_prefix, r),
                    f"{r.pricing.cached_tokens:,}" if r.pricing.cached_input is not None else "—",
                    words.money(r.pricing.input), _cached(r), _output(r)]
            if expected:
                row.append(words.money(r.pricing.expected_output))
            rows.append(row)
    t = report.totals
    total = ["total", "", *words.total_counts(t, report.requests)]
    if comparison is not None:
        total.append(words.signed(comparison.delta))
    total += ["", "", "", words.money(t.input_price), words.money(t.cached_price), _bound(t.output_bound, report)]
    if expected:
        total.append(words.money(t.expected_output))
    rows.append(total)
    lines, dropped = fit(headers, rows, align, groups=groups, width=width, ranks=[_DROP.get(h, 0) for h in headers])
    return lines + left_out(dropped, width)


def _bound(value: float | None, report: CostReport) -> str:
    """The total output bound: ``∞`` when a request sets no limit on a model whose maximum is unknown."""
    if any(r.pricing.output_bound_tokens is None for r in report.requests):
        return "∞"
    return words.money(value)


def _what_if(report: CostReport, width: int) -> list[str]:
    """The requests priced under each ``--model``, side by side."""
    models = report.what_if
    headers = ["request"]
    align = "l"
    groups: list[tuple[str, int]] = [("", 1)]
    ranks = [0]
    for model in models:
        headers += ["input", "input $", "cached $", "output ≤ $"]
        align += "rrrr"
        ranks += [0, 0, 2, 1]
        groups.append((model, 4))
    rows = []
    for f in report.counted:
        for costs in f.what_if:
            row = [words.label(costs[0])]
            for r in costs:
                row += [words.counted(r.total_input, r), words.money(r.pricing.input), _cached(r), _output(r)]
            rows.append(row)
    total = ["total"]
    for i in range(len(models)):
        t = report.totals_for(i)
        total += [f"{t.input_tokens:,}", words.money(t.input_price), words.money(t.cached_price),
                  words.money(t.output_bound)]
    rows.append(total)
    out, dropped = fit(headers, rows, align, groups=groups, width=width, ranks=ranks, widen=True)
    out += left_out(list(dict.fromkeys(dropped)), width)
    out.append("")
    out += _sentences(words.summary(report, report.totals_for(0))[:1], width)
    out += [line for text in words.what_if_lines(report) for line in wrapped(text, width, "  ")]
    # Tools, side by side.
    for table in words.tool_tables(report):
        out.append("")
        out.append(f"Tools of {words.label(table.request)} ({len(table.rows)} tools)")
        rows = [[name, *counts] for name, counts in table.rows] + [["all, with overhead", *table.total]]
        out += fit(["tool", *models], rows, "l" + "r" * len(models), indent="  ", width=width)[0]
    return out


def _tools(report: CostReport, width: int) -> list[str]:
    comparison = report.comparison
    out: list[str] = []
    for f in report.counted:
        for index, r in enumerate(f.requests):
            if not r.tool_costs:
                continue
            overhead = r.tools - sum(c.tokens for c in r.tool_costs)
            extra = f", {words.counted(overhead, r)} of tool-use overhead" if overhead > 0 else ""
            out.append("")
            n = len(r.tool_costs)
            out += wrapped(f"Tools of {words.label(r)} ({r.model}, {n} tool{'s' if n != 1 else ''}, "
                           f"{words.counted(r.tools, r)} tokens{extra})", width)
            change = comparison.request(f.path, index) if comparison is not None else None
            deltas: dict[str, str] = {}
            if change is not None:
                for tc in change.tools:
                    deltas.setdefault(tc.name, "new" if tc.before is None else words.signed(tc.delta))
            headers = ["tool", "tokens", "share", "biggest field", "field tokens"]
            if comparison is not None:
                headers.append("Δ")
            rows = []
            for c in sorted(r.tool_costs, key=lambda c: (-c.tokens, c.name)):
                row = [c.name or "(unnamed)", words.counted(c.tokens, r), words.share(c.share), c.biggest_field,
                       words.counted(c.biggest_field_tokens, r)]
                if comparison is not None:
                    row.append(deltas.get(c.name, "0"))
                rows.append(row)
            out += fit(headers, rows, "lrrlrr", indent="  ", width=width)[0]
    return out


def _set_aside(files: Sequence[FileCost]) -> list[str]:
    rows = [[f.path, f.set_aside, f"{len(f.requests):,}", f"{f.tokens:,}"] for f in files]
    return ["Kept out of the totals (--include-set-aside counts them)",
            *table(["file", "why", "requests", "input"], rows, "llrr", indent="  ")]


def _changes(report: CostReport, width: int) -> list[str]:
    c = report.comparison
    assert c is not None
    out = [f"Changes against {c.ref} ({c.short_commit})"]
    rows = []
    for f in c.changed:
        rows.append([f.path, f.status, _n(f.before), _n(f.after), words.signed(f.delta),
                     words.percent_change(f.before, f.after), words.signed_money(f.price_delta)])
        for r in f.requests:
            if r.status == "unchanged":
                continue
            rows.append([f"  request at line {r.line}", r.status, _n(r.before), _n(r.after), words.signed(r.delta),
                         words.percent_change(r.before, r.after), words.signed_money(r.price_delta)])
            for tool in r.changed_tools:
                rows.append([f"    tool {tool.name or '(unnamed)'}", tool.status, _n(tool.before), _n(tool.after),
                             words.signed(tool.delta), words.percent_change(tool.before, tool.after), ""])
    if not rows:
        out.append("  no change in any request")
    pct = f"{c.percent:+.1f}%" if c.percent is not None else ""
    rows.append(["total", "", f"{c.before:,}", f"{c.after:,}", words.signed(c.delta), pct,
                 words.signed_money(c.price_delta)])
    out += fit(["file", "status", "before", "after", "delta", "%", "Δ $/1k"], rows, "llrrrrr", indent="  ",
               width=width)[0]
    money_delta = words.dollar_change(report)
    if money_delta:
        out += wrapped(money_delta, width, "  ")
    unmeasured = words.unmeasured_change(report)
    if unmeasured:
        out += wrapped(unmeasured, width, "  ")
    return out


def _limits(report: CostReport, width: int) -> list[str]:
    checked = ", ".join(words.limits_text(report))
    if report.passed:
        return wrapped(f"Limits: passed ({checked}).", width)
    out = wrapped(f"Limits: FAILED ({checked})", width)
    for v in report.violations:
        place = f"{v.where}: " if v.where else ""
        out += wrapped(f"{place}{v.message}", width, "  ")
    return out


def _notes(report: CostReport) -> list[str]:
    """Each distinct request note once, with the requests it applies to; then why caching does
    not apply; then file problems."""
    out = []
    for note, requests in report.notes().items():
        marker = "≥ " if any(r.lower_bound for r in requests) else "~ " if any(not r.exact for r in requests) else ""
        out.append(f"{marker}{note.removeprefix('≥ ')} ({words.where(requests)})")
    configured = [r for r in report.requests if r.model_from == "config"]
    if configured:
        out.append(f"the config's `model` ({configured[0].model}) prices what names no model "
                   f"({words.where(configured)})")
    for note, requests in words.cache_notes(report).items():
        out.append(f"no prompt caching: {note} ({words.where(requests)})")
    for f in report.files:
        for error in f.errors:
            out.append(f"not counted: {f.path}:{error} (see `ctxlint check`)")
    return out


def _n(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"
