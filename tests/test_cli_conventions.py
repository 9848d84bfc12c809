"""The command-line conventions users expect from a linter: `python -m ctxlint`, `-V`,
`-o/--output-file`, `--quiet`, a fixable marker, colour (NO_COLOR / FORCE_COLOR), standard
input, `--statistics` in every format, and skip notices for files that are not files."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
from conftest import CLOCK_MESSAGE, CLOCK_TEMPLATE, NO_RESERVE_PROMPTY, PREVIEW_RULE
from test_cli_fix import SERVICE  # a Python module with one fixable finding (CTX103)

from ctxlint import __version__

CLOCK_LINE = f"a.j2:1:15: CTX101 {CLOCK_MESSAGE}"


def test_python_dash_m_ctxlint_and_version(project):
    project.write({"a.j2": CLOCK_TEMPLATE})
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    module = subprocess.run([sys.executable, "-m", "ctxlint", "check", "--preview", "a.j2", "--output-format",
                             "concise"], cwd=project.root, capture_output=True, text=True, env=env, check=False)
    assert (module.returncode, module.stdout.splitlines()) == (1, [CLOCK_LINE, "Found 1 finding (1 error) in 1 file."])
    short, long = project.run_many([("-V",), ("--version",)])
    assert (short.code, short.stdout) == (0, f"ctxlint {__version__}\n")
    assert long.stdout == short.stdout


def test_output_file_quiet_and_fixable_marker(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "service.py": SERVICE, "big.j2": "x" * 3_000_001})
    to_file, quiet, quiet_file = project.run_many([
        ("check", "a.j2", "service.py", "-o", "report.txt", "--output-format", "concise"),
        ("check", "--quiet", ".", "--output-format", "concise"),
        ("check", "-q", "--output-format", "json", "--output-file", "report.json"),
    ])
    text = (project.root / "report.txt").read_text(encoding="utf-8").splitlines()
    assert (to_file.code, to_file.stdout, to_file.stderr) == (1, "", "")
    assert text[0] == CLOCK_LINE
    # `[*]`: this finding has a fix that `--fix` applies.
    assert text[1].startswith("service.py:6:36: CTX103 [*] `json.dumps` writes keys")
    assert text[2] == "Found 2 findings (1 error, 1 warning) in 2 files; 1 fixable with --fix."
    # --quiet: the findings and nothing else (no summary, no skip notice for big.j2).
    assert (quiet.code, quiet.stderr) == (1, "")
    assert quiet.lines == text[:2]
    assert (quiet_file.code, quiet_file.stdout, quiet_file.stderr) == (1, "", "")
    assert [f["code"] for f in json.loads((project.root / "report.json").read_text(encoding="utf-8"))] == [
        "CTX101", "CTX103"]


def test_colour_on_request_and_never_in_files_or_pipes(project):
    project.write({"a.j2": CLOCK_TEMPLATE})
    concise = ("--output-format", "concise")
    forced = project.run("check", "a.j2", *concise, env={"FORCE_COLOR": "1"})
    both = project.run("check", "a.j2", *concise, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    piped = project.run("check", "a.j2", *concise)
    to_file = project.run("check", "a.j2", "-o", "out.txt", *concise, env={"FORCE_COLOR": "1"})
    assert forced.lines[0] == (f"\x1b[1ma.j2\x1b[0m\x1b[2m:1:15:\x1b[0m \x1b[1;31mCTX101\x1b[0m {CLOCK_MESSAGE}")
    assert forced.lines[1] == "\x1b[1mFound 1 finding (1 error) in 1 file.\x1b[0m"
    assert both.lines == piped.lines == [CLOCK_LINE, "Found 1 finding (1 error) in 1 file."]
    assert to_file.stdout == ""
    assert "\x1b" not in (project.root / "out.txt").read_text(encoding="utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="no pseudo-terminals")
def test_colour_on_a_terminal_unless_no_color(project):
    import pty

    project.write({"a.j2": CLOCK_TEMPLATE})

    def on_a_terminal(**env: str) -> tuple[int, list[str]]:
        leader, follower = pty.openpty()
        environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        done = subprocess.run([sys.executable, "-m", "ctxlint", "check", "--preview", "a.j2", "--output-format",
                               "concise"], cwd=project.root,
                              stdout=follower, stderr=subprocess.PIPE, env={**environment, "TERM": "xterm", **env},
                              timeout=60, check=False)
        os.close(follower)
        output = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: everything was read
                break
            if not chunk:
                break
            output += chunk
        os.close(leader)
        return done.returncode, output.decode("utf-8").splitlines()

    coloured, no_color, dumb = on_a_terminal(), on_a_terminal(NO_COLOR="1"), on_a_terminal(TERM="dumb")
    assert coloured == (1, [f"\x1b[1ma.j2\x1b[0m\x1b[2m:1:15:\x1b[0m \x1b[1;31mCTX101\x1b[0m {CLOCK_MESSAGE}",
                            "\x1b[1mFound 1 finding (1 error) in 1 file.\x1b[0m"])
    assert no_color == dumb == (1, [CLOCK_LINE, "Found 1 finding (1 error) in 1 file."])


def test_standard_input(project):
    project.write({
        "ctxlint.toml": '[per-file-ignores]\n"legacy/**" = ["CTX101"]\n',
        "prompts/.keep": "",
    })
    named, dash, ignored, nameless, unknown, fixed, diff = (
        project.run("check", "--stdin-filename", "prompts/a.j2", "--output-format", "concise", stdin=CLOCK_TEMPLATE),
        project.run("check", "-", "--stdin-filename", "prompts/a.j2", stdin=CLOCK_TEMPLATE),
        project.run("check", "-", "--stdin-filename", "legacy/a.j2", stdin=CLOCK_TEMPLATE),
        project.run("check", "-", stdin=CLOCK_TEMPLATE),
        project.run("check", "-", "--stdin-filename", "notes.txt", stdin="hello\n"),
        project.run("check", "--fix", "--stdin-filename", "service.py", stdin=SERVICE),
        project.run("check", "--diff", "--stdin-filename", "service.py", stdin=SERVICE),
    )
    assert (named.code, named.lines) == (1, [f"prompts/a.j2:1:15: CTX101 {CLOCK_MESSAGE}",
                                            "Found 1 finding (1 error) in 1 file."])
    # The full format shows the source line read from standard input (no such file on disk).
    assert dash.lines[0] == named.lines[0] and dash.lines[-1] == named.lines[-1]
    assert "1 | Current time: {{ now() }}" in dash.lines and not (project.root / "prompts/a.j2").exists()
    # The name decides the configuration too: per-file-ignores apply.
    assert (ignored.code, ignored.lines) == (0, ["All checks passed (1 file checked)."])
    assert (nameless.code, nameless.stdout) == (2, "")
    assert nameless.err_lines == [("ctxlint: error: reading standard input (`-`) needs --stdin-filename NAME: the "
                                  "name says its format (a .j2 template, a .prompty file, ...) and which "
                                  "configuration applies")]
    assert (unknown.code, unknown.lines) == (0, ["All checks passed (0 files checked)."])
    assert unknown.err_lines[0].startswith("ctxlint: warning: no file was linted")
    # --fix on standard input writes the fixed text to stdout, and nothing to disk.
    assert (fixed.code, fixed.stdout, fixed.stderr) == (0, SERVICE.replace("json.dumps(POLICY)",
                                                                           "json.dumps(POLICY, sort_keys=True)"), "")
    assert not (project.root / "service.py").exists()
    assert diff.code == 1 and diff.lines[:2] == ["--- a/service.py", "+++ b/service.py"]


def test_statistics_in_every_format(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "b.prompty": NO_RESERVE_PROMPTY, "c.prompty": NO_RESERVE_PROMPTY})
    text, as_json, sarif, github, gitlab, junit = project.run_many([
        ("check", "--statistics", "--output-format", fmt)
        for fmt in ("text", "json", "sarif", "github", "gitlab", "junit")
    ])
    table = ["    2  CTX201  missing-output-reserve", "    1  CTX101  volatile-in-prefix"]
    assert text.lines == [*table, "Found 3 findings (1 error, 2 warnings) in 3 files."]
    counts = [{"code": "CTX201", "name": "missing-output-reserve", "count": 2, "fixable": 0},
              {"code": "CTX101", "name": "volatile-in-prefix", "count": 1, "fixable": 0}]
    assert json.loads(as_json.stdout) == counts
    # SARIF keeps its results and carries the counts in the run's properties.
    log = json.loads(sarif.stdout)
    assert len(log["runs"][0]["results"]) == 3
    assert log["runs"][0]["properties"]["statistics"] == counts
    # Formats with no place for counts keep their findings and log the counts on stderr.
    for run in (github, gitlab, junit):
        assert run.code == 1
        assert run.err_lines == table
    assert len(github.lines) == 3 and all(line.startswith("::") for line in github.lines)


# --- files that are not files --------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifos_sockets_devices_and_symlink_loops_are_skipped_with_a_notice(project, tmp_path, monkeypatch):
    project.write({"ok.j2": CLOCK_TEMPLATE, "sub/ok.j2": CLOCK_TEMPLATE})
    root = project.root
    os.mkfifo(root / "pipe.j2")
    os.mkfifo(root / "sub" / "pipe.j2")
    (root / "loop.j2").symlink_to("loop.j2")
    (root / "sub" / "a.j2").symlink_to("b.j2")
    (root / "sub" / "b.j2").symlink_to("a.j2")
    (root / "device.j2").symlink_to(os.devnull)
    (root / "gone.j2").symlink_to("missing.j2")
    (root / "notes.txt").symlink_to("notes.txt")  # not a file ctxlint reads: no notice
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.j2").write_text(CLOCK_TEMPLATE, encoding="utf-8")
    (root / "linked-dir").symlink_to(outside, target_is_directory=True)
    sock = socket.socket(socket.AF_UNIX)
    monkeypatch.chdir(root)  # AF_UNIX paths are limited to about 100 bytes: bind a short relative path
    try:
        sock.bind("sock.j2")
        walked, given = project.run_many([
            ("check",),
            ("check", "pipe.j2", "loop.j2", "sock.j2", "device.j2", "ok.j2"),
        ])
    finally:
        sock.close()
    assert walked.located == ["ok.j2:1:15: CTX101", "sub/ok.j2:1:15: CTX101"]  # nothing from linked-dir/
    assert walked.err_lines == [
        "device.j2: skipped: a character device, not a regular file",
        "gone.j2: skipped: broken symbolic link (its target does not exist)",
        "loop.j2: skipped: symbolic link loop",
        "pipe.j2: skipped: a FIFO (named pipe), not a regular file",
        "sock.j2: skipped: a socket, not a regular file",
        "sub/a.j2: skipped: symbolic link loop",
        "sub/b.j2: skipped: symbolic link loop",
        "sub/pipe.j2: skipped: a FIFO (named pipe), not a regular file",
    ]
    # Named on the command line, a file that is not read fails the run: a skip is not a pass.
    assert given.code == 2 and given.located == ["ok.j2:1:15: CTX101"]
    assert given.err_lines == [
        "ctxlint: error: device.j2 was not read: a character device, not a regular file",
        "ctxlint: error: loop.j2 was not read: symbolic link loop",
        "ctxlint: error: pipe.j2 was not read: a FIFO (named pipe), not a regular file",
        "ctxlint: error: sock.j2 was not read: a socket, not a regular file",
    ]


# --- CI report formats ------------------------------------------------------------------------


def test_gitlab_and_junit_reports(project):
    import xml.etree.ElementTree as ET

    project.write({"a.j2": CLOCK_TEMPLATE, "b.prompty": NO_RESERVE_PROMPTY, "service.py": SERVICE,
                   "clean/ok.j2": "You are the support assistant.\nQuestion: {{ question }}\n"})
    gitlab, junit, clean = project.run_many([
        ("check", "--output-format", "gitlab"), ("check", "--output-format", "junit"),
        ("check", "clean", "--output-format", "junit"),
    ])
    # GitLab Code Quality: the fields GitLab requires, severities mapped, a unique fingerprint each.
    issues = json.loads(gitlab.stdout)
    assert gitlab.code == 1
    assert [(i["check_name"], i["severity"], i["location"]["path"], i["location"]["positions"]["begin"])
            for i in issues] == [
        ("CTX101 volatile-in-prefix", "major", "a.j2", {"line": 1, "column": 15}),
        ("CTX201 missing-output-reserve", "minor", "b.prompty", {"line": 3, "column": 1}),
        ("CTX103 unstable-serialization", "minor", "service.py", {"line": 6, "column": 36}),
    ]
    assert issues[0]["description"] == f"CTX101 {CLOCK_MESSAGE}"
    assert len({i["fingerprint"] for i in issues}) == 3
    assert issues[0]["content"]["body"].startswith("Confidence: high.")
    assert "Fixable with `ctxlint check --fix`" in issues[2]["content"]["body"]
    # JUnit: a suite per file with findings, a failed case per finding, typed by severity.
    root = ET.fromstring(junit.stdout)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "3", "3")
    assert [s.get("name") for s in root] == ["a.j2", "b.prompty", "service.py"]
    case = root[0][0]
    assert (case.get("name"), case.get("classname"), case.get("line")) == (
        "CTX101 volatile-in-prefix at 1:15", "a.j2", "1")
    failure = case.find("failure")
    assert (failure.get("type"), failure.get("message")) == ("error", CLOCK_MESSAGE)
    assert failure.text.splitlines()[:2] == [f"a.j2:1:15: CTX101 {CLOCK_MESSAGE}", "confidence: high"]
    # A clean run is one passing case, never an empty report.
    clean_root = ET.fromstring(clean.stdout)
    assert (clean.code, clean_root.get("tests"), clean_root.get("failures")) == (0, "1", "0")
    assert clean_root[0][0].get("name") == "ctxlint check (1 file)"
    assert clean_root[0][0].find("failure") is None


# --- flags a ruff user already knows (issue 25) -----------------------------------------------------


def test_every_subcommand_takes_output_format_output_file_and_no_cache(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "ctxlint.toml": 'model = "gpt-4o"\n'})
    runs = project.run_many([
        ("check", "--output-format", "json", "-o", "check.json", "--no-cache", "a.j2"),
        ("cost", "--output-format", "json", "-o", "cost.json", "--no-cache", "a.j2"),
        ("cost", "--format", "json", "--output-file", "cost2.json", "a.j2"),  # --format stays an alias
        ("budget", "a.j2", "--budget", "400", "--output-format", "json", "-o", "budget.json", "--no-cache"),
        ("rule", "CTX101", "--output-format", "json", "-o", "rule.json", "--no-cache"),
        ("rule", "--output-format", "json", "--no-cache"),
        ("models", "gpt-4o", "--output-format", "json", "-o", "models.json", "--no-cache"),
    ])
    assert [(run.code, run.stdout) for run in runs[:5]] == [(1, ""), (0, ""), (0, ""), (0, ""), (0, "")]
    check, cost, cost2, budget, rule = (json.loads((project.root / name).read_text(encoding="utf-8"))
                                        for name in ("check.json", "cost.json", "cost2.json", "budget.json",
                                                     "rule.json"))
    assert [f["code"] for f in check] == ["CTX101"]
    assert cost == cost2 and cost["totals"]["requests"] == 1
    assert budget["requests"][0]["runs"][0]["budget"] == 400
    assert (rule["code"], rule["name"], rule["preview"]) == ("CTX101", "volatile-in-prefix", False)
    assert "what" in rule["docs"] and "names" in rule["options"]
    listing = json.loads(runs[5].stdout)
    assert runs[5].code == 0 and [r["code"] for r in listing][:3] == ["CTX001", "CTX002", "CTX101"]
    assert (runs[6].code, runs[6].stdout) == (0, "")
    assert json.loads((project.root / "models.json").read_text(encoding="utf-8"))["resolved"] == {"gpt-4o": "gpt-4o"}


def test_show_files_lists_what_would_be_read_and_exits(project):
    project.write({"b/a.j2": CLOCK_TEMPLATE, "a.prompty": NO_RESERVE_PROMPTY, "notes.txt": "not a prompt\n",
                   "b/skip.j2": CLOCK_TEMPLATE, "ctxlint.toml": 'exclude = ["b/skip.j2"]\n'})
    check, cost = project.run_many([("check", "--show-files"), ("cost", "--show-files", "b")])
    assert (check.code, check.lines, check.stderr) == (0, ["a.prompty", "b/a.j2"], "")
    assert (cost.code, cost.lines) == (0, ["b/a.j2"])


def test_a_warning_when_select_names_only_rules_that_will_not_run(project):
    project.write({"a.j2": CLOCK_TEMPLATE, "ctxlint.toml": 'rule-packs = ["packs"]\n',
                   "packs/acme/ACME101-acme-clock.yaml": PREVIEW_RULE})
    project.preview = False
    prefix, ignored, fine = project.run_many([("check", "--select", "ACME", "a.j2"),
                                              ("check", "--select", "CTX101,CTX2", "--ignore", "CTX101", "a.j2"),
                                              ("check", "--select", "CTX101", "a.j2")])
    assert (prefix.code, prefix.err_lines) == (0, [
        "ctxlint: warning: --select ACME names only preview rules, which run with --preview or when selected by "
        "full code or name; nothing it names will run (ACME101)"])
    assert ignored.err_lines == [
        "ctxlint: warning: --select CTX101 names only rules that `ignore` (or --ignore) turns off; nothing it names "
        "will run (CTX101)"]
    assert (fine.code, fine.stderr) == (1, "")


def test_a_file_named_on_the_command_line_and_not_read_fails_the_run(project):
    """A skip is not a pass (issue 25): a named file that is too large, binary or not a file ends
    the run with exit 2 and the reason, whatever --exit-zero says; the summary counts skips."""
    project.write({"a.j2": CLOCK_TEMPLATE, "big.j2": "x" * 1500, "blob.json": b"\0\x01binary",
                   "ctxlint.toml": "max-file-bytes = 1200\n"})
    named, zero, walked, cost = project.run_many([
        ("check", "a.j2", "big.j2", "blob.json", "--output-format", "concise"),
        ("check", "--exit-zero", "big.j2"), ("check",), ("cost", "blob.json", "a.j2")])
    errors = ["ctxlint: error: big.j2 was not read: 1,500 bytes is over the 1,200-byte limit",
              "ctxlint: error: blob.json was not read: binary file"]
    assert (named.code, named.lines, named.err_lines) == (
        2, [CLOCK_LINE, "Found 1 finding (1 error) in 1 file; 2 files skipped."], errors)
    assert (zero.code, zero.lines, zero.err_lines) == (2, ["All checks passed (0 files checked, 1 skipped)."],
                                                       errors[:1])
    assert (walked.code, walked.lines[-1]) == (1, "Found 1 finding (1 error) in 1 file; 2 files skipped.")
    assert walked.err_lines == ["big.j2: skipped: 1,500 bytes is over the 1,200-byte limit",
                                "blob.json: skipped: binary file"]
    assert (cost.code, cost.err_lines) == (2, errors[1:])


OUTSIDE_PROMPTS = '''from datetime import datetime

SYSTEM = f"Today is {datetime.now().isoformat()}. You are the support assistant; answer from the manual."
'''
OUTSIDE_BOT = '''from openai import OpenAI

from prompts import SYSTEM

client = OpenAI()


def answer(question: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o-mini", max_tokens=400,
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])
    return reply.choices[0].message.content
'''


def test_a_file_outside_the_working_project_is_read_in_its_own_project(project):
    # `ctxlint check ../app/bot.py` from another checkout: its `from prompts import SYSTEM` is the
    # module beside it (its repository's root), not a `prompts.py` under the working directory.
    project.write({"work/README.md": "notes\n", "app/.git/HEAD": "ref: refs/heads/main\n",
                   "app/prompts.py": OUTSIDE_PROMPTS, "app/bot.py": OUTSIDE_BOT})
    here, there = (project.run("check", path, "--confidence", "low", "--output-format", "json", cwd=cwd)
                   for path, cwd in (("bot.py", "app"), ("../app/bot.py", "work")))
    assert [(f["code"], f["line"]) for f in json.loads(here.stdout)] == [("CTX101", 11)]
    [finding] = json.loads(there.stdout)
    assert (finding["code"], finding["line"]) == ("CTX101", 11)
    assert ("../app/prompts.py", 3) in [(step.get("path"), step.get("line")) for step in finding["evidence"]]
