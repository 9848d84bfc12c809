"""The user's request trimmed away first (CTX301 first-turn-trimmed, trimdrops.py): the method
that cuts the conversation is in another module of the project, read through the import."""

from __future__ import annotations

from pathlib import Path

from projects import check_json, write_package

CONVERSATION = '''\
class Conversation:
    def __init__(self, system_prompt: str) -> None:
        self.messages: list[dict] = []
        self.system(system_prompt)

    def system(self, text: str) -> "Conversation":
        self.messages.append({"role": "system", "content": text})
        return self

    def user(self, text: str) -> "Conversation":
        self.messages.append({"role": "user", "content": text})
        return self

    def drop(self, start: int, count: int) -> "Conversation":
        self.messages = self.messages[:start] + self.messages[start + count:]
        return self
'''

AGENT = '''\
from openai import OpenAI

from app.conversation import Conversation

client = OpenAI()


def review(diff: str, approve) -> None:
    convo = Conversation("You review pull requests.").user(f"Review this diff. Never approve a removed test.\\n{diff}")
    while True:
        reply = client.chat.completions.create(model="gpt-4o", max_completion_tokens=1500, messages=convo.messages)
        if approve(reply.choices[0].message.content):
            return
        convo.user("Look again.")
        if len(convo.messages) >= 8:
            convo.drop(1, 2)
'''


def _check(root: Path, path: str) -> list[dict]:
    return check_json(root, path, "CTX301")


def _the_finding(root: Path, name: str, source: str) -> tuple[tuple, str]:
    """The one finding on module ``name`` beside the project's conversation class: its place and
    kind, and its message."""
    write_package(root, {"conversation.py": CONVERSATION, name: source})
    [found] = _check(root, f"app/{name}")
    return (found["code"], found["line"], found["column"], found["kind"], found["confidence"]), found["message"]


def test_a_trim_from_index_1_by_a_method_of_another_module_drops_the_task(tmp_path: Path) -> None:
    assert _the_finding(tmp_path, "agent.py", AGENT) == (("CTX301", 16, 13, "first-turn-trimmed", "low"), (
        "`convo.drop(1, 2)` (`Conversation.drop`, app/conversation.py line 15) removes messages from index 1 "
        "whenever `len(convo.messages) >= 8` in this loop, and message 0 is the system prompt "
        "(`Conversation.__init__`, app/conversation.py line 4): message 1 is the opening user message, the one "
        "that states the task, so it is the first to go and the model carries on without it. Trim after the "
        "opening exchange, or restate the task in the last message."))


def test_a_trim_past_the_opening_exchange_keeps_the_task(tmp_path: Path) -> None:
    write_package(tmp_path, {"conversation.py": CONVERSATION, "agent.py": AGENT.replace("drop(1, 2)", "drop(3, 2)")})
    assert _check(tmp_path, "app/agent.py") == []


OPERATOR = '''\
from openai import OpenAI

client = OpenAI()


class Operator:
    def start(self, query: str) -> None:
        self.query = query
        self.messages = [{"role": "user", "content": self.query}]

    def reset(self) -> None:
        self.messages = [{"role": "assistant", "content": "Ready."}]

    def step(self) -> str:
        response = client.responses.create(model="computer-use-preview", input=self.messages, truncation="auto")
        self.messages += response.output
        return response.output_text
'''


def test_the_first_list_the_task_is_placed_in_decides_wherever_a_reset_sits(tmp_path: Path) -> None:
    (tmp_path / "operator_agent.py").write_text(OPERATOR)
    [found] = _check(tmp_path, "operator_agent.py")
    assert (found["line"], found["kind"]) == (15, "task-front-dropped")
    moved = OPERATOR.replace(OPERATOR[OPERATOR.index("    def reset"):OPERATOR.index("    def step")], "") + \
        '\n    def reset(self) -> None:\n        self.messages = [{"role": "assistant", "content": "Ready."}]\n'
    (tmp_path / "operator_agent.py").write_text(moved)
    [found] = _check(tmp_path, "operator_agent.py")
    assert (found["line"], found["kind"]) == (12, "task-front-dropped")


REFINE = '''\
import asyncio

from app.conversation import Conversation


class Planner:
    async def refine(self, convo: Conversation, plan: str) -> str:
        llm = self.get_llm()
        while True:
            answer = await self.ask("Happy with the plan?")
            if answer.approved:
                break
            if len(convo.messages) > 11:
                convo.drop(3, 2)
            convo.user(answer.text)
            plan: str = await llm(convo)
            convo.assistant(plan)
        return plan


asyncio.run(Planner().refine(Conversation("You plan trips."), ""))
'''


def test_a_revision_loop_that_imports_no_llm_library_is_read_for_its_trim(tmp_path: Path) -> None:
    """The module talks to the model through objects it does not type; the trim of a conversation
    of the project's class, under a length test, is what makes it worth reading."""
    assert _the_finding(tmp_path, "planner.py", REFINE) == (("CTX301", 14, 17, "revisions-trimmed", "medium"), (
        "`convo.drop(3, 2)` (`Conversation.drop`, app/conversation.py line 15) removes 2 messages at index 3 "
        "whenever `len(convo.messages) > 11` in this loop, which adds what the user asks for "
        "(`convo.user(answer.text)`, line 15) and regenerates `plan` from the conversation (line 16), returned "
        "after the loop: once the loop has run a few times the user's earliest requests are among the messages "
        "removed, and the next `plan` can undo what they asked for. Trim the superseded answers instead, or "
        "restate every request in the last message."))


def test_a_revision_loop_that_returns_something_else_is_not_reported(tmp_path: Path) -> None:
    write_package(tmp_path, {"conversation.py": CONVERSATION,
                             "planner.py": REFINE.replace("        return plan\n", "        return convo\n")})
    assert _check(tmp_path, "app/planner.py") == []
