"""CTX104 through a template method (overrides.py): ``self.recall(task)`` in a base class runs the
subclass's ``recall``, so what the override returns goes where the base class puts it; and the
keys of a field declared ``dict[str, ...]`` (on the class or a base class of the module) and set
algebra over them hold strings (stringsets.py), also when a comprehension walks them before the cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter

RECOMMENDER = '''\
import openai

RANK_PROMPT = "Rank these tools for the task and answer with their names in order.\\n{tools}\\nTask: {task}"


class Recommender:
    tools: dict[str, str] = {}

    async def recommend(self, task: str) -> str:
        recalled = await self.recall(task)
        return await self.rank(recalled, task)

    async def recall(self, task: str) -> list[str]:
        raise NotImplementedError

    async def rank(self, recalled: list[str], task: str) -> str:
        described = {name: self.tools[name] for name in recalled}
        prompt = RANK_PROMPT.format(tools=described, task=task)
        return await openai.AsyncOpenAI().responses.create(model="gpt-4o", input=prompt)


class BASE:
    async def recall(self, task: str) -> list[str]:
        wanted = TAGS.get(task, {})
        names = set(self.tools.keys()) & wanted.keys()
        return [self.tools[name] for name in names][:20]


TAGS: dict[str, dict[str, str]] = {}


def main(task: str) -> None:
    TagRecommender().recommend(task)
'''


def findings(source: str) -> list[tuple[int, str | None, str]]:
    linter = Linter(Settings(root=Path("."), confidence="low"), load_catalogue(), select=["CTX104"])
    return [(f.span.line, f.kind, f.message) for f in linter.lint_text(source, "tools.py", "tools.py", "python")]


def test_what_an_override_returns_goes_where_the_base_class_puts_it() -> None:
    [(line, kind, message)] = findings(RECOMMENDER.replace("class BASE:", "class TagRecommender(Recommender):"))
    assert (line, kind) == (26, "survivors-reach-prompt")
    assert message == (
        "`set` iterates in an order that changes with each process's hash seed, and `[self.tools[name] for name in "
        "names]` is cut to some of its items: which items survive, and so the text passed to `RANK_PROMPT.format`, "
        "which builds a prompt with it (line 18), changes from run to run, so prompts built from it differ and "
        "cannot be cached or reproduced. Wrap it in `sorted(...)`.")


def test_a_class_of_the_same_method_name_that_does_not_derive_from_the_base_is_not_called_by_it() -> None:
    source = RECOMMENDER.replace("class BASE:", "class TagRecommender:\n    tools: dict[str, str] = {}\n")
    assert [kind for _, kind, _ in findings(source)] == ["order-decides"]


@pytest.mark.parametrize("names", [
    "sorted(set(self.tools.keys()) & wanted.keys())",
    "set(self.counts.keys()) & set(wanted.values())",  # ints on one side, nothing shown on the other
])
def test_a_sorted_set_or_one_of_no_strings_shown_is_not_a_prompt_s_order(names: str) -> None:
    source = RECOMMENDER.replace("class BASE:", "class TagRecommender(Recommender):\n    counts: dict[int, str] = {}\n") \
        .replace("set(self.tools.keys()) & wanted.keys()", names)
    assert [kind for _, kind, _ in findings(source) if kind == "survivors-reach-prompt"] == []


NOTES_BASE = '''\
from abc import ABC, abstractmethod


class Notes(ABC):
    @abstractmethod
    async def search(self, word: str, most: int = 20) -> list[str]:
        """The text of the notes whose name holds the word."""
'''

LOCAL_NOTES = '''\
from pathlib import Path

from app.base import Notes


class LocalNotes(BASE):
    def __init__(self, root: str) -> None:
        self.root = Path(root)

    async def search(self, word: str, most: int = 20) -> list[str]:
        found = []
        for path in self.root.rglob("*.md"):
            if len(found) >= most:
                break
            if word in path.name:
                found.append(path.read_text())
        return found
'''

NOTE_TOOL = '''\
from dataclasses import dataclass

from app.base import Notes


@dataclass
class ToolResult:
    result_for_llm: str


async def search_notes(notes: Notes, word: str) -> ToolResult:
    found = await notes.search(word)
    return ToolResult(result_for_llm="\\n\\n".join(found))
'''


MAIN = "from app.local import LocalNotes\n\nNOTES = LocalNotes('notes')\n"


@pytest.mark.parametrize(("base", "found"), [
    ("Notes", [("app/local.py", 12, "listing-reaches-prompt", "medium")]),
    ("object", []),  # a class of the same method name that does not derive from the base: not what the call runs
])
def test_a_call_of_an_abstract_method_of_another_module_runs_the_override(tmp_path, base, found) -> None:
    # `notes.search(word)`, `notes` typed as the base class that declares `search` with no body:
    # the call runs the override of a subclass, whose listing's order reaches what the model is given.
    from projects import check_json, write_package

    write_package(tmp_path, {"base.py": NOTES_BASE, "local.py": LOCAL_NOTES.replace("BASE", base),
                             "tool.py": NOTE_TOOL, "main.py": MAIN})
    reported = [f for f in check_json(tmp_path, ".", "CTX104") if f["confidence"] != "low"]
    assert [(f["path"], f["line"], f["kind"], f["confidence"]) for f in reported] == found
    if found:
        assert "the text built from it is given to the model as `result_for_llm` of `ToolResult(...)` " \
               "(app/tool.py:13)" in reported[0]["message"]
