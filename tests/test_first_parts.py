"""CTX205 on a first part kept alone (firstparts.py) and on an output read from a process's
stream (cutsites.py): the finding, its place, its message and the steps of its evidence."""

from __future__ import annotations

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter

CATALOGUE = load_catalogue()


def lint(tmp_path, source: str, name: str):
    linter = Linter(Settings(root=tmp_path), CATALOGUE, select=["CTX205"])
    return linter.lint_text(source, name, name, "python")


SPLIT = '''\
class Summariser:
    def __init__(self, llm, prompt, max_token_limit=32000):
        self.llm, self.prompt, self.max_token_limit = llm, prompt, max_token_limit

    def split_by_token_limit(self, text, limit):
        return [text[i:i + limit * 4] for i in range(0, len(text), limit * 4)]

    async def summarise(self, text):
        parts = self.split_by_token_limit(text, self.max_token_limit)
        return await self.prompt.generate(self.llm, content=parts[0])
'''


def test_first_piece_of_a_split_points_at_the_split(tmp_path):
    (finding,) = lint(tmp_path, SPLIT, "summariser.py")
    assert (finding.code, finding.span.line, finding.span.column, finding.kind) == ("CTX205", 10, 61, "first-chunk")
    assert finding.confidence.value == "medium"
    assert finding.message.startswith("`parts[0]` keeps only the first piece of a text split to a size and drops "
                                      "the others with nothing in their place")
    assert [(e.kind.value, e.span.line if e.span else None) for e in finding.evidence] == [
        ("source", 10), ("flow", 9), ("sink", 10)]
    assert finding.evidence[1].text == ("`parts` holds the pieces of `self.split_by_token_limit(text, "
                                        "self.max_token_limit)`, split to a size")


BODY = '''\
import requests


def complete(url, messages):
    if not isinstance(messages, list):
        raise TypeError("messages must be a list")
    prompt = messages[0]["content"]
    body = {"inputs": prompt, "parameters": {"max_new_tokens": 400}}
    return requests.post(url, json=body, timeout=60).json()
'''


def test_first_message_read_into_a_request_body(tmp_path):
    (finding,) = lint(tmp_path, BODY, "client.py")
    assert (finding.code, finding.span.line, finding.span.column, finding.kind) == ("CTX205", 7, 14, "first-message")
    assert finding.message.startswith("`messages[0][\"content\"]` keeps only the first message of the conversation "
                                      "and drops every later one (the history and the latest request)")
    assert finding.evidence[-1].text == ("`complete` builds a request body from it and reads no other message of "
                                         "`messages`")


def test_a_request_body_from_every_message_is_fine(tmp_path):
    source = BODY.replace('prompt = messages[0]["content"]', 'prompt = "\\n".join(m["content"] for m in messages)')
    assert lint(tmp_path, source, "client.py") == []


STREAM = '''\
def cell_text(outputs, keep=3000):
    texts = []
    for item in outputs:
        output_text = item.get("text", "")
        if item["type"] == "error":
            output_text = "\\n".join(item["traceback"])
        texts.append(output_text[:keep])
    return "\\n".join(texts)
'''


def test_output_read_from_a_stream_names_the_stream(tmp_path):
    (finding,) = lint(tmp_path, STREAM, "kernel.py")
    assert (finding.span.line, finding.kind, finding.confidence.value) == (7, "raw-output-cut", "medium")
    assert any(e.span is not None and e.span.line == 6 and e.text == (
        "`output_text` is given `\"\\n\".join(item[\"traceback\"])`") for e in finding.evidence)
