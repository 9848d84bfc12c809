"""A settings field named as an output limit that no code reads (unreadlimits.py), in the class
shapes the prefilter lets through to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import check_json, write_package

SUMMARIZE = '''\
from openai import OpenAI

from app.settings import DigestSettings

client = OpenAI()


def summarize(settings: DigestSettings, text: str) -> str:
    reply = client.chat.completions.create(model=settings.model, messages=[{"role": "user", "content": text}],
                                           max_completion_tokens=settings.summary_max_completion_tokens)
    return reply.choices[0].message.content or ""
'''

FIELDS = '''\
    model: str = "gpt-4.1-mini"
    summary_max_completion_tokens: int | None = None
    summary_max_tokens: int = 600
'''


@pytest.mark.parametrize("header", [
    "from pydantic import BaseModel\n\n\nclass Named:\n    pass\n\n\nclass DigestSettings(Named, BaseModel):\n",
    "import pydantic\n\n\n@pydantic.dataclasses.dataclass\nclass DigestSettings:\n",
])
def test_a_settings_class_with_two_bases_or_a_dotted_decorator_is_read(tmp_path: Path, header: str) -> None:
    write_package(tmp_path, {"settings.py": header + FIELDS, "summarize.py": SUMMARIZE})
    found = [f for f in check_json(tmp_path, "app/settings.py", "CTX201") if f["kind"] == "limit-field-unread"]
    assert [(f["line"], f["confidence"]) for f in found] == [(header.count("\n") + 3, "medium")]
