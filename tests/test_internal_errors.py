"""A ctxlint bug on one file is an internal error of the run, not a finding: the other files are
still reported, nothing can suppress it, and the command exits 2 (as ruff does)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import CLOCK_MESSAGE, CLOCK_TEMPLATE

from ctxlint import engine, frontends
from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings

CATALOGUE = load_catalogue()


class Panic(BaseException):
    """What a native library raises when it panics: not an ``Exception``."""


def _failing_parse(real):
    def parse(fmt, text, path, context=None):
        if "type_error" in path:
            raise TypeError("unexpected node\nwith a second line")
        if "panic" in path:
            raise Panic("called `Result::unwrap()` on an `Err` value")
        return real(fmt, text, path, context)

    return parse


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failing_file_is_an_internal_error_and_the_others_are_linted(tmp_path, monkeypatch, jobs):
    monkeypatch.setattr(frontends, "parse", _failing_parse(frontends.parse))
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 2)
    monkeypatch.delenv("CTXLINT_DEBUG", raising=False)
    for name in ("a_type_error.j2", "b_clock.j2", "c_panic.j2"):
        (tmp_path / name).write_text(CLOCK_TEMPLATE)
    linter = engine.Linter(Settings(root=tmp_path, preview=True), CATALOGUE)
    result = linter.lint_files(sorted(tmp_path.iterdir()), jobs=jobs)
    assert [(f.code, f.span.path.endswith("b_clock.j2")) for f in result.findings] == [("CTX101", True)]
    assert [(e.path.rsplit("/", 1)[-1], e.cause) for e in result.errors] == [
        ("a_type_error.j2", "TypeError: unexpected node with a second line"),
        ("c_panic.j2", "Panic: called `Result::unwrap()` on an `Err` value"),
    ]
    assert result.files_checked == 3


def test_lint_text_lets_a_bug_raise(tmp_path, monkeypatch):
    monkeypatch.setattr(frontends, "parse", _failing_parse(frontends.parse))
    linter = engine.Linter(Settings(root=tmp_path, preview=True), CATALOGUE)
    with pytest.raises(TypeError):
        linter.lint_text("Hello", "x_type_error.j2", "x_type_error.j2", "jinja")


# The real command, run in a subprocess with one front-end made to fail on chosen files.
_SCRIPT = textwrap.dedent("""
    import os, sys
    from ctxlint import engine, frontends
    real = frontends.parse

    class Panic(BaseException):
        pass

    def parse(fmt, text, path, context=None):
        if "type_error" in path:
            raise TypeError("unexpected node")
        if "panic" in path:
            raise Panic("called `Result::unwrap()` on an `Err` value")
        if "dies" in path:
            os._exit(3)
        return real(fmt, text, path, context)

    frontends.parse = parse
    if os.environ.get("FORCE_WORKERS"):
        engine.PARALLEL_THRESHOLD = 2
        os.cpu_count = lambda: 2
    from ctxlint.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def _run_many(project, arg_lists, workers=False) -> list[subprocess.CompletedProcess]:
    """Run the patched command once per argument list, all at once (start-up dominates)."""
    env = {k: v for k, v in os.environ.items() if k != "CTXLINT_DEBUG"}
    env.update({"PYTHONIOENCODING": "utf-8", **({"FORCE_WORKERS": "1"} if workers else {})})
    # The findings these tests print come from preview rules (CTX101), as in conftest's Project.
    arg_lists = [(args[0], "--preview", *args[1:]) if args[:1] == ("check",) else args for args in arg_lists]
    procs = [subprocess.Popen([sys.executable, "-c", _SCRIPT, *args], cwd=project.root, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
             for args in arg_lists]
    runs = []
    for args, proc in zip(arg_lists, procs):
        stdout, stderr = proc.communicate(timeout=120)
        runs.append(subprocess.CompletedProcess(args, proc.returncode, stdout, stderr))
    return runs


def _run(project, *args, workers=False) -> subprocess.CompletedProcess:
    return _run_many(project, [args], workers)[0]


INTERNAL = ("ctxlint: internal error on {path}: {cause}. This is a bug in ctxlint, not in the file; the "
            "file was not checked. Please report it with the file (CTXLINT_DEBUG=1 shows the traceback).")


@pytest.mark.parametrize("workers", [False, True])
def test_check_exits_2_and_still_prints_the_other_findings(project, workers):
    project.write({"a_type_error.j2": CLOCK_TEMPLATE, "b.j2": CLOCK_TEMPLATE, "c_panic.j2": CLOCK_TEMPLATE})
    run = _run(project, "check", "--output-format", "concise", workers=workers)
    assert run.returncode == 2
    assert run.stdout.splitlines() == [f"b.j2:1:15: CTX101 {CLOCK_MESSAGE}",
                                       "Found 1 finding (1 error) in 3 files."]
    assert run.stderr.splitlines() == [
        INTERNAL.format(path="a_type_error.j2", cause="TypeError: unexpected node"),
        INTERNAL.format(path="c_panic.j2", cause="Panic: called `Result::unwrap()` on an `Err` value"),
    ]
    assert "Traceback" not in run.stderr


def test_no_option_or_suppression_hides_an_internal_error(project):
    project.write({
        "a_type_error.j2": "{# ctxlint: ignore-file #}\n" + CLOCK_TEMPLATE,
        "b.j2": CLOCK_TEMPLATE,
        "ctxlint.toml": 'ignore = ["CTX001"]\n',
    })
    variants = [("--exit-zero",), ("--ignore", "CTX001"), ("--fail-level", "error", "--exit-zero"),
                ("--select", "CTX201"), ("--statistics",), ("--diff",), ("--output-format", "json")]
    *runs, json_run = _run_many(project, [("check", *args) for args in variants])
    for args, run in zip(variants, runs):
        assert run.returncode == 2, args
        assert INTERNAL.format(path="a_type_error.j2", cause="TypeError: unexpected node") in run.stderr, args
    assert json_run.returncode == 2
    assert [(f["path"], f["code"]) for f in json.loads(json_run.stdout)] == [("b.j2", "CTX101")]


def test_a_worker_process_that_dies_is_named_and_the_others_are_reported(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "b_dies.j2": CLOCK_TEMPLATE, "c.j2": CLOCK_TEMPLATE})
    run = _run(project, "check", "--output-format", "concise", workers=True)
    assert run.returncode == 2
    assert [line.split(" ", 1)[0] for line in run.stdout.splitlines()[:-1]] == ["a.j2:1:15:", "c.j2:1:15:"]
    assert run.stderr.splitlines() == [INTERNAL.format(path="b_dies.j2", cause=(
        "the process linting this file died (killed by the operating system, or a crash in a native library)"))]


def test_cost_reports_the_other_files_and_exits_2(project):
    project.write({"a_type_error.j2": CLOCK_TEMPLATE, "b.j2": CLOCK_TEMPLATE})
    run = _run(project, "cost", "--format", "json")
    assert run.returncode == 2
    assert [f["path"] for f in json.loads(run.stdout)["files"]] == ["b.j2"]
    assert run.stderr.splitlines() == [INTERNAL.format(path="a_type_error.j2", cause="TypeError: unexpected node")]


def test_an_output_limit_of_thousands_of_digits_is_no_number_not_an_internal_error(project):
    """`max_completion_tokens=999…9` (found by benchmarks/fuzz.py, issue 25): no check or report
    does arithmetic on it or prints it; the request is linted and priced as one without a number."""
    nines = "9" * 3000
    system = '[{"role": "system", "content": "You are the support assistant for Northwind."}]'
    project.write({
        "app.py": "from openai import OpenAI\n\nclient = OpenAI()\n"
                  f"client.chat.completions.create(model=\"gpt-4o\", max_completion_tokens={nines}, messages={system})\n",
        "app.ts": 'import OpenAI from "openai";\nconst client = new OpenAI();\n'
                  f"await client.chat.completions.create({{model: \"gpt-4o\", max_completion_tokens: {nines}, "
                  f"messages: {system}}});\n",
        "request.json": f'{{"model": "gpt-4o", "max_completion_tokens": {nines}, "messages": {system}}}\n',
    })
    check, cost = project.run_many([("check", "--select", "ALL", "--confidence", "low"), ("cost",)])
    assert (check.code, check.lines) == (0, ["All checks passed (3 files checked)."])
    assert cost.code == 0 and any(line.startswith("3 requests in 3 files:") for line in cost.lines), cost.stdout
    assert nines[:30] not in cost.stdout
