"""Configuration through the CLI: where the file is found, what each key does, and that every
mistake in it stops the run with exit 2 and a message naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CLOCK_TEMPLATE, NO_RESERVE_PROMPTY, Project
from ctxlint.config import find_config

BROKEN = "{% if %}\n"  # CTX001 at 1:1; no tokenizer needed, so these runs stay fast
BROKEN_AT = ":1:1: CTX001"


# --- finding the file ------------------------------------------------------------------------


def test_pyproject_table_is_found_walking_up_from_a_subdirectory(project):
    project.write({
        "pyproject.toml": '[project]\nname = "app"\n\n[tool.ctxlint]\nignore = ["CTX201"]\n\n'
                          '[tool.ctxlint.per-file-ignores]\n"app/prompts/legacy/*" = ["CTX001"]\n',
        "app/prompts/b.prompty": NO_RESERVE_PROMPTY,
        "app/prompts/bad.j2": BROKEN,
        "app/prompts/legacy/old.j2": BROKEN,
    })
    from_root = project.run("check", "app/prompts")
    # Run from the subdirectory: the file is found above it, and its globs stay relative to it.
    from_sub = project.run("check", cwd="app/prompts")
    assert from_root.located == ["app/prompts/bad.j2" + BROKEN_AT]
    assert from_root.lines[-1] == "Found 1 finding (1 error) in 3 files."
    assert from_sub.located == ["bad.j2" + BROKEN_AT]


def test_nearest_config_wins_ctxlint_toml_first_and_pyproject_without_table_passed_over(project):
    files = {"b.prompty": NO_RESERVE_PROMPTY, "bad.j2": BROKEN}
    project.write({
        "pyproject.toml": '[tool.ctxlint]\nignore = ["CTX001"]\n',
        "ctxlint.toml": 'ignore = ["CTX201"]\n',  # same directory: this one is used
        **files,
        "pkg/pyproject.toml": '[project]\nname = "pkg"\n\n[tool.black]\nline-length = 100\n',
        **{f"pkg/{name}": text for name, text in files.items()},
        "svc/pyproject.toml": '[tool.ctxlint]\nselect = ["CTX201"]\n',
        **{f"svc/{name}": text for name, text in files.items()},
    })
    root, pkg, svc = project.run_many([("check", "b.prompty", "bad.j2"), ("check", "pkg"), ("check", "svc")])
    assert root.located == ["bad.j2" + BROKEN_AT]
    assert pkg.located == ["pkg/bad.j2" + BROKEN_AT]  # pkg/pyproject.toml has no [tool.ctxlint]
    assert svc.located == ["svc/b.prompty:3:1: CTX201"]  # the nearer file wins outright


def test_explicit_config_file_replaces_the_search(project):
    project.write({
        "app/ctxlint.toml": 'ignore = ["CTX201"]\n',
        "app/b.prompty": NO_RESERVE_PROMPTY,
        "app/bad.j2": BROKEN,
        "shared/strict.toml": 'select = ["CTX201"]\n',
    })
    found, explicit = project.run_many([("check", "app"), ("check", "app", "--config", "shared/strict.toml")])
    assert found.located == ["app/bad.j2" + BROKEN_AT]
    assert explicit.located == ["app/b.prompty:3:1: CTX201"]


# --- configuration errors: exit 2, one line naming the file and the key -------------------------

# (id, file name, content, expected message after "ctxlint: error: "; {path} is the config file)
ERROR_CASES = [
    ("unknown-key", "ctxlint.toml", 'selekt = ["CTX101"]\n', "{path}: `selekt`: unknown key"),
    ("unknown-key-pyproject", "pyproject.toml", '[tool.ctxlint]\nexlude = ["x"]\n',
     "{path}: `tool.ctxlint.exlude`: unknown key"),
    ("select-not-a-list", "ctxlint.toml", 'select = "CTX101"\n', "{path}: `select` must be a list of strings"),
    ("ignore-not-strings", "pyproject.toml", '[tool.ctxlint]\nignore = [101]\n',
     "{path}: `tool.ctxlint.ignore` must be a list of strings"),
    ("max-file-bytes-type", "ctxlint.toml", 'max-file-bytes = "2MB"\n', "{path}: `max-file-bytes` must be a positive integer"),
    ("fail-level-value", "ctxlint.toml", 'fail-level = "fatal"\n', "{path}: `fail-level` must be one of error, warning, info"),
    ("per-file-ignores-type", "ctxlint.toml", 'per-file-ignores = ["*.j2"]\n',
     "{path}: `per-file-ignores` must be a table of glob = [codes]"),
    ("per-file-ignores-codes-type", "ctxlint.toml", '[per-file-ignores]\n"*.j2" = "CTX101"\n',
     "{path}: `per-file-ignores.*.j2` must be a list of strings"),
    ("unknown-format", "ctxlint.toml", '[formats]\nmustache = ["*.mustache"]\n',
     "{path}: `formats.mustache`: unknown format; choose from jinja, prompty, dotprompt, "
     "semantic_kernel, promptflow, python, typescript, notebook, structured, text"),
    ("tool-ctxlint-not-a-table", "pyproject.toml", '[tool]\nctxlint = "strict"\n',
     "{path}: `tool.ctxlint` must be a table ([tool.ctxlint])"),
    ("rules-not-tables", "ctxlint.toml", '[rules]\nCTX101 = "off"\n',
     "{path}: `rules` must be a table of rule tables, e.g. [tool.ctxlint.rules.CTX101]"),
    ("invalid-toml", "ctxlint.toml", 'select = ["CTX101"\n', "{path}: not valid TOML: "),
    ("not-utf8", "ctxlint.toml", b'select = ["CTX\xff"]\n', "{path}: not valid TOML: "),
    ("select-unknown-code", "ctxlint.toml", 'select = ["CTX101", "XYZ1"]\n',
     "{path}: select: unknown rule code or name `XYZ1` (see `ctxlint rule`)"),
    ("ignore-unknown-name", "ctxlint.toml", 'ignore = ["volatile-prefix"]\n',
     "{path}: ignore: unknown rule code or name `volatile-prefix` (see `ctxlint rule`)"),
    ("per-file-ignores-unknown-code", "ctxlint.toml", '[per-file-ignores]\n"legacy/*" = ["CTX777"]\n',
     "{path}: per-file-ignores.legacy/*: unknown rule code or name `CTX777` (see `ctxlint rule`)"),
    ("rule-unknown-option", "ctxlint.toml", '[rules.CTX101]\nnamez = ["stamp"]\n',
     "{path}: `rules.CTX101.namez`: unknown option (options: "),
    ("rule-option-type", "ctxlint.toml", '[rules.CTX101]\nnames = "stamp"\n',
     "{path}: `rules.CTX101.names` must be a list of strings, like the default "),
    ("rule-severity-value", "ctxlint.toml", '[rules.CTX101]\nseverity = "fatal"\n',
     "{path}: `rules.CTX101.severity` must be one of error, warning, info"),
    ("rule-unknown-code", "ctxlint.toml", '[rules.CTX999]\nseverity = "info"\n', "{path}: rules.CTX999: no such rule"),
    ("rule-pack-missing", "ctxlint.toml", 'rule-packs = ["team-rules"]\n', "{dir}/team-rules: rule pack directory not found"),
]
PREFIX_ONLY = {"invalid-toml", "not-utf8", "rule-unknown-option", "rule-option-type"}


@pytest.fixture(scope="module")
def config_error_runs(tmp_path_factory):
    """Every bad configuration in its own directory, all linted at once."""
    project = Project(tmp_path_factory.mktemp("config-errors"))
    for case_id, name, content, _ in ERROR_CASES:
        project.write({f"{case_id}/{name}": content, f"{case_id}/a.j2": CLOCK_TEMPLATE})
        assert find_config(project.root / case_id) == project.root / case_id / name
    runs = project.run_many([("check", case_id) for case_id, *_ in ERROR_CASES], strict=False)
    return project.root.resolve(), dict(zip([c[0] for c in ERROR_CASES], runs))


@pytest.mark.parametrize(("case_id", "name", "content", "message"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_configuration_error_exits_2_naming_the_key(config_error_runs, case_id, name, content, message):
    root, runs = config_error_runs
    run = runs[case_id]
    run.assert_no_crash(case_id)
    expected = "ctxlint: error: " + message.format(path=root / case_id / name, dir=root / case_id)
    assert (run.code, run.stdout) == (2, "")
    assert len(run.err_lines) == 1, run.stderr
    if case_id in PREFIX_ONLY:
        assert run.err_lines[0].startswith(expected), run.stderr
    else:
        assert run.err_lines[0] == expected


# --- what each key does ----------------------------------------------------------------------


def test_select_ignore_and_the_command_line(project):
    project.write({
        # Selectors: a code prefix and a rule name.
        "ctxlint.toml": 'select = ["CTX0", "missing-output-reserve"]\nignore = ["CTX102"]\n',
        "b.prompty": NO_RESERVE_PROMPTY,
        "bad.j2": BROKEN,
        "d.j2": "Trace: {{ trace_id }}\nYou are the research assistant. Cite every source, prefer primary sources.\n",  # CTX102, always ignored
    })
    config, select, ignore, select_all = project.run_many([
        ("check",),
        # --select replaces the configured select; the configured ignore still applies.
        ("check", "--select", "random-id-in-prefix,CTX2"),
        # --ignore adds to the configured ignore.
        ("check", "--ignore", "parse-error"),
        ("check", "--select", "ALL", "--ignore", "CTX201"),
    ])
    assert config.located == ["b.prompty:3:1: CTX201", "bad.j2" + BROKEN_AT]
    assert select.located == ["b.prompty:3:1: CTX201"]
    assert ignore.located == ["b.prompty:3:1: CTX201"]
    assert select_all.located == ["bad.j2" + BROKEN_AT]


def test_per_file_ignores(project):
    project.write({
        "ctxlint.toml": '[per-file-ignores]\n"legacy/**" = ["parse-error"]\n"*.prompty" = ["CTX2"]\n',
        "legacy/deep/bad.j2": BROKEN,
        "legacy/b.prompty": NO_RESERVE_PROMPTY,
        "bad.j2": BROKEN,
        "b.prompty": NO_RESERVE_PROMPTY,
    })
    run = project.run("check")
    assert run.located == ["bad.j2" + BROKEN_AT]
    assert run.lines[-1] == "Found 1 finding (1 error) in 4 files."


def test_include_and_exclude(project):
    project.write({
        "ctxlint.toml": 'include = ["*.prompty"]\nexclude = ["vendor/", "*.draft.prompty"]\n',
        "a.prompty": NO_RESERVE_PROMPTY,
        "b.j2": BROKEN,  # not included, so a walk passes it over ...
        "vendor/c.prompty": NO_RESERVE_PROMPTY,
        "d.draft.prompty": NO_RESERVE_PROMPTY,
    })
    walked, named, excluded = project.run_many([
        ("check",), ("check", "b.j2"), ("check", "vendor/c.prompty", "d.draft.prompty"),
    ])
    assert walked.located == ["a.prompty:3:1: CTX201"]
    assert walked.lines[-1] == "Found 1 finding (1 warning) in 1 file."
    assert named.located == ["b.j2" + BROKEN_AT]  # ... but a file named explicitly is linted
    assert (excluded.code, excluded.lines) == (0, ["All checks passed (0 files checked)."])


def test_formats_map_globs_to_front_ends(project):
    project.write({
        "ctxlint.toml": '[formats]\ntext = ["docs/prompts/*.md"]\njinja = ["templates/*.tmpl", "prompts/*.md"]\n',
        # Plain text: `{{ now() }}` is only text, and the file is read (a bad byte is reported).
        "docs/prompts/persona.md": CLOCK_TEMPLATE,
        "docs/prompts/latin.md": b"Caf\xe9\n",
        # Jinja: parsed as templates, so the syntax error is found.
        "templates/system.tmpl": BROKEN,
        "other/system.tmpl": BROKEN,  # the glob is anchored at the config's directory
        "prompts/answer.md": "Answer {{ question \n",
        # Only a Jinja glob: the built-in text globs (`prompts/**/*.md`) still apply to other
        # files, but a configured format wins over them.
        "jinja-only.toml": '[formats]\njinja = ["prompts/*.md"]\n',
        "empty.toml": "",
    })
    run, jinja_only, default = project.run_many([
        ("check",),
        ("check", "prompts", "--config", "jinja-only.toml"),
        ("check", "prompts", "--config", "empty.toml"),
    ])
    assert run.located == [
        "docs/prompts/latin.md:1:4: CTX001",
        "prompts/answer.md" + BROKEN_AT,
        "templates/system.tmpl" + BROKEN_AT,
    ]
    assert run.lines[-1] == "Found 3 findings (3 errors) in 4 files."
    assert jinja_only.located == ["prompts/answer.md" + BROKEN_AT]
    assert (default.code, default.lines) == (0, ["All checks passed (1 file checked)."])  # plain text


def test_rule_options_and_severity(project):
    project.write({
        "ctxlint.toml": '[rules.CTX101]\nnames = ["build_stamp"]\nseverity = "warning"\n',
        "by-name.toml": '[rules.volatile-in-prefix]\nseverity = "info"\n',
        "a.j2": "Build {{ build_stamp }}\nYou are the release assistant. Summarise the changes since the last "
                "release for customers, grouped by product area, and leave out internal refactors.\n",
        "b.j2": CLOCK_TEMPLATE,  # a call: `calls` keeps its default
        # `today` is no longer a name
        "c.j2": "Today is {{ today }}.\nYou are the support assistant. Answer questions about orders, returns "
                "and delivery times, and hand anything else to a human agent.\n",
    })
    custom, error_level, by_name = project.run_many([
        ("check",), ("check", "--fail-level", "error"), ("check", "--config", "by-name.toml"),
    ])
    assert custom.code == 1  # warnings fail at the default level
    assert custom.located == ["a.j2:1:7: CTX101", "b.j2:1:15: CTX101"]
    assert custom.lines[0].startswith("a.j2:1:7: CTX101 `build_stamp` changes on every call;")
    assert custom.lines[-1] == "Found 2 findings (2 warnings) in 3 files."
    assert (error_level.code, error_level.located) == (0, custom.located)
    # Options keyed by rule name; default names again, and info never fails by default.
    assert by_name.code == 0
    assert by_name.located == ["b.j2:1:15: CTX101", "c.j2:1:10: CTX101"]
    assert by_name.lines[-1] == "Found 2 findings (2 info) in 3 files."


def test_fail_level_key(project):
    project.write({"ctxlint.toml": 'fail-level = "error"\n', "b.prompty": NO_RESERVE_PROMPTY})
    configured, overridden = project.run_many([("check",), ("check", "--fail-level", "warning")])
    assert (configured.code, configured.located) == (0, ["b.prompty:3:1: CTX201"])
    assert overridden.code == 1  # the command line wins over the file
