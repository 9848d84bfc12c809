"""Semantic Kernel (``skprompt.txt`` and its ``config.json``): template syntax, roles from
``<message>`` elements, and execution settings located in config.json."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from steps import count_steps, growth

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends import semantic_kernel as sk
from ctxlint.model import Role

DATA = Path(__file__).parent / "data" / "semantic_kernel"
CATALOGUE = load_catalogue()


def parse(function_dir: str):
    path = DATA / function_dir / "skprompt.txt"
    return sk.parse_file(path.read_text(encoding="utf-8"), str(path))


def where(span):
    return span.line, span.column, span.end_line, span.end_column


def slots(request):
    return [(s.text, s.slot.names, s.slot.calls, s.slot.variable_length) for s in request.slots()]


def test_plain_prompt_is_one_user_message_and_the_limit_is_in_config_json():
    parsed = parse("WriterPlugin/ShortPoem")
    assert parsed.errors == []
    (request,) = parsed.requests
    assert {(s.role, s.message_index) for s in request.segments} == {(Role.USER, 0)}
    assert slots(request) == [("$input", ("input",), (), False)]
    assert where(request.slots()[0].span) == (2, 7, 2, 17)
    limit = request.output_limit
    assert (limit.key, limit.value) == ("max_tokens", 60)
    assert limit.span.path == str(DATA / "WriterPlugin/ShortPoem/config.json")
    assert where(limit.span) == (7, 7, 7, 19)  # "max_tokens", quotes included
    assert request.declares_settings
    assert (request.anchor.path, request.anchor.line, request.anchor.column) == (
        str(DATA / "WriterPlugin/ShortPoem/skprompt.txt"), 1, 1)


def test_config_without_limit_declares_settings_and_gives_the_model():
    (request,) = parse("WriterPlugin/Brainstorm").requests
    assert request.declares_settings and request.output_limit is None
    assert request.model == "gpt-4o"
    assert request.settings_hint == "`execution_settings.default.max_tokens` in config.json"


def test_message_elements_split_roles_and_history_is_variable_length():
    (request,) = parse("ChatPlugin/Chat").requests
    assert slots(request) == [
        ("time.Now", (), ("time.Now",), False),
        ("$history", ("history",), (), True),
        ("$userInput", ("userInput",), (), False),
    ]
    assert [(s.role, s.message_index) for s in request.slots()] == [
        (Role.SYSTEM, 1), (Role.USER, 2), (Role.USER, 3)]
    system = [s.text for s in request.segments if s.role is Role.SYSTEM and s.slot is None]
    assert system[0].startswith("\nYou are a friendly travel assistant for Contoso Travel.\nNever book")
    assert not any("<message" in s.text or "</message" in s.text for s in request.segments)
    assert request.segments[-1].role is Role.ASSISTANT
    # Tab-indented config: the default service's limit wins over the other service's.
    assert (request.output_limit.value, where(request.output_limit.span)) == (400, (6, 4, 6, 16))
    assert request.model == "gpt-4o-2024-08-06"


def test_functions_arguments_and_literals():
    (request,) = parse("TravelPlugin/Itinerary").requests
    assert slots(request) == [
        ("time.Date", (), ("time.Date",), False),
        ("time.DayOfWeek", (), ("time.DayOfWeek",), False),
        ("$days", ("days",), (), False),
        ("$city", ("city",), (), False),
        ("$interests", ("interests",), (), False),
        ('weather.getForecast $city unit="metric"', ("city",), ("weather.getForecast",), False),
    ]
    spaced = next(s for s in request.slots() if s.text == "time.DayOfWeek")
    assert where(spaced.span) == (1, 25, 1, 45)  # `{{ time.DayOfWeek }}`, spaces inside
    literal = next(s for s in request.segments if s.text == "Bon voyage!")
    assert literal.slot is None and where(literal.span) == (4, 6, 4, 25)


def test_legacy_completion_settings():
    (request,) = parse("LegacyPlugin/Translate").requests
    assert (request.output_limit.key, request.output_limit.value, request.output_limit.span.line) == (
        "max_tokens", 2000, 6)


def test_without_config_json_no_settings_are_declared():
    (request,) = parse("SummarizePlugin/Summarize").requests
    assert not request.declares_settings and request.output_limit is None
    assert request.slots()[-1].slot.calls == ("time.Date",)


def test_broken_config_json_is_reported_in_config_json_and_the_prompt_still_checked():
    parsed = parse("BrokenPlugin/BadConfig")
    ((span, message),) = parsed.errors
    assert span.path == str(DATA / "BrokenPlugin/BadConfig/config.json")
    assert (span.line, span.column) == (7, 5)
    assert message == "invalid JSON in config.json: Expecting property name enclosed in double quotes"
    (request,) = parsed.requests
    assert not request.declares_settings  # no second finding on top of the parse error
    assert slots(request) == [("$input", ("input",), (), False)]


def test_malformed_block_is_located():
    parsed = parse("BrokenPlugin/BadTemplate")
    assert parsed.requests == []
    ((span, message),) = parsed.errors
    assert (span.line, span.column, message) == (2, 24, "nothing may follow the variable `$question` in a block")


# --- the template language, as SK tokenizes it ---------------------------------------------


def segments_of(text: str):
    return [(s.text, s.slot is not None) for s in sk.parse_template(text, "skprompt.txt")]


def test_quoted_braces_unclosed_and_empty_blocks():
    assert segments_of('A {{ "a }} b" }} B') == [("A ", False), ("a }} b", False), (" B", False)]
    assert segments_of("Use {{ to open") == [("Use {{ to open", False)]
    assert segments_of("Empty {{ }} stays") == [("Empty {{ }} stays", False)]
    assert segments_of("{{{$x}}}") == [("{", False), ("$x", True), ("}", False)]
    assert segments_of("{{ {{$x}}") == [("{{ ", False), ("$x", True)]
    assert segments_of("Say {{ 'it\\'s' }}") == [("Say ", False), ("it's", False)]


def test_named_arguments_with_spaces_and_variables():
    (segment,) = [s for s in sk.parse_template('{{search.web query="best pizza" count=$n}}', "s.txt") if s.slot]
    assert (segment.slot.calls, segment.slot.names) == (("search.web",), ("n",))


def test_history_like_variables():
    names = {"$history": True, "$chat_history": True, "$chatHistory": True, "$messages": True,
             "$historyNote": False, "$input": False}
    for variable, expected in names.items():
        (segment,) = sk.parse_template("{{" + variable + "}}", "s.txt")
        assert segment.slot.variable_length is expected, variable


def test_text_outside_message_elements_follows_python_sk():
    text = 'Intro.\n<message role="user">Q {{$q}}</message>\nTrailing note.\n'
    roles = [(s.role, s.message_index, s.text) for s in sk.parse_template(text, "s.txt")]
    assert roles == [(Role.SYSTEM, 0, "Intro.\n"), (Role.USER, 1, "Q "), (Role.USER, 1, "$q"),
                     (Role.USER, 2, "\nTrailing note.\n")]


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("{{$}}", "the variable `$` needs a name", 3),
        ("{{ $first-name }}", "the variable `$first-name` may hold only letters, digits and `_`", 4),
        ("{{fn $a $b}}", "`$b`: a function takes one positional argument (`$variable` or `\"text\"`); "
                         "name the others (`name=$variable`)", 9),
        ("{{fn word}}", "`word`: a function takes one positional argument (`$variable` or `\"text\"`); "
                        "name the others (`name=$variable`)", 6),
        ("{{a=$b}}", "`a=$b` is an argument; it must follow a function name", 3),
        ("{{a.b.c}}", "`a.b.c` is not a function name: write `plugin.function` with letters, digits and `_`", 3),
        ('{{"a"$b}}', "tokens in a `{{ }}` block must be separated by a space", 6),
        ("{{fn x=y}}", "`x=y` is not a valid argument: write `name=$variable` or `name=\"text\"`", 6),
        ('{{ "v" $x }}', 'nothing may follow the value `"v"` in a block', 8),
    ],
)
def test_malformed_blocks(text, message, column):
    with pytest.raises(sk.TemplateError) as caught:
        sk.parse_template(text, "s.txt")
    assert (caught.value.message, caught.value.offset + 1) == (message, column)


def test_inserted_values_are_html_encoded_unless_config_allows_raw_content(tmp_path):
    text = "<document>{{$page}}</document>\n{{web.fetch $url}}\n{{$note}}\n"
    escapes = [s.slot.filters for s in sk.parse_template(text, "s.txt") if s.slot]
    assert escapes == [("escape",), ("escape",), ("escape",)]
    config = ('{"allow_dangerously_set_content": true, "input_variables": ['
              '{"name": "Page", "allow_dangerously_set_content": true}, {"name": "note"}]}')
    (request,) = sk.parse_file(text, function_dir(tmp_path, text, config)).requests
    assert [(s.text, s.slot.filters) for s in request.slots()] == [
        ("$page", ()), ("web.fetch $url", ()), ("$note", ("escape",))]


# --- config.json edge cases ----------------------------------------------------------------


def function_dir(tmp_path: Path, prompt: str, config: str | bytes | None) -> str:
    folder = tmp_path / "Plugin" / "Function"
    folder.mkdir(parents=True)
    (folder / "skprompt.txt").write_text(prompt, encoding="utf-8")
    if isinstance(config, bytes):
        (folder / "config.json").write_bytes(config)
    elif config is not None:
        (folder / "config.json").write_text(config, encoding="utf-8")
    return str(folder / "skprompt.txt")


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('[{"max_tokens": 5}]', ("config.json must be a JSON object with `execution_settings`", 1, 1)),
        (b"\x00\x01binary", ("config.json is a binary file, not JSON execution settings", 1, 1)),
        (b'{\n  "description": "caf\xe9"\n}', ("not valid UTF-8 (byte 0xe9); save config.json as UTF-8", 2, 22)),
        ("[" * 5000 + "]" * 5000, ("invalid JSON in config.json: the JSON nests more than 128 levels deep; not read",
                                   1, 129)),
        ("", ("invalid JSON in config.json: Expecting value", 1, 1)),
    ],
)
def test_unreadable_config_is_a_located_error(tmp_path, config, expected):
    path = function_dir(tmp_path, "Hi {{$name}}\n", config)
    parsed = sk.parse_file("Hi {{$name}}\n", path)
    ((span, message),) = parsed.errors
    assert span.path == os.path.join(os.path.dirname(path), "config.json")
    assert (message, span.line, span.column) == expected
    assert not parsed.requests[0].declares_settings


def test_list_of_settings_bom_crlf_and_a_non_integer_limit(tmp_path):
    config = '\ufeff{\r\n  "execution_settings": [\r\n    {"model_id": "gpt-4.1", "max_tokens": "300"}\r\n  ]\r\n}\r\n'
    path = function_dir(tmp_path, "Hi\n", config)
    (request,) = sk.parse_file("Hi\n", path).requests
    assert (request.output_limit.key, request.output_limit.value) == ("max_tokens", None)
    assert where(request.output_limit.span) == (3, 29, 3, 41)
    assert request.model == "gpt-4.1"


def test_service_specific_limit_counts_when_default_has_none(tmp_path):
    config = '{"execution_settings": {"default": {"temperature": 0}, "gpt4": {"max_completion_tokens": 700}}}'
    (request,) = sk.parse_file("Hi\n", function_dir(tmp_path, "Hi\n", config)).requests
    assert (request.output_limit.key, request.output_limit.value) == ("max_completion_tokens", 700)


# --- through the engine ------------------------------------------------------------------


def lint(paths: list[Path], root: Path):
    return Linter(Settings(root=root, preview=True), CATALOGUE).lint_files(paths).findings


def test_engine_findings_land_in_the_right_files(tmp_path, monkeypatch):
    monkeypatch.chdir(DATA)
    prompts = sorted(Path(".").rglob("skprompt.txt"))
    found = sorted((f.span.path, f.span.line, f.span.column, f.code) for f in lint(prompts, DATA))
    assert found == sorted([
        ("BrokenPlugin/BadConfig/config.json", 7, 5, "CTX001"),
        ("BrokenPlugin/BadTemplate/skprompt.txt", 2, 24, "CTX001"),
        ("TravelPlugin/Itinerary/skprompt.txt", 1, 10, "CTX101"),
        ("WriterPlugin/Brainstorm/skprompt.txt", 1, 1, "CTX201"),
    ])


def test_missing_limit_message_names_config_json(tmp_path):
    path = Path(function_dir(tmp_path, "Summarise {{$input}}\n", '{"execution_settings": {"default": {}}}'))
    (finding,) = lint([path], tmp_path)
    assert (finding.code, finding.span.line, finding.span.column) == ("CTX201", 1, 1)
    assert "Set `execution_settings.default.max_tokens` in config.json to the longest answer" in finding.message


def test_encoded_content_inside_a_delimiter_is_not_reported_as_unescaped(tmp_path):
    text = "Summarise the page.\n<document>{{$page}}</document>\n"
    path = Path(function_dir(tmp_path, text, '{"execution_settings": {"default": {"max_tokens": 300}}}'))
    assert [f.code for f in lint([path], tmp_path)] == []
    (tmp_path / "Plugin/Function/config.json").write_text(
        '{"execution_settings": {"default": {"max_tokens": 300}},'
        ' "input_variables": [{"name": "page", "allow_dangerously_set_content": true}]}', encoding="utf-8")
    assert [f.code for f in lint([path], tmp_path)] == ["CTX403"]


def parse_or_error(text: str):
    def parse():
        try:
            return sk.parse_template(text, "skprompt.txt")
        except sk.TemplateError as error:
            return error

    return parse


@pytest.mark.parametrize("unit", ["{{", '{{"', "{{$", "{{ a", "<message role='user'>"])
def test_hostile_templates_are_read_in_linear_work(unit):
    text = unit * (250_000 // len(unit))  # benchmarks/fuzz.py --sizes times the full megabyte
    steps, _ = count_steps(parse_or_error(text))
    assert steps < 5 * len(text)  # a few Python lines per character, whatever the unit
    assert growth(lambda n: parse_or_error(unit * n), 2_000) < 1.2
