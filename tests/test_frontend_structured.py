"""JSON and YAML front-end: chat requests, tool files and YAML prompts become the shared model,
with exact spans; files that are not prompts give nothing at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from steps import count_steps

from ctxlint import yamlsafe
from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends import jsonpos, structured
from ctxlint.model import Role

DATA = Path(__file__).parent / "data"
CATALOGUE = load_catalogue()


def parse(relpath: str):
    return structured.parse_file((DATA / relpath).read_text(encoding="utf-8"), relpath)


def source_at(relpath: str, span) -> str:
    """The file text a single-line span covers."""
    assert span.line == span.end_line, span
    line = (DATA / relpath).read_text(encoding="utf-8").split("\n")[span.line - 1]
    return line[span.column - 1 : span.end_column - 1]


def where(span):
    return (span.line, span.column, span.end_line, span.end_column)


# The rules this front-end's model feeds most directly; other rules have their own tests.
CORE = ["CTX001", "CTX101", "CTX102", "CTX201"]


def lint(relpath: str, select=CORE):
    linter = Linter(Settings(root=DATA), CATALOGUE, select=select)
    return [(f.code, f.span.line, f.span.column) for f in linter.lint_files([DATA / relpath]).findings]


# --- chat requests ---------------------------------------------------------------------------


def test_anthropic_request_gives_system_messages_tools_and_breakpoints_in_provider_order():
    parsed = parse("requests/anthropic_support.json")
    assert parsed.errors == []
    (request,) = parsed.requests
    assert request.model == "claude-sonnet-4-5"
    assert request.declares_settings and request.settings_hint == "`max_tokens`"
    assert (request.output_limit.key, request.output_limit.value) == ("max_tokens", 1024)
    assert where(request.output_limit.span) == (3, 3, 3, 15)
    assert where(request.anchor) == (2, 3, 2, 10)  # the "model" key
    assert [(s.role, s.message_index, s.text) for s in request.slots()] == [
        (Role.SYSTEM, 0, "now()"), (Role.SYSTEM, 0, "refund_policy"), (Role.USER, 1, "question")]
    now, policy, question = request.slots()
    assert where(now.span) == (7, 30, 7, 41) and source_at("requests/anthropic_support.json", now.span) == "{{ now() }}"
    assert where(policy.span) == (11, 32, 11, 51)  # after the `\n` escape, exactly
    assert source_at("requests/anthropic_support.json", policy.span) == "{{ refund_policy }}"
    assert source_at("requests/anthropic_support.json", question.span) == "{{ question }}"
    # The tool_result block is tool output; the tool_use block sends no text.
    assert request.segments[-1].role == Role.TOOL and request.segments[-1].text == 'Shipped on "Monday".'
    assert request.segments[-1].message_index == 3
    (tool,) = request.tools
    assert tool.name == "lookup_order" and tool.description == "Look up an order by its number."
    assert tool.schema["required"] == ["order_id"] and tool.raw["name"] == "lookup_order"
    assert where(tool.span) == (16, 5, 25, 6)
    # Breakpoints: the tool's (covers no segment), the second system block's, the user block's.
    assert [(b.span.line, b.span.column, b.covers, b.ttl) for b in request.breakpoints] == [
        (24, 7, 0, "1h"), (12, 7, 5, "1h"), (28, 77, 6, None)]
    assert source_at("requests/anthropic_support.json", request.breakpoints[1].span) == '"cache_control"'
    covered = request.segments[: request.breakpoints[1].covers]
    assert covered[-1].text == "refund_policy"


def test_openai_request_maps_offsets_through_json_escapes():
    parsed = parse("requests/openai_chat.json")
    (request,) = parsed.requests
    assert request.settings_hint == "`max_completion_tokens`"
    assert (request.output_limit.key, request.output_limit.value) == ("max_completion_tokens", 800)
    trace, question = request.slots()
    assert where(trace.span) == (8, 25, 8, 39)
    assert source_at("requests/openai_chat.json", trace.span) == "{{ trace_id }}"
    static = request.segments[2]
    # Decoded text has real newlines, tabs, accents and the emoji; the span ends at the quote.
    assert static.text.startswith("\n\tYou are the research assistant.") and static.text.endswith("élégant English 😀.")
    line = (DATA / "requests/openai_chat.json").read_text().split("\n")[7]
    assert line[static.span.end_column - 1] == '"'
    assert (question.role, question.message_index) == (Role.USER, 1)
    assert source_at("requests/openai_chat.json", question.span) == "{{ question }}"
    (tool,) = request.tools
    assert tool.name == "web_search" and tool.schema["required"] == ["query"]
    assert tool.raw["type"] == "function" and tool.raw["function"]["strict"] is True


def test_yaml_request_maps_block_scalars_to_file_lines():
    parsed = parse("requests/anthropic_request.yaml")
    assert parsed.errors == []
    (request,) = parsed.requests
    assert request.model == "claude-haiku-4-5" and request.output_limit.value == 600
    assert where(request.anchor) == (2, 1, 2, 6)
    session, order = request.slots()
    assert source_at("requests/anthropic_request.yaml", session.span) == "{{ session_id }}"  # literal block
    assert source_at("requests/anthropic_request.yaml", order.span) == "{{ order_number }}"  # folded block
    assert (order.role, order.message_index) == (Role.USER, 1)
    assert request.segments[0].text == "You are the order-status agent for Northwind.\nSession "
    (breakpoint,) = request.breakpoints
    assert (breakpoint.span.line, breakpoint.span.column, breakpoint.covers) == (10, 5, 3)


def test_responses_request_and_github_models_prompt_file():
    (responses,) = parse("requests/responses.json").requests
    assert responses.settings_hint == "`max_output_tokens`" and responses.output_limit.value == 400
    assert [(s.role, s.text) for s in responses.segments][:1] == [
        (Role.SYSTEM, "You are a terse release-notes writer. Use bullet points.")]
    assert [s.text for s in responses.slots()] == ["changelog"]
    (github,) = parse("requests/triage.prompt.yml").requests
    assert github.model == "openai/gpt-4o-mini" and github.output_limit is None
    assert github.settings_hint == "`modelParameters.maxTokens`"
    assert [(s.role, s.text) for s in github.segments] == [
        (Role.SYSTEM, "You label GitHub issues as bug, feature or question. Reply with the label only."),
        (Role.USER, "input")]
    assert source_at("requests/triage.prompt.yml", github.segments[1].span) == "{{input}}"


def test_rules_fire_on_request_files_at_exact_positions():
    assert lint("requests/anthropic_support.json", ["CTX101"]) == [("CTX101", 7, 30)]
    assert lint("requests/openai_chat.json", ["CTX102"]) == [("CTX102", 8, 25)]
    assert lint("requests/anthropic_request.yaml", ["CTX102"]) == [("CTX102", 8, 15)]
    assert lint("requests/openai_no_limit.json", ["CTX201"]) == [("CTX201", 2, 3)]
    assert lint("requests/triage.prompt.yml", ["CTX201"]) == [("CTX201", 3, 1)]
    for limited in ("anthropic_support.json", "openai_chat.json", "responses.json", "anthropic_request.yaml"):
        assert lint(f"requests/{limited}", ["CTX201"]) == []


def test_malformed_request_json_is_a_located_parse_error():
    parsed = parse("requests/malformed.json")
    assert parsed.requests == []
    ((span, message),) = parsed.errors
    assert (span.line, span.column) == (6, 5) and message == "invalid JSON: Expecting ',' delimiter or ']'"
    assert lint("requests/malformed.json", None) == [("CTX001", 6, 5)]


def test_bad_template_inside_a_json_string_is_reported_at_its_line():
    parsed = parse("requests/bad_template.json")
    ((span, message),) = parsed.errors
    assert (span.line, span.column) == (5, 54)  # where the template's second line starts
    assert "print statement" in message
    assert len(parsed.requests) == 1  # the rest of the request is still checked


def test_malformed_yaml_request_is_located():
    text = "model: gpt-4o\nmax_tokens: 10\nmessages:\n  - role: user\n    content: [unclosed\n"
    parsed = structured.parse_file(text, "req.yaml")
    ((span, _),) = parsed.errors
    assert span.line == 6


# --- tool files ------------------------------------------------------------------------------


@pytest.mark.parametrize(("relpath", "names", "first_span", "schema_key"), [
    ("tools/openai_tools.json", ["get_weather", "get_forecast"], (2, 3, 16, 4), "properties"),
    ("tools/responses_tools.json", ["create_ticket"], (3, 5, 14, 6), "required"),
    ("tools/legacy_functions.json", ["search_products", "add_to_cart"], (3, 5, 7, 6), "properties"),
    ("tools/anthropic_tools.json", ["lookup_customer", "bash"], (2, 3, 10, 4), "required"),
    ("tools/mcp_tools_list.json", ["read_file", "list_directory"], (6, 7, 17, 8), "required"),
    ("tools/mcp_tools.yaml", ["list_events", "create_event"], (3, 5, 11, 29), "required"),
])
def test_tool_files_in_every_shape(relpath, names, first_span, schema_key):
    parsed = parse(relpath)
    assert parsed.errors == []
    (request,) = parsed.requests
    assert not request.declares_settings and request.segments == ()
    assert [t.name for t in request.tools] == names
    first = request.tools[0]
    assert where(first.span) == first_span
    assert schema_key in first.schema and isinstance(first.raw, dict)
    assert isinstance(first.description, str) and first.description
    assert lint(relpath) == []


def test_tool_raw_is_the_tool_as_written():
    (request,) = parse("tools/mcp_tools_list.json").requests
    raw = json.loads((DATA / "tools/mcp_tools_list.json").read_text())["result"]["tools"][0]
    assert request.tools[0].raw == raw
    assert request.tools[1].schema == {"type": "object", "properties": {"path": {"type": "string"}}}
    (anthropic,) = parse("tools/anthropic_tools.json").requests
    assert anthropic.tools[1].schema is None and anthropic.tools[1].raw == {"type": "bash_20250124", "name": "bash"}


@pytest.mark.parametrize("text", [
    '[{"name": "Ada", "description": "Engineer"}, {"name": "Linus", "description": "Kernel"}]',
    '[{"type": "function", "function": {"name": "f", "parameters": {}}}, {"parameters": "not a tool"}]',
    '{"tools": [{"node": "20"}], "parameters": {"a": 1}}',
    '{"tools": []}',
    '[{"name": "build", "parameters": [{"name": "target", "in": "query"}]}]',
])
def test_lists_that_are_not_all_tools_are_not_tool_files(text):
    parsed = structured.parse_file(text, "things.json")
    assert parsed.requests == [] and parsed.errors == []


# --- YAML prompt files -----------------------------------------------------------------------


def test_agent_yaml_prompt_keys_become_requests_with_roles():
    parsed = parse("yaml_prompts/agent.yaml")
    assert parsed.errors == []
    keys = [source_at("yaml_prompts/agent.yaml", r.anchor) for r in parsed.requests]
    assert keys == ["system_prompt", "user_prompt_template", "instructions"]  # not prompt_file / prompt_tokens
    system, user, instructions = parsed.requests
    assert {s.role for s in system.segments} == {Role.SYSTEM} and {s.role for s in user.segments} == {Role.USER}
    assert {s.role for s in instructions.segments} == {Role.SYSTEM}
    assert all(r.roles_marked for r in parsed.requests)  # each key says its role
    assert not system.declares_settings and system.model == "gpt-4o" and system.output_limit.value == 1200
    (date,) = system.slots()
    assert where(date.span) == (8, 16, 8, 34)
    assert source_at("yaml_prompts/agent.yaml", date.span) == "{{ current_time }}"
    assert source_at("yaml_prompts/agent.yaml", user.slots()[0].span) == "{{ topic }}"
    (words,) = instructions.slots()  # a folded block: still the right line and column
    assert source_at("yaml_prompts/agent.yaml", words.span) == "{{ max_words }}"
    assert lint("yaml_prompts/agent.yaml") == [("CTX101", 8, 16)]


def test_a_prompt_files_top_level_content_is_its_prompt():
    """A file named for a prompt holds its text under a top-level `content`; elsewhere, and below
    the top level, `content` is data."""
    text = ("version: 0.2\ncontent: |-\n  ## Context\n  {ENVIRONMENT_CONTEXT}\n\n  Answer as the code generator."
            "\nexamples:\n  - content: a worked example of the answer format\n")
    (request,) = structured.parse_file(text, "roles/code_generator_prompt.yaml").requests
    assert request.key == "content" and [s.text for s in request.slots()] == ["ENVIRONMENT_CONTEXT"]
    assert (request.anchor.line, request.anchor.column) == (2, 1)
    assert structured.parse_file(text, "roles/code_generator.yaml").requests == []


def test_crewai_agents_and_tasks_use_format_fields():
    """An agent's role, goal and backstory are one system prompt; a task's description and
    expected output one user turn (CrewAI sends each as one message)."""
    parsed = parse("yaml_prompts/crew_agents.yaml")
    keys = [source_at("yaml_prompts/crew_agents.yaml", r.anchor) for r in parsed.requests]
    assert keys == ["role", "description"]
    agent, task = parsed.requests
    assert {s.role for s in agent.segments} == {Role.SYSTEM} and {s.role for s in task.segments} == {Role.USER}
    assert {s.message_index for r in parsed.requests for s in r.segments} == {0}
    assert [s.text for s in agent.slots()] == ["topic", "topic", "topic"]  # in role, goal and backstory
    assert "concise manner" in agent.segments[-1].text
    assert [(s.text, s.slot.names) for s in task.slots()] == [
        ("topic", ("topic",)), ("current_year", ("current_year",)), ("topic", ("topic",))]
    assert source_at("yaml_prompts/crew_agents.yaml", task.slots()[1].span) == "{current_year}"
    assert lint("yaml_prompts/crew_agents.yaml") == []


def test_semantic_kernel_prompt_yaml_declares_its_execution_settings():
    (request,) = parse("yaml_prompts/sk_story.yaml").requests
    assert request.declares_settings and request.settings_hint == "`execution_settings.default.max_tokens`"
    assert (request.output_limit.key, request.output_limit.value) == ("max_tokens", 500)
    assert source_at("yaml_prompts/sk_story.yaml", request.output_limit.span) == "max_tokens"
    assert [(s.text, s.slot.names, s.slot.calls) for s in request.slots()] == [
        ("$topic", ("topic",), ()), ("$length", ("length",), ()), ("time.Date", (), ("time.Date",))]
    assert [source_at("yaml_prompts/sk_story.yaml", s.span) for s in request.slots()] == [
        "{{$topic}}", "{{$length}}", "{{time.Date}}"]
    assert lint("yaml_prompts/sk_story.yaml") == []


def test_handlebars_template_loops_are_variable_length():
    (request,) = parse("yaml_prompts/sk_handlebars.yaml").requests
    assert [(s.text, s.loop, s.slot.variable_length) for s in request.slots()] == [
        ("role", "history", True), ("content", "history", True), ("request", None, False)]
    assert request.output_limit is None
    assert lint("yaml_prompts/sk_handlebars.yaml") == [("CTX201", 1, 1)]


def test_langchain_prompt_yaml_is_an_f_string_template():
    (request,) = parse("yaml_prompts/langchain_prompt.yaml").requests
    assert [s.text for s in request.slots()] == ["adjective", "content"]  # `{{"joke": ...}}` is literal
    assert not request.roles_marked  # sent as user text by default; the file does not say
    assert source_at("yaml_prompts/langchain_prompt.yaml", request.slots()[0].span) == "{adjective}"


def test_semantic_kernel_message_elements_give_roles():
    text = ("name: Chat\ntemplate_format: semantic-kernel\ntemplate: |\n"
            "  <message role=\"system\">You are the Contoso assistant.</message>\n"
            "  <message role=\"user\">{{$request}}</message>\n"
            "execution_settings:\n  default:\n    max_tokens: 300\n")
    (request,) = structured.parse_file(text, "chat.yaml").requests
    assert [(s.role, s.text) for s in request.segments if s.text.strip()] == [
        (Role.SYSTEM, "You are the Contoso assistant."), (Role.USER, "$request")]
    assert where(request.slots()[0].span) == (5, 24, 5, 36)


def test_template_errors_inside_yaml_values_are_located():
    broken = "name: Chat\ntemplate_format: handlebars\ntemplate: |\n  Hello\n  {{#each items}}{{this}}\n"
    ((span, message),) = structured.parse_file(broken, "chat.yaml").errors
    assert span.line == 5, message
    jinja = "agent:\n  system_prompt: |\n    You are helpful.\n    {% if x %}never closed\n"
    ((span, _),) = structured.parse_file(jinja, "agent.yaml").errors
    assert span.line in (4, 5)
    syntax = "agent:\n  system_prompt: [unclosed\n  model: gpt-4o\n"
    ((span, message),) = structured.parse_file(syntax, "agent.yaml").errors
    assert span.line == 3 and message.startswith("invalid YAML")


def test_request_strings_without_jinja_are_static_even_with_braces():
    text = '{"model": "gpt-4o", "max_tokens": 9, "messages": [{"role": "system", "content": "Reply as {answer} JSON"}]}'
    (request,) = structured.parse_file(text, "r.json").requests
    assert request.slots() == [] and request.segments[0].text == "Reply as {answer} JSON"


def test_tool_schemas_may_carry_their_own_dollar_schema():
    text = json.dumps({"tools": [{"name": "search", "description": "Search.", "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {}}}]})
    (request,) = structured.parse_file(text, "server-tools.json").requests
    assert [t.name for t in request.tools] == ["search"]


def test_langchain_jinja_template_without_type_marker():
    text = "input_variables: [question]\ntemplate_format: jinja2\ntemplate: 'Answer {{ question }} now, briefly.'\n"
    (request,) = structured.parse_file(text, "qa.yaml").requests
    assert not request.declares_settings and [s.text for s in request.slots()] == ["question"]


def test_workflow_expressions_and_references_are_not_prompts():
    text = ("steps:\n  prompt: ${{ github.event.issue.body }}\n  system_prompt: ${inputs.system}\n"
            "  instructions: prompts/agent.md\n  system: linux\n")
    assert structured.parse_file(text, "flow.yaml").requests == []


def test_yaml_literal_block_positions_are_exact_for_every_line():
    text = ("agent:\n  system_prompt: |\n    Line one {{ a }}\n\n      indented {{ b }} more\n"
            "    last {{ c }}\n  other: 1\n")
    (request,) = structured.parse_file(text, "a.yaml").requests
    lines = text.split("\n")
    got = [lines[s.span.line - 1][s.span.column - 1 : s.span.end_column - 1] for s in request.slots()]
    assert got == ["{{ a }}", "{{ b }}", "{{ c }}"]


def test_yaml_quoted_scalars_map_exactly_on_one_line():
    text = "system_prompt: 'It''s {{ now() }} here, you are the assistant.'\nuser_prompt: \"Hi {{ name }}\"\n"
    system, user = structured.parse_file(text, "a.yaml").requests
    first, second = text.split("\n")[:2]
    assert first[system.slots()[0].span.column - 1 :].startswith("{{ now() }}")  # after the '' escape
    assert where(user.slots()[0].span) == (2, 18, 2, 28) and second[17:27] == "{{ name }}"
    escaped = 'system_prompt: "Tab\\there \\u00e9 {{ now() }}\\\n  and then {{ later }} too."\n'
    (request,) = structured.parse_file(escaped, "b.yaml").requests
    lines = escaped.split("\n")
    # Escapes (`\\t`, `\\u00e9`, a `\\` line continuation) are stepped over: each slot starts exactly.
    assert [lines[s.span.line - 1][s.span.column - 1 :][:11] for s in request.slots()] == [
        "{{ now() }}", "{{ later }}"]


# --- files that are not prompts ---------------------------------------------------------------

NOT_PROMPTS = sorted(p.name for p in (DATA / "not_prompts").iterdir())


@pytest.mark.parametrize("name", NOT_PROMPTS)
def test_not_prompt_files_give_nothing(name):
    parsed = parse(f"not_prompts/{name}")
    assert parsed.requests == [] and parsed.errors == []
    assert lint(f"not_prompts/{name}", None) == []  # no rule at all


def test_not_prompt_files_are_not_even_parsed():
    for name in ("package.json", "tsconfig.json", "ci.yml", "docker-compose.yml", "openapi.yaml",
                 "deployment.yaml", "eslint-results.json", "azure-template.json"):
        text = (DATA / "not_prompts" / name).read_text()
        assert structured.sniff(text, f"not_prompts/{name}") is None, name
    # A workflow under .github is skipped by its path; the same content elsewhere by its keys.
    workflow = (DATA / "not_prompts/ci.yml").read_text()
    assert structured.sniff(workflow, ".github/workflows/ci.yml") is None
    assert structured.sniff(workflow.replace("jobs:", "work:"), "ci.yml") == "yaml"


def test_lock_files_and_big_data_cost_almost_nothing():
    lock = json.dumps({"name": "x", "lockfileVersion": 3, "packages": {
        f"node_modules/pkg{i}": {"version": "1.0.0", "resolved": f"https://r/pkg{i}.tgz"} for i in range(20000)}})
    numbers = "[" + ",".join(str(i) for i in range(700_000)) + "]"  # about 5 MB
    assert len(numbers) > 4_500_000
    for text, path in ((lock, "package-lock.json"), (lock, "data/lock.json"), (numbers, "data/series.json")):
        steps, parsed = count_steps(lambda text=text, path=path: structured.parse_file(text, path))
        assert parsed.requests == []
        assert steps < 30_000, path  # recognised by a look at the text, whatever its size


# --- hostile input ------------------------------------------------------------------------------


def test_deep_nesting_is_refused_in_bounded_work():
    def refuse():
        assert structured.parse_file("[" * 10_000 + "]" * 10_000, "deep.json").errors == []  # not a prompt file
        parsed = structured.parse_file('{"messages": ' + "[" * 10_000 + "]" * 10_000 + "}", "deep.json")
        ((span, message),) = parsed.errors
        assert (span.line, span.column) == (1, 141) and "nests more than 128 levels" in message
        skimmed = structured.parse_file('{"messages": [], "model": "m", "data": ' + "[" * 10_000 + "]" * 10_000 + "}",
                                        "d.json")
        assert len(skimmed.errors) == 1 and skimmed.requests == []
        yaml_deep = structured.parse_file("system_prompt:\n  " + "- " * 5000 + "x\n", "deep.yaml")
        assert len(yaml_deep.errors) == 1

    steps, error = count_steps(refuse)
    assert error is None
    assert steps < 1_000_000  # 60,000 characters: the JSON is refused at depth 128, the YAML after one walk


def test_yaml_alias_bomb_is_refused_in_bounded_work():
    lines = ["system_prompt: You are helpful, always.", 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        previous = "a" if i == 1 else f"b{i - 1}"
        lines.append(f"b{i}: &b{i} [" + ", ".join([f"*{previous}"] * 9) + "]")
    steps, parsed = count_steps(lambda: structured.parse_file("\n".join(lines) + "\n", "bomb.yaml"))
    # Counting stops at MAX_NODES of the billions of nodes the aliases expand to.
    assert steps < 10 * yamlsafe.MAX_NODES
    ((span, message),) = parsed.errors
    assert span.line == 1 and "expands through aliases" in message


def test_big_request_with_data_is_read_in_one_step():
    numbers = ",".join(str(i) for i in range(300_000))
    text = '{"model": "gpt-4o", "max_tokens": 5, "messages": [{"role": "user", "content": "Hi"}], "data": [' + numbers + "]}"
    steps, parsed = count_steps(lambda: structured.parse_file(text, "big.json"))
    (request,) = parsed.requests
    assert request.segments[0].text == "Hi"
    assert steps < 5_000  # the data is decoded by the json module, not value by value


# --- the position-keeping JSON parser ------------------------------------------------------------

VALID = [
    '{"a": [1, -2.5e3, 0, true, false, null], "b": {"c": "d\\n\\u00e9\\ud83d\\ude00"}, "e": []}',
    '  [ ]  ', '"just a string"', "0", "-0.0E+1", '{"dup": 1, "dup": 2}', '[{}, [[]], ""]',
    '{"\\"key\\"": "\\/\\\\\\b\\f\\r\\t"}', "[1e400, 12345678901234567890]",
]


@pytest.mark.parametrize("text", VALID)
def test_parser_agrees_with_the_standard_library(text):
    assert jsonpos.parse(text).value == json.loads(text)
    assert jsonpos.parse(text, detail=()).value == json.loads(text)


@pytest.mark.parametrize(("text", "offset"), [
    ('{"a": 1,}', 8), ('{"a" 1}', 5), ("[1, 2", 5), ('{"a": tru}', 6), ("[01]", 2), ('"abc', 0),
    ('"a\\qb"', 2), ('"a\tb"', 2), ("[1] [2]", 4), ("", 0), ("[NaN]", 1), ('{"a": "x\ny"}', 6),
    ('{"a": {"b": [1,}}', 15), ('{"a": {"b": NaN}}', 12),
])
def test_parser_errors_are_located(text, offset):
    for detail in (None, ("x",)):
        with pytest.raises(jsonpos.JsonError) as caught:
            jsonpos.parse(text, detail=detail)
        assert caught.value.offset == offset, caught.value.message


def test_string_offsets_map_every_decoded_character_to_its_source():
    text = '{"s": "a\\nb\\u00e9\\ud83d\\ude00\\"{{ x }}"}'
    node = jsonpos.parse(text).fields["s"][1]
    value = node.value
    assert value == 'a\nbé😀"{{ x }}'
    locate = jsonpos.string_offsets(node)
    for i, char in enumerate(value):
        raw = text[locate(i)]
        assert raw == char or raw == "\\", (i, char, raw)
    assert text[locate(value.index("{{")) :].startswith("{{ x }}")
    assert text[locate(len(value))] == '"'


def test_lone_surrogates_are_replaced_not_kept():
    node = jsonpos.parse('["\\ud800 alone"]')
    assert node.value == ["\ufffd alone"]
    skimmed = jsonpos.parse('{"x": {"y": "\\udc00"}}', detail=())
    assert skimmed.value == {"x": {"y": "\ufffd"}}


YAML_EDGE_CASES = [
    "max_tokens: 0x_\nnote: !!int a\n",  # two bad integers: the first in the text is reported
    "created: 2024-02-30\n",
    "stream: !!bool maybe\n",
    "? [a, b]\n: c\n",  # a key that is a list
    "x: !custom foo\n",
    "x: =\n",
    "x: !!omap [a, b]\n",
    "messages: !!map\n  - {role: user}\n",
    "a: !!float abc\nb: 1\n",
    "base: &b {role: user}\nm:\n  - <<: *b\n    name: x\n",
    "max_tokens: 400\ntemperature: .5\nstop: ~\nstream: yes\nwhen: 2024-01-02\nn: 1:30\n",
]


@pytest.mark.parametrize("text", YAML_EDGE_CASES)
def test_yaml_graph_without_its_data_is_refused_exactly_as_the_loaded_document(text):
    def outcome(read):
        try:
            node = read(text)
        except yamlsafe.YamlError as error:
            return error
        return None if node is None else "read"

    assert outcome(yamlsafe.compose) == outcome(lambda t: yamlsafe.load(t).node)


def test_a_plain_yaml_graph_is_checked_without_building_its_data(monkeypatch):
    built = []
    construct = yamlsafe._Loader.construct_document
    monkeypatch.setattr(yamlsafe._Loader, "construct_document", lambda self, node: built.append(node) or
                        construct(self, node))
    tools = "tools:\n" + "".join(f"  - name: t{i}\n    description: Tool {i}.\n    input_schema: {{type: object}}\n"
                                 for i in range(50))
    (request,) = structured.parse_file(tools, "tools.yaml").requests
    assert len(request.tools) == 50 and built == []
    merged = structured.parse_file("base: &b {role: user}\nmessages:\n  - <<: *b\n    content: Hi\n", "r.yaml")
    assert len(built) == 1  # merge keys are expanded by construction
    assert [s.text for s in merged.requests[0].segments] == ["Hi"]


def test_prompt_written_in_chat_turns_keeps_each_static_part_in_the_turn_it_was_written_in():
    # One static run holds the end of the system turn and the start of the user turn: the
    # system sentence stays system text, and the user heading starts at its own line.
    source = (
        "prompts:\n"
        "  - task: answer\n"
        "    content: |-\n"
        "      <extra_id_0>System\n"
        "      You answer from the context the user gives.\n"
        "\n"
        "      <extra_id_1>User\n"
        "      Context:\n"
        "      {{ chunks }}\n"
        "      <extra_id_1>Assistant\n"
    )
    (request,) = structured.parse_file(source, "config/prompts.yml").requests
    parts = [(s.role, s.message_index, s.span.line, s.text.split("\n")[0]) for s in request.segments]
    assert parts == [
        (Role.SYSTEM, 1, 4, "<extra_id_0>System"),
        (Role.USER, 2, 7, "<extra_id_1>User"),
        (Role.USER, 2, 9, "chunks"),
        (Role.USER, 2, 9, ""),  # the line break after the slot
        (Role.ASSISTANT, 3, 10, "<extra_id_1>Assistant"),
    ]
