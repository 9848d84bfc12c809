"""Tools a framework's constructor makes of a function (CTX501 on `Tool.from_function(fn)`,
tools.constructed_tools): the function is a method of a class another module defines, handed to
the constructor through a local helper's parameter, as agent packages build their tool lists."""

from __future__ import annotations

from pathlib import Path

from projects import check_json, write_package

MANUAL = "Terms may be combined with AND and OR and limited to one field with a prefix. " * 60

SEARCH = f'''\
class RecordSearch:
    async def search_records(self, query: str) -> str:
        """Search the patient records by name, ward or admission date.

        {MANUAL}

        Args:
            query: The search expression.
        """
        return query

    async def count_records(self, ward: str) -> int:
        """How many records a ward has."""
        return len(ward)
'''

TOOLS = '''\
from aviary.core import Tool

from app.search import RecordSearch


def record_tools() -> list[Tool]:
    def make_tool(fn) -> Tool:
        return Tool.from_function(fn)

    search = RecordSearch()
    return [make_tool(search.search_records), make_tool(RecordSearch().count_records)]
'''


def test_a_method_handed_through_a_helper_is_measured_where_it_is_written(tmp_path: Path) -> None:
    write_package(tmp_path, {"search.py": SEARCH, "tools.py": TOOLS})
    findings = check_json(tmp_path, ".", "CTX501")
    assert [(f["path"], f["line"], f["confidence"], f["kind"]) for f in findings] == [
        ("app/search.py", 2, "medium", "defined")]
    assert "Tool `search_records` costs" in findings[0]["message"]


def test_without_the_constructor_nothing_is_a_tool(tmp_path: Path) -> None:
    write_package(tmp_path, {"search.py": SEARCH, "tools.py": TOOLS.replace("Tool.from_function(fn)", "fn")})
    assert check_json(tmp_path, ".", "CTX501") == []


PLANNER = '''\
from agno.agent import Agent

planner = Agent(name="Planner", instructions="Plan articles.")


def plan(topic: str, research: str) -> str:
    planning_prompt = f"""Plan an article on {topic}.

    Research results: {research[:500]}
    """
    return planner.run(planning_prompt).content
'''


def test_importing_a_framework_that_only_makes_tools_is_no_reason_to_read_a_module_whole(tmp_path: Path) -> None:
    # agno.yaml models only Function.from_callable: a module that imports Agno and names no
    # constructor is read as if it imported nothing the catalogue knows (in Agno's own tree,
    # thousands of modules); one that names the constructor is read whole, its cut included.
    made = PLANNER.replace("from agno.agent import Agent\n",
                           "from agno.agent import Agent\nfrom agno.tools.function import Function\n")
    made = made.replace('instructions="Plan articles."', "tools=[Function.from_callable(len)]")
    write_package(tmp_path, {"plan.py": PLANNER, "made.py": made})
    assert [(f["path"], f["line"], f["column"]) for f in check_json(tmp_path, ".", "CTX205")] == [
        ("app/made.py", 10, 24)]
