"""Rows of a project's own class stored with a role and replayed as messages by another module:
a tool's output, run in a `try` in a third module and printed after a label there, kept as a
system row (CTX402 only: the label the runner writes counts for CTX401)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from projects import write_files

EXECUTOR = '''\
class Response:
    def __init__(self, result: str, retry: bool = False):
        self.result = result
        self.retry = retry


class Executor:
    def __init__(self, tools: list):
        self.tools = tools

    def execute(self, name: str, args: dict) -> Response:
        tools = {t.name: t for t in self.tools}
        if name not in tools:
            return Response(result=f"Unknown tool {name}.", retry=True)
        tool = tools[name]
        try:
            observation = tool.execute(args)
        except ValueError as error:
            observation = f"Error: {error}"
        return Response(result=f"Tool {name} returned: {observation}")
'''

HANDLER = '''\
from app.executor import Executor
from app.models import Feed


class Handler:
    def __init__(self, tools: list):
        self.tools = tools

    def handle(self, session, action: dict) -> None:
        tool_response = Executor(self.tools).execute(action["name"], action["args"])
        row = Feed(feed=tool_response.result, role="system")
        session.add(row)
        session.commit()
'''

BUILDER = '''\
from openai import OpenAI

client = OpenAI()


def reply(feeds) -> str:
    messages = [{"role": feed.role, "content": feed.feed} for feed in feeds]
    answer = client.chat.completions.create(model="gpt-4o", messages=messages, max_tokens=500)
    return answer.choices[0].message.content
'''


def test_tool_output_stored_as_a_system_row_that_another_module_replays(tmp_path: Path) -> None:
    files = {"app/__init__.py": "", "app/executor.py": EXECUTOR, "app/handler.py": HANDLER,
             "app/builder.py": BUILDER,
             "app/agent.py": "from app.handler import Handler\n\n\ndef step(session, tools, action):\n"
                             "    Handler(tools).handle(session, action)\n"}
    write_files(tmp_path, files)
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "app/handler.py"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    found = json.loads(run.stdout)
    assert [(f["code"], f["line"], f["column"], f["confidence"], f["kind"]) for f in found] == [
        ("CTX402", 11, 25, "medium", "weak-source-and-name")]
    assert found[0]["message"] == (
        "`tool_response.result` looks like third-party content (a tool result (tool.execute(...)) in "
        "app/executor.py:17, line 10) in the system role, where text has the most authority. Move it to a "
        "user message, wrapped in a delimiter and escaped.")
    steps = {(step["text"], step["path"], step["line"]) for step in found[0]["evidence"]}
    assert ("sent as the system message at app/builder.py:7", "app/builder.py", 7) in steps
    # Where the executor packs the output into the object it returns, after its one-sided label.
    assert ("kept as `result` of `Response(...)`", "app/executor.py", 20) in steps
