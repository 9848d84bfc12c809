"""A request sent with no output limit whose settings the function writes as a dict of its own,
lines above the call that sends them (CTX201): the finding stays at the call, and names the place
the settings are written, where the limit is added, as an evidence step."""

from __future__ import annotations

from pathlib import Path

from tests.projects import check_json, write_package

CLIENT = '''\
import requests


class Assistant:
    def __init__(self, key: str, model: str = "gpt-4o-mini") -> None:
        self.key = key
        self.model = model

    def rewrite(self, text: str, instruction: str) -> str:
        payload = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": "Rewrite the text as the instruction says."},
                {"role": "user", "content": f"{instruction}\\n\\n{text}"},
            ],
            "temperature": 0.3,
        }
        headers = {"Authorization": f"Bearer {self.key}"}
        reply = requests.post("https://api.openai.com/v1/chat/completions", json=payload, headers=headers)
        return reply.json()["choices"][0]["message"]["content"]

    def describe(self, image_url: str) -> str:
        reply = requests.post("https://api.openai.com/v1/chat/completions", headers={"Authorization": self.key},
                              json={"model": self.model, "messages": [{"role": "user", "content": image_url}]})
        return reply.json()["choices"][0]["message"]["content"]

    def translate(self, text: str, temperature: float | None = None) -> str:
        settings = {}
        if temperature is not None:
            settings["temperature"] = temperature
        body = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
        if settings:
            body["generationConfig"] = settings
        url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        reply = requests.post(url, json=body, headers={"x-goog-api-key": self.key})
        return reply.json()["candidates"][0]["content"]["parts"][0]["text"]
'''

SDK = '''\
from openai import OpenAI

client = OpenAI()


def summarise(text: str) -> str:
    params = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": f"Summarise:\\n{text}"}],
        "temperature": 0,
    }
    return client.chat.completions.create(**params).choices[0].message.content
'''


def _places(tmp_path: Path, name: str, text: str) -> dict[int, list[tuple[int, str]]]:
    write_package(tmp_path, {name: text})
    found = check_json(tmp_path, ".", "CTX201")
    return {f["line"]: [(e["line"], e["text"]) for e in f["evidence"]] for f in found if f["path"] == f"app/{name}"}


def test_a_posted_body_written_above_the_call_is_named(tmp_path: Path) -> None:
    places = _places(tmp_path, "client.py", CLIENT)
    assert (10, "the posted body `payload` is written here with no output limit") in places[19]


def test_a_body_written_at_the_call_needs_no_other_place(tmp_path: Path) -> None:
    places = _places(tmp_path, "client.py", CLIENT)
    assert [line for line, _ in places[23] if line not in (22, 23)] == []


def test_the_settings_a_limit_belongs_in_are_named_before_the_body(tmp_path: Path) -> None:
    places = _places(tmp_path, "client.py", CLIENT)
    assert (28, "`settings` is written here with no `maxOutputTokens`") in places[35]
    assert not any("posted body" in text for _, text in places[35])


def test_the_keywords_spread_into_an_sdk_call_are_named(tmp_path: Path) -> None:
    places = _places(tmp_path, "summary.py", SDK)
    assert (7, "the request's keywords `params` are written here with no output limit") in places[12]


HELPER = '''\
import requests


class Notes:
    url = "https://api.openai.com/v1/chat/completions"

    def tag(self, note: str) -> str:
        body = {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": f"Three tags for this note:\\n{note}"}],
        }
        return self._post(body)

    def _post(self, body: dict) -> str:
        return requests.post(self.url, json=body, timeout=30).json()["choices"][0]["message"]["content"]
'''


def test_a_body_a_helper_posts_is_named_where_its_caller_writes_it(tmp_path: Path) -> None:
    places = _places(tmp_path, "notes.py", HELPER)
    assert (8, "the posted body `body` is written here with no output limit") in places[12]


CHAINED = '''\
import { ChatOpenAI } from "@langchain/openai";

export async function outline(topic: string): Promise<string> {
  const model = new ChatOpenAI({ model: "gpt-4o", temperature: 0 });
  const reply = await model
    .withConfig({
      runName: "outline",
      tags: ["docs"],
    })
    .invoke([
      { role: "system", content: "Write a short outline." },
      { role: "user", content: topic },
    ]);
  return reply.content as string;
}
'''


def test_a_typescript_chain_is_sent_where_it_names_its_method(tmp_path: Path) -> None:
    (tmp_path / "outline.ts").write_text(CHAINED)
    found = [f for f in check_json(tmp_path, ".", "CTX201") if f["path"] == "outline.ts"]
    assert [(e["line"], e["text"]) for e in found[0]["evidence"] if e["text"] == "a request is sent with it"] \
        == [(10, "a request is sent with it")]
