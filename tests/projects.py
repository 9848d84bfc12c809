"""Small projects written into a temporary folder and linted by the CLI, for tests that follow
values across the modules of a package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def write_files(root: Path, files: dict[str, str]) -> Path:
    """The ``files`` (path below ``root``: text) written under ``root``, folders made as needed."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def write_package(root: Path, modules: dict[str, str]) -> None:
    """A package `app` of the given modules under ``root``."""
    write_files(root / "app", {"__init__.py": "", **modules})


def check_json(root: Path, path: str, rule: str) -> list[dict]:
    """`ctxlint check --confidence low` of one rule on ``path``, run in ``root``: its JSON findings."""
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", rule, "--confidence", "low", path], capture_output=True, text=True, cwd=root)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def reported_json(root: Path, name: str, text: str, rule: str) -> list[dict]:
    """Write ``text`` to ``root/name`` and run a plain `ctxlint check` of one rule on it, which must
    report something (exit 1): its JSON findings."""
    (root / name).write_text(text)
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", rule, name], capture_output=True, text=True, cwd=root)
    assert run.returncode == 1, run.stderr
    return json.loads(run.stdout)
