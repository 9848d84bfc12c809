"""Preview rules and the confidence floor, as a user meets them on the command line."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CLOCK_TEMPLATE, NO_RESERVE_PROMPTY, PREVIEW_RULE


def _pack(project):
    project.write({
        "packs/acme/ACME101-acme-clock.yaml": PREVIEW_RULE,
        "ctxlint.toml": 'rule-packs = ["packs"]\n',
        "a.j2": CLOCK_TEMPLATE,  # ACME101, and the built-in CTX101 (a preview rule too)
        "b.prompty": NO_RESERVE_PROMPTY,  # CTX201, on by default
    })


def test_a_preview_rule_runs_only_when_asked_for(project):
    _pack(project)
    project.preview = False
    default, by_prefix, by_code, by_name, flag = project.run_many([
        ("check", "--output-format", "json"),
        ("check", "--select", "ACME", "--output-format", "json"),
        ("check", "--select", "ACME101", "--output-format", "json"),
        ("check", "--select", "acme-clock", "--output-format", "json"),
        ("check", "--preview", "--output-format", "json"),
    ])
    codes = lambda run: sorted(f["code"] for f in json.loads(run.stdout))  # noqa: E731
    assert codes(default) == ["CTX101", "CTX201"]
    assert by_prefix.code == 0 and codes(by_prefix) == []  # a prefix is not an opt-in
    assert codes(by_code) == ["ACME101"]
    assert codes(by_name) == ["ACME101"]
    assert codes(flag) == ["ACME101", "CTX101", "CTX201"]


def test_rule_docs_say_a_rule_is_preview_and_how_it_measured(project):
    _pack(project)
    page, listing = project.run_many([("rule", "ACME101"), ("rule",)])
    assert page.code == 0
    assert "Preview: off by default; run it with --preview or by selecting it by code or name." in page.lines
    assert "Measured precision: 60% (3 of 5 judged)" in page.lines
    assert any(line.startswith("ACME101") and "(preview)" in line for line in listing.lines)


def test_sarif_marks_preview_rules_disabled_by_default(project):
    _pack(project)
    run = project.run("check", "--preview", "--output-format", "sarif")
    rules = {r["id"]: r for r in json.loads(run.stdout)["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["ACME101"]["defaultConfiguration"]["enabled"] is False
    assert rules["ACME101"]["properties"]["precision"] == "60% (3 of 5 judged)"
    assert rules["CTX303"]["defaultConfiguration"]["enabled"] is False  # a built-in preview rule
    assert rules["CTX101"]["defaultConfiguration"]["enabled"] is True  # a mission rule: always default
    assert rules["CTX201"]["defaultConfiguration"]["enabled"] is True


def test_preview_and_confidence_are_validated_in_the_config(project):
    project.write({"ctxlint.toml": 'confidence = "sure"\n', "a.j2": CLOCK_TEMPLATE})
    bad_level = project.run("check")
    project.write({"ctxlint.toml": 'preview = "yes"\n'})
    bad_flag = project.run("check")
    assert (bad_level.code, bad_flag.code) == (2, 2)
    assert "`confidence` must be one of high, medium, low" in bad_level.stderr
    assert "`preview` must be true or false" in bad_flag.stderr


NO_LIMIT_REQUEST = '{"model": "gpt-4o", "messages": [{"role": "user", "content": "Say hi."}]}\n'


def test_findings_in_test_code_are_low_confidence(project):
    project.write({
        "prompts/request.json": NO_LIMIT_REQUEST,
        "tests/fixtures/request.json": NO_LIMIT_REQUEST,
        "pkg/client.test.json": NO_LIMIT_REQUEST,
    })
    default, low = project.run_many([
        ("check", "--output-format", "json"), ("check", "--confidence", "low", "--output-format", "json"),
    ])
    assert [f["path"] for f in json.loads(default.stdout)] == ["prompts/request.json"]
    found = {f["path"]: f for f in json.loads(low.stdout)}
    assert sorted(found) == ["pkg/client.test.json", "prompts/request.json", "tests/fixtures/request.json"]
    assert found["tests/fixtures/request.json"]["confidence"] == "low"
    assert found["tests/fixtures/request.json"]["evidence"][-1]["text"] == "in test code, where requests are fixtures"


# A pipeline step kept in a `test/` folder (a script with a main block, no test in it, no test
# framework imported) is a program of its own; a helper of the tests beside it is a fixture.
_PIPELINE_STEP = """\
import sys

from openai import OpenAI

client = OpenAI()


def pick(issue: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": f"Pick the tests for: {issue}"}])
    return reply.choices[0].message.content


if __name__ == "__main__":
    print(pick(sys.argv[1]))
"""


def test_a_program_kept_in_a_test_folder_is_code(project):
    project.write({
        "agent/test/select_tests.py": _PIPELINE_STEP,
        "agent/test/fake_client.py": _PIPELINE_STEP.replace("import sys\n", "import sys\n\nimport pytest\n"),
        "agent/test/test_select.py": _PIPELINE_STEP,
        "tests/mocks/pick_tests.py": _PIPELINE_STEP,  # a mock's folder
        "agent/tests/agent_mock.py": _PIPELINE_STEP,  # a test double's name
        "tests/evals/run_eval.py": _PIPELINE_STEP,  # the project's top-level test tree: an eval script
    })
    result = project.run("check", "--confidence", "low", "--output-format", "json")
    found = {f["path"]: f["confidence"] for f in json.loads(result.stdout) if f["code"] == "CTX201"}
    assert found == {"agent/test/select_tests.py": "high", "agent/test/fake_client.py": "low",
                     "agent/test/test_select.py": "low", "tests/mocks/pick_tests.py": "low",
                     "agent/tests/agent_mock.py": "low", "tests/evals/run_eval.py": "low"}


def test_test_paths_can_be_replaced_or_extended(project):
    project.write({
        "ctxlint.toml": 'extend-test-paths = ["samples"]\n',
        "samples/request.json": NO_LIMIT_REQUEST,
        "tests/request.json": NO_LIMIT_REQUEST,
        # Not named ctxlint.toml: a ctxlint.toml in other/ would be that directory's configuration.
        "no-test-paths.toml": 'test-paths = []\n',
        "other/tests/request.json": NO_LIMIT_REQUEST,
    })
    extended, replaced = project.run_many([
        ("check", "--output-format", "json"),
        ("check", "other", "--config", "no-test-paths.toml", "--output-format", "json"),
    ])
    assert json.loads(extended.stdout) == []
    assert [f["path"] for f in json.loads(replaced.stdout)] == ["other/tests/request.json"]


# What ctxlint exists for, as a new user writes it (tests/data/plain_project), checked with no
# configuration at all (issue 23): a clock and an id before a system prompt's rules in a
# template, in Python and in TypeScript, a serialisation whose key order comes from outside in a
# cached prefix, a web page pasted with no label, and a tool whose `required` names a property
# it does not define.
PLAIN_PROJECT = Path(__file__).parent / "data" / "plain_project"


def test_a_plain_check_reports_what_ctxlint_is_for(project):
    project.write({p.relative_to(PLAIN_PROJECT).as_posix(): p.read_text(encoding="utf-8")
                   for p in PLAIN_PROJECT.rglob("*") if p.is_file()})
    project.preview = False
    run = project.run("check", "--output-format", "json")
    found = sorted((f["path"], f["line"], f["code"]) for f in json.loads(run.stdout))
    assert run.code == 1
    assert found == [
        ("app/agent.py", 21, "CTX101"), ("app/agent.py", 31, "CTX102"), ("app/agent.py", 41, "CTX103"),
        ("app/agent.py", 41, "CTX401"), ("app/agent.py", 41, "CTX402"), ("app/agent.py", 50, "CTX401"),
        ("prompts/system.j2", 1, "CTX101"), ("prompts/triage.j2", 1, "CTX102"), ("tools.json", 1, "CTX505"),
        ("web/system.ts", 10, "CTX101"), ("web/triage.ts", 9, "CTX102"),
    ]
