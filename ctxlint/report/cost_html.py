"""`ctxlint cost --format html`: one self-contained page with a chart of where the tokens go.

Everything is inline: CSS in a ``<style>`` element, the chart as SVG drawn here, no script, no
font, image or link to load, so the page opens the same from a CI artifact, an e-mail or a
disk with no network. The chart has one stacked horizontal bar per request (tools, system,
messages, the reply priming, then the output reserve, hatched, as it is output rather than
input), on one labelled token axis, with each bar's total written after it; hovering a part
shows its exact count. The tables below give every number.
"""

from __future__ import annotations

import math
from html import escape

from ctxlint.analysis.accounting import RequestCost
from ctxlint.cost import CostReport
from ctxlint.cost import text as words

# Colour-blind-safe (Tableau 10); the reserve is hatched in its own colour.
PARTS = (
    ("tools", "Tools", "#4e79a7"),
    ("system", "System", "#f28e2b"),
    ("messages", "Messages", "#59a14f"),
    ("other", "Reply priming", "#9c9c9c"),
    ("reserve", "Output reserve", "#b07aa1"),
)

# Chart geometry (SVG user units; the SVG scales to the page width).
WIDTH = 1200
LEFT = 290  # request labels
RIGHT = 330  # value labels after the longest bar: tokens, dollars, the reserve
TOP = 44  # legend
ROW = 30
BAR = 18
AXIS = 46

STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff;
        --head: #f6f8fa; --ok: #1a7f37; --bad: #cf222e; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --bg: #0d1117; --head: #151b23;
          --ok: #3fb950; --bad: #f85149; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1360px; padding: 24px; font: 14px/1.5 system-ui, -apple-system,
       "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
p.summary { font-size: 16px; margin: 4px 0; }
.muted, figcaption { color: var(--muted); }
.gate { font-size: 16px; font-weight: 600; padding: 8px 12px; border-radius: 6px; border: 1px solid; }
.gate.ok { color: var(--ok); } .gate.bad { color: var(--bad); }
.gate ul { font-weight: normal; color: var(--fg); margin: 6px 0 0; }
figure { margin: 0; }
svg#cost-chart { width: 100%; height: auto; display: block; }
svg text { fill: var(--fg); font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
svg .axis line, svg .axis path { stroke: var(--muted); }
svg .grid line { stroke: var(--line); }
svg .value { font-variant-numeric: tabular-nums; }
svg .before { stroke: var(--fg); stroke-width: 2; stroke-dasharray: 3 2; }
svg .unbounded-label { fill: var(--muted); font-style: italic; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--head); }
.scroll { overflow-x: auto; }
td.num { text-align: right; white-space: nowrap; }
th.num { text-align: right; }
table.requests { font-size: 13px; }
table.requests th, table.requests td { padding: 3px 6px; }
table.requests td:first-child code { overflow-wrap: normal; }
tfoot td { font-weight: 600; }
.est { font-size: 11px; padding: 0 4px; border-radius: 4px; border: 1px solid var(--muted); color: var(--muted); }
.up { color: var(--bad); } .down { color: var(--ok); }
details { margin: 4px 0 12px; } summary { cursor: pointer; }
code.src { word-break: break-all; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
"""


def render(report: CostReport) -> str:
    t = report.totals
    body = ['<header><h1>ctxlint cost</h1>', _summary(report)]
    c = report.comparison
    if c is not None:
        pct = f" ({c.percent:+.1f}%)" if c.percent is not None else ""
        body.append(f'<p class="summary">Against <code>{escape(c.ref)}</code> (<code>{escape(c.short_commit)}</code>): '
                    f'<strong class="{_dir(c.delta)}">{words.signed(c.delta)} tokens{pct}</strong>, '
                    f'from {c.before:,} to {c.after:,}.</p>')
        if words.dollar_change(report):
            body.append(f'<p class="summary" id="price-change">{escape(words.dollar_change(report))}</p>')
        if words.unmeasured_change(report):
            body.append(f'<p class="summary">{escape(words.unmeasured_change(report))}</p>')
    if report.gated:
        checked = escape(", ".join(words.limits_text(report)))
        if report.passed:
            body.append(f'<p class="gate ok" id="gate">✔ Within the limits ({checked}).</p>')
        else:
            items = "".join(f"<li>{_where(v.where)}{escape(v.message)}</li>" for v in report.violations)
            body.append(f'<div class="gate bad" id="gate">✘ Over the limits ({checked})<ul>{items}</ul></div>')
    body.append("</header>")

    body.append('<section><h2>Where the tokens go</h2>')
    if report.requests:
        body.append(chart(report))
        body.append('<figcaption>Tokens each call sends before any variable content (history, documents, the '
                    'question count as 0), then the output reserve. ~ marks estimates.</figcaption>')
    else:
        body.append('<p>No requests found: no prompt template, request or tool file among the files checked.</p>')
    body.append("</section>")

    if c is not None:
        body.append(f'<section id="changes"><h2>Changes against <code>{escape(c.ref)}</code></h2>')
        body.append(_changes(report))
        body.append("</section>")
    if report.what_if and report.requests:
        body.append('<section id="what-if"><h2>Side by side</h2>')
        body.append(_what_if(report))
        body.append("</section>")
    elif report.requests:
        body.append('<section id="requests"><h2>Requests</h2>')
        body.append(_requests(report))
        body.append("</section>")
        tools = _tools(report)
        if tools:
            body.append(f'<section id="tools"><h2>Tools</h2>{tools}</section>')
    if report.set_aside:
        rows = "".join(f"<tr><td><code>{escape(f.path)}</code></td><td>{escape(f.set_aside)}</td>"
                       f'<td class="num">{len(f.requests):,}</td><td class="num">{f.tokens:,}</td></tr>'
                       for f in report.set_aside)
        body.append('<section id="set-aside"><h2>Kept out of the totals</h2><p class="muted">Test data, fixtures '
                    'and templates that are not prompts; <code>--include-set-aside</code> counts them.</p>'
                    '<table><thead><tr><th>file</th><th>why</th><th class="num">requests</th>'
                    f'<th class="num">input</th></tr></thead><tbody>{rows}</tbody></table></section>')
    notes = _notes(report)
    if notes:
        body.append(f'<section id="notes"><h2>Notes</h2><ul>{notes}</ul></section>')
    if report.models:
        body.append(f'<section id="models"><h2>Model table</h2>{_models(report)}</section>')
    title = f"ctxlint cost: {t.input_tokens:,} input tokens in {t.requests} requests"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


# --- the chart -------------------------------------------------------------------------------------


def _parts(r: RequestCost) -> list[tuple[str, int]]:
    return [("tools", r.tools), ("system", r.system), ("messages", r.messages), ("other", r.other),
            ("reserve", r.reserve)]


def nice_step(largest: float, ticks: int = 6) -> float:
    """A 1, 2 or 5 times a power of ten that cuts ``largest`` into about ``ticks`` steps."""
    if largest <= 0:
        return 1
    raw = largest / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return max(factor * power, 1)
    return 10 * power


def chart(report: CostReport) -> str:
    requests = report.requests
    comparison = report.comparison
    unbounded = [r for r in requests if _unbounded(r)]
    largest = max(r.total_input + r.reserve for r in requests) or 1
    if comparison is not None:
        befores = [ch.before for f in comparison.files for ch in f.requests if ch.before]
        largest = max([largest, *befores])
    step = nice_step(largest)
    top_value = math.ceil(largest / step) * step
    plot = WIDTH - LEFT - RIGHT
    height = TOP + ROW * len(requests) + AXIS

    def x(value: float) -> float:
        return LEFT + plot * value / top_value

    out = [f'<svg id="cost-chart" viewBox="0 0 {WIDTH} {height}" '
           f'width="{WIDTH}" height="{height}" role="img" aria-labelledby="chart-title">',
           '<title id="chart-title">Tokens per request: tools, system, messages and output reserve</title>',
           '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="6" height="6" fill="#b07aa1" fill-opacity="0.25"/>'
           '<line x1="0" y1="0" x2="0" y2="6" stroke="#b07aa1" stroke-width="3"/></pattern>'
           '<linearGradient id="fade"><stop offset="0" stop-color="#b07aa1" stop-opacity="0.6"/>'
           '<stop offset="1" stop-color="#b07aa1" stop-opacity="0"/></linearGradient></defs>']

    # Legend.
    out.append('<g class="legend">')
    lx = LEFT
    for key, name, colour in PARTS:
        fill = "url(#hatch)" if key == "reserve" else colour
        out.append(f'<rect class="swatch swatch-{key}" x="{lx}" y="12" width="14" height="14" fill="{fill}" '
                   f'stroke="{colour}"/><text x="{lx + 20}" y="24">{name}</text>')
        lx += 34 + 7 * len(name)
    if unbounded:
        out.append(f'<rect class="swatch swatch-unbounded" x="{lx}" y="12" width="28" height="14" fill="url(#fade)" '
                   f'stroke="{PARTS[-1][2]}" stroke-dasharray="2 2"/><text x="{lx + 34}" y="24">No output limit</text>')
        lx += 48 + 7 * len("No output limit")
    if comparison is not None:
        out.append(f'<line class="before" x1="{lx}" y1="10" x2="{lx}" y2="28"/>'
                   f'<text x="{lx + 8}" y="24">input at {escape(comparison.ref)}</text>')
    out.append("</g>")

    # Grid and axis.
    axis_y = TOP + ROW * len(requests)
    out.append('<g class="grid">')
    ticks = [step * i for i in range(int(round(top_value / step)) + 1)]
    for value in ticks:
        out.append(f'<line x1="{x(value):.2f}" y1="{TOP - 4}" x2="{x(value):.2f}" y2="{axis_y}"/>')
    out.append("</g>")
    out.append(f'<g class="axis"><line x1="{LEFT}" y1="{axis_y}" x2="{LEFT + plot}" y2="{axis_y}"/>')
    for value in ticks:
        out.append(f'<line x1="{x(value):.2f}" y1="{axis_y}" x2="{x(value):.2f}" y2="{axis_y + 5}"/>'
                   f'<text x="{x(value):.2f}" y="{axis_y + 18}" text-anchor="middle">{int(value):,}</text>')
    out.append(f'<text class="axis-label" x="{LEFT + plot / 2:.2f}" y="{axis_y + 38}" text-anchor="middle">'
               'tokens per call</text></g>')

    # One bar per request.
    index_in_file: dict[str, int] = {}
    for row, r in enumerate(requests):
        i = index_in_file.get(r.path, 0)
        index_in_file[r.path] = i + 1
        y = TOP + row * ROW + (ROW - BAR) / 2
        name = words.label(r)
        short = name if len(name) <= 42 else "…" + name[-41:]
        out.append(f'<g class="bar" data-request="{escape(name)}" data-input="{r.total_input}" '
                   f'data-reserve="{r.reserve}">')
        out.append(f'<text class="label" x="{LEFT - 8}" y="{y + BAR - 4:.2f}" text-anchor="end">'
                   f'<title>{escape(name)} ({escape(r.model)})</title>{escape(short)}</text>')
        start = 0
        for key, value in _parts(r):
            if value <= 0:
                continue
            colour = dict((k, c) for k, _, c in PARTS)[key]
            fill = "url(#hatch)" if key == "reserve" else colour
            width = max(x(start + value) - x(start), 0.75)  # a sliver stays visible
            names = dict((k, n) for k, n, _ in PARTS)
            out.append(f'<rect class="seg seg-{key}" x="{x(start):.2f}" y="{y:.2f}" width="{width:.2f}" '
                       f'height="{BAR}" fill="{fill}" stroke="{colour}" stroke-width="0.5">'
                       f'<title>{escape(names[key])}: {words.counted(value, r)} tokens</title></rect>')
            start += value
        end = x(start)
        if _unbounded(r):  # no output limit: the answer may take what the window leaves, drawn to the edge
            edge = LEFT + plot
            out.append(f'<rect class="seg seg-unbounded" x="{end:.2f}" y="{y:.2f}" '
                       f'width="{max(edge - end, 0.75):.2f}" height="{BAR}" fill="url(#fade)" '
                       f'stroke="{PARTS[-1][2]}" stroke-width="0.5" stroke-dasharray="2 2">'
                       f'<title>No output limit: the answer may take whatever the window leaves'
                       f'{_maximum(r)}</title></rect>')
            end = edge
        change = comparison.request(r.path, i) if comparison is not None else None
        if comparison is not None and change is not None and change.before and change.delta:  # input at the ref
            bx = x(change.before)
            out.append(f'<line class="before" x1="{bx:.2f}" y1="{y - 3:.2f}" x2="{bx:.2f}" y2="{y + BAR + 3:.2f}">'
                       f'<title>input at {escape(comparison.ref)}: {change.before:,} tokens</title></line>')
        caption = f"{words.counted(r.total_input, r)} · {words.money(r.pricing.input)}"
        if r.reserve:
            caption += f" + {r.reserve:,} reserve (≤ {words.money(r.pricing.output_bound)})"
        elif _unbounded(r):
            caption += " + no output limit"
        if comparison is not None:
            money_delta = words.signed_money(change.price_delta) if change is not None else ""
            caption += " (new)" if change is None or change.before is None else (
                f" ({words.signed(change.delta)}{f', {money_delta}' if money_delta else ''})" if change.delta else "")
        out.append(f'<text class="value" x="{end + 6:.2f}" y="{y + BAR - 4:.2f}">{escape(caption)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _unbounded(r: RequestCost) -> bool:
    """The request sets no output limit: what it costs has no bound of its own."""
    return r.reserve == 0


def _maximum(r: RequestCost) -> str:
    bound = r.pricing.output_bound_tokens
    return (f" (up to the model's maximum of {bound:,} tokens, ≤ {words.money(r.pricing.output_bound)} per 1,000 "
            "calls)") if bound else ""


# --- the tables ------------------------------------------------------------------------------------


def _summary(report: CostReport) -> str:
    sentences = words.summary(report, report.totals_for(0) if report.what_if else None)
    if not report.requests:
        return f'<p class="summary">{escape(sentences[0])}</p>'
    rest = words.what_if_lines(report) if report.what_if else sentences[1:]
    return (f'<p class="summary"><strong>{escape(sentences[0])}</strong></p>'
            + "".join(f'<p class="summary">{escape(line)}</p>' for line in rest))


def _cached(r: RequestCost) -> str:
    return "—" if r.pricing.cached_input is None else words.money(r.pricing.cached_input)


def _requests(report: CostReport) -> str:
    c = report.comparison
    head = ["request", "model"]
    nums = ["tools", "system", "messages", "input"] + (["Δ input", "Δ $ / 1k"] if c is not None else []) + [
        "reserve", "window", "cacheable prefix", "cached tokens", "input $ / 1k", "cached $ / 1k", "output ≤ $ / 1k"]
    rows = []
    for f in report.counted:
        for i, r in enumerate(f.requests):
            kind = "lower bound" if r.lower_bound else "" if r.exact else "estimate"
            est = f' <span class="est" title="{escape(r.note)}">{kind}</span>' if kind else ""
            # A path may wrap after its slashes only, so a narrow column never splits a name.
            cells = [f"<code>{escape(words.label(r)).replace('/', '/<wbr>')}</code>", escape(r.model) + est]
            values = [words.counted(r.tools, r), words.counted(r.system, r), words.counted(r.messages, r),
                      f"<strong>{words.counted(r.total_input, r)}</strong>"]
            if c is not None:
                change = c.request(f.path, i)
                if change is None or change.before is None:
                    values += ["new", "new"]
                else:
                    values += [_delta_cell(change.delta), _money_delta_cell(change.price_delta)]
            values += [f"{r.reserve:,}" if r.reserve else "none", words.share(r.window_share),
                       words.counted(r.cacheable_prefix, r), f"{r.pricing.cached_tokens:,}",
                       words.money(r.pricing.input), _cached(r),
                       "∞" if r.pricing.output_bound_tokens is None else words.money(r.pricing.output_bound)]
            rows.append("<tr>" + "".join(f"<td>{x}</td>" for x in cells)
                        + "".join(f'<td class="num">{v}</td>' for v in values) + "</tr>")
    t = report.totals
    foot = ["total", "", *words.total_counts(t, report.requests)]
    if c is not None:
        foot += [_delta_cell(c.delta), _money_delta_cell(c.price_delta)]
    foot += [f"{t.reserve:,}", "", "", "", words.money(t.input_price), words.money(t.cached_price),
             words.money(t.output_bound)]
    return ('<div class="scroll"><table class="requests"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
            + "".join(f'<th class="num">{h}</th>' for h in nums) + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody><tfoot><tr>"
            + "".join(f"<td>{v}</td>" if i < 2 else f'<td class="num">{v}</td>' for i, v in enumerate(foot))
            + "</tr></tfoot></table></div>")


def _what_if(report: CostReport) -> str:
    models = report.what_if
    groups = "".join(f'<th colspan="4" class="num">{escape(m)}</th>' for m in models)
    subs = "".join('<th class="num">input</th><th class="num">input $ / 1k</th><th class="num">cached $ / 1k</th>'
                   '<th class="num">output ≤ $ / 1k</th>' for _ in models)
    rows = []
    for f in report.counted:
        for costs in f.what_if:
            cells = "".join(f'<td class="num">{words.counted(r.total_input, r)}</td>'
                            f'<td class="num">{words.money(r.pricing.input)}</td><td class="num">{_cached(r)}</td>'
                            f'<td class="num">{words.money(r.pricing.output_bound)}</td>'
                            for r in costs)
            rows.append(f"<tr><td><code>{escape(words.label(costs[0]))}</code></td>{cells}</tr>")
    foot = ""
    for i in range(len(models)):
        t = report.totals_for(i)
        foot += (f'<td class="num">{t.input_tokens:,}</td><td class="num">{words.money(t.input_price)}</td>'
                 f'<td class="num">{words.money(t.cached_price)}</td>'
                 f'<td class="num">{words.money(t.output_bound)}</td>')
    out = [f'<div class="scroll"><table><thead><tr><th></th>{groups}</tr><tr><th>request</th>{subs}</tr></thead>'
           f'<tbody>{"".join(rows)}</tbody><tfoot><tr><td>total</td>{foot}</tr></tfoot></table></div>']
    head = "".join(f'<th class="num">{escape(m)}</th>' for m in models)
    for table in words.tool_tables(report):
        body = "".join(f"<tr><td><code>{escape(name)}</code></td>"
                       + "".join(f'<td class="num">{count}</td>' for count in counts) + "</tr>"
                       for name, counts in table.rows)
        total = "".join(f'<td class="num">{count}</td>' for count in table.total)
        out.append(f"<details open><summary>Tools of <code>{escape(words.label(table.request))}</code></summary>"
                   f"<table><thead><tr><th>tool</th>{head}</tr></thead><tbody>{body}</tbody>"
                   f"<tfoot><tr><td>all, with overhead</td>{total}</tr></tfoot></table></details>")
    return "\n".join(out)


def _tools(report: CostReport) -> str:
    c = report.comparison
    out = []
    for f in report.counted:
        for i, r in enumerate(f.requests):
            if not r.tool_costs:
                continue
            change = c.request(f.path, i) if c is not None else None
            deltas: dict[str, int | None] = {}
            if change is not None:
                for tc in change.tools:
                    deltas.setdefault(tc.name, None if tc.before is None else tc.delta)
            biggest = max(r.tool_costs, key=lambda x: x.tokens)
            out.append(f"<details open><summary><code>{escape(words.label(r))}</code>: {len(r.tool_costs)} "
                       f"tool{'s' if len(r.tool_costs) != 1 else ''}, "
                       f"{words.counted(r.tools, r)} tokens; "
                       f"biggest <code>{escape(biggest.name or '(unnamed)')}</code> "
                       f"({words.counted(biggest.tokens, r)})</summary>")
            head = ["tool", "tokens", "share", "biggest field", "field tokens"] + (["Δ"] if c is not None else [])
            rows = []
            for cost in sorted(r.tool_costs, key=lambda x: (-x.tokens, x.name)):
                cells = [f"<td><code>{escape(cost.name or '(unnamed)')}</code></td>",
                         f'<td class="num">{words.counted(cost.tokens, r)}</td>',
                         f'<td class="num">{words.share(cost.share)}</td>',
                         f"<td><code>{escape(cost.biggest_field)}</code></td>",
                         f'<td class="num">{words.counted(cost.biggest_field_tokens, r)}</td>']
                if c is not None:
                    cells.append(f'<td class="num">{_delta_cell(deltas.get(cost.name, 0))}</td>')
                rows.append("<tr>" + "".join(cells) + "</tr>")
            out.append("<table><thead><tr>" + "".join(
                f'<th class="num">{h}</th>' if h in ("tokens", "share", "field tokens", "Δ") else f"<th>{h}</th>"
                for h in head) + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
            overhead = r.tools - sum(x.tokens for x in r.tool_costs)
            if overhead > 0:
                out.append(f'<p class="muted">Plus {words.counted(overhead, r)} tokens of tool-use overhead per '
                           'request.</p>')
            out.append("</details>")
    return "\n".join(out)


def _changes(report: CostReport) -> str:
    c = report.comparison
    assert c is not None
    rows = []
    for f in c.changed:
        rows.append(_change_row(f"<code>{escape(f.path)}</code>", f.status, f.before, f.after, f.delta,
                                f.price_delta))
        for r in f.requests:
            if r.status == "unchanged":
                continue
            rows.append(_change_row(f"&emsp;request at line {r.line}", r.status, r.before, r.after, r.delta,
                                    r.price_delta))
            for t in r.changed_tools:
                rows.append(_change_row(f"&emsp;&emsp;tool <code>{escape(t.name or '(unnamed)')}</code>", t.status,
                                        t.before, t.after, t.delta, None))
    if not rows:
        return "<p>No request changed.</p>"
    pct = f" ({c.percent:+.1f}%)" if c.percent is not None else ""
    foot = (f'<tr><td>total</td><td></td><td class="num">{c.before:,}</td><td class="num">{c.after:,}</td>'
            f'<td class="num">{_delta_cell(c.delta)}{pct}</td><td class="num">{_money_delta_cell(c.price_delta)}</td>'
            '</tr>')
    return ('<table><thead><tr><th>file / request / tool</th><th>status</th><th class="num">before</th>'
            '<th class="num">after</th><th class="num">Δ tokens</th><th class="num">Δ $ / 1k calls</th></tr></thead>'
            "<tbody>" + "".join(rows) + f"</tbody><tfoot>{foot}</tfoot></table>")


def _change_row(name: str, status: str, before: int | None, after: int | None, delta: int,
                price_delta: float | None) -> str:
    pct = words.percent_change(before, after)
    return (f"<tr><td>{name}</td><td>{status}</td><td class=\"num\">{_n(before)}</td>"
            f"<td class=\"num\">{_n(after)}</td><td class=\"num\">{_delta_cell(delta)}"
            f"{f' ({pct})' if pct else ''}</td><td class=\"num\">{_money_delta_cell(price_delta)}</td></tr>")


def _notes(report: CostReport) -> str:
    out = []
    for note, requests in report.notes().items():
        out.append(f"<li>{escape(note)} <span class=\"muted\">({escape(words.where(requests))})</span></li>")
    for note, requests in words.cache_notes(report).items():
        out.append(f"<li>No prompt caching: {escape(note)} "
                   f"<span class=\"muted\">({escape(words.where(requests))})</span></li>")
    for f in report.files:
        for error in f.errors:
            out.append(f"<li>Not counted: <code>{escape(f.path)}:{escape(error)}</code> "
                       "(see <code>ctxlint check</code>)</li>")
    return "".join(out)


def _models(report: CostReport) -> str:
    head = ["model", "provider", "window", "max output", "encoding", "counts", "cache min",
            "input $/Mtok", "output $/Mtok", "cached $/Mtok", "cache write ×", "source", "as of"]
    rows = []
    for m in report.models:
        cells = [f"<code>{escape(m.name)}</code>", escape(m.provider), f"{m.window:,}", f"{m.max_output:,}",
                 escape(m.encoding), "exact" if m.exact else "estimate",
                 "none" if m.cache_min_tokens is None else f"{m.cache_min_tokens:,}",
                 _price(m.input_per_mtok), _price(m.output_per_mtok), _price(m.cached_input_per_mtok),
                 f"{m.cache_write_multiplier:g}", f"<code class=\"src\">{escape(m.source)}</code>", escape(m.as_of)]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return ('<div class="scroll"><table><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>"
            '<p class="muted">Prices: USD per 1,000 calls. Input at the input price; with prompt caching, the '
            "tokens the provider caches (by its rules) at the cached price. Output apart: at most the output limit "
            "(or the model's maximum) at the output price.</p>")


def _price(value: float | None) -> str:
    return "n/a" if value is None else f"${value:g}"


def _delta_cell(delta: int | None) -> str:
    if delta is None:
        return "new"
    return f'<span class="{_dir(delta)}">{words.signed(delta)}</span>'


def _money_delta_cell(delta: float | None) -> str:
    if delta is None:
        return ""
    return f'<span class="{_dir(delta)}">{words.signed_money(delta)}</span>'


def _dir(delta: float) -> str:
    return "up" if delta > 0 else "down" if delta < 0 else ""


def _n(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _where(place: str | None) -> str:
    return f"<code>{escape(place)}</code>: " if place else ""
