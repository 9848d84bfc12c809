"""Messages of a project's own class that a function hands back (``return Message("system", ...)``)
in a project that replays messages' content with their role: text gathered into the message
before it is built is reported where it is gathered, and the finding names the message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

MESSAGE = '''\
from dataclasses import dataclass


@dataclass
class Message:
    role: str
    content: str

    def to_dict(self) -> dict:
        return {"role": self.role, "content": self.content}
'''

CHAT = '''\
from openai import OpenAI

from app.context import fresh_context
from app.message import Message

client = OpenAI()


def step(log: list[Message]) -> str:
    messages = [m.to_dict() for m in [*log, fresh_context()]]
    reply = client.chat.completions.create(model="gpt-4o", messages=messages, max_tokens=600)
    return reply.choices[0].message.content
'''

CONTEXT = '''\
import subprocess

from app.message import Message


def status() -> str | None:
    done = subprocess.run(["git", "status", "-vv"], capture_output=True, text=True)
    return f"git status:\\n{done.stdout}" if done.returncode == 0 else None


def fresh_context() -> Message:
    sections = ["The working tree as it is now."]
    if status_output := status():
        sections.append(status_output)
    return Message(
        "system",
        "# Context\\n" + "\\n\\n".join(sections),
    )
'''


def run(tmp_path: Path, context: str) -> list[dict]:
    files = {"app/__init__.py": "", "app/message.py": MESSAGE, "app/chat.py": CHAT, "app/context.py": context}
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--select", "CTX402",
                           "--output-format", "json", "app"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def test_output_gathered_into_a_handed_back_system_message_names_the_message(tmp_path: Path) -> None:
    found = run(tmp_path, CONTEXT)
    assert [(f["path"], f["line"], f["confidence"]) for f in found] == [("app/context.py", 14, "high")]
    steps = [(e["kind"], e["text"]) for e in found[0]["evidence"]]
    assert ("flow", "in the system message built at app/context.py:15") in steps
    assert ("sink", "sent as the system message at app/message.py:10") in steps


def test_only_the_exit_status_gathered_is_fine(tmp_path: Path) -> None:
    quiet = CONTEXT.replace('f"git status:\\n{done.stdout}"', 'f"git status exited with {done.returncode}"')
    assert quiet != CONTEXT
    assert run(tmp_path, quiet) == []
