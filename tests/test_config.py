"""Configuration through the CLI: where the file is found, what each key does, and that every
mistake in it stops the run with exit 2 and a message naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CLOCK_TEMPLATE, HOUSE_STYLE, NO_RESERVE_PROMPTY, SUPPORT_RULES, Project

from ctxlint.config import FORMATS, find_config

# Enough static text after a volatile value (128 tokens or more) for CTX101 to report it by default.
PERSONA = ("You are the release assistant for Northwind. Answer questions about orders, returns and refunds only.\n"
           "Write one line per change, newest first, name the team that owns it, link the ticket, and never "
           "mention a customer by name or quote an internal discussion." + HOUSE_STYLE + "\n")
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


def test_dot_ctxlint_toml_is_read_like_ctxlint_toml_and_first(project):
    files = {"b.prompty": NO_RESERVE_PROMPTY, "bad.j2": BROKEN}
    project.write({
        ".ctxlint.toml": 'ignore = ["CTX001"]\n',  # as ruff reads .ruff.toml before ruff.toml
        "ctxlint.toml": 'ignore = ["CTX201"]\n',
        **files,
        "app/.ctxlint.toml": 'select = ["CTX001"]\n',
        **{f"app/{name}": text for name, text in files.items()},
    })
    root, app = project.run_many([("check", "b.prompty", "bad.j2"), ("check", "app")])
    assert root.located == ["b.prompty:3:1: CTX201"]
    assert app.located == ["app/bad.j2" + BROKEN_AT]


def test_a_project_template_inside_the_tree_is_passed_over_with_a_notice(project):
    """A cookiecutter template's pyproject.toml is not TOML; with no [tool.ctxlint] in it, it is
    no configuration of ctxlint's, and the run goes on (issue 25)."""
    template = "templates/{{cookiecutter.slug}}"
    project.write({
        "prompts/a.j2": CLOCK_TEMPLATE,
        f"{template}/pyproject.toml": '[project]\nname = "{{cookiecutter.slug}}"\n{% if cookiecutter.cli %}\n'
                                      '[project.scripts]\ncli = "app:main"\n{% endif %}\n',
        f"{template}/prompts/b.j2": CLOCK_TEMPLATE,
    })
    check, cost = project.run_many([("check",), ("cost",)])
    notice = (f"{template}/pyproject.toml: passed over: not valid TOML: Invalid statement (line 3); it has no "
              "[tool.ctxlint] table, so it is not a ctxlint configuration")
    assert check.code == 1
    assert check.located == ["prompts/a.j2:1:15: CTX101", f"{template}/prompts/b.j2:1:15: CTX101"]
    assert check.err_lines == [notice]
    assert cost.code == 0  # one configuration for the whole report: the nested file is not read


def test_a_broken_ctxlint_table_in_a_nested_pyproject_stays_an_error(project):
    project.write({
        "prompts/a.j2": CLOCK_TEMPLATE,
        "svc/pyproject.toml": '[project]\nname = "{{cookiecutter.slug}}"\n{% if x %}\n[tool.ctxlint]\nselect = ["CTX1"]\n',
        "svc/b.j2": CLOCK_TEMPLATE,
    })
    run = project.run("check")
    assert (run.code, run.stdout) == (2, "")
    assert run.err_lines == [f"ctxlint: error: {project.root.resolve() / 'svc/pyproject.toml'}:3:1: not valid TOML: "
                             "Invalid statement"]


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

# (id, file name, content, expected message after "ctxlint: error: "; {path} is the config file).
# Every message names the file, the line and the key.
ERROR_CASES = [
    ("unknown-key", "ctxlint.toml", 'model = "gpt-4o"\nselekt = ["CTX101"]\n', "{path}:2: `selekt`: unknown key"),
    ("unknown-key-pyproject", "pyproject.toml", '[project]\nname = "app"\n\n[tool.ctxlint]\nexlude = ["x"]\n',
     "{path}:5: `tool.ctxlint.exlude`: unknown key"),
    ("select-not-a-list", "ctxlint.toml", 'select = "CTX101"\n', "{path}:1: `select` must be a list of strings"),
    ("ignore-not-strings", "pyproject.toml", '[tool.ctxlint]\nignore = [\n  "CTX101",\n  101,\n]\n',
     "{path}:2: `tool.ctxlint.ignore` must be a list of strings"),
    ("max-file-bytes-type", "ctxlint.toml", 'max-file-bytes = "2MB"\n', "{path}:1: `max-file-bytes` must be a positive integer"),
    ("fail-level-value", "ctxlint.toml", 'fail-level = "fatal"\n', "{path}:1: `fail-level` must be one of error, warning, info"),
    ("per-file-ignores-type", "ctxlint.toml", 'per-file-ignores = ["*.j2"]\n',
     "{path}:1: `per-file-ignores` must be a table of glob = [codes]"),
    ("per-file-ignores-codes-type", "ctxlint.toml", '[per-file-ignores]\n"*.j2" = "CTX101"\n',
     "{path}:2: `per-file-ignores.*.j2` must be a list of strings"),
    ("unknown-format", "ctxlint.toml", '[formats]\njinja = ["*.tmpl"]\nmustache = ["*.mustache"]\n',
     "{path}:3: `formats.mustache`: unknown format; choose from " + ", ".join(FORMATS)),
    ("tool-ctxlint-not-a-table", "pyproject.toml", '[tool]\nctxlint = "strict"\n',
     "{path}:2: `tool.ctxlint` must be a table ([tool.ctxlint])"),
    ("rules-not-tables", "ctxlint.toml", '[rules]\nCTX101 = "off"\n',
     "{path}:1: `rules` must be a table of rule tables, e.g. [tool.ctxlint.rules.CTX101]"),
    ("invalid-toml", "ctxlint.toml", 'model = "gpt-4o"\nselect = ["CTX101"\n',
     "{path}:2: not valid TOML: Unclosed array (at the end of the file)"),
    ("invalid-toml-located", "pyproject.toml", '[tool.ctxlint]\nselect = ["CTX101"]]\n',
     "{path}:2:20: not valid TOML: Expected newline or end of document after a statement"),
    ("not-utf8", "ctxlint.toml", b'model = "gpt-4o"\nselect = ["CTX\xff"]\n',
     "{path}:2: not valid TOML: the file is not UTF-8 (byte 0xff)"),
    ("select-unknown-code", "ctxlint.toml", 'select = ["CTX101", "XYZ1"]\n',
     "{path}:1: `select`: unknown rule code or name `XYZ1` (see `ctxlint rule`)"),
    ("ignore-unknown-name", "ctxlint.toml", 'ignore = ["volatile-prefix"]\n',
     "{path}:1: `ignore`: unknown rule code or name `volatile-prefix` (see `ctxlint rule`)"),
    ("extend-select-unknown-code", "ctxlint.toml", 'extend-select = ["CTX9"]\n',
     "{path}:1: `extend-select`: unknown rule code or name `CTX9` (see `ctxlint rule`)"),
    ("extend-unknown-key", "ctxlint.toml", 'extend-model = "gpt-4o"\n',
     ("{path}:1: `extend-model`: unknown key (`extend-` works with select, ignore, include, exclude, rule-packs, "
     "frameworks, test-paths, example-paths, per-file-ignores)")),
    ("per-file-ignores-unknown-code", "ctxlint.toml", '[per-file-ignores]\n"legacy/*" = ["CTX777"]\n',
     "{path}:2: `per-file-ignores.legacy/*`: unknown rule code or name `CTX777` (see `ctxlint rule`)"),
    ("rule-unknown-option", "ctxlint.toml", '[rules.CTX101]\nseverity = "info"\nnamez = ["stamp"]\n',
     "{path}:3: `rules.CTX101.namez`: unknown option (options: "),
    ("rule-option-type", "ctxlint.toml", '[rules.CTX101]\nnames = "stamp"\n',
     "{path}:2: `rules.CTX101.names` must be a list of strings, like the default "),
    ("rule-extend-option-type", "ctxlint.toml", '[rules.CTX101]\nextend-names = "stamp"\n',
     "{path}:2: `rules.CTX101.extend-names` must be a list of strings, like the default "),
    ("rule-severity-value", "ctxlint.toml", '[rules.CTX101]\nseverity = "fatal"\n',
     "{path}:2: `rules.CTX101.severity` must be one of error, warning, info"),
    ("rule-unknown-code", "ctxlint.toml", '[rules.CTX999]\nseverity = "info"\n', "{path}:1: `rules.CTX999`: no such rule"),
    ("rule-pack-missing", "ctxlint.toml", 'rule-packs = ["team-rules"]\n',
     "{path}:1: `rule-packs`: {dir}/team-rules: rule pack directory not found"),
    ("model-entry-key", "pyproject.toml", '[tool.ctxlint.models."our-finetune"]\nbase = "gpt-4o"\nwindoww = 64000\n',
     '{path}:3: [tool.ctxlint.models."our-finetune"] windoww: unknown key; expected one of '),
    ("model-entry-value", "ctxlint.toml", '[models.tiny]\nprovider = "openai"\nmax-output = 100\nwindow = -5\n',
     '{path}:4: [tool.ctxlint.models."tiny"] window: must be a positive integer, got -5'),
    ("extend-missing", "ctxlint.toml", '\nextend = "../base.toml"\n', "{path}:2: `extend`: no such configuration file "),
]
PREFIX_ONLY = {"rule-unknown-option", "rule-option-type", "rule-extend-option-type", "model-entry-key",
               "extend-missing"}
# A pyproject.toml whose [tool.ctxlint] is broken cannot even be recognised as a configuration.
NOT_FOUND = {"tool-ctxlint-not-a-table", "invalid-toml-located"}


@pytest.fixture(scope="module")
def config_error_runs(tmp_path_factory):
    """Every bad configuration in its own directory, all linted at once."""
    project = Project(tmp_path_factory.mktemp("config-errors"))
    for case_id, name, content, _ in ERROR_CASES:
        project.write({f"{case_id}/{name}": content, f"{case_id}/a.j2": CLOCK_TEMPLATE})
        if case_id not in NOT_FOUND:
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
                "release for customers, grouped by product area, and leave out internal refactors.\nWrite one "
                "line per change, newest first, name the team that owns it, link the ticket, and never mention a "
                "customer by name or quote an internal discussion." + HOUSE_STYLE + "\n",
        "b.j2": CLOCK_TEMPLATE,  # a call: `calls` keeps its default
        # `current_time` is no longer a name
        "c.j2": "Time now {{ current_time }}.\n" + SUPPORT_RULES,
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


# --- hierarchy: the closest configuration, `extend`, and order-independent results -------------


def test_each_file_uses_the_closest_configuration_whatever_the_order_of_the_paths(project):
    project.write({
        "ctxlint.toml": 'ignore = ["CTX201"]\n[per-file-ignores]\n"tests/**" = ["parse-error"]\n',
        "b.prompty": NO_RESERVE_PROMPTY,  # CTX201 is ignored here
        "bad.j2": BROKEN,
        "tests/bad.j2": BROKEN,
        # Inherits the root file explicitly and adds to it; its globs are read from svc/.
        "svc/ctxlint.toml": 'extend = "../ctxlint.toml"\nextend-exclude = ["generated/"]\n',
        "svc/b.prompty": NO_RESERVE_PROMPTY,
        "svc/bad.j2": BROKEN,
        "svc/tests/bad.j2": BROKEN,
        "svc/generated/bad.j2": BROKEN,
        # No `extend`: nothing is inherited, as in ruff.
        "legacy/pyproject.toml": '[tool.ctxlint]\nselect = ["CTX201"]\n',
        "legacy/b.prompty": NO_RESERVE_PROMPTY,
        "legacy/bad.j2": BROKEN,
        "generated/bad.j2": BROKEN,  # the exclude of svc/ does not reach here
    })
    expected = [
        "bad.j2" + BROKEN_AT,
        "generated/bad.j2" + BROKEN_AT,
        "legacy/b.prompty:3:1: CTX201",
        "svc/bad.j2" + BROKEN_AT,
    ]
    runs = project.run_many([
        ("check",),
        ("check", "legacy", "svc", "bad.j2", "generated", "b.prompty", "tests"),
        ("check", "tests", "b.prompty", "generated", "bad.j2", "svc", "legacy"),
        ("check", "svc/b.prompty", "legacy/b.prompty", "b.prompty", "svc/bad.j2", "legacy/bad.j2", "bad.j2",
         "generated/bad.j2"),
        ("check", "svc"),
    ])
    for run in runs[:4]:
        assert run.located == expected, run.stdout
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    assert runs[3].located == expected
    assert runs[4].located == ["svc/bad.j2" + BROKEN_AT]


def test_extend_chains_and_cycles(project):
    project.write({
        "base/strict.toml": 'select = ["CTX0", "CTX2"]\nfail-level = "error"\n',
        "team/ctxlint.toml": 'extend = "../base/strict.toml"\nextend-ignore = ["CTX201"]\n',
        "team/app/pyproject.toml": '[tool.ctxlint]\nextend = "../ctxlint.toml"\nextend-select = ["CTX101"]\n',
        "team/app/a.j2": CLOCK_TEMPLATE,
        "team/app/b.prompty": NO_RESERVE_PROMPTY,
        "team/app/bad.j2": BROKEN,
        "loop/ctxlint.toml": 'extend = "other.toml"\n',
        "loop/other.toml": 'model = "gpt-4o"\nextend = "ctxlint.toml"\n',
        "loop/a.j2": CLOCK_TEMPLATE,
    })
    app, loop = project.run_many([("check", "team/app"), ("check", "loop")], strict=False)
    app.assert_no_crash()
    assert app.located == ["team/app/a.j2:1:15: CTX101", "team/app/bad.j2" + BROKEN_AT]
    root = project.root.resolve()
    assert (loop.code, loop.stdout) == (2, "")
    assert loop.err_lines == [(f"ctxlint: error: {root / 'loop/other.toml'}:2: `extend` makes a cycle: "
                              f"{root / 'loop/ctxlint.toml'} -> {root / 'loop/other.toml'} -> "
                              f"{root / 'loop/ctxlint.toml'}")]


def test_every_list_extends_or_replaces(project):
    project.write({
        "ctxlint.toml": (
            'select = ["CTX0"]\n'
            'extend-select = ["CTX101"]\n'  # applied after `select`, whatever the order in the file
            'extend-include = ["*.tmpl"]\n'
            '[formats]\nextend-jinja = ["*.tmpl"]\nextend-text = ["notes/*.md"]\n'
            '[rules.CTX101]\nextend-names = ["build_stamp"]\n'
        ),
        "a.tmpl": "Build {{ build_stamp }}\n" + PERSONA,  # an added name
        "b.j2": "Time now {{ current_time }}.\n" + PERSONA,  # a default name still
        "notes/c.md": b"Caf\xe9\n",  # read as text: CTX001 for the bad byte
        "prompts/d.md": b"Caf\xe9\n",  # the default text globs still apply
        "e.prompty": NO_RESERVE_PROMPTY,  # CTX201 is not selected
    })
    run, cli = project.run_many([
        ("check",),
        ("check", "--extend-select", "CTX2", "--ignore", "CTX101"),
    ])
    assert run.located == [
        "a.tmpl:1:7: CTX101", "b.j2:1:10: CTX101", "notes/c.md:1:4: CTX001", "prompts/d.md:1:4: CTX001",
    ]
    assert cli.located == ["e.prompty:3:1: CTX201", "notes/c.md:1:4: CTX001", "prompts/d.md:1:4: CTX001"]


def test_config_overrides_from_the_command_line(project):
    project.write({
        "ctxlint.toml": 'ignore = ["CTX201"]\n',
        "a.j2": CLOCK_TEMPLATE,
        "b.prompty": NO_RESERVE_PROMPTY,
    })
    runs = project.run_many([
        ("check", "--config", 'rules.CTX101.severity = "info"'),
        ("check", "--config", "ignore = []", "--config", 'fail-level = "error"'),
        ("check", "--config", "selekt = []"),
        ("check", "--config", "select = ["),
        ("check", "--config", "ctxlint.toml", "--config", "other.toml"),
    ])
    info, reset, typo, broken, two_files = runs
    assert (info.code, info.lines[-1]) == (0, "Found 1 finding (1 info) in 2 files.")
    # The override replaces the file's ignore; warnings no longer fail the run.
    assert (reset.code, reset.located) == (1, ["a.j2:1:15: CTX101", "b.prompty:3:1: CTX201"])
    for run in (typo, broken, two_files):
        assert (run.code, run.stdout, len(run.err_lines)) == (2, "", 1), run.stderr
    assert typo.err_lines == ["ctxlint: error: --config: `selekt`: unknown key"]
    assert broken.err_lines[0].startswith(
        "ctxlint: error: --config 'select = [': not a file, and not a TOML `KEY = VALUE` assignment (")
    assert two_files.err_lines == ["ctxlint: error: other.toml: config file not found"]


def test_show_settings_prints_the_resolved_configuration_as_toml(project):
    import tomllib

    project.write({
        "base.toml": 'extend-exclude = ["vendor/"]\n[rules.CTX101]\nextend-names = ["build_stamp"]\n',
        "svc/pyproject.toml": '[tool.ctxlint]\nextend = "../base.toml"\nignore = ["CTX201"]\n',
        "svc/a.j2": CLOCK_TEMPLATE,
    })
    run, directory, missing = project.run_many([
        ("check", "--show-settings", "svc/a.j2", "--config", 'model = "gpt-4.1"'),
        ("check", "--show-settings", "svc"),
        ("check", "--show-settings", "nowhere.j2"),
    ], strict=False)
    root = project.root.resolve()
    assert run.code == 0
    header = [line for line in run.lines if line.startswith("#")]
    assert header[:4] == [
        "# Settings for svc/a.j2",
        f"# configuration: {root / 'svc/pyproject.toml'} (extends {root / 'base.toml'})",
        f"# globs are relative to: {root / 'svc'}",
        "# format: jinja",
    ]
    assert header[4].startswith("# rules run: CTX001, CTX002, CTX101,") and "CTX201" not in header[4]
    settings = tomllib.loads(run.stdout)
    assert settings["ignore"] == ["CTX201"]
    assert settings["exclude"] == ["vendor/"]
    assert settings["model"] == "gpt-4.1"
    assert settings["rules"]["CTX101"]["names"][-1] == "build_stamp" and "now" in settings["rules"]["CTX101"]["names"]
    assert "*.j2" in settings["include"]
    assert directory.code == 0 and "# format:" not in directory.stdout
    assert (missing.code, missing.err_lines) == (2, ["ctxlint: error: nowhere.j2: no such file or directory"])


def test_a_broken_pyproject_is_an_error_not_skipped(project):
    project.write({
        "pyproject.toml": '[project]\nname = "app"\nversion = 1.0.0\n',
        "a.j2": CLOCK_TEMPLATE,
    })
    run = project.run("check", "a.j2")
    assert (run.code, run.stdout) == (2, "")
    assert len(run.err_lines) == 1
    assert run.err_lines[0].startswith(f"ctxlint: error: {project.root.resolve() / 'pyproject.toml'}:3:")
    assert ": not valid TOML: " in run.err_lines[0]


def test_readme_configuration_example_is_valid_and_keeps_the_defaults(project):
    import re

    import tomllib

    from ctxlint.catalogue import load_catalogue
    from ctxlint.config import DEFAULT_INCLUDE, DEFAULT_TEXT_GLOBS

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Configuration"):readme.index("### Inline suppressions")]
    example = re.search(r"```toml\n(.*?)```", section, re.DOTALL).group(1)
    project.write({"pyproject.toml": example, "ci/ctxlint-rules/.keep": "", "a.j2": CLOCK_TEMPLATE})
    run = project.run("check", "--show-settings", "a.j2")
    assert run.code == 0, run.stderr
    settings = tomllib.loads(run.stdout)
    assert settings["include"] == [*DEFAULT_INCLUDE, "*.tmpl"]
    assert settings["select"] == ["ALL"] and settings["ignore"] == ["CTX303"]
    assert settings["formats"]["text"] == [*DEFAULT_TEXT_GLOBS, "docs/prompts/*.md"]
    assert settings["per-file-ignores"] == {"tests/**": ["CTX101"]}
    default_names = load_catalogue()["CTX101"].options["names"]
    assert settings["rules"]["CTX101"]["names"] == [*default_names, "build_stamp"]
    # Family tables extend the option in every rule of the family that has it.
    catalogue = load_catalogue()
    assert settings["rules"]["CTX301"]["collections"] == [*catalogue["CTX301"].options["collections"], "kb_hits"]
    for code in ("CTX401", "CTX402", "CTX403"):
        assert settings["rules"][code]["untrusted"] == [*catalogue[code].options["untrusted"], "crawl_*"]
