"""`ctxlint cost --format markdown`: a report to post as a pull-request comment.

A summary line first (tokens, price, and with ``--compare`` the change and whether the limits
hold), then what changed per file, request and tool (tokens and dollars), then one table of every
request showing where its tokens go, its cacheable prefix and its prices, the notes, and each
request's tools in a collapsible ``<details>`` block. When comparing, requests the change did not
touch are folded away so the comment shows what the pull request did. An HTML comment on the
first line marks the report, so a workflow finds its earlier comment and updates it in place.
"""

from __future__ import annotations

from ctxlint.analysis.accounting import RequestCost
from ctxlint.cost import Comparison, CostReport, RequestChange
from ctxlint.cost import text as words

COMMENT_MARKER = "<!-- ctxlint-cost -->"


def render(report: CostReport) -> str:
    out = [COMMENT_MARKER, "## ctxlint cost", ""]
    out += _summary(report)
    comparison = report.comparison
    if comparison is not None:
        out += ["", f"### Changes against `{comparison.ref}`", ""]
        out += _changes(comparison)
        for sentence in (words.dollar_change(report), words.unmeasured_change(report)):
            if sentence:
                out += ["", _cell(sentence)]
    if report.what_if and report.counted:
        out += ["", "### Side by side", ""]
        out += _what_if(report)
    elif report.counted:
        out += ["", "### Requests", ""]
        touched: list[tuple[RequestCost, RequestChange | None]] = []
        untouched: list[tuple[RequestCost, RequestChange | None]] = []
        for f in report.counted:
            for index, r in enumerate(f.requests):
                change = comparison.request(f.path, index) if comparison is not None else None
                quiet = comparison is not None and change is not None and change.status == "unchanged" \
                    and not change.changed_tools
                (untouched if quiet else touched).append((r, change))
        out += _table(report, touched, comparison is not None)
        if untouched:
            n = len(untouched)
            out += ["", f"<details><summary>{n} request{'s' if n != 1 else ''} this change does not touch</summary>",
                    ""]
            out += _table(report, untouched, comparison is not None, totals=False)
            out += ["", "</details>"]
        notes = _notes(report)
        if notes:
            out += ["", "Notes:", ""] + [f"- {_cell(n)}" for n in notes]
        for r, change in touched + untouched:
            out += _tools(r, change, comparison is not None)
    if report.set_aside:
        out += ["", "### Kept out of the totals", "",
                "Test data, fixtures and templates that are not prompts (`--include-set-aside` counts them).", "",
                "| file | why | requests | input |", "|:--|:--|--:|--:|"]
        out += [f"| `{_code(f.path)}` | {_cell(f.set_aside)} | {len(f.requests):,} | {f.tokens:,} |"
                for f in report.set_aside]
    out += _footer(report)
    return "\n".join(out).rstrip("\n") + "\n"


def _summary(report: CostReport) -> list[str]:
    sentences = words.summary(report, report.totals_for(0) if report.what_if else None)
    lines = [f"**{_cell(sentences[0])}**" if report.counted else _cell(sentences[0])]
    lines += [_cell(s) for s in (words.what_if_lines(report) if report.what_if else sentences[1:])]
    lines = ["  \n".join(lines)] if len(lines) > 1 else lines
    c = report.comparison
    if c is not None:
        pct = f" ({c.percent:+.1f}%)" if c.percent is not None else ""
        lines += ["", f"Against `{c.ref}` (`{c.short_commit}`): **{words.signed(c.delta)} tokens**{pct}, "
                      f"from {c.before:,} to {c.after:,}."]
    if report.gated:
        checked = ", ".join(words.limits_text(report))
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
                cached = "—" if r.pricing.cached_input is None else words.money(r.pricing.cached_input)
                cells += [words.counted(r.total_input, r), words.money(r.pricing.input), cached,
                          words.money(r.pricing.output_bound)]
            rows.append(f"| `{_code(words.label(costs[0]))}` | " + " | ".join(cells) + " |")
    total = []
    for i in range(len(models)):
        t = report.totals_for(i)
        total += [f"**{t.input_tokens:,}**", f"**{words.money(t.input_price)}**",
                  words.money(t.cached_price), words.money(t.output_bound)]
    rows.append("| **total** | " + " | ".join(total) + " |")
    for table in words.tool_tables(report):
        rows += ["", f"<details><summary>Tools of <code>{_html(words.label(table.request))}</code></summary>", "",
                 "| tool | " + " | ".join(_cell(m) for m in models) + " |", "|:--|" + "--:|" * len(models)]
        rows += [f"| `{_code(name)}` | " + " | ".join(counts) + " |" for name, counts in table.rows]
        rows.append("| all, with overhead | " + " | ".join(table.total) + " |")
        rows += ["", "</details>"]
    return rows


def _changes(c: Comparison) -> list[str]:
    changed = c.changed
    if not changed:
        return ["No request changed."]
    rows = ["| file / request / tool | status | before | after | Δ tokens | Δ $ / 1k calls |",
            "|:--|:--|--:|--:|--:|--:|"]
    for f in changed:
        rows.append(f"| `{_code(f.path)}` | {f.status} | {_n(f.before)} | {_n(f.after)} | "
                    f"{_join(f'**{words.signed(f.delta)}**', _pct(f.before, f.after))} | "
                    f"{words.signed_money(f.price_delta)} |")
        for r in f.requests:
            if r.status == "unchanged":
                continue
            rows.append(f"| ↳ request at line {r.line} | {r.status} | {_n(r.before)} | {_n(r.after)} | "
                        f"{_join(words.signed(r.delta), _pct(r.before, r.after))} | "
                        f"{words.signed_money(r.price_delta)} |")
            for t in r.changed_tools:
                rows.append(f"| &nbsp;&nbsp;↳ tool `{_code(t.name or '(unnamed)')}` | {t.status} | {_n(t.before)} | "
                            f"{_n(t.after)} | {_join(words.signed(t.delta), _pct(t.before, t.after))} | |")
    pct = f" ({c.percent:+.1f}%)" if c.percent is not None else ""
    money_delta = words.signed_money(c.price_delta)
    rows.append(f"| **total** | | {c.before:,} | {c.after:,} | **{words.signed(c.delta)}**{pct} | "
                f"{f'**{money_delta}**' if money_delta else ''} |")
    return rows


def _table(report: CostReport, rows: list[tuple[RequestCost, RequestChange | None]], comparing: bool,
           totals: bool = True) -> list[str]:
    """Every request in one table: where its tokens go, its cacheable prefix, its prices."""
    head = "| request | model | tools | system | messages | input |"
    rule = "|:--|:--|--:|--:|--:|--:|"
    if comparing:
        head += " Δ input | Δ $ / 1k |"
        rule += "--:|--:|"
    head += " window | cacheable prefix | cached tokens | input $ / 1k | cached $ / 1k | output ≤ $ / 1k |"
    rule += "--:|--:|--:|--:|--:|--:|"
    out = [head, rule]
    for r, change in rows:
        p = r.pricing
        cells = [f"`{_code(words.label(r))}`", _cell(r.model), words.counted(r.tools, r), words.counted(r.system, r),
                 words.counted(r.messages, r), f"**{words.counted(r.total_input, r)}**"]
        if comparing:
            if change is None or change.before is None:
                cells += ["new", "new"]
            else:
                cells += [words.signed(change.delta), words.signed_money(change.price_delta)]
        cells += [words.share(r.window_share), words.counted(r.cacheable_prefix, r), f"{p.cached_tokens:,}",
                  words.money(p.input),
                  "—" if p.cached_input is None else words.money(p.cached_input),
                  "∞" if p.output_bound_tokens is None else words.money(p.output_bound)]
        out.append("| " + " | ".join(cells) + " |")
    if totals and len(rows) > 1:
        t = report.totals
        *counts, input_tokens = words.total_counts(t, [r for r, _ in rows])
        cells = ["**total**", "", *counts, f"**{input_tokens}**"]
        if comparing:
            c = report.comparison
            assert c is not None
            cells += [words.signed(c.delta), words.signed_money(c.price_delta)]
        cells += ["", "", "", f"**{words.money(t.input_price)}**", words.money(t.cached_price),
                  words.money(t.output_bound)]
        out.append("| " + " | ".join(cells) + " |")
    return out


def _notes(report: CostReport) -> list[str]:
    """What the counts rest on and why caching does not apply, each once, with its requests."""
    out = []
    for note, requests in report.notes().items():
        marker = "≥ " if any(r.lower_bound for r in requests) else "~ " if any(not r.exact for r in requests) else ""
        out.append(f"{marker}{note.removeprefix('≥ ')} ({words.where(requests)})")
    for note, requests in words.cache_notes(report).items():
        out.append(f"no prompt caching: {note} ({words.where(requests)})")
    return out


def _tools(r: RequestCost, change: RequestChange | None, comparing: bool) -> list[str]:
    """The request's tools, folded away: each one's tokens, share and costliest field."""
    if not r.tool_costs:
        return []
    biggest = max(r.tool_costs, key=lambda c: c.tokens)
    n = len(r.tool_costs)
    deltas: dict[str, str] = {}
    if change is not None:
        for tc in change.tools:
            deltas.setdefault(tc.name, "new" if tc.before is None else words.signed(tc.delta))
    out = ["", f"<details><summary>Tools of <code>{_html(words.label(r))}</code>: {n} tool{'s' if n != 1 else ''}, "
           f"{words.counted(r.tools, r)} tokens; biggest: <code>{_html(biggest.name or '(unnamed)')}</code> "
           f"({words.counted(biggest.tokens, r)})</summary>", ""]
    head = "| tool | tokens | share | biggest field | field tokens |"
    rule = "|:--|--:|--:|:--|--:|"
    if comparing:
        head += " Δ |"
        rule += "--:|"
    out += [head, rule]
    for c in sorted(r.tool_costs, key=lambda c: (-c.tokens, c.name)):
        row = (f"| `{_code(c.name or '(unnamed)')}` | {words.counted(c.tokens, r)} | {words.share(c.share)} | "
               f"`{_code(c.biggest_field)}` | {words.counted(c.biggest_field_tokens, r)} |")
        if comparing:
            row += f" {deltas.get(c.name, '0')} |"
        out.append(row)
    overhead = r.tools - sum(c.tokens for c in r.tool_costs)
    if overhead > 0:
        out += ["", f"Plus {words.counted(overhead, r)} tokens of tool-use overhead per request."]
    out += ["", "</details>"]
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
        notes = [f"{note} ({words.where(requests)})" for note, requests in report.notes().items()]
        if notes:
            out += ["", "Notes:", ""] + [f"- {_cell(n)}" for n in notes]
    if report.counted:
        out += ["", "<sub>Input is tools + system + messages + the reply priming and tool_choice the provider adds. "
                    "Variable content (slots) counts as 0: these are the tokens every call sends before any. "
                    "~ marks estimates, ≥ lower bounds (values ctxlint cannot read); an exact count reproduces "
                    "published API counts.</sub>"]
    if report.models:
        sources = "; ".join(f"{m.name}: {m.source}" + (f" ({m.as_of})" if m.as_of else "") for m in report.models)
        out += ["", f"<sub>Prices in USD per 1,000 calls: the input at the input price, with caching only where "
                    f"the provider's rules apply; output apart, at most the output limit. Model table: "
                    f"{_html(sources)}.</sub>"]
    return out


def _pct(before: int | None, after: int | None) -> str:
    text = words.percent_change(before, after)
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
