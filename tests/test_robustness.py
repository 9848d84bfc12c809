"""Classes of input that once crashed ctxlint, each generated here at a size well past the point
where it failed: a located CTX001 or ordinary findings, never an internal error."""

from __future__ import annotations

import json

import pytest
from conftest import CLOCK_TEMPLATE

from ctxlint import tokens
from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter

CATALOGUE = load_catalogue()


def lint(tmp_path, name: str, text: str, **settings):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    result = Linter(Settings(root=tmp_path, **{"preview": True, **settings}), CATALOGUE).lint_files([path], jobs=1)
    assert result.errors == []
    return result.findings


def located(findings) -> list[tuple[str, int, int]]:
    return [(f.code, f.span.line, f.span.column) for f in findings]


# --- 1. YAML scalars the safe loader resolves to a type but cannot construct -------------------

# Each host puts the value at a known line and column.
YAML_HOSTS = {
    "front matter of a Prompty file": ("a.prompty", "---\nmodel:\n  parameters:\n    max_tokens: {}\n---\nsystem:\nhi\n",
                                       4, 17),
    "front matter of a Dotprompt file": ("a.prompt", "---\nconfig:\n  maxOutputTokens: {}\n---\nhi\n", 3, 20),
    "a YAML request": ("request.yaml", "model: gpt-4o\nmax_tokens: {}\nmessages:\n  - role: user\n    content: hi\n",
                       2, 13),
    "a YAML tool file": ("tools.yaml", "tools:\n  - name: a\n    description: {}\n    input_schema: {{type: object}}\n",
                         3, 18),
    "a YAML prompt file": ("agent.yaml", "system_prompt: You are terse.\nnote: {}\n", 2, 7),
}
UNCONSTRUCTIBLE = {
    "!!int a": "`a` is not an integer",
    "!!float x": "`x` is not a number",
    "0x_": "`0x_` is not an integer",
    "0b__": "`0b__` is not an integer",
    "2024-02-30": "`2024-02-30` is not a valid date or time (day is out of range for month)",
    "2024-01-01 5:61:61": "`2024-01-01 5:61:61` is not a valid date or time (minute must be in 0..59)",
    "!!bool maybe": "`maybe` is not a boolean (true or false)",
    "!!timestamp soon": "`soon` is not a valid date or time",
    "!!int ''": "`` is not an integer",
}


@pytest.mark.parametrize("value", UNCONSTRUCTIBLE)
@pytest.mark.parametrize("host", YAML_HOSTS)
def test_an_unconstructible_yaml_value_is_invalid_yaml_at_the_value(tmp_path, host, value):
    name, template, line, column = YAML_HOSTS[host]
    findings = lint(tmp_path, name, template.format(value))
    assert located(findings) == [("CTX001", line, column)]
    assert findings[0].message == (f"invalid YAML: {UNCONSTRUCTIBLE[value]}; write it as a quoted string "
                                   "if it is text")


DEEP_YAML = {  # 40,000 levels: PyYAML's C composer overflowed the C stack from about 30,000
    "block sequences": "- " * 40_000 + "x",
    "flow sequences": "[" * 40_000 + "]" * 40_000,
}


@pytest.mark.parametrize("shape", DEEP_YAML)
def test_yaml_nesting_deeper_than_the_bound_is_refused_before_it_is_composed(project, shape):
    # In a process of its own: the failure this guards against killed the process.
    deep = DEEP_YAML[shape]
    files = {name: template.replace("{}", "\n" + " " * 8 + deep if shape == "block sequences" else deep)
             .replace("{{", "{").replace("}}", "}")
             for name, template, _, _ in YAML_HOSTS.values()}
    project.write({**files, "clock.j2": CLOCK_TEMPLATE})
    run = project.run("check", "--no-cache", "--select", "CTX001,CTX101")
    assert run.code == 1 and "Traceback" not in run.stderr, run.stderr
    # Ours, or the same refusal from libyaml itself: PyYAML 6.0.4's bundled libyaml stops at its own
    # maximum nesting depth ("while increasing flow level, exceeded maximum nesting depth").
    refused = [line for line in run.lines if " CTX001 " in line and ("the YAML nests more than 1,000 levels deep"
                                                                      in line or "exceeded maximum nesting depth" in line)]
    assert sorted(line.split(":")[0] for line in refused) == sorted(files)
    assert any(line.startswith("clock.j2:1:") and "CTX101" in line for line in run.lines)  # other files linted


def test_brackets_inside_strings_do_not_make_shallow_yaml_deep(tmp_path):
    text = "model: gpt-4o\nmax_tokens: 400\nmessages:\n  - role: user\n    content: '" + "[{" * 3_000 + "'\n"
    assert [f.code for f in lint(tmp_path, "request.yaml", text)] == []


# --- 2. anchors, aliases and merge keys -------------------------------------------------------

ANCHORED_REQUEST = """\
persona: &persona
  role: system
  content: "You are the support assistant for Northwind. The web page: {{ page }}"
schema: &schema
  type: object
  properties: {query: {type: string}}
  required: [query, limit]
model: gpt-4o
max_tokens: &small 8
messages:
  - *persona
  - <<: *persona
    role: user
    content: "Answer from this page: {{ page }}"
tools:
"""
EXPANDED_REQUEST = """\
model: gpt-4o
max_tokens: 8
messages:
  - role: system
    content: "You are the support assistant for Northwind. The web page: {{ page }}"
  - role: user
    content: "Answer from this page: {{ page }}"
tools:
"""


def _tools(count: int, anchored: bool) -> str:
    schema = "*schema" if anchored else "{type: object, properties: {query: {type: string}}, required: [query, limit]}"
    return "".join(f"  - name: search_{i}\n    description: Search the catalogue.\n    input_schema: {schema}\n"
                   for i in range(count))


def test_anchors_and_merge_keys_lint_like_the_expanded_document(tmp_path):
    anchored = lint(tmp_path, "anchored.yaml", ANCHORED_REQUEST + _tools(60, anchored=True))
    expanded = lint(tmp_path, "expanded.yaml", EXPANDED_REQUEST + _tools(60, anchored=False))
    assert sorted((f.code, f.message) for f in anchored) == sorted((f.code, f.message) for f in expanded)
    codes = {f.code for f in anchored}
    assert {"CTX202", "CTX401", "CTX402", "CTX503", "CTX505"} <= codes
    # What an alias repeats is reported where the anchor defines it.
    in_system = next(f for f in anchored if f.code == "CTX402")
    assert (in_system.span.line, in_system.span.column) == (3, 72)


def test_a_tool_file_made_of_aliases_reports_the_duplicate(tmp_path):
    findings = lint(tmp_path, "tools.yaml", "tools:\n  - &t\n    name: lookup\n    description: Look it up.\n"
                                            "    input_schema: {type: object}\n" + "  - *t\n" * 50)
    assert {f.code for f in findings} == {"CTX503", "CTX505"}
    assert all((f.span.line, f.span.column) == (2, 5) for f in findings if f.code == "CTX505")


# --- 3. integers too long for Python's int/str conversion ----------------------------------------

LONG = "9" * 5_000


@pytest.mark.parametrize("name, text, expected", [
    ("request.json", json.dumps({"model": "gpt-4o", "max_tokens": 0, "messages": [{"role": "user", "content": "Hi"}]})
     .replace("0", LONG), []),
    # A question, not a probe: a fixed message of a few tokens may set a tiny limit.
    ("request.json", json.dumps({"model": "gpt-4o", "max_tokens": 5, "messages": [
        {"role": "user", "content": "Explain our refund policy for damaged parcels in full."}],
        "metadata": {"n": 0}}).replace("0}", LONG + "}"), [("CTX202", 1, 21)]),
    ("request.yaml", f"model: gpt-4o\nmax_tokens: {LONG}\nmessages:\n  - role: user\n    content: Hi\n", []),
    ("request.yaml", f"model: gpt-4o\nmax_tokens: 0x{'f' * 5_000}\nmessages:\n  - role: user\n    content: Hi\n", []),
    ("request.yaml", f"model: gpt-4o\nmax_tokens: {'1:' * 3_000}1\nmessages:\n  - role: user\n    content: Hi\n", []),
    ("tools.json", json.dumps({"tools": [{"name": "a", "description": "d", "input_schema": {"type": 0}}]})
     .replace("0", LONG), [("CTX505", 1, 12)]),
    ("a.prompty", f"---\nmodel:\n  parameters:\n    max_tokens: -{LONG}\n---\nsystem:\nhi\n", []),
    ("a.prompt", f"---\nconfig:\n  maxOutputTokens: {LONG}\n---\n{{{{format {LONG}}}}} hi\n", []),
    ("a.j2", f"Hello {{{{ {LONG} }}}}\n", [("CTX001", 1, 10)]),
    ("a.ipynb", json.dumps({"nbformat": 4, "metadata": {"kernelspec": {"language": "python"}}, "cells": [
        {"cell_type": "code", "execution_count": 0, "source": ["print('hi')\n"]}]}).replace(": 0", ": " + LONG), []),
    ("b.j2", f"Hello {{{{ page[:{LONG}] }}}}\n", [("CTX001", 1, 16)]),
])
def test_long_integers_are_read_without_crashing(tmp_path, name, text, expected):
    assert located(lint(tmp_path, name, text)) == expected


def test_a_message_quoting_a_huge_integer_describes_it(tmp_path):
    (finding,) = lint(tmp_path, "a.j2", f"{{{{ notes[:0x{'f' * 5_000}] }}}} and more\n", confidence="low")
    assert finding.code == "CTX205"
    assert finding.message.startswith("`notes[:a number of about 6,021 digits]` cuts the text to a fixed length")
    (finding,) = lint(tmp_path, "b.j2", f"Hello {{{{ {LONG}{LONG} }}}}\n")
    assert finding.message == "a number of 10,000 digits: Jinja cannot read integers of more than 4,300 digits"


# --- 7. values of the wrong JSON type anywhere in a request file ------------------------------------

REQUEST = {
    "model": "claude-sonnet-4-5", "max_tokens": 1024, "system": [{"type": "text", "text": "Be brief."}],
    "messages": [{"role": "user", "content": [
        {"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral", "ttl": "5m"}},
        {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "ok"}]}]}],
    "tools": [{"name": "lookup", "description": "Look it up.", "cache_control": {"type": "ephemeral"},
               "input_schema": {"type": "object", "properties": {"q": {"type": "string", "enum": ["a"]}},
                                "required": ["q"]}}],
}
WRONG_VALUES = ([["text"]], [{"type": "text"}], [7], [None], [True], [1.5], ["text"])


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _replaced(document, path, value):
    copy = json.loads(json.dumps(document))
    if not path:
        return value
    parent = copy
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return copy


def test_every_field_of_a_request_may_hold_any_json_type(tmp_path):
    """Every field replaced by every JSON type, in JSON and in YAML: findings or a located CTX001."""
    linter = Linter(Settings(root=tmp_path, preview=True), CATALOGUE)
    files = []
    for number, path in enumerate(_paths(REQUEST)):
        for variant, (value,) in enumerate(WRONG_VALUES):
            document = _replaced(REQUEST, path, value)
            for suffix in ("json", "yaml"):
                file = tmp_path / f"r{number}_{variant}.{suffix}"
                file.write_text(json.dumps(document), encoding="utf-8")  # JSON is YAML too
                files.append(file)
    assert len(files) > 500
    result = linter.lint_files(files, jobs=1)
    assert result.errors == []
    assert all(f.span.line >= 1 and f.span.column >= 1 for f in result.findings)


@pytest.mark.parametrize("value, described", [(["text"], "a list"), ({"kind": "text"}, "an object"), (3, "a number")])
def test_a_content_part_whose_type_is_not_a_string_is_a_located_error(tmp_path, value, described):
    request = {"model": "gpt-4o", "max_tokens": 512, "messages": [{"role": "user", "content": [
        {"type": value, "text": "Hi"}]}]}
    text = json.dumps(request)
    findings = lint(tmp_path, "request.json", text)
    assert located(findings) == [("CTX001", 1, text.index('"type": ') + 9)]
    assert findings[0].message == (f"invalid request: the `type` of a content part is {described}, where the API "
                                   'expects a string such as "text"')


def test_a_role_that_is_not_a_string_is_a_located_error(tmp_path):
    findings = lint(tmp_path, "request.yaml", "model: gpt-4o\nmax_tokens: 512\nmessages:\n  - role: [user]\n"
                                              "    content: Hi\n")
    assert located(findings) == [("CTX001", 4, 11)]
    assert findings[0].message == 'invalid request: `role` is a list, where the API expects a role such as "user"'


# --- 8. long attribute chains in Jinja expressions ---------------------------------------------


CHAINS = {
    "slot.j2": lambda chain, filters: f"The web page: {{{{ {chain} }}}} there\n",
    "set.j2": lambda chain, filters: f"{{% set p = {chain} %}}The web page: {{{{ p }}}} there\n",
    "loop.j2": lambda chain, filters: f"{{% for d in documents{filters} %}}{{{{ d }}}}{{% endfor %}} there\n",
    "item.j2": lambda chain, filters: f"{{% for d in {chain} %}}{{{{ d }}}}{{% endfor %}} there\n",
    "request.json": lambda chain, filters: json.dumps({"model": "gpt-4o", "max_tokens": 512, "messages": [
        {"role": "user", "content": f"The web page: {{{{ {chain} }}}} there"}]}),
}


@pytest.mark.parametrize("name", CHAINS)
def test_long_attribute_chains_lint_like_short_ones(tmp_path, name):
    """``page.a.a…`` 5,000 deep (recursion failed at about 1,000) reads the same variable."""
    findings = {}
    for length in (2, 5_000):
        text = CHAINS[name]("page" + ".a" * length, "|f" * length)
        findings[length] = [(f.code, f.span.line) for f in lint(tmp_path, f"{length}/{name}", text)]
    assert findings[5_000] == findings[2]
    assert findings[2] == ([] if name == "item.j2" else [("CTX401", 1)])


# --- 10. a million consecutive spaces ------------------------------------------------------------


def test_a_million_spaces_are_counted_not_a_tokenizer_panic(tmp_path):
    text = "Time: {{ now() }}\nYou are the assistant." + " " * 1_000_000 + "Be brief.\n"
    (finding,) = lint(tmp_path, "a.j2", text)
    lost = tokens.count_tokens("\nYou are the assistant." + " " * 1_000_000 + "Be brief.\n")
    assert finding.code == "CTX101" and f"the {lost:,} static tokens after it" in finding.message
    assert 7_800 < lost < 7_830  # tokens of up to 128 spaces, as in a count of the same text in parts


@pytest.mark.parametrize("run", [" " * 200_000, "\u3000" * 200_000, " \n" * 100_000, "\n" * 200_000])
def test_long_blank_runs_are_counted_exactly(run):
    """Counting in blocks gives tiktoken's own count where tiktoken can count at all."""
    text = "Hello." + run + "Bye"
    assert tokens.count_tokens(text) == len(tokens.get_encoding("o200k_base").encode_ordinary(text))


def test_a_long_run_of_mixed_blanks_is_counted_within_a_token_per_block():
    text = "Hello." + " \t" * 150_000 + "Bye"
    exact = len(tokens.get_encoding("o200k_base").encode_ordinary(text))
    assert abs(tokens.count_tokens(text) - exact) <= len(text) // tokens.BLANK_BLOCK


# --- found by tests/test_fuzz.py ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a.yaml", "flows/support/flow.dag.yaml"])
def test_a_yaml_error_at_the_end_of_a_file_without_a_final_line_break_is_on_its_last_line(tmp_path, name):
    findings = lint(tmp_path, name, "system_prompt: {{")
    assert located(findings) == [("CTX001", 1, 18)]


# --- lone surrogates in string literals (found by the long profile of tests/test_fuzz.py) -------


def test_a_lone_surrogate_in_a_typescript_literal_is_counted_and_printed(project):
    project.write({"reply.ts": (
        'import Anthropic from "@anthropic-ai/sdk";\nconst anthropic = new Anthropic();\n'
        "export async function reply(question: string, page: string) {\n"
        "  return anthropic.messages.create({\n"
        '    model: "claude-sonnet-4-5",\n    max_tokens: 1024,\n'
        "    system: `You are the billing assistant.\\ud800 Web page: ${page}\\ud800`,\n"
        '    messages: [{ role: "user", content: question }],\n  });\n}\n'
        "export const handlers = { reply };\n")})
    for output in ("text", "json", "sarif", "github"):
        run = project.run("check", "--no-cache", "--output-format", output)
        assert run.code == 1, (output, run.stderr)
        assert "CTX402" in run.stdout, output


def test_a_message_quoting_a_lone_surrogate_prints_a_replacement_character(tmp_path):
    from ctxlint.model import ParsedFile, Request, Role, Segment, Slot, Span

    path = "rules.j2"
    span = Span(path, 1, 1, 1, 30)
    request = Request(path, Span.point(path, 1), (
        Segment(Role.SYSTEM, span, "You are terse.\n"),
        Segment(Role.USER, Span(path, 2, 1, 2, 10), "history", Slot("history", ("history",), variable_length=True)),
        Segment(Role.USER, Span(path, 3, 1, 3, 30), "Never \ud800 reveal the key.\n", None, 0, "history"),
    ))
    linter = Linter(Settings(root=tmp_path, preview=True), CATALOGUE)
    (finding,) = [f for f in linter._run(ParsedFile(path, [request]), "", path, "jinja") if f.code == "CTX301"]
    assert "Never \ufffd reveal the key." in finding.message
    finding.message.encode("utf-8")


# --- 4, 5, 9. Python: what CPython's parser refuses is one located finding; long concatenations ------

PY_HEAD = "from openai import OpenAI\nclient = OpenAI()\n"
PY_SEND = ('client.chat.completions.create(model="gpt-4o", max_tokens=400, '
           'messages=[{"role": "system", "content": PROMPT}])\n')


@pytest.mark.parametrize("line, message", [
    ("LIMIT = " + "9" * 5_000, "Exceeds the limit (4300 digits) for integer string conversion"),
    ('PROMPT = "Answer \\N{NO SUCH CHARACTER NAME} briefly."', "(unicode error) 'unicodeescape' codec can't decode"),
    ('PROMPT = b"Answer " "briefly."', "cannot mix bytes and nonbytes literals"),
    ("PRO\u200dMPT = 'Answer briefly.'", "invalid non-printable character U+200D"),
])
def test_python_that_cpython_refuses_is_invalid_syntax_at_its_line(tmp_path, line, message):
    (finding,) = lint(tmp_path, "app.py", PY_HEAD + line + "\n" + PY_SEND)
    assert (finding.code, finding.span.line) == ("CTX001", 3)
    assert finding.message.startswith("invalid syntax: ") and message in finding.message


@pytest.mark.parametrize("parts, expected", [(1_000, ["CTX202"]), (100_000, [])])
def test_a_long_implicit_concatenation_lints_without_recursion(tmp_path, parts, expected):
    """libcst recursed once per part (and again while formatting the error). A thousand parts
    are read as text (five tokens leave no room for an answer); past the bound of 2,000 pieces
    the value is one slot, so nothing is said about its length."""
    text = 'PROMPT = (\n' + '    "Answer from the page. "\n' * parts + '    "{page}")\n'
    findings = lint(tmp_path, "app.py", PY_HEAD + text + PY_SEND.replace("400", "5"))
    assert [f.code for f in findings] == expected


# --- 6. a lone surrogate in a Python string literal ---------------------------------------------------


def test_a_lone_surrogate_in_a_python_literal_is_counted_and_printed(project):
    project.write({"reply.py": PY_HEAD + "def reply(page):\n"
                   '    PROMPT = "You are the billing assistant.\\ud800 Web page: " + requests.get(page).text\n'
                   "    return " + PY_SEND + "import requests\n\nHANDLERS = {\"reply\": reply}\n"})
    for output in ("text", "json", "sarif", "github"):
        run = project.run("check", "--no-cache", "--output-format", output)
        assert run.code == 1, (output, run.stderr)
        assert "CTX40" in run.stdout and "Traceback" not in run.stderr, output


def test_an_import_of_a_name_too_long_for_the_file_system_is_no_module(tmp_path):
    # The fuzzer found it: resolving `import aaaa…` inside the linted tree asked the file system
    # about a 5,000-character file name, and the OSError it raised became an internal error.
    long_name = "a" * 5_000
    text = (f"from {long_name}.prompts import SYSTEM\nfrom openai import OpenAI\n\n"
            "client = OpenAI()\n"
            'client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": SYSTEM}])\n')
    assert [f.code for f in lint(tmp_path, "app.py", text)] == ["CTX201"]


@pytest.mark.parametrize(("names", "capped"), [(45, False), (55, True)])
def test_looking_up_names_in_other_modules_stops_with_a_notice(tmp_path, monkeypatch, names, capped):
    """Each file may look up a bounded number of names in the project's other modules (2,000; 50
    here); a file that needs more is told so, instead of silently missing what those names hold."""
    from ctxlint.frontends.python import unit

    monkeypatch.setattr(unit, "MAX_LOOKUPS", 50)
    (tmp_path / "prompts.py").write_text("".join(f'P{i} = "You answer questions about order {i}."\n'
                                                 for i in range(names)))
    imported = ", ".join(f"P{i}" for i in range(names))
    (tmp_path / "app.py").write_text(
        f"from openai import OpenAI\nfrom prompts import ({imported})\n\nclient = OpenAI()\n\n" + "".join(
            f'def answer_{i}(question):\n    return client.chat.completions.create(model="gpt-4o", max_tokens=400, '
            f'messages=[{{"role": "system", "content": P{i}}}, {{"role": "user", "content": question}}])\n\n'
            for i in range(names)))
    result = Linter(Settings(root=tmp_path), CATALOGUE).lint_files([tmp_path / "app.py"], jobs=1)
    assert (result.findings, result.errors) == ([], [])
    expected = ("stopped looking up names in other modules after 50 lookups; "
                "findings that need values defined there may be missing")
    assert [notice.message for notice in result.notices] == ([expected] if capped else [])


def test_names_of_modules_outside_the_project_are_not_lookups(tmp_path, monkeypatch):
    """A library's names (`requests.get` at each of many call sites) are not looked up in the
    project: they neither count against the bound nor bring its notice."""
    from ctxlint.frontends.python import unit

    monkeypatch.setattr(unit, "MAX_LOOKUPS", 50)
    (tmp_path / "app.py").write_text("import requests\nfrom openai import OpenAI\n\nclient = OpenAI()\n\n" + "".join(
        f"def answer_{i}(url):\n    page = requests.get(url, timeout=5).text\n"
        f'    return client.chat.completions.create(model="gpt-4o", max_tokens=400, '
        f'messages=[{{"role": "user", "content": "<page>" + page + "</page>"}}])\n\n' for i in range(120)))
    # The page is delimited but not escaped (CTX403 says so); what is measured here is the lookups.
    result = Linter(Settings(root=tmp_path), CATALOGUE, ignore=["CTX403"]).lint_files([tmp_path / "app.py"], jobs=1)
    assert (result.findings, result.errors, result.notices) == ([], [], [])


@pytest.mark.parametrize(("text", "where", "problem"), [
    ("framework: !!int a\n", "1:12", "invalid YAML: `a` is not an integer"),
    ("framework: x\ntitle: 2024-02-30\n", "2:8", "invalid YAML: `2024-02-30` is not a valid date or time"),
    ("framework: &a [*a, *a]\n", "1:1", "the YAML expands through aliases to more than 200,000 nodes"),
])
def test_a_framework_or_rule_file_that_cannot_load_is_a_located_configuration_error(tmp_path, text, where, problem):
    """Catalogue files come from the user's configuration (`frameworks`, `rule-packs`): YAML the
    safe loader cannot construct is an error naming the file and the place, never a crash."""
    from ctxlint.catalogue import CatalogueError, load_rule
    from ctxlint.frameworks import FrameworkError, load_framework

    path = tmp_path / "in_house.yaml"
    path.write_text(text)
    for load, error, kind in ((load_framework, FrameworkError, "framework"), (load_rule, CatalogueError, "rule")):
        with pytest.raises(error) as raised:
            load(path)
        message = str(raised.value)
        assert message.startswith(f"{path}:{where}: cannot load {kind} file: ") and problem in message, message
