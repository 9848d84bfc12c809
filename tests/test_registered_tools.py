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


def test_registered_class_is_reported_at_its_registration(project):
    project.write({"ctxlint.toml": CONFIG, "agent/notebook.py": NOTEBOOK})
    run = project.run("check", "--select", "CTX501", "--format", "json")
    [finding] = json.loads(run.stdout)
    assert (finding["code"], finding["line"], finding["column"], finding["confidence"], finding["kind"]) == (
        "CTX501", 4, 2, "medium", "registered")
    assert finding["message"] == (
        "Tool `Notebook` costs 90 tokens on every call that offers it, over the 40-token limit; its biggest field "
        "is `methods.properties.run_cell.description` (65 tokens). Shorten that field, split the tool, or move "
        "reference material into the tool's result.")
    assert finding["evidence"][1]["text"] == "listed by a tool registry, which prompts pick tools from by name"


def test_cost_counts_the_methods_the_registry_lists(project):
    project.write({"ctxlint.toml": CONFIG, "agent/notebook.py": NOTEBOOK})
    data = json.loads(project.run("cost", "--format", "json").stdout)
    [request] = data["files"][0]["requests"]
    assert "registry-listed" in request["basis"]
    [tool] = request["tools"]
    # `reset` is not in include_functions: its docstring is not what the registry lists.
    assert (tool["name"], tool["biggest_field"]) == ("Notebook", "methods.properties.run_cell.description")
