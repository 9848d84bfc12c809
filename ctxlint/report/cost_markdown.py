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
    other_tokens,
    percent_change,
    share,
    signed,
    tokens,
)


def render(report: CostReport) -> str:
    out = ["## ctxlint cost", ""]
    out += _summary(report)
    comparison = report.comparison
    if comparison is not None:
        out += ["", f"### Changes against `{comparison.ref}`", ""]
        out += _changes(comparison)
    if report.files:
        out += ["", "### Requests", ""]
        touched, untouched = [], []
        for f in report.files:
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
    out += _footer(report)
    return "\n".join(out).rstrip("\n") + "\n"


def _summary(report: CostReport) -> list[str]:
    t = report.totals
    if not report.files:
        line = "No requests found: no prompt template, request or tool file among the files checked."
    else:
        line = (f"**{t.input_tokens:,} input tokens** in {t.requests} request{'s' if t.requests != 1 else ''} "
                f"({t.files} file{'s' if t.files != 1 else ''})")
        if t.tools:
            line += f", {t.tool_tokens:,} of them in {t.tools} tool definitions"
        if t.price_per_1k_calls is not None:
            line += (f" · **{money(t.price_per_1k_calls)}** per 1,000 calls of each, "
                     f"**{money(t.price_per_1k_calls_cached)}** with prompt caching")
        if t.estimated_requests:
            line += f" · ~ marks estimates ({t.estimated_requests})"
    lines = [line]
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
                where = f"`{_code(f'{v.path}:{v.line}')}`: " if v.path else ""
                lines.append(f"- {where}{_cell(v.message)}")
    return lines


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
    head += " reserve | window | cacheable prefix | $ / 1k calls | cached |"
    rule += "--:|--:|--:|--:|--:|"
    row += (f" {r.reserve:,} | {share(r.window_share)} | {tokens(r.cacheable_prefix, ex)} | "
            f"{money(r.price_per_1k_calls)} | {money(r.price_per_1k_calls_cached)} |")
    out += [head, rule, row]
    if r.note:
        out += ["", f"<sub>{_cell(r.note)}</sub>"]
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
            where, _, message = error.partition(": ")
            out.append(f"- `{_code(path + ':' + where)}` {_cell(message)}")
    if any(other_tokens(r) for r in report.requests):
        out += ["", "<sub>Input is tools + system + messages + the reply priming the provider adds "
                    "(3 tokens per OpenAI request). Variable content (slots) counts as 0: these are the "
                    "tokens every call sends before any.</sub>"]
    if report.models:
        sources = "; ".join(f"{m.name}: {m.source}" + (f" ({m.as_of})" if m.as_of else "") for m in report.models)
        out += ["", f"<sub>Prices in USD per 1,000 calls: the input at the input price and the whole output "
                    f"reserve at the output price. Model table: {_html(sources)}.</sub>"]
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
