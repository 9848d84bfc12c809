"""Where each key of a TOML document is written: its line, for error messages.

tomllib gives values, not positions, and a configuration error has to say where to look
(``pyproject.toml:14: `tool.ctxlint.selekt`: unknown key``). This scanner walks the document
once, following table headers, dotted keys, inline tables and arrays, and records the line of
every key path it sees. It assumes the document parses (tomllib has already said so) and never
raises: anything it cannot follow simply has no line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPE = re.compile(r"\\(?:u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\", "e": "\x1b"}

KeyPath = tuple[str, ...]


def key_lines(text: str) -> dict[KeyPath, int]:
    """Every key path in ``text`` (tables, keys, keys of inline tables) with its 1-based line."""
    scanner = _Scanner(text)
    try:
        scanner.document()
    except (IndexError, ValueError):  # only on documents tomllib rejects: keep what was found
        pass
    return scanner.lines


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """The line of ``path``, or of its longest prefix that has one (a value inside an array is
    reported on its key's line)."""
    for end in range(len(path), 0, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.lines: dict[KeyPath, int] = {}

    # --- characters ---------------------------------------------------------------------

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else ""

    def advance(self, count: int = 1) -> None:
        chunk = self.text[self.pos : self.pos + count]
        self.line += chunk.count("\n")
        self.pos += count

    def skip_blank(self, newlines: bool) -> None:
        """Spaces and tabs; with ``newlines``, also line ends and comments (inside arrays)."""
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in " \t" or (newlines and char in "\r\n"):
                self.advance()
            elif char == "#" and newlines:
                self.skip_comment()
            else:
                return

    def skip_comment(self) -> None:
        end = self.text.find("\n", self.pos)
        self.advance((len(self.text) if end < 0 else end) - self.pos)

    def skip_line(self) -> None:
        self.skip_blank(newlines=False)
        if self.peek() == "#":
            self.skip_comment()
        while self.peek() and self.peek() not in "\n":
            self.advance()  # tolerate trailing junk rather than lose our place
        if self.peek() == "\n":
            self.advance()

    # --- structure ----------------------------------------------------------------------

    def document(self) -> None:
        table: KeyPath = ()
        while self.pos < len(self.text):
            self.skip_blank(newlines=True)
            if self.pos >= len(self.text):
                return
            if self.peek() == "[":
                array = self.peek(1) == "["
                self.advance(2 if array else 1)
                line = self.line
                self.skip_blank(newlines=False)
                table = self.key()
                self.lines.setdefault(table, line)
                self.skip_blank(newlines=False)
                self.advance(2 if array else 1)
                self.skip_line()
            else:
                self.key_value(table)
                self.skip_line()

    def key_value(self, table: KeyPath) -> None:
        line = self.line
        key = self.key()
        for end in range(1, len(key) + 1):  # dotted keys define their intermediate tables too
            self.lines.setdefault(table + key[:end], line)
        self.skip_blank(newlines=False)
        if self.peek() != "=":
            raise ValueError("expected '='")
        self.advance()
        self.skip_blank(newlines=False)
        self.value(table + key)

    def key(self) -> KeyPath:
        parts = [self.simple_key()]
        while True:
            self.skip_blank(newlines=False)
            if self.peek() != ".":
                return tuple(parts)
            self.advance()
            self.skip_blank(newlines=False)
            parts.append(self.simple_key())

    def simple_key(self) -> str:
        char = self.peek()
        if char in "\"'":
            return self.string()
        match = _BARE_KEY.match(self.text, self.pos)
        if match is None:
            raise ValueError("expected a key")
        self.advance(match.end() - self.pos)
        return match.group()

    def items(self, close: str, item: Callable[[], None]) -> None:
        """An array or an inline table: ``item`` read up to ``close``, separated by commas."""
        self.advance()
        while True:
            self.skip_blank(newlines=True)
            if self.peek() == close:
                self.advance()
                return
            item()
            self.skip_blank(newlines=True)
            if self.peek() == ",":
                self.advance()

    def value(self, path: KeyPath) -> None:
        char = self.peek()
        if char in "\"'":
            self.string()
        elif char == "[":
            self.items("]", lambda: self.value(path))
        elif char == "{":
            self.items("}", lambda: self.key_value(path))
        else:  # a number, date, boolean: runs to a delimiter
            while self.peek() and self.peek() not in ",]}#\n":
                self.advance()

    def string(self) -> str:
        quote = self.peek()
        triple = self.text.startswith(quote * 3, self.pos)
        delimiter = quote * 3 if triple else quote
        self.advance(len(delimiter))
        start = self.pos
        while True:
            if self.pos >= len(self.text):
                raise ValueError("unterminated string")
            if quote == '"' and self.peek() == "\\":
                self.advance(2)
                continue
            if self.text.startswith(delimiter, self.pos):
                # A multi-line string may end with up to two extra quotes before its delimiter.
                while triple and self.text.startswith(delimiter + quote, self.pos):
                    self.advance()
                raw = self.text[start : self.pos]
                self.advance(len(delimiter))
                return _unescape(raw) if quote == '"' else raw
            self.advance()


def _unescape(raw: str) -> str:
    def replace(match: re.Match[str]) -> str:
        body = match.group()[1:]
        if body[0] in "uU":
            return chr(int(body[1:], 16))
        return _SIMPLE_ESCAPES.get(body, body)

    return _ESCAPE.sub(replace, raw)
