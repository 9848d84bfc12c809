"""CTX104 through a helper of another module (ordering.returned_unordered, foreign_origin): the
helper's summary is read in its own module, and the finding's source points where it loses the
order, where ``sorted(...)`` goes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter

LINKS = '''\
import re

LINK = re.compile(r"https://\\S+")


def pick_links(text: str, most: int) -> list:
    found = {match.strip(".,") for match in LINK.findall(text)}
    return RETURNED
'''
READER = '''\
from app.links import pick_links


class Reader:
    def __init__(self, llm) -> None:
        self.llm = llm

    async def summarise(self, text: str) -> str:
        links = pick_links(text, 3)
        listing = "\\n".join(links)
        return await self.llm.aask(f"{listing}\\nSay what each of these pages is about.")


async def main(llm, text: str) -> str:
    return await Reader(llm).summarise(text)
'''


def lint(tmp_path: Path, returned: str, monkeypatch: pytest.MonkeyPatch, links: str = LINKS):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "links.py").write_text(links.replace("RETURNED", returned))
    (tmp_path / "app" / "reader.py").write_text(READER)
    linter = Linter(Settings(root=tmp_path, confidence="low"), load_catalogue(), select=["CTX104"])
    return linter.lint_text(READER, "app/reader.py", "app/reader.py", "python", tmp_path / "app" / "reader.py")


@pytest.mark.parametrize("returned", ["list(found)[:most]", "list(found)"])
def test_a_set_a_helper_of_another_module_returns_is_followed_to_where_it_loses_its_order(
        tmp_path: Path, returned: str, monkeypatch: pytest.MonkeyPatch) -> None:
    [finding] = lint(tmp_path, returned, monkeypatch)
    assert (finding.span.path, finding.span.line, finding.kind, finding.confidence.value) == \
        ("app/reader.py", 10, "order-reaches-prompt", "medium")
    source = finding.evidence[0]
    assert (source.text, source.span.path, source.span.line) == ("`set`", "app/links.py", 8)


@pytest.mark.parametrize("returned", ["sorted(found)[:most]", "sorted(found)"])
def test_a_helper_that_sorts_what_it_returns_gives_no_order(tmp_path: Path, returned: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    assert lint(tmp_path, returned, monkeypatch) == []



@pytest.mark.parametrize("early", ["[]", "None", "set()", "()"])
def test_an_early_return_of_nothing_leaves_the_other_returns_to_decide(tmp_path: Path, early: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # `if not text: return []` before the set is built gives no items, in no order
    guarded = LINKS.replace("    found =", f"    if not text:\n        return {early}\n    found =")
    [finding] = lint(tmp_path, "list(found)", monkeypatch, guarded)
    assert (finding.span.path, finding.span.line, finding.kind, finding.confidence.value) == \
        ("app/reader.py", 10, "order-reaches-prompt", "medium")
    assert (finding.evidence[0].span.path, finding.evidence[0].span.line) == ("app/links.py", 10)


def test_an_early_return_of_items_in_order_still_clears_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    guarded = LINKS.replace("    found =", "    if not text:\n        return [\"none\"]\n    found =")
    assert lint(tmp_path, "list(found)", monkeypatch, guarded) == []
