"""The Handlebars parser: exact offsets, the block structure, slot facts, located errors, and
hostile input that returns quickly."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from steps import count_steps, growth

from ctxlint.frontends import handlebars as hb
from ctxlint.frontends.handlebars.nodes import (
    Call,
    Close,
    Else,
    Literal,
    Mustache,
    Open,
    Partial,
    Ref,
    Text,
)
from ctxlint.model import Role


def texts(source: str) -> list[tuple[str, str]]:
    """(node type, exact source of the node) for every node."""
    return [(type(n).__name__, source[n.start : n.end]) for n in hb.parse(source)]


def error_of(source: str) -> tuple[str, int]:
    with pytest.raises(hb.HandlebarsError) as caught:
        hb.parse(source)
    return caught.value.message, caught.value.offset


def test_mustache_kinds_and_exact_offsets():
    source = 'Hi {{name}}, {{{raw}}} {{& also_raw}} {{user.profile.name}} {{helper arg key="v"}}!'
    assert texts(source) == [
        ("Text", "Hi "), ("Mustache", "{{name}}"), ("Text", ", "), ("Mustache", "{{{raw}}}"), ("Text", " "),
        ("Mustache", "{{& also_raw}}"), ("Text", " "), ("Mustache", "{{user.profile.name}}"), ("Text", " "),
        ("Mustache", '{{helper arg key="v"}}'), ("Text", "!"),
    ]
    nodes = [n for n in hb.parse(source) if isinstance(n, Mustache)]
    assert [n.escaped for n in nodes] == [True, False, False, True, True]
    helper = nodes[-1].call
    assert helper.helper == "helper" and helper.text == 'helper arg key="v"'
    assert helper.params == (Ref("arg", "arg"),)
    assert helper.hash == (("key", Literal('"v"', "v")),)


def test_paths_are_normalised_to_dotted_names():
    source = "{{../name}} {{this.title}} {{this}} {{.}} {{a/b}} {{[odd key].x}} {{@index}} {{@root.user.id}}"
    names = [n.call.head for n in hb.parse(source) if isinstance(n, Mustache)]
    assert [(r.original, r.name, r.data) for r in names] == [
        ("../name", "name", False), ("this.title", "title", False), ("this", "this", False), (".", "this", False),
        ("a/b", "a.b", False), ("[odd key].x", "odd key.x", False), ("@index", "@index", True),
        ("@root.user.id", "user.id", False),
    ]


def test_literals_and_sub_expressions():
    (node,) = hb.parse('{{format (now) "YYYY-MM-DD" 3 -1.5 true null tz=(lookup settings "tz")}}')
    call = node.call
    assert [p.value if isinstance(p, Literal) else p.text for p in call.params] == [
        "(now)", "YYYY-MM-DD", 3, -1.5, True, None]
    (key, sub), = call.hash
    assert key == "tz" and isinstance(sub, Call) and sub.sub and sub.text == '(lookup settings "tz")'
    slot = hb.slot_facts(call)
    assert slot.calls == ("format", "now", "lookup")
    assert slot.names == ("settings",)


def test_slot_facts_bare_path_is_a_name_unless_the_host_says_it_is_a_helper():
    (plain,) = hb.parse("{{history}}")
    assert hb.slot_facts(plain.call).names == ("history",)
    assert hb.slot_facts(plain.call, helpers=frozenset({"history"})).calls == ("history",)
    (call,) = hb.parse("{{formatDate createdAt}}")
    facts = hb.slot_facts(call.call, in_loop=True)
    assert (facts.calls, facts.names, facts.variable_length) == (("formatDate",), ("createdAt",), True)


def test_blocks_else_chains_and_block_params():
    source = "{{#each items as |item i|}}{{item}}{{else}}none{{/each}}{{#if a}}A{{else if b}}B{{^}}C{{/if}}"
    nodes = hb.parse(source)
    kinds = [type(n).__name__ for n in nodes]
    assert kinds == ["Open", "Mustache", "Else", "Text", "Close", "Open", "Text", "Else", "Text", "Else", "Text",
                     "Close"]
    assert nodes[0].block_params == ("item", "i") and nodes[0].name == "each"
    assert nodes[7].call.text == "if b"
    assert isinstance(nodes[-1], Close) and nodes[-1].name == "if"


def test_walk_marks_loop_bodies_and_not_their_else_branch():
    source = (
        "{{#each docs}}<d>{{text}}{{#each tags}}{{name}}{{/each}}</d>{{else}}no docs{{/each}}"
        "{{#with user}}{{name}}{{/with}}{{#unless ok}}{{warning}}{{/unless}}"
    )
    walked = [(source[n.start : n.end], loop) for n, loop in hb.walk(hb.parse(source))]
    assert walked == [
        ("<d>", "docs"), ("{{text}}", "docs"), ("{{name}}", "tags"), ("</d>", "docs"), ("no docs", None),
        ("{{name}}", None), ("{{warning}}", None),
    ]


def test_inline_partial_definitions_are_not_output_but_partials_are_slots():
    source = '{{#*inline "row"}}<tr>{{cell}}</tr>{{/inline}}Rows: {{> row}}{{#> layout}}fallback{{/layout}}'
    walked = [(type(n).__name__, source[n.start : n.end]) for n, _ in hb.walk(hb.parse(source))]
    assert walked == [("Text", "Rows: "), ("Partial", "{{> row}}"), ("Text", "fallback")]
    segments = hb.parse_template(source, "t.hbs")
    (partial,) = [s for s in segments if s.slot]
    assert partial.text == "> row" and partial.slot.names == ()


def test_comments_produce_nothing_even_with_braces_inside():
    source = "a{{! note }}b{{!-- a }} inside --}}c{{~!-- trimmed --~}}   d"
    assert texts(source) == [("Text", "a"), ("Text", "b"), ("Text", "c"), ("Text", "d")]


def test_whitespace_control_strips_adjacent_text_only():
    source = "Hello   {{~name~}}  \n  !  {{x}}  "
    assert texts(source) == [("Text", "Hello"), ("Mustache", "{{~name~}}"), ("Text", "!  "), ("Mustache", "{{x}}"),
                             ("Text", "  ")]


def test_escaped_mustaches_are_text_and_double_backslash_is_not_an_escape():
    source = "a \\{{literal}} b {{real}} c \\\\{{also_real}}"
    nodes = hb.parse(source)
    assert [(type(n).__name__, source[n.start : n.end]) for n in nodes] == [
        ("Text", "a "), ("Text", "{{literal}} b "), ("Mustache", "{{real}}"), ("Text", " c \\"),
        ("Mustache", "{{also_real}}"),
    ]


def test_raw_block_content_is_literal_text():
    source = "{{{{raw}}}}{{not_a_slot}} {{#if}}{{{{/raw}}}} after {{x}}"
    assert texts(source) == [("Text", "{{not_a_slot}} {{#if}}"), ("Text", " after "), ("Mustache", "{{x}}")]


def test_strings_may_hold_closing_braces():
    (node,) = hb.parse('{{say "}} is not the end" \'it\\\'s\'}}')
    assert [p.value for p in node.call.params] == ["}} is not the end", "it's"]


@pytest.mark.parametrize(
    ("source", "message", "offset"),
    [
        ("Intro\n{{#each items}}\n- {{this}}\n", "`{{#each items}}` is never closed; add `{{/each}}`", 6),
        ("{{#if a}}{{#each b}}x{{/if}}{{/each}}", "`{{/if}}` does not match `{{#each b}}`", 21),
        ("text {{/if}}", "`{{/if}}` closes a block that was never opened", 5),
        ("{{else}}", "`{{else}}` is not inside a block", 0),
        ("Hi {{name\nmore", "`{{name` is never closed with `}}`", 3),
        ("{{{raw}}", "expected `}}}` to close the mustache opened here", 0),
        ("{{!-- never closed }}", "`{{!--` comment is never closed with `--}}`", 0),
        ("{{! never closed", "`{{!` comment is never closed with `}}`", 0),
        ("{{}}", "empty mustache `{{}}`", 0),
        ('{{say "open}}', "unterminated string literal", 6),
        ('{{f a=1 b}}', "a positional argument cannot follow `key=value` arguments", 8),
        ("{{a b(c)}}", "unexpected `(` in a mustache", 5),
        ("{{ #if x}}", "unexpected `#` in a mustache", 3),
        ("{{(a}}", "`(` is never closed with `)`", 2),
        ("{{{{raw}}}} no end", "`{{{{raw}}}}` is never closed; add `{{{{/raw}}}}`", 0),
        ("{{#each xs as |a}}{{/each}}", "block parameters are written `as |item index|`", 0),
    ],
)
def test_syntax_errors_are_located(source, message, offset):
    assert error_of(source) == (message, offset)


def test_parse_template_spans_point_at_the_source():
    source = "You help {{customer.name}}.\n{{#each orders}}\n* {{id}}: {{{summary}}}\n{{/each}}\nBye\n"
    segments = hb.parse_template(source, "t.hbs", default_role=Role.USER)
    lines = source.splitlines()
    for segment in segments:
        line = lines[segment.span.line - 1]
        if segment.slot is not None:
            assert line[segment.span.column - 1 :].startswith("{{")
        elif segment.text.strip():
            assert line[segment.span.column - 1 :].startswith(segment.text.split("\n")[0])
    located = [(s.span.line, s.span.column, s.span.end_line, s.span.end_column, s.text, s.loop) for s in segments
               if s.slot]
    assert located == [(1, 10, 1, 27, "customer.name", None), (3, 3, 3, 9, "id", "orders"),
                       (3, 11, 3, 24, "summary", "orders")]
    assert all(s.role is Role.USER for s in segments)
    assert [s.slot.variable_length for s in segments if s.slot] == [False, True, True]
    # Handlebars HTML-escapes {{x}} but not {{{x}}}; hosts that compile with noEscape say so.
    assert [s.slot.filters for s in segments if s.slot] == [("escape",), ("escape",), ()]
    raw = hb.parse_template(source, "t.hbs", html_escape=False)
    assert [s.slot.filters for s in raw if s.slot] == [(), (), ()]


# --- hostile input -----------------------------------------------------------------------


def parse_or_error(source: str) -> Callable[[], object]:
    def parse() -> object:
        try:
            return hb.parse(source)
        except hb.HandlebarsError as error:
            return error

    return parse


@pytest.mark.parametrize("unit", ["{{", "{{ ", "{{#", "{{!", "{{{", "{{a "])
def test_a_megabyte_of_open_braces_is_refused_at_once(unit):
    steps, result = count_steps(parse_or_error(unit * (1_000_000 // len(unit))))
    assert isinstance(result, hb.HandlebarsError) and result.offset <= 4
    assert steps < 1_000  # the first mustache is malformed: nothing after it is read


def test_escaped_mustaches_are_read_in_linear_work():
    source = "\\{{" * 20_000
    steps, result = count_steps(parse_or_error(source))
    assert isinstance(result, list)
    assert steps < 60 * len(source)
    assert growth(lambda n: parse_or_error("\\{{" * n), 2_000) < 1.2


def test_deeply_nested_blocks_are_walked_without_recursion():
    depth = 20_000
    source = "{{#if a}}x" * depth + "{{/if}}" * depth
    steps, nodes = count_steps(parse_or_error(source))
    assert len(list(hb.walk(nodes))) == depth
    assert steps < 20 * len(source)
    _, error = count_steps(parse_or_error("{{#each a}}" * depth))
    assert isinstance(error, hb.HandlebarsError) and error.offset == 11 * (depth - 1)


def test_deeply_nested_sub_expressions_are_refused():
    message, offset = error_of("{{f " + "(g " * 5000 + "x" + ")" * 5000 + "}}")
    assert message == "sub-expressions nest too deeply to parse"
    assert offset == 4 + 3 * hb.MAX_SUBEXPRESSION_DEPTH


def test_the_common_fast_path_builds_what_the_general_reader_builds(monkeypatch):
    source = ("{{ user.name }} {{#each  items }}{{this}}{{/each}} {{&x}} {{^y}}n{{/y}}{{a~}}  b {{#if ok ~}} x {{~/if}}"
              " {{#with this}}{{ this ~}}{{/with}} {{^this}}none{{/this}} {{#this}}{{&this}}{{/this}} {{f this}}")
    fast = hb.parse(source)
    monkeypatch.setattr(hb.parser, "_SIMPLE", __import__("re").compile("(?!)"))
    assert hb.parse(source) == fast
    assert isinstance(fast[0], Mustache) and isinstance(fast[2], Open) and isinstance(fast[3], Mustache)
    assert not isinstance(fast[-1], (Partial, Else, Text))


def test_a_tag_repeated_thousands_of_times_is_read_once_and_gives_one_slot():
    # A 1 MB template is mostly the same few tags: each distinct tag text is read into one call,
    # and each call's slot facts are gathered once, so the work per repeat is a lookup.
    source = "{{#each docs}}{{this}}{{/each}} Never guess.\n" * 5_000
    nodes = hb.parse(source)
    opened = {id(n.call) for n in nodes if isinstance(n, Open)}
    printed = {id(n.call) for n in nodes if isinstance(n, Mustache)}
    assert (len(nodes), len(opened), len(printed)) == (20_000, 1, 1)
    segments = hb.parse_template(source, "digest.hbs")
    slots = {id(s.slot) for s in segments if s.slot is not None}
    assert (len(segments), len(slots)) == (10_000, 1)
    assert segments[0].slot == hb.slot_facts(Call(Ref("this", "this"), text="this"), True, frozenset(), True)


def test_a_tag_the_general_reader_reads_is_read_once_wherever_it_is_repeated():
    source = '{{role "system"}}\n' + '{{role "user"}}\n' * 5_000 + '{{#each docs as |d|}}{{d}}{{/each}}\n'
    steps, nodes = count_steps(parse_or_error(source))
    assert isinstance(nodes, list) and len(nodes) == 10_006
    markers = [n for n in nodes if isinstance(n, Mustache) and n.call.helper == "role"]
    assert len({id(n.call) for n in markers}) == 2
    assert [(n.start, n.end) for n in markers[1:3]] == [(18, 33), (34, 49)]
    assert steps < 60 * len(nodes)  # a lookup per repeat, not a lexer run (over 110 steps a node)


@pytest.mark.parametrize("source", [
    '{{f "a}}"}} {{f "a}}" b}}',  # a closer inside a string: the text up to it is not the tag
    '{{f "a\\"}}"}} x {{f "a\\"}}"}}',  # a backslash in a string: read as usual
    '{{f "a"}}{{f "a"~}}  x {{~f "a"}}',
])
def test_a_repeated_tag_reads_as_it_would_alone(source):
    nodes = hb.parse(source)
    for node in nodes:
        if not isinstance(node, Text):
            alone = hb.parse(source[node.start:node.end])
            assert [type(alone[0]), alone[0].call] == [type(node), node.call]
