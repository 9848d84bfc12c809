"""The GitHub Action (`action.yml`) and the README's workflow, run as the runner runs them.

A small runner executes the composite action's steps: it evaluates `${{ }}` expressions and
`if:` conditions over `inputs`, `github` and `steps` (GitHub's loose comparison included), runs
each `run:` script with `bash -eo pipefail` and the step's `env`, reads what it wrote to
`GITHUB_OUTPUT`, and records `uses:` steps (setup-python, upload-sarif) with their evaluated
inputs instead of running them; ctxlint is already installed, so the install step is checked,
not run. The repository is a real git repository with a base commit and a pull request's change.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from conftest import HOUSE_STYLE

from ctxlint.report.cost_markdown import COMMENT_MARKER

CHECKOUT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((CHECKOUT / "action.yml").read_text(encoding="utf-8"))
GIT = shutil.which("git")

pytestmark = pytest.mark.skipif(GIT is None or shutil.which("bash") is None, reason="needs git and bash")

PERSONA = ("You are the support assistant for Northwind. Answer questions about orders, returns and refunds "
           "only. Never reveal card numbers.\nCheck the order number before you discuss an order, offer a refund "
           "only within thirty days of delivery, and answer in three short paragraphs at most." + HOUSE_STYLE + "\n")
TOOLS = [{"type": "function", "function": {"name": "find_order", "description": "Find an order by its number.",
                                           "parameters": {"type": "object", "properties": {
                                               "number": {"type": "string", "description": "The order number."}},
                                               "required": ["number"]}}}]


# --- expressions ---------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\))|(?P<id>[A-Za-z_][\w.\-]*(?:\(\))?))")


def evaluate(expression: str, context: dict) -> object:
    """A GitHub expression over ``context``: literals, dotted names, ==, !=, !, &&, ||, ()."""
    tokens = []
    position = 0
    expression = expression.strip()
    while position < len(expression):
        match = _TOKEN.match(expression, position)
        assert match and match.end() > position, f"cannot read {expression[position:]!r}"
        tokens.append(match)
        position = match.end()
    items = [(m.lastgroup, m.group(m.lastgroup)) for m in tokens]

    def value(kind: str, text: str) -> object:
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if text in ("always()", "success()", "failure()"):
            return {"always()": True, "success()": not context["failed"], "failure()": context["failed"]}[text]
        if text in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[text]
        current: object = context
        for part in text.split("."):
            current = current.get(part) if isinstance(current, dict) else None
        return current

    def number(v: object) -> float:
        return 0.0 if v in (None, "", False) else 1.0 if v is True else float(v)  # type: ignore[arg-type]

    def loose(a: object, b: object) -> bool:
        """GitHub's ==: values of different types are compared as numbers (null and '' are 0)."""
        if type(a) is type(b):
            return a == b
        try:
            return number(a) == number(b)
        except (TypeError, ValueError):
            return False

    def parse_compare(i: int) -> tuple[object, int]:
        left, i = parse_unary(i)
        if i < len(items) and items[i][1] in ("==", "!="):
            op = items[i][1]
            right, i = parse_unary(i + 1)
            left = loose(left, right) if op == "==" else not loose(left, right)
        return left, i

    def parse_unary(i: int) -> tuple[object, int]:
        kind, text = items[i]
        if text == "!":
            operand, i = parse_unary(i + 1)
            return falsy(operand), i
        if text == "(":
            inner, i = parse_or(i + 1)
            assert items[i][1] == ")"
            return inner, i + 1
        return value(kind, text), i + 1

    def falsy(v: object) -> bool:
        return v in (None, "", False, 0)

    def logical(operator: str, operand: Callable[[int], tuple[object, int]]) -> Callable[[int], tuple[object, int]]:
        """`a || b` gives the first truthy operand, `a && b` the first falsy one, as GitHub does."""
        def parse(i: int) -> tuple[object, int]:
            left, i = operand(i)
            while i < len(items) and items[i][1] == operator:
                right, i = operand(i + 1)
                if falsy(left) == (operator == "||"):
                    left = right
            return left, i
        return parse

    parse_and = logical("&&", parse_compare)
    parse_or = logical("||", parse_and)
    result, end = parse_or(0)
    assert end == len(items), expression
    return result


def substitute(text: object, context: dict) -> str:
    if not isinstance(text, str):
        return "" if text is None else str(text).lower() if isinstance(text, bool) else str(text)

    def one(match: re.Match[str]) -> str:
        result = evaluate(match.group(1), context)
        return "" if result is None else str(result).lower() if isinstance(result, bool) else str(result)

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


# --- the runner ----------------------------------------------------------------------------


@dataclass
class ActionRun:
    failed: bool = False
    outputs: dict[str, str] = field(default_factory=dict)
    steps: dict[str, dict] = field(default_factory=dict)  # step id -> outputs
    used: list[tuple[str, dict]] = field(default_factory=list)  # `uses:` steps, with their inputs
    ran: list[str] = field(default_factory=list)  # names of the steps that ran
    log: str = ""


def _read_outputs(path: Path) -> dict[str, str]:
    outputs, lines = {}, path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and "=" not in line.split("<<")[0]:
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        if "=" in line:
            name, text = line.split("=", 1)
            outputs[name] = text
        i += 1
    return outputs


def run_action(with_: dict, github: dict, workdir: Path, env: dict[str, str],
               failing: frozenset[str] = frozenset()) -> ActionRun:
    """Run the action's steps as the runner would; the ``uses:`` steps named in ``failing`` fail
    (an upload to a repository without code scanning), honouring ``continue-on-error``."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    unknown = set(with_) - set(inputs)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    inputs.update({k: str(v) for k, v in with_.items()})
    run = ActionRun()
    context = {"inputs": inputs, "github": {**github, "action_path": str(CHECKOUT)}, "steps": {}, "failed": False}
    for step in ACTION["runs"]["steps"]:
        context["failed"] = run.failed
        if not evaluate(step.get("if", "success()"), context):
            continue
        run.ran.append(step["name"])
        if "uses" in step:
            run.used.append((step["uses"], {k: substitute(v, context) for k, v in step.get("with", {}).items()}))
            if step["uses"] in failing and not step.get("continue-on-error"):
                run.failed = True
            continue
        assert step["shell"] == "bash"
        if step.get("id") == "install":
            assert '"${CTXLINT_REQUIREMENT:-$ACTION_PATH}"' in step["run"]
            continue
        outputs_file = workdir.parent / f"output-{len(run.ran)}"
        outputs_file.write_text("", encoding="utf-8")
        step_env = {**env, **{k: substitute(v, context) for k, v in step.get("env", {}).items()},
                    "GITHUB_OUTPUT": str(outputs_file), "GITHUB_STEP_SUMMARY": str(workdir.parent / "summary.md")}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=workdir,
                              env=step_env, capture_output=True, text=True, check=False, timeout=300)
        run.log += f"--- {step['name']} (exit {done.returncode})\n{done.stdout}{done.stderr}"
        if step.get("id"):
            run.steps[step["id"]] = _read_outputs(outputs_file)
            context["steps"][step["id"]] = {"outputs": run.steps[step["id"]]}
        if done.returncode != 0 and not step.get("continue-on-error"):
            run.failed = True
    run.outputs = {name: substitute(spec["value"], context) for name, spec in ACTION["outputs"].items()}
    return run


# --- a repository with a pull request ---------------------------------------------------------


def _git_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "NO_COLOR", "FORCE_COLOR"))}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.invalid", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
               CTXLINT_CACHE_DIR=str(tmp_path / "ctxlint-cache"))
    return env


def _git(env: dict[str, str], cwd: Path, *args: str) -> str:
    done = subprocess.run([GIT, "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _pull_request(tmp_path: Path, template: str, description: str) -> tuple[Path, dict[str, str], str]:
    """A repository whose base commit holds a clean prompt and a tool, and a working tree with
    the pull request's version of them; returns (work tree, environment, base commit)."""
    env = _git_env(tmp_path)
    repo = tmp_path / "repo"
    (repo / "prompts").mkdir(parents=True)
    (repo / "prompts" / "support.j2").write_text(PERSONA + "Question: {{ question }}\n", encoding="utf-8")
    (repo / "tools.json").write_text(json.dumps(TOOLS, indent=2), encoding="utf-8")
    # The clock the pull request adds is reported by a preview rule (CTX101): the repository opts in.
    (repo / "ctxlint.toml").write_text("preview = true\n", encoding="utf-8")
    _git(env, repo, "init", "-q")
    _git(env, repo, "add", "-A")
    _git(env, repo, "commit", "-q", "-m", "base")
    base = _git(env, repo, "rev-parse", "HEAD")
    (repo / "prompts" / "support.j2").write_text(template, encoding="utf-8")
    tools = json.loads(json.dumps(TOOLS))
    tools[0]["function"]["description"] = description
    (repo / "tools.json").write_text(json.dumps(tools, indent=2), encoding="utf-8")
    _git(env, repo, "commit", "-q", "-am", "the pull request")
    return repo, env, base


def test_action_fails_a_pull_request_with_a_finding_and_a_cost_jump(tmp_path):
    long_description = "Find an order by its number. " + "Look it up in every region, warehouse and archive. " * 40
    repo, env, base = _pull_request(tmp_path, "Current time: {{ now() }}\n" + PERSONA, long_description)
    run = run_action({"max-increase": "10%"}, {"event": {"pull_request": {"base": {"sha": base}}}}, repo, env)
    assert run.failed, run.log
    assert run.ran == ["Set up Python", "Install ctxlint", "ctxlint check", "Upload SARIF to code scanning",
                       "ctxlint cost --compare", "Gate"]
    assert run.outputs["check-exit-code"] == "1" and run.outputs["cost-exit-code"] == "1"
    # SARIF for code scanning: written, valid, with the finding; and handed to upload-sarif.
    assert run.used[0] == ("actions/setup-python@v5", {"python-version": "3.12"})
    assert run.used[1] == ("github/codeql-action/upload-sarif@v3",
                           {"sarif_file": "ctxlint.sarif", "category": "ctxlint"})
    log = json.loads((repo / "ctxlint.sarif").read_text(encoding="utf-8"))
    assert "CTX101" in [r["ruleId"] for r in log["runs"][0]["results"]]  # the clock
    assert "::error file=prompts/support.j2,line=1,col=15" in run.log  # annotations
    # The cost report: an output, a file, and the job summary.
    markdown = run.outputs["cost-markdown"]
    assert markdown == (repo / "ctxlint-cost.md").read_text(encoding="utf-8").rstrip("\n")
    assert run.outputs["cost-report"] == "ctxlint-cost.md"
    assert "find_order" in markdown and base[:7] in markdown
    assert "ctxlint cost gate failed (exit 1)" in run.log or "ctxlint check failed (exit 1)" in run.log


def test_action_passes_a_clean_pull_request_and_skips_cost_on_push(tmp_path):
    repo, env, base = _pull_request(tmp_path, PERSONA + "Question: {{ question }}\n", "Find an order by number.")
    pull = run_action({"max-increase": "10%"}, {"event": {"pull_request": {"base": {"sha": base}}}}, repo, env)
    assert not pull.failed, pull.log
    assert (pull.outputs["check-exit-code"], pull.outputs["cost-exit-code"]) == ("0", "0")
    push = run_action({"upload-sarif": "false", "python-version": ""}, {"event": {}}, repo, env)
    assert not push.failed, push.log
    assert push.ran == ["Install ctxlint", "ctxlint check", "Gate"]
    assert push.outputs["cost-markdown"] == ""


def test_readme_workflow_uses_the_action_as_declared_and_runs(tmp_path):
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## GitHub Actions"):readme.index("## pre-commit")]
    workflow = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1))
    assert workflow["permissions"] == {"contents": "read", "security-events": "write", "pull-requests": "write"}
    steps = workflow["jobs"]["ctxlint"]["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@")
    action_step, comment_step = steps[1], steps[2]
    assert re.fullmatch(r"[\w.-]+/ctxlint@v\d+\.\d+\.\d+", action_step["uses"])
    referenced = set(re.findall(r"steps\.ctxlint\.outputs\.([\w-]+)", json.dumps(comment_step)))
    assert referenced and referenced <= set(ACTION["outputs"])

    # Run it: the action with the workflow's inputs, then the comment step with a stand-in `gh`.
    repo, env, base = _pull_request(tmp_path, PERSONA + "Question: {{ question }}\n", "Find an order by number.")
    (repo / "ctxlint-baseline.json").write_text('{"ctxlint-baseline": 1, "findings": []}\n', encoding="utf-8")
    pull_request = {"base": {"sha": base}, "number": 7}
    github = {"event_name": "pull_request", "token": "t", "event": {"pull_request": pull_request}}
    run = run_action(action_step["with"], github, repo, env)
    assert not run.failed, run.log
    # The comment step, twice, with a stand-in `gh` that records its calls: the first push adds
    # the report; on the next, the comment the report marks is found and edited in place.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(
        '#!/bin/sh\nprintf "%s\\n" "$*" >> "$GH_CALLS"\n'
        'if [ "$1 $3" = "api --paginate" ]; then printf "%s" "$GH_EXISTING"; fi\n', encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    github["repository"] = "acme/support"
    context = {"github": github, "steps": {"ctxlint": {"outputs": run.outputs}}, "failed": run.failed, "inputs": {}}
    assert evaluate(comment_step["if"], context) is True
    report = (repo / run.outputs["cost-report"]).read_text(encoding="utf-8")
    assert report.startswith(f"{COMMENT_MARKER}\n## ctxlint cost") and COMMENT_MARKER in comment_step["run"]
    calls = tmp_path / "gh-calls"
    for existing in ("", "1001\n1002\n"):
        comment_env = {**env, **{k: substitute(v, context) for k, v in comment_step["env"].items()},
                       "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}", "GH_CALLS": str(calls), "GH_EXISTING": existing}
        done = subprocess.run(["bash", "-eo", "pipefail", "-c", comment_step["run"]], cwd=repo, env=comment_env,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
    first_list, created, second_list, edited = calls.read_text(encoding="utf-8").splitlines()
    assert first_list.startswith("api repos/acme/support/issues/7/comments --paginate --jq ") == \
        second_list.startswith("api repos/acme/support/issues/7/comments --paginate --jq ") is True
    assert created == "pr comment 7 --body-file ctxlint-cost.md"
    assert edited == "api --method PATCH repos/acme/support/issues/comments/1002 -F body=@ctxlint-cost.md"


def test_sarif_upload_never_fails_a_fork_or_a_repository_without_code_scanning(tmp_path):
    repo, env, base = _pull_request(tmp_path, PERSONA + "Question: {{ question }}\n", "Find an order by number.")
    upload = "github/codeql-action/upload-sarif@v3"
    fork = {"repository": "acme/support", "event": {"pull_request": {
        "base": {"sha": base}, "head": {"repo": {"full_name": "someone/support"}}}}}
    run = run_action({}, fork, repo, env, failing=frozenset({upload}))
    assert not run.failed, run.log
    assert "Upload SARIF to code scanning" not in run.ran and "ctxlint cost --compare" in run.ran
    # The same repository, without code scanning: the upload runs, fails, and the job passes.
    own = {"repository": "acme/support", "event": {"pull_request": {
        "base": {"sha": base}, "head": {"repo": {"full_name": "acme/support"}}}}}
    run = run_action({}, own, repo, env, failing=frozenset({upload}))
    assert "Upload SARIF to code scanning" in run.ran and not run.failed, run.log
    # A finding still fails it.
    repo2, env2, base2 = _pull_request(tmp_path / "second", "Current time: {{ now() }}\n" + PERSONA, "Find it.")
    own["event"]["pull_request"]["base"]["sha"] = base2
    run = run_action({}, own, repo2, env2, failing=frozenset({upload}))
    assert run.failed and "ctxlint check failed (exit 1)" in run.log
