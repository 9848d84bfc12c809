"""Adopting ctxlint on a repository that already has findings: `--write-baseline` and
`--baseline` (fingerprints that survive unrelated edits, also in SARIF and GitLab reports), and
`--changed-since` for pull-request gates. Every command runs as a user runs it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CLOCK_MESSAGE, CLOCK_TEMPLATE, NO_RESERVE_PROMPTY, SUPPORT_RULES, Project

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GIT = shutil.which("git")


def _git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.invalid", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    done = subprocess.run([GIT, "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=root,
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr


def test_baseline_on_the_examples_reports_nothing_then_one_new_finding(project):
    shutil.copytree(EXAMPLES, project.root / "examples")
    plain = project.run("check", "examples")
    files = int(re.search(r" in (\d+) files", plain.lines[-1]).group(1))
    first = project.run("check", "examples", "--write-baseline", "ctxlint-baseline.json")
    assert first.code == 0 and first.stdout == ""
    written = json.loads((project.root / "ctxlint-baseline.json").read_text(encoding="utf-8"))
    count = len(written["findings"])
    assert first.err_lines == [f"Wrote {count} findings to ctxlint-baseline.json."]
    assert written["ctxlint-baseline"] == 1 and count == len(plain.located) > 20
    entry = written["findings"][0]
    assert list(entry) == ["fingerprint", "code", "path", "line", "confidence", "message"]

    clean = project.run("check", "examples", "--baseline", "ctxlint-baseline.json")
    assert (clean.code, clean.stderr) == (0, "")
    assert clean.lines == [f"All checks passed ({files} files checked). {count} findings in the baseline not shown."]

    # Unrelated edits move every finding of a file down two lines: still nothing new.
    system = project.root / "examples/support_bot/system.j2"
    system.write_text("{# Reviewed by the support team. #}\n\n" + system.read_text(encoding="utf-8"), encoding="utf-8")
    moved = project.run("check", "examples", "--baseline", "ctxlint-baseline.json")
    assert moved.code == 0, moved.stdout

    # One new finding: it alone is reported.
    (project.root / "examples/rag/new_prompt.j2").write_text(CLOCK_TEMPLATE, encoding="utf-8")
    one = project.run("check", "examples", "--baseline", "ctxlint-baseline.json", "--output-format", "concise")
    assert one.code == 1
    assert one.lines[0] == f"examples/rag/new_prompt.j2:1:15: CTX101 {CLOCK_MESSAGE}"
    assert one.lines[1].startswith(f"Found 1 finding (1 error) in {files + 1} files.")


def test_baseline_in_the_configuration_is_used_by_check_from_any_directory(project):
    """`baseline = "…"` in the configuration: a legacy repository adopts the hook on day one
    (`ctxlint check --write-baseline` writes it, every later run reads it), issue 25."""
    project.write({
        "pyproject.toml": '[tool.ctxlint]\nbaseline = "ctxlint-baseline.json"\n',
        "prompts/old.j2": CLOCK_TEMPLATE,
    })
    missing = project.run("check")
    assert (missing.code, missing.err_lines) == (
        2, ["ctxlint: error: ctxlint-baseline.json: baseline file not found (create it with --write-baseline)"])
    written = project.run("check", "--write-baseline")
    assert (written.code, written.err_lines) == (0, ["Wrote 1 finding to ctxlint-baseline.json."])
    clean = project.run("check", "prompts/old.j2")
    assert (clean.code, clean.lines) == (0, ["All checks passed (1 file checked). 1 finding in the baseline not shown."])
    (project.root / "prompts/new.j2").write_text(CLOCK_TEMPLATE, encoding="utf-8")
    root, inside = project.run("check", "prompts", "--output-format", "concise"), project.run("check", cwd="prompts")
    assert root.code == 1 and root.lines == [
        f"prompts/new.j2:1:15: CTX101 {CLOCK_MESSAGE}",
        "Found 1 finding (1 error) in 2 files. 1 finding in the baseline not shown."]
    assert inside.code == 1 and inside.lines[0] == f"new.j2:1:15: CTX101 {CLOCK_MESSAGE}"
    explicit = project.run("check", "--baseline", "nowhere.json")  # the command line wins
    assert explicit.err_lines == ["ctxlint: error: nowhere.json: baseline file not found (create it with "
                                  "--write-baseline)"]
    without = Project(project.root / "elsewhere").write({"a.j2": CLOCK_TEMPLATE, "ctxlint.toml": ""})
    assert without.run("check", "--write-baseline").err_lines == [
        'ctxlint: error: --write-baseline needs a FILE, or `baseline = "FILE"` in the configuration']


ESTIMATE = "def estimate_{name}_tokens(text: str) -> int:\n    return len(text) // 4\n\n\n"


def test_fingerprints_survive_moves_and_tell_identical_lines_apart(project):
    project.write({
        "a.j2": CLOCK_TEMPLATE,
        "b.prompty": NO_RESERVE_PROMPTY,
        # The same estimate twice in one file: two findings on identical lines (CTX204).
        "budget.py": ESTIMATE.format(name="prompt") + ESTIMATE.format(name="reply"),
        # ... in functions the project calls (a function nothing calls is low confidence)
        "app.py": "import budget\n\nESTIMATES = [budget.estimate_prompt_tokens, budget.estimate_reply_tokens,\n"
                  "             budget.estimate_a_tokens, budget.estimate_b_tokens, budget.estimate_c_tokens]\n",
    })
    base = project.run("check", "--write-baseline", "base.json")
    assert base.code == 0
    fingerprints = [e["fingerprint"] for e in json.loads((project.root / "base.json").read_text("utf-8"))["findings"]]
    assert len(fingerprints) == len(set(fingerprints)) == 4
    # Reindenting and moving a line keeps its fingerprint; a third identical line is new.
    project.write({"a.j2": "\n\n   Current time:   {{ now() }}\nYou are the support assistant for Northwind.\n",
                   "budget.py": "import math\n\n\n" + "".join(ESTIMATE.format(name=n) for n in ("a", "b", "c"))})
    run = project.run("check", "--baseline", "base.json", "--output-format", "json")
    assert [(f["path"], f["line"], f["code"]) for f in json.loads(run.stdout)] == [("budget.py", 13, "CTX204")]


def test_fingerprints_in_sarif_and_gitlab_match_the_baseline(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "b.prompty": NO_RESERVE_PROMPTY})
    project.run("check", "--write-baseline", "base.json")
    sarif, gitlab = project.run_many([("check", "--output-format", "sarif"), ("check", "--output-format", "gitlab")])
    recorded = {e["path"]: e["fingerprint"] for e in json.loads((project.root / "base.json").read_text("utf-8"))["findings"]}
    results = json.loads(sarif.stdout)["runs"][0]["results"]
    in_sarif = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]:
                r["partialFingerprints"]["ctxlintFingerprint/v1"] for r in results}
    assert in_sarif == recorded
    issues = json.loads(gitlab.stdout)
    assert {i["location"]["path"]: i["fingerprint"] for i in issues} == recorded


def test_bad_baseline_files_exit_2(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "not-a-baseline.json": '{"findings": 3}\n', "broken.json": "{"})
    missing, wrong, broken = project.run_many([
        ("check", "--baseline", "none.json"),
        ("check", "--baseline", "not-a-baseline.json"),
        ("check", "--baseline", "broken.json"),
    ])
    assert (missing.code, missing.stdout) == (2, "")
    assert missing.err_lines == ["ctxlint: error: none.json: baseline file not found (create it with --write-baseline)"]
    assert wrong.err_lines == [("ctxlint: error: not-a-baseline.json: not a ctxlint baseline (version 1); write one "
                               "with --write-baseline")]
    assert broken.code == 2 and broken.err_lines[0].startswith("ctxlint: error: broken.json: not a ctxlint baseline: ")


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_changed_since_reports_only_findings_on_changed_lines(project):
    project.write({
        "a.j2": CLOCK_TEMPLATE,
        "b.prompty": NO_RESERVE_PROMPTY,
        "c.j2": SUPPORT_RULES,
    })
    _git(project.root, "init", "-q")
    _git(project.root, "add", "-A")
    _git(project.root, "commit", "-q", "-m", "prompts with findings")
    # A change to c.j2 adds a clock; a.j2's old clock is untouched; a new file is all new.
    project.write({
        "c.j2": "Trace: {{ trace_id }}\n" + SUPPORT_RULES,
        "d.j2": CLOCK_TEMPLATE,
        "prompts-été/e.j2": CLOCK_TEMPLATE,  # git quotes non-ASCII names unless told not to
    })
    changed, everything, bad_ref = project.run_many([
        ("check", "--changed-since", "HEAD"),
        ("check",),
        ("check", "--changed-since", "no-such-branch"),
    ])
    assert changed.located == ["c.j2:1:8: CTX102", "d.j2:1:15: CTX101", "prompts-été/e.j2:1:15: CTX101"]
    assert changed.lines[-1] == "Found 3 findings (3 errors) in 3 files."
    assert len(everything.located) == 5
    assert (bad_ref.code, bad_ref.stdout) == (2, "")
    assert bad_ref.err_lines == [("ctxlint: error: unknown git revision `no-such-branch` (a branch, tag or commit: "
                                 "`git fetch` it first in a shallow clone)")]


def test_changed_since_outside_a_repository_exits_2(tmp_path):
    project = Project(tmp_path)
    project.write({"a.j2": CLOCK_TEMPLATE})
    run = project.run("check", "--changed-since", "HEAD")
    assert (run.code, run.stdout) == (2, "")
    assert run.err_lines[0].endswith("not inside a git repository; --changed-since needs one")
