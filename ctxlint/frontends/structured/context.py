"""What reading one file carries (its path, text and locator, the notices and errors found), the
nodes of a YAML document with their offsets, and small helpers of the shapes."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from ctxlint.frontends import jsonpos, limits, template_syntax
from ctxlint.frontends.jsonpos import Node
from ctxlint.frontends.locate import line_locator, span_maker
from ctxlint.frontends.placeholders import format_fields
from ctxlint.model import (
    Breakpoint,
    ParsedFile,
    Role,
    Segment,
    Slot,
    Span,
)

# Tables of a request file or a prompt file that hold the model's settings.
SETTINGS_TABLES = ("parameters", "model_parameters", "modelParameters", "model_settings", "settings",
                   "generationConfig", "options", "llm_config", "generation_config", "config")


class Refused(Exception):
    def __init__(self, message: str, offset: int = 0, line_column: tuple[int, int] | None = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.line_column = line_column


class Context:
    """One file: its text, where offsets are, and how string values become segments."""

    def __init__(self, text: str, path: str, parsed: ParsedFile):
        self.text = text
        self.path = path
        self.parsed = parsed
        self.locate = line_locator(text)
        self.scalars: dict[int, object] = {}  # id(Node) -> its YAML scalar node
        self.strings = 0  # string values turned into segments so far

    # positions
    def point(self, offset: int, line_column: tuple[int, int] | None = None) -> Span:
        line, column = line_column or self.locate(offset)
        return Span.point(self.path, line, column)

    def span(self, start: int, end: int) -> Span:
        line, column = self.locate(start)
        end_line, end_column = self.locate(end)
        return Span(self.path, line, column, end_line, end_column)

    def wrong_type(self, node: Node, what: str, expected: str) -> None:
        """A located error for a value of the wrong JSON type (a content part whose `type` is a list)."""
        self.parsed.errors.append((self.point(node.start), f"invalid request: {what} is {_describe_kind(node)}, "
                                                           f"where the API expects {expected}"))

    def key_span(self, fields: dict, key: str) -> Span:
        key_node = fields[key][0]
        return self.span(key_node.start, key_node.end)

    # loading
    def load_json(self) -> Node:
        try:
            return jsonpos.parse(self.text, detail=_DETAIL_KEYS)
        except jsonpos.JsonError as error:
            raise Refused(f"invalid JSON: {error.message}", error.offset) from None

    def load_yaml(self) -> Node | None:
        from ctxlint import yamlsafe

        try:
            node = yamlsafe.compose(self.text)
        except yamlsafe.YamlError as error:
            raise Refused(error.message, line_column=(error.line + 1, error.column + 1)) from None
        if node is None:
            return None
        return _from_yaml(node, self.scalars, self.text)

    # strings
    def offsets(self, node: Node) -> Callable[[int], int]:
        """From offsets in a string node's decoded value to offsets in the file."""
        scalar = self.scalars.get(id(node))
        if scalar is None:
            return jsonpos.string_offsets(node)
        return _yaml_offsets(self.text, scalar, node.value)

    def segments(self, node: Node, role: Role, index: int, syntax: str = "jinja") -> list[Segment]:
        """The segments of one string value (static text, or a template's slots and text).

        ``syntax``: ``jinja`` (request files: Jinja when the value has ``{{``/``{%``, else static
        text), ``template`` (YAML prompt values: Jinja, else ``{name}`` format fields),
        ``format`` (f-strings: LangChain, CrewAI), ``sk`` (Semantic Kernel), ``handlebars``.
        """
        value = node.value
        if not isinstance(value, str) or not value:
            return []
        # Each string is at least one segment; the analyses are linear in their number.
        self.strings += 1
        if self.strings > limits.MAX_SEGMENTS:
            raise Refused(limits.too_many_segments(), node.start)
        offsets = self.offsets(node)

        def locate(offset: int) -> tuple[int, int]:
            return self.locate(offsets(offset))

        span = span_maker(self.path, locate)

        if syntax in ("jinja", "template") and template_syntax.sniff(value) == "handlebars":
            # `{{#each}}`, `{{> partial}}`, `{{role "system"}}` are Handlebars or Mustache, never
            # Jinja: a spec or test file that keeps such templates under a plain key.
            syntax = "handlebars"
        if syntax in ("jinja", "template") and JINJA_MARKERS.search(value):
            from ctxlint.frontends import jinja

            try:
                found = jinja.parse_template(value, self.path, locate, role)
            except jinja.TemplateError as error:
                if syntax == "template" and FORMAT_FIELD.search(value) or self.format_file(value):
                    # A `str.format` template whose `{{`/`}}` write literal braces: not Jinja.
                    return format_segments(value, role, index, span)
                self.parsed.errors.append((self.point(offsets(error.offset)), error.message))
                return [Segment(role, span(0, len(value)), value, None, index)]
            return [_with_index(s, index) for s in found]
        if syntax in ("template", "format") and FORMAT_FIELD.search(value):
            return format_segments(value, role, index, span)
        if syntax in ("sk", "handlebars") and "{{" in value:
            return self._double_brace(value, role, index, syntax, offsets, locate, span)
        return [Segment(role, span(0, len(value)), value, None, index)]

    def format_file(self, value: str) -> bool:
        """Whether a request file's string that Jinja cannot read is a ``str.format`` template:
        the file fills ``{name}`` fields, holds no Jinja statement, and every brace of the value
        balances as ``str.format`` reads it (``{{``/``}}`` write literal braces)."""
        return bool(FORMAT_FIELD.search(self.text)) and not JINJA_STATEMENTS.search(self.text) \
            and format_fields(value) is not None

    def _double_brace(self, value, role, index, syntax, offsets, locate, span) -> list[Segment]:
        """Semantic Kernel's own syntax (``{{$var}}``, ``{{time.Date}}``, ``<message role>``
        elements) or Handlebars (``{{#each history}}``), read by those front-ends' parsers."""
        from ctxlint.frontends import handlebars, semantic_kernel

        try:
            if syntax == "sk":
                found = semantic_kernel.parse_template(value, self.path, locate)
            else:
                found = handlebars.parse_template(value, self.path, locate, role)
        except (semantic_kernel.TemplateError, handlebars.HandlebarsError) as error:
            self.parsed.errors.append((self.point(offsets(error.offset)), error.message))
            return [Segment(role, span(0, len(value)), value, None, index)]
        return [_with_index(s, index + s.message_index) for s in found]


JINJA_MARKERS = re.compile(r"\{\{|\{%|\{#")
JINJA_STATEMENTS = re.compile(r"\{%|\{#")
# JSON values whose inner positions matter; the rest (schemas, data) is read without positions.
_DETAIL_KEYS = frozenset({"messages", "system", "tools", "functions", "content", "input", "instructions",
                          "result", *SETTINGS_TABLES, "contents", "parts", "systemInstruction",
                          "system_instruction", "functionDeclarations", "function_declarations"})


def is_null(node: Node) -> bool:
    return node.kind == "literal" and node.value is None


def _describe_kind(node: Node) -> str:
    if node.kind == "object":
        return "an object"
    if node.kind == "array":
        return "a list"
    if node.kind == "string":
        return "a string"
    if isinstance(node.value, bool):
        return f"`{str(node.value).lower()}`"
    return "null" if node.value is None else "a number"


def _with_index(segment: Segment, index: int) -> Segment:
    if segment.message_index == index:
        return segment
    return Segment(segment.role, segment.span, segment.text, segment.slot, index, segment.loop)


def breakpoint_at(ctx: Context, block: Node, covers: int) -> Breakpoint:
    assert block.fields is not None  # the caller found `cache_control` in them
    control = block.fields["cache_control"][1]
    ttl = control.value.get("ttl") if isinstance(control.value, dict) else None
    return Breakpoint(ctx.key_span(block.fields, "cache_control"), covers, ttl if isinstance(ttl, str) else None)


# --- YAML nodes as positioned nodes ------------------------------------------------------------


def _from_yaml(root, scalars: dict[int, object], text: str) -> Node:
    """Turn a composed YAML node graph into ``jsonpos.Node`` trees, without recursion.

    Aliases share one converted node, so a value reused through an anchor is located where the
    anchor defines it. A graph deeper than ``jsonpos.MAX_DEPTH`` is refused. A block node's
    extent ends at its last character, not at the next line's indentation.
    """
    import yaml

    from ctxlint import yamlsafe

    mapping, sequence, merge = yaml.MappingNode, yaml.SequenceNode, "tag:yaml.org,2002:merge"
    # Children before parents (a post-order walk): with aliases, one node has several parents.
    # A node is pushed once with its children, then again (as None, ynode) to be built after them.
    order: list = []
    seen: set[int] = set()
    stack: list = [root]
    while stack:
        ynode = stack.pop()
        if type(ynode) is tuple:
            order.append(ynode[1])
            continue
        if id(ynode) in seen:
            continue
        seen.add(id(ynode))
        stack.append((None, ynode))
        if isinstance(ynode, mapping):
            stack.extend([v for _, v in ynode.value])
        elif isinstance(ynode, sequence):
            stack.extend(ynode.value)
    scalar_node = yaml.ScalarNode
    built: dict[int, tuple[Node, int]] = {}  # each built node, with its height (1 for a scalar)
    for ynode in order:
        start, end = ynode.start_mark.index, ynode.end_mark.index
        while end > start and text[end - 1] in " \t\n":
            end -= 1
        tallest = 0
        if isinstance(ynode, mapping):
            fields: dict[str, tuple[Node, Node]] = {}
            values: dict[str, object] = {}
            for key, value in ynode.value:
                if not isinstance(key, scalar_node) or key.tag == merge:
                    continue
                child, child_height = built[id(value)]
                if child_height > tallest:
                    tallest = child_height
                name = key.value
                if name in fields:  # a repeated key: the later one wins (in its own place among the fields)
                    del fields[name]
                fields[name] = (Node("string", key.start_mark.index, key.end_mark.index, name), child)
                values[name] = child.value
            node = Node("object", start, end, values)
            node.fields = fields
        elif isinstance(ynode, sequence):
            children = [built[id(item)] for item in ynode.value]
            items = [item for item, _ in children]
            node = Node("array", start, end, [item.value for item in items])
            node.items = items
            tallest = max([item_height for _, item_height in children], default=0)
        else:
            value = yamlsafe.scalar(ynode)
            node = Node("string" if isinstance(value, str) else "literal", start, end, value)
            if isinstance(value, str):
                scalars[id(node)] = ynode
        if tallest + 1 > jsonpos.MAX_DEPTH:
            raise Refused(f"the YAML nests more than {jsonpos.MAX_DEPTH} levels deep; not read",
                           line_column=(ynode.start_mark.line + 1, ynode.start_mark.column + 1))
        built[id(ynode)] = (node, tallest + 1)
    return built[id(root)][0]


def _yaml_offsets(text: str, scalar, value: str) -> Callable[[int], int]:
    """From offsets in a YAML scalar's value to file offsets.

    Plain and quoted scalars on one line without escapes map exactly. Otherwise each source
    line's text is found in the value in order (block scalars: the line minus its indentation),
    which is exact for literal blocks (``|``) and for every character written as itself in
    folded (``>``) and multi-line scalars; characters that folding or escapes changed map to the
    nearest written character on the same line.
    """
    start, end = scalar.start_mark.index, scalar.end_mark.index
    style = scalar.style or None
    if style in ("|", ">"):
        newline = text.find("\n", start, end)
        first = newline + 1 if newline >= 0 else end
    elif style in ('"', "'"):
        first, end = start + 1, max(start + 1, end - 1)
    else:
        first = start
    raw = text[first:end]
    if "\n" not in raw and raw == value:
        return lambda offset: first + min(max(offset, 0), len(value))
    anchors: list[tuple[int, int, int]] = []  # (offset in value, offset in file, length)
    cursor = 0
    line_start = first
    for line in raw.split("\n"):
        stripped = line.lstrip(" \t")
        piece_start = line_start + len(line) - len(stripped)
        piece = stripped if style in ("|", ">") else stripped.rstrip(" \t")
        # Runs of characters written as themselves, between escapes (`\n`, `''`).
        escape = _ESCAPE_BY_STYLE.get(style)
        runs = ([(piece, 0)] if piece else []) if escape is None else _runs(piece, escape)
        for run, at in runs:
            found = value.find(run, cursor)
            if found >= 0:
                anchors.append((found, piece_start + at, len(run)))
                cursor = found + len(run)
        line_start += len(line) + 1
    if not anchors:
        return lambda offset: first
    starts = [a[0] for a in anchors]

    def locate(offset: int) -> int:
        index = bisect.bisect_right(starts, offset) - 1
        if index < 0:
            return anchors[0][1]
        at, file_offset, length = anchors[index]
        return file_offset + min(offset - at, length)

    return locate


_ESCAPE_BY_STYLE: dict[str | None, re.Pattern[str]] = {  # by a scalar's style (None: plain, no escapes)
    '"': re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.|$)"),
    "'": re.compile("''"),
}


def _runs(piece: str, escape: re.Pattern) -> list[tuple[str, int]]:
    """The non-empty stretches of ``piece`` between escapes, with their offsets."""
    runs = []
    cursor = 0
    for match in escape.finditer(piece):
        if match.start() > cursor:
            runs.append((piece[cursor : match.start()], cursor))
        cursor = match.end()
    if cursor < len(piece):
        runs.append((piece[cursor:], cursor))
    return runs


# --- small template syntaxes -----------------------------------------------------------------

# `{name}`, `{user.name}`, `{items[0]}`, `{value!r:>10}`; `{{` and `}}` are literal braces.
FORMAT_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\w+\])*)(?:![rsa])?(?::[^{}\n]*)?\}(?!\})")


def format_segments(value: str, role: Role, index: int, span) -> list[Segment]:
    """Python ``str.format`` / f-string style fields (LangChain, CrewAI)."""
    segments: list[Segment] = []
    cursor = 0
    for match in FORMAT_FIELD.finditer(value):
        if match.start() > cursor:
            segments.append(Segment(role, span(cursor, match.start()), value[cursor : match.start()], None, index))
        name = re.sub(r"\[(\w+)\]", r".\1", match.group(1))
        segments.append(Segment(role, span(match.start(), match.end()), match.group(1),
                                Slot(match.group(1), names=(name,)), index))
        cursor = match.end()
    if cursor < len(value):
        segments.append(Segment(role, span(cursor, len(value)), value[cursor:], None, index))
    return segments
