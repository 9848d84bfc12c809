"""Jinja templates: parse, never render.

``jinja2.Environment.parse`` validates the template and gives the syntax tree of each
expression; the lexer gives every token in order, which we locate in the source to get exact
spans (the lexer only knows lines, and whitespace control drops characters from its tokens).

Role lines (``system:``, ``user:``, ``assistant:``, promptflow's ``# system:``) alone on a line
split the template into messages. Text before the first role line belongs to ``default_role``.
"""

from __future__ import annotations

import bisect
import re
import sys
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import jinja2
from jinja2 import nodes

from ctxlint.frontends import OffsetError, limits
from ctxlint.frontends.locate import Locator, line_locator, span_maker
from ctxlint.model import (
    ParsedFile,
    Request,
    Role,
    Segment,
    Slot,
    Source,
    SourceKind,
    Span,
)
from ctxlint.numbers import shown
from ctxlint.providers import roles

# Prompty's and promptflow's role lines (`system:` alone on a line) and the roles they name.
_ROLE_BY_NAME = roles("system", "developer", "user", "assistant", "tool", "function")
ROLE_LINE = re.compile(
    r"^[ \t]*(?:#[ \t]*)?(" + "|".join(_ROLE_BY_NAME) + r")[ \t]*:[ \t]*\r?$",
    re.IGNORECASE | re.MULTILINE,
)
_LONG_NUMBER = re.compile(r"[0-9][0-9_]{4000,}")  # too long for int() (Python 3.11: 4,300 digits)


class TemplateError(OffsetError):
    """A template that does not parse; ``offset`` locates the error in the template text."""


class _Lexer(jinja2.lexer.Lexer):
    """Jinja's lexer, which gives the parse the tokens the front-end has already listed for the
    same text (``replay``) instead of lexing it a second time. The tokens are set just before the
    parse and taken by its first call, the only one: every other call lexes."""

    replay: list[tuple[int, str, str]] | None = None

    def tokeniter(self, source, name, filename=None, state=None):
        replay, self.replay = self.replay, None
        return iter(replay) if replay is not None else super().tokeniter(source, name, filename, state)


class _Environment(jinja2.Environment):
    @property
    def lexer(self) -> _Lexer:
        if "_ctxlint_lexer" not in self.__dict__:
            self.__dict__["_ctxlint_lexer"] = _Lexer(self)
        return self.__dict__["_ctxlint_lexer"]


def make_environment() -> _Environment:
    # The two extensions add tags (`do`, `break`, `continue`) that real prompt repositories use;
    # without them such templates would be reported as syntax errors.
    return _Environment(
        keep_trailing_newline=True,
        extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"],
    )


_ENV: _Environment | None = None


def environment() -> _Environment:
    global _ENV
    if _ENV is None:
        _ENV = make_environment()
    return _ENV


@dataclass
class _State:
    role: Role
    message_index: int = 0
    loops: list[str] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)  # open block tags, innermost last
    capture_depth: int = 0
    aliases: dict[str, Slot] = field(default_factory=dict)


def parse_template(
    source: str,
    path: str,
    locate: Locator | None = None,
    default_role: Role = Role.SYSTEM,
) -> list[Segment]:
    """Split a Jinja template into static and slot segments with exact spans.

    Raises ``TemplateError`` when the template does not parse.
    """
    locate = locate or line_locator(source)
    env = environment()
    span = span_maker(path, locate)
    simple = _simple_tags(source)
    if simple is not None:
        return _simple_segments(source, simple, default_role, span)
    _check_size(source)
    lexer = env.lexer
    try:  # listed once, for the parse and for the offsets below
        raw: list[tuple[int, str, str]] | None = list(lexer.tokeniter(source, None))
    except jinja2.TemplateSyntaxError:
        raw = None  # the parse says it (the parser may stop at an earlier error of its own)
    try:
        lexer.replay = raw
        tree = _Tree(env.parse(source))
    except jinja2.TemplateSyntaxError as error:
        raise TemplateError(error.message or str(error), _line_offset(source, error.lineno)) from None
    except RecursionError:
        raise TemplateError("the template nests too deeply to parse", 0) from None
    except ValueError:  # the lexer's int() refuses a literal of more than 4,300 digits
        long_number = _LONG_NUMBER.search(source)
        if long_number is None:
            raise
        raise TemplateError(f"a number of {len(long_number.group()):,} digits: Jinja cannot read integers "
                            f"of more than {sys.get_int_max_str_digits():,} digits", long_number.start()) from None
    finally:
        lexer.replay = None  # a guard: tokens left untaken would be replayed for the next text

    tokens = _located_tokens(env, source, raw)
    tree.check(tokens)
    role_lines = list(ROLE_LINE.finditer(source))
    state = _State(default_role)
    segments: list[Segment] = []
    i = 0
    while i < len(tokens):
        kind, value, start = tokens[i]
        if kind == "data":
            if state.capture_depth == 0:
                _add_data(segments, state, value, start, role_lines, span)
            i += 1
        elif kind == "variable_begin":
            j = _closing(tokens, i, "variable_end")
            end = tokens[j][2] + len(tokens[j][1].rstrip()) if j < len(tokens) else len(source)
            expression = "".join(t[1] for t in tokens[i + 1 : j]).strip()
            node = tree.next_expression()
            if state.capture_depth == 0:
                where = span(start, end)
                slot = _facts(node, expression, state, where) if node else _slot_facts(env, expression, state, where)
                loop = state.loops[-1] if state.loops else None
                _append(segments, Segment(state.role, where, expression, slot, state.message_index, loop), start)
            i = j + 1
        elif kind == "block_begin":
            j = _closing(tokens, i, "block_end")
            content = "".join(t[1] for t in tokens[i + 1 : j]).strip()
            _block(env, content, state, tree)
            i = j + 1
        else:
            i += 1
    return segments


# Most templates (and nearly every string in a request file) use nothing but `{{ name }}` tags.
# Those are read without Jinja's parser, into exactly the segments the general path builds;
# anything else (blocks, comments, filters, whitespace control) goes through Jinja.
_SIMPLE_TAG = re.compile(r"\{\{[ \t\n]*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)[ \t\n]*\}\}")
_OTHER_SYNTAX = re.compile(r"\{%|\{#|\{\{\{")


def _simple_tags(source: str) -> list[re.Match] | None:
    """The tags of a template whose only Jinja syntax is ``{{ name }}`` tags, or None."""
    if _OTHER_SYNTAX.search(source):
        return None
    tags = list(_SIMPLE_TAG.finditer(source))
    if source.count("{{") != len(tags) or any(_KEYWORDS.intersection(t.group(1).split(".")) for t in tags):
        return None
    return tags


def _simple_segments(source: str, tags: list[re.Match], role: Role, span) -> list[Segment]:
    """The segments of a template of ``{{ name }}`` tags only. Each slot reads just its dotted
    name (what ``_facts`` finds in such a tag, outside any loop and with no ``set`` aliases)."""
    role_lines = list(ROLE_LINE.finditer(source))
    state = _State(role)
    segments: list[Segment] = []
    cursor = 0
    for tag in tags:
        start, end = tag.span()
        if start > cursor:
            _add_data(segments, state, source[cursor:start], cursor, role_lines, span)
        name = tag.group(1)
        _append(segments, Segment(state.role, span(start, end), name, Slot(name, (name,)), state.message_index),
                start)
        cursor = end
    if cursor < len(source):
        _add_data(segments, state, source[cursor:], cursor, role_lines, span)
    return segments


_TAG_OPENER = re.compile(r"\{\{|\{%")
_TAG_CLOSER = {"{{": "}}", "{%": "%}"}


def _check_size(source: str) -> None:
    """Refuse, before parsing, a template with more code in its tags than Jinja reads in bounded
    time (an estimate from where tags open and close, which is all a bound needs).

    Linear in the template: a tag's closer is searched for once, and an opener with no closer
    after it means no later opener of that kind has one either (a lazy regular expression would
    rescan the rest of the file from every unclosed ``{{``).
    """
    if len(source) <= limits.MAX_TEMPLATE_CODE:
        return
    code = 0
    resume = 0
    unclosed: set[str] = set()
    for opener in _TAG_OPENER.finditer(source):
        start, kind = opener.start(), opener.group()
        if start < resume or kind in unclosed:
            continue
        end = source.find(_TAG_CLOSER[kind], opener.end())
        if end < 0:
            unclosed.add(kind)
            continue
        resume = end + 2
        code += resume - start
        if code > limits.MAX_TEMPLATE_CODE:
            raise TemplateError(limits.too_much_template_code(), start)


def _append(segments: list[Segment], segment: Segment, offset: int) -> None:
    if len(segments) >= limits.MAX_SEGMENTS:
        raise TemplateError(limits.too_many_segments(), offset)
    segments.append(segment)


def _line_offset(source: str, lineno: int | None) -> int:
    if not lineno or lineno <= 1:
        return 0
    offset = 0
    for _ in range(lineno - 1):
        nxt = source.find("\n", offset)
        if nxt < 0:
            break
        offset = nxt + 1
    return offset


def _located_tokens(env: jinja2.Environment, source: str,
                    raw: list[tuple[int, str, str]] | None = None) -> list[tuple[str, str, int]]:
    """The lexer's tokens (``raw``, when already listed) with their offsets in ``source``.

    Whitespace control (``{%-``) removes characters from data tokens, so each token is found
    by searching forward from the end of the previous one; only whitespace can lie between.
    """
    located = []
    offset = 0
    for _, kind, value in raw if raw is not None else env.lexer.tokeniter(source, None):
        found = source.find(value, offset) if value else offset
        if found < 0:  # cannot happen for a template that parsed; keep positions monotonic
            found = offset
        located.append((kind, value, found))
        offset = found + len(value)
    return located


def _closing(tokens: list[tuple[str, str, int]], i: int, kind: str) -> int:
    j = i + 1
    while j < len(tokens) and tokens[j][0] != kind:
        j += 1
    return j


def _add_data(segments, state: _State, value: str, start: int, role_lines, span) -> None:
    """Add static text, switching role at each role line that lies inside this data run."""
    if not role_lines:
        _add_static(segments, state, value, start, span)
        return
    end = start + len(value)
    cursor = start
    for position in range(bisect.bisect_left(role_lines, start, key=lambda m: m.start()), len(role_lines)):
        match = role_lines[position]
        if match.start() >= end:
            break
        if match.end() > end:
            continue
        _add_static(segments, state, value[cursor - start : match.start() - start], cursor, span)
        state.role = _ROLE_BY_NAME[match.group(1).lower()]
        state.message_index += 1
        cursor = match.end() + 1 if match.end() < end else match.end()  # skip the newline too
    _add_static(segments, state, value[cursor - start :], cursor, span)


def _add_static(segments, state: _State, text: str, start: int, span) -> None:
    if text:
        loop = state.loops[-1] if state.loops else None
        _append(segments, Segment(state.role, span(start, start + len(text)), text, None, state.message_index, loop),
                start)


_BLOCK_TAGS = {"call", "filter", "with", "block", "if", "autoescape", "trans"}
_ASSIGNMENT = re.compile(r"set\s+[\w.,\s()]+=(?!=)")


def _block(env: jinja2.Environment, content: str, state: _State, tree: _Tree) -> None:
    """Track the statements that change what the following segments mean."""
    tag = content.split(None, 1)[0] if content else ""
    if tag == "for":
        loop = tree.next_for() or _parse_statement(env, content, "endfor")
        iterable = _source_of(loop.iter) if isinstance(loop, nodes.For) else content[3:].strip()
        state.loops.append(iterable)
        state.blocks.append("for")
    elif tag == "set" and _ASSIGNMENT.match(content):
        _record_alias(tree.next_assign() or _parse_statement(env, content, None), state)
    elif tag in ("set", "macro"):  # a block `set` or a macro body is captured, not sent
        state.blocks.append(tag)
        state.capture_depth += 1
    elif tag in _BLOCK_TAGS:
        state.blocks.append(tag)
    elif tag.startswith("end") and tag[3:] in state.blocks:
        while state.blocks:
            opened = state.blocks.pop()
            if opened == "for":
                state.loops.pop()
            elif opened in ("set", "macro"):
                state.capture_depth -= 1
            if opened == tag[3:]:
                break


def _record_alias(statement: nodes.Node | None, state: _State) -> None:
    """``{% set ts = now() %}`` makes ``ts`` carry the facts of ``now()``."""
    if isinstance(statement, nodes.Assign) and isinstance(statement.target, nodes.Name):
        state.aliases[statement.target.name] = _facts(statement.node, _source_of(statement.node), state)


class _Tree:
    """The template's syntax tree, read in source order alongside its tokens: the expression of
    each ``{{ }}`` tag, and the node of each ``{% for %}`` and ``{% set x = … %}`` tag, so that
    no tag is parsed a second time. When the counts do not match the tags (a construct this
    reading does not foresee), nothing is taken from it and each tag is parsed on its own."""

    def __init__(self, template: nodes.Template):
        self.expressions: list[nodes.Node] = []
        self.fors: list[nodes.Node] = []
        self.assigns: list[nodes.Node] = []
        stack: list[nodes.Node] = [template]
        while stack:  # depth first, in source order, without recursion
            node = stack.pop()
            if isinstance(node, nodes.Output):
                self.expressions += [n for n in node.nodes if not isinstance(n, nodes.TemplateData)]
            elif isinstance(node, nodes.For):
                self.fors.append(node)
            elif isinstance(node, nodes.Assign):
                self.assigns.append(node)
            stack.extend(reversed(list(node.iter_child_nodes())))
        self.positions = [0, 0, 0]
        self.usable = True

    def check(self, tokens: list[tuple[str, str, int]]) -> None:
        variables = sum(1 for kind, _, _ in tokens if kind == "variable_begin")
        fors = sets = 0
        for i, (kind, _, _) in enumerate(tokens):
            if kind == "block_begin":
                j = _closing(tokens, i, "block_end")
                content = "".join(t[1] for t in tokens[i + 1 : j]).strip()
                fors += content.split(None, 1)[0:1] == ["for"]
                sets += content.startswith("set") and _ASSIGNMENT.match(content) is not None
        self.usable = (variables, fors, sets) == (len(self.expressions), len(self.fors), len(self.assigns))

    def _next(self, which: int, items: list[nodes.Node]) -> nodes.Node | None:
        if not self.usable or self.positions[which] >= len(items):
            return None
        self.positions[which] += 1
        return items[self.positions[which] - 1]

    def next_expression(self) -> nodes.Node | None:
        return self._next(0, self.expressions)

    def next_for(self) -> nodes.Node | None:
        return self._next(1, self.fors)

    def next_assign(self) -> nodes.Node | None:
        return self._next(2, self.assigns)


def _parse_statement(env: jinja2.Environment, content: str, end_tag: str | None):
    text = "{% " + content + " %}" + ("{% " + end_tag + " %}" if end_tag else "")
    try:
        body = env.parse(text).body
    except (jinja2.TemplateSyntaxError, RecursionError):
        return None
    return body[0] if body else None


def _slot_facts(env: jinja2.Environment, expression: str, state: _State, span: Span) -> Slot:
    node = _plain_path(expression)  # most slots are a name: no parser needed
    if node is None:
        try:
            output = env.parse("{{ " + expression + " }}").body[0]
        except (jinja2.TemplateSyntaxError, RecursionError, IndexError, AttributeError):
            output = None
        if not isinstance(output, nodes.Output) or not output.nodes:
            return Slot(expression, variable_length=bool(state.loops))
        node = output.nodes[0]
    return _facts(node, expression, state, span)


_PLAIN_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_KEYWORDS = frozenset({"and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True", "False",
                       "None"})


def _plain_path(expression: str) -> nodes.Node | None:
    """The node Jinja's parser builds for ``user.name``, built directly; None for anything else."""
    if not _PLAIN_PATH.fullmatch(expression):
        return None
    parts = expression.split(".")
    if _KEYWORDS.intersection(parts):
        return None
    node: nodes.Node = nodes.Name(parts[0], "load")
    for part in parts[1:]:
        node = nodes.Getattr(node, part, "load")
    return node


def _facts(node: nodes.Node, expression: str, state: _State, span: Span | None = None) -> Slot:
    """What the expression reads, calls and filters through; ``span`` locates its sources."""
    names: list[str] = []
    read: set[str] = set()  # every dotted prefix of a name in `names`
    calls: list[str] = []
    filters: list[str] = []
    truncations: list[str] = []
    for child in _walk(node):
        if _truncates(child):
            truncations.append(_source_of(child))
        if isinstance(child, nodes.Call):
            dotted = _dotted(child.node)
            if dotted:
                calls.append(dotted)
        elif isinstance(child, nodes.Filter):
            filters.append(child.name)
        elif isinstance(child, (nodes.Name, nodes.Getattr, nodes.Getitem)):
            dotted = _dotted(child)
            if dotted and dotted not in read:
                names.append(dotted)
                parts = dotted.split(".")
                read.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    variable_length = bool(state.loops)
    for name in list(names):
        alias = state.aliases.get(name.split(".")[0])
        if alias is not None:
            names.extend(alias.names)
            calls.extend(alias.calls)
            filters.extend(alias.filters)
            truncations.extend(source.detail for source in alias.sources)
            variable_length = variable_length or alias.variable_length
    sources = tuple(Source(SourceKind.TRUNCATION, detail, span or Span.point("", 1))
                    for detail in _unique(truncations))
    return Slot(expression, _unique(names), _unique(calls), _unique(filters), variable_length, sources)


def _truncates(node: nodes.Node) -> bool:
    """A cut to a fixed length that leaves no marker: a slice, or `truncate` with an empty end."""
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
        return node.arg.stop is not None and node.arg.start is None
    if isinstance(node, nodes.Filter) and node.name == "truncate":
        end = next((kw.value for kw in node.kwargs if kw.key == "end"), None)
        if end is None and len(node.args) >= 3:
            end = node.args[2]
        return isinstance(end, nodes.Const) and end.value == ""
    return False


def _walk(node: nodes.Node):
    """Depth-first, parents before children (so a full dotted path is seen before its parts)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (nodes.Getattr, nodes.Getitem)) and _dotted(current):
            continue  # `a.b.c` is one name, not also `a.b` and `a`
        children = list(current.iter_child_nodes())
        if isinstance(current, nodes.Call) and _dotted(current.node):
            children.remove(current.node)  # `now()` is a call, not a variable named `now`
        stack.extend(reversed(children))


# A dotted path longer than this is not read as one name: `a.a.a…` a thousand deep reads `a`.
MAX_PATH_PARTS = 64


def _dotted(node: nodes.Node | None) -> str | None:
    """``user.profile.name`` for a chain of attributes and constant keys on a variable, else None."""
    parts: list[str] = []
    while len(parts) <= MAX_PATH_PARTS:
        if isinstance(node, nodes.Name):
            parts.append(node.name)
            return ".".join(reversed(parts))
        if isinstance(node, nodes.Getattr):
            parts.append(node.attr)
        elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            parts.append(node.arg.value)
        else:
            return None
        node = node.node
    return None


def _source_of(node: nodes.Node) -> str:
    """How an expression reads in a message: ``documents``, ``page | truncate``, ``text[:200]``."""
    suffixes: list[str] = []  # filters and slices, outermost first
    while True:
        dotted = _dotted(node)
        if dotted:
            base = dotted
        elif isinstance(node, nodes.Call):
            base = (_dotted(node.node) or "…") + "()"
        elif isinstance(node, nodes.Filter):
            suffixes.append(f" | {node.name}")
            if node.node is not None:
                node = node.node
                continue
            base = ""
        elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
            stop = node.arg.stop
            bound = _constant(stop.value) if isinstance(stop, nodes.Const) else (_dotted(stop) or "n")
            suffixes.append(f"[:{bound}]")
            node = node.node
            continue
        else:
            base = type(node).__name__.lower()
        return base + "".join(reversed(suffixes))


def _constant(value: object) -> str:
    """A literal as written (``4000``); an integer too long to print is described instead."""
    if isinstance(value, int) and value.bit_length() > 64:
        return shown(value)
    return str(value)


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    try:
        segments = parse_template(text, path)
    except TemplateError as error:
        line, column = line_locator(text)(error.offset)
        parsed.errors.append((Span.point(path, line, column), error.message))
        return parsed
    marked = roles_marked(segments, path)
    parsed.requests.append(Request(path, Span.point(path, 1), tuple(segments), roles_marked=marked))
    return parsed


def roles_marked(segments: list[Segment], path: str) -> bool:
    """Whether a template says the role its text is sent in. Without role lines the code that
    sends it decides; a file named like a system prompt says it, though."""
    return any(s.message_index for s in segments) or any(
        word in PurePosixPath(path).stem.lower() for word in ("system", "developer"))
