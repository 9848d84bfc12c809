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


PAGES = "Answer from the pages.\n" + "".join(f"Page: {{{{ page }}}} rule {i}: never guess.\n" for i in range(2_000))


def test_findings_of_a_file_without_suppressions_are_not_looked_up_one_by_one(monkeypatch):
    from ctxlint.directives import Directives

    looked_up = counting(monkeypatch, Directives, "covering")
    assert codes(lint("pages.j2", PAGES))["CTX401"] == 2_000
    assert looked_up == []
    # With a suppression in the file, each finding is looked up (and the suppressed one dropped).
    suppressed = PAGES.replace("rule 7:", "{# ctxlint: ignore[CTX401] #} rule 7:")
    assert codes(lint("pages.j2", suppressed))["CTX401"] == 1_999
    assert len(looked_up) >= 2_000


def test_the_labels_of_a_request_are_found_once_for_the_trust_rules(monkeypatch):
    from ctxlint.analysis import trust

    scanned = counting(monkeypatch, trust, "_label_message")
    found = lint("pages.j2", PAGES)
    assert codes(found)["CTX401"] == 2_000
    assert codes(found).get("CTX403") is None  # asked for the labels too, found none
    assert len(scanned) == 1  # one message, scanned once for CTX401 and CTX403 together


def test_the_prompt_words_before_thousands_of_slots_are_matched_once_per_wording(monkeypatch):
    from ctxlint.analysis import trust

    trust._content_word.cache_clear()
    # Fifty names the trust lists do not know, each introduced by the same words: only the
    # words say the slot holds a page. Each wording before a slot is matched once.
    text = "".join(f"Search results:\n{{{{ item_{i % 50} }}}}\n" for i in range(3_000))
    found = lint("results.j2", text)
    assert codes(found)["CTX401"] == 3_000
    assert all("introduced as \"search results\"" in f.message for f in found if f.code == "CTX401")
    assert trust._content_word.cache_info().misses <= 2


def test_a_metadata_slot_is_not_described_whatever_the_words_before_it(monkeypatch):
    from ctxlint.analysis import trust

    described = counting(monkeypatch, trust, "_described")
    text = "Search results:\n{{ result_count }}\n" * 2_000
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
    assert len(counts) == 2_001 and all(counts)
    assert looked_up == [request.model or "gpt-4o"]
