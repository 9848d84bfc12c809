"""Tools a framework's registry lists (MetaGPT's ``@register_tool``): measured by CTX501 and
counted by ``ctxlint cost`` as one tool per registered class."""

from __future__ import annotations

import json

NOTEBOOK = '''from metagpt.tools.tool_registry import register_tool


@register_tool(include_functions=["run_cell"])
class Notebook:
    """Run the cells of a Jupyter notebook."""

    def run_cell(self, index: int) -> str:
        """Run the cell at `index` and return its output, truncated to the last 2,000 characters.
        A cell that runs longer than thirty seconds is interrupted and its partial output
        returned with a note saying so; rerun it in smaller pieces if the work is expected."""

    def reset(self) -> None:
        """Restart the kernel, clearing every variable. Only the user may ask for this, never the
        model on its own: a restart loses the state every earlier cell built."""
'''
CONFIG = "[rules.CTX501]\nmax_tokens = 40\n"


ROLE = 'ANALYST_TOOLS = ["Notebook:run_cell", "Browser"]\n'


def test_registered_class_is_reported_at_its_registration(project):
    project.write({"ctxlint.toml": CONFIG, "agent/notebook.py": NOTEBOOK, "agent/roles.py": ROLE})
    run = project.run("check", "--select", "CTX501", "--format", "json")
    [finding] = json.loads(run.stdout)
    assert (finding["code"], finding["line"], finding["column"], finding["confidence"], finding["kind"]) == (
        "CTX501", 4, 2, "medium", "registered")
    assert finding["message"] == (
        "Tool `Notebook` costs 90 tokens on every call that offers it, over the 40-token limit; its biggest field "
        "is `methods.properties.run_cell.description` (65 tokens). Shorten that field, split the tool, or move "
        "reference material into the tool's result.")
    assert finding["evidence"][1]["text"] == "listed by a tool registry, which prompts pick tools from by name"
    assert (finding["evidence"][2]["text"], finding["evidence"][2]["path"], finding["evidence"][2]["line"]) == (
        "named where a prompt may pick `Notebook`", "agent/roles.py", 1)


def test_a_cached_result_goes_stale_when_the_module_that_picks_the_tool_changes(project):
    project.write({"ctxlint.toml": CONFIG, "agent/notebook.py": NOTEBOOK, "agent/roles.py": ROLE})
    # The same options both times: the second run may be served from the result cache.
    first = json.loads(project.run("check", "--select", "CTX501", "--confidence", "low", "--format", "json").stdout)
    assert [(f["kind"], f["confidence"]) for f in first] == [("registered", "medium")]
    project.write({"agent/roles.py": 'ANALYST_TOOLS = ["Browser"]\n'})  # the role no longer picks it
    again = project.run("check", "--select", "CTX501", "--confidence", "low", "--format", "json")
    assert [(f["kind"], f["confidence"]) for f in json.loads(again.stdout)] == [("registered-unpicked", "low")]


def test_registered_class_no_shipped_module_picks_is_low(project):
    # Named only by a sample script and a test: no prompt of the shipped code is seen picking it.
    project.write({"ctxlint.toml": CONFIG, "agent/notebook.py": NOTEBOOK,
                   "examples/demo.py": 'TOOLS = ["Notebook"]\n', "tests/test_tools.py": 'NAMES = ["Notebook"]\n'})
    run = project.run("check", "--select", "CTX501", "--confidence", "low", "--format", "json")
    [finding] = json.loads(run.stdout)
    assert (finding["line"], finding["confidence"], finding["kind"], len(finding["evidence"])) == (
        4, "low", "registered-unpicked", 2)


def test_registered_class_only_exported_by_its_package_is_low(project):
    init = 'from agent.notebook import Notebook\n\n__all__ = [\n    "Notebook",\n]\n'
    project.write({"ctxlint.toml": CONFIG, "agent/notebook.py": NOTEBOOK, "agent/__init__.py": init})
    run = project.run("check", "--select", "CTX501", "--confidence", "low", "--format", "json")
    assert [(f["kind"], f["confidence"]) for f in json.loads(run.stdout)] == [("registered-unpicked", "low")]


def test_registered_class_picked_only_in_a_configured_example_path_is_low(project):
    # `example-paths` names the team's own folder of demos: a module there does not show a shipped
    # prompt picks the tool, whereas the same module in shipped code does (first test above).
    config = 'example-paths = ["playbooks"]\n' + CONFIG
    project.write({"ctxlint.toml": config, "agent/notebook.py": NOTEBOOK, "playbooks/roles.py": ROLE})
    run = project.run("check", "--select", "CTX501", "--confidence", "low", "--format", "json")
    assert [(f["kind"], f["confidence"]) for f in json.loads(run.stdout)] == [("registered-unpicked", "low")]


def test_cost_counts_the_methods_the_registry_lists(project):
    project.write({"ctxlint.toml": CONFIG, "agent/notebook.py": NOTEBOOK})
    data = json.loads(project.run("cost", "--format", "json").stdout)
    [request] = data["files"][0]["requests"]
    assert "registry-listed" in request["basis"]
    [tool] = request["tools"]
    # `reset` is not in include_functions: its docstring is not what the registry lists.
    assert (tool["name"], tool["biggest_field"]) == ("Notebook", "methods.properties.run_cell.description")


FINDER = '''import os

from metagpt.tools.tool_registry import register_tool

MAX_TOKENS = 2000


@register_tool()
class Finder:
    """Find files in the working directory."""

    def find(self, name: str) -> str:
        """List the paths of the files called `name` under the working directory."""
        found = [os.path.join(root, name) for root, _, files in os.walk(".") if name in files]
        listing = "\\n".join(found)
        if len(listing) / 4 > MAX_TOKENS:
            return "Too many files: narrow the name."
        return listing
'''


def test_registering_a_tool_does_not_make_the_module_llm_code(project):
    # The text `find` returns reaches a model only through the agent's tool results: the order
    # rules judge it where a prompt is built, not because the class is registered.
    project.write({"agent/finder.py": FINDER})
    run = project.run("check", "--confidence", "low", "--preview", "--format", "json")
    # The character estimate is judged on its own; the file-system order of `listing` would be
    # reported (CTX104) were the module taken for code that talks to a model.
    assert [(f["code"], f["line"]) for f in json.loads(run.stdout)] == [("CTX204", 16)]
