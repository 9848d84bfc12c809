"""Every example in every rule file is a test: bad ones report exactly the lines they list,
good ones report nothing. Plus meta-tests that keep the catalogue honest."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxlint.catalogue import DOC_SECTIONS, CatalogueError, builtin_rules_dir, load_catalogue
from ctxlint.checks import registry
from ctxlint.config import Settings, apply_table
from ctxlint.engine import Linter
from ctxlint.frontends import format_for

CATALOGUE = load_catalogue()
CASES = [(rule, example) for rule in CATALOGUE.values() for example in rule.examples]


def run_example(rule, example, root: Path):
    """The rule's findings on the example. An example's `extend-select` runs other rules beside
    it (CTX002 needs them: a suppression is unused only for rules that ran); their findings are
    not the example's."""
    for name, text in example.files.items():  # the project around the file (a template's render site)
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    settings = Settings(root=root)
    apply_table(settings, example.config, root / "example-config")
    also = example.config.get("extend-select", [])
    linter = Linter(settings, CATALOGUE, select=[rule.code, *also])
    fmt = format_for(example.file, settings)
    assert fmt is not None, f"{example.file}: no front-end for this file name"
    findings = linter.lint_text(example.source, example.file, example.file, fmt)
    return [f for f in findings if f.code == rule.code] if also else findings


@pytest.mark.parametrize(("rule", "example"), CASES, ids=[f"{r.code}-{e.id}" for r, e in CASES])
def test_rule_example(rule, example, tmp_path):
    findings = run_example(rule, example, tmp_path)
    assert all(f.code == rule.code for f in findings)
    got = sorted(findings, key=lambda f: (f.span.cell or 0, f.span.line, f.span.column))
    expected = sorted(example.expect, key=lambda e: (e.get("cell", 0), e["line"], e.get("column", 0)))
    described = [f"{'cell %d:' % f.span.cell if f.span.cell else ''}{f.span.line}:{f.span.column} {f.message}"
                 for f in got]
    assert len(got) == len(expected), f"expected {len(expected)} finding(s), got {described}"
    for finding, want in zip(got, expected):
        assert finding.span.line == want["line"], described
        if "column" in want:
            assert finding.span.column == want["column"], described
        if "cell" in want:  # a notebook: `line` counts from the top of this cell
            assert finding.span.cell == want["cell"], described
        if "message" in want:
            assert want["message"] in finding.message, described
        if "confidence" in want:
            assert finding.confidence.value == want["confidence"], described
        if "kind" in want:  # the kind of evidence the finding rests on
            assert finding.kind == want["kind"], described


def test_every_rule_has_bad_and_good_examples():
    for rule in CATALOGUE.values():
        assert any(e.expect for e in rule.examples), f"{rule.code} has no example that must report"
        assert any(not e.expect for e in rule.examples), f"{rule.code} has no example that must stay quiet"


def test_codes_and_names_are_unique_and_files_are_named_after_them():
    names = [r.name for r in CATALOGUE.values()]
    assert len(names) == len(set(names))
    for rule in CATALOGUE.values():
        assert rule.path.name == f"{rule.code}-{rule.name}.yaml"
        assert rule.path.parent.name == rule.family


def test_every_doc_section_is_present():
    for rule in CATALOGUE.values():
        for section in DOC_SECTIONS:
            assert rule.docs.get(section, "").strip(), f"{rule.code}: docs.{section} is empty"


def test_every_check_is_named_by_a_rule_and_every_rule_names_a_check():
    named = {rule.check for rule in CATALOGUE.values()}
    assert named == set(registry())


def test_example_ids_are_unique_within_a_rule():
    for rule in CATALOGUE.values():
        ids = [e.id for e in rule.examples]
        assert len(ids) == len(set(ids)), rule.code


def test_catalogue_is_found_next_to_the_package():
    assert (builtin_rules_dir() / "cache" / "CTX101-volatile-in-prefix.yaml").is_file()


def test_a_family_file_gives_its_options_to_every_rule_of_the_family_once():
    """The trust rules' vocabularies are written once, in rules/trust/family.yaml; a rule's own
    options follow them (CTX403's escapes)."""
    shared = CATALOGUE["CTX401"].options
    assert "web_words" in shared and "snippet" in shared["web_words"]
    assert CATALOGUE["CTX402"].options == shared
    assert list(CATALOGUE["CTX403"].options) == [*shared, "escapes", "verbatim_words"]
    assert (builtin_rules_dir() / "trust" / "family.yaml").is_file()


def _pack(tmp_path: Path, files: dict[str, str]) -> Path:
    pack = tmp_path / "pack"
    pack.mkdir(exist_ok=True)
    for name, text in files.items():
        (pack / name).write_text(text, encoding="utf-8")
    return pack


def test_a_rule_of_a_pack_takes_the_options_of_its_built_in_family(tmp_path):
    rule = (builtin_rules_dir() / "trust" / "CTX402-untrusted-in-system.yaml").read_text(encoding="utf-8")
    renamed = rule.replace("code: CTX402", "code: ACME402").replace("name: untrusted-in-system", "name: acme-untrusted")
    catalogue = load_catalogue([_pack(tmp_path, {"ACME402-acme-untrusted.yaml": renamed})])
    assert catalogue["ACME402"].options == catalogue["CTX402"].options


def test_a_malformed_family_file_is_an_error_naming_it(tmp_path):
    for text, error in (
        ("family: trust\noptions: {}\n", "family trust is already defined by"),
        ("family: acme\noptions: []\n", "`options` must be a mapping"),
        ("options: {}\n", "`family` is required"),
        ("family: acme\noptions: {}\nseverity: error\n", "a family file holds `family` and `options`, not `severity`"),
    ):
        with pytest.raises(CatalogueError, match=re.escape(error)):
            load_catalogue([_pack(tmp_path, {"family.yaml": text})])
