"""Shapes that span files or stand alone: a file that is one tool, tool files found by a
configured glob, Prompty ``${file:...}`` references and promptflow LLM nodes."""

from __future__ import annotations

import textwrap

from ctxlint.frontends import prompty, promptflow, structured

FLOW = textwrap.dedent("""\
    nodes:
    - name: answer
      type: llm
      source:
        type: code
        path: answer.jinja2
      inputs:
        deployment_name: gpt-4o-mini
        max_tokens: 300
        question: ${inputs.question}
      connection: open_ai_connection
    """)


def test_a_file_holding_one_tool_in_each_shape():
    shapes = {
        "mcp.json": '{"name": "find", "description": "Find.", "inputSchema": {"type": "object", "properties": {}}}',
        "anthropic.yaml": "name: find\ndescription: Find.\ninput_schema:\n  type: object\n  properties: {}\n",
        "openai.json": '{"type": "function", "function": {"name": "find", "parameters": {"type": "object"}}}',
    }
    for name, text in shapes.items():
        [request] = structured.parse_file(text, name).requests
        assert [t.name for t in request.tools] == ["find"], name
    assert structured.parse_file('{"name": "x", "parameters": {"port": 1}}', "launch.json").requests == []


def test_any_suffix_is_read_by_its_content_when_a_glob_sends_it():
    [request] = structured.parse_file('[{"name": "a", "input_schema": {"type": "object"}}]', "t/tools.snap").requests
    assert [t.name for t in request.tools] == ["a"]
    yaml_tools = "- name: b\n  input_schema:\n    type: object\n"
    assert [t.name for t in structured.parse_file(yaml_tools, "t/tools.snapshot").requests[0].tools] == ["b"]


def test_prompty_file_references_are_read_relative_to_the_prompt(tmp_path):
    (tmp_path / "tools.json").write_text(
        '[{"type": "function", "function": {"name": "search", "description": "Search.", '
        '"parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}]', encoding="utf-8")
    (tmp_path / "sample.json").write_text('{"question": "hi"}', encoding="utf-8")
    source = textwrap.dedent("""\
        ---
        model:
          api: chat
          parameters:
            max_tokens: 200
            tools: ${file:tools.json}
        sample: ${file:sample.json}
        inputs: ${file:missing.json}
        ---
        user:
        {{question}}
        """)
    path = str(tmp_path / "chat.prompty")
    parsed = prompty.parse_file(source, path)
    [request] = parsed.requests
    assert [(t.name, t.span.path, t.span.line) for t in request.tools] == [("search", str(tmp_path / "tools.json"), 1)]
    assert parsed.dependencies == [str(tmp_path / n) for n in ("tools.json", "sample.json", "missing.json")]
    [(span, message)] = parsed.errors
    assert (span.path, span.line) == (path, 8) and message.startswith("cannot read `${file:missing.json}`")


def test_promptflow_llm_node_reads_its_template_with_the_node_settings(tmp_path):
    (tmp_path / "answer.jinja2").write_text("# system:\nAnswer briefly.\n# user:\n{{question}}\n", encoding="utf-8")
    path = str(tmp_path / "flow.dag.yaml")
    parsed = promptflow.parse_file(FLOW, path)
    [request] = parsed.requests
    assert (request.model, request.output_limit.value, request.anchor.line) == ("gpt-4o-mini", 300, 2)
    assert request.output_limit.span.path == path and request.output_limit.span.line == 9
    assert [(s.role.value, s.text.strip(), s.span.path) for s in request.segments if s.text.strip()] == [
        ("system", "Answer briefly.", str(tmp_path / "answer.jinja2")),
        ("user", "question", str(tmp_path / "answer.jinja2"))]
    assert parsed.dependencies == [str(tmp_path / "answer.jinja2")]


def test_promptflow_broken_inputs_give_located_errors(tmp_path):
    path = str(tmp_path / "flow.dag.yaml")
    assert promptflow.parse_file("nodes: [\n", path).errors[0][0].line >= 1
    (tmp_path / "answer.jinja2").write_text("{% if %}\n", encoding="utf-8")
    parsed = promptflow.parse_file(FLOW, path)
    assert parsed.errors and parsed.errors[0][0].path == str(tmp_path / "answer.jinja2")
    assert parsed.requests[0].output_limit.value == 300  # the node's settings are still read
