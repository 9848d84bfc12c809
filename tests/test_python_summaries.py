"""Function summaries: prompts that reach the model through the project's own wrappers, in
other modules and behind abstract base classes, are checked as what is sent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from projects import write_files

BASE = '''\
class BaseLLM:
    """What every provider class offers."""

    def chat(self, messages: list[dict]) -> str:
        raise NotImplementedError
'''

PROVIDER = '''\
from openai import OpenAI

from app.llm.base import BaseLLM

SYSTEM = "You are the research assistant of the Northwind legal team. Quote the page exactly."


class OpenAIChat(BaseLLM):
    def __init__(self, model: str = "gpt-4o-mini"):
        self.client = OpenAI()
        self.model = model

    def chat(self, question: str, context: str, max_tokens: int | None = None) -> str:
        reply = self.client.chat.completions.create(
            model=self.model,
            max_tokens=max_tokens,
            messages=[{"role": "system", "content": SYSTEM},
                      {"role": "user", "content": f"{question}\\n\\nThe page:\\n{context}\\nQuote it exactly."}],
        )
        return reply.choices[0].message.content
'''

AGENT = '''\
import requests

from app.llm.base import BaseLLM


class Researcher:
    def __init__(self, llm: BaseLLM):
        self.llm = llm

    def answer(self, url: str, question: str) -> str:
        page = requests.get(url, timeout=10).text
        return self.llm.chat(question, context=page)
'''


# The command lines that run the projects below (a function nothing calls is low confidence).
MAIN = '''\
import sys

from app.llm.openai_chat import OpenAIChat
from app.research import Researcher

print(Researcher(OpenAIChat()).answer(sys.argv[1], sys.argv[2]))
'''


def _project(tmp_path: Path) -> Path:
    return write_files(tmp_path, {"app/__init__.py": "", "app/llm/__init__.py": "", "app/llm/base.py": BASE,
                             "app/llm/openai_chat.py": PROVIDER, "app/research.py": AGENT, "app/__main__.py": MAIN})


def _check(root: Path, *paths: str) -> tuple[int, list[dict]]:
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          *paths], capture_output=True, text=True, cwd=root)
    assert run.returncode in (0, 1), run.stderr
    return run.returncode, json.loads(run.stdout)


def test_a_call_through_an_abstract_base_class_sends_what_the_caller_gives(tmp_path):
    """`self.llm.chat(...)` reaches `BaseLLM.chat`, which only raises; the subclass that
    overrides it sends the request: the page the caller fetched goes into its user message, and
    the limit it takes from its caller is not given."""
    code, found = _check(_project(tmp_path), "app/research.py")
    assert code == 1
    assert [(f["code"], f["line"], f["column"], f["kind"]) for f in found] == [
        ("CTX201", 12, 16, "wrapper-call"), ("CTX401", 12, 48, "source")]
    limit, page = found
    assert limit["message"].startswith("`chat` takes its limit from `max_tokens`, which this call leaves unset")
    assert ("app/llm/openai_chat.py", 14) in {(step["path"], step["line"]) for step in limit["evidence"]}
    assert page["message"].startswith("`page` carries untrusted content (requests.get(...).text, line 11)")


def test_the_wrapper_alone_is_judged_by_its_own_evidence(tmp_path):
    """Read on its own, the provider sends what it is given, with a limit its caller chooses:
    no limit finding there, and its `context` parameter is only named and introduced as a page."""
    code, found = _check(_project(tmp_path), "app/llm/openai_chat.py", "app/llm/base.py")
    assert [(f["code"], f["line"], f["kind"]) for f in found] == [("CTX401", 18, "name-and-words")]


def test_a_caller_that_passes_the_limit_is_fine(tmp_path):
    root = _project(tmp_path)
    agent = root / "app/research.py"
    agent.write_text(agent.read_text().replace("context=page)", "context=page, max_tokens=400)"), encoding="utf-8")
    code, found = _check(root, "app/research.py")
    assert [f["code"] for f in found] == ["CTX401"]


def test_one_file_reads_a_bounded_number_of_other_modules(tmp_path):
    """A module that calls functions of 60 other modules reads at most as many as are kept
    (reading more would push out ones it still needs, and read them again and again), and says
    so in a notice instead of taking minutes."""
    from ctxlint.frontends.python.project import MAX_MODULES

    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    for i in range(60):
        (tmp_path / "app" / f"step_{i}.py").write_text(f"def run_{i}(text):\n    return text.upper()\n")
    main = "from openai import OpenAI\n\n" + "".join(f"from app.step_{i} import run_{i}\n" for i in range(60))
    main += "\nclient = OpenAI()\n\n\ndef pipeline(text):\n" + "".join(f"    text = run_{i}(text)\n" for i in range(60))
    main += ('    return client.chat.completions.create(model="gpt-4o", max_tokens=100,\n'
             '                                          messages=[{"role": "user", "content": text}])\n')
    (tmp_path / "app" / "main.py").write_text(main)
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "app/main.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert f"stopped reading other modules of the project after {MAX_MODULES}" in run.stderr



def test_modules_are_kept_past_one_files_reads_while_their_text_is_small(tmp_path, monkeypatch):
    """The modules read for one file stay for the next: at least the last MAX_MODULES used, and
    more while their text stays under MAX_KEPT_CHARS (a file's reads no longer push out what the
    next file needs, to be read again); past that bound, the least recently used go first."""
    from types import SimpleNamespace

    from ctxlint.frontends.python import project as projects

    monkeypatch.setattr(projects, "MAX_KEPT_CHARS", 1000)
    loads: list[str] = []
    closed: list[str] = []

    def load(project, path):
        loads.append(path.stem)
        text = "x" * (100 if path.stem.startswith("big") else 10)
        return SimpleNamespace(unit=SimpleNamespace(text=text, forget=lambda: None, modules_held=lambda: []),
                               close=lambda: closed.append(path.stem))

    project = projects.Project(tmp_path, None, load)
    for i in range(100):
        if i % 40 == 0:  # a new linted file, under its own bound on reads
            project.begin()
        project.analyzer(tmp_path / f"small_{i}.py")
    assert len(project.modules) == 100  # 1,000 characters: all kept, more than MAX_MODULES
    project.analyzer(tmp_path / "small_0.py")  # used again: kept, not read again
    project.analyzer(tmp_path / "small_100.py")  # 1,010 characters: the least recently used goes
    assert loads.count("small_0") == 1
    assert (tmp_path / "small_1.py") not in project.modules and (tmp_path / "small_0.py") in project.modules

    project.begin()
    for i in range(projects.MAX_MODULES):
        project.analyzer(tmp_path / f"big_{i}.py")
    # Over the size bound, the last MAX_MODULES used stay: one file never loses what it read.
    assert list(project.modules) == [tmp_path / f"big_{i}.py" for i in range(projects.MAX_MODULES)]
    # The modules pushed out are closed when the next file begins, not while one is being linted.
    assert closed == ["small_1"]
    project.begin()
    assert sorted(closed) == sorted(["small_1", "small_0", *(f"small_{i}" for i in range(2, 101))])

ROLE_PROMPTS = '''\
SYSTEM_PROMPT = """{role_info}
You are the release assistant of the Northwind platform team. Answer questions about the release
train, the freeze calendar and the rollback runbook. Cite the runbook section for every step you
give, never promise a date the calendar does not show, and hand security questions to the
security rota. Keep answers under ten lines and use the team's own names for services.
Write dates as they appear in the calendar, spell out abbreviations the first time you use them,
keep lists to five items, and never guess at a date or a version the records do not show: say so
plainly instead. When a request falls outside these rules, say which rule stops you and offer the
nearest thing you can do, and close by asking whether anything else needs attention today.
"""
'''

ROLE = '''\
from datetime import datetime

from openai import OpenAI

from app.prompts import SYSTEM_PROMPT


class ReleaseRole:
    def __init__(self, name: str):
        self.name = name
        self.client = OpenAI()

    def prefix(self) -> str:
        return f"You are {self.name}. The current time is {datetime.now():%Y-%m-%d %H:%M:%S}."

    def ask(self, question: str) -> str:
        reply = self.client.chat.completions.create(
            model="gpt-4o-mini",
            max_tokens=400,
            messages=[{"role": "system", "content": SYSTEM_PROMPT.format(role_info=self.prefix())},
                      {"role": "user", "content": question}],
        )
        return reply.choices[0].message.content
'''


def test_a_clock_read_in_a_helper_is_named_where_it_is_called(project):
    project.preview = False
    project.write({"app/__init__.py": "", "app/prompts.py": ROLE_PROMPTS, "app/role.py": ROLE})
    run = project.run("check", "--output-format", "json", "app")
    clocks = [f for f in json.loads(run.stdout) if f["code"] == "CTX101"]
    assert [(f["path"], f["line"], f["kind"]) for f in clocks] == [("app/prompts.py", 1, "format-site-call")]
    steps = [(e["text"], e["path"], e["line"]) for e in clocks[0]["evidence"] if e["kind"] == "flow"]
    assert ("`datetime.datetime.now()` is called here", "app/role.py", 14) in steps


RUN_ID_PROMPT = '''\
import time

INSTRUCTIONS = """
You are the release assistant. Save every artefact under "runs/{run_id}".
Check the changelog before you tag a release, and never push to main.
""".format(
    run_id=int(time.time()),
)
'''


def test_a_clock_wrapped_in_int_at_module_load_is_named_where_it_is_read(project):
    project.preview = False
    project.write({"app/__init__.py": "", "app/prompts.py": RUN_ID_PROMPT})
    run = project.run("check", "--output-format", "json", "--confidence", "low", "app")
    clocks = [f for f in json.loads(run.stdout) if f["code"] == "CTX101"]
    assert [(f["path"], f["line"], f["kind"]) for f in clocks] == [("app/prompts.py", 4, "once-per-process")]
    steps = [(e["text"], e["path"], e["line"]) for e in clocks[0]["evidence"] if e["kind"] == "flow"]
    assert steps == [("`time.time()` is called here", "app/prompts.py", 7)]


FACTORY = '''from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings


def build(vendor: str, name: str) -> Model:
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.models.openai import OpenAIChatModel

    if vendor == "anthropic":
        return AnthropicModel(name, settings=ModelSettings(max_tokens=8000))
    if vendor == "google":
        return GoogleModel(name)
    return OpenAIChatModel(name)
'''

SUMMARY = '''from pydantic_ai.models import Model, ModelRequestParameters


async def summarize(messages, *, model: Model):
    reply = await model.request(messages, model_settings=None, model_request_parameters=ModelRequestParameters())
    return reply.parts
'''

ROUTE = '''from app.factory import build
from app.summary import summarize


async def compact(session):
    model = build(session.vendor, session.model)
    return await summarize(session.messages, model=model)
'''


def test_a_model_request_names_each_place_a_model_it_is_given_is_built_without_settings(tmp_path):
    """`model.request(..., model_settings=None)` sends only the model's own settings: the model
    is followed from the call of `summarize` back into the factory of another module, where two
    of its three branches build one with none (the Anthropic branch sets a limit)."""
    write_files(tmp_path, {"app/__init__.py": "", "app/factory.py": FACTORY, "app/summary.py": SUMMARY,
                       "app/routes.py": ROUTE})
    # unset-model is low: the corpus measured it at 0 of 2 right (a project that leaves the limit
    # unset on purpose, for answers that are tool calls).
    code, found = _check(tmp_path, "--confidence", "low", "app/summary.py")
    assert [(f["code"], f["line"], f["column"], f["kind"], f["confidence"]) for f in found] == [
        ("CTX201", 5, 19, "unset-model", "low")]
    assert found[0]["message"].startswith(
        "`model_settings=None` sends only the settings `model` was built with, and 2 place(s) that build the "
        "models the project passes as `model` give none, so")
    assert [(step["path"], step["line"]) for step in found[0]["evidence"] if step["path"] == "app/factory.py"] == [
        ("app/factory.py", 13), ("app/factory.py", 14)]
    (tmp_path / "app/routes.py").unlink()
    assert _check(tmp_path, "--confidence", "low", "app/summary.py") == (0, [])


NAMED_BASE = '''\
from abc import ABC, abstractmethod


class ChatModel(ABC):
    def generate(self, model, messages, **kwargs):
        return self._run("_send", model=model, messages=messages, **kwargs)

    def _run(self, method_name, *args, **kwargs):
        method = getattr(self, method_name)
        return method(*args, **kwargs)

    @abstractmethod
    def _send(self, model, messages, **kwargs):
        ...
'''

NAMED_PROVIDER = '''\
from openai import OpenAI

from app.llm.base import ChatModel


class OpenAIModel(ChatModel):
    def __init__(self) -> None:
        self.client = OpenAI()

    def _send(self, model, messages, **kwargs):
        reply = self.client.chat.completions.create(model=model, messages=messages, **kwargs)
        return reply.choices[0].message.content
'''

NAMED_CALLERS = '''\
from app.llm.base import ChatModel


def summarise(model: ChatModel, ticket: str) -> str:
    messages = [{"role": "user", "content": f"Summarise this support ticket:\\n{ticket}"}]
    return model.generate(model="gpt-4o", messages=messages)


def label(model: ChatModel, ticket: str) -> str:
    messages = [{"role": "user", "content": f"One word for the topic of:\\n{ticket}"}]
    return model.generate(model="gpt-4o", messages=messages, max_tokens=5)
'''


NAMED_MAIN = '''\
import sys

from app import tickets
from app.llm.openai_model import OpenAIModel

for name in ("summarise", "label"):
    print(getattr(tickets, name, print)(OpenAIModel(), sys.stdin.read()))
'''


def _named_project(tmp_path: Path, callers: str) -> Path:
    return write_files(tmp_path, {"app/__init__.py": "", "app/llm/__init__.py": "", "app/llm/base.py": NAMED_BASE,
                             "app/llm/openai_model.py": NAMED_PROVIDER, "app/tickets.py": callers,
                             "app/__main__.py": NAMED_MAIN})


def test_a_method_named_by_a_string_is_followed_to_the_override_that_sends(tmp_path):
    """`generate` runs `_send` through `getattr(self, "_send")`; the override passes the caller's
    `**kwargs` on as the only way to a limit. One caller gives a limit, so the other, which gives
    none, is the finding, and its evidence names the module that sends the request."""
    code, found = _check(_named_project(tmp_path, NAMED_CALLERS), "--select", "CTX201", "app")
    assert code == 1
    assert [(f["code"], f["path"], f["line"], f["column"], f["kind"], f["confidence"]) for f in found] == [
        ("CTX201", "app/tickets.py", 6, 12, "kwargs-unset", "medium")]
    assert found[0]["message"].startswith(
        "`generate` passes its `**kwargs` on to the call, and this call gives no limit in it, so the answer may")
    assert ("app/llm/openai_model.py", 11) in {(step["path"], step["line"]) for step in found[0]["evidence"]}


def test_kwargs_no_caller_fills_are_reported_once_where_they_are_sent(tmp_path):
    """With no caller that gives a limit, the override's request has none by default: reported
    there (kwargs-by-default), not again at each call."""
    callers = NAMED_CALLERS.split("\n\ndef label")[0] + "\n"
    code, found = _check(_named_project(tmp_path, callers), "--select", "CTX201", "app")
    assert [(f["code"], f["path"], f["line"], f["kind"]) for f in found] == [
        ("CTX201", "app/llm/openai_model.py", 11, "kwargs-by-default")]


def test_a_model_sent_through_a_wrapper_names_the_place_it_is_sent_once(tmp_path: Path) -> None:
    (tmp_path / "sent.py").write_text(
        'from langchain_openai import ChatOpenAI\n\nllm = ChatOpenAI(model="gpt-4o")\n\n\n'
        'def ask(prompt, **kw):\n    return llm.invoke(prompt, **kw)\n\n\nask("hello")\n', encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", "CTX201", "sent.py"], capture_output=True, text=True, cwd=tmp_path)
    [found] = json.loads(run.stdout)
    sent = [(e["line"], e["column"]) for e in found["evidence"] if e["text"] == "a request is sent with it"]
    assert sent == [(7, 12)]


def test_a_files_findings_do_not_depend_on_what_was_linted_before_it(tmp_path):
    """A summary worked out for one file's calls, fewer wrappers deep than another file asks for,
    is not the answer that other file gets: linted after it or alone, a file reports the same."""
    root = write_files(tmp_path, {
        "app/__init__.py": "",
        "app/s0.py": ("from openai import OpenAI\n\nclient = OpenAI()\n\n\ndef s0(text):\n"
                      "    reply = client.chat.completions.create(model=\"gpt-4o-mini\", max_tokens=300,\n"
                      "                                           messages=[{\"role\": \"user\", \"content\": text}])\n"
                      "    return reply.choices[0].message.content\n"),
        "app/s1.py": "from app.s0 import s0\n\n\ndef s1(text):\n    return s0(text)\n",
        "app/s2.py": "from app.s1 import s1\n\n\ndef s2(text):\n    return s1(text)\n",
        "app/s3.py": "from app.s2 import s2\n\n\ndef s3(text):\n    return s2(text)\n",
        # linted first: asks for s3, three wrappers deep, too deep to send anything
        "app/a_deep.py": ("import requests\n\nfrom app.s3 import s3\n\n\ndef brief_prompt(url):\n"
                          "    page = requests.get(url, timeout=10).text\n    return s3(f\"Summarise:\\n{page}\")\n"
                          "\n\nbrief_prompt(\"https://example.com\")\n"),
        # linted next: asks for s2, which sends its text two wrappers down
        "app/b_near.py": ("import requests\n\nfrom app.s2 import s2\n\n\ndef brief_prompt(url):\n"
                          "    page = requests.get(url, timeout=10).text\n    return s2(f\"Summarise:\\n{page}\")\n"
                          "\n\nbrief_prompt(\"https://example.com\")\n"),
    })
    _, alone = _check(root, "app/b_near.py")
    _, together = _check(root, "app")
    assert [(f["code"], f["line"]) for f in alone] == [("CTX401", 8)]
    assert [(f["code"], f["line"]) for f in together if f["path"] == "app/b_near.py"] == [("CTX401", 8)]


# A helper module that every other module takes whole (`from app.llm import *`).
STARRED = '''\
from openai import OpenAI

client = OpenAI()


def ask(prompt: str, system: str) -> str:
    reply = client.chat.completions.create(model="gpt-4o", max_tokens=600, messages=[
        {"role": "system", "content": system}, {"role": "user", "content": prompt}])
    return reply.choices[0].message.content


class Critic:
    def critique(self, draft: str) -> str:
        first = ask(f"Review this draft:\\n<draft>{draft}</draft>", "You are a strict critic.")
        second = ask(f"Review this draft:\\n<draft>{draft}</draft>", "You are a kind critic.")
        return f"Critic 1:\\n{first}\\nCritic 2:\\n{second}"
'''

STARRING = '''\
import requests

from app.llm import *


class Lab:
    def __init__(self):
        self.critics = Critic()

    def decide(self, draft: str) -> str:
        reviews = self.critics.critique(draft)
        return ask("Answer y to revise the draft, n to stop.", f"Here are the reviews of the draft: {reviews}")

    def summarise(self, url: str) -> str:
        page = requests.get(url, timeout=10).text
        return ask(f"Summarise this page: {page}", "You summarise web pages.")


print(Lab().decide(input()), Lab().summarise(input()))
'''


def test_a_star_import_of_a_module_of_the_project_binds_its_names(tmp_path):
    """`from app.llm import *` binds `ask` and `Critic`: the wrapper's request is the caller's,
    with the page it fetched in the user message; the reviews the critic class gives back are the
    answers of the requests it sends (its summary says so), not third-party content, whatever
    their name says."""
    root = write_files(tmp_path, {"app/__init__.py": "", "app/llm.py": STARRED, "app/lab.py": STARRING})
    code, found = _check(root, "app/lab.py")
    assert code == 1
    assert [(f["code"], f["line"], f["column"], f["kind"]) for f in found] == [("CTX401", 16, 43, "source")]
    assert found[0]["message"].startswith("`page` carries untrusted content (requests.get(...).text, line 15)")


def test_a_name_the_module_binds_itself_is_not_the_star_imported_one(tmp_path):
    """A module's own `ask` (a local stub that sends nothing) hides the one the star import
    gives, as Python binds it: the page goes to no request."""
    own = STARRING.replace("class Lab:", "def ask(prompt, system):\n    return prompt\n\n\nclass Lab:")
    root = write_files(tmp_path, {"app/__init__.py": "", "app/llm.py": STARRED, "app/lab.py": own})
    code, found = _check(root, "app/lab.py")
    assert (code, found) == (0, [])
