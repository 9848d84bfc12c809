"""One parse per module per run (frontends/python/trees.py): a module linted and imported by
another linted module is parsed once, and the findings are those of two separate parses."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings, apply_table
from ctxlint.engine import Linter
from ctxlint.frontends.python import prefilter
from ctxlint.frontends.python import project as projects
from ctxlint.frontends.python.trees import Trees
from tests.projects import write_package

PROMPTS = '''from datetime import datetime

SYSTEM = "Today is {today}. You are a support agent for {product}. Answer in one short paragraph."


def system_for(product: str) -> str:
    return SYSTEM.format(product=product, today=datetime.now().isoformat())
'''

CHAT = '''from openai import OpenAI

from app.prompts import system_for

client = OpenAI()


def answer(question: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": system_for("Acme")}, {"role": "user", "content": question}],
    )
    return reply.choices[0].message.content
'''


def test_the_same_text_of_a_file_is_parsed_once(tmp_path: Path) -> None:
    trees = Trees()
    file = tmp_path / "a.py"
    first = trees.parsed(file, "x = 1\n", "a.py")
    assert first.tree is not None
    assert trees.parsed(file, "x = 1\n", "other/a.py") is first  # the name asked for does not matter
    changed = trees.parsed(file, "x = 2\n", "a.py")
    assert changed is not first and changed.tree is not None
    assert trees.parsed(file, "x = (\n", "a.py").problem is not None  # a problem names its path: not kept
    assert file not in trees.kept and trees.chars == 0


def test_the_kept_trees_are_bounded_by_their_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ctxlint.frontends.python.trees.MAX_SHARED_CHARS", 20)
    trees = Trees()
    for name in ("a", "b", "c"):
        trees.parsed(tmp_path / f"{name}.py", f"{name} = 100\n", f"{name}.py")
    assert [p.name for p in trees.kept] == ["b.py", "c.py"] and trees.chars == 16


def _lint(root: Path, names: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[list, int]:
    """The findings of one run over ``names`` of ``root``, and how many modules it parsed."""
    parses = []
    parse = prefilter.parse_module

    def counted(text: str, path: str):
        parses.append(path)
        return parse(text, path)

    monkeypatch.setattr(prefilter, "parse_module", counted)
    projects._PROJECTS.clear()  # a run of its own
    settings = Settings(root=root)
    apply_table(settings, {"confidence": "low"}, root / "pyproject.toml")
    linter = Linter(settings, load_catalogue())
    findings = linter.lint_files([root / name for name in names], jobs=1).findings
    monkeypatch.undo()
    return findings, len(parses)


def test_a_module_linted_and_imported_is_parsed_once_with_the_same_findings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_package(tmp_path, {"prompts.py": PROMPTS, "chat.py": CHAT})
    shared, parsed = _lint(tmp_path, ["app/chat.py", "app/prompts.py"], monkeypatch)
    assert parsed == 2  # chat.py, and prompts.py once: read for chat.py's import, then linted
    # the same files linted in two runs, each parsing its own modules
    apart = _lint(tmp_path, ["app/chat.py"], monkeypatch)[0] + _lint(tmp_path, ["app/prompts.py"], monkeypatch)[0]
    assert shared and sorted(map(repr, shared)) == sorted(map(repr, apart))
