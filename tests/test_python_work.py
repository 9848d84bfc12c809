"""Work per call site: a module of many call sites that share one client and build their
prompts the same way looks each name up a bounded number of times per site."""

from __future__ import annotations

import gc
import json
import re
import weakref

import pytest
from steps import growth

from ctxlint import frameworks, model, relocate
from ctxlint.frontends import notebook, python
from ctxlint.frontends.python import flow, literals
from ctxlint.frontends.python.calls import Calls
from ctxlint.frontends.python.containers import Containers
from ctxlint.frontends.python.scopes import Scopes
from ctxlint.frontends.python.strings import Strings
from ctxlint.frontends.python.unit import Unit


def _call_sites(count: int) -> str:
    head = "from openai import OpenAI\nimport requests\n\nclient = OpenAI()\n\n"
    return head + "".join(
        f"def answer_{i}(question, url):\n"
        f"    page = requests.get(url, timeout=5).text\n"
        f'    system = "You are the support assistant for team {i}."\n'
        f"    return client.chat.completions.create(\n"
        f'        model="gpt-4o", max_tokens=400,\n'
        f'        messages=[{{"role": "system", "content": system + "<page>" + page + "</page>"}},\n'
        f'                  {{"role": "user", "content": question}}])\n\n'
        for i in range(count))


def test_each_name_of_a_call_site_is_looked_up_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch):
    sites = 300
    lookups = 0
    real = Scopes.binding

    def counted(self: Scopes, *args: object, **kwargs: object) -> object:
        nonlocal lookups
        lookups += 1
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Scopes, "binding", counted)
    parsed = python.parse_file(_call_sites(sites), "service.py")
    assert len(parsed.requests) == sites
    assert all(any(s.slot and s.slot.sources for s in r.segments) for r in parsed.requests)  # the page is still seen
    # Five names per site (client, page, system, question, url), each looked up in its own
    # function once; the analysis asked over 30 times per site when every part looked again.
    assert lookups <= 12 * sites


def _counting(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[tuple[object, ...]]:
    """Replace ``owner.name`` by a wrapper that records the arguments of every call."""
    calls: list[tuple[object, ...]] = []
    real = getattr(owner, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_each_callee_and_message_dict_is_read_once_per_env(monkeypatch: pytest.MonkeyPatch):
    paths = _counting(monkeypatch, Calls, "_path")
    dicts = _counting(monkeypatch, Containers, "dict_literal")
    sites = 200
    parsed = python.parse_file(_call_sites(sites), "service.py")
    assert len(parsed.requests) == sites
    assert all(any(s.slot and s.slot.sources for s in r.segments) for r in parsed.requests)
    read = [(id(node), env.key) for _, node, env in dicts]  # type: ignore[attr-defined]
    callees = [(id(node), env.key) for _, node, env, depth in paths if depth == 0]  # type: ignore[attr-defined]
    for keys in (read, callees):
        assert keys and len(keys) == len(set(keys))  # never twice in the same env
    assert len(dicts) == 2 * sites  # the two message dicts of each site, read once each


def test_an_escape_is_decoded_once_whatever_the_number_of_literals(monkeypatch: pytest.MonkeyPatch):
    literals._decoded.cache_clear()
    evaluated = _counting(monkeypatch, literals.ast, "literal_eval")
    module = "from openai import OpenAI\nclient = OpenAI()\n" + "".join(
        f'client.responses.create(model="gpt-4o", max_output_tokens=9, instructions="Rule {i}:\\n never guess.\\t")\n'
        for i in range(400))
    parsed = python.parse_file(module, "rules.py")
    assert len(parsed.requests) == 400
    assert "Rule 7:\n never guess.\t" in {s.text for r in parsed.requests for s in r.segments}
    assert len(evaluated) == 2  # `\n` and `\t`, not once per literal


def test_a_call_path_is_matched_against_the_catalogue_once(monkeypatch: pytest.MonkeyPatch):
    frameworks.cached_frameworks.cache_clear()  # a catalogue that has matched nothing yet
    globs = _counting(monkeypatch, frameworks.index, "fnmatchcase")
    python.parse_file(_call_sites(50), "service.py")
    first = len(globs)
    python.parse_file(_call_sites(400), "service.py")
    assert first > 0 and len(globs) == first  # 350 more call sites of the same paths: no glob matched again
    frameworks.cached_frameworks.cache_clear()


def test_a_long_string_body_is_skipped_in_one_search_per_special_character(monkeypatch: pytest.MonkeyPatch):
    searches = 0

    class Counting:
        def __init__(self, pattern: re.Pattern[str]) -> None:
            self.pattern = pattern

        def search(self, *args: int | str) -> re.Match[str] | None:
            nonlocal searches
            searches += 1
            return self.pattern.search(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(literals, "_SPECIAL", {k: Counting(v) for k, v in literals._SPECIAL.items()})
    body = "Never guess a price. " * 20_000 + "\\n" + "Cite the page. " * 20_000
    text = f'SYSTEM = "{body}"\n'
    tokens = literals.scan_tokens(text, len("SYSTEM = "), len(text) - 1)
    assert tokens is not None and tokens[0].body == body
    assert searches == 2  # the escape, then the closing quote: not a step per character


def test_prompts_a_call_site_sends_are_not_read_again_as_standalone_prompts(monkeypatch: pytest.MonkeyPatch):
    assigned = _counting(monkeypatch, Strings, "assigned_text")
    sites = 200
    parsed = python.parse_file(_call_sites(sites), "service.py")
    assert len(parsed.requests) == sites  # the `system` constants stay in their call sites' requests
    assert assigned == []


def test_each_signature_class_finds_its_scope_without_a_walk_over_every_scope(monkeypatch: pytest.MonkeyPatch):
    walks = _counting(monkeypatch, Unit, "all_scopes")
    classes = 500
    module = "import dspy\n\n" + "".join(
        f'class Answer{i}(dspy.Signature):\n    """Answer question {i} from the page; never guess."""\n\n'
        f'    question: str = dspy.InputField(desc="the question")\n    answer: str = dspy.OutputField()\n\n\n'
        for i in range(classes))
    parsed = python.parse_file(module, "signatures.py")
    assert len(parsed.requests) == classes
    assert len(walks) == 1  # the one walk for prompt constants, none per class


def test_relocating_a_notebook_reads_each_type_s_fields_once(monkeypatch: pytest.MonkeyPatch):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": source}
             for source in _call_sites(150).split("\n\n") if source]  # imports, client, then a cell per site
    parsed = notebook.parse_file(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}),
                                 "answers.ipynb")
    assert len(parsed.requests) == 150 and parsed.embedded is not None
    relocate._FIELDS.clear()
    read = _counting(monkeypatch, relocate, "fields")
    moved = relocate.map_spans(parsed, parsed.embedded.relocate)
    assert {s.span.cell for r in moved.requests for s in r.segments} >= {3, 152}
    assert 0 < len(read) <= 20  # once per model type, not once per object


def _estimating_functions(n: int) -> str:
    return "import tiktoken\n\n" + "".join(
        f"def budget_{i}(prompt):\n    tokens = len(prompt) / 4\n    return tokens\n\n" for i in range(n)) + (
        "def exact(prompt):\n    tokens = len(tiktoken.get_encoding('o200k_base').encode(prompt))\n"
        "    if not tokens:\n        tokens = len(prompt) / 4\n    return tokens\n")


def test_estimates_are_matched_to_their_functions_in_one_sweep():
    # Every estimate searched every function for the ones around it: a fuzzed 1 MB module of
    # functions that each estimate tokens ran for minutes.
    parsed = python.parse_file(_estimating_functions(3_000), "budget.py")
    assert len(parsed.observations) == 3_000  # the one beside a tokenizer is its fallback
    assert parsed.observations[-1].span.line == 4 + 4 * 2_999
    python.parse_file(_estimating_functions(2), "budget.py")
    assert growth(lambda n: lambda: python.parse_file(_estimating_functions(n), "budget.py"), 250) < 1.3


def _one_request_of_many_messages(count: int) -> str:
    return ("import html\n\nimport requests\nfrom openai import OpenAI\n\nclient = OpenAI()\n\n\n"
            "def answer(url, question):\n    page = requests.get(url, timeout=10).text\n"
            '    return client.chat.completions.create(\n        model="gpt-4o", max_tokens=400,\n'
            "        messages=[\n" + "".join(
                f'            {{"role": "user", "content": f"<document>{{html.escape(page)}}</document> {i}\\n'
                f'{{question}}"}},\n' for i in range(count)) + "        ])\n")


def test_the_facts_of_a_value_of_many_parts_are_merged_in_linear_work(monkeypatch: pytest.MonkeyPatch):
    # A list of more than MAX_ITEMS messages is one value, its parts' facts merged into one; each
    # part's were checked against a set rebuilt from all the facts merged before it, and a fuzzed
    # request of 4,830 messages, each quoting the same page, took 16 s. A source is known by its
    # span: the spans hashed measure that work.
    parsed = python.parse_file(_one_request_of_many_messages(1_000), "service.py")
    (request,) = parsed.requests
    pages = [s for s in request.segments if s.slot is not None and s.slot.sources]
    assert len(pages) == 1_000 and {source.kind.value for s in pages for source in s.slot.sources} == {"untrusted"}
    monkeypatch.setattr(flow, "MAX_ITEMS", 100)
    hashed = 0
    real = model.Span.__hash__

    def counted(span: model.Span) -> int:
        nonlocal hashed
        hashed += 1
        return real(span)

    monkeypatch.setattr(model.Span, "__hash__", counted)

    def spans_hashed(messages: int) -> int:
        nonlocal hashed
        hashed = 0
        python.parse_file(_one_request_of_many_messages(messages), "service.py")
        return hashed

    assert spans_hashed(1_200) < 4 * 1.3 * spans_hashed(300)


def test_a_modules_analysis_is_freed_by_reference_counting(tmp_path, monkeypatch: pytest.MonkeyPatch):
    # The parts of an analysis refer to each other and to their module, so an analysis left as it
    # was waited for the cyclic collector, which by then had moved it to its oldest generation:
    # full collections, each scanning every module kept, took a third of the run on the largest
    # projects. A linted module's analysis is freed when its file is done, a module read for it
    # once it is pushed out of those kept and the next file begins.
    from ctxlint.frontends import ParseContext
    from ctxlint.frontends.python import analyzer as analyzers
    from ctxlint.frontends.python import project as projects

    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "prompts.py").write_text(
        'SYSTEM = "You are the support assistant of the billing team."\n\n\n'
        "def ask(client, question):\n"
        '    return client.chat.completions.create(model="gpt-4o", max_tokens=300, messages=[\n'
        '        {"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])\n')
    chat = ("from openai import OpenAI\n\nfrom app.prompts import SYSTEM, ask\n\nclient = OpenAI()\n\n\n"
            "def answer(question):\n    return ask(client, question)\n")
    made: list[weakref.ref[object]] = []
    init = analyzers.Analyzer.__init__

    def recorded(self, *args, **kwargs) -> None:
        init(self, *args, **kwargs)
        made.extend((weakref.ref(self), weakref.ref(self.unit), weakref.ref(self.unit.module_scope)))

    monkeypatch.setattr(analyzers.Analyzer, "__init__", recorded)
    monkeypatch.setattr(projects, "_PROJECTS", {})
    gc.collect()
    gc.disable()
    try:
        parsed = python.parse_file(chat, "app/chat.py", ParseContext(tmp_path, "app/chat.py"))
        assert parsed.requests and len(made) == 6  # app/chat.py, and app/prompts.py read for it
        assert [ref() is None for ref in made] == [True] * 3 + [False] * 3
        (project,) = projects._PROJECTS.values()
        project.retired.append(project.modules.popitem()[1])  # pushed out: closed by the next begin
        project.begin()
        assert [ref() is None for ref in made] == [True] * 6
    finally:
        gc.enable()
