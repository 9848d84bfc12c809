"""JSON with positions: a small iterative parser that remembers where every value is.

The standard ``json`` module gives values but no positions, and it recurses, so hostile
nesting can exhaust the stack. This parser follows the full JSON grammar (RFC 8259), never
recurses, refuses nesting deeper than ``max_depth`` with a located error, and keeps for every
value its start and end offsets in the text. For a string it can also map an offset inside the
*decoded* value back to the raw text, escapes included, so that a template slot inside a JSON
string gets an exact file position.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from typing import Any, NoReturn

from ctxlint.frontends import OffsetError
from ctxlint.numbers import read_int

MAX_DEPTH = 128  # far beyond any real request or schema; deeper input is refused, not walked

_WS = re.compile(r"[ \t\n\r]*")
_SIMPLE_STRING = re.compile(r'"([^"\\\x00-\x1f]*)"')
_STRING = re.compile(r'"((?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_NON_JSON_CONSTANT = re.compile(r"-?Infinity|NaN")


class _NonJsonConstant(ValueError):
    pass


def _reject_constant(name: str) -> None:
    raise _NonJsonConstant(name)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # NaN and Infinity are not JSON
# For the rare value with an integer too long for int(): it becomes infinity (ctxlint.numbers).
_LONG_INT_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_int=read_int)
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = (("true", True), ("false", False), ("null", None))


class JsonError(OffsetError):
    """Text that is not JSON; ``offset`` is where the parser stopped."""


class Node:
    """A JSON value and where it is.

    ``kind`` is ``object``, ``array``, ``string``, ``number`` or ``literal``; ``start`` and
    ``end`` are offsets of its first character and just after its last (quotes and brackets
    included); ``value`` is the plain Python value. An object's ``fields`` map each key to its
    key node and value node (the last one wins for a repeated key, as in ``json``); an array's
    ``items`` are its element nodes. Both are None for a container read without detail (see
    ``parse``): its value and extent are known, the positions inside it are not.
    """

    __slots__ = ("end", "fields", "items", "kind", "raw_content", "start", "value")

    def __init__(self, kind: str, start: int, end: int, value: Any):
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value  # Any, as from json.loads: the shape is checked where it is read
        self.fields: dict[str, tuple[Node, Node]] | None = None
        self.items: list[Node] | None = None
        self.raw_content: str | None = None  # a string's text between its quotes, escapes and all

    def __repr__(self) -> str:
        return f"Node({self.kind}, {self.start}-{self.end})"


def parse(text: str, max_depth: int = MAX_DEPTH, detail: Collection[str] | None = None) -> Node:
    """Parse one JSON document; raise ``JsonError`` with the offset of the first problem.

    With ``detail``, only the values of those keys (and the root, and the items of detailed
    arrays) keep positions inside them; other objects and arrays are read in one step by the
    standard decoder, which is much faster for large schemas and data.
    """
    return _parse(text, 0, len(text), max_depth, detail)


def _parse(text: str, pos: int, n: int, max_depth: int, detail: Collection[str] | None) -> Node:
    """Parse the value in ``text[pos:n]``, which must hold exactly one JSON value."""
    stack: list[tuple[Node, str | None]] = []  # open containers, with the key being filled
    pos = _skip_ws(text, pos)
    while True:
        # --- one value starting at pos ---------------------------------------------------
        if pos >= n:
            raise JsonError("Expecting value", pos)
        char = text[pos]
        node: Node
        if (char == "{" or char == "[") and detail is not None and stack and (
                stack[-1][0].kind == "object" and stack[-1][1] not in detail):
            node = _skim(text, pos, max_depth - len(stack))
            pos = node.end
        elif char == "{" or char == "[":
            if len(stack) >= max_depth:
                raise JsonError(f"the JSON nests more than {max_depth} levels deep; not read", pos)
            is_object = char == "{"
            node = Node("object" if is_object else "array", pos, -1, {} if is_object else [])
            if is_object:
                node.fields = {}
            else:
                node.items = []
            pos = _skip_ws(text, pos + 1)
            closer = "}" if is_object else "]"
            if pos < n and text[pos] == closer:
                node.end = pos + 1
                pos += 1
            else:
                key = None
                if node.fields is not None:
                    key_node, pos = _key(text, pos)
                    key = key_node.value
                    node.fields[key] = (key_node, node)  # placeholder until the value arrives
                stack.append((node, key))
                continue
        elif char == '"':
            node, pos = _string(text, pos)
        elif char == "-" or "0" <= char <= "9":
            match = _NUMBER.match(text, pos)
            if match is None:
                raise JsonError("Expecting value", pos)
            raw = match.group()
            value: object
            if match.group(1) is None and match.group(2) is None:
                value = read_int(raw)
            else:
                value = float(raw)
            node = Node("number", pos, match.end(), value)
            pos = match.end()
        else:
            for word, literal in _LITERALS:
                if text.startswith(word, pos):
                    node = Node("literal", pos, pos + len(word), literal)
                    pos += len(word)
                    break
            else:
                raise JsonError("Expecting value", pos)

        # --- attach the finished value, closing every container it completes -----------------
        while True:
            if not stack:
                pos = _skip_ws(text, pos)
                if pos < n:
                    raise JsonError("Extra data after the JSON value", pos)
                return node
            parent, key = stack[-1]  # an object (its fields, the key being filled) or an array
            if parent.fields is not None and key is not None:
                parent.fields[key] = (parent.fields[key][0], node)
                parent.value[key] = node.value
            elif parent.items is not None:
                parent.items.append(node)
                parent.value.append(node.value)
            pos = _skip_ws(text, pos)
            closer = "}" if parent.kind == "object" else "]"
            char = text[pos] if pos < n else ""
            if char == ",":
                pos = _skip_ws(text, pos + 1)
                if parent.fields is not None:
                    key_node, pos = _key(text, pos)
                    stack[-1] = (parent, key_node.value)
                    parent.fields.pop(key_node.value, None)  # a repeated key: the later one wins
                    parent.fields[key_node.value] = (key_node, parent)  # until its value arrives
                break
            if char == closer:
                parent.end = pos + 1
                pos += 1
                stack.pop()
                node = parent
                continue
            raise JsonError(f"Expecting ',' delimiter or '{closer}'", pos)


def _skim(text: str, pos: int, depth_left: int) -> Node:
    """An object or array read by the standard decoder: value and extent, no inner positions."""
    try:
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except ValueError as error:
            if isinstance(error, (json.JSONDecodeError, _NonJsonConstant)):
                raise
            value, end = _LONG_INT_DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as error:
        raise JsonError(error.msg, error.pos) from None
    except _NonJsonConstant:
        found = _NON_JSON_CONSTANT.search(text, pos)
        raise JsonError("Expecting value (NaN and Infinity are not JSON)", found.start() if found else pos) from None
    except RecursionError:
        raise JsonError("the JSON nests too deeply to read", pos) from None
    if text.count("[", pos, end) + text.count("{", pos, end) > depth_left and _nesting(text, pos, end) > depth_left:
        raise JsonError(f"the JSON nests more than {MAX_DEPTH} levels deep; not read", pos)
    if _SURROGATE_ESCAPE.search(text, pos, end):  # maybe a lone one: this parser cleans those
        node = _parse(text, pos, end, depth_left, None)
        node.fields = node.items = None
        return node
    return Node("object" if text[pos] == "{" else "array", pos, end, value)


def _skip_ws(text: str, pos: int) -> int:
    """The offset of the first character at or after ``pos`` that is not JSON whitespace."""
    match = _WS.match(text, pos)
    return match.end() if match is not None else pos  # never None: the pattern matches ""


def _nesting(text: str, start: int, end: int) -> int:
    depth = deepest = 0
    for match in _BRACKET.finditer(text, start, end):
        char = match.group()[0]
        if char == '"':
            continue
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _key(text: str, pos: int) -> tuple[Node, int]:
    """An object key at ``pos`` and the position after the ``:`` that follows it."""
    if pos >= len(text) or text[pos] != '"':
        raise JsonError("Expecting property name enclosed in double quotes", pos)
    key_node, pos = _string(text, pos)
    pos = _skip_ws(text, pos)
    if pos >= len(text) or text[pos] != ":":
        raise JsonError("Expecting ':' delimiter", pos)
    return key_node, _skip_ws(text, pos + 1)


def _string(text: str, pos: int) -> tuple[Node, int]:
    match = _SIMPLE_STRING.match(text, pos)
    if match is not None:
        content = match.group(1)
        value = content
    else:
        match = _STRING.match(text, pos)
        if match is None:
            _string_error(text, pos)
        content = match.group(1)
        value = json.loads(match.group())
        if _LONE_SURROGATE.search(value):  # `\ud800` alone: keep the length, drop the invalid code point
            value = _LONE_SURROGATE.sub("\ufffd", value)
    node = Node("string", pos, match.end(), value)
    node.raw_content = content
    return node, match.end()


def _string_error(text: str, start: int) -> NoReturn:
    """Raise the error for the malformed string that starts at ``start``."""
    i = start + 1
    n = len(text)
    while i < n:
        char = text[i]
        if char == '"':
            break
        if char == "\\":
            escape = text[i + 1 : i + 2]
            if escape == "u":
                if not re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6]):
                    raise JsonError("Invalid \\uXXXX escape", i)
                i += 6
                continue
            if escape not in _ESCAPES:
                raise JsonError("Invalid \\escape", i)
            i += 2
            continue
        if char < " ":
            if char == "\n":
                raise JsonError("Unterminated string (a JSON string cannot span lines; write \\n)", start)
            raise JsonError("Invalid control character in string", i)
        i += 1
    raise JsonError("Unterminated string starting here", start)


def string_offsets(node: Node) -> Callable[[int], int]:
    """For a string node: a function from an offset in its decoded value to a text offset.

    Offset ``len(value)`` maps to the closing quote. A character written as an escape maps to
    the backslash that starts it.
    """
    content = node.raw_content or ""
    first = node.start + 1
    if "\\" not in content:
        return lambda offset: first + min(max(offset, 0), len(content))
    starts: list[int] = []  # raw offset (within content) of each decoded character
    i = 0
    n = len(content)
    while i < n:
        if content[i] != "\\":
            starts.append(i)
            i += 1
            continue
        if content[i + 1] != "u":
            starts.append(i)
            i += 2
            continue
        code = int(content[i + 2 : i + 6], 16)
        following = content[i + 6 : i + 8] == "\\u" and 0xDC00 <= _hex(content[i + 8 : i + 12]) <= 0xDFFF
        starts.append(i)
        i += 12 if 0xD800 <= code <= 0xDBFF and following else 6
    starts.append(n)

    def locate(offset: int) -> int:
        offset = min(max(offset, 0), len(starts) - 1)
        return first + starts[offset]

    return locate


def _hex(digits: str) -> int:
    try:
        return int(digits, 16)
    except ValueError:
        return -1
