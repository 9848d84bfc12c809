"""An instruction appended last to a conversation, then cut by the overflow retry (CTX301
appended-last-dropped, lastdrops.py): the instruction's text and the helper that keeps the start of
the list are in other modules of the project, read through the imports."""

from __future__ import annotations

from pathlib import Path

from projects import check_json, write_package

PROMPTS = '''\
CLEAN_UP = """The messages above are research notes.

Never drop a figure or a source; keep every fact verbatim."""
'''

HELPERS = '''\
def without_last_reply(messages: list) -> list:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i]["role"] == "assistant":
            return messages[:i]
    return messages
'''

AGENT = '''\
from openai import OpenAI, BadRequestError

from app.helpers import without_last_reply
from app.prompts import CLEAN_UP

client = OpenAI()


def tidy(notes: list) -> str:
    notes.append({"role": "user", "content": CLEAN_UP})
    for _ in range(3):
        try:
            reply = client.chat.completions.create(model="gpt-4o", max_completion_tokens=3000, messages=notes)
            return reply.choices[0].message.content
        except BadRequestError as error:
            if "context_length_exceeded" in str(error):
                notes = without_last_reply(notes)
    return ""


tidy([])
'''


def test_the_instruction_appended_before_the_retry_loop_is_cut_first(tmp_path: Path) -> None:
    write_package(tmp_path, {"prompts.py": PROMPTS, "helpers.py": HELPERS, "agent.py": AGENT})
    [found] = check_json(tmp_path, "app/agent.py", "CTX301")
    assert (found["line"], found["column"], found["kind"], found["confidence"]) == \
        (17, 17, "appended-last-dropped", "medium")
    assert found["message"].startswith(
        "The constraint \"Never drop a figure or a source;\" is in the message appended last to `notes` (line 10), "
        "and `notes = without_last_reply(notes)` keeps the start of the list when the call overflows")
    places = {(e["path"], e["line"]) for e in found["evidence"]}
    assert {("app/prompts.py", 1), ("app/helpers.py", 4), ("app/agent.py", 10)} <= places


def test_an_instruction_with_no_constraint_is_not_reported(tmp_path: Path) -> None:
    prompts = 'CLEAN_UP = "The messages above are research notes. Tidy them up."\n'
    write_package(tmp_path, {"prompts.py": prompts, "helpers.py": HELPERS, "agent.py": AGENT})
    assert check_json(tmp_path, "app/agent.py", "CTX301") == []
