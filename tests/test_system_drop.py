"""A system prompt emptied when the model is taken to have no system role (systemdrops.py): the
finding names the value that held it and the test that empties it."""

from __future__ import annotations

from pathlib import Path

from projects import reported_json

CLIENT = '''\
from openai import OpenAI

client = OpenAI()


def ask(prompt: str, system_text: str, system_role: bool) -> str:
    turns = [{"role": "system", "content": system_text}]
    if not system_role:
        turns = []
    turns.append({"role": "user", "content": prompt})
    reply = client.chat.completions.create(model="gpt-4o", max_tokens=500, messages=turns)
    return reply.choices[0].message.content


__all__ = ["ask"]
'''


def test_the_emptied_system_prompt_is_reported_with_its_value_and_test(tmp_path: Path) -> None:
    [found] = reported_json(tmp_path, "client.py", CLIENT, "CTX205")
    assert (found["code"], found["line"], found["column"], found["kind"]) == ("CTX205", 9, 9, "dropped-system")
    assert found["message"].startswith("`turns = []` empties the messages that held the system prompt when the "
                                       "model is taken to have no system role")
    steps = [(e["kind"], e["text"], e["line"]) for e in found["evidence"][1:-1]]
    assert steps == [("flow", '`turns` holds the system prompt: `[{"role": "system", "content": system_text}]`', 7),
                     ("flow", "`not system_role`: the model is taken to have no system role", 8)]
