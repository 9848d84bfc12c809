"""`ctxlint check` and `ctxlint rule` as a subprocess: exit codes, exact output lines, skip
notices, suppressions and discovery. Config files and output formats have their own modules."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import (
    CLEAN_TEMPLATE,
    CLOCK_MESSAGE,
    CLOCK_TEMPLATE,
    NO_RESERVE_MESSAGE,
    NO_RESERVE_PROMPTY,
    SUPPORT_RULES,
)

from ctxlint.catalogue import load_catalogue

CATALOGUE = load_catalogue()

CLOCK_LINE = f"a.j2:1:15: CTX101 {CLOCK_MESSAGE}"
NO_FILE_WARNING = ("ctxlint: warning: no file was linted: the paths given hold no file of a format ctxlint "
                   "reads (see `include` and `exclude`)")
RESERVE_LINE = f"b.prompty:3:1: CTX201 {NO_RESERVE_MESSAGE}"


# --- exit codes and the text format ------------------------------------------------------


def test_empty_and_clean_directories_exit_0(project):
    project.write({
        "clean/a.j2": CLEAN_TEMPLATE,
        "clean/prompts/b.md": "You are terse.\n",
        "clean/notes.txt": "not a prompt\n",
    })
    (project.root / "empty").mkdir()
    empty, clean = project.run_many([("check", "empty"), ("check", "clean")])
    # Nothing to lint is not an error, but it is worth a warning: a path or glob may be wrong.
    assert (empty.code, empty.lines) == (0, ["All checks passed (0 files checked)."])
    assert empty.err_lines == [NO_FILE_WARNING]
    assert (clean.code, clean.lines, clean.stderr) == (0, ["All checks passed (2 files checked)."], "")


def test_findings_exit_1_with_exact_lines_and_summary(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "b.prompty": NO_RESERVE_PROMPTY, "c.j2": CLEAN_TEMPLATE})
    run = project.run("check", "--output-format", "concise")
    assert run.code == 1
    assert run.lines == [CLOCK_LINE, RESERVE_LINE, "Found 2 findings (1 error, 1 warning) in 3 files."]
    assert run.stderr == ""


def test_fail_level_and_exit_zero(project):
    project.write({"b.prompty": NO_RESERVE_PROMPTY, "bad.j2": "Hello {{ name \n"})
    cases = [
        (("b.prompty",), 1),  # the default fail level is warning, and CTX201 is a warning
        (("b.prompty", "--fail-level", "warning"), 1),
        (("b.prompty", "--fail-level", "info"), 1),
        (("b.prompty", "--fail-level", "error"), 0),
        (("b.prompty", "--exit-zero"), 0),
        (("bad.j2", "--fail-level", "error"), 1),  # CTX001 is an error
        (("bad.j2", "--exit-zero"), 0),
        (("bad.j2", "--fail-level", "error", "--exit-zero"), 0),
    ]
    runs = project.run_many([("check", "--output-format", "concise", *args) for args, _ in cases])
    for (args, code), run in zip(cases, runs):
        assert run.code == code, args
        # The findings are reported whatever the exit code.
        assert len(run.lines) == 2 and run.lines[1].startswith("Found 1 finding (1 "), (args, run.lines)
    assert runs[0].lines == [RESERVE_LINE, "Found 1 finding (1 warning) in 1 file."]
    assert runs[5].lines[0].startswith("bad.j2:1:")
    assert runs[5].lines[1] == "Found 1 finding (1 error) in 1 file."


def test_statistics(project):
    project.write({
        "findings/b.prompty": NO_RESERVE_PROMPTY,
        "findings/c.prompty": NO_RESERVE_PROMPTY,
        "findings/d.j2": "{% if %}\n",
        "clean/a.j2": CLEAN_TEMPLATE,
    })
    findings, clean = project.run_many([("check", "--statistics", "findings"), ("check", "--statistics", "clean")])
    assert findings.code == 1
    assert findings.lines == [  # most frequent first
        "    2  CTX201  missing-output-reserve",
        "    1  CTX001  parse-error",
        "Found 3 findings (1 error, 2 warnings) in 3 files.",
    ]
    assert (clean.code, clean.lines) == (0, ["All checks passed (1 file checked)."])


def test_usage_errors_exit_2_with_one_line_and_no_output(project):
    project.write({"a.j2": CLOCK_TEMPLATE})
    cases = [
        (("check", "--select", "CTX999"), "--select: unknown rule code or name `CTX999` (see `ctxlint rule`)"),
        (("check", "--select", "CTX101,nonsense"), "--select: unknown rule code or name `nonsense` (see `ctxlint rule`)"),
        (("check", "--ignore", "CTX9"), "--ignore: unknown rule code or name `CTX9` (see `ctxlint rule`)"),
        (("check", "missing.j2"), "missing.j2: no such file or directory"),
        (("check", "a.j2", "nowhere/"), "nowhere/: no such file or directory"),
        (("check", "--config", "missing.toml"), "missing.toml: config file not found"),
        (("rule", "CTX999"), "unknown rule `CTX999` (run `ctxlint rule` for the catalogue)"),
    ]
    runs = project.run_many([args for args, _ in cases])
    for (args, error), run in zip(cases, runs):
        assert (run.code, run.stdout, run.err_lines) == (2, "", [f"ctxlint: error: {error}"]), args


def test_argument_errors_exit_2(project):
    bad_choice, no_command = project.run_many([("check", "--output-format", "xml"), ()])
    assert bad_choice.code == 2
    assert "invalid choice: 'xml'" in bad_choice.stderr
    assert no_command.code == 2  # help, and a usage exit code
    assert no_command.lines[0].startswith("usage: ctxlint")


# --- bad input: skip notices and located CTX001 -------------------------------------------


def test_binary_and_oversized_files_are_skipped_with_a_notice(project):
    project.write({
        "ctxlint.toml": "max-file-bytes = 200\n",
        "bin.j2": b"Hello\x00\x01\x02 {{ now() }}\n",
        "big.j2": "x" * 300,
        "ok.j2": CLEAN_TEMPLATE,
    })
    run = project.run("check")
    assert run.code == 0
    assert run.lines == ["All checks passed (1 file checked, 2 skipped)."]
    assert run.err_lines == [
        "big.j2: skipped: 300 bytes is over the 200-byte limit",
        "bin.j2: skipped: binary file",
    ]


def test_non_utf8_and_malformed_templates_are_located_ctx001(project):
    project.write({
        "latin.j2": b"You are the assistant.\nCaf\xe9 {{ question }}\n",
        "unclosed.j2": "You are the support assistant.\n{% for doc in documents %}\n{{ doc.text }}\n",
        "expr.j2": "Hello\nQuestion: {{ question + }}\nThanks\n",
    })
    run = project.run("check", "--output-format", "concise")
    assert run.code == 1
    assert run.lines == [
        "expr.j2:2:1: CTX001 unexpected 'end of print statement'",
        "latin.j2:2:4: CTX001 not valid UTF-8 (byte 0xe9); save the file as UTF-8",
        ("unclosed.j2:3:1: CTX001 Unexpected end of template. Jinja was looking for the following tags: "
        "'endfor' or 'else'. The innermost block that needs to be closed is 'for'."),
        "Found 3 findings (3 errors) in 3 files.",
    ]
    assert run.stderr == ""


def test_non_utf8_column_counts_code_points(project):
    project.write({"accents.j2": "Hello\nété ".encode() + b"\xff\n"})
    run = project.run("check")
    assert run.located == ["accents.j2:2:5: CTX001"]


# --- suppressions ----------------------------------------------------------------------------

CLOCK = CLOCK_TEMPLATE


def test_inline_suppressions(project):
    project.write({
        # On the line itself, and alone on the line before.
        "same-line.j2": "Current time: {{ now() }} {# ctxlint: ignore[CTX101] #}\n" + SUPPORT_RULES,
        "line-before.j2": "{# ctxlint: ignore[CTX101] #}\n" + CLOCK,
        "line-before-trimmed.j2": "{#- ctxlint: ignore[CTX101] -#}\n" + CLOCK,
        "multi-line-comment.j2": "{# ctxlint: ignore[CTX101]\n   the date is part of the persona #}\n" + CLOCK,
        # A trailing comment covers its own line only; a comment alone covers one line after it.
        "trailing.j2": "Hello. {# ctxlint: ignore[CTX101] #}\n" + CLOCK,
        "gap.j2": "{# ctxlint: ignore[CTX101] #}\nHello.\n" + CLOCK,
        # Another code does not suppress; a bare `ignore` suppresses every rule.
        "other-code.j2": "{# ctxlint: ignore[CTX102] #}\n" + CLOCK,
        "bare.j2": "{# ctxlint: ignore #}\n" + CLOCK,
        "two-codes.j2": "{# ctxlint: ignore[CTX102, ctx101] #}\n" + CLOCK,
        # Whole file: every rule, or only the listed ones.
        "file.j2": "{# ctxlint: ignore-file #}\nHello.\n\n" + CLOCK,
        "file-code.j2": "{# ctxlint: ignore-file[CTX101] #}\nTrace {{ trace_id }} at {{ now() }}\n" + SUPPORT_RULES,
        "file-code-control.j2": "Trace {{ trace_id }} at {{ now() }}\n" + SUPPORT_RULES,
        # Prompty: a YAML comment in the front matter.
        "front-matter.prompty": "---\nname: Support\n# ctxlint: ignore[CTX201] - the gateway sets it\nmodel:\n"
                                "  api: chat\n---\nsystem:\nYou are the support assistant.\n",
        "front-matter-control.prompty": NO_RESERVE_PROMPTY,
        # Prompt text that mentions the directive is not a comment.
        "mention-before.j2": "Note: ctxlint: ignore[CTX101]\n" + CLOCK,
        "mention-same-line.j2": "Current time: {{ now() }} (ctxlint: ignore[CTX101])\n" + SUPPORT_RULES,
        "mention-in-string.j2": "{{ 'ctxlint: ignore' }}\n" + CLOCK,
    })
    run = project.run("check")
    assert run.code == 1
    assert run.located == [
        "file-code-control.j2:1:7: CTX102",
        "file-code-control.j2:1:25: CTX101",
        "file-code.j2:2:7: CTX102",
        "front-matter-control.prompty:3:1: CTX201",
        # Suppressions that cover nothing are findings themselves (CTX002, unused-suppression).
        "gap.j2:1:1: CTX002",
        "gap.j2:3:15: CTX101",
        "mention-before.j2:2:15: CTX101",
        "mention-in-string.j2:2:15: CTX101",
        "mention-same-line.j2:1:15: CTX101",
        "other-code.j2:1:1: CTX002",
        "other-code.j2:2:15: CTX101",
        "trailing.j2:1:8: CTX002",
        "trailing.j2:2:15: CTX101",
        "two-codes.j2:1:1: CTX002",
    ]
    assert run.lines[-1] == "Found 14 findings (9 errors, 5 warnings) in 17 files; 4 fixable with --fix."


def test_hash_lines_in_template_text_do_not_suppress(project):
    project.write({
        "hash.j2": "# ctxlint: ignore[CTX101]\n" + CLOCK,
        "hash-trailing.j2": "Current time: {{ now() }} # ctxlint: ignore[CTX101]\n" + SUPPORT_RULES,
        "body.prompty": "---\nname: Support\nmodel:\n  parameters:\n    max_tokens: 400\n---\nsystem:\n"
                        "# ctxlint: ignore[CTX101]\nToday is {{ now() }}. " + SUPPORT_RULES,
    })
    run = project.run("check")
    assert run.located == [
        "body.prompty:9:10: CTX101",
        "hash-trailing.j2:1:15: CTX101",
        "hash.j2:2:15: CTX101",
    ]


# --- discovery ---------------------------------------------------------------------------


def test_gitignore_applies_to_walks_and_exclude_to_explicit_files(project):
    project.write({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".gitignore": "generated/\n*.draft.j2\n",
        "ctxlint.toml": 'exclude = ["legacy/", "scratch.j2"]\n',
        "generated/a.prompty": NO_RESERVE_PROMPTY,
        "b.draft.j2": "{% if %}\n",
        "legacy/c.prompty": NO_RESERVE_PROMPTY,
        "scratch.j2": "{% if %}\n",
        "live/d.prompty": NO_RESERVE_PROMPTY,
    })
    walked, explicit, excluded = project.run_many([
        ("check",),
        ("check", "generated/a.prompty", "b.draft.j2"),
        ("check", "legacy/c.prompty", "scratch.j2"),
    ])
    assert walked.located == ["live/d.prompty:3:1: CTX201"]
    assert walked.lines[-1] == "Found 1 finding (1 warning) in 1 file."
    # Named explicitly (as pre-commit does), a gitignored file is linted ...
    assert explicit.located == ["b.draft.j2:1:1: CTX001", "generated/a.prompty:3:1: CTX201"]
    # ... but `exclude` still applies to files named explicitly.
    assert (excluded.code, excluded.lines) == (0, ["All checks passed (0 files checked)."])


# --- ctxlint rule --------------------------------------------------------------------------


def test_rule_evidence_lists_every_kind_with_its_confidence_and_measure(project):
    table, one, as_json, unknown = project.run_many([
        ("rule", "--evidence"), ("rule", "CTX201", "--evidence"), ("rule", "--evidence", "--output-format", "json"),
        ("rule", "CTX999", "--evidence"),
    ])
    kinds = [(code, kind, spec) for code, rule in sorted(CATALOGUE.items()) for kind, spec in rule.evidence.items()]
    assert table.code == 0 and table.lines[0].split()[:4] == ["rule", "kind", "confidence", "measured"]
    assert [line.split()[:3] for line in table.lines[1:]] == [[c, k, s.confidence.value] for c, k, s in kinds]
    assert all(line.endswith(spec.says) for line, (_, _, spec) in zip(table.lines[1:], kinds, strict=True))
    assert {line.split()[0] for line in one.lines[1:]} == {"CTX201"}
    rows = json.loads(as_json.stdout)
    assert [(r["code"], r["kind"], r["confidence"], r["measured"]) for r in rows] == [
        (c, k, s.confidence.value, s.measured or None) for c, k, s in kinds]
    assert unknown.code == 2 and "unknown rule `CTX999`" in unknown.stderr


def test_rule_listing_and_pages(project):
    listing, by_code, by_name, lower = project.run_many([
        ("rule",), ("rule", "CTX101"), ("rule", "volatile-in-prefix"), ("rule", "ctx101"),
    ])
    # The catalogue: one line per rule, every code, in order.
    assert listing.code == 0
    assert [line.split()[0] for line in listing.lines] == sorted(CATALOGUE)
    for line in listing.lines:
        rule = CATALOGUE[line.split()[0]]
        assert line.split()[1:3] == [rule.name, rule.severity.value]
        assert line.endswith(f"{'(preview) ' if rule.preview else ''}{rule.summary}")

    # One rule's page: every docs section, from the rule file; how it measured comes before the
    # sections, the kinds of evidence its findings rest on after them.
    assert by_code.code == 0
    rule = CATALOGUE["CTX101"]
    lines = by_code.lines
    assert lines[:5] == ["CTX101 volatile-in-prefix (cache, error)", "", rule.summary, "",
                         f"Measured precision: {rule.precision}"]
    headings = [line for line in lines[5:] if line and not line.startswith(" ")]
    evidence = "Evidence and confidence (what a finding rests on; low is shown with --confidence low)"
    assert headings == ["What it does", "Why it matters", "Example", "Use instead", "Options", evidence, "Defaults"]
    kinds = lines[lines.index(evidence) + 1 : lines.index("Defaults") - 1]
    assert [line.split()[:2] for line in kinds] == [[k, s.confidence.value] for k, s in rule.evidence.items()]
    call = rule.evidence["call"]
    assert kinds[0] == f"    {'call':<{len(max(rule.evidence, key=len))}}  high    {call.says} [{call.measured}]"
    sections = dict(zip(("what", "why", "example", "instead", "options"), headings))
    for key, heading in sections.items():
        start = lines.index(heading) + 1
        body = lines[start : lines.index("", start)]
        assert body and all(line.startswith("    ") for line in body), heading
        if key in ("what", "why"):  # prose, re-wrapped for the terminal: the same words
            assert " ".join(body).split() == rule.docs[key].split(), heading
        else:  # examples and option tables keep their lines
            assert body == ["    " + line if line else "" for line in rule.docs[key].rstrip().splitlines()], heading
    assert lines[lines.index("Example") + 1] == "    Current time: {{ now() }}"
    defaults = lines[lines.index("Defaults") + 1 :]
    assert [line.split(" = ")[0].strip() for line in defaults if line] == list(rule.options)
    assert f"    advice = {rule.options['advice']!r}" in defaults

    # By name, or in lower case: the same page.
    assert (by_name.code, by_name.stdout) == (0, by_code.stdout)
    assert (lower.code, lower.stdout) == (0, by_code.stdout)


def test_unused_suppressions_are_reported_and_fix_removes_them(project):
    service = (
        "import json\n"
        "# ctxlint: ignore[CTX204]\n"  # nothing on the next line: removed with its line
        "LIMIT = 400\n"
        "SYSTEM = 'You are the returns assistant.'  # ctxlint: ignore[CTX101]  # noqa: E501\n"
    )
    project.write({
        "service.py": service,
        # One code of two is used: only the other goes.
        "a.j2": "Current time: {{ now() }} {# ctxlint: ignore[CTX101, CTX102] #}\nYou are the assistant.\n",
        # A Jinja comment goes, its line stays, so the template renders exactly as before.
        "b.j2": "{# ctxlint: ignore[CTX101] #}\nYou are the assistant.\n",
        # CTX002 is suppressed like any rule.
        "c.j2": "{# ctxlint: ignore[CTX102, CTX002] #}\nYou are the assistant.\n",
        # A rule name is accepted, and this suppression is used.
        "d.j2": "{# ctxlint: ignore[volatile-in-prefix] #}\n" + CLOCK_TEMPLATE,
        # A typo suppresses nothing: the clock is reported, and so is the directive.
        "e.j2": "{# ctxlint: ignore[volatile-in-prefx] #}\n" + CLOCK_TEMPLATE,
        # So does a misspelt directive; it is reported, with no fix to guess.
        "f.j2": "{# ctxlint: ignroe[CTX101] #}\n" + CLOCK_TEMPLATE,
    })
    before, fixed, after = (project.run("check", "--output-format", "concise"), project.run("check", "--fix"),
                            project.run("check"))
    assert before.located == [
        "a.j2:1:27: CTX002", "b.j2:1:1: CTX002", "e.j2:1:1: CTX002", "e.j2:2:15: CTX101",
        "f.j2:1:4: CTX002", "f.j2:2:15: CTX101", "service.py:2:1: CTX002", "service.py:4:44: CTX002",
    ]
    assert before.lines[0] == ("a.j2:1:27: CTX002 [*] `ctxlint: ignore[CTX101, CTX102]`: `CTX102` reports nothing on "
                               "the line it covers. Remove it from the list.")
    assert before.lines[2] == ("e.j2:1:1: CTX002 [*] `ctxlint: ignore[volatile-in-prefx]` suppresses nothing: "
                               "`volatile-in-prefx` is not a rule code or name (see `ctxlint rule`). Remove it.")
    assert before.lines[4] == ("f.j2:1:4: CTX002 `ctxlint: ignroe` is not a directive, so it does nothing; "
                               "did you mean `ignore`?")
    assert fixed.err_lines == ["Fixed 5 findings in 4 files."]
    # The typo's removal leaves the real finding; the misspelt directive stays, for a person to mend.
    assert after.located == ["e.j2:2:15: CTX101", "f.j2:1:4: CTX002", "f.j2:2:15: CTX101"]

    def read(name: str) -> str:
        return (project.root / name).read_text(encoding="utf-8")

    assert read("service.py") == ("import json\nLIMIT = 400\n"
                                  "SYSTEM = 'You are the returns assistant.'  # noqa: E501\n")
    assert read("a.j2") == "Current time: {{ now() }} {# ctxlint: ignore[CTX101] #}\nYou are the assistant.\n"
    assert read("b.j2") == "\nYou are the assistant.\n"
    assert read("c.j2") == "{# ctxlint: ignore[CTX102, CTX002] #}\nYou are the assistant.\n"


def test_a_parsers_warnings_about_the_users_code_are_not_printed(project):
    # CPython warns (SyntaxWarning) while parsing `1if` and an invalid escape; ctxlint's
    # output is its report, not the parser's remarks.
    project.write({"agent.py": 'from openai import OpenAI\n\nx = 1if True else 2\npattern = "\\d+"\nclient = OpenAI()\n'})
    result = project.run("check", "agent.py")
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    assert "All checks passed (1 file checked)." in result.stdout


# The RAG example with its system prompt written out long: a source line wider than any terminal.
PAGE_QA = (Path(__file__).parent.parent / "examples" / "rag" / "page_qa.py").read_text(encoding="utf-8").replace(
    'system=f"You answer questions about this product page:\\n{page[:6000]}"',
    'system="You answer questions about the product page below, for the customers of our shop.\\n" + page')


def test_text_shows_the_source_line_a_caret_and_the_evidence_at_its_other_end(project):
    """Issue 25: findings as ruff's full output shows them; concise keeps one line each; lines
    wrap to the terminal's width."""
    assert "+ page" in PAGE_QA  # the example still reads as the replacement expects
    project.write({"shop/qa.py": PAGE_QA})
    full, concise = project.run_many([("check", "--select", "CTX401"),
                                      ("check", "--select", "CTX401", "--output-format", "concise")])
    assert full.code == concise.code == 1
    header = full.lines[0]
    assert header.startswith("shop/qa.py:14:104: CTX401 `page` carries untrusted content (requests.get(...).text, "
                             "line 10)")
    assert full.lines[1:7] == [
        "   |",
        '14 |         system="You answer questions about the product page below, for the customers of our shop.\\n"'
        " + page,",
        "   |" + " " * 104 + "^^^^ CTX401",
        "   |",
        "   = source: requests.get(...).text (line 10)",
        ""]
    assert full.lines[-1] == "Found 1 finding (1 warning) in 1 file."
    assert concise.lines == [header, "Found 1 finding (1 warning) in 1 file."]
    # On a 60-column terminal (COLUMNS), every line fits: the message wraps, the source line is
    # cut around the span, and the caret still points at it.
    narrow = project.run("check", "--select", "CTX401", env={"COLUMNS": "60"})
    assert max(len(line) for line in narrow.lines) <= 60 and narrow.lines[0] == header[:header.rindex(" ", 0, 61)]
    source = next(i for i, line in enumerate(narrow.lines) if line.startswith("14 | "))
    column = narrow.lines[source + 1].index("^")
    assert source and narrow.lines[source][column:column + 4] == "page" and "…" in narrow.lines[source]
