"""Our own code is checked as we ask users to check theirs: ruff and mypy over ctxlint/ pass, and
no module is over 600 lines, no class over 400.

Both tools come with the test extras and read their settings from pyproject.toml
([tool.ruff], [tool.mypy]); running them here puts them in every run of the suite, so
the README's test command and .ci/run check them too.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing_in_ctxlint():
    result = _run("ruff", "check", "--no-cache", "ctxlint")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed!" in result.stdout


def test_mypy_finds_nothing_in_ctxlint():
    result = _run("mypy")  # packages = ["ctxlint"] in [tool.mypy]
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout


def _modules() -> dict[str, str]:
    package = ROOT / "ctxlint"
    return {p.relative_to(package).as_posix(): p.read_text(encoding="utf-8") for p in sorted(package.rglob("*.py"))}


def test_no_module_of_ctxlint_is_over_600_lines():
    # Each module holds one concern (issue 9); one that outgrows this bound holds two and is split,
    # as the Python front-end's flow.py and ordering.py and the TypeScript analyzer were.
    lengths = {name: len(text.splitlines()) for name, text in _modules().items()}
    assert len(lengths) > 100
    over = {name: n for name, n in lengths.items() if n > 600}
    assert over == {}


def test_no_class_of_ctxlint_is_over_400_lines():
    # A class that outgrows this bound holds parts that call each other; they become components,
    # each given the ones below it (as the TypeScript front-end's are).
    sizes = {f"{name}:{node.name}": node.end_lineno - node.lineno + 1
             for name, text in _modules().items() for node in ast.walk(ast.parse(text))
             if isinstance(node, ast.ClassDef) and node.end_lineno is not None}
    assert len(sizes) > 100
    over = {name: n for name, n in sizes.items() if n > 400}
    assert over == {}
