"""A model reached through the project's own classes: a client typed by a property of a mixin,
the message dicts small helpers (or the overrides of an abstract one) return, a compression step
off by default, and the answer of an abstract method its subclasses override to send."""

from __future__ import annotations

from tests.projects import check_json, write_package

LLM = '''\
from abc import abstractmethod

from openai import AsyncOpenAI


class BaseLLM:
    use_system_prompt: bool = True

    def _user_msg(self, msg, images=None):
        if images:
            return self._user_msg_with_images(msg, images)
        return {"role": "user", "content": msg}

    def _user_msg_with_images(self, msg, images):
        parts = [{"type": "text", "text": msg}] + [{"type": "image_url", "image_url": {"url": i}} for i in images]
        return {"role": "user", "content": parts}

    def _system_msg(self, msg):
        return {"role": "system", "content": msg}

    async def ask(self, msg: str, system: str = "Answer briefly.") -> str:
        message = [self._system_msg(system), self._user_msg(msg)]
        squeezed = self.squeeze(message)
        return await self._chat(squeezed)

    def squeeze(self, messages, budget=None):
        if budget is None:
            return messages
        return [{"role": m["role"], "content": m["content"][-budget:]} for m in messages]

    @abstractmethod
    async def _chat(self, messages):
        """Each provider sends the request its own way."""


class OpenAILLM(BaseLLM):
    def __init__(self):
        self.client = AsyncOpenAI()

    async def _chat(self, messages):
        reply = await self.client.chat.completions.create(model="gpt-4o", messages=messages, max_tokens=800)
        return reply.choices[0].message.content
'''

MIXIN = '''\
from typing import Optional

from app.llm import BaseLLM


class LLMMixin:
    private_llm: Optional[BaseLLM] = None

    @property
    def llm(self) -> BaseLLM:
        return self.private_llm
'''

ACTION = '''\
import requests

from app.mixin import LLMMixin


class Summarise(LLMMixin):
    async def run(self, url: str) -> str:
        page = requests.get(url, timeout=10).text
        first = await self.llm.ask(page)
        return await self.llm.ask(f"Shorten this summary: {first}")
'''


def test_a_client_typed_by_a_mixins_property_sends_what_its_helpers_shape(tmp_path):
    """`self.llm` is the `BaseLLM` a mixin's property is annotated with; `ask` puts its text in the
    dict `_user_msg` returns and hands the list, through a compression step that gives it back
    unchanged by default, to `_chat`, which each subclass overrides to send. The page is the user
    message of a request made at the call; the first answer, which the next prompt quotes, is the
    model's and carries neither the page nor the compression's cut."""
    write_package(tmp_path, {"llm.py": LLM, "mixin.py": MIXIN, "summarise.py": ACTION})
    found = check_json(tmp_path, "app/summarise.py", "CTX401,CTX205")
    assert [(f["code"], f["line"], f["column"]) for f in found] == [("CTX401", 9, 36)]
    assert found[0]["message"].startswith("`page` carries untrusted content (requests.get(...).text, line 8) "
                                          "with no trust label")


VANNA_BASE = '''\
import sqlite3
from abc import ABC, abstractmethod


class SqlAssistant(ABC):
    @abstractmethod
    def system_message(self, message: str):
        pass

    @abstractmethod
    def user_message(self, message: str):
        pass

    @abstractmethod
    def submit_prompt(self, prompt, **kwargs) -> str:
        pass

    def summarise(self, question: str, sql: str) -> str:
        rows = sqlite3.connect("shop.db").execute(sql).fetchall()
        message_log = [
            self.system_message(f"You explain query results. The rows are: {rows}"),
            self.user_message(f"Answer {question} from them."),
        ]
        return self.submit_prompt(message_log)
'''

OPENAI_CHAT = '''\
from openai import OpenAI

from app.base import SqlAssistant


class OpenAIChat(SqlAssistant):
    def __init__(self):
        self.client = OpenAI()

    def system_message(self, message: str):
        return {"role": "{role}", "content": message}

    def user_message(self, message: str):
        return {"role": "user", "content": message}

    def submit_prompt(self, prompt, **kwargs) -> str:
        reply = self.client.chat.completions.create(model="gpt-4o", messages=prompt, max_tokens=500)
        return reply.choices[0].message.content
'''

TEXT_CHAT = '''\
from app.base import SqlAssistant


class TextChat(SqlAssistant):
    def system_message(self, message: str):
        return message

    def user_message(self, message: str):
        return message

    def submit_prompt(self, prompt, **kwargs) -> str:
        return "\\n".join(prompt)
'''


def _assistant(root, role: str) -> None:
    write_package(root, {"base.py": VANNA_BASE, "openai_chat.py": OPENAI_CHAT.replace("{role}", role),
                         "text_chat.py": TEXT_CHAT})


def test_the_role_an_abstract_helpers_overrides_state_is_the_messages_role(tmp_path):
    """`system_message` is abstract; the override that builds a dict says the system role (one
    that hands back the bare text says none), so the query's rows are in the system message of
    the request `submit_prompt`'s sending override makes."""
    _assistant(tmp_path, "system")
    found = check_json(tmp_path, "app/base.py", "CTX402")
    assert [(f["code"], f["line"], f["column"]) for f in found] == [("CTX402", 21, 76)]
    assert found[0]["message"].startswith("`rows` looks like third-party content (database rows")


def test_a_helper_whose_override_states_the_user_role_makes_no_system_message(tmp_path):
    """An override that puts the text in a user message leaves the rows out of the system role."""
    _assistant(tmp_path, "user")
    assert check_json(tmp_path, "app/base.py", "CTX402") == []


NOTES = '''\
import logging
from abc import ABC, abstractmethod

import requests

logger = logging.getLogger(__name__)


class Notes(ABC):
    def _entry(self, text):
        return {"role": "system", "content": text}

    @abstractmethod
    def describe(self, text: str) -> str:
        pass

    def record(self, url: str) -> str:
        page = requests.get(url, timeout=10).text
        logger.info("fetched", extra=self._entry(page))
        return self.describe(page)


class Plain(Notes):
    def describe(self, text: str) -> str:
        return f"{len(text)} characters"
'''


def test_a_role_shaped_log_entry_and_an_override_that_sends_nothing_are_no_request(tmp_path):
    """A dict of the system role made only for a log record, and an abstract method whose one
    override formats text, send nothing: no finding."""
    write_package(tmp_path, {"notes.py": NOTES})
    assert check_json(tmp_path, "app/notes.py", "CTX401,CTX402") == []

