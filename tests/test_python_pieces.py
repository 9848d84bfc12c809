"""Long Python modules are parsed in pieces of top-level statements: the parser's memory is
bounded by a piece, and the tree and any syntax error are those of the whole module."""

from __future__ import annotations

import ast

import pytest

from ctxlint.frontends.python import prefilter
from ctxlint.frontends.python.prefilter import PIECE_CHARS, parse_module


def _statements(count: int) -> str:
    return "".join(f"client_{i} = OpenAI(api_key=KEY, timeout={i})\n" for i in range(count))


def _tricky_module(units: int) -> str:
    """Top-level code where a line at column 0 does not always start a statement: prompts with
    unindented lines, `else:`/`except:` clauses, decorators before blank lines, open brackets."""
    parts = ["from openai import OpenAI\n\n"]
    for i in range(units):
        parts.append(
            f'PROMPT_{i} = """You answer questions for team {i}.\n'
            f"Never guess a price.\n"
            f'answer = {{question}}\n"""\n'
            f"if FLAG_{i}:\n    LIMIT_{i} = 400\n"
            f"else:\n    LIMIT_{i} = 800\n"
            f"try:\n    import yaml\n"
            f"except ImportError:\n    yaml = None\n"
            f"finally:\n    READY = True\n"
            f"@tool\n\n"
            f"def lookup_{i}(order):\n    return order\n"
            f"TOOLS_{i} = [\n"
            f"lookup_{i},\n"
            f"]\n"
            f"x_{i} = 1 + \\\n"
            f"2\n"
        )
    return "".join(parts)


def _record_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The code (padding left out) of each text of ``app.py`` handed to CPython's parser."""
    seen: list[str] = []
    real = ast.parse

    def parse(source: str, filename: str = "<unknown>", *args: object, **kwargs: object) -> ast.AST:
        if filename == "app.py":  # the module under test, not pytest reading its own sources
            seen.append(source.lstrip("\n"))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(prefilter.ast, "parse", parse)
    return seen


def _same_error(text: str) -> tuple[int | None, int | None, str]:
    with pytest.raises(SyntaxError) as whole:
        ast.parse(text)
    with pytest.raises(SyntaxError) as pieces:
        parse_module(text, "app.py")
    assert (pieces.value.lineno, pieces.value.offset, pieces.value.msg) == (
        whole.value.lineno, whole.value.offset, whole.value.msg)
    return pieces.value.lineno, pieces.value.offset, pieces.value.msg


def test_a_long_module_gives_the_tree_of_the_whole_in_pieces_of_bounded_size(monkeypatch):
    text = _statements(4_000)  # about 200 KB: four pieces
    expected = ast.dump(ast.parse(text), include_attributes=True)
    seen = _record_parses(monkeypatch)
    assert ast.dump(parse_module(text, "app.py"), include_attributes=True) == expected
    longest_line = max(len(line) for line in text.splitlines(keepends=True))
    assert len(seen) >= len(text) // (PIECE_CHARS + longest_line)
    assert max(len(code) for code in seen) <= PIECE_CHARS + longest_line
    assert sum(len(code) for code in seen) == len(text)  # each statement parsed once


def test_lines_at_column_zero_inside_statements_never_split_them():
    text = _tricky_module(500)  # about 160 KB: two boundaries, wherever they fall
    assert len(text) > 2 * PIECE_CHARS
    assert ast.dump(parse_module(text, "app.py"), include_attributes=True) == ast.dump(
        ast.parse(text), include_attributes=True)


def test_a_syntax_error_at_the_end_of_a_long_module_is_parsed_once_in_its_own_piece(monkeypatch):
    text = _statements(4_000) + 'messages=[{"role": )"system"}]\n'
    seen = _record_parses(monkeypatch)
    line, _, message = _same_error(text)
    assert line == 4_001 and "does not match" in message
    seen.clear()
    with pytest.raises(SyntaxError):
        parse_module(text, "app.py")
    assert max(len(code) for code in seen) <= PIECE_CHARS + 100
    assert sum(len(code) for code in seen) == len(text)


def test_an_error_in_the_middle_stops_the_parse_where_it_is(monkeypatch):
    head = _statements(2_000)
    text = head + "def broken(:\n    pass\n" + _statements(4_000)
    seen = _record_parses(monkeypatch)
    line, _, _ = _same_error(text)
    assert line == 2_001
    seen.clear()
    with pytest.raises(SyntaxError):
        parse_module(text, "app.py")
    assert sum(len(code) for code in seen) <= len(head) + PIECE_CHARS + 100


def _head() -> str:
    """Statements up to a comment line that ends 5 characters before ``PIECE_CHARS``: the line
    after it crosses the size of a piece, and the first line at column 0 after that ends it."""
    head = _statements(1_000)[: PIECE_CHARS - 200]
    head = head[: head.rindex("\n") + 1]
    return head + "#" * (PIECE_CHARS - 5 - len(head) - 1) + "\n"


@pytest.mark.parametrize(("opening", "clause"), [
    ("if FLAG:\n    LIMIT = 400\n", "else:\n    LIMIT = 800\n"),
    ("if FLAG:\n    LIMIT = 400\n", "elif OTHER:\n    LIMIT = 800\n"),
    ("try:\n    import yaml\n", "except ImportError:\n    yaml = None\n"),
    ("try:\n    import yaml\n", "finally:\n    READY = True\n"),
])
def test_a_clause_at_column_zero_stays_with_its_statement(monkeypatch, opening, clause):
    head = _head()
    text = head + opening + clause + _statements(500)
    seen = _record_parses(monkeypatch)
    tree = parse_module(text, "app.py")
    assert seen[0] == head + opening + clause  # not cut before the clause
    assert ast.dump(tree, include_attributes=True) == ast.dump(ast.parse(text), include_attributes=True)


@pytest.mark.parametrize(("opening", "rest"), [
    ('PROMPT = """Never guess.\n', 'last_line = 1\n"""\n'),  # a string with a line at column 0
    ("TOOLS = [\n", "last_line,\n]\n"),  # an open bracket
    ("x = 1 + \\\n", "last_line\n"),  # a backslash continuation
    ("@tool\n\n", "def last_line():\n    pass\n"),  # a decorator, a blank line, its function
])
def test_a_statement_left_open_at_a_piece_boundary_is_read_with_the_rest(monkeypatch, opening, rest):
    head = _head()
    text = head + opening + rest + _statements(500)
    assert text.index(rest) >= PIECE_CHARS > len(head)
    seen = _record_parses(monkeypatch)
    tree = parse_module(text, "app.py")
    assert seen[0] == head + opening  # the first piece ends where the next line starts at column 0
    assert ast.dump(tree, include_attributes=True) == ast.dump(ast.parse(text), include_attributes=True)


def test_an_error_at_the_end_of_a_long_last_statement_is_parsed_once(monkeypatch):
    body = "".join(f"        self.model_{i} = model\n" for i in range(5_000))  # one class: no boundary inside
    text = "class Adapter:\n    def __init__(self, model):\n" + body + "        return self.x user:\ntail\n"
    assert len(text) > 2 * PIECE_CHARS
    seen = _record_parses(monkeypatch)
    _same_error(text)
    seen.clear()
    with pytest.raises(SyntaxError):
        parse_module(text, "app.py")
    assert sum(len(code) for code in seen) == len(text)


def test_code_with_no_boundary_and_too_many_tokens_is_refused_unparsed(monkeypatch):
    """Forty thousand decorators are one statement of about 360,000 tokens: CPython would peak
    near 300 MB explaining an error in it, so it is never handed over."""
    text = "from mcp.server.fastmcp import FastMCP\n\n" + '@mcp.tool(name="lookup")\n' * 40_000 + "def lookup(:\n"
    seen = _record_parses(monkeypatch)
    with pytest.raises(prefilter.PieceTooLong) as refused:
        parse_module(text, "app.py")
    assert seen == []
    assert refused.value.line == 1
    assert str(refused.value) == (
        "lines 1-40,003 hold about 360,012 tokens without a top-level statement boundary; "
        f"ctxlint parses at most {prefilter.MAX_PIECE_TOKENS:,} tokens at a time")
    checked = prefilter.precheck(text, "app.py")
    problem, tree = checked.problem, checked.tree
    assert tree is None and problem is not None
    assert (problem[0].line, problem[0].column, problem[1]) == (1, 1, str(refused.value))


def test_many_short_statements_and_one_long_string_are_not_too_many_tokens():
    """The bound is on what is parsed at once, counted as Python counts: a 600 KB prompt literal
    is one token, and a megabyte of short statements splits into pieces."""
    prompt = 'PROMPT = """' + "Answer in one short sentence, and never guess a price.\n" * 11_000 + '"""\n'
    text = _statements(20_000) + prompt + _statements(100)
    assert len(text) > 1_500_000
    module = parse_module(text, "app.py")
    assert len(module.body) == 20_101


def test_a_piece_left_open_grows_by_doubling_not_to_the_end_of_the_module(monkeypatch):
    """A prompt with lines at column 0 hides the boundaries of 200 KB: the piece that ends in it
    is parsed again, twice as long each time, and the module's remaining 800 KB stay in pieces."""
    prompt = 'PROMPT = """\n' + "Never guess.\n" * 16_000 + '"""\n'
    text = prompt + _statements(16_000)
    seen = _record_parses(monkeypatch)
    tree = parse_module(text, "app.py")
    assert len(tree.body) == 16_001
    assert max(len(code) for code in seen) <= 4 * len(prompt)
    assert sum(len(code) for code in seen) <= len(text) + 2 * 4 * len(prompt)


@pytest.mark.parametrize("parts", [2_000, 12_000])
def test_an_import_of_thousands_of_dotted_parts_is_refused_unparsed(monkeypatch, parts):
    """CPython's memory for an imported dotted name grows with the square of its parts (10,000
    parts: over 400 MB with a syntax error after it)."""
    name = ".".join(["messages"] * parts)
    text = f'"""Answers questions."""\n\nimport {name}\nclient = anthropic.Anthropic(\n'
    seen = _record_parses(monkeypatch)
    checked = prefilter.precheck(text, "app.py")
    problem, tree = checked.problem, checked.tree
    assert seen == [] and tree is None and problem is not None
    assert (problem[0].line, problem[0].column, problem[1]) == (
        3, 8, f"the import names a module of {parts:,} parts; ctxlint reads module names of up to 200 parts")


@pytest.mark.parametrize("statement", [
    "from " + ".".join(["pkg"] * 3_000) + " import (\n    name,\n)\n",
    "import os, " + ".\\\n".join(["pkg"] * 3_000) + " as deep\n",
])
def test_every_form_of_a_long_import_is_refused(statement):
    problem = prefilter.precheck("import json\n" + statement, "app.py").problem
    assert problem is not None and problem[0].line == 2 and "3,000 parts" in problem[1]


def test_short_imports_and_long_dotted_names_elsewhere_are_parsed():
    """200 parts pass, as do relative dots and dotted names outside imports (a comment naming a
    path of 5,000 parts, an attribute chain: CPython reads those in linear memory)."""
    text = ("import " + ".".join(["pkg"] * 200) + "\nfrom " + "." * 300 + " import name\n"
            + "# " + ".".join(["node"] * 5_000) + "\nvalue = " + ".".join(["node"] * 150) + "\n")
    checked = prefilter.precheck(text, "app.py")
    problem, tree = checked.problem, checked.tree
    assert problem is None and tree is not None and len(tree.body) == 3
