"""`ctxlint cost --format markdown`: a report to post as a pull-request comment.

A summary line first (tokens, price, and with ``--compare`` the change and whether the limits
hold), then what changed per file, request and tool, then one table per request showing where
its tokens go, with its tools in a collapsible ``<details>`` block. When comparing, requests the
change did not touch are folded away so the comment shows what the pull request did.
"""

from __future__ import annotations

from ctxlint.analysis.accounting import RequestCost
from ctxlint.cost import (
    Comparison,
    CostReport,
    RequestChange,
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


def render(report: CostReport) -> str:
    out = ["## ctxlint cost", ""]
    out += _summary(report)
    comparison = report.comparison
    if comparison is not None:
        out += ["", f"### Changes against `{comparison.ref}`", ""]
        out += _changes(comparison)
    if report.what_if and report.counted:
        out += ["", "### Side by side", ""]
        out += _what_if(report)
    elif report.counted:
        out += ["", "### Requests", ""]
        touched: list[list[str]] = []
        untouched: list[list[str]] = []
        for f in report.counted:
            for index, r in enumerate(f.requests):
                change = comparison.request(f.path, index) if comparison is not None else None
                block = _request(r, change, comparison is not None)
                quiet = comparison is not None and change is not None and change.status == "unchanged" \
                    and not change.changed_tools
                (untouched if quiet else touched).append(block)
        for block in touched:
            out += block
        if untouched:
            n = len(untouched)
            out += [f"<details><summary>{n} request{'s' if n != 1 else ''} this change does not touch</summary>", ""]
            for block in untouched:
                out += block
            out += ["</details>", ""]
    if report.set_aside:
        out += ["", "### Kept out of the totals", "",
                "Test data, fixtures and templates that are not prompts (`--include-set-aside` counts them).", "",
                "| file | why | requests | input |", "|:--|:--|--:|--:|"]
        out += [f"| `{_code(f.path)}` | {_cell(f.set_aside)} | {len(f.requests):,} | {f.tokens:,} |"
                for f in report.set_aside]
    out += _footer(report)
    return "\n".join(out).rstrip("\n") + "\n"


def _summary(report: CostReport) -> list[str]:
    sentences = summary(report, report.totals_for(0) if report.what_if else None)
    lines = [f"**{_cell(sentences[0])}**" if report.counted else _cell(sentences[0])]
    lines += [_cell(s) for s in (what_if_lines(report) if report.what_if else sentences[1:])]
    lines = ["  \n".join(lines)] if len(lines) > 1 else lines
    c = report.comparison
    if c is not None:
        pct = f" ({c.percent:+.1f}%)" if c.percent is not None else ""
        lines += ["", f"Against `{c.ref}` (`{c.short_commit}`): **{signed(c.delta)} tokens**{pct}, "
                      f"from {c.before:,} to {c.after:,}."]
    if report.gated:
        checked = ", ".join(limits_text(report))
        if report.passed:
            lines += ["", f"✅ Within the limits ({checked})."]
        else:
            lines += ["", f"❌ **Over the limits** ({checked}):", ""]
            for v in report.violations:
                place = f"`{_code(v.where)}`: " if v.where else ""
                lines.append(f"- {place}{_cell(v.message)}")
    return lines


def _what_if(report: CostReport) -> list[str]:
    models = report.what_if
    head = "| request | " + " | ".join(f"{_cell(m)} input | $ / 1k | cached | output ≤" for m in models) + " |"
    rule = "|:--|" + "--:|--:|--:|--:|" * len(models)
    rows = [head, rule]
    for f in report.counted:
        for costs in f.what_if:
            cells = []
            for r in costs:
                cached = "—" if r.pricing.cached_input is None else money(r.pricing.cached_input)
                cells += [tokens(r.total_input, r.exact), money(r.pricing.input), cached, money(r.pricing.output_bound)]
            rows.append(f"| `{_code(label(costs[0]))}` | " + " | ".join(cells) + " |")
    total = []
    for i in range(len(models)):
        t = report.totals_for(i)
        total += [f"**{t.input_tokens:,}**", f"**{money(t.input_price)}**",
                  money(t.cached_price), money(t.output_bound)]
    rows.append("| **total** | " + " | ".join(total) + " |")
    for f in report.counted:
        for costs in f.what_if:
            if not costs[0].tool_costs:
                continue
            rows += ["", f"<details><summary>Tools of <code>{_html(label(costs[0]))}</code></summary>", "",
                     "| tool | " + " | ".join(_cell(m) for m in models) + " |", "|:--|" + "--:|" * len(models)]
            for i, tool in enumerate(costs[0].tool_costs):
                rows.append(f"| `{_code(tool.name or '(unnamed)')}` | "
                            + " | ".join(tokens(r.tool_costs[i].tokens, r.exact) for r in costs) + " |")
            rows.append("| all, with overhead | " + " | ".join(tokens(r.tools, r.exact) for r in costs) + " |")
            rows += ["", "</details>"]
    return rows


def _changes(c: Comparison) -> list[str]:
    changed = c.changed
    if not changed:
        return ["No request changed."]
    rows = ["| file / request / tool | status | before | after | Δ tokens |", "|:--|:--|--:|--:|--:|"]
    for f in changed:
        rows.append(f"| `{_code(f.path)}` | {f.status} | {_n(f.before)} | {_n(f.after)} | "
                    f"{_join(f'**{signed(f.delta)}**', _pct(f.before, f.after))} |")
        for r in f.requests:
            if r.status == "unchanged":
                continue
            rows.append(f"| ↳ request at line {r.line} | {r.status} | {_n(r.before)} | {_n(r.after)} | "
                        f"{_join(signed(r.delta), _pct(r.before, r.after))} |")
            for t in r.changed_tools:
                rows.append(f"| &nbsp;&nbsp;↳ tool `{_code(t.name or '(unnamed)')}` | {t.status} | {_n(t.before)} | "
                            f"{_n(t.after)} | {_join(signed(t.delta), _pct(t.before, t.after))} |")
    pct = f" ({c.percent:+.1f}%)" if c.percent is not None else ""
    rows.append(f"| **total** | | {c.before:,} | {c.after:,} | **{signed(c.delta)}**{pct} |")
    return rows


def _request(r: RequestCost, change: RequestChange | None, comparing: bool) -> list[str]:
    ex = r.exact
    kind = "exact" if ex else "**estimate**"
    out = [f"#### `{_code(label(r))}` · {_cell(r.model)} · {r.encoding} · {kind}", ""]
    head = "| tools | system | messages | input |"
    rule = "|--:|--:|--:|--:|"
    row = (f"| {tokens(r.tools, ex)} | {tokens(r.system, ex)} | {tokens(r.messages, ex)} | "
           f"**{tokens(r.total_input, ex)}** |")
    if comparing:
        head += " Δ input |"
        rule += "--:|"
        row += f" {'new' if change is None or change.before is None else signed(change.delta)} |"
    p = r.pricing
    head += " window | cached tokens | input $ / 1k | cached $ / 1k | output ≤ $ / 1k |"
    rule += "--:|--:|--:|--:|--:|"
    cached = "—" if p.cached_input is None else money(p.cached_input)
    row += (f" {share(r.window_share)} | {p.cached_tokens:,} | {money(p.input)} | {cached} | "
            f"{money(p.output_bound)} |")
    out += [head, rule, row]
    notes = [n for n in (r.note, f"no prompt caching: {p.cache_note}" if p.cached_input is None and p.cache_note
                         else "") if n]
    if notes:
        out += ["", f"<sub>{_cell('; '.join(notes))}</sub>"]
    out.append("")
    if r.tool_costs:
        biggest = max(r.tool_costs, key=lambda c: c.tokens)
        n = len(r.tool_costs)
        deltas: dict[str, str] = {}
        if change is not None:
            for tc in change.tools:
                deltas.setdefault(tc.name, "new" if tc.before is None else signed(tc.delta))
        out += [f"<details><summary>{n} tool{'s' if n != 1 else ''}, {tokens(r.tools, ex)} tokens; "
                f"biggest: <code>{_html(biggest.name or '(unnamed)')}</code> "
                f"({tokens(biggest.tokens, ex)})</summary>", ""]
        head = "| tool | tokens | share | biggest field | field tokens |"
        rule = "|:--|--:|--:|:--|--:|"
        if comparing:
            head += " Δ |"
            rule += "--:|"
        out += [head, rule]
        for c in sorted(r.tool_costs, key=lambda c: (-c.tokens, c.name)):
            row = (f"| `{_code(c.name or '(unnamed)')}` | {tokens(c.tokens, ex)} | {share(c.share)} | "
                   f"`{_code(c.biggest_field)}` | {tokens(c.biggest_field_tokens, ex)} |")
            if comparing:
                row += f" {deltas.get(c.name, '0')} |"
            out.append(row)
        overhead = r.tools - sum(c.tokens for c in r.tool_costs)
        if overhead > 0:
            out += ["", f"Plus {tokens(overhead, ex)} tokens of tool-use overhead per request."]
        out += ["", "</details>", ""]
    return out


def _footer(report: CostReport) -> list[str]:
    out = []
    errors = [(f.path, e) for f in report.files for e in f.errors]
    if errors:
        out += ["", "Not counted (parse errors; see `ctxlint check`):", ""]
        for path, error in errors:
            place, _, message = error.partition(": ")
            out.append(f"- `{_code(path + ':' + place)}` {_cell(message)}")
    if report.what_if:
        notes = [f"{note} ({where(requests)})" for note, requests in report.notes().items()]
        if notes:
            out += ["", "Notes:", ""] + [f"- {_cell(n)}" for n in notes]
    if report.counted:
        out += ["", "<sub>Input is tools + system + messages + the reply priming and tool_choice the provider adds. "
                    "Variable content (slots) counts as 0: these are the tokens every call sends before any. "
                    "~ marks estimates; an exact count reproduces published API counts.</sub>"]
    if report.models:
        sources = "; ".join(f"{m.name}: {m.source}" + (f" ({m.as_of})" if m.as_of else "") for m in report.models)
        out += ["", f"<sub>Prices in USD per 1,000 calls: the input at the input price, with caching only where "
                    f"the provider's rules apply; output apart, at most the output limit. Model table: "
                    f"{_html(sources)}.</sub>"]
    return out


def _pct(before: int | None, after: int | None) -> str:
    text = percent_change(before, after)
    return f"({text})" if text else ""


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _n(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _cell(text: str) -> str:
    """Text safe inside a table cell or a list item: one line, no column breaks, no raw HTML."""
    return _html(" ".join(text.split())).replace("|", "\\|")


def _code(text: str) -> str:
    """Text for inside single backticks (a backtick would end the span)."""
    return " ".join(text.split()).replace("`", "'").replace("|", "\\|")


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
