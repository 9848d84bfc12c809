"""Front-ends turn real-looking files into the shared model: roles, spans and slot facts."""

from __future__ import annotations

from pathlib import Path

from ctxlint.frontends import jinja, prompty, text
from ctxlint.model import Role

DATA = Path(__file__).parent / "data"


def parse(fmt_module, relpath: str):
    path = DATA / relpath
    return fmt_module.parse_file(path.read_text(encoding="utf-8"), relpath)


def slots(request):
    return [(s.span.line, s.span.column, s.text) for s in request.slots()]


def test_promptflow_role_lines_split_messages_and_loops_mark_history():
    parsed = parse(jinja, "jinja/promptflow_chat.jinja2")
    assert parsed.errors == []
    (request,) = parsed.requests
    assert [(s.role, s.message_index) for s in request.slots()] == [
        (Role.SYSTEM, 1), (Role.SYSTEM, 1), (Role.USER, 2), (Role.ASSISTANT, 3), (Role.USER, 4)]
    assert slots(request) == [
        (2, 33, "company"), (3, 22, "tone"), (7, 1, "item.inputs.question"),
        (9, 1, "item.outputs.answer"), (13, 1, "question")]
    history = [s for s in request.slots() if s.loop]
    assert [s.loop for s in history] == ["chat_history", "chat_history"]
    assert all(s.slot.variable_length for s in history)
    assert not request.slots()[-1].slot.variable_length
    # Role lines are markup, not content: no static segment contains them.
    assert not any("# user:" in s.text for s in request.segments)


def test_spans_cover_the_whole_expression_and_static_text_is_exact():
    (request,) = parse(jinja, "jinja/promptflow_chat.jinja2").requests
    company = request.slots()[0]
    assert (company.span.line, company.span.column, company.span.end_line, company.span.end_column) == (2, 33, 2, 46)
    source = (DATA / "jinja/promptflow_chat.jinja2").read_text().splitlines()
    assert source[1][32:45] == "{{ company }}"
    first_static = request.segments[0]
    assert first_static.text == "You are a helpful assistant for "


def test_aliases_macros_and_captured_blocks():
    (request,) = parse(jinja, "jinja/rag_answer.j2").requests
    by_text = {s.text: s for s in request.slots()}
    # The macro body and the block `set` are captured, not sent: their slots are not segments.
    assert list(by_text) == ["doc.id", "doc.text | e", "question", "footer"]
    assert by_text["doc.text | e"].slot.filters == ("e",)
    assert by_text["doc.id"].loop == 'retrieved_documents | sort'
    assert by_text["question"].slot.names == ("question",)
    assert request.segments[0].text.startswith("\nAnswer from the documents only.")


def test_set_alias_carries_the_facts_of_its_value():
    segments = jinja.parse_template("{% set ts = datetime.utcnow() %}Now: {{ ts }}\nRules.\n", "a.j2")
    (slot,) = [s for s in segments if s.slot]
    assert slot.slot.names == ("ts",)
    assert slot.slot.calls == ("datetime.utcnow",)


def test_calls_are_not_names_and_dotted_paths_are_whole():
    (segment,) = [s for s in jinja.parse_template("{{ fmt(user.profile.name, now()) }}", "a.j2") if s.slot]
    assert segment.slot.calls == ("fmt", "now")
    assert segment.slot.names == ("user.profile.name",)


def test_whitespace_control_keeps_columns_exact():
    source = "Hi {{- name -}}   !\n  {%- for x in xs %}[{{ x }}]{% endfor %}\n"
    segments = jinja.parse_template(source, "a.j2")
    located = [(s.span.line, s.span.column, s.text) for s in segments]
    assert located == [(1, 1, "Hi"), (1, 4, "name"), (1, 19, "!"), (2, 21, "["), (2, 22, "x"), (2, 29, "]"),
                       (2, 42, "\n")]
    lines = source.splitlines()
    for s in segments:
        if s.slot is None and s.text.strip():
            assert lines[s.span.line - 1][s.span.column - 1:].startswith(s.text)
        elif s.slot is not None:
            assert lines[s.span.line - 1][s.span.column - 1:].startswith("{{")


def test_syntax_error_is_located():
    parsed = jinja.parse_file("line one\nline two {{ oops(\nline three\n", "bad.j2")
    assert parsed.requests == []
    ((span, message),) = parsed.errors
    assert (span.line, message) == (3, "expected token ',', got 'three'")


def test_prompty_front_matter_gives_model_and_limit_with_positions():
    parsed = parse(prompty, "prompty/basic.prompty")
    (request,) = parsed.requests
    assert request.model == "gpt-4o-mini"
    assert request.output_limit.key == "max_tokens"
    assert request.output_limit.value == 128
    assert (request.output_limit.span.line, request.output_limit.span.column) == (10, 5)
    assert (request.anchor.line, request.anchor.column) == (4, 1)
    assert request.declares_settings
    roles = {(s.role, s.message_index) for s in request.segments}
    assert roles == {(Role.SYSTEM, 1), (Role.USER, 2)}
    (question,) = request.slots()
    assert (question.span.line, question.span.column) == (21, 1)


def test_prompty_v2_spelling():
    (request,) = parse(prompty, "prompty/v2.prompty").requests
    assert request.model == "claude-sonnet-4-5"
    assert (request.output_limit.key, request.output_limit.value) == ("maxOutputTokens", 2048)


def test_prompty_yaml_error_is_located_in_the_file():
    parsed = prompty.parse_file("---\nname: x\nmodel: [unclosed\n---\nsystem:\nhi\n", "x.prompty")
    ((span, message),) = parsed.errors
    assert span.line == 4 and message.startswith("invalid YAML")


def test_prompty_body_error_is_located_after_the_front_matter():
    parsed = prompty.parse_file("---\nname: x\n---\nsystem:\nhi {{ x\n", "x.prompty")
    ((span, _),) = parsed.errors
    assert span.line == 5


def test_text_file_is_one_static_system_message():
    (request,) = parse(text, "text/style.md").requests
    (segment,) = request.segments
    assert segment.role is Role.SYSTEM and segment.slot is None
    assert (segment.span.line, segment.span.end_line) == (1, 4)


def test_static_after_goes_by_position_when_a_text_appears_twice():
    from ctxlint.model import Request, Segment, Slot, Span

    span = Span("a.py", 1, 1, 1, 5)
    stamp = Segment(Role.SYSTEM, span, "stamp", Slot("stamp"))
    rules = Segment(Role.SYSTEM, Span("a.py", 2, 1, 2, 9), "Rules.\n")
    request = Request("a.py", span, (stamp, rules, stamp))
    assert request.static_after(0) == [rules]
    assert request.static_after(2) == []
    assert [i for i, _ in request.indexed_slots()] == [0, 2]


def test_the_collector_is_off_while_a_file_is_parsed_and_on_after(monkeypatch):
    import gc

    from ctxlint import frontends
    from ctxlint.frontends import python

    seen = []

    def parse_file(text, path, context=None):
        seen.append(gc.isenabled())
        if text == "boom":
            raise ValueError("a front-end failed")
        return python.ParsedFile(path)

    monkeypatch.setattr(python, "parse_file", parse_file)
    thresholds = gc.get_threshold()
    frontends.parse("python", "x = 1\n", "a.py")
    try:
        frontends.parse("python", "boom", "a.py")
    except ValueError:
        pass
    assert seen == [False, False]
    assert gc.isenabled() and gc.get_threshold() == thresholds  # also after a failure


SIMPLE_TEMPLATES = [
    "Hello {{ name }}, read {{ user.profile.bio }}.\n",
    "system:\nYou help {{ team }}.\nuser:\n{{ question }}\n",
    "{{a}}{{ b }}\n{{\n  c.d\n}} tail",
    "Only text, no tags at all.\n",
    "# system:\nRules for {{ x_1 }}.\n# assistant:\n",
]


def test_name_only_templates_read_without_jinja_give_the_parsers_segments(monkeypatch):
    quick = {source: jinja.parse_template(source, "a.j2", default_role=Role.USER) for source in SIMPLE_TEMPLATES}
    monkeypatch.setattr(jinja, "_simple_tags", lambda source: None)  # every template through Jinja's parser
    for source, segments in quick.items():
        assert segments == jinja.parse_template(source, "a.j2", default_role=Role.USER), source
    hello = quick[SIMPLE_TEMPLATES[0]]
    assert [(s.text, s.slot.names if s.slot else None) for s in hello] == [
        ("Hello ", None), ("name", ("name",)), (", read ", None), ("user.profile.bio", ("user.profile.bio",)),
        (".\n", None)]
