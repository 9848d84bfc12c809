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
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache",
                          "--output-format", "json", "--select", "CTX101", "--confidence", "low", *paths],
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
