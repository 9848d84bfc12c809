"""`ctxlint budget` as a subprocess: the experiment's table word for word, the formats, exit codes
0/1/2, clear errors for bad input, and rule CTX206 on the same example through `ctxlint check`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "budget"

TABLE_800 = """\
payout_review.yaml:25  gpt-4o (o200k_base, exact)
fixtures: payout_review.fixtures.yaml

mode: priority   budget: 800   reserve: 256 (max_tokens)   input cap: 544
duplicates: 3 lines removed (tool_result 3), 69 tokens saved
segment      kind        prio  requested  granted  used  action     reason
{rule}
framing      framing      pin         11       11    11  keep       message framing and reply priming
tools        tools         60        576      112    94  compress   descriptions and enums dropped; names, \
types, required kept; 2 of 6 tools left out (open_ticket, export_report)
system       static       pin        101      101   101  keep       pinned: never cut
user         static       pin         23       23    23  keep       pinned: never cut
task         variable     pin        131      131   131  keep       pinned: never cut
memory       collection    50        172       59    47  extract    kept the 1 of 9 lines with the most \
facts, in order, + marker
history      collection    40        158       57    52  summarize  last 1 of 6 turns + 1 failure line of the \
4 before them, + marker
tool_result  variable      30        449       50    50  truncate   head 55% + tail 45% + marker, 417 tokens \
left out, ref ledger://query/8841
{rule}
total                              1,621      544   509
input 63.6% of the budget; output reserve 32.0%; headroom 35
key fields, read back after the cuts:
  [OK  ]  amounts in cents     "in cents"                        @task
  [OK  ]  query time limit     "45 seconds"                      @task
  [OK  ]  no merchant contact  "Do not email or call merchants"  @task
  [OK  ]  ledger is read-only  "read-only"                       @task
  [OK  ]  partial flag         "partial=true"                    @task
  [MISS]  mismatch rate        "0.0187"                          @tool_result  lost to truncate
  [OK  ]  rate-limit failure   /\\b429\\b/                         @history
  [MISS]  settlement lag       "T+2"                             @history      lost to summarize
  [MISS]  snapshot date        "2025-06-30"                      @memory       lost to extract
  [MISS]  ledger source        "warehouse://finance/payouts/v4"  @memory       lost to extract
read back: 6/10 kept; missing: mismatch rate, settlement lag, snapshot date, ledger source
""".replace("{rule}", "-" * 179)


@pytest.fixture
def example(project):
    for name in ("payout_review.yaml", "payout_review.fixtures.yaml"):
        project.write({name: (EXAMPLE / name).read_text(encoding="utf-8")})
    return project


def test_the_experiment_as_the_command_prints_it(example):
    at_800, at_1200, naive, declared = example.run_many([
        ("budget", "payout_review.yaml", "--budget", "800"),
        ("budget", "payout_review.yaml", "--budget", "1200"),
        ("budget", "payout_review.yaml", "--budget", "800", "--naive"),
        ("budget", "payout_review.yaml"),  # the declared min-budget: 800
    ])
    assert (at_800.code, at_800.stdout, at_800.stderr) == (1, TABLE_800, "")
    assert at_1200.code == 0 and at_1200.lines[-1] == "read back: 10/10 kept; none missing"
    assert "tools        tools         60        576      245   185  compress   descriptions dropped; names, " \
           "parameters, required kept" in at_1200.lines
    assert naive.code == 1
    assert naive.lines[3] == ("mode: naive (fill in request order, cut at the edge)   budget: 800   reserve: 0 "
                              "(naive ignores the output limit)   input cap: 800")
    assert "task         variable     pin        131       89    89  hard_cut  cut at the budget edge after 89 " \
           "tokens, no marker" in naive.lines
    assert naive.lines[-1] == ("read back: 3/10 kept; missing: ledger is read-only, partial flag, mismatch rate, "
                               "rate-limit failure, settlement lag, snapshot date, ledger source")
    assert declared.stdout == at_800.stdout


def test_json_and_markdown(example):
    as_json, markdown, to_file = example.run_many([
        ("budget", "payout_review.yaml", "--budget", "800,1200", "--format", "json"),
        ("budget", "payout_review.yaml", "--budget", "800", "--format", "markdown"),
        ("budget", "payout_review.yaml", "--budget", "800", "-o", "budget.txt"),
    ])
    data = json.loads(as_json.stdout)
    (request,) = data["requests"]
    assert (request["model"], request["encoding"], request["exact"], request["reserve"]) == ("gpt-4o", "o200k_base",
                                                                                            True, 256)
    runs = request["runs"]
    assert [(r["budget"], r["mode"], r["input_cap"], r["kept"], r["total"]) for r in runs] == [
        (800, "priority", 544, 6, 10), (1200, "priority", 944, 10, 10)]
    assert runs[0]["duplicates"] == {"lines": 3, "tokens": 69, "segments": {"tool_result": 3},
                                     "near_duplicates_partial": False}
    assert runs[0]["rows"][1] == {"segment": "tools", "kind": "tools", "policy": "compress", "priority": 60,
                                  "requested": 576, "granted": 112, "used": 94, "action": "compress",
                                  "reason": "descriptions and enums dropped; names, types, required kept; 2 of 6 "
                                            "tools left out (open_ticket, export_report)"}
    assert runs[0]["totals"] == {"requested": 1621, "granted": 544, "used": 509, "headroom": 35,
                                 "input_share": 0.6362, "reserve_share": 0.32}
    lost = [f for f in runs[0]["fields"] if f["status"] == "miss"]
    assert [(f["name"], f["action"], f["line"]) for f in lost] == [
        ("mismatch rate", "truncate", 20), ("settlement lag", "summarize", 22), ("snapshot date", "extract", 23),
        ("ledger source", "extract", 24)]
    assert as_json.code == 1
    assert markdown.lines[:3] == ["## ctxlint budget", "", "### `payout_review.yaml:25`"]
    assert "| tools | tools | 60 | 576 | 112 | 94 | compress | descriptions and enums dropped; names, types, required " \
           "kept; 2 of 6 tools left out (open_ticket, export_report) |" in markdown.lines
    assert "- `[MISS]` settlement lag `\"T+2\"` @history (lost to summarize)" in markdown.lines
    assert (to_file.code, to_file.stdout) == (1, "")
    assert (example.root / "budget.txt").read_text(encoding="utf-8") == TABLE_800


def test_the_rule_reports_the_same_losses_through_check(example):
    run = example.run("check", "--select", "CTX206", "--output-format", "concise")
    assert run.code == 1
    assert run.located == ["payout_review.yaml:20:1: CTX206", "payout_review.yaml:22:1: CTX206",
                           "payout_review.yaml:23:1: CTX206", "payout_review.yaml:24:1: CTX206"]
    assert run.lines[1] == (
        "payout_review.yaml:22:1: CTX206 Key field `settlement lag` (\"T+2\") is lost at the declared minimum budget "
        "of 800 tokens: `summarize` on segment `history` keeps 52 of its 158 tokens and leaves it out. Raise "
        "`history`'s priority or `min`, pin it, or move the field to text that is kept.")
    assert run.lines[-1] == "Found 4 findings (4 errors) in 2 files."


def test_raising_the_minimum_budget_clears_the_rule(example):
    text = (example.root / "payout_review.yaml").read_text(encoding="utf-8")
    example.write({"payout_review.yaml": text.replace("min-budget=800", "min-budget=1200")})
    run = example.run("check", "--select", "CTX206")
    assert (run.code, run.lines) == (0, ["All checks passed (2 files checked)."])


def test_pinned_content_over_a_budget_is_reported_not_cut(example):
    run = example.run("budget", "payout_review.yaml", "--budget", "500")
    assert run.code == 1
    assert run.lines[4] == (
        "error: the pinned segments need 266 tokens (framing 11, system 101, user 23, task 131), over the 244 the "
        "budget leaves after the 256-token reserve; pinned content is never cut: raise the budget, lower the "
        "reserve, or unpin a segment")


def test_fixtures_from_the_command_line_and_sizes(example):
    example.write({
        "other.json": json.dumps({"memory": ["Snapshot 2025-06-30 from warehouse://finance/payouts/v4."]}),
        "t.j2": "Answer from the notes.\n{{ notes }}\n",
    })
    with_file, sized = example.run_many([
        ("budget", "payout_review.yaml", "--budget", "1200", "--fixtures", "other.json", "--format", "json"),
        ("budget", "t.j2", "--budget", "500", "--size", "notes=200", "--format", "json"),
    ])
    runs = json.loads(with_file.stdout)["requests"][0]["runs"]
    statuses = {f["name"]: f["status"] for f in runs[0]["fields"]}
    assert statuses["snapshot date"] == statuses["ledger source"] == "ok"
    assert statuses["settlement lag"] == "unknown"  # history has no sample content in other.json
    assert with_file.code == 0
    rows = {r["segment"]: r for r in json.loads(sized.stdout)["requests"][0]["runs"][0]["rows"]}
    assert 195 <= rows["notes"]["requested"] <= 200 and rows["notes"]["action"] == "keep"


def test_config_declares_the_budget_by_glob(project):
    project.write({
        "ctxlint.toml": '[budget."prompts/*.j2"]\nmin-budget = 60\n'
                        'segments.notes = { policy = "truncate", ref = "kb://notes" }\n'
                        '[[budget."prompts/*.j2".key-fields]]\nname = "deadline"\nsegment = "notes"\ntext = "Friday"\n',
        "prompts/a.j2": "Answer.\n{{ notes }}\n",
        "prompts/a.fixtures.yaml": "notes: |\n" + "".join(f"  Line {i}: routine entry.\n" for i in range(30))
                                   + "  The report is due Friday.\n" + "".join(f"  Entry {i} closed.\n" for i in range(30)),
    })
    run = project.run("budget", "prompts/a.j2")
    assert run.code == 1
    assert ("notes    variable    50        366       50    50  truncate  head 55% + tail 45% + marker, 331 tokens "
            "left out, ref kb://notes") in run.lines
    assert run.lines[-1] == "read back: 0/1 kept; missing: deadline"


@pytest.mark.parametrize(("args", "files", "error"), [
    (("--budget", "80x"), {}, ("--budget: `80x` is not a positive number of tokens (give one or more, "
                              "comma-separated: --budget 800,1200)")),
    (("--budget", "200000"), {}, ("--budget 200,000 is above gpt-4o's 128,000-token window; simulate a budget the "
                                 "model can take")),
    (("--budget", "800", "--size", "x"), {}, "--size: `x` must be SEGMENT=TOKENS, such as --size history=600"),
    (("--budget", "800", "--fixtures", "nope.yaml"), {}, "nope.yaml: fixtures file not found"),
    (("--budget", "800", "--fixtures", "typo.yaml"), {"typo.yaml": "memroy: hi\n"},
     ("typo.yaml:1: the fixtures give content for `memroy`, which is not a segment of payout_review.yaml:25 "
     "(segments: tools, system, user, task, memory, history, tool_result)")),
    (("--budget", "800", "--fixtures", "broken.yaml"), {"broken.yaml": "memory: [\n"},
     "broken.yaml:2: invalid YAML: while parsing a flow node, did not find expected node content"),
    (("--budget", "800", "--fixtures", "list.json"), {"list.json": "[1, 2]"},
     "list.json: fixtures must be a mapping of segment name to sample content"),
])
def test_bad_input_is_a_clear_error_with_exit_2(example, args, files, error):
    example.write(files)
    run = example.run("budget", "payout_review.yaml", *args)
    assert (run.code, run.stdout, run.err_lines) == (2, "", [f"ctxlint: error: {error}"])


def test_bad_prompts_are_clear_errors_with_exit_2(project):
    project.write({"bad.j2": "Hello {{ name }\n", "t.j2": "Answer.\n{{ notes }}\n", "notes.txt": "hi\n",
                   "d.j2": "{# ctxlint: budget notes policy=squash #}\n{{ notes }}\n"})
    runs = project.run_many([("budget", "bad.j2", "--budget", "100"), ("budget", "t.j2"),
                             ("budget", "notes.txt", "--budget", "100"), ("budget", "missing.j2", "--budget", "100"),
                             ("budget", "d.j2", "--budget", "100")])
    assert [(r.code, r.err_lines) for r in runs] == [
        (2, ["ctxlint: error: bad.j2:1:1: cannot parse: unexpected '}'"]),
        (2, [("ctxlint: error: t.j2: give the budgets to simulate (--budget 800,1200) or declare one "
             "(`ctxlint: budget min-budget=N`)")]),
        (2, [("ctxlint: error: notes.txt: not a prompt file ctxlint reads (see `Formats it reads` in the README, "
             "or map it in [tool.ctxlint.formats])")]),
        (2, ["ctxlint: error: missing.j2: no such file"]),
        (2, [("ctxlint: error: d.j2:1: `ctxlint: budget notes`: policy `squash` is not one of pin, compress, "
             "summarize, truncate, drop")]),
    ]


def test_the_rule_is_documented(project):
    run = project.run("rule", "CTX206")
    assert run.code == 0 and run.lines[0].startswith("CTX206 key-field-lost-at-budget")


def test_the_result_cache_goes_stale_when_the_fixtures_change(example):
    first = example.run("check", "--select", "CTX206")
    fixtures = example.root / "payout_review.fixtures.yaml"
    text = fixtures.read_text(encoding="utf-8")
    # The memory notes reduced to the two lines that carry its key fields: extraction keeps both.
    notes = [line for line in text.split("memory: |\n")[1].split("history:")[0].splitlines()
             if "2025-06-30" in line or "warehouse://" in line]
    fixtures.write_text(text.split("memory: |\n")[0] + "memory: |\n" + "\n".join(notes) + "\nhistory:"
                        + text.split("history:", 1)[1], encoding="utf-8")
    second = example.run("check", "--select", "CTX206")
    assert (first.code, len(first.located)) == (1, 4)
    assert second.located == ["payout_review.yaml:20:1: CTX206", "payout_review.yaml:22:1: CTX206"]


def test_without_fixtures_the_command_says_which_segments_are_empty_and_how_to_fill_them(project):
    project.write({"payout_review.yaml": (EXAMPLE / "payout_review.yaml").read_text(encoding="utf-8"),
                   "partial.json": json.dumps({"task": "Reconcile the June payouts.", "memory": ["Snapshot."]})})
    bare, sized, partial, as_json = project.run_many([
        ("budget", "payout_review.yaml"),
        ("budget", "payout_review.yaml", "--size", "memory=300", "--size", "history=400"),
        ("budget", "payout_review.yaml", "--fixtures", "partial.json"),
        ("budget", "payout_review.yaml", "--output-format", "json"),
    ])
    assert bare.code == sized.code == 0 and partial.code == 1  # the fields partial.json lacks are lost
    assert bare.lines[2:5] == [
        "empty: `task`, `memory`, `history`, `tool_result` have no sample content, so their budgets are not",
        "  tested; write payout_review.fixtures.yaml beside the prompt (or pass --fixtures FILE) with sample",
        "  text per segment, or give a size: --size task=TOKENS"]
    assert sized.lines[2].startswith("empty: `task`, `tool_result` have no sample content")
    assert " ".join(line.strip() for line in partial.lines[2:4]).startswith(
        "empty: `history`, `tool_result` have no sample content, so their budgets are not tested; add them "
        "to partial.json")
    assert json.loads(as_json.stdout)["requests"][0]["empty_segments"] == ["task", "memory", "history", "tool_result"]
    project.write({"payout_review.fixtures.yaml": (EXAMPLE / "payout_review.fixtures.yaml").read_text(encoding="utf-8")})
    assert not any(line.startswith("empty:") for line in project.run("budget", "payout_review.yaml").lines)
