"""What a file is told does not depend on which files the same process linted before it."""

from __future__ import annotations

import json
import subprocess
import sys

from ctxlint.frontends.python.project import MAX_MODULES
from tests.projects import write_package

PARTS = MAX_MODULES + 4  # more modules than one file may read


def _asking(parts: range) -> str:
    """A module that sends the texts of ``parts`` as its system prompt."""
    imports = "".join(f"from app.part{i} import TEXT{i}\n" for i in parts)
    joined = " + ".join(f"TEXT{i}" for i in parts)
    return ("import anthropic\n" + imports + "\nclient = anthropic.Anthropic()\n\n\n"
            "def ask(question):\n"
            "    return client.messages.create(model=\"claude-sonnet-4-5\", max_tokens=300,\n"
            f"        system={joined},\n"
            "        messages=[{\"role\": \"user\", \"content\": question}])\n\n\n"
            "ask(\"hello\")\n")


def _json(root, *paths: str) -> list[dict]:
    return _json_of(root, "CTX101", *paths)


def _json_of(root, rule: str, *paths: str) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache",
                          "--output-format", "json", "--select", rule, "--confidence", "low", *paths],
                         capture_output=True, text=True, cwd=root)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def test_a_file_linted_after_others_is_told_what_it_is_told_alone(tmp_path):
    # `aaa.py` is linted first in the whole run and reads the last parts, which the process keeps;
    # `app.py` then needs more modules than its budget. Kept or read, each counts against it.
    modules = {f"part{i}.py": f'TEXT{i} = "Rule {i}: answer in plain words. "\n' for i in range(PARTS)}
    clock = MAX_MODULES  # the first part past the budget of a file that reads them all
    modules[f"part{clock}.py"] = f'import datetime\n\nTEXT{clock} = f"Now: {{datetime.datetime.now()}}. "\n'
    modules["aaa.py"] = _asking(range(MAX_MODULES - 4, PARTS))
    modules["app.py"] = _asking(range(PARTS))
    write_package(tmp_path, modules)
    alone = [f for f in _json(tmp_path, "app/app.py") if f["path"] == "app/app.py"]
    together = [f for f in _json(tmp_path, "app") if f["path"] == "app/app.py"]
    assert together == alone


# A chain of four project functions from the call to the model: `batch` -> `timed` -> `generate`
# -> `send`. Asked from `serve.py`, `generate` is three calls below it, one more than a summary
# looks (MAX_WRAPPING): no request is seen there.
CHAIN = {
    "sender.py": ("import openai\n\nclient = openai.OpenAI()\n\n\n"
                  "def send(prompt):\n"
                  "    return client.chat.completions.create(\n"
                  "        model=\"gpt-4o\", max_tokens=400, messages=[{\"role\": \"user\", \"content\": prompt}])\n"),
    "core.py": ("from app.sender import send\n\n\n"
                "def generate(topic):\n"
                "    return send(f\"Write three sentences about {topic}.\")\n"),
    # It imports the SDK, so it is read whole, and asks what `generate` sends from one call away.
    "runner.py": ("import time\n\nimport openai  # noqa: F401\n\nfrom app.core import generate\n\n\n"
                  "def timed(topic):\n"
                  "    started = time.monotonic()\n"
                  "    text = generate(topic)\n"
                  "    return text, time.monotonic() - started\n"),
    "jobs.py": "from app.runner import timed\n\n\ndef batch(topic):\n    return timed(topic)\n",
    "serve.py": ("import requests\n\nfrom app.jobs import batch\n\n"
                "page = requests.get(\"https://example.com/news\").text\n"
                "print(batch(page))\n"),
}


def test_a_summary_worked_out_deeper_for_an_earlier_file_is_not_reused(tmp_path):
    # `runner.py`, linted before `serve.py`, asks what `generate` sends from one call away and
    # finds `send`; `serve.py` asks it from three calls away, where it finds nothing. Reusing the
    # first answer reported the web page in `serve.py` only when `runner.py` came first.
    write_package(tmp_path, CHAIN)
    alone = _json_of(tmp_path, "CTX401", "app/serve.py")
    after_runner = [f for f in _json_of(tmp_path, "CTX401", "app/runner.py", "app/serve.py")
                    if f["path"] == "app/serve.py"]
    assert alone == after_runner == []
    # one function less in the chain: the page is reported, alone or after the runner
    shorter = CHAIN["serve.py"].replace("app.jobs import batch", "app.runner import timed")
    (tmp_path / "app" / "serve.py").write_text(shorter.replace("batch(page)", "timed(page)"))
    alone = _json_of(tmp_path, "CTX401", "app/serve.py")
    after_runner = [f for f in _json_of(tmp_path, "CTX401", "app/runner.py", "app/serve.py")
                    if f["path"] == "app/serve.py"]
    assert [(f["line"], f["code"]) for f in alone] == [(6, "CTX401")]
    assert after_runner == alone
