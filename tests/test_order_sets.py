"""What shows CTX104 a set holds strings (stringsets.py, ordersinks.joined_whole): ``str.join``,
which takes nothing else; a set started empty as ``set([])``; one string among what is added.
And a name given other text again, whose later reads are not followed (ordersinks.given_again)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends.python.ordersinks import joined_whole

ASK = '''\
class Labeller:
    def label(self, ticket: str, found) -> str:
        START
        for item in found:
            ADD
        prompt = "Known labels:\\n" + JOINED + "\\nAnswer with the one label that fits the ticket."
        return self.llm.aask(prompt + "\\n\\nTicket: " + ticket)
'''


def order_kinds(start: str, add: str, joined: str) -> list[str | None]:
    source = ASK.replace("START", start).replace("ADD", add).replace("JOINED", joined)
    linter = Linter(Settings(root=Path("."), confidence="low"), load_catalogue(), select=["CTX104"])
    return [f.kind for f in linter.lint_text(source, "labels.py", "labels.py", "python")]


@pytest.mark.parametrize(("start", "add"), [("labels = set()", "labels.add(item)"),
                                            ("labels = set([])", "labels.add(item)")])
def test_a_set_joined_as_it_is_holds_strings(start: str, add: str) -> None:
    assert order_kinds(start, add, '"\\n".join(labels)') == ["order-reaches-prompt"]


def test_one_string_added_among_unknown_items_is_enough() -> None:
    source_add = 'labels.add(item)\n            labels.add("other")'
    assert order_kinds("labels = set([])", source_add, '", ".join(f"{x}" for x in labels)') \
        == ["order-reaches-prompt"]


@pytest.mark.parametrize("joined", ['"\\n".join(sorted(labels))', 'str(len(labels))'])
def test_a_sorted_or_counted_set_is_fine(joined: str) -> None:
    assert order_kinds("labels = set()", "labels.add(item)", joined) == []


def test_unknown_items_joined_through_a_comprehension_are_not_shown_to_be_strings() -> None:
    assert order_kinds("labels = set()", "labels.add(item)", '", ".join(f"{x}" for x in labels)') == []


def _join(code: str) -> tuple[ast.Call, ast.expr]:
    call = ast.parse(code, mode="eval").body
    assert isinstance(call, ast.Call)
    arg = call.args[0]
    collection = arg.args[0] if isinstance(arg, ast.Call) else arg.generators[0].iter \
        if isinstance(arg, ast.GeneratorExp) else arg
    return call, collection


@pytest.mark.parametrize(("code", "whole"), [('"\\n".join(rules)', True), ('", ".join(list(rules))', True),
                                             ('", ".join(r.name for r in rules)', False),
                                             ('", ".join(sorted(rules))', False)])
def test_joined_whole(code: str, whole: bool) -> None:
    assert joined_whole(*_join(code)) is whole


def test_a_set_comprehension_that_keeps_nothing_is_not_joined() -> None:
    comprehension = ast.parse("{n.title for n in notes if isinstance(n, dict)}", mode="eval").body
    call = ast.Call(func=ast.Attribute(value=ast.Constant("\n"), attr="join"), args=[comprehension], keywords=[])
    assert not joined_whole(call, comprehension)


def test_a_name_given_other_text_in_each_arm_is_not_followed() -> None:
    source = '''\
def label(self, ticket: str, labels: set, strict: bool, fallback: str) -> str:
    user_prompt = "Known labels:\\n" + "\\n".join(labels)
    if strict:
        user_prompt = "Known labels:\\n" + "\\n".join(sorted(labels))
    else:
        user_prompt = fallback
    return self.chat(content=user_prompt + "\\nAnswer with one label.\\nTicket: " + ticket)
'''
    linter = Linter(Settings(root=Path("."), confidence="low"), load_catalogue(), select=["CTX104"])
    assert [f.kind for f in linter.lint_text(source, "labels.py", "labels.py", "python")
            if f.kind == "order-in-prompt-text"] == []


def test_a_name_whose_text_went_on_in_a_list_before_it_is_given_other_text_is_followed() -> None:
    source = '''\
class Views:
    async def describe(self, names: list) -> str:
        participants = {str(n) for n in names}
        blocks = []
        block = "## Participants\\n"
        for p in participants:
            block += f"- {p}\\n"
        blocks.append(block)
        block = "## Notes\\nDescribe how the participants call each other."
        blocks.append(block)
        return await self.llm.aask("\\n---\\n".join(blocks))
'''
    linter = Linter(Settings(root=Path("."), confidence="low"), load_catalogue(), select=["CTX104"])
    assert [f.kind for f in linter.lint_text(source, "views.py", "views.py", "python")] == ["order-reaches-prompt"]


FORMATTED = '''\
class Planner:
    async def plan(self, funcs: list, wanted: str) -> str:
        START
        prompt = f"""Existing imports: SHOWN

Decide which imports the functions need and answer in JSON."""
        return await self.llm.aask(prompt)
'''


def formatted(start: str, shown: str) -> list[tuple[int, int, str | None, str]]:
    source = FORMATTED.replace("START", start).replace("SHOWN", shown)
    linter = Linter(Settings(root=Path("."), confidence="low"), load_catalogue(), select=["CTX104"])
    return [(f.span.line, f.span.column, f.kind, f.message)
            for f in linter.lint_text(source, "plan.py", "plan.py", "python")]


@pytest.mark.parametrize(("shown", "column"), [("{list(names)}", 41), ("{names}", 41), ("{tuple(names)!r}", 41)])
def test_a_set_of_strings_written_into_an_f_string_reaches_the_prompt(shown: str, column: int) -> None:
    [(line, col, kind, message)] = formatted("names = {str(f) for f in funcs}", shown)
    assert (line, col, kind) == (4, column, "order-reaches-prompt")
    assert message.startswith("`set` iterates in an order that changes with each process's hash seed, and `names` "
                              "gives the order of `prompt`: its order becomes the order of the text that "
                              "`self.llm.aask(...)` (line 7) sends to the model")


@pytest.mark.parametrize(("start", "shown"), [
    ("names = {f.id for f in funcs}", "{list(names)}"),  # ints: the same order in every process
    ("names = {str(f) for f in funcs}", "{sorted(names)}"),
    ("names = {str(f) for f in funcs}", "{wanted in names}"),  # membership only
    ("names = {str(f) for f in funcs}", "{len(names)}"),
])
def test_an_f_string_of_a_set_that_keeps_no_order_is_fine(start: str, shown: str) -> None:
    assert formatted(start, shown) == []
