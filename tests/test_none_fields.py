"""A request whose limit is a field of the project's own class, None by default (CTX201's
field-none-by-default): reported only while no code of the project may give the field a value,
and with each default as an evidence place."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.projects import check_json, write_package

SCHEMA = '''\
from pydantic import BaseModel, Field


class Query(BaseModel):
    text: str
    max_tokens: int | None = Field(default=None, gt=0)
'''

PROVIDER = '''\
from anthropic import Anthropic

from app.schema import Query

client = Anthropic()


def run(query: Query) -> str:
    options = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": query.text}]}
    if query.max_tokens:
        options["max_tokens"] = query.max_tokens
    return client.messages.create(**options).content[0].text
'''

ASK = '''\
from app.provider import run
from app.schema import Query


def ask(text: str) -> str:
    return run(Query(text=text))
'''


def _findings(tmp_path: Path, modules: dict[str, str], extra: dict[str, str] | None = None) -> list[dict]:
    write_package(tmp_path, {"schema.py": SCHEMA, "provider.py": PROVIDER, **modules})
    for name, text in (extra or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return [f for f in check_json(tmp_path, ".", "CTX201") if f["path"] == "app/provider.py"]


def test_built_without_the_field_is_reported_with_its_default(tmp_path: Path) -> None:
    found = _findings(tmp_path, {"ask.py": ASK})
    assert [(f["line"], f["kind"], f["confidence"]) for f in found] == [(12, "field-none-by-default", "medium")]
    places = [(e["path"], e["line"]) for e in found[0]["evidence"]]
    assert ("app/schema.py", 6) in places


@pytest.mark.parametrize("modules, extra", [
    # built only by a test: in the app, the object comes from somewhere else
    ({}, {"tests/test_ask.py": ASK}),
    # built from a spread, or loaded from data: any field may be given
    ({"ask.py": ASK.replace("Query(text=text)", "Query(**{'text': text})")}, None),
    ({"ask.py": ASK + "\n\ndef load(data: dict) -> str:\n    return run(Query.model_validate(data))\n"}, None),
    # given a value the caller chooses
    ({"ask.py": ASK.replace("def ask(text: str)", "def ask(text: str, limit: int = 300)")
      .replace("Query(text=text)", "Query(text=text, max_tokens=limit)")}, None),
    # written after it is built
    ({"ask.py": ASK.replace("    return run(Query(text=text))",
                            "    query = Query(text=text)\n    query.max_tokens = 400\n    return run(query)")}, None),
])
def test_a_field_the_project_may_fill_is_not_reported(tmp_path: Path, modules: dict[str, str],
                                                      extra: dict[str, str] | None) -> None:
    assert [f for f in _findings(tmp_path, modules, extra) if f["kind"] == "field-none-by-default"] == []


def test_a_field_a_validator_fills_is_not_reported(tmp_path: Path) -> None:
    validated = SCHEMA.replace("from pydantic import BaseModel, Field", "from pydantic import BaseModel, Field, "
                               "model_validator") + '''
    @model_validator(mode="before")
    @classmethod
    def bounded(cls, values: dict) -> dict:
        values.setdefault("max_tokens", 1024)
        return values
'''
    write_package(tmp_path, {"schema.py": validated, "provider.py": PROVIDER, "ask.py": ASK})
    assert [f for f in check_json(tmp_path, ".", "CTX201") if f["kind"] == "field-none-by-default"] == []


OWN_CLIENT = '''\
from openai import OpenAI
from pydantic import BaseModel, Field


class Writer(BaseModel):
    model: str = "gpt-4o"
    temperature: float | None = None
    max_tokens: int | None = Field(default=None)

    def settings(self, **overrides) -> dict:
        chosen = {"model": self.model, "temperature": self.temperature, "max_tokens": self.max_tokens}
        settings = {key: value for key, value in chosen.items() if value is not None}
        settings.update(overrides)
        return settings

    def write(self, prompt: str, **overrides) -> str:
        settings = self.settings(**overrides)
        reply = OpenAI().chat.completions.create(messages=[{"role": "user", "content": prompt}], **settings)
        return reply.choices[0].message.content
'''

USE_WRITER = '''\
from app.writer import Writer


def draft(topic: str) -> str:
    return Writer(model="gpt-4o-mini").write(f"Draft a note on {topic}.")
'''


def test_a_field_the_class_sends_under_its_own_key_through_a_filter_is_reported(tmp_path: Path) -> None:
    # the class names "max_tokens" only as the key its own field is sent under: that fills
    # nothing; the comprehension keeps every key whose value is set, and `update` adds only
    # what the callers pass, nothing by default
    write_package(tmp_path, {"writer.py": OWN_CLIENT, "use.py": USE_WRITER})
    found = [f for f in check_json(tmp_path, ".", "CTX201") if f["path"] == "app/writer.py"]
    assert [(f["line"], f["kind"], f["confidence"]) for f in found] == [(18, "kwargs-by-default", "medium")]
    assert [(e["line"], e["text"]) for e in found[0]["evidence"][1:]] == [
        (8, "`self.max_tokens` is `Writer.max_tokens`, None by default at app/writer.py line 8"),
        (13, "`**overrides` holds only the keywords a caller of `settings` passes, none by default")]


@pytest.mark.parametrize("old, new", [
    # a caller gives the limit through the overrides
    ('.write(f"Draft a note on {topic}.")', '.write(f"Draft a note on {topic}.", max_tokens=300)'),
    # the filter reads the key: which keys it drops is not known
    ("if value is not None}", "if key != 'model'}"),
    # the class fills the field under its name (a validator would)
    ("        return settings\n", "        return settings\n\n    def bounded(self, values: dict) -> dict:\n"
                                  "        values.setdefault(\"max_tokens\", 512)\n        return values\n"),
])
def test_a_filtered_field_the_project_may_fill_is_not_reported(tmp_path: Path, old: str, new: str) -> None:
    modules = {"writer.py": OWN_CLIENT.replace(old, new), "use.py": USE_WRITER.replace(old, new)}
    write_package(tmp_path, modules)
    assert [f for f in check_json(tmp_path, ".", "CTX201") if f["path"] == "app/writer.py"] == []
