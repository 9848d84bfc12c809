"""Files with tens of thousands of findings: the work done per finding and per slot is bounded.

A 1 MB template can give one finding per slot (a Dotprompt body of 21,000 loops gave 43,000).
Whatever is the same for every slot or finding (the request's labels, the model's tokenizer, what
a slot's names say, the prompt's words before it) is worked out once; these tests count the calls
to the passes that did it again each time, with every rule on as `--select ALL --preview` runs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.frontends import format_for

SETTINGS = dataclasses.replace(Settings(root=Path(__file__).parent), preview=True, confidence="low")
LINTER = None


def lint(name: str, text: str):
    global LINTER
    if LINTER is None:
        from ctxlint.engine import Linter

        LINTER = Linter(SETTINGS, load_catalogue(), select=["ALL"])
    return LINTER.lint_text(text, name, name, format_for(name, SETTINGS))


def codes(findings) -> dict[str, int]:
    counted: dict[str, int] = {}
    for finding in findings:
        counted[finding.code] = counted.get(finding.code, 0) + 1
    return counted


def counting(monkeypatch, owner, name: str) -> list[object]:
    """Replace ``owner.name`` by a wrapper that records each call's first argument."""
    calls: list[object] = []
    original = getattr(owner, name)

    def counted(*arguments, **keywords):
        calls.append(arguments[0] if arguments else None)
        return original(*arguments, **keywords)

    monkeypatch.setattr(owner, name, counted)
    return calls


PAGES = "Answer from the pages.\n" + "".join(f"Page: {{{{ page }}}} rule {i}: never guess.\n" for i in range(1_000))


def test_findings_of_a_file_without_suppressions_are_not_looked_up_one_by_one(monkeypatch):
    from ctxlint.directives import Directives

    looked_up = counting(monkeypatch, Directives, "covering")
    assert codes(lint("pages.j2", PAGES))["CTX401"] == 1_000
    assert looked_up == []
    # With a suppression in the file, each finding is looked up (and the suppressed one dropped).
    suppressed = PAGES.replace("rule 7:", "{# ctxlint: ignore[CTX401] #} rule 7:")
    assert codes(lint("pages.j2", suppressed))["CTX401"] == 999
    assert len(looked_up) >= 1_000


def test_the_labels_of_a_request_are_found_once_for_the_trust_rules(monkeypatch):
    from ctxlint.analysis import trust

    scanned = counting(monkeypatch, trust, "_label_message")
    found = lint("pages.j2", PAGES)
    assert codes(found)["CTX401"] == 1_000
    assert codes(found).get("CTX403") is None  # asked for the labels too, found none
    assert len(scanned) == 1  # one message, scanned once for CTX401 and CTX403 together


def test_the_prompt_words_before_thousands_of_slots_are_matched_once_per_wording(monkeypatch):
    from ctxlint.analysis import trust

    trust._content_word.cache_clear()
    # Fifty names the trust lists do not know, each introduced by the same words: only the
    # words say the slot holds a page. Each wording before a slot is matched once.
    text = "".join(f"Search results:\n{{{{ item_{i % 50} }}}}\nRead them first.\n" for i in range(1_500))
    found = lint("results.j2", text)
    assert codes(found)["CTX401"] == 1_500
    assert all("introduced as \"search results\"" in f.message for f in found if f.code == "CTX401")
    assert trust._content_word.cache_info().misses <= 2


def test_a_metadata_slot_is_not_described_whatever_the_words_before_it(monkeypatch):
    from ctxlint.analysis import trust

    described = counting(monkeypatch, trust, "_described")
    text = "Search results:\n{{ result_count }}\n" * 1_000
    assert "CTX401" not in codes(lint("counts.j2", text))
    assert described == []  # a count, never content: the text before it is not read, slot after slot


def test_the_model_of_a_request_is_looked_up_once_for_all_its_token_counts(monkeypatch):
    from ctxlint import tokens
    from ctxlint.context import CheckContext
    from ctxlint.frontends import parse

    rule = load_catalogue()["CTX203"]
    looked_up = counting(monkeypatch, tokens, "lookup_model")
    (request,) = parse("jinja", PAGES, "pages.j2").requests
    ctx = CheckContext(rule, SETTINGS, None, None, lambda finding: None)  # type: ignore[arg-type]
    counts = [ctx.count_tokens(segment.text, request) for segment in request.segments if segment.slot is None]
    assert len(counts) == 1_001 and all(counts)
    assert looked_up == [request.model or "gpt-4o"]


LOOPS = "Answer from the documents.\n" + "{% for d in documents %}{{ d }} Never guess a price.{% endfor %}\n" * 500


def test_the_layout_of_thousands_of_loops_reads_each_loop_and_sentence_once(monkeypatch):
    from ctxlint.analysis import constraints, names, regions
    from ctxlint.model import Region

    said = counting(monkeypatch, regions, "_says")
    split = counting(monkeypatch, constraints, "_sentences")
    headings = counting(monkeypatch, constraints, "is_heading")
    led = counting(monkeypatch, names, "leading_name")
    described = counting(monkeypatch, regions.Layout, "describe_variable")
    found = lint("rag.j2", LOOPS)
    assert codes(found) == {"CTX301": 500, "CTX401": 500}
    in_loop = [f for f in found if f.code == "CTX301"]
    assert in_loop[0].message.startswith("The constraint \"Never guess a price.\" sits inside the loop over "
                                         "`documents`, in the MIDDLE region")
    assert len(said) == 1  # one loop, whatever the number of its blocks
    assert len(split) == 3  # the three distinct texts: the first line, the sentence in each loop, the line end
    assert len(headings) <= 6  # each wording once for CTX301 and CTX302, and the last line's for CTX302
    assert len(led) <= 4  # the loop's collection, named once per pass that asks
    assert len(described) <= 4  # the blocks around the constraints, described once, not per constraint
    (request,) = lint_request("rag.j2", LOOPS)
    from ctxlint import directives

    layout = regions.analyse(request, directives.Directives(), ["documents"])
    assert layout.regions[:2] == (Region.HEAD, Region.MIDDLE) and layout.regions[-1] is Region.TAIL
    assert len(layout.variable) == 1_000  # each loop's slot and its sentence


def lint_request(name: str, text: str):
    lint(name, "")  # the linter, loaded
    assert LINTER is not None
    return LINTER.parse_bytes(text.encode(), name, name).requests


def test_findings_are_kept_once_without_hashing_each_whole(monkeypatch):
    from ctxlint import engine
    from ctxlint.model import Finding

    found = lint("rag.j2", LOOPS)
    expected = list(dict.fromkeys(found))
    hashed = counting(monkeypatch, Finding, "__hash__")
    assert engine._unique([*found, *found[:100], found[0]]) == expected
    assert hashed == []


def test_findings_are_searched_for_lone_surrogates_once_per_distinct_text(monkeypatch):
    from ctxlint import engine

    searched = []
    pattern = engine._LONE_SURROGATE

    class Counting:
        def search(self, text: str):
            searched.append(text)
            return pattern.search(text)

        def sub(self, replacement: str, text: str) -> str:
            return pattern.sub(replacement, text)

    monkeypatch.setattr(engine, "_LONE_SURROGATE", Counting())
    found = lint("rag.j2", LOOPS)
    assert len(found) == 1_000
    assert len(searched) == len(set(searched)) < 20
    assert sum(map(len, searched)) < 10_000  # not the 500 KB of all the findings' texts


def test_the_passes_over_a_request_are_made_once_and_go_with_its_file(monkeypatch):
    """The shared passes (sentences, regions, labels, the trust rules' slots) are made once per
    request for all its checks (context.RequestAnalysis) and kept by nothing once its file is
    linted: kept past the file, a 1 MB request's objects stayed alive for the collector to walk
    at the end of the file, and until the next file replaced them."""
    import weakref

    from ctxlint import context
    from ctxlint.analysis import constraints, regions, trust

    made: list[weakref.ref] = []
    init = context.RequestAnalysis.__init__

    def recording(self, *arguments):
        init(self, *arguments)
        made.append(weakref.ref(self))

    monkeypatch.setattr(context.RequestAnalysis, "__init__", recording)
    sentences = counting(monkeypatch, constraints, "sentences")
    layouts = counting(monkeypatch, regions, "analyse")
    slots = counting(monkeypatch, trust, "untrusted_slots")
    assert codes(lint("rag.j2", LOOPS))["CTX301"] == 500
    assert len(made) == 1 and made[0]() is None
    # CTX301 and CTX302 read the sentences and the layout, CTX401, CTX402 and CTX403 the slots.
    assert (len(sentences), len(layouts), len(slots)) == (1, 1, 1)


def test_a_request_longer_than_its_budget_is_not_also_bounded_by_its_bytes(monkeypatch):
    """CTX203 and CTX502 first bound tokens by UTF-8 bytes, which settles small requests without
    a tokenizer; a request whose characters alone exceed the budget was measured twice."""
    from ctxlint.checks import reserve, tools

    bounded = counting(monkeypatch, reserve, "utf8_bytes")
    measured: list[object] = []
    tools_tokens = tools.tools_tokens

    def recording(catalogue, info, *, count=None):
        measured.append(count)
        return tools_tokens(catalogue, info, count=count)

    monkeypatch.setattr(tools, "tools_tokens", recording)
    from ctxlint.engine import Linter

    small_window = Linter(dataclasses.replace(SETTINGS, model="gpt-4"), load_catalogue(), select=["ALL"])
    long = "".join(f"Rule {i}: answer in one line and never guess a price.\n" for i in range(700))
    over = small_window.lint_text(long, "long.j2", "long.j2", "jinja")
    assert codes(over) == {"CTX203": 1}  # 40 KB: over gpt-4's 8,192-token window
    assert bounded == []
    catalogue = "tools:\n" + "".join(
        f"  - name: find_{i}\n    description: {'Find the record and return its state. ' * 4}\n"
        "    input_schema: {type: object, properties: {key: {type: string}}}\n" for i in range(200))
    assert codes(lint("tools.yaml", catalogue))["CTX502"] == 1  # 30 KB of descriptions, over 4,000 tokens
    assert measured == [None]  # counted once, by tokens


def test_only_the_fields_that_can_be_a_tools_costliest_are_counted():
    from ctxlint.analysis.accounting import tool_cost_breakdown
    from ctxlint.model import Span, ToolDef

    counted: list[str] = []

    def count(text: str) -> int:
        counted.append(text)
        return len(text.split())

    description = "Find the order by its number and return its state, carrier and expected delivery day."
    schema = {"type": "object", "properties": {f"field_{i}": {"type": "string", "description": f"part {i}"}
                                               for i in range(50)}}
    tool = ToolDef("find_order", description, schema, Span.point("tools.yaml", 1))
    cost = tool_cost_breakdown(tool, None, count=count)
    assert (cost.biggest_field, cost.biggest_field_tokens) == ("description", 15)
    # The tool's rendering, the namespace around it, and the description: the name and the 50
    # fields of two words are shorter in bytes than the description is in tokens.
    assert len(counted) == 3 and description in counted and "part 7" not in counted


def test_common_handlebars_tags_are_each_read_in_one_match(monkeypatch):
    from ctxlint.frontends import handlebars
    from ctxlint.frontends.handlebars import parser

    matched = []
    pattern = parser._COMMON

    class Counting:
        def match(self, text: str, pos: int = 0):
            matched.append(pos)
            return pattern.match(text, pos)

    lexed = counting(monkeypatch, parser, "_lex")
    monkeypatch.setattr(parser, "_COMMON", Counting())
    body = "{{#each docs}}{{this}}{{/each}} Never guess. {{&page}} {{#if user.name}}{{user.name}}{{/if}}\n" * 500
    nodes = handlebars.parse(body + "{{~ trimmed }} {{> partial}}")
    assert len(matched) == 7 * 500 + 2  # every tag is tried once; only the partial is lexed
    assert lexed == [body + "{{~ trimmed }} {{> partial}}"]
    assert sum(isinstance(node, handlebars.nodes.Mustache) for node in nodes) == 3 * 500 + 1


def test_a_repeated_dotprompt_loop_is_read_as_a_loop_and_a_slot_once(monkeypatch):
    from ctxlint.frontends import dotprompt, handlebars

    loops = counting(monkeypatch, handlebars.segments, "_loop_of")
    slots = counting(monkeypatch, handlebars.segments, "slot_facts")
    text = "---\nmodel: googleai/gemini-2.0-flash\n---\n" + "{{#each docs}}{{this}}{{/each}} Never guess.\n" * 500
    (request,) = dotprompt.parse_file(text, "support.prompt").requests
    assert len(request.segments) == 1_000
    assert [s.loop for s in request.segments[:2]] == ["docs", None] and request.segments[0].slot.names == ("this",)
    assert len(loops) == 1 and len(slots) == 1  # the parser reads the 500 tags into one call each
