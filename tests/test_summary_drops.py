"""A rule in the opening message of a run of an agent that summarises its oldest messages (CTX301
opening-summarised, summarydrops.py): the agent is built by a function of another module of the
project, and the message by a helper of this one."""

from __future__ import annotations

from pathlib import Path

from projects import check_json, write_package

BUILD = '''\
from deepagents import create_deep_agent

EDITOR = """You are the editor of a research team.
Respect the limits the request states."""


def build_agent(tools: list):
    return create_deep_agent(model="anthropic:claude-sonnet-4-5", system_prompt=EDITOR, tools=tools)
'''

RUN = '''\
import asyncio

from app.build import build_agent


def opening(topic: str, sections: int) -> str:
    return (f"Research {topic} and write a report.\\n"
            f"Never cite a source older than {sections} years.")


async def main(topic: str) -> None:
    agent = build_agent([])
    async for update in agent.astream({"messages": [{"role": "user", "content": opening(topic, 5)}]}):
        print(update)


asyncio.run(main("tidal power"))
'''


def test_a_rule_in_the_opening_message_of_a_deep_agent_built_elsewhere(tmp_path: Path) -> None:
    write_package(tmp_path, {"build.py": BUILD, "run.py": RUN})
    [found] = check_json(tmp_path, "app/run.py", "CTX301")
    assert (found["line"], found["column"], found["kind"], found["confidence"]) == \
        (13, 53, "opening-summarised", "medium")
    assert found["message"] == (
        "The constraint \"Never cite a source older than\" is in the user message `agent.astream(...)` starts the "
        "run with, and the deep agent built at app/build.py line 8 replaces the oldest messages of a long run by a "
        "summary, keeping the system prompt: on a long run this message is the first to be rewritten as a summary, "
        "and the rule goes with it. Put the rule in the system prompt (and keep the task there or restate it).")
    assert [(e["kind"], e["line"]) for e in found["evidence"]][-1] == ("sink", 8)


def test_an_opening_message_with_no_rule_is_not_reported(tmp_path: Path) -> None:
    write_package(tmp_path, {"build.py": BUILD,
                             "run.py": RUN.replace("Never cite a source older than", "Prefer sources from the last")})
    assert check_json(tmp_path, "app/run.py", "CTX301") == []
