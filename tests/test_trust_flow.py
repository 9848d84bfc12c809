"""Third-party content followed through a project: a process's output read by a runner in
another module that hands over to a second one, and the items of a loop over search results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RUNNER = '''\
import subprocess


def run_piped(command: str) -> tuple[int, str]:
    proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE, text=True)
    captured = proc.stdout.read()
    return proc.wait(), captured


def run(command: str) -> tuple[int, str]:
    return run_piped(command)
'''

FIXER = '''\
from openai import OpenAI
from tavily import TavilyClient

from app.runner import run

client = OpenAI()


def explain(command: str) -> str:
    status, out = run(command)
    reply = client.chat.completions.create(
        model="gpt-4o", max_completion_tokens=300,
        messages=[{"role": "user", "content": f"{command} exited with {status} and printed {out} so explain it."}],
    )
    return reply.choices[0].message.content


def plan(topic: str) -> str:
    response = TavilyClient().search(topic)
    notes = ""
    for position, hit in enumerate(response["results"]):
        notes += f"{position}: {hit['content']}\\n"
    reply = client.chat.completions.create(
        model="gpt-4o", max_completion_tokens=300,
        messages=[{"role": "user", "content": f"Plan a report on {topic} from: {notes} Keep it short."}],
    )
    return reply.choices[0].message.content


__all__ = ["explain", "plan"]
'''


def _check(root: Path) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "app/fixer.py"], capture_output=True, text=True, cwd=root)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def test_output_of_a_process_and_items_of_search_results_are_followed(tmp_path):
    for name, text in {"app/__init__.py": "", "app/runner.py": RUNNER, "app/fixer.py": FIXER}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    found = _check(tmp_path)
    assert [(f["code"], f["line"], f["column"], f["confidence"]) for f in found] == [
        ("CTX401", 13, 92, "high"), ("CTX401", 22, 32, "high")]
    output, hit = found
    assert output["message"].startswith(
        "`out` carries untrusted content (subprocess.Popen(...).stdout in app/runner.py:6, line 10)")
    assert ("app/runner.py", 6) in {(step["path"], step["line"]) for step in output["evidence"]}
    assert hit["message"].startswith(
        "`hit['content']` carries untrusted content (web search results (tavily.TavilyClient().search(...)), line 19)")
    assert [step["text"] for step in hit["evidence"] if step["kind"] == "flow"] == [
        'an item of `enumerate(response["results"])`']
