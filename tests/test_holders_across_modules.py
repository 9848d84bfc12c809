"""A framework object built two modules away from the request that runs it: a script imports a
package's wrapper, whose function-level import reaches the module that really builds the agent.
That module reads the agent (its tools, its model): the wrapper's module never held those lines,
and reading them there once crashed the check (an internal error, the file left unchecked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.projects import write_files

WRAPPER = '''\
def make_agent(config):
    """Imported here so the package stays light."""
    from .lead import make_agent as factory

    return factory(config)
'''

# The builder is longer than the wrapper: its lines are past the wrapper's end.
BUILDER = '''\
from langchain.agents import create_agent
from langchain_openai import ChatOpenAI

''' + "".join(f"# note {n} on how the lead agent is put together\n" for n in range(30)) + '''

def gather(config):
    found = []
    for name in set(config["tools"]):
        found.append(name)
    return found


def make_agent(config):
    return create_agent(model=ChatOpenAI(model="gpt-4o", max_tokens=500), tools=gather(config))
'''

SCRIPT = '''\
import asyncio

from app.agents import make_agent

agent = make_agent({"tools": []})
asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
'''


def _findings(root: Path, script: str) -> list[tuple[str, int, str, str]]:
    write_files(root, {"app/__init__.py": "", "app/agents/__init__.py": WRAPPER,
                       "app/agents/lead/__init__.py": "from .builder import make_agent\n",
                       "app/agents/lead/builder.py": BUILDER, "app/debug.py": script})
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--preview", "--confidence", "low", "."], capture_output=True, text=True, cwd=root)
    assert "internal error" not in run.stderr
    assert run.returncode == 1, run.stderr
    return sorted((f["path"], f["line"], f["code"], f["kind"]) for f in json.loads(run.stdout))


def test_a_tool_list_built_two_modules_away_is_read_where_it_is_built(tmp_path: Path) -> None:
    loop_line = BUILDER.splitlines().index('    for name in set(config["tools"]):') + 1
    through_wrapper = _findings(tmp_path / "wrapped", SCRIPT)
    assert through_wrapper == [("app/agents/lead/builder.py", loop_line, "CTX104", "call"),
                               ("app/agents/lead/builder.py", loop_line, "CTX104", "order-in-text")]
    # the same as when the script imports the builder itself
    direct = SCRIPT.replace("from app.agents import", "from app.agents.lead.builder import")
    assert _findings(tmp_path / "direct", direct) == through_wrapper
