"""`ctxlint cost --compare`: the pull-request budget gate, on temporary git repositories.

Expected deltas come from the accounting module run on the two versions of each file, never
from hard-coded numbers; the gate's exit codes are checked on both sides of each limit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from ctxlint.analysis.accounting import request_cost
from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.cost import money
from ctxlint.engine import Linter
from ctxlint.tokens import lookup_model

CATALOGUE = load_catalogue()
GIT = shutil.which("git")
CHECKOUT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

TEMPLATE = "You are the support assistant for Northwind.\nAnswer questions about orders only.\n"


def _tool(name: str, description: str) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
                       "required": ["city"]}}}


WEATHER = "Get the current weather for a city."
LONG_WEATHER = WEATHER + (" It returns the temperature, humidity, wind speed and direction, the chance of "
                          "rain, and a short human-readable summary of the conditions suitable for reading "
                          "aloud to the user, in the units the user prefers.")


def _tools(*tools: dict) -> str:
    return json.dumps(list(tools), indent=2) + "\n"


BASELINE = {
    "prompts/support.j2": TEMPLATE,
    "tools/weather.json": _tools(_tool("get_weather", WEATHER), _tool("get_forecast", "Get a five-day forecast.")),
}


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    config = tmp_path / "gitconfig"
    config.touch()
    env.update(GIT_CONFIG_GLOBAL=str(config), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    return env


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    """Every column and unwrapped lines: the layout at 100 columns is tested in test_cost.py."""
    monkeypatch.setenv("COLUMNS", "400")


@pytest.fixture
def repo(project, tmp_path, monkeypatch):
    """The project as a git repository with BASELINE committed."""
    for key, value in _env(tmp_path).items():
        monkeypatch.setenv(key, value)
    for key in [k for k in os.environ if k.startswith("GIT_") and not k.startswith(("GIT_CONFIG", "GIT_AUTHOR",
                                                                                       "GIT_COMMITTER"))]:
        monkeypatch.delenv(key)
    project.git = lambda *args: _git(project.root, *args)
    project.git("init", "-q", "-b", "main")
    project.write(BASELINE)
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "baseline")
    return project


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run([GIT, "-c", "commit.gpgsign=false", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def _costs(files: dict[str, str], root: Path) -> dict[str, object]:
    """The accounting module's cost of the first request of each file's text."""
    settings = Settings(root=root)
    linter = Linter(settings, CATALOGUE)
    out = {}
    for path, text in files.items():
        parsed = linter.parse_bytes(text.encode(), path, path)
        out[path] = request_cost(parsed.requests[0], None, settings.model, linter.volatility)
    return out


def _tool_tokens(cost, name: str) -> int:
    return next(t.tokens for t in cost.tool_costs if t.name == name)


def _state(root: Path) -> tuple:
    """What --compare must never change: the index, HEAD, the stash and every file's bytes."""
    index = root / ".git" / "index"
    stamp = index.read_bytes(), index.stat().st_mtime_ns  # before `git status`, which may refresh it
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
             if p.is_file() and ".git" not in p.relative_to(root).parts}
    return stamp, files, _git(root, "--no-optional-locks", "status", "--porcelain"), \
        _git(root, "stash", "list"), _git(root, "rev-parse", "HEAD")


# --- the gate --------------------------------------------------------------------------------------


def test_grown_tool_is_reported_per_tool_and_gated(repo):
    grown = dict(BASELINE, **{"tools/weather.json": _tools(_tool("get_weather", LONG_WEATHER),
                                                           _tool("get_forecast", "Get a five-day forecast."))})
    repo.write(grown)
    before, after = _costs(BASELINE, repo.root), _costs(grown, repo.root)
    old_total = sum(c.total_input for c in before.values())
    new_total = sum(c.total_input for c in after.values())
    delta = new_total - old_total
    tool_delta = _tool_tokens(after["tools/weather.json"], "get_weather") - _tool_tokens(
        before["tools/weather.json"], "get_weather")
    assert delta == tool_delta > 0 and 100 * delta / old_total > 10  # the fixture is over 10%

    state = _state(repo.root)
    gate, loose, tokens_over, tokens_under, data = repo.run_many([
        ("cost", "--compare", "HEAD", "--max-increase", "10%"),
        ("cost", "--compare", "HEAD", "--max-increase", f"{100 * delta / old_total + 0.1:.1f}%"),
        ("cost", "--compare", "HEAD", "--max-increase", str(delta - 1)),
        ("cost", "--compare", "HEAD", "--max-increase", str(delta)),
        ("cost", "--compare", "HEAD", "--format", "json"),
    ])
    assert _state(repo.root) == state  # the working tree, index and HEAD are untouched

    assert gate.code == 1, gate.stdout + gate.stderr
    pct = f"{100 * delta / old_total:+.1f}%"
    assert gate.lines[-2:] == [
        "Limits: FAILED (max increase 10%)",
        f"  the requests' input grows by {delta:,} tokens ({pct}), from {old_total:,} at HEAD to {new_total:,}, "
        "over --max-increase 10%; trim what grew (see the changes), or raise the limit if the growth is intended",
    ]
    changes = gate.lines[gate.lines.index(next(l for l in gate.lines if l.startswith("Changes against HEAD ("))):]
    assert [line.split()[:3] for line in changes[2:5]] == [
        ["tools/weather.json", "changed", f"{before['tools/weather.json'].total_input:,}"],
        ["request", "at", "line"],
        ["tool", "get_weather", "changed"],
    ]
    assert changes[4].split()[4:6] == [f"{_tool_tokens(after['tools/weather.json'], 'get_weather'):,}",
                                       f"+{tool_delta:,}"]
    assert (loose.code, tokens_over.code, tokens_under.code) == (0, 1, 0)
    assert loose.lines[-1].startswith("Limits: passed (max increase ")

    comparison = json.loads(data.stdout)["comparison"]
    assert data.code == 0  # no limit given, none configured
    assert (comparison["before"], comparison["after"], comparison["delta"]) == (old_total, new_total, delta)
    assert comparison["commit"] == _git(repo.root, "rev-parse", "HEAD").strip()
    assert comparison["files"] == [{
        "path": "tools/weather.json", "status": "changed",
        "before": before["tools/weather.json"].total_input, "after": after["tools/weather.json"].total_input,
        "delta": delta, "price_delta": None,  # no model named: no price to compare
        "requests": [{"index": 0, "line": 1, "status": "changed", "before": before["tools/weather.json"].total_input,
                      "after": after["tools/weather.json"].total_input, "delta": delta, "price_delta": None,
                      "tools": [{"name": "get_weather", "status": "changed",
                                 "before": _tool_tokens(before["tools/weather.json"], "get_weather"),
                                 "after": _tool_tokens(after["tools/weather.json"], "get_weather"),
                                 "delta": tool_delta}]}],
    }]


def test_small_growth_passes_ten_percent(repo):
    grown = dict(BASELINE, **{"prompts/support.j2": TEMPLATE + "Be brief.\n"})
    repo.write(grown)
    before, after = _costs(BASELINE, repo.root), _costs(grown, repo.root)
    delta = sum(c.total_input for c in after.values()) - sum(c.total_input for c in before.values())
    assert 0 < 100 * delta / sum(c.total_input for c in before.values()) < 10
    run = repo.run("cost", "--compare", "HEAD", "--max-increase", "10%", "--format", "markdown")
    assert run.code == 0
    assert f"Against `HEAD` (`{_git(repo.root, 'rev-parse', 'HEAD')[:12]}`): **+{delta} tokens**" in run.stdout
    assert "✅ Within the limits (max increase 10%)." in run.stdout
    assert f"| `prompts/support.j2` | changed | {before['prompts/support.j2'].total_input:,} | " \
           f"{after['prompts/support.j2'].total_input:,} | **+{delta}**" in run.stdout


def test_added_removed_files_and_tools(repo):
    (repo.root / "prompts/support.j2").unlink()
    repo.write({
        "prompts/new.j2": "You are new here.\n",
        "tools/weather.json": _tools(_tool("get_weather", WEATHER), _tool("get_alerts", "Severe weather alerts.")),
    })
    run = repo.run("cost", "--compare", "HEAD", "--format", "json")
    comparison = json.loads(run.stdout)["comparison"]
    statuses = {f["path"]: f["status"] for f in comparison["files"]}
    assert statuses == {"prompts/new.j2": "added", "prompts/support.j2": "removed", "tools/weather.json": "changed"}
    tools = comparison["files"][2]["requests"][0]["tools"]
    assert [(t["name"], t["status"]) for t in tools] == [("get_alerts", "added"), ("get_forecast", "removed")]
    removed = comparison["files"][1]
    assert removed["after"] is None and removed["delta"] == -removed["before"]
    # The per-request delta of a new file is "new", not a number.
    files = {f["path"]: f for f in json.loads(run.stdout)["files"]}
    assert files["prompts/new.j2"]["requests"][0]["delta"] is None


def test_compare_with_an_older_commit_and_paths(repo):
    repo.write({"tools/weather.json": _tools(_tool("get_weather", LONG_WEATHER))})
    repo.git("commit", "-q", "-am", "grow")
    head, previous = repo.run_many([("cost", "--compare", "HEAD", "--format", "json"),
                                    ("cost", "tools", "--compare", "HEAD~1", "--format", "json")])
    assert json.loads(head.stdout)["comparison"]["files"] == []  # nothing changed since HEAD
    data = json.loads(previous.stdout)
    assert [f["path"] for f in data["files"]] == ["tools/weather.json"]  # only the path asked for
    assert [f["path"] for f in data["comparison"]["files"]] == ["tools/weather.json"]
    # A file argument, from a subdirectory: paths stay relative to where ctxlint runs.
    run = repo.run("cost", "weather.json", "--compare", "main~1", "--format", "json", cwd="tools")
    assert [f["path"] for f in json.loads(run.stdout)["comparison"]["files"]] == ["weather.json"]


def test_baseline_discovery_matches_the_working_tree(repo):
    """With nothing changed, every file discovery finds must be found at HEAD too: the same
    include globs, excludes, .gitignore rules and skipped directories on both sides."""
    repo.write({
        "ctxlint.toml": 'exclude = ["drafts/"]\n',
        ".gitignore": "generated/\n*.tmp.j2\n",
        "drafts/a.j2": TEMPLATE,
        "node_modules/pkg/b.j2": TEMPLATE,
        "deep/er/c.jinja2": TEMPLATE,
        "d.prompty": "---\nname: d\nmodel:\n  api: chat\n---\nsystem:\nBe brief.\n",
        "e.tmp.j2": TEMPLATE,
        "notes/readme.md": "Not a prompt.\n",
        "prompts/guide.md": "Answer in English.\n",
    })
    repo.git("add", "-A", "-f")  # force: ignored files are committed too, and must stay ignored
    repo.git("commit", "-q", "-m", "more")
    repo.write({"generated/x.j2": TEMPLATE})
    run = repo.run("cost", "--compare", "HEAD", "--format", "json")
    data = json.loads(run.stdout)
    assert sorted(f["path"] for f in data["files"]) == [
        "d.prompty", "deep/er/c.jinja2", "prompts/guide.md", "prompts/support.j2", "tools/weather.json"]
    assert data["comparison"]["files"] == [] and data["comparison"]["delta"] == 0


def test_unborn_head_has_no_baseline(project, tmp_path, monkeypatch):
    for key, value in _env(tmp_path).items():
        monkeypatch.setenv(key, value)
    _git(project.root, "init", "-q")
    project.write(BASELINE)
    percent, tokens = project.run_many([("cost", "--compare", "HEAD", "--max-increase", "10%", "--format", "json"),
                                        ("cost", "--compare", "HEAD", "--max-increase", "10")])
    data = json.loads(percent.stdout)
    assert percent.code == 0  # a percentage of nothing cannot be judged: the first commit passes
    assert data["comparison"]["commit"] is None and data["comparison"]["before"] == 0
    assert {f["status"] for f in data["comparison"]["files"]} == {"added"}
    assert tokens.code == 1
    assert "Changes against HEAD (no commit yet)" in tokens.stdout


def test_bad_ref_and_not_a_repository_exit_2(repo, tmp_path):
    runs = repo.run_many([
        ("cost", "--compare", "no-such-branch"),
        ("cost", "--compare=-v"),
        ("cost", "--compare", "HEAD~5"),
        ("cost", "--compare", "HEAD:tools"),  # a tree, not a commit
    ])
    assert [r.code for r in runs] == [2, 2, 2, 2]
    assert runs[0].err_lines == ["ctxlint: error: unknown git revision `no-such-branch` (a branch, tag or commit: "
                                 "`git fetch` it first in a shallow clone)"]
    assert runs[1].err_lines == ["ctxlint: error: `-v` is not a git revision"]
    assert all(r.stdout == "" for r in runs)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.j2").write_text(TEMPLATE, encoding="utf-8")
    run = repo.run("cost", str(outside), "--compare", "HEAD")
    assert run.code == 2 and "not inside a git repository; --compare needs one" in run.stderr


def test_markdown_and_html_carry_the_delta(repo):
    repo.write({"tools/weather.json": _tools(_tool("get_weather", LONG_WEATHER),
                                             _tool("get_forecast", "Get a five-day forecast."))})
    markdown, html = repo.run_many([("cost", "--compare", "HEAD", "--max-increase", "10%", "--format", "markdown"),
                                    ("cost", "--compare", "HEAD", "--format", "html")])
    assert markdown.code == 1
    text = markdown.stdout
    assert "### Changes against `HEAD`" in text and "❌ **Over the limits** (max increase 10%):" in text
    assert "| &nbsp;&nbsp;↳ tool `get_weather` | changed |" in text
    assert "<details><summary>1 request this change does not touch</summary>" in text
    assert html.code == 0
    assert 'id="changes"' in html.stdout and '<line class="before"' in html.stdout


# --- the pre-commit hook -------------------------------------------------------------------------


def test_cost_hook_definition():
    hooks = {h["id"]: h for h in yaml.safe_load((CHECKOUT / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    hook = hooks["ctxlint-cost"]
    assert hook["entry"] == "ctxlint cost --compare HEAD"
    assert hook["args"] == ["--max-increase=10%"]
    assert hook["pass_filenames"] is False and hook.get("always_run", False) is False
    assert hook["files"] == hooks["ctxlint"]["files"] and hook["language"] == "python"


def test_cost_hook_command_as_pre_commit_runs_it(repo):
    """What the hook runs, from the repository root with no file names: the staged growth fails."""
    repo.write({"tools/weather.json": _tools(_tool("get_weather", LONG_WEATHER),
                                             _tool("get_forecast", "Get a five-day forecast."))})
    repo.git("add", "-A")
    assert repo.run("cost", "--compare", "HEAD", "--max-increase=10%").code == 1
    repo.git("commit", "-q", "-m", "grow")
    assert repo.run("cost", "--compare", "HEAD", "--max-increase=10%").code == 0


@pytest.mark.slow
def test_cost_hook_with_pre_commit_try_repo(tmp_path, package_registry):
    """The published hook end to end (installs ctxlint from a copy of this checkout; needs PyPI)."""
    from test_precommit import INSTALL_TIMEOUT, _commit_all, _hook_repository, _new_repo, _pre_commit
    from test_precommit import _env as _pre_commit_env

    env = _pre_commit_env(tmp_path)
    hooks = _hook_repository(env, tmp_path / "ctxlint-hooks")
    project = tmp_path / "project"
    _new_repo(env, project)
    for rel, text in BASELINE.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, encoding="utf-8")
    _commit_all(env, project, "baseline")

    def try_repo(*extra: str) -> tuple[int, str]:
        done = subprocess.run([*_pre_commit(), "try-repo", str(hooks), "ctxlint-cost", "--verbose", *extra],
                              cwd=project, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
        return done.returncode, done.stdout + done.stderr

    (project / "tools/weather.json").write_text(
        _tools(_tool("get_weather", LONG_WEATHER), _tool("get_forecast", "Get a five-day forecast.")), encoding="utf-8")
    _git(project, "add", "-A")
    code, output = try_repo()  # on the staged change, as `git commit` would run it
    assert code == 1, output
    assert "over --max-increase 10%" in output and "tool get_weather" in output, output
    _commit_all(env, project, "grow the tool")
    code, output = try_repo("--all-files")
    assert code == 0, output
    assert "Limits: passed (max increase 10%)." in output, output


def test_a_file_that_parsed_at_the_base_and_not_now_fails_the_gate(repo):
    """A broken or unreadable file is not a cost decrease (issue 25): the gate fails, naming it."""
    repo.write({"tools/weather.json": '[{"type": "function", "function": {"name": "get_weather",\n'})
    broken = repo.run("cost", "--compare", "HEAD")
    assert broken.code == 1
    assert broken.lines[-2:] == [
        "Limits: FAILED (every file counted at HEAD still read)",
        "  tools/weather.json: it parsed at HEAD but not now (2:1: invalid JSON: Expecting property name enclosed "
        "in double quotes): what it sends is not counted, so the change cannot be measured; fix the file"]
    repo.write({"tools/weather.json": b"\0\x01 not json any more"})
    binary, named = repo.run_many([("cost", "--compare", "HEAD", "--output-format", "json"),
                                   ("cost", "--compare", "HEAD", "tools/weather.json")])
    assert binary.code == 1 and binary.err_lines == ["tools/weather.json: skipped: binary file"]
    assert [(v["limit"], v["path"]) for v in json.loads(binary.stdout)["violations"]] == [
        ("unread", "tools/weather.json")]
    assert named.code == 2  # named on the command line and not read: an error, whatever the gate says
    assert named.err_lines == ["ctxlint: error: tools/weather.json was not read: binary file"]


def test_the_change_is_reported_in_dollars_beside_tokens(repo):
    """--compare says what the change costs in money, not only in tokens (issue 25)."""
    repo.write({"ctxlint.toml": 'model = "gpt-4o"\n'})
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "price it")
    repo.write({"tools/weather.json": _tools(_tool("get_weather", LONG_WEATHER),
                                             _tool("get_forecast", "Get a five-day forecast."))})
    table, markdown, html, data = repo.run_many([("cost", "--compare", "HEAD")] + [
        ("cost", "--compare", "HEAD", "--output-format", fmt) for fmt in ("markdown", "html", "json")])
    comparison = json.loads(data.stdout)["comparison"]
    price = lookup_model("gpt-4o").input_per_mtok / 1000  # dollars per 1,000 calls, per token
    assert comparison["price_delta"] == pytest.approx(comparison["delta"] * price, abs=1e-6)
    assert comparison["price_after"] - comparison["price_before"] == pytest.approx(comparison["price_delta"], abs=1e-6)
    dollars = money(comparison["price_delta"])
    changes = table.lines[table.lines.index("Changes against HEAD (" + comparison["commit"][:12] + ")"):]
    assert changes[1].split() == ["file", "status", "before", "after", "delta", "%", "Δ", "$/1k"]
    assert changes[2].split()[0] == "tools/weather.json" and changes[2].split()[-1] == f"+{dollars}"
    assert (f"  Input price per 1,000 calls of each request: {money(comparison['price_before'])} at HEAD, "
            f"{money(comparison['price_after'])} now (+{dollars}).") in table.lines
    assert f"| **+{comparison['delta']}** (" in markdown.stdout and f" | +{dollars} |" in markdown.stdout
    assert "Δ $ / 1k calls</th>" in html.stdout and 'id="price-change"' in html.stdout


AGENT = '''import json
from pathlib import Path

from openai import OpenAI

client = OpenAI()
TOOLS = json.loads(Path("tools.json").read_text())


def answer(question):
    return client.chat.completions.create(
        model="gpt-4o", max_completion_tokens=300, tools=TOOLS,
        messages=[{"role": "system", "content": "You answer questions about orders."},
                  {"role": "user", "content": question}])
'''


def test_the_gate_says_when_it_compares_a_request_it_cannot_read_in_full(repo):
    """A count that is a lower bound says so when compared (issue 25): the tools loaded at run
    time may have changed too, and that change is not in the delta."""
    repo.write({"agent.py": AGENT})
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "an agent")
    repo.write({"agent.py": AGENT.replace("about orders.", "about orders, returns and refunds, briefly.")})
    table, markdown, data = repo.run_many([("cost", "--compare", "HEAD", "agent.py")] + [
        ("cost", "--compare", "HEAD", "agent.py", "--output-format", fmt) for fmt in ("markdown", "json")])
    sentence = "≥ 1 request sends values ctxlint cannot read (agent.py:11): a change in those values is not measured."
    assert table.code == markdown.code == data.code == 0
    assert sentence in " ".join(line.strip() for line in table.lines)
    assert sentence in markdown.stdout and "| `agent.py:11` | gpt-4o | ≥0 |" in markdown.stdout
    request = json.loads(data.stdout)["files"][0]["requests"][0]
    assert request["lower_bound"] is True and request["unseen"] == [
        'tools from `json.loads(Path("tools.json").read_text())`']
