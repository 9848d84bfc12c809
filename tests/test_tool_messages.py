"""A tool of a terminal agent hands back what it ran as a message of the project's own class,
its role written first (`Message("system", out)`): the output of a command someone chose is
third-party content in the system role; the program's own state (a control command's errors,
the listing a command written out whole prints) is not."""

from __future__ import annotations

from pathlib import Path

from tests.projects import check_json, write_package

MESSAGE = '''\
from dataclasses import dataclass


@dataclass
class Message:
    role: str
    content: str
'''

PANES = '''\
import subprocess


def capture(pane: str) -> str:
    shown = subprocess.run(["tmux", "capture-pane", "-p", "-t", pane], capture_output=True, text=True)
    return shown.stdout


def sessions() -> list[str]:
    listed = subprocess.run(["tmux", "list-sessions"], capture_output=True, text=True)
    return [line.split(":")[0] for line in listed.stdout.splitlines()]
'''

TOOL = '''\
import subprocess

from app.message import Message
from app.panes import capture, sessions


def send(pane: str, keys: str):
    sent = subprocess.run(["tmux", "send-keys", "-t", pane, keys], capture_output=True, text=True)
    if sent.returncode != 0:
        yield Message("system", f"Could not send keys to {pane}: {sent.stderr}")
        return
    yield Message("system", f"Sent {keys}:\\n{capture(pane)}")


def listing() -> Message:
    return Message("system", f"Sessions: {sessions()}")
'''


def test_pane_output_handed_back_in_the_system_role_is_reported_once(tmp_path: Path) -> None:
    write_package(tmp_path, {"message.py": MESSAGE, "panes.py": PANES, "tool.py": TOOL})
    found = check_json(tmp_path, "app", "CTX402")
    assert [(f["path"], f["line"]) for f in found] == [("app/tool.py", 12)], found
    assert "capture" in found[0]["message"], found[0]["message"]
