"""The user's task put after the earlier conversation in a list that a project helper a few calls
away trims from the front (CTX301 task-behind-history, frontdrops.py): the trim is a summary of
the helper's list parameter, carried through the functions that hand the list on."""

from __future__ import annotations

from pathlib import Path

import pytest

from projects import check_json, write_package

FITTING = '''\
from openai import OpenAI

client = OpenAI()


def count(messages: list[dict]) -> int:
    return sum(len(m["content"]) // 3 for m in messages)


def fit(messages: list[dict], budget: int) -> list[dict]:
    while count(messages) > budget:
        messages.pop(0)
    return messages


def as_messages(history: list[dict], system: str, question: str, budget: int) -> list[dict]:
    turns = []
    for turn in history:
        turns.append({"role": turn["role"], "content": turn["content"]})
    messages = [{"role": "system", "content": system}] + turns
    if question:
        messages.append({"role": "user", "content": question})
    return fit(messages, budget)


def ask(system: str, history: list[dict], question: str = "") -> str:
    messages = as_messages(history, system, question, 6000)
    reply = client.chat.completions.create(model="gpt-4o", max_completion_tokens=800, messages=messages)
    return reply.choices[0].message.content
'''

RESEARCH = '''\
from app.fitting import ask


def step_messages(query: str, steps: list[str]) -> list[dict]:
    messages = [{"role": "user", "content": query}]
    for step in steps:
        messages.append({"role": "assistant", "content": step})
    return messages


def next_step(query: str, past_chat: list[dict], steps: list[str]) -> str:
    run = step_messages(query, steps)
    history = past_chat + run
    return ask("You plan the next research step.", history)
'''


def _check(root: Path) -> list[dict]:
    return check_json(root, "app/research.py", "CTX301")


def test_the_task_after_the_history_in_a_list_a_helper_trims_from_the_front(tmp_path: Path) -> None:
    write_package(tmp_path, {"fitting.py": FITTING, "research.py": RESEARCH})
    [found] = _check(tmp_path)
    # low: the package is written under pytest's tmp_path, test code to the linter
    assert (found["line"], found["column"], found["kind"], found["confidence"]) == (13, 15, "task-behind-history",
                                                                                   "low")
    assert found["message"] == (
        "`past_chat + run` puts the messages that start with the user's task `query` after `past_chat`, and the "
        "list given to `ask` (line 14) is trimmed from the front: `ask` -> `as_messages` -> `fit` "
        "(app/fitting.py line 12) drops the oldest items first when over a budget. Once the conversation and the "
        "steps outgrow the budget, the oldest messages go, and the task is among the first: the model carries on "
        "without what it was asked to do. Send the task where the trim does not reach it (the system prompt, or "
        "again as the last message), or trim the history before the task and keep the task.")


@pytest.mark.parametrize(("old", "new"), [
    pytest.param("ask(\"You plan the next research step.\", history)",
                 "ask(\"You plan the next research step.\", history, question=query)", id="task-again-as-newest"),
    pytest.param("ask(\"You plan the next research step.\", history)",
                 "ask(f\"You plan the next step of the research into: {query}\", history)",
                 id="task-restated-in-system-prompt"),
    pytest.param("past_chat + run", "run + past_chat", id="task-before-history"),
    pytest.param("    history = past_chat + run\n",
                 "    history = past_chat + [{\"role\": \"user\", \"content\": query}]\n", id="task-appended-last"),
    pytest.param("    for step in steps:\n        messages.append({\"role\": \"assistant\", \"content\": step})\n", "",
                 id="builder-returns-only-the-task"),
])
def test_a_task_the_front_trim_does_not_reach_is_not_reported(tmp_path: Path, old: str, new: str) -> None:
    assert old in RESEARCH
    write_package(tmp_path, {"fitting.py": FITTING, "research.py": RESEARCH.replace(old, new)})
    assert _check(tmp_path) == []


def test_a_queue_worked_through_until_empty_is_not_a_trim(tmp_path: Path) -> None:
    fitting = FITTING.replace("while count(messages) > budget:", "while len(messages) > 0:")
    write_package(tmp_path, {"fitting.py": fitting, "research.py": RESEARCH})
    assert _check(tmp_path) == []


def test_a_trim_that_keeps_the_first_message_is_not_a_front_trim(tmp_path: Path) -> None:
    write_package(tmp_path, {"fitting.py": FITTING.replace("messages.pop(0)", "messages.pop(1)"),
                             "research.py": RESEARCH})
    assert _check(tmp_path) == []


def test_a_trim_not_bound_to_a_budget_is_not_a_front_trim(tmp_path: Path) -> None:
    fitting = FITTING.replace("    while count(messages) > budget:\n        messages.pop(0)\n",
                              "    if messages and messages[0][\"role\"] == \"tool\":\n        messages.pop(0)\n")
    write_package(tmp_path, {"fitting.py": fitting, "research.py": RESEARCH})
    assert _check(tmp_path) == []


BASE = '''\
class Agent:
    def __init__(self, query: str, chat_history: list[dict]) -> None:
        self.query = query
        self.brief = f"Stop once this is done: {query}"
        self.messages: list[dict] = chat_history
        self.messages += [{"role": "user", "content": query}]
'''

OPERATOR = '''\
from app.base import Agent
from app.fitting import ask


class Operator(Agent):
    def __init__(self, query: str, chat_history: list[dict]) -> None:
        super().__init__(query, chat_history)

    def act(self, observation: str) -> str:
        self.messages.append({"role": "user", "content": observation})
        history = list(self.messages)
        action = ask("You operate a browser.", history)
        self.messages.append({"role": "assistant", "content": action})
        return action
'''


def test_the_task_a_base_constructor_adds_after_the_given_history(tmp_path: Path) -> None:
    write_package(tmp_path, {"fitting.py": FITTING, "base.py": BASE, "operator.py": OPERATOR})
    [found] = check_json(tmp_path, "app/operator.py", "CTX301")
    assert (found["line"], found["column"], found["kind"]) == (11, 24, "task-behind-history")
    assert found["message"].startswith(
        "`self.messages` starts as the conversation the constructor is given (`self.messages: list[dict] = "
        "chat_history`) and then gets the user's task `query` (app/base.py line 6), and the list given to `ask` "
        "(line 12) is trimmed from the front: `ask` -> `as_messages` -> `fit` (app/fitting.py line 12)")


def test_a_prompt_the_constructor_writes_from_the_task_keeps_it(tmp_path: Path) -> None:
    operator = OPERATOR.replace("ask(\"You operate a browser.\", history)", "ask(self.brief, history)")
    write_package(tmp_path, {"fitting.py": FITTING, "base.py": BASE, "operator.py": operator})
    assert check_json(tmp_path, "app/operator.py", "CTX301") == []


def test_the_newest_message_taken_off_the_list_is_not_the_list(tmp_path: Path) -> None:
    operator = OPERATOR.replace("history = list(self.messages)", "history = []").replace(
        "ask(\"You operate a browser.\", history)", "ask(\"You operate a browser.\", history, self.messages.pop())")
    write_package(tmp_path, {"fitting.py": FITTING, "base.py": BASE, "operator.py": operator})
    assert check_json(tmp_path, "app/operator.py", "CTX301") == []
