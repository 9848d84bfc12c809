"""What a file is told does not depend on which files the same process linted before it."""

from __future__ import annotations

import json
import subprocess
import sys

from ctxlint.frontends.python.project import MAX_MODULES
from ctxlint.frontends.python.wrappers import MAX_WRAPPING
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


def _chain(outermost: int) -> dict[str, str]:
    """A package where `serve.py` sends a fetched web page through ``outermost`` project functions
    that each call the next (`hop<N>` ... `hop1`), then `send`, which calls the model. `runner.py`
    imports the SDK, so it is read whole, and asks what `hop1` sends from one call away."""
    modules = {
        "sender.py": ("import openai\n\nclient = openai.OpenAI()\n\n\n"
                      "def send(prompt):\n"
                      "    return client.chat.completions.create(model=\"gpt-4o\", max_tokens=400,\n"
                      "        messages=[{\"role\": \"user\", \"content\": prompt}])\n"),
        "hop1.py": ("from app.sender import send\n\n\n"
                    "def hop1(topic):\n"
                    "    return send(f\"Write three sentences about {topic}.\")\n"),
        "runner.py": ("import openai  # noqa: F401\n\nfrom app.hop1 import hop1\n\n\n"
                      "def once(topic):\n    return hop1(topic)\n"),
        "serve.py": (f"import requests\n\nfrom app.hop{outermost} import hop{outermost}\n\n"
                     "page = requests.get(\"https://example.com/news\").text\n"
                     f"print(hop{outermost}(page))\n"),
    }
    for i in range(2, outermost + 1):
        modules[f"hop{i}.py"] = (f"from app.hop{i - 1} import hop{i - 1}\n\n\n"
                                 f"def hop{i}(topic):\n    return hop{i - 1}(topic)\n")
    return modules


def _page_findings(root, *paths: str) -> list[dict]:
    return [f for f in _json_of(root, "CTX401", *paths) if f["path"] == "app/serve.py"]


def test_a_summary_worked_out_deeper_for_an_earlier_file_is_not_reused(tmp_path):
    # `send` is one call more than a summary looks (MAX_WRAPPING) below `serve.py`'s call: no
    # request is seen there. `runner.py`, linted first, asks what `hop1` sends from one call
    # away and finds `send`; reusing that answer for `serve.py`, which asks it from
    # MAX_WRAPPING - 1 calls away, reported the page only when `runner.py` came first.
    write_package(tmp_path, _chain(MAX_WRAPPING))
    assert _page_findings(tmp_path, "app/serve.py") == _page_findings(tmp_path, "app/runner.py", "app/serve.py") == []


def test_a_chain_within_the_depth_is_followed_whichever_file_comes_first(tmp_path):
    write_package(tmp_path, _chain(MAX_WRAPPING - 1))
    alone = _page_findings(tmp_path, "app/serve.py")
    assert [(f["line"], f["code"]) for f in alone] == [(6, "CTX401")]
    assert _page_findings(tmp_path, "app/runner.py", "app/serve.py") == alone
