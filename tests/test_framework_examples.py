"""Every example in every framework file is a test, as rule examples are: the rule it names
reports exactly the lines it lists, or nothing (a `.ts` example is read as TypeScript). An example may bring other files of the
project (``files``), so imports between modules are followed as in a real tree. Plus the
catalogue's own validation: a bad entry is a load error naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import write_files

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings, apply_table
from ctxlint.engine import Linter
from ctxlint.frontends import format_for
from ctxlint.frameworks import (
    FrameworkError,
    builtin_frameworks_dir,
    cached_frameworks,
    load_framework,
    load_frameworks,
)

RULES = load_catalogue()
FRAMEWORKS = load_frameworks()
CASES = [(framework, example) for framework in FRAMEWORKS.values() for example in framework.examples]


def run_example(example: dict, root: Path):
    write_files(root, {**(example.get("files") or {}), example["file"]: example["source"]})
    settings = Settings(root=root)
    apply_table(settings, example.get("config") or {}, root / "example-config")
    linter = Linter(settings, RULES, select=[example["rule"]])
    return linter.lint_text(example["source"], example["file"], example["file"], format_for(example["file"], settings))


@pytest.mark.parametrize(("framework", "example"), CASES, ids=[f"{f.name}-{e['id']}" for f, e in CASES])
def test_framework_example(framework, example, tmp_path):
    findings = run_example(example, tmp_path)
    got = sorted(findings, key=lambda f: (f.span.line, f.span.column))
    expected = sorted(example["expect"] or [], key=lambda e: (e["line"], e.get("column", 0)))
    described = [f"{f.span.line}:{f.span.column} {f.code} {f.message}" for f in got]
    assert all(f.code == example["rule"] for f in findings), described
    assert all(f.span.path == example["file"] for f in findings), described
    assert len(got) == len(expected), f"expected {len(expected)} finding(s), got {described}"
    for finding, want in zip(got, expected):
        assert finding.span.line == want["line"], described
        if "column" in want:
            assert finding.span.column == want["column"], described
        if "message" in want:
            assert want["message"] in finding.message, described
        if "confidence" in want:
            assert finding.confidence.value == want["confidence"], described


def test_every_framework_has_examples_that_fire_and_that_stay_quiet():
    for framework in FRAMEWORKS.values():
        assert any(e["expect"] for e in framework.examples), f"{framework.name} has no example that must report"
        assert any(not e["expect"] for e in framework.examples), f"{framework.name} has no quiet example"


def test_examples_name_rules_that_exist_and_have_unique_ids():
    for framework in FRAMEWORKS.values():
        ids = [e["id"] for e in framework.examples]
        assert len(ids) == len(set(ids)), framework.name
        for example in framework.examples:
            assert example["rule"] in RULES, (framework.name, example["id"])


def test_catalogue_is_found_and_files_are_named_after_their_framework():
    assert (builtin_frameworks_dir() / "openai.yaml").is_file()
    for framework in FRAMEWORKS.values():
        assert framework.path.stem == framework.name


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("framework: x\nsinks: [{calls: [a.b], arguments: {system: {keyword: s}}, bogus: 1}]\n", "`sinks[0].bogus`"),
        ("framework: x\nsinks: [{calls: [a.b], arguments: {sytem: s}}]\n", "`sinks[0].arguments.sytem`"),
        ("framework: x\nsinks: [{arguments: {}}]\n", "`sinks[0]` must list `calls` or `shapes`"),
        ("framework: x\nsources: [{calls: [a.get], kind: website}]\n", "`sources[0].kind` must be one of"),
        ("framework: x\nmessages: [{calls: [a.M], role: boss, content: c}]\n", "`messages[0].role` must be one of"),
        ("framework: x\nholders: [{calls: [a.A], default_limit: -5}]\n", "`holders[0].default_limit`"),
        ("framework: X Y\n", "`framework` must be a lower-case name"),
        ("framework: x\nllm: sometimes\n", "`llm` must be true or false"),
        ("title: no name\n", "`framework` must be a non-empty string"),
        ("framework: x\nprovider: groq\n", "`provider` must be one of openai, anthropic, google"),
    ],
)
def test_a_bad_entry_is_an_error_naming_the_file_and_the_key(tmp_path, text, where):
    path = tmp_path / "x.yaml"
    path.write_text(text)
    with pytest.raises(FrameworkError) as raised:
        load_framework(path)
    assert str(raised.value).startswith(f"{path}: ") and where in str(raised.value)


def test_a_file_from_config_replaces_the_shipped_framework_of_the_same_name(tmp_path):
    (tmp_path / "openai.yaml").write_text("framework: openai\ntitle: in-house fork\n")
    (tmp_path / "inhouse.yaml").write_text(
        "framework: inhouse\nsinks: [{calls: [inhouse.ask], arguments: {input: {position: 0}}}]\n")
    frameworks = load_frameworks([tmp_path])
    assert frameworks["openai"].title == "in-house fork" and frameworks["openai"].sinks == ()
    assert frameworks["inhouse"].sinks[0].calls == ("inhouse.ask",)
    assert "anthropic" in frameworks
    assert set(load_frameworks([tmp_path], builtin=False)) == {"openai", "inhouse"}


def test_an_sdk_names_the_provider_its_sinks_reach(tmp_path):
    (tmp_path / "gemini.yaml").write_text(
        "framework: gemini\nprovider: google\nsinks: [{calls: [g.ask], arguments: {input: {position: 0}}}]\n")
    (sink,) = load_frameworks([tmp_path], builtin=False)["gemini"].sinks
    assert sink.provider == "google"
    assert {name: f.provider for name, f in FRAMEWORKS.items() if f.provider} == {
        "openai": "openai", "anthropic": "anthropic", "google-genai": "google"}


def test_the_libraries_that_make_a_module_llm_code_are_those_of_the_llm_frameworks():
    catalogue = cached_frameworks()
    assert {"openai", "langchain_ollama", "boto3", "outlines"} <= catalogue.llm_imports
    assert {"requests", "subprocess"} <= catalogue.roots() - catalogue.llm_imports
