"""Dotprompt (``*.prompt``): front matter settings and the Handlebars body as the shared model."""

from __future__ import annotations

from pathlib import Path

from conftest import HOUSE_STYLE

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends import dotprompt
from ctxlint.model import Role, Severity

DATA = Path(__file__).parent / "data"
CATALOGUE = load_catalogue()


def parse(relpath: str):
    return dotprompt.parse_file((DATA / relpath).read_text(encoding="utf-8"), relpath)


def where(span):
    return span.line, span.column, span.end_line, span.end_column


def test_front_matter_after_licence_lines_gives_model_limit_tools_and_anchor():
    parsed = parse("dotprompt/support_chat.prompt")
    assert parsed.errors == []
    (request,) = parsed.requests
    assert request.model == "googleai/gemini-2.5-flash"
    assert (request.output_limit.key, request.output_limit.value) == ("maxOutputTokens", 1024)
    assert where(request.output_limit.span) == (7, 3, 7, 18)  # the key, below the two licence lines
    assert where(request.anchor)[:2] == (5, 1)  # `config:`
    assert request.declares_settings and request.settings_hint == "`config.maxOutputTokens`"
    assert [(t.name, t.schema, t.span.line, t.span.column) for t in request.tools] == [
        ("lookupOrder", None, 8, 9), ("refundPolicy", None, 8, 22)]


def test_roles_and_history():
    (request,) = parse("dotprompt/support_chat.prompt").requests
    slots = [(s.text, s.role, s.message_index, s.loop, s.slot.variable_length) for s in request.slots()]
    assert slots == [
        ("history", Role.USER, 1, None, True),
        ("customerName", Role.USER, 2, None, False),
        ("question", Role.USER, 2, None, False),
        ("currentDate", Role.USER, 2, None, False),
    ]
    # Role markers and comments are markup: no segment holds them.
    assert not any("role" in s.text or "{{!" in s.text for s in request.segments)
    system = "".join(s.text for s in request.segments if s.role is Role.SYSTEM)
    assert system == ("\nYou are the support assistant for Northwind Traders.\nNever promise a refund before "
                      "checking the order with lookupOrder.\nAnswer in the customer's language, in three "
                      "sentences or fewer.\n")
    # The history is a message of its own; the newline after it joins the next user message.
    assert [(s.role, s.text) for s in request.segments if s.message_index == 1] == [(Role.USER, "history")]
    assert {s.role for s in request.segments if s.message_index == 2} == {Role.USER}
    # Dotprompt compiles with noEscape: nothing is HTML-escaped.
    assert all(s.slot.filters == () for s in request.slots())


def test_slot_spans_cover_the_mustache():
    for relpath in ("dotprompt/support_chat.prompt", "dotprompt/rag_answer.prompt"):
        (request,) = parse(relpath).requests
        lines = (DATA / relpath).read_text(encoding="utf-8").splitlines()
        for segment in request.slots():
            line = lines[segment.span.line - 1]
            assert line[segment.span.column - 1 : segment.span.end_column - 1] == "{{" + segment.text + "}}"
    (request,) = parse("dotprompt/support_chat.prompt").requests
    history = next(s for s in request.slots() if s.text == "history")
    assert where(history.span) == (18, 1, 18, 12)


def test_each_loop_body_is_variable_length_and_its_else_branch_is_not():
    (request,) = parse("dotprompt/rag_answer.prompt").requests
    assert (request.output_limit.value, request.model) == (800, "googleai/gemini-2.5-pro")
    facts = [(s.text, s.role, s.message_index, s.loop, s.slot.variable_length, where(s.span)) for s in request.slots()]
    assert facts == [
        ("@index", Role.USER, 1, "documents", True, (14, 18, 14, 28)),
        ("doc", Role.USER, 1, "documents", True, (14, 30, 14, 37)),
        ("question", Role.USER, 1, None, False, (18, 11, 18, 23)),
    ]
    in_loop = [s.text for s in request.segments if s.slot is None and s.loop == "documents"]
    assert in_loop == ["\n<document index=\"", "\">", "</document>\n"]
    empty = next(s for s in request.segments if "No documents" in s.text)
    assert empty.loop is None and empty.role is Role.USER


def test_media_section_and_conditional_text():
    parsed = parse("dotprompt/describe_image.prompt")
    (request,) = parsed.requests
    assert request.output_limit is None and request.model == "vertexai/gemini-2.5-pro"
    assert where(request.anchor)[:2] == (3, 1)
    facts = [(s.text, s.role, s.message_index, s.slot.names, s.slot.calls) for s in request.slots()]
    assert facts == [
        ("style", Role.SYSTEM, 0, ("style",), ()),
        ('section "output"', Role.SYSTEM, 0, (), ("section",)),
        ("media url=photoUrl", Role.USER, 1, ("photoUrl",), ("media",)),
    ]
    statics = [s.text for s in request.segments if s.slot is None and s.text.strip()]
    assert statics == ["\nDescribe images for a product catalogue", " in a ", " tone", ".\n",
                       "\nDescribe this product photo.\n"]


def test_no_front_matter_is_all_user_text_and_partials_are_slots():
    (request,) = parse("dotprompt/greeting.prompt").requests
    # No model configuration: a template the code renders and sends with its own settings.
    assert not request.declares_settings and request.output_limit is None
    assert where(request.anchor)[:2] == (1, 1)
    assert {s.role for s in request.segments} == {Role.USER}
    assert [(s.text, s.slot.names) for s in request.slots()] == [
        ("name", ("name",)), ("location", ("location",)), ("> disclaimer", ())]


def test_a_partial_file_declares_no_settings():
    (request,) = parse("dotprompt/_disclaimer.prompt").requests
    assert not request.declares_settings
    assert [s.text for s in request.segments] == ["\nAnswers are informational and not legal advice.\n"]


def test_array_inputs_make_their_slots_variable_length():
    text = (
        "---\ninput:\n  schema:\n    notes(array): string\n    meta:\n      type: object\n---\n"
        "Notes: {{notes}}\nMeta: {{meta}}\nEnd.\n"
    )
    (request,) = dotprompt.parse_file(text, "n.prompt").requests
    assert [(s.text, s.slot.variable_length) for s in request.slots()] == [("notes", True), ("meta", False)]
    json_schema = ("---\ninput:\n  schema:\n    type: object\n    properties:\n      docs: {type: array}\n"
                   "---\n{{docs}}\n")
    (request,) = dotprompt.parse_file(json_schema, "j.prompt").requests
    assert request.slots()[0].slot.variable_length


def test_roles_merge_like_dotprompt():
    text = '{{role "system"}}\n{{role "user"}}\nHi {{name}}\n{{role "model"}}Hello!{{role "tool"}}{{result}}\n'
    (request,) = dotprompt.parse_file(text, "r.prompt").requests
    # The system marker is followed only by whitespace, so the user marker just changes the role
    # of the message being built: one message, one role.
    assert [(s.role, s.message_index, s.text) for s in request.segments] == [
        (Role.USER, 0, "\n"), (Role.USER, 0, "\nHi "), (Role.USER, 0, "name"), (Role.USER, 0, "\n"),
        (Role.ASSISTANT, 1, "Hello!"), (Role.TOOL, 2, "result"), (Role.TOOL, 2, "\n")]


def test_markers_in_a_row_give_the_message_the_last_role():
    text = ('{{role "system"}}\n' + '{{role "user"}}\n' * 3
            + '{{role "model"}}\nHello!\n{{role "user"}}\n\n{{history}}\n')
    (request,) = dotprompt.parse_file(text, "r.prompt").requests
    assert [(s.role, s.message_index) for s in request.segments] == [(Role.ASSISTANT, 0)] * 5 + [
        (Role.USER, 1), (Role.USER, 2), (Role.ASSISTANT, 3)]


def test_text_right_after_history_is_a_model_message_as_in_dotprompt():
    text = '{{role "system"}}Be brief.\n{{history}}\nSure, continuing.\n{{role "user"}}{{question}}\n'
    (request,) = dotprompt.parse_file(text, "h.prompt").requests
    assert [(s.role, s.message_index, s.text) for s in request.segments if s.text.strip()] == [
        (Role.SYSTEM, 0, "Be brief.\n"), (Role.USER, 1, "history"), (Role.ASSISTANT, 2, "\nSure, continuing.\n"),
        (Role.USER, 3, "question")]


def test_handlebars_error_is_located_in_the_file():
    parsed = parse("dotprompt/broken_block.prompt")
    assert parsed.requests == []
    ((span, message),) = parsed.errors
    assert (span.line, span.column, message) == (8, 1, "`{{#each documents}}` is never closed; add `{{/each}}`")


def test_yaml_error_is_located_in_the_file():
    ((span, message),) = parse("dotprompt/broken_front_matter.prompt").errors
    assert span.line == 5 and message.startswith("invalid YAML")
    text = "# licence\n\n---\nmodel: [x\n---\nHi\n"
    ((span, _),) = dotprompt.parse_file(text, "l.prompt").errors
    assert span.line == 5


def test_unclosed_and_non_mapping_front_matter():
    ((span, message),) = dotprompt.parse_file("# header\n---\nmodel: x\nHello {{name}}\n", "u.prompt").errors
    assert (span.line, message) == (2, "the front matter opened here is never closed with a `---` line")
    ((span, message),) = dotprompt.parse_file("---\n- a\n- b\n---\nHi\n", "s.prompt").errors
    assert span.line == 2 and message.startswith("the front matter must be a YAML mapping")


def test_body_error_line_counts_the_front_matter():
    parsed = dotprompt.parse_file("---\nmodel: m\n---\nline four\nline five {{name\n", "b.prompt")
    ((span, message),) = parsed.errors
    assert (span.line, span.column, message) == (5, 11, "`{{name` is never closed with `}}`")


def test_non_integer_limit_is_kept_with_no_value():
    (request,) = dotprompt.parse_file("---\nconfig:\n  maxOutputTokens: lots\n---\nHi\n", "v.prompt").requests
    assert (request.output_limit.key, request.output_limit.value) == ("maxOutputTokens", None)


# --- through the engine ------------------------------------------------------------------


def lint(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return Linter(Settings(root=tmp_path, preview=True), CATALOGUE).lint_files([path]).findings


def test_a_well_formed_prompt_with_a_date_in_the_tail_is_clean(tmp_path):
    text = (DATA / "dotprompt/support_chat.prompt").read_text(encoding="utf-8")
    findings = lint(tmp_path, "support_chat.prompt", text)
    # Info-level notes (if any rule adds them) are not problems.
    assert [(f.code, f.span.line) for f in findings if f.severity is not Severity.INFO] == []


def test_handlebars_comment_suppresses_the_next_line(tmp_path):
    text = (
        "---\nconfig:\n  maxOutputTokens: 100\n---\n{{role \"system\"}}\n"
        "{{! ctxlint: ignore[CTX101] }}\nStarted at {{currentTime}}\nYou are the maths tutor. Explain each step of a solution and check the "
        "student's answer before you give your own. Never give the final answer to a homework question, ask "
        "one question at a time, and praise the steps the student got right before you correct a mistake."
        + HOUSE_STYLE + "\n"
    )
    assert lint(tmp_path, "tutor.prompt", text) == []
    findings = lint(tmp_path, "tutor.prompt", text.replace("{{! ctxlint: ignore[CTX101] }}\n", ""))
    assert [(f.code, f.span.line, f.span.column) for f in findings] == [("CTX101", 6, 12)]


def test_hostile_body_is_a_located_finding(tmp_path):
    findings = lint(tmp_path, "bomb.prompt", "---\nmodel: m\n---\n" + "{{" * 500_000)
    assert [(f.code, f.span.line, f.span.column) for f in findings] == [("CTX001", 4, 1)]


def test_a_jinja_body_is_read_with_jinja_and_other_front_matter_configures_no_call():
    """Code-generation agents name Jinja templates ``*.prompt``: the body's syntax decides the
    parser, and front matter with only a name, description and version is metadata."""
    parsed = parse("dotprompt/jinja_task.prompt")
    assert parsed.errors == []
    (request,) = parsed.requests
    assert not request.declares_settings and request.model is None and not request.roles_marked
    assert [(s.text, s.slot.names, s.loop, s.span.line) for s in request.slots()] == [
        ("task.description", ("task.description",), None, 7),
        ("file.path", ("file.path",), "files", 9),
        ('output_format | default("a unified diff")', ("output_format",), None, 11)]


def test_a_broken_jinja_body_is_located_in_the_file():
    text = "---\nname: t\n---\nIntro.\n{% for f in files %}\n- {{ f }}\n"
    parsed = dotprompt.parse_file(text, "t.prompt")
    assert [(span.line, message.split(".")[0]) for span, message in parsed.errors] == [
        (6, "Unexpected end of template")]


def test_an_image_answer_needs_no_text_limit():
    text = ("---\nmodel: googleai/gemini-2.5-flash-image\nconfig:\n  responseModalities: [IMAGE]\n---\n"
            "A watercolour of {{subject}}.\n")
    (request,) = dotprompt.parse_file(text, "art.prompt").requests
    assert not request.declares_settings
    # An image beside text is still an image answer; speech beside text is a text answer.
    (request,) = dotprompt.parse_file(text.replace("[IMAGE]", "[TEXT, IMAGE]"), "art.prompt").requests
    assert not request.declares_settings
    (request,) = dotprompt.parse_file(text.replace("[IMAGE]", "[TEXT, AUDIO]"), "art.prompt").requests
    assert request.declares_settings


def test_a_jinja_body_quoting_handlebars_in_a_raw_block_is_read_with_jinja():
    text = "Show the syntax literally: {% raw %}{{#each items}}{{this}}{{/each}}{% endraw %}\nHello {{ name }}.\n"
    parsed = dotprompt.parse_file(text, "syntax.prompt")
    assert parsed.errors == []
    (request,) = parsed.requests
    assert [s.text for s in request.slots()] == ["name"]
    assert "{{#each items}}" in "".join(s.text for s in request.segments if s.slot is None)
