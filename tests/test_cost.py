"""`ctxlint cost`: the numbers, the four formats, the config limits and the progress line.

Expected numbers are never guessed: simple requests are counted here with tiktoken directly
(``ctxlint.tokens.count_tokens`` and the cookbook's constants), and every request's full
accounting comes from ``ctxlint.analysis.accounting`` run on the same parsed files.
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ctxlint.analysis.accounting import (
    FUNCTIONS_BLOCK,
    REPLY_PRIMING,
    TOKENS_PER_MESSAGE,
    Pricing,
    RequestCost,
    ToolCost,
    request_cost,
)
from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings, load_settings
from ctxlint.cost import (
    Comparison,
    CostReport,
    FileChange,
    FileCost,
    Increase,
    Progress,
    RequestChange,
    ToolChange,
    check_limits,
    money,
)
from ctxlint.engine import Linter
from ctxlint.model import Span
from ctxlint.report import cost_html, cost_json, cost_markdown, cost_table
from ctxlint.tokens import count_tokens, lookup_model

CATALOGUE = load_catalogue()


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    """Every column and unwrapped notes: the layout at 100 columns has tests of its own."""
    monkeypatch.setenv("COLUMNS", "400")

SYSTEM_TEXT = "You are the support assistant for Northwind.\nAnswer questions about orders only.\n"
TEMPLATE = SYSTEM_TEXT + "Question: {{ question }}\n"  # a bare template: all of it is system text

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {"type": "object",
                       "properties": {"city": {"type": "string", "description": "City name, e.g. Paris"}},
                       "required": ["city"]},
    },
}
FORECAST = {
    "type": "function",
    "function": {
        "name": "get_forecast",
        "description": "Get a five-day forecast.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
                       "required": ["city"]},
    },
}
# The two tools as OpenAI renders them (a TypeScript namespace; see analysis/accounting/tools.py).
WEATHER_BLOCK = ("// Get the current weather for a city.\ntype get_weather = (_: {\n// City name, e.g. Paris\n"
                 "city: string,\n}) => any;")
FORECAST_BLOCK = "// Get a five-day forecast.\ntype get_forecast = (_: {\n// City name\ncity: string,\n}) => any;"
ANTHROPIC_REQUEST = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": "You are the billing assistant. Never promise refunds above $500.",
    "tools": [{"name": "lookup_order", "description": "Look up an order by its number.",
               "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}}}],
    "messages": [{"role": "user", "content": "{{ question }}"}],
}
FILES = {
    "ctxlint.toml": 'model = "gpt-4o"\n',
    "prompts/support.j2": TEMPLATE,
    "tools/weather.json": json.dumps([WEATHER, FORECAST], indent=2) + "\n",
    "requests/billing.json": json.dumps(ANTHROPIC_REQUEST, indent=2) + "\n",
    "package.json": '{"name": "web", "version": "1.0.0"}\n',  # not a prompt: not in the report
}


def _expected(root: Path) -> dict[str, RequestCost]:
    """The accounting module's costs for the fixture's requests, keyed by path."""
    settings = load_settings(root / "ctxlint.toml", root) if (root / "ctxlint.toml").exists() else Settings(root=root)
    linter = Linter(settings, CATALOGUE)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    old = os.getcwd()
    os.chdir(root)
    try:
        out = {}
        for display, parsed in linter.parse_files(files):
            for request in parsed.requests:
                out[display] = request_cost(request, None, settings.model, linter.volatility)
        return out
    finally:
        os.chdir(old)


@pytest.fixture
def fixture_project(project):
    return project.write(FILES)


# --- the numbers ----------------------------------------------------------------------------------


def test_counts_match_tiktoken_and_the_accounting_module(fixture_project):
    run = fixture_project.run("cost", "--format", "json")
    assert run.code == 0, run.stderr
    data = json.loads(run.stdout)
    by_path = {f["path"]: f for f in data["files"]}
    assert sorted(by_path) == ["prompts/support.j2", "requests/billing.json", "tools/weather.json"]

    # The template: one system message of two static segments around the slot (counted as
    # empty), counted with tiktoken here; its model comes from the config.
    template = by_path["prompts/support.j2"]["requests"][0]
    system = TOKENS_PER_MESSAGE + count_tokens("system") + count_tokens(SYSTEM_TEXT + "Question: ") + count_tokens("\n")
    assert template["tokens"] == {"tools": 0, "system": system, "messages": 0, "other": REPLY_PRIMING,
                                  "input": system + REPLY_PRIMING, "reserve": 0}
    assert (template["model"], template["encoding"], template["exact"]) == ("gpt-4o", "o200k_base", True)
    assert template["basis"] == ["openai-chat"]
    info = lookup_model("gpt-4o")
    assert template["window"] == info.window
    assert template["window_share"] == pytest.approx((system + REPLY_PRIMING) / info.window, abs=1e-6)
    assert template["price"]["input"] == pytest.approx((system + REPLY_PRIMING) * info.input_per_mtok / 1000, abs=1e-6)
    # No output limit: the bound is the model's maximum output, priced apart from the input.
    assert (template["price"]["output_bound_tokens"], template["price"]["output_bound_from"]) == (16_384, "model maximum")
    assert template["price"]["output_bound"] == pytest.approx(16_384 * info.output_per_mtok / 1000, abs=1e-6)
    assert template["price"]["cached_input"] is None
    assert template["price"]["cache_note"] == "the stable prefix is under the 1,024-token minimum"

    # The tool catalogue: OpenAI's namespace rendering, from tiktoken.
    catalogue = by_path["tools/weather.json"]["requests"][0]
    block = f"namespace functions {{\n\n{WEATHER_BLOCK}\n\n{FORECAST_BLOCK}\n\n}} // namespace functions"
    assert catalogue["tokens"]["tools"] == count_tokens(block) + FUNCTIONS_BLOCK
    assert catalogue["tokens"]["input"] == count_tokens(block) + FUNCTIONS_BLOCK + REPLY_PRIMING
    tools = catalogue["tools"]
    weather, forecast = count_tokens(WEATHER_BLOCK + "\n"), count_tokens(FORECAST_BLOCK + "\n")
    assert [(t["name"], t["tokens"]) for t in tools] == [("get_weather", weather), ("get_forecast", forecast)]
    assert tools[0]["share"] == pytest.approx(weather / (weather + forecast), abs=1e-6)
    assert (tools[0]["biggest_field"], tools[0]["biggest_field_tokens"]) == (
        "description", count_tokens("Get the current weather for a city."))

    # Everything, field by field, against the accounting module on the same parsed files.
    expected = _expected(fixture_project.root)
    for path, cost in expected.items():
        request = by_path[path]["requests"][0]
        assert request["tokens"]["input"] == cost.total_input
        assert (request["tokens"]["tools"], request["tokens"]["system"], request["tokens"]["messages"]) == (
            cost.tools, cost.system, cost.messages)
        assert (request["cacheable_prefix"], request["tokens"]["reserve"]) == (cost.cacheable_prefix, cost.reserve)
        assert request["exact"] == cost.exact and request["note"] == cost.note
        assert request["basis"] == list(cost.basis)
        assert request["price"]["input"] == pytest.approx(cost.pricing.input, abs=1e-6)
        assert [t["name"] for t in request["tools"]] == [
            t.name for t in sorted(cost.tool_costs, key=lambda t: (-t.tokens, t.name))]
    totals = data["totals"]
    assert totals["input_tokens"] == sum(c.total_input for c in expected.values())
    assert totals["tool_tokens"] == sum(c.tools for c in expected.values())
    assert (totals["files"], totals["requests"], totals["tools"]) == (3, 3, 3)
    assert totals["input_price"] == pytest.approx(sum(c.pricing.input for c in expected.values()), abs=1e-5)
    assert totals["output_bound"] == pytest.approx(sum(c.pricing.output_bound for c in expected.values()), abs=1e-5)
    assert totals["estimated_requests"] == 1


def test_json_structure_and_model_table(fixture_project):
    data = json.loads(fixture_project.run("cost", "--format", "json").stdout)
    assert data["version"] == 2
    assert set(data) == {"version", "files", "totals", "what_if", "set_aside", "basis", "models", "comparison",
                         "limits", "violations", "passed"}
    assert data["comparison"] is None and data["violations"] == [] and data["passed"] is True
    assert data["limits"] == {"max-increase": None} and data["what_if"] == []
    assert data["set_aside"] == {"included": False, "files": []}
    request = data["files"][0]["requests"][0]
    assert set(request) == {"line", "model", "model_known", "provider", "encoding", "exact", "basis", "note",
                            "lower_bound", "unseen", "tokens", "unpriced", "window", "window_share",
                            "cacheable_prefix", "price", "tools"}
    assert (request["lower_bound"], request["unseen"]) == (False, [])
    models = {m["name"]: m for m in data["models"]}
    assert sorted(models) == ["claude-sonnet-4-5", "gpt-4o"]
    for name, entry in models.items():
        info = lookup_model(name)
        assert entry["source"] == info.source and entry["as_of"] == info.as_of
        assert entry["input_per_mtok"] == info.input_per_mtok
        assert entry["cache_write_multiplier"] == info.cache_write_multiplier
    # The Anthropic request is an estimate, and says on what it rests.
    billing = next(f for f in data["files"] if f["path"] == "requests/billing.json")["requests"][0]
    assert billing["exact"] is False and billing["basis"] == ["anthropic", "anthropic-tool-use"]
    assert "estimate" in billing["note"] and "o200k_base" in billing["note"]
    assert data["basis"]["anthropic"].startswith("Anthropic publishes no tokenizer")
    assert set(data["basis"]) == {"openai-chat", "openai-functions", "anthropic", "anthropic-tool-use"}


# --- the formats ----------------------------------------------------------------------------------


def test_table_is_aligned_with_exact_rows(fixture_project):
    run = fixture_project.run("cost")
    assert run.code == 0 and run.stderr == ""
    expected = _expected(fixture_project.root)
    lines = run.lines
    table = lines[:lines.index("")]
    assert table[0].split() == ["$", "per", "1,000", "calls"]  # the title over the price columns
    assert table[1].split() == ["request", "model", "tools", "system", "messages", "input", "window", "cacheable",
                                "cached", "input", "$", "cached", "$", "output", "≤", "$"]
    # Right-aligned numbers: every row ends at the same column.
    assert len({len(line) for line in table[1:]}) == 1
    rows = {line.split()[0]: line.split() for line in table[2:]}
    template = expected["prompts/support.j2"]
    assert rows["prompts/support.j2:1"] == [
        "prompts/support.j2:1", "gpt-4o", "0", f"{template.system:,}", "0", f"{template.total_input:,}", "<0.1%",
        f"{template.cacheable_prefix:,}", "—", money(template.pricing.input), "—", money(template.pricing.output_bound)]
    billing = expected["requests/billing.json"]
    row = rows[f"requests/billing.json:{billing.line}"]
    assert row[1] == "claude-sonnet-4-5"
    assert row[2] == f"~{billing.tools:,}" and row[5] == f"~{billing.total_input:,}"  # estimates marked
    total = sum(c.total_input for c in expected.values())
    input_price = sum(c.pricing.input for c in expected.values())
    assert rows["total"] == ["total", f"{sum(c.tools for c in expected.values()):,}",
                             f"{sum(c.system for c in expected.values()):,}",
                             f"{sum(c.messages for c in expected.values()):,}", f"{total:,}", money(input_price),
                             money(input_price), money(sum(c.pricing.output_bound for c in expected.values()))]
    summary = lines[len(table) + 1:len(table) + 5]
    assert summary[0] == f"3 requests in 3 files: {total:,} input tokens, " \
                         f"{sum(c.tools for c in expected.values()):,} of them in 3 tool definitions."
    assert summary[1] == (f"Input: {money(input_price)} per 1,000 calls of each request; "
                          "prompt caching applies to none of them.")
    assert summary[2].startswith("Output, priced apart: at most $")
    assert summary[3] == "~ marks estimates (1 request)."
    # Tools sorted by cost, with share and biggest field.
    weather = expected["tools/weather.json"]
    overhead = weather.tools - sum(t.tokens for t in weather.tool_costs)
    start = lines.index(f"Tools of tools/weather.json:1 (gpt-4o, 2 tools, {weather.tools:,} tokens, "
                        f"{overhead} of tool-use overhead)")
    assert lines[start + 1].split() == ["tool", "tokens", "share", "biggest", "field", "field", "tokens"]
    assert lines[start + 2].split()[0] == "get_weather" and lines[start + 3].split()[0] == "get_forecast"
    # The estimate is explained, and why caching is not priced.
    assert any(line.startswith("  ~ estimate: Anthropic publishes no tokenizer: text counted with o200k_base")
               for line in lines)
    assert "  no prompt caching: no cache_control breakpoint (requests/billing.json:2)" in lines
    assert "  the config's `model` (gpt-4o) prices what names no model (prompts/support.j2:1, tools/weather.json:1)" \
        in lines


def test_markdown_comment(fixture_project):
    run = fixture_project.run("cost", "--format", "markdown")
    assert run.code == 0
    text = run.stdout
    expected = _expected(fixture_project.root)
    total = sum(c.total_input for c in expected.values())
    assert text.startswith("<!-- ctxlint-cost -->\n## ctxlint cost\n\n")  # the marker a workflow edits by
    assert run.lines[3].startswith(f"**3 requests in 3 files: {total:,} input tokens, ")
    assert run.lines[4].startswith("Input: $")
    # One table of every request, with the cacheable prefix (issue 25), and the notes under it.
    head = ("| request | model | tools | system | messages | input | window | cacheable prefix | cached tokens | "
            "input $ / 1k | cached $ / 1k | output ≤ $ / 1k |")
    assert text.count("| request |") == 1 and head in text
    template = expected["prompts/support.j2"]
    assert (f"| `prompts/support.j2:1` | gpt-4o | 0 | {template.system:,} | 0 | **{template.total_input:,}** | <0.1% | "
            f"{template.cacheable_prefix:,} | 0 | {money(template.pricing.input)} | — | "
            f"{money(template.pricing.output_bound)} |") in text
    billing = expected["requests/billing.json"]
    assert f"| `requests/billing.json:{billing.line}` | claude-sonnet-4-5 | ~{billing.tools:,} |" in text
    assert f"| **total** |  | {sum(c.tools for c in expected.values()):,} |" in text
    assert "- ~ estimate: Anthropic publishes no tokenizer" in text
    # Tools in a collapsible block, most expensive first.
    weather = expected["tools/weather.json"]
    assert (f"<details><summary>Tools of <code>tools/weather.json:1</code>: 2 tools, {weather.tools:,} tokens; "
            "biggest: <code>get_weather</code>") in text
    assert text.index("| `get_weather` |") < text.index("| `get_forecast` |")
    assert text.count("<details>") == text.count("</details>") == 2


def test_html_page_is_self_contained(fixture_project):
    run = fixture_project.run("cost", "--format", "html")
    assert run.code == 0
    page = run.stdout
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    # Nothing to load: no script, stylesheet, image, font or frame from anywhere.
    for pattern in (r"<script", r"<link", r"\bsrc\s*=", r"\bhref\s*=", r"url\(\s*['\"]?(https?:|//)", r"@import"):
        assert not re.search(pattern, page, re.IGNORECASE), pattern
    assert page.count('<svg id="cost-chart"') == 1
    assert page.count('<g class="bar"') == 3
    for part in ("tools", "system", "messages", "reserve"):
        assert f'class="swatch swatch-{part}"' in page
    assert "tokens per call</text>" in page  # the axis is labelled
    expected = _expected(fixture_project.root)
    billing = expected["requests/billing.json"]
    assert f'data-input="{billing.total_input}" data-reserve="{billing.reserve}"' in page
    # The bar's caption: the estimate, marked, its price, and the reserve with its bound (issue 25).
    assert (f"~{billing.total_input:,} · {money(billing.pricing.input)} + {billing.reserve:,} reserve "
            f"(≤ {money(billing.pricing.output_bound)})") in page
    assert '<span class="est"' in page
    assert "No prompt caching: no cache_control breakpoint" in page


def test_what_if_models_side_by_side_in_every_format(fixture_project):
    models = "gpt-4o,claude-sonnet-4-5,gemini-2.5-pro"
    table, markdown, html, data = fixture_project.run_many(
        [("cost", "--model", models, "tools/weather.json")] +
        [("cost", "--model", models, "--format", fmt, "tools/weather.json") for fmt in ("markdown", "html", "json")])
    assert [r.code for r in (table, markdown, html, data)] == [0, 0, 0, 0]
    request = parse_file_request(fixture_project.root / "tools/weather.json")
    costs = [request_cost(request, None, None, None, model=m) for m in models.split(",")]
    assert costs[0].exact and not costs[1].exact and not costs[2].exact
    lines = table.lines
    assert lines[0].split() == models.split(",")
    assert lines[1].split()[:6] == ["request", "input", "input", "$", "cached", "$"]
    row = lines[2].split()
    assert row[0] == "tools/weather.json:1"
    assert [row[1], row[5], row[9]] == [f"{costs[0].total_input:,}", f"~{costs[1].total_input:,}",
                                        f"~{costs[2].total_input:,}"]
    assert [row[2], row[6], row[10]] == [money(c.pricing.input) for c in costs]
    for model, cost in zip(models.split(","), costs):
        assert any(line.startswith(f"  {model}: {cost.total_input:,} input tokens, {money(cost.pricing.input)}")
                   for line in lines)
    tools = lines.index("Tools of tools/weather.json:1 (2 tools)")
    assert lines[tools + 2].split() == ["get_weather", *(
        f"{'' if c.exact else '~'}{c.tool_costs[0].tokens:,}" for c in costs)]

    assert "| request | gpt-4o input | $ / 1k | cached | output ≤ | claude-sonnet-4-5 input |" in markdown.stdout
    assert f"| `tools/weather.json:1` | {costs[0].total_input:,} | {money(costs[0].pricing.input)} |" in markdown.stdout
    assert 'colspan="4" class="num">claude-sonnet-4-5</th>' in html.stdout
    out = json.loads(data.stdout)
    assert [w["model"] for w in out["what_if"]] == models.split(",")
    assert [w["totals"]["input_tokens"] for w in out["what_if"]] == [c.total_input for c in costs]
    what_if = out["files"][0]["requests"][0]["what_if"]
    assert [(w["model"], w["exact"], w["tokens"]["input"]) for w in what_if] == [
        (m, c.exact, c.total_input) for m, c in zip(models.split(","), costs)]
    assert out["files"][0]["requests"][0]["model"] == "gpt-4o"  # the first model's costs lead


def parse_file_request(path: Path):
    from ctxlint.frontends.structured import parse_file

    (request,) = parse_file(path.read_text(encoding="utf-8"), path.name).requests
    return request


def test_unknown_and_missing_models_are_said(project):
    project.write({"a.j2": TEMPLATE, "r.json": json.dumps({"model": "claude-opus-9", "messages": [
        {"role": "user", "content": "Hi"}]})})
    data = json.loads(project.run("cost", "--format", "json").stdout)
    by_path = {f["path"]: f["requests"][0] for f in data["files"]}
    assert (by_path["a.j2"]["model"], by_path["a.j2"]["model_known"], by_path["a.j2"]["price"]["input"]) == (
        "(no model)", False, None)
    assert "no-model" in by_path["a.j2"]["basis"]
    assert (by_path["r.json"]["model"], by_path["r.json"]["provider"], by_path["r.json"]["model_known"]) == (
        "claude-opus-9", "anthropic", False)
    assert data["totals"]["unpriced_requests"] == 2 and data["totals"]["input_price"] is None
    table = project.run("cost")
    assert "~ marks estimates (2 requests); 2 requests not priced (no model, or a model or price missing from " \
           "the table)." in table.lines
    assert "  ~ no model named: set `model` in the config or in the request to price it (a.j2:1)" in table.lines


def test_test_data_and_non_prompts_are_set_aside(project):
    project.write({
        "prompts/agent.j2": TEMPLATE,
        "tests/fixtures/request.json": json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}),
        "templates/page.html.j2": "<!DOCTYPE html>\n<html><body>{{ body }}</body></html>\n",
        "deploy/Dockerfile.j2": "FROM python:3.12\nRUN pip install {{ package }}\n",
        "emails/welcome.j2": "<html>\n<p>Welcome, {{ name }}.</p>\n</html>\n",
        "ctxlint.toml": 'model = "gpt-4o"\n',
    })
    data = json.loads(project.run("cost", "--format", "json").stdout)
    reasons = {f["path"]: f["set_aside"] for f in data["files"]}
    assert reasons == {
        "deploy/Dockerfile.j2": "a template that is not a prompt",
        "emails/welcome.j2": "not a prompt (an HTML page)",
        "prompts/agent.j2": None,
        "templates/page.html.j2": "a template that is not a prompt",
        "tests/fixtures/request.json": "test data or fixtures",
    }
    assert (data["totals"]["files"], data["totals"]["requests"]) == (1, 1)
    assert [f["path"] for f in data["set_aside"]["files"]] == [
        "deploy/Dockerfile.j2", "emails/welcome.j2", "templates/page.html.j2", "tests/fixtures/request.json"]
    table = project.run("cost")
    assert "Kept out of the totals (--include-set-aside counts them)" in table.lines
    assert any(line.split()[:1] == ["tests/fixtures/request.json"] for line in table.lines)
    included = json.loads(project.run("cost", "--format", "json", "--include-set-aside").stdout)
    assert included["totals"]["requests"] == 5 and included["set_aside"]["included"] is True
    project.write({"ctxlint.toml": 'model = "gpt-4o"\n[cost]\nset-aside = ["emails/**"]\n'})
    custom = json.loads(project.run("cost", "--format", "json").stdout)
    assert [f["path"] for f in custom["set_aside"]["files"]] == [
        "deploy/Dockerfile.j2", "emails/welcome.j2", "templates/page.html.j2"]


def test_expected_output_tokens_price_the_answer(fixture_project):
    fixture_project.write({"ctxlint.toml": 'model = "gpt-4o"\n[cost]\nexpected-output-tokens = 300\n'})
    data = json.loads(fixture_project.run("cost", "--format", "json").stdout)
    template = data["files"][0]["requests"][0]
    info = lookup_model("gpt-4o")
    assert template["price"]["expected_output_tokens"] == 300
    assert template["price"]["expected_output"] == pytest.approx(300 * info.output_per_mtok / 1000, abs=1e-6)
    table = fixture_project.run("cost")
    assert table.lines[1].endswith("expected $")
    assert any(" expected at 300 tokens per answer." in line for line in table.lines)


def test_output_file(fixture_project):
    run = fixture_project.run("cost", "--format", "json", "--output", "out/cost.json")
    assert run.code == 2 and "cannot write the report" in run.stderr  # no such directory
    (fixture_project.root / "out").mkdir()
    run = fixture_project.run("cost", "--format", "json", "--output", "out/cost.json")
    assert (run.code, run.stdout, run.stderr) == (0, "", "")
    data = json.loads((fixture_project.root / "out/cost.json").read_text(encoding="utf-8"))
    assert data["totals"]["requests"] == 3


def test_no_requests(project):
    project.write({"package.json": '{"name": "x"}\n'})
    (project.root / "empty").mkdir()
    table, markdown, html, data = project.run_many(
        [("cost",), ("cost", "--format", "markdown"), ("cost", "--format", "html"),
         ("cost", "empty", "--format", "json")])
    assert (table.code, table.lines) == (0, ["No requests found: no prompt template, request or tool file among "
                                             "the files given."])
    assert markdown.code == 0 and "No requests found" in markdown.stdout
    assert html.code == 0 and "No requests found" in html.stdout and "<svg" not in html.stdout
    assert json.loads(data.stdout)["files"] == []


def test_parse_errors_are_named_not_counted(project):
    project.write({"bad.j2": "{% if x %}\nHello\n", "good.j2": TEMPLATE})
    run = project.run("cost")
    assert run.code == 0
    assert any(line.startswith("  not counted: bad.j2:") and line.endswith("(see `ctxlint check`)")
               for line in run.lines)
    assert "1 request in 1 file: " in run.stdout


def test_usage_errors_exit_2(fixture_project):
    runs = fixture_project.run_many([
        ("cost", "--max-increase", "10%"),  # needs --compare
        ("cost", "--compare", "HEAD", "--max-increase", "ten"),
        ("cost", "--compare", "HEAD", "--max-increase", "1.5"),
        ("cost", "missing/"),
        ("cost", "--format", "pdf"),
    ])
    assert [r.code for r in runs] == [2, 2, 2, 2, 2]
    assert runs[0].err_lines == ["ctxlint: error: --max-increase needs --compare GIT_REF: the increase is "
                                 "measured against that revision"]
    assert "is not a number of tokens (500) or a percentage (10%)" in runs[1].stderr
    assert "a number of tokens is a whole number" in runs[2].stderr
    assert runs[3].err_lines == ["ctxlint: error: missing/: no such file or directory"]


@pytest.mark.parametrize(("text", "value", "percent"), [
    ("500", 500, False), ("10%", 10, True), (" 2.5 % ", 2.5, True), ("1,000", 1000, False), ("0", 0, False)])
def test_increase_parsing(text, value, percent):
    assert Increase.parse(text) == Increase(value, percent)


@pytest.mark.parametrize("text", ["", "-5", "5x", "%", "10%%", "1e3"])
def test_increase_parsing_rejects(text):
    with pytest.raises(ValueError):
        Increase.parse(text)


# --- absolute limits from the config --------------------------------------------------------------


def test_config_limits(fixture_project):
    expected = _expected(fixture_project.root)
    weather = expected["tools/weather.json"]
    biggest = max(weather.tool_costs, key=lambda t: t.tokens)
    limit = biggest.tokens - 1
    over = [(c, t) for _, c in sorted(expected.items()) for t in c.tool_costs if t.tokens > limit]
    assert biggest in [t for _, t in over]
    fixture_project.write({"ctxlint.toml": f'model = "gpt-4o"\n[cost]\nmax-tool-tokens = {limit}\n'})
    run = fixture_project.run("cost")
    assert run.code == 1
    assert run.lines[-1 - len(over)] == f"Limits: FAILED (max-tool-tokens {limit:,})"
    assert run.lines[-len(over):] == [
        f"  {t.span.path}:{t.span.line}: tool `{t.name}` costs {'' if c.exact else '~'}{t.tokens:,} tokens, "
        f"over max-tool-tokens ({limit:,}); its biggest field is `{t.biggest_field}` "
        f"({'' if c.exact else '~'}{t.biggest_field_tokens:,} tokens)" for c, t in over]

    biggest = max((t for c in expected.values() for t in c.tool_costs), key=lambda t: t.tokens)
    fixture_project.write({"ctxlint.toml": f'model = "gpt-4o"\n[cost]\nmax-tool-tokens = {biggest.tokens}\n'})
    run = fixture_project.run("cost")
    assert run.code == 0 and run.lines[-1] == f"Limits: passed (max-tool-tokens {biggest.tokens:,})."

    billing = expected["requests/billing.json"]
    template = expected["prompts/support.j2"]
    fixture_project.write({"pyproject.toml": (
        '[tool.ctxlint]\nmodel = "gpt-4o"\n[tool.ctxlint.cost]\n'
        f"max-request-tokens = {template.total_input}\n"
        f"max-total-tool-tokens = {weather.tools}\n")})
    (fixture_project.root / "ctxlint.toml").unlink()
    run = fixture_project.run("cost", "--format", "json")
    assert run.code == 1
    data = json.loads(run.stdout)
    assert data["passed"] is False
    assert data["limits"] == {"max-increase": None, "max-request-tokens": template.total_input,
                              "max-total-tool-tokens": weather.tools}
    violations = {(v["limit"], v["path"]) for v in data["violations"]}
    # The template is at the limit (not over it); the catalogue and the Anthropic request are over.
    assert violations == {("max-request-tokens", "tools/weather.json"), ("max-request-tokens", "requests/billing.json"),
                          ("max-total-tool-tokens", "requests/billing.json")}
    message = next(v["message"] for v in data["violations"] if v["limit"] == "max-total-tool-tokens")
    assert message.startswith(f"its 1 tools cost ~{billing.tools:,} tokens on every call, over max-total-tool-tokens")


def test_limits_with_output_file_go_to_stderr(fixture_project):
    fixture_project.write({"ctxlint.toml": "[cost]\nmax-request-tokens = 1\n"})
    run = fixture_project.run("cost", "--format", "markdown", "--output", "cost.md")
    assert run.code == 1 and run.stdout == ""
    assert len(run.err_lines) == 3 and all("over max-request-tokens (1)" in line for line in run.err_lines)
    assert "❌ **Over the limits** (max-request-tokens 1):" in (fixture_project.root / "cost.md").read_text("utf-8")


@pytest.mark.parametrize(("table", "message"), [
    ("[cost]\nmax-tool-tokens = 0\n", "2: `cost.max-tool-tokens` must be a positive number of tokens"),
    ("[cost]\nmax-tool-tokens = \"500\"\n", "2: `cost.max-tool-tokens` must be a positive number of tokens"),
    ("[cost]\nmax-tool-tokens = true\n", "2: `cost.max-tool-tokens` must be a positive number of tokens"),
    ("[cost]\nmax-increase = 5\n", "2: `cost.max-increase`: unknown key (keys: max-request-tokens, max-tool-tokens, "
                                   "max-total-tool-tokens, expected-output-tokens, set-aside, extend-set-aside, "
                                   "include-set-aside)"),
    ("[cost]\nexpected-output-tokens = -3\n", "2: `cost.expected-output-tokens` must be a positive number of tokens"),
    ("[cost]\nset-aside = \"tests/**\"\n", "2: `cost.set-aside` must be a list of globs"),
    ("[cost]\ninclude-set-aside = 1\n", "2: `cost.include-set-aside` must be true or false"),
    ("cost = 5\n", "1: `cost` must be a table"),
])
def test_config_limits_are_validated(project, table, message):
    project.write({"ctxlint.toml": table, "a.j2": TEMPLATE})
    run = project.run("cost")
    assert run.code == 2
    assert run.err_lines == [f"ctxlint: error: {project.root / 'ctxlint.toml'}:{message}"]


def test_config_limits_load(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.ctxlint.cost]\nmax-request-tokens = 8000\nmax-tool-tokens = 500\n", encoding="utf-8")
    settings = load_settings(path, tmp_path)
    assert settings.cost_limits == {"max-request-tokens": 8000, "max-tool-tokens": 500}
    assert Settings(root=tmp_path).cost_limits == {}


# --- renderers on hand-made values (deltas, estimates, unknown prices) -----------------------------


def _cost(path: str, total: int, tools: tuple[ToolCost, ...] = (), exact: bool = True, price: float | None = 1.0):
    tool_tokens = sum(t.tokens for t in tools)
    pricing = Pricing(input=price, cached_input=None, cached_tokens=0, cache_note="", output_bound_tokens=100,
                      output_bound_from="max_tokens", output_bound=None if price is None else 0.5,
                      expected_output_tokens=None, expected_output=None)
    return RequestCost(path=path, line=1, model="gpt-4o" if exact else "claude-sonnet-4-5", model_known=True,
                       provider="openai" if exact else "anthropic", encoding="o200k_base", exact=exact,
                       basis=("openai-chat",) if exact else ("anthropic",), tools=tool_tokens, tool_costs=tools,
                       system=total - tool_tokens - 3, messages=0, other=3, reserve=100, total_input=total,
                       cacheable_prefix=total, window=128_000, window_share=(total + 100) / 128_000, pricing=pricing,
                       note="" if exact else "estimate: Anthropic publishes no tokenizer")


def _tool(name: str, tokens: int, total: int) -> ToolCost:
    return ToolCost(name, tokens, tokens / total, "description", tokens // 2, Span.point("a.json", 3))


def _hand_made_report() -> CostReport:
    tools = (_tool("search", 300, 400), _tool("refund", 100, 400))
    files = (FileCost("a.json", (_cost("a.json", 1_403, tools),)),
             FileCost("b.j2", (_cost("b.j2", 53, exact=False, price=None),)))
    comparison = Comparison("origin/main", "0123456789abcdef", (
        FileChange("a.json", 1_203, 1_403, (RequestChange(0, 1, 1_203, 1_403, (
            ToolChange("search", 150, 300), ToolChange("refund", None, 100), ToolChange("old", 50, None))),)),
        FileChange("b.j2", 53, 53, (RequestChange(0, 1, 53, 53, ()),)),
    ), 1_256, 1_456)
    increase = Increase(10, True)
    violations = tuple(check_limits(files, {}, comparison, increase))
    return CostReport(files, (), {}, increase, comparison, violations)


def test_hand_made_deltas_in_every_format():
    report = _hand_made_report()
    assert [v.limit for v in report.violations] == ["max-increase"]  # +200 is +15.9% of 1,256
    table = cost_table.render(report, width=400)
    assert "Limits: FAILED (max increase 10%)" in table
    assert "  the requests' input grows by 200 tokens (+15.9%), from 1,256 at origin/main to 1,456, over " \
           "--max-increase 10%; trim what grew (see the changes), or raise the limit if the growth is intended" in table
    changes = table[table.index("Changes against origin/main (0123456789ab)"):].splitlines()
    assert [line.split() for line in changes[1:7]] == [
        ["file", "status", "before", "after", "delta", "%", "Δ", "$/1k"],
        ["a.json", "changed", "1,203", "1,403", "+200", "+16.6%"],
        ["request", "at", "line", "1", "changed", "1,203", "1,403", "+200", "+16.6%"],
        ["tool", "search", "changed", "150", "300", "+150", "+100.0%"],
        ["tool", "refund", "added", "—", "100", "+100"],
        ["tool", "old", "removed", "50", "—", "-50", "-100.0%"],
    ]
    assert changes[7].split() == ["total", "1,256", "1,456", "+200", "+15.9%"]
    assert "b.j2" not in "\n".join(changes[:8])  # unchanged files are left out of the changes

    markdown = cost_markdown.render(report)
    assert "Against `origin/main` (`0123456789ab`): **+200 tokens** (+15.9%), from 1,256 to 1,456." in markdown
    assert "❌ **Over the limits** (max increase 10%):" in markdown
    assert "| &nbsp;&nbsp;↳ tool `refund` | added | — | 100 | +100 | |" in markdown
    assert "| &nbsp;&nbsp;↳ tool `old` | removed | 50 | — | -50 (-100.0%) | |" in markdown
    assert "| **total** | | 1,256 | 1,456 | **+200** (+15.9%) |  |" in markdown  # no price known on either side
    assert "| `search` | 300 | 75.0% | `description` | 150 | +150 |" in markdown
    assert "| `refund` | 100 | 25.0% | `description` | 50 | new |" in markdown
    # The untouched request is folded away; the estimate keeps its marks.
    assert "<details><summary>1 request this change does not touch</summary>" in markdown
    assert "| `b.j2:1` | claude-sonnet-4-5 | ~0 | ~50 | ~0 | **~53** | 0 |  | 0.1% | ~53 | 0 | n/a | — | n/a |" \
        in markdown  # Δ 0, no price to compare, then the prices

    data = json.loads(cost_json.render(report))
    assert data["comparison"]["delta"] == 200 and data["comparison"]["percent"] == pytest.approx(15.9236, abs=1e-3)
    assert [f["path"] for f in data["comparison"]["files"]] == ["a.json"]
    assert data["comparison"]["files"][0]["requests"][0]["tools"] == [
        {"name": "search", "status": "changed", "before": 150, "after": 300, "delta": 150},
        {"name": "refund", "status": "added", "before": None, "after": 100, "delta": 100},
        {"name": "old", "status": "removed", "before": 50, "after": None, "delta": -50},
    ]
    assert data["files"][0]["requests"][0]["delta"] == 200
    assert [t["delta"] for t in data["files"][0]["requests"][0]["tools"]] == [150, None]
    assert data["limits"]["max-increase"] == "10%" and data["passed"] is False
    assert data["totals"]["unpriced_requests"] == 1 and data["totals"]["input_price"] == 1.0

    html = cost_html.render(report)
    assert "+200 tokens (+15.9%)" in html and 'class="gate bad"' in html
    assert html.count('<line class="before"') == 2  # the legend, and the one request that changed


def test_increase_limits_edges():
    def comparison(before: int, after: int) -> Comparison:
        return Comparison("main", "c", (), before, after)

    assert check_limits([], {}, comparison(1000, 1100), Increase(10, True)) == []  # exactly 10% is within
    assert len(check_limits([], {}, comparison(1000, 1101), Increase(10, True))) == 1
    assert check_limits([], {}, comparison(1000, 1500), Increase(500, False)) == []
    assert len(check_limits([], {}, comparison(1000, 1501), Increase(500, False))) == 1
    assert check_limits([], {}, comparison(1000, 200), Increase(0, False)) == []  # shrinking always passes
    # No baseline (a first commit): a percentage cannot be judged, a token count can.
    assert check_limits([], {}, comparison(0, 5000), Increase(10, True)) == []
    assert len(check_limits([], {}, comparison(0, 5000), Increase(500, False))) == 1


def test_money_and_share_formats():
    assert [money(v) for v in (None, 0, 0.00004, 0.0042, 0.05, 0.24, 8.19, 1234.5)] == [
        "n/a", "$0", "<$0.0001", "$0.0042", "$0.05", "$0.24", "$8.19", "$1,234"]


# --- progress ---------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_in_a_terminal_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    stream = _Terminal()
    progress = Progress(50, "ctxlint cost", stream)
    for done in range(51):
        progress.update(done)
    progress.close()
    text = stream.getvalue()
    assert text.startswith("\rctxlint cost: 0/50 files") and "\rctxlint cost: 50/50 files" in text
    assert "\n" not in text and text.endswith("\r")  # one updating line, erased at the end

    for stream, total, ci in ((io.StringIO(), 50, None), (_Terminal(), 20, None), (_Terminal(), 50, "true")):
        if ci:
            monkeypatch.setenv("CI", ci)
        progress = Progress(total, "ctxlint cost", stream)
        progress.update(0)
        progress.update(total)
        progress.close()
        assert stream.getvalue() == "", (total, ci)


def _many_files(project, n: int = 30):
    project.write({f"p/{i:03}.j2": f"Prompt number {i}.\n" for i in range(n)})


def test_no_progress_when_piped(project):
    _many_files(project)
    run = project.run("cost", "--format", "json")
    assert run.code == 0 and run.stderr == ""
    assert json.loads(run.stdout)["totals"]["requests"] == 30


def _run_with_terminal_stderr(cwd: Path, env: dict) -> tuple[str, str]:
    """Run `ctxlint cost` with stderr on a pseudo-terminal and stdout on a pipe."""
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "ctxlint.cli", "cost"], cwd=cwd, stdout=subprocess.PIPE,
                                stderr=secondary, env=env)
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        stdout = proc.stdout.read().decode()
        proc.wait(timeout=60)
    finally:
        os.close(primary)
    return stdout, b"".join(chunks).decode()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_on_a_terminal_never_in_the_report(project):
    _many_files(project)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    stdout, stderr = _run_with_terminal_stderr(project.root, env)
    assert "\rctxlint cost: 30/30 files" in stderr and "\n" not in stderr
    assert "ctxlint cost:" not in stdout and stdout.splitlines()[1].startswith("request ")
    _, quiet = _run_with_terminal_stderr(project.root, {**env, "CI": "true"})
    assert quiet == ""


# --- every core, as check ----------------------------------------------------------------------------


def test_parallel_collection_prices_exactly_what_one_process_does(tmp_path):
    from ctxlint.cost import collect
    from ctxlint.engine import PARALLEL_THRESHOLD

    for i in range(PARALLEL_THRESHOLD + 10):
        (tmp_path / f"p{i:03}.j2").write_text(f"You answer question {i} about orders. {{{{ q }}}}\n", encoding="utf-8")
    (tmp_path / "tools.json").write_text(json.dumps([WEATHER, FORECAST]), encoding="utf-8")
    settings = Settings(root=tmp_path, model="gpt-4o")
    linter = Linter(settings, CATALOGUE)
    files = sorted(tmp_path.iterdir())
    one = collect(linter, files, [], jobs=1)
    many = collect(linter, files, [], jobs=2)
    assert len(one) == len(files)
    assert [(f.path, [(r.total_input, r.exact, r.pricing) for r in f.requests]) for f in many] == \
        [(f.path, [(r.total_input, r.exact, r.pricing) for r in f.requests]) for f in one]


def test_a_crewai_agent_is_one_system_prompt(project):
    project.write({"agents.yaml": (
        "analyst:\n"
        "  role: Senior {topic} analyst\n"
        "  goal: Find the three strongest arguments about {topic}\n"
        "  backstory: You have read every report on {topic} and you quote your sources.\n")})
    data = json.loads(project.run("cost", "--format", "json").stdout)
    (request,) = data["files"][0]["requests"]
    texts = ["Senior ", " analyst", "Find the three strongest arguments about ",
             "You have read every report on ", " and you quote your sources."]
    assert request["tokens"]["system"] == TOKENS_PER_MESSAGE + count_tokens("system") + sum(map(count_tokens, texts))
    assert request["tokens"]["messages"] == 0


# --- counts that don't overclaim, output that fits (issue 25) -----------------------------------------

LOADED_TOOLS = '''import json

from openai import OpenAI

client = OpenAI()
TOOLS = json.load(open("tools.json"))


def answer(question):
    return client.chat.completions.create(
        model="gpt-4o", max_tokens=400, tools=TOOLS,
        messages=[{"role": "system", "content": "You are the weather desk. Answer in one sentence."},
                  {"role": "user", "content": question}])


def relay(messages, system_text):
    client.chat.completions.create(model="gpt-4o", max_tokens=100, messages=messages)
    client.chat.completions.create(model="gpt-4o", max_tokens=100, messages=[
        {"role": "system", "content": system_text}, {"role": "user", "content": "Hi"}])
'''


def test_values_ctxlint_cannot_read_make_a_lower_bound_in_every_format(project):
    """`tools=json.load(...)` sends tools the count cannot see: not exact, a lower bound (≥)."""
    project.write({"app.py": LOADED_TOOLS, "tools.json": json.dumps([WEATHER], indent=2) + "\n"})
    table, markdown, html, data = project.run_many(
        [("cost", "app.py")] + [("cost", "app.py", "--output-format", fmt) for fmt in ("markdown", "html", "json")])
    requests = json.loads(data.stdout)["files"][0]["requests"]
    assert [(r["line"], r["exact"], r["lower_bound"], r["unseen"]) for r in requests] == [
        (10, False, True, ['tools from `json.load(open("tools.json"))`']),
        (17, False, True, ["messages from `messages`"]),
        (18, False, True, ["system text from `system_text`"])]
    assert all("unseen-values" in r["basis"] for r in requests)
    assert json.loads(data.stdout)["totals"]["lower_bound_requests"] == 3
    rows = {line.split()[0]: line.split() for line in table.lines if line.startswith("app.py:")}
    assert rows["app.py:10"][5] == f"≥{requests[0]['tokens']['input']:,}"  # input, marked
    assert "≥ marks lower bounds (3 requests: they send values ctxlint cannot read, named in the notes)." \
        in table.lines
    assert '  ≥ lower bound: ctxlint cannot read tools from `json.load(open("tools.json"))` (app.py:10)' in table.lines
    assert f"| **≥{requests[0]['tokens']['input']:,}** |" in markdown.stdout
    assert '<span class="est"' in html.stdout and ">lower bound</span>" in html.stdout


def test_tool_call_conversations_are_estimates_and_a_tool_message_has_no_name(project):
    """Published counts of tool-call conversations disagree by a few tokens: the count is an
    estimate; and a `name` on a tool message is not part of the API, so it is not counted."""
    call = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
        "name": "get_current_weather", "arguments": '{"location": "Boston"}'}}]}
    result = {"role": "tool", "tool_call_id": "call_1", "content": "It is 70 degrees and sunny in Boston."}
    project.write({
        "plain.json": json.dumps({"model": "gpt-4", "messages": [call, result]}),
        "named.json": json.dumps({"model": "gpt-4", "messages": [call, {**result, "name": "get_current_weather"}]}),
    })
    data = json.loads(project.run("cost", "--output-format", "json").stdout)
    costs = {f["path"]: f["requests"][0] for f in data["files"]}
    assert [(c["exact"], "message-unverified" in c["basis"]) for c in costs.values()] == [(False, True)] * 2
    assert costs["named.json"]["tokens"]["input"] == costs["plain.json"]["tokens"]["input"]
    table = project.run("cost")
    assert any(line.startswith("named.json:1") and f"~{costs['named.json']['tokens']['input']:,}" in line.split()
               for line in table.lines)


def test_a_responses_request_with_a_string_input_is_read(project):
    project.write({
        "story.json": json.dumps({"model": "gpt-4.1", "input": "Tell me a three sentence bedtime story."}),
        "story.yaml": "model: gpt-4o\ninput: Tell me a three sentence bedtime story.\n",
        "embed.json": json.dumps({"model": "text-embedding-3-small", "input": "The food was delicious."}),
        "call.py": "from openai import OpenAI\n\nclient = OpenAI()\nclient.responses.create(model=\"gpt-4o\", "
                   "max_output_tokens=300, input=\"Tell me a three sentence bedtime story.\")\n",
    })
    data = json.loads(project.run("cost", "--output-format", "json").stdout)
    costs = {f["path"]: f["requests"][0] for f in data["files"]}
    assert sorted(costs) == ["call.py", "story.json", "story.yaml"]  # an embedding is no chat request
    for cost in costs.values():
        assert cost["exact"] is False and "responses-api" in cost["basis"], cost
        assert cost["tokens"]["messages"] == count_tokens("Tell me a three sentence bedtime story.") + 3 + 1


LONG = "services/customer_support/prompts/escalations/"


def test_the_table_fits_100_columns_and_folds_narrower(project):
    project.write({"ctxlint.toml": 'model = "gpt-4o"\n', f"{LONG}refund_request_review.json":
                   json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 800, "tools": [WEATHER["function"] | {
                       "input_schema": WEATHER["function"]["parameters"]}],
                               "messages": [{"role": "user", "content": "Hi"}]}),
                   "prompts/support.j2": TEMPLATE, "tools/weather.json": json.dumps([WEATHER, FORECAST])})
    # Piped (no terminal, no COLUMNS): 100 columns; COLUMNS is the terminal's width.
    piped, narrow, wide = (project.run("cost", env={"COLUMNS": columns}) for columns in ("", "70", "400"))
    assert max(len(line) for line in piped.lines) <= 100 < max(len(line) for line in wide.lines)
    assert max(len(line) for line in narrow.lines) <= 70
    headers = piped.lines[1].split()
    assert headers[0] == "request" and "input" in headers and "tools" not in headers
    assert any(line.startswith("Left out at 100 columns: cached, cacheable, window") for line in piped.lines)
    # Folded at 70: a label wider than its column goes on lines of its own, its numbers under it.
    label = f"{LONG}refund_request_review.json:1"
    assert "".join(narrow.lines[3:5]) == label and narrow.lines[5].startswith(" ") and "~" in narrow.lines[5]
    assert wide.lines[1].split()[:6] == ["request", "model", "tools", "system", "messages", "input"]


def test_the_chart_shows_dollars_and_draws_a_request_without_a_limit_as_unbounded(project):
    """A request with no output limit is not the cheapest bar: its reserve runs to the end of the
    axis, and every bar says what it costs in dollars (issue 25)."""
    project.write({"ctxlint.toml": 'model = "gpt-4o"\n', "open.j2": TEMPLATE,
                   "capped.prompty": "---\nmodel:\n  api: chat\n  parameters:\n    max_tokens: 300\n---\n"
                                     "system:\n" + SYSTEM_TEXT})
    page = project.run("cost", "--output-format", "html").stdout
    data = json.loads(project.run("cost", "--output-format", "json").stdout)
    costs = {f["path"]: f["requests"][0] for f in data["files"]}
    bars = {m.group(1).split(":")[0]: m.group(0)
            for m in re.finditer(r'<g class="bar" data-request="([^"]+)".*?</g>', page, re.DOTALL)}
    capped, unlimited = costs["capped.prompty"], costs["open.j2"]
    assert f"{capped['tokens']['input']:,} · {money(capped['price']['input'])} + 300 reserve " \
           f"(≤ {money(capped['price']['output_bound'])})</text>" in bars["capped.prompty"]
    assert f"{unlimited['tokens']['input']:,} · {money(unlimited['price']['input'])} + no output limit</text>" \
        in bars["open.j2"]
    assert 'class="seg seg-unbounded"' in bars["open.j2"] and "seg-unbounded" not in bars["capped.prompty"]
    edge = cost_html.WIDTH - cost_html.RIGHT  # the end of the axis
    x, width = (float(v) for v in re.search(r'seg-unbounded" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"',
                                            bars["open.j2"]).groups())
    assert x + width == pytest.approx(edge, abs=0.01)
    assert 'class="swatch swatch-unbounded"' in page and ">No output limit</text>" in page
