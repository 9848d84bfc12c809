"""A cut followed through the project's functions into a prompt (cutreach.py): across a module
boundary, and round names that hand the value back and forth without looping."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import check_json, write_package

JUDGING = '''\
def judge(llm, excerpt: str) -> str:
    return llm.generate(make_prompt(excerpt))
'''

REVIEW = '''\
from app.judging import judge


def review(llm, page_text: str) -> str:
    short = page_text[:3000]
    return judge(llm, short)


def title_card(llm, page_text: str) -> str:
    return llm.generate(render_prompt(kind="title", body=page_text))
'''

SWAPPED = '''\
def build(text: str, limit: int = 4000) -> str:
    a = text[:limit]
    b = a; a = b
    return render_prompt(question=a)
'''


def _check(root: Path, path: str) -> list[dict]:
    return check_json(root, path, "CTX205")


def _steps(found: dict) -> list[tuple]:
    """The evidence between a finding's own place and its fix: how the cut travels to the prompt."""
    return [(e["kind"], e["text"], e["path"], e["line"]) for e in found["evidence"][1:-1]]


OUTLINE = '''\
class ProjectOutline:
    def render(self, listing: str) -> str:
        return "\\n".join([line[:100] for line in listing.splitlines()])
'''

CHAT = '''\
from app.outline import ProjectOutline


class Assistant:
    def __init__(self, llm) -> None:
        self.llm = llm
        self.outline = ProjectOutline()

    def outline_messages(self, listing: str) -> list:
        text = self.outline.render(listing)
        return [dict(role="user", content=text), dict(role="assistant", content="Ok.")]
'''


@pytest.mark.parametrize(("modules", "path", "place", "message", "steps"), [
    pytest.param(
        {"judging.py": JUDGING, "review.py": REVIEW}, "app/review.py", ("CTX205", 5, 13, "cut-reaches-prompt"),
        "`page_text[:3000]` cuts the text to its first 3,000 characters and leaves nothing in its place",
        [("flow", "passed to `judge` as `excerpt`", "app/review.py", 6),
         ("sink", "passed to `make_prompt`, which builds a prompt with it", "app/judging.py", 2),
         # a kind shown by default (medium) is lowered where nothing calls its function, which says so last
         ("sink", "its text reaches a prompt", "app/review.py", 5)],
        id="a cut passed to a function of another module that builds a prompt"),
    pytest.param(
        {"outline.py": OUTLINE, "chat.py": CHAT}, "app/outline.py", ("CTX205", 3, 16, "line-cut"),
        '`"\\n".join([line[:100] for line in listing.splitlines()])` cuts every line of the text to 100 characters '
        "and leaves nothing where a line lost its end",
        [("flow", "what `render` returns is used by `outline_messages`", "app/chat.py", 10),
         ("sink", "sent as the content of a message", "app/chat.py", 11)],
        id="every line cut, followed to a chat message built in another module"),
])
def test_a_cut_followed_across_modules_to_the_prompt(tmp_path, modules, path, place, message, steps):
    write_package(tmp_path, modules)
    [found] = _check(tmp_path, path)
    assert (found["code"], found["line"], found["column"], found["kind"]) == place
    assert found["message"].startswith(message)
    assert _steps(found) == steps


def test_names_that_hand_a_cut_back_and_forth_are_followed_once(tmp_path):
    (tmp_path / "swapped.py").write_text(SWAPPED)
    [found] = _check(tmp_path, "swapped.py")
    assert (found["code"], found["line"], found["kind"]) == ("CTX205", 2, "cut-reaches-prompt")
    # the last step before the finding's own sink, and the note that nothing calls `build` (a default kind)
    assert [e["text"] for e in found["evidence"][-3:]] == [
        "passed to `render_prompt`, which builds a prompt with it", "its text reaches a prompt",
        "nothing in the project calls `build`"]


def test_folders_above_the_project_root_do_not_make_its_modules_tests(tmp_path):
    # A checkout under a folder named `tests` (a CI workspace): its own modules are still shipped code.
    root = tmp_path / "tests" / "repo"
    (root / ".git").mkdir(parents=True)
    write_package(root, {"outline.py": OUTLINE, "chat.py": CHAT})
    [found] = _check(root, "app/outline.py")
    assert (found["line"], found["kind"]) == (3, "line-cut")
