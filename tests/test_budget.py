"""`ctxlint budget` below the command line: the experiment in examples/budget, the allocator's
steps, each operator, de-duplication, and the declarations in every place they can be written.

Sizes are never guessed: the expected token counts come from tiktoken (``count_tokens``) and
the cost accounting (``tools_tokens``) run on the same text, so a test fails if the simulation
counts differently from ``ctxlint cost``.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from ctxlint import directives, frontends
from ctxlint.analysis.accounting import request_cost, tools_tokens
from ctxlint.budget import operators
from ctxlint.budget.allocator import MISS, OK, simulate
from ctxlint.budget.fixtures import Content, load
from ctxlint.budget.policy import KeyField, PolicyError
from ctxlint.budget.segments import BudgetSegment, Kind, Meter, Sample
from ctxlint.budget.simulate import (
    BudgetError,
    declarations_for,
    simulate_file,
    words_for,
)
from ctxlint.catalogue import load_catalogue
from ctxlint.checks import option_types
from ctxlint.config import ConfigError, Settings, load_settings
from ctxlint.tokens import count_tokens, lookup_model

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "budget"
GPT4O = Meter(lookup_model("gpt-4o"), "o200k_base")
WORDS = words_for(Settings(root=Path(".")), load_catalogue(checks=option_types()))
CONSTRAINTS = WORDS.constraints


def count(text: str) -> int:
    return count_tokens(text, "o200k_base")


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """The example's three runs: naive at 800, priority at 800 and at 1,200."""
    root = tmp_path_factory.mktemp("experiment")
    for name in ("payout_review.yaml", "payout_review.fixtures.yaml"):
        shutil.copy(EXAMPLE / name, root / name)
    settings = Settings(root=root)
    prompt = root / "payout_review.yaml"
    naive = simulate_file(prompt, [800], settings, WORDS, naive=True)[0]
    priority = simulate_file(prompt, [800, 1200], settings, WORDS)[0]
    return naive.plans[0], priority.plans[0], priority.plans[1], priority, root


def rows(plan):
    return [(r.name, r.requested, r.granted, r.used, r.action) for r in plan.rows]


# --- the experiment ---------------------------------------------------------------------------


def test_naive_keeps_fewer_fields_than_priority_which_keeps_fewer_than_a_larger_budget(experiment):
    naive, at_800, at_1200, _, _ = experiment
    assert (naive.kept, at_800.kept, at_1200.kept) == (3, 6, 10)
    assert [len(p.readback) for p in (naive, at_800, at_1200)] == [10, 10, 10]
    assert [r.field.name for r in at_800.readback if r.status == MISS] == [
        "mismatch rate", "settlement lag", "snapshot date", "ledger source"]
    assert {r.field.name: r.action for r in at_800.missing} == {
        "mismatch rate": "truncate", "settlement lag": "summarize", "snapshot date": "extract",
        "ledger source": "extract"}


def test_naive_fills_in_request_order_with_no_reserve_and_cuts_the_task(experiment):
    naive = experiment[0]
    assert (naive.mode, naive.reserve, naive.cap, naive.used, naive.duplicates) == ("naive", 0, 800, 800, ())
    assert rows(naive) == [
        ("framing", 11, 11, 11, "keep"),
        ("tools", 576, 576, 576, "keep"),
        ("system", 101, 101, 101, "keep"),
        ("user", 23, 23, 23, "keep"),
        ("task", 131, 89, 89, "hard_cut"),
        ("memory", 172, 0, 0, "drop"),
        ("history", 158, 0, 0, "drop"),
        ("tool_result", 518, 0, 0, "drop"),
    ]
    assert [r.field.name for r in naive.readback if r.status == OK] == [
        "amounts in cents", "query time limit", "no merchant contact"]


def test_priority_tables_at_800_and_1200(experiment):
    _, at_800, at_1200, _, _ = experiment
    assert (at_800.reserve, at_800.cap, at_800.used, at_800.headroom) == (256, 544, 509, 35)
    # The two budgets side by side: each segment asks for the same and is given the same treatment;
    # what the larger budget buys is the (granted, used) of each, at 800 and at 1200.
    treatment = [(r.name, r.requested, r.action) for r in at_800.rows]
    assert [(r.name, r.requested, r.action) for r in at_1200.rows] == treatment
    assert [(a.name, a.requested, a.action, (a.granted, a.used), (b.granted, b.used))
            for a, b in zip(at_800.rows, at_1200.rows, strict=True)] == [
        ("framing", 11, "keep", (11, 11), (11, 11)),
        ("tools", 576, "compress", (112, 94), (245, 185)),
        ("system", 101, "keep", (101, 101), (101, 101)),
        ("user", 23, "keep", (23, 23), (23, 23)),
        ("task", 131, "keep", (131, 131), (131, 131)),
        ("memory", 172, "extract", (59, 47), (170, 158)),
        ("history", 158, "summarize", (57, 52), (146, 113)),
        ("tool_result", 449, "truncate", (50, 50), (117, 117)),
    ]
    assert (at_1200.cap, at_1200.used, at_1200.headroom) == (944, 839, 105)
    assert round(at_1200.input_share, 3) == 0.699 and round(at_1200.reserve_share, 3) == 0.213


def test_sizes_are_counted_as_cost_counts_them(experiment):
    naive, at_800, _, simulation, root = experiment
    fixtures = load(root / "payout_review.fixtures.yaml")
    requested = {r.name: r.requested for r in naive.rows}
    for name in ("task", "memory", "history", "tool_result"):
        assert requested[name] == count(fixtures.contents[name].text), name
    assert requested["tools"] == tools_tokens(simulation.request.tools, lookup_model("gpt-4o"))[0]
    # With the variables empty, the segments add up to what `ctxlint cost` counts for the request.
    cost = request_cost(simulation.request, None, "gpt-4o", None)
    assert requested["framing"] + requested["tools"] + requested["system"] + requested["user"] == cost.total_input
    # De-duplication: the three repeated footer lines of the tool result, and what they cost.
    assert [(r.segment, r.lines) for r in at_800.duplicates] == [("tool_result", 3)]
    assert at_800.duplicate_tokens == requested["tool_result"] - {r.name: r.requested for r in at_800.rows}[
        "tool_result"] == 69


def test_every_plan_stays_inside_its_grants(experiment):
    _, at_800, at_1200, _, _ = experiment
    for plan in (at_800, at_1200):
        assert plan.granted == plan.cap  # everything that could be given was given
        for row in plan.rows:
            assert row.used <= row.granted <= row.requested, row
            if row.priority is None:
                assert row.granted == row.used == row.requested, row
            assert count(row.text) <= row.used + 1 or row.name in ("framing", "tools"), row


def test_the_allocation_follows_minimums_then_weights(experiment):
    """At 800: 544 - 266 pinned = 278 left; minimums 100, 50, 50, 45 leave 33, shared 60:50:40:30
    (11, 9, 7, 5) and the last token of rounding goes to the highest priority."""
    at_800 = experiment[1]
    grants = {r.name: r.granted for r in at_800.rows}
    assert sum(r.requested for r in at_800.rows if r.priority is None) == 266
    assert (grants["tools"], grants["memory"], grants["history"], grants["tool_result"]) == (
        100 + 11 + 1, 50 + 9, 50 + 7, 45 + 5)


def test_operators_leave_markers_and_keep_the_facts_they_can(experiment):
    _, at_800, at_1200, _, _ = experiment
    text = {r.name: r.text for r in at_800.rows}
    assert text["memory"].endswith("[… 8 of 9 lines left out by extraction; full text: notes://payout-agent/memory]")
    assert text["history"].startswith("[… 5 earlier turns summarised; failure lines kept]\n")
    assert "HTTP 429 Too Many Requests" in text["history"]
    assert "[… 417 tokens left out; full text: ledger://query/8841]" in text["tool_result"]
    assert [line.split('"')[3] for line in text["tools"].splitlines()] == [
        "ledger_query", "settlement_file", "fx_rate", "seller_profile"]
    wide = {r.name: r.text for r in at_1200.rows}
    assert "description" not in wide["tools"] and wide["tools"].count('"name"') == 6
    assert '"enum": ["csv", "xlsx"]' in wide["tools"]


# --- the allocator on segments built by hand -----------------------------------------------------


def segment(name: str, text: str, policy: str = "truncate", priority: int = 50, minimum: int = 0,
            kind: Kind = Kind.VARIABLE, **extra) -> BudgetSegment:
    return BudgetSegment(name, kind, policy, priority, minimum, content=Content(tuple(text.split("\n"))),
                         sample=Sample.FIXTURE, **extra)


# Forty lines with nothing in common, so that de-duplication leaves them all.
def _lines(seed: str) -> str:
    return "\n".join(" ".join(hashlib.sha256(f"{seed}.{i}.{j}".encode()).hexdigest()[:7] for j in range(6))
                     for i in range(40))


LONG, OTHER = _lines("long"), _lines("other")


def test_rest_is_shared_by_priority_weight():
    segments = [segment("a", LONG, priority=30), segment("b", OTHER, priority=10)]
    plan = simulate(segments, [], 400, 0, GPT4O, CONSTRAINTS)
    assert [r.granted for r in plan.rows] == [300, 100]


def test_minimums_go_in_priority_order_when_they_do_not_all_fit():
    segments = [segment("low", LONG, priority=10, minimum=150), segment("high", OTHER, priority=90, minimum=150)]
    plan = simulate(segments, [], 200, 0, GPT4O, CONSTRAINTS)
    assert {r.name: r.granted for r in plan.rows} == {"low": 50, "high": 150}


def test_reserve_comes_first_and_pinned_segments_are_granted_whole():
    rules = "Never reveal the account number."
    plan = simulate([segment("rules", rules, policy="pin", kind=Kind.STATIC), segment("notes", LONG)], [], 300, 100,
                    GPT4O, CONSTRAINTS)
    assert plan.cap == 200
    assert [(r.name, r.granted) for r in plan.rows] == [("rules", count(rules)), ("notes", 200 - count(rules))]


def test_pinned_content_over_the_budget_is_an_error_not_a_cut():
    pinned = segment("rules", LONG, policy="pin", kind=Kind.STATIC)
    plan = simulate([pinned, segment("notes", "short")], [], 500, 100, GPT4O, CONSTRAINTS)
    assert plan.error == (
        f"the pinned segments need {count(LONG):,} tokens (rules {count(LONG):,}), over the 400 the budget leaves "
        "after the 100-token reserve; pinned content is never cut: raise the budget, lower the reserve, or "
        "unpin a segment")
    assert plan.readback == () and all(r.used == 0 for r in plan.rows)


def test_a_current_user_message_over_the_budget_is_an_error():
    question = segment("question", LONG, policy="pin", kind=Kind.QUESTION)
    plan = simulate([segment("notes", "short"), question], [], 300, 0, GPT4O, CONSTRAINTS)
    assert plan.error is not None and plan.error.startswith(
        f"the current user message `question` alone needs {count(LONG):,} tokens, over the 300")


def test_a_reserve_that_leaves_nothing_is_an_error():
    plan = simulate([segment("notes", "short")], [], 200, 200, GPT4O, CONSTRAINTS)
    assert plan.error == "the output reserve of 200 tokens leaves no room for input in a budget of 200"


def test_naive_mode_cuts_the_question_too():
    question = segment("question", LONG, policy="pin", kind=Kind.QUESTION)
    plan = simulate([segment("notes", LONG), question], [], count(LONG) + 20, 0, GPT4O, CONSTRAINTS, naive=True)
    assert [(r.name, r.action, r.used) for r in plan.rows] == [
        ("notes", "keep", count(LONG)), ("question", "hard_cut", 20)]


def test_a_near_duplicate_that_carries_a_key_field_is_kept():
    code = KeyField("status code", "log", literal="503")
    log = "upstream call failed with status 502 after 3 retries\nupstream call failed with status 503 after 3 retries"
    assert operators.jaccard(*log.split("\n")) >= operators.NEAR_DUPLICATE
    kept = operators.deduplicate([("log", Content(tuple(log.split("\n"))))], [code])
    assert kept.contents["log"].units == tuple(log.split("\n")) and kept.removed == []
    kept = operators.deduplicate([("log", Content(tuple(log.split("\n"))))], [])
    assert kept.contents["log"].units == (log.split("\n")[0],) and kept.removed == [operators.Removed("log", 1)]


def test_duplicates_across_segments_are_removed_from_the_later_one():
    footer = "Confidential: for internal use of the finance team only."
    contents = [("a", Content(("first", footer))), ("b", Content((footer.upper(), "second", "{", "{")))]
    kept = operators.deduplicate(contents, [])
    assert kept.contents["a"].units == ("first", footer)
    assert kept.contents["b"].units == ("second", "{", "{")  # short lines are never duplicates
    assert kept.removed == [operators.Removed("b", 1)] and not kept.partial


def test_jaccard_threshold():
    a = "The settlement file for week 26 arrived at 09:14 from Northbank."
    assert operators.jaccard(a, a.replace("09:14", "09:15")) >= 0.75
    assert operators.jaccard(a, "The settlement file for week 27 is still missing from Eurosettle.") < 0.75
    assert operators.jaccard("", a) == 0.0


# --- each operator -----------------------------------------------------------------------------


def test_extraction_keeps_scored_lines_in_order_with_a_marker():
    lines = ("We talked about the weather.", "Refunds above 500 EUR need a second approval.",
             "The team likes short answers.", "Timeout after 30 seconds on the ledger replica.")
    outcome = operators.extract(Content(lines), 40, count, CONSTRAINTS, ref="notes://42")
    # Both facts do not fit with the marker: the better one stays, and no plain line takes the room.
    assert outcome.text.split("\n") == [lines[3], "[… 3 of 4 lines left out by extraction; full text: notes://42]"]
    assert outcome.used == count(outcome.text) <= 40
    wider = operators.extract(Content(lines), 45, count, CONSTRAINTS, ref="notes://42")
    assert wider.text.split("\n") == [lines[1], lines[3], "[… 2 of 4 lines left out by extraction; full text: notes://42]"]
    assert [operators.score(line, CONSTRAINTS) for line in lines] == [0, 4 + 3, 0, 4 + 3 + 3]


def test_summarize_keeps_the_last_turns_and_earlier_failures():
    turns = ("user: list the payouts", "tool: query failed: HTTP 503 from the replica",
             "assistant: retrying in a minute", "user: ok", "assistant: done, 12 rows")
    outcome = operators.summarize(Content(turns, turns=True), 40, count, 2, None)
    assert outcome.text.split("\n") == ["[… 3 earlier turns summarised; failure lines kept]", turns[1], turns[3],
                                        turns[4]]
    assert outcome.used <= 40


def test_truncate_keeps_head_and_tail_with_a_marker_and_the_ref():
    text = "\n".join(f"row {i}: payout PO-{i:05d} settled" for i in range(200))
    outcome = operators.truncate(text, 80, count, 55, "ledger://q/1", GPT4O.head, GPT4O.tail)
    assert outcome.text.startswith("row 0: payout PO-00000 settled\n")
    assert outcome.text.endswith("row 199: payout PO-00199 settled")
    assert "tokens left out; full text: ledger://q/1]" in outcome.text
    assert outcome.used == count(outcome.text) <= 80


def test_tools_are_compressed_in_stages():
    from ctxlint.model import Span, ToolDef

    schema = {"type": "object", "properties": {"week": {"type": "string", "description": "ISO week"},
                                               "kind": {"type": "string", "enum": ["a", "b", "c", "d"]}},
              "required": ["week"]}
    tools = [ToolDef(f"tool_{i}", "Does one long and carefully described thing. " * 5, schema, Span.point("t", 1))
             for i in range(3)]
    measure = GPT4O.tools
    for grant, stage in ((measure(tools) - 1, "descriptions dropped"), (90, "enums dropped"), (40, "left out")):
        kept, outcome = operators.compress_tools(tools, grant, measure)
        assert stage in outcome.reason and outcome.used == measure(kept) <= grant
    kept, outcome = operators.compress_tools(tools, 40, measure)
    assert [t.name for t in kept] == ["tool_0"] and outcome.reason.endswith("2 of 3 tools left out (tool_1, tool_2)")
    assert kept[0].schema == {"type": "object", "properties": {"week": {"type": "string"}, "kind": {"type": "string"}},
                              "required": ["week"]}


# --- declarations ------------------------------------------------------------------------------


def declared(text: str, name: str, settings: Settings | None = None):
    settings = settings or Settings(root=Path("."))
    fmt = frontends.format_for(name, settings)
    parsed = frontends.parse(fmt, text, name)
    return declarations_for(parsed.requests[0], directives.scan(text, fmt), settings, name)


@pytest.mark.parametrize(("name", "text"), [
    ("a.j2", "{# ctxlint: budget history policy=summarize priority=40 min=80 turns=2 #}\n{{ history }}\n"),
    ("a.j2", "{#- ctxlint: budget history policy=summarize priority=40 min=80 turns=2 -#}\n{{ history }}\n"),
    ("a.prompt", "{{! ctxlint: budget history policy=summarize priority=40 min=80 turns=2 }}\n{{history}}\n"),
    ("a.prompt", "{{!-- ctxlint: budget history policy=summarize priority=40 min=80 turns=2 --}}\n{{history}}\n"),
    ("r.yaml", ("# ctxlint: budget history policy=summarize priority=40 min=80 turns=2\n"
               "messages:\n  - role: user\n    content: '{{ history }}'\n")),
])
def test_budget_directives_in_each_comment_syntax(name, text):
    policy = declared(text, name).segments["history"]
    assert (policy.policy, policy.priority, policy.minimum, policy.turns, policy.span.line) == ("summarize", 40, 80, 2, 1)


def test_key_field_directives_take_quoted_names_literals_and_regexes():
    text = ('{# ctxlint: key-field "rate limit" segment=history regex="\\b429\\b" #}\n'
            "{# ctxlint: key-field unit segment=system text='in cents' #}\n{# ctxlint: budget min-budget=1_200 #}\n"
            "Amounts in cents.\n{{ history }}\n")
    found = declared(text, "a.j2")
    assert [(f.name, f.segment, f.pattern, f.span.line) for f in found.fields] == [
        ("rate limit", "history", "/\\b429\\b/", 1), ("unit", "system", '"in cents"', 2)]
    assert found.fields[0].search("HTTP 429 again") == (5, 8) and found.fields[0].search("4290") is None
    assert (found.min_budget, found.min_budget_span.line) == (1200, 3)


def test_front_matter_declares_in_prompty_and_dotprompt():
    prompty = ("---\nname: x\nctxlint:\n  budget:\n    min-budget: 900\n    segments:\n      notes: {policy: drop, "
               "ref: 'kb://1'}\n    key-fields:\n      - {name: n, segment: notes, text: x}\n---\nsystem:\n{{notes}}\n")
    found = declared(prompty, "a.prompty")
    assert (found.min_budget, found.min_budget_span.line, found.segments["notes"].ref) == (900, 5, "kb://1")
    assert (found.fields[0].span.line, found.fields[0].span.column) == (9, 9)
    dotprompt = "---\nmodel: m\nctxlint.budget:\n  segments:\n    notes: {priority: 7}\n---\n{{notes}}\n"
    assert declared(dotprompt, "a.prompt").segments["notes"].priority == 7


def test_later_declarations_win_key_by_key(tmp_path):
    (tmp_path / "ctxlint.toml").write_text(
        '[budget."*.j2"]\nmin-budget = 500\nsegments.notes = { policy = "drop", priority = 5, min = 9 }\n'
        'segments.other = { priority = 1 }\n', encoding="utf-8")
    settings = load_settings(tmp_path / "ctxlint.toml", tmp_path)
    found = declared("{# ctxlint: budget notes priority=70 #}\n{{ notes }}\n", "a.j2", settings)
    policy = found.segments["notes"]
    assert (policy.policy, policy.priority, policy.minimum, found.min_budget) == ("drop", 70, 9, 500)
    assert found.lenient == frozenset({"other"})  # the glob may cover prompts without it


@pytest.mark.parametrize(("text", "message"), [
    ("{# ctxlint: budget history policy=shrink #}", "policy `shrink` is not one of pin, compress, summarize"),
    ("{# ctxlint: budget history priority=high #}", "`priority` must be a weight from 0 to 1000, got 'high'"),
    ("{# ctxlint: budget history speed=3 #}", "unknown key `speed` (keys: policy, priority, min, ref, size"),
    ("{# ctxlint: budget #}", "`ctxlint: budget` needs a segment name"),
    ('{# ctxlint: key-field "x segment=a text=b #}', "No closing quotation (close the quotes)"),
    ("{# ctxlint: key-field x segment=history #}", "key field `x` needs exactly one of `text` (a literal) or `regex`"),
    ("{# ctxlint: key-field x segment=history regex='(' #}", "key field `x`: invalid regex: missing ), unterminated"),
    ("{# ctxlint: key-field x segment=history regex='a*' #}", "the regex matches empty text"),
    ("{# ctxlint: key-field x segment=history regex='" + "(" * 5000 + "a" + ")" * 5000 + "' #}",
     "key field `x`: the regex nests its groups too deeply to compile"),
])
def test_invalid_directives_are_located_errors(text, message):
    with pytest.raises(PolicyError) as raised:
        declared(text + "\n{{ history }}\n", "a.j2")
    assert message in raised.value.message and raised.value.span.line == 1


@pytest.mark.parametrize(("toml", "line", "message"), [
    ("model = 'gpt-4o'\nbudget = 3", 2, "`budget` must be a table of file glob = budget table"),
    ('[budget."*.j2"]\nmin-budget = "big"', 2, "`budget.\"*.j2\"`: `min-budget` must be a positive number of tokens"),
    ('[budget."*.j2"]\nlimit = 3', 2, "`budget.\"*.j2\"`.limit: unknown key (keys: min-budget, fixtures, segments"),
    ('[budget."*.j2".segments.notes]\npolicy = "squash"', 1, "policy `squash` is not one of"),
    ('[[budget."*.j2".key-fields]]\nname = "x"\nsegment = "notes"', 1,
     "needs exactly one of `text` (a literal) or `regex`"),
])
def test_config_budget_tables_are_validated_at_load(tmp_path, toml, line, message):
    (tmp_path / "ctxlint.toml").write_text(toml + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_settings(tmp_path / "ctxlint.toml", tmp_path)
    assert message in str(raised.value) and str(raised.value).startswith(f"{tmp_path / 'ctxlint.toml'}:{line}: ")


def test_unknown_segment_names_are_errors_naming_the_segments(tmp_path):
    prompt = tmp_path / "a.j2"
    prompt.write_text("{# ctxlint: budget histroy policy=drop #}\nRules.\n{{ history }}\n", encoding="utf-8")
    with pytest.raises(BudgetError) as raised:
        simulate_file(prompt, [500], Settings(root=tmp_path), WORDS)
    assert str(raised.value).endswith("the budget names segment `histroy`, which this request does not have "
                                      "(segments: system, history)")


def test_counts_use_the_request_model_encoding(tmp_path):
    prompt = tmp_path / "legacy.prompty"
    prompt.write_text("---\nmodel:\n  configuration:\n    name: gpt-4\n  parameters:\n    max_tokens: 50\n"
                      "sample:\n  notes: 'Ünïcödé façade — naïve coöperation, 2025-06-30.'\n---\n"
                      "system:\nAnswer from the notes.\n{{notes}}\n", encoding="utf-8")
    simulation = simulate_file(prompt, [400], Settings(root=tmp_path), WORDS)[0]
    notes = next(r for r in simulation.plans[0].rows if r.name == "notes")
    text = "Ünïcödé façade — naïve coöperation, 2025-06-30."
    assert (simulation.model, simulation.encoding) == ("gpt-4", "cl100k_base")
    assert notes.requested == count_tokens(text, "cl100k_base") != count_tokens(text, "o200k_base")


def test_sizes_fill_variables_without_fixtures(tmp_path):
    prompt = tmp_path / "a.j2"
    prompt.write_text("{# ctxlint: budget documents size=300 #}\nAnswer.\n{{ documents }}\n{{ history }}\n",
                      encoding="utf-8")
    simulation = simulate_file(prompt, [2000], Settings(root=tmp_path), WORDS, sizes={"history": 120})[0]
    requested = {r.name: r.requested for r in simulation.plans[0].rows}
    assert 295 <= requested["documents"] <= 300 and 115 <= requested["history"] <= 120


# --- the rule's inputs, and tools and policies the example does not use -------------------------


def test_the_rule_declares_the_fixture_files_it_reads(experiment):
    from ctxlint.analysis.volatility import Volatility
    from ctxlint.catalogue import load_catalogue
    from ctxlint.checks.budget import key_field_lost_at_budget
    from ctxlint.context import CheckContext

    root = experiment[4]
    prompt = root / "payout_review.yaml"
    text = prompt.read_text(encoding="utf-8")
    parsed = frontends.parse("structured", text, str(prompt))
    findings: list = []
    ctx = CheckContext(load_catalogue()["CTX206"], Settings(root=root), Volatility.from_rules([]),
                       directives.scan(text, "structured"), findings.append)
    key_field_lost_at_budget(parsed, ctx)
    assert len(findings) == 4
    # Every place a fixture may sit: a cached result goes stale when one appears or changes.
    assert parsed.dependencies == [str(root / f"payout_review.fixtures.{s}") for s in ("yaml", "yml", "json")]


def test_fixture_tools_stand_in_for_tools_named_in_code(tmp_path):
    prompt = tmp_path / "lookup.prompt"
    prompt.write_text("---\nmodel: openai/gpt-4o\ntools: [find_order]\n---\nFind the order.\n{{question}}\n",
                      encoding="utf-8")
    (tmp_path / "lookup.fixtures.json").write_text(
        '{"question": "Where is NW-1042?", "tools": [{"type": "function", "function": {"name": "find_order", '
        '"description": "Find an order by number.", "parameters": {"type": "object", "properties": '
        '{"number": {"type": "string"}}, "required": ["number"]}}}]}', encoding="utf-8")
    simulation = simulate_file(prompt, [4000], Settings(root=tmp_path), WORDS)[0]
    tools = next(s for s in simulation.segments if s.kind is Kind.TOOLS)
    assert [(t.name, t.description) for t in tools.tools] == [("find_order", "Find an order by number.")]
    question = next(r for r in simulation.plans[0].rows if r.name == "question")
    assert (question.kind, question.priority, question.reason) == ("question", None, "the current user message: never cut")


def test_drop_leaves_a_marker_naming_the_ref_and_pin_overrides_the_default(tmp_path):
    prompt = tmp_path / "a.j2"
    prompt.write_text("{# ctxlint: budget documents policy=drop ref=kb://q/7 #}\n"
                      "{# ctxlint: budget history policy=pin #}\nAnswer.\n{{ documents }}\n{{ history }}\n",
                      encoding="utf-8")
    simulation = simulate_file(prompt, [60], Settings(root=tmp_path), WORDS, sizes={"documents": 300, "history": 20})[0]
    rows = {r.name: r for r in simulation.plans[0].rows}
    assert (rows["documents"].action, rows["documents"].text) == ("drop", "[… documents left out; full text: kb://q/7]")
    assert (rows["history"].action, rows["history"].granted, rows["history"].priority) == ("keep", rows["history"].requested,
                                                                                          None)


def test_near_duplicate_search_is_bounded_and_says_so(monkeypatch):
    monkeypatch.setattr(operators, "_NEAR_LINES", 2)
    lines = ("alpha settlement line number 1", "bravo payout reference list 22", "charlie refund batch of week 3",
             "charlie refund batch of week 3", "charlie refund batch of week 4")
    kept = operators.deduplicate([("log", Content(lines))], [])
    # The third distinct line is past the bound: its exact repeat still goes, its near twin stays.
    assert kept.partial and kept.contents["log"].units == lines[:3] + lines[4:]
    assert operators.jaccard(lines[2], lines[4]) >= operators.NEAR_DUPLICATE


def test_lines_past_the_ranked_ones_are_searched_for_near_twins(monkeypatch):
    # The gram ranks come from the first _NEAR_LINES eligible lines, exact repeats included; a line
    # searched after them had grams with no rank (a KeyError found by benchmarks/fuzz.py).
    monkeypatch.setattr(operators, "_NEAR_LINES", 3)
    lines = ("alpha settlement line number 1", "alpha settlement line number 1", "alpha settlement line number 1",
             "bravo payout reference list 22", "bravo payout reference list 23", "charlie refund batch of week 3")
    kept = operators.deduplicate([("log", Content(lines))], [])
    assert kept.contents["log"].units == (lines[0], lines[3], lines[5])  # the near twin of line 4 went
