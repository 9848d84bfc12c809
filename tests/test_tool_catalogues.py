"""Tool catalogues no one caps: a tool made per item of a collection a call gives (an MCP
server's listing, a registry), reported by CTX503 whether a call site is seen sending the list
(`uncapped`) or the function returns it (`uncapped-unsent`)."""

from __future__ import annotations

import json

from ctxlint.frontends import python

SENT = '''import openai


async def plan(question, servers):
    tools = []
    for server in servers:
        try:
            listed = await server.list_tools()
        except ConnectionError:
            continue
        for tool in listed.tools:
            tools.append({"type": "function", "function": {
                "name": tool.name, "description": tool.description, "parameters": tool.inputSchema}})
    return await openai.AsyncOpenAI().chat.completions.create(
        model="gpt-4o", max_tokens=500, tools=tools, messages=[{"role": "user", "content": question}])


if __name__ == "__main__":
    import asyncio
    asyncio.run(plan("What is due today?", []))
'''

RETURNED = '''from app.mcp import fetch_tools
from app.specs import ToolSpec


def remote_specs(config):
    specs = []
    for tool in fetch_tools(config.url):
        specs.append(ToolSpec(name=tool.name, description=tool.description or "", parameters=tool.inputSchema))
    return specs


if __name__ == "__main__":
    print(remote_specs(None))
'''


def _findings(project, files):
    project.write(files)
    run = project.run("check", "--select", "CTX503", "--preview", "--format", "json")
    return json.loads(run.stdout)


def test_every_tool_every_server_lists_is_reported_at_the_call(project):
    [finding] = _findings(project, {"agent/plan.py": SENT})
    assert (finding["code"], finding["line"], finding["column"], finding["confidence"], finding["kind"]) == (
        "CTX503", 12, 26, "medium", "uncapped")
    assert finding["message"] == (
        "A tool is offered for every item of `server.list_tools()` (line 8), and nothing caps how many "
        "there are: a server or registry that grows to dozens of tools makes the model pick the wrong one more "
        "often and is paid on every call. Offer the tools this step needs (select them by the task, or cap the "
        "list), or load the rest on demand.")
    assert [(e["kind"], e["text"], e["line"]) for e in finding["evidence"]] == [
        ("source", "`server.list_tools()`: a collection whose size nothing here caps", 8),
        ("flow", "one tool made per item of `listed.tools`", 12), ("sink", "offered in one request", 14)]


def test_a_returned_catalogue_is_reported_where_its_tools_are_made(project):
    [finding] = _findings(project, {"app/remote.py": RETURNED})
    assert (finding["line"], finding["column"], finding["confidence"], finding["kind"]) == (
        8, 22, "medium", "uncapped-unsent")
    assert finding["message"].startswith(
        "A tool is made for every item of `fetch_tools(config.url)` (line 7), and nothing caps")
    assert finding["evidence"][-1]["text"] == "no call is seen offering the list"


def test_a_cap_or_a_selection_on_the_way_is_clean(project):
    capped = SENT.replace(
        "        for tool in listed.tools:\n", "        for tool in listed.tools:\n            if len(tools) >= 20:\n"
        "                break\n")
    selected = SENT.replace("        for tool in listed.tools:\n", "        for tool in listed.tools:\n"
                            "            if tool.name not in ALLOWED:\n                continue\n")
    counted = RETURNED.replace("fetch_tools(config.url)", "fetch_tools(config.url, limit=10)")
    fixed = RETURNED.replace("from app.mcp import fetch_tools\n", "") + (
        "\n\nLISTED = [Listed('search'), Listed('open')]\n\n\ndef fetch_tools(url):\n    return LISTED\n")
    stored = RETURNED.replace("fetch_tools(config.url)",
                              "db.query('select * from tools where response_id = ?', [config.id])")
    kept = RETURNED.replace("    for tool in fetch_tools(config.url):\n", "    listed = list(fetch_tools(config.url))\n"
                            "    for tool in keep(listed, config.allowed):\n")
    assert _findings(project, {"a/capped.py": capped, "a/selected.py": selected, "a/counted.py": counted,
                               "a/fixed.py": fixed, "a/kept.py": kept,
                               "a/stored.py": stored}) == []


def test_tool_calls_read_from_a_reply_are_no_catalogue(project):
    calls = '''from app.client import reply


def tool_calls(messages):
    made = []
    for call in reply(messages).tool_calls:
        made.append({"id": call.id, "type": "function",
                     "function": {"name": call.name, "arguments": call.arguments}})
    return made
'''
    assert _findings(project, {"app/calls.py": calls}) == []


def test_a_library_the_host_imports_for_the_module_is_that_library():
    # A function registry runs the function with the imports it declares: `litellm` is never
    # imported here, and is the library all the same.
    source = '''@registry.register(imports=["litellm"])
def ask(question):
    return litellm.completion(model="gpt-4o", messages=[{"role": "user", "content": question}])
'''
    [request] = python.parse_file(source, "ask.py").requests
    assert (request.anchor.line, request.framework, request.declares_settings) == (3, "litellm", True)
    # Bound anywhere on the way, the name is the code's own object.
    for bound in ("def ask(question, litellm):\n", "def ask(question):\n    litellm = make()\n"):
        shadowed = source.replace("def ask(question):\n", bound)
        assert [r.framework for r in python.parse_file(shadowed, "ask.py").requests] in ([], [None])


def test_a_listing_for_people_is_no_catalogue(project):
    # An endpoint that lists the tools for a settings page: keys of its own beside the schema.
    listing = '''from app.registry import catalog


def list_tools():
    tools = []
    for name, meta in catalog().items():
        tools.append({"name": name, "description": meta.doc, "parameters": meta.schema, "module": meta.module})
    return {"count": len(tools), "tools": tools}
'''
    assert _findings(project, {"app/routes.py": listing}) == []


def test_a_function_of_the_module_that_returns_a_listing_is_followed():
    source = '''import openai


async def listed(session):
    return (await session.list_tools()).tools


async def plan(session, question):
    tools = [{"type": "function", "function": {"name": t.name, "parameters": t.inputSchema}}
             for t in await listed(session)]
    return await openai.AsyncOpenAI().chat.completions.create(
        model="gpt-4o", max_tokens=300, tools=tools, messages=[{"role": "user", "content": question}])
'''
    [request] = [r for r in python.parse_file(source, "plan.py").requests if r.catalogue]
    assert [(e.text, e.span.line) for e in request.catalogue] == [
        ("`listed(session)`: a collection whose size nothing here caps", 10),
        ("one tool made per item of `await listed(session)`", 9)]
