"""A project's own LLM layer, in another distribution of a monorepo: a client class whose
request is made by functions a maker returns and middleware wraps, reached from modules that
import no LLM library, through an interface annotated by a forward reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.projects import check_json

BASE = '''\
from abc import ABC, abstractmethod
from typing import Any


class Completion(ABC):
    @abstractmethod
    async def complete_async(self, /, **kwargs: Any) -> Any:
        """Send one chat request."""
'''

SETTINGS = '''\
from typing import Any

from pydantic import BaseModel, Field


class ModelSettings(BaseModel):
    model: str = "gpt-4.1-mini"
    call_args: dict[str, Any] = Field(default_factory=dict)
'''

CLIENT = '''\
from typing import TYPE_CHECKING, Any

import litellm

from llmcore.base import Completion

if TYPE_CHECKING:
    from llmcore.settings import ModelSettings


def _make_senders(settings: "ModelSettings"):
    base_args = {"model": settings.model, **settings.call_args}

    async def _send_async(**kwargs: Any):
        new_args = {**base_args, **kwargs}
        if kwargs.get("json_mode"):
            new_args["response_format"] = {"type": "json_object"}
        return await litellm.acompletion(**new_args)

    def _send(**kwargs: Any):
        return litellm.completion(**base_args, **kwargs)

    return _send, _send_async


def with_retries(send, send_async):
    return send, send_async


class LiteCompletion(Completion):
    def __init__(self, settings: "ModelSettings"):
        self._send, self._send_async = _make_senders(settings)
        self._send, self._send_async = with_retries(self._send, self._send_async)

    async def complete_async(self, /, **kwargs: Any) -> Any:
        messages = kwargs.pop("messages")
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        return await self._send_async(messages=messages, **kwargs)
'''

EXTRACTOR = '''\
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llmcore.base import Completion

EXTRACT = "List every organisation named in the text below, one per line.\\n\\nText: {text}\\n"


class Extractor:
    _model: "Completion"

    def __init__(self, model: "Completion"):
        self._model = model

    async def run(self, text: str) -> str:
        response = await self._model.complete_async(messages=EXTRACT.format(text=text))
        return response.content


async def language(model: "Completion", text: str) -> str:
    response = await model.complete_async(messages="Name the language of this text: " + text, max_tokens=5)
    return response.content
'''


EXTRACT_MAIN = '''\
import asyncio
import sys

from app.extract import Extractor
from llmcore.lite import LiteCompletion
from llmcore.settings import ModelSettings

print(asyncio.run(Extractor(LiteCompletion(ModelSettings())).run(sys.stdin.read())))
'''


def _monorepo(root: Path, settings: str = SETTINGS, client: str = CLIENT) -> Path:
    files = {
        "packages/llm-core/llmcore/__init__.py": "",
        "packages/llm-core/llmcore/base.py": BASE,
        "packages/llm-core/llmcore/settings.py": settings,
        "packages/llm-core/llmcore/lite.py": client,
        "packages/app/app/__init__.py": "",
        "packages/app/app/extract.py": EXTRACTOR,
        "packages/app/app/__main__.py": EXTRACT_MAIN,  # (MAIN below is the search app's)
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(("client", "kind", "confidence", "ending"), [
    (CLIENT.replace(", **settings.call_args}", "}"), "kwargs-unset", "medium", "gives no limit in it, so"),
    (CLIENT, "settings-unset", "medium", "gives no limit in it, nor do the settings by default (`**settings.call_args` "
                                      "holds only what is passed as `call_args`, empty by default)"),
])
def test_a_call_through_the_projects_own_client_package_is_a_request_without_a_limit(tmp_path, client, kind,
                                                                                       confidence, ending):
    """`self._model` is a `Completion` (a string annotation, imported only for type checking,
    from another distribution of the monorepo); its subclass hands the call to a function its
    maker returned, which spreads the caller's keywords into LiteLLM. The call that gives no
    limit is reported where it is made, naming the function that sends; the one that passes
    `max_tokens=` is not. Where the client also spreads a settings field the user configures,
    empty by default, the request runs with no limit unless the user configures one: its own kind."""
    root = _monorepo(tmp_path, client=client)
    found = check_json(root, "packages/app/app/extract.py", "CTX201")
    assert [(f["line"], f["column"], f["kind"], f["confidence"]) for f in found] == [(16, 26, kind, confidence)]
    assert found[0]["message"].startswith(
        f"`complete_async` passes its `**kwargs` on to the call, and this call {ending}")
    sent = [step for step in found[0]["evidence"] if step["text"].startswith("sent by")]
    assert [(s["text"], s["path"], s["line"]) for s in sent] == [(
        "sent by `complete_async` through `_send_async` (packages/llm-core/llmcore/lite.py, line 18)",
        "packages/llm-core/llmcore/lite.py", 18)]


def test_settings_that_hold_a_limit_by_default_leave_the_calls_alone(tmp_path):
    """With `call_args` defaulting to a limit, the client may send one whatever its callers give."""
    settings = SETTINGS.replace("Field(default_factory=dict)", 'Field(default_factory=lambda: {"max_tokens": 800})')
    root = _monorepo(tmp_path, settings)
    assert check_json(root, "packages/app/app/extract.py", "CTX201") == []


def test_a_module_that_imports_no_llm_layer_is_not_read_as_one(tmp_path):
    """A module calling a method of the same name on an object of a project folder that talks to
    no model (a queue client) gets no finding: the folder it imports holds no LLM library."""
    root = _monorepo(tmp_path)
    (root / "packages/app/app/queue.py").write_text(
        "class Queue:\n    async def complete_async(self, **kwargs):\n        return kwargs\n", encoding="utf-8")
    (root / "packages/app/app/jobs.py").write_text(
        "from app.queue import Queue\n\nPROMPT_ID = 'job'\n\n\nasync def finish(queue: Queue, text: str):\n"
        "    return await queue.complete_async(messages=text)\n", encoding="utf-8")
    assert check_json(root, "packages/app/app/jobs.py", "CTX201") == []


BUILDER = '''\
class MessagesBuilder:
    def __init__(self) -> None:
        self._messages: list = []

    def add_system_message(self, content: str) -> "MessagesBuilder":
        self._messages.append({"role": "system", "content": content})
        return self

    def add_user_message(self, content: str, name: str | None = None) -> "MessagesBuilder":
        self._messages.append(UserParam(role="user", content=content))
        return self

    def build(self) -> list:
        return self._messages
'''

SEARCH = '''\
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from llmcore.messages import MessagesBuilder

if TYPE_CHECKING:
    from llmcore.base import Completion

T = TypeVar("T")

SEARCH_PROMPT = """You answer questions from the passages below, citing each passage you use.

Passages:
{context_chunks}
"""


class BaseSearch(Generic[T]):
    def __init__(self, model: "Completion", model_params: dict[str, Any] | None = None):
        self.model = model
        self.model_params = model_params or {}


class LocalSearch(BaseSearch[str]):
    def __init__(self, model: "Completion", system_prompt: str | None = None,
                 model_params: dict[str, Any] | None = None):
        super().__init__(model=model, model_params=model_params)
        self.system_prompt = system_prompt or SEARCH_PROMPT

    async def search(self, query: str, retrieved_chunks: str) -> str:
        prompt = self.system_prompt.format(context_chunks=retrieved_chunks)
        builder = MessagesBuilder().add_system_message(prompt).add_user_message(query)
        response = await self.model.complete_async(messages=builder.build(), **self.model_params)
        return response.content
'''


# The app's entry point: a class nothing names is never made, and findings in it are low.
MAIN = """\
import asyncio

from app.search import LocalSearch
from llmcore.base import Completion

print(asyncio.run(LocalSearch(Completion()).search(input(), open("chunks.txt").read())))
"""


def test_a_message_builder_and_a_shipped_prompt_are_read_as_what_is_sent(tmp_path):
    """The messages come from the project's builder (each chained call adds one of a fixed role),
    the system text is the prompt shipped as the default of `system_prompt`, and the model and its
    empty-by-default settings are set by a generic base class: the retrieved passages are found in
    the system role, and the call, spreading settings that hold no limit, in want of one."""
    root = _monorepo(tmp_path)
    (root / "packages/llm-core/llmcore/messages.py").write_text(BUILDER, encoding="utf-8")
    (root / "packages/app/app/search.py").write_text(SEARCH, encoding="utf-8")
    (root / "packages/app/app/main.py").write_text(MAIN, encoding="utf-8")
    found = check_json(root, "packages/app/app/search.py", "CTX201,CTX402")
    assert [(f["code"], f["line"], f["column"], f["kind"]) for f in found] == [
        ("CTX402", 13, 1, "name-and-words"), ("CTX201", 32, 26, "settings-unset")]
    assert found[0]["message"].startswith('`context_chunks` looks like third-party content (retrieved_chunks, '
                                          'introduced as "passages") in the system role')
    assert found[0]["confidence"] != "low"


def test_passages_in_the_user_message_and_a_limit_given_are_clean(tmp_path):
    """The same request with the passages added as the user's message under the shipped
    instructions, and a limit passed: nothing to report."""
    root = _monorepo(tmp_path)
    (root / "packages/llm-core/llmcore/messages.py").write_text(BUILDER, encoding="utf-8")
    search = SEARCH.replace("Passages:\n{context_chunks}\n", "Answer in two sentences.\n").replace(
        "prompt = self.system_prompt.format(context_chunks=retrieved_chunks)", "prompt = self.system_prompt").replace(
        ".add_user_message(query)", '.add_user_message(f"<passages>{retrieved_chunks}</passages>\\n{query}")').replace(
        "**self.model_params)", "max_tokens=600)")
    (root / "packages/app/app/search.py").write_text(search, encoding="utf-8")
    assert check_json(root, "packages/app/app/search.py", "CTX201,CTX402") == []


# The search in the shape of a map step: its settings fall back on an empty dict by a conditional
# and get a key that is no limit, and a helper hands them on, its `max_length` only a length the
# prompt asks for in words.
MAP_SEARCH = SEARCH.replace(
    "self.model_params = model_params or {}",
    'self.model_params = model_params if model_params else {}\n        self.model_params["json_mode"] = True').replace(
    """        response = await self.model.complete_async(messages=builder.build(), **self.model_params)
        return response.content""",
    """        return await self._answer(builder.build(), max_length=300, **self.model_params)

    async def _answer(self, messages: list, max_length: int, **llm_kwargs) -> str:
        messages[0]["content"] += "Answer in at most {max_length} words.".format(max_length=max_length)
        response = await self.model.complete_async(messages=messages, **llm_kwargs)
        return response.content""")

FACTORY = """\
from app.search import LocalSearch
from llmcore.lite import LiteCompletion
from llmcore.settings import ModelSettings


def local_search(settings: ModelSettings) -> LocalSearch:
    return LocalSearch(LiteCompletion(settings), model_params={**settings.call_args})
"""


def _search_project(root: Path, search: str, factory: bool) -> Path:
    _monorepo(root)
    (root / "packages/llm-core/llmcore/messages.py").write_text(BUILDER, encoding="utf-8")
    (root / "packages/app/app/search.py").write_text(search, encoding="utf-8")
    if factory:
        (root / "packages/app/app/factory.py").write_text(FACTORY, encoding="utf-8")
    else:  # an entry point that builds no search
        (root / "packages/app/app/__main__.py").write_text("from app import search\n\nprint(search.SEARCH_PROMPT)\n",
                                                           encoding="utf-8")
    return root


def test_settings_handed_on_by_a_helper_are_followed_to_the_request(tmp_path):
    """The search's settings (`x if x else {}`, with a key that is no limit set after) go through a
    helper that names `max_length` only to fill its prompt's text: the helper's call gives no limit,
    and the finding names the request the helper hands them on to."""
    root = _search_project(tmp_path, MAP_SEARCH, factory=True)
    found = check_json(root, "packages/app/app/search.py", "CTX201")
    assert [(f["line"], f["column"], f["kind"], f["confidence"]) for f in found] == [
        (33, 22, "settings-unset", "medium")]
    assert found[0]["message"].startswith("`_answer` passes its `**llm_kwargs` on to the call, and this call gives "
                                          "no limit in it, nor do the settings by default")
    handed = [(s["text"], s["line"]) for s in found[0]["evidence"] if s["text"].endswith("on to `complete_async`")]
    assert handed == [("`_answer` passes its `**llm_kwargs` on to `complete_async`", 37)]


def test_settings_of_a_class_the_project_never_builds_are_its_users(tmp_path):
    """With no module of the project building the search (a library class its users construct with
    the settings they choose), what `**self.model_params` holds is theirs to say: not reported."""
    root = _search_project(tmp_path, SEARCH, factory=False)
    assert check_json(root, "packages/app/app/search.py", "CTX201") == []
    root = _search_project(tmp_path / "built", SEARCH, factory=True)
    assert [(f["line"], f["kind"]) for f in check_json(root, "packages/app/app/search.py", "CTX201")] == [
        (32, "settings-unset")]
