"""String literals as written: the tokens of an (implicitly concatenated) string, escapes, the
fields of f-strings, ``str.format`` templates and ``%`` conversions located in the source text,
and operations on the pieces of a string value (strip, dedent) that keep each piece's span.

``ast`` gives a string's value, not how it is written; spans of static text must point where
the text is written, so the tokens are read again from the source between the node's ends.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from ctxlint.frontends.code.pieces import Piece, kept, slot_text
from ctxlint.frontends.code.pieces import strip as strip_ends
from ctxlint.model import Slot, Source, Span

ESCAPE = re.compile(
    r"\\(?:\n|[\\'\"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|N\{[^}\n]*\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_PREFIX = re.compile(r"[rRbBuUfF]{0,2}(?='|\")")
_QUOTES = ('"""', "'''", '"', "'")


def clean(text: str) -> str:
    """Text as the model would get it: a lone surrogate (``"\\ud800"``) cannot be encoded as
    UTF-8, so it stands as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text) if not text.isascii() else text


def _decode_escape(match: re.Match[str]) -> str:
    return _decoded(match.group(0))


@lru_cache(maxsize=4096)
def _decoded(text: str) -> str:
    """One escape sequence's character; compiled once per distinct escape (a module of
    thousands of ``"...\\n"`` literals would otherwise compile a tiny module per escape)."""
    if text == "\\\n":
        return ""
    try:
        value = ast.literal_eval('"' + text + '"')
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, str) else text


def unescape(text: str, raw: bool) -> str:
    return text if raw or "\\" not in text else clean(ESCAPE.sub(_decode_escape, text))


@dataclass(frozen=True)
class StrToken:
    """One string literal token: its prefix (lower-cased), quotes and raw body, located by the
    offset of the body in the module's text."""

    prefix: str
    quote: str
    body_start: int
    body: str

    @property
    def raw(self) -> bool:
        return "r" in self.prefix

    @property
    def is_f(self) -> bool:
        return "f" in self.prefix

    @property
    def is_bytes(self) -> bool:
        return "b" in self.prefix


def scan_tokens(text: str, start: int, end: int) -> list[StrToken] | None:
    """The string tokens between ``start`` and ``end``, which hold one (implicitly
    concatenated) string literal: tokens separated by blanks, comments and line joins."""
    tokens = []
    i = start
    while i < end:
        char = text[i]
        if char in " \t\n\f\r":
            i += 1
            continue
        if char == "\\" and text.startswith("\n", i + 1):
            i += 2
            continue
        if char == "#":
            newline = text.find("\n", i)
            i = end if newline < 0 else newline
            continue
        match = _PREFIX.match(text, i)
        if match is None:
            return None
        prefix = match.group().lower()
        i = match.end()
        quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
        body_start = i + len(quote)
        close = closing_quote(text, body_start, quote, "f" in prefix, end)
        if close is None:
            return None
        tokens.append(StrToken(prefix, quote, body_start, text[body_start:close]))
        i = close + len(quote)
    return tokens or None


def closing_quote(text: str, i: int, quote: str, fstring: bool, end: int, nested: int = 0) -> int | None:
    """The offset of the quote that closes a string body starting at ``i``, or None when it does
    not close; an f-string's replacement fields are skipped whole (``nested`` of them deep)."""
    special = _SPECIAL[quote[0], len(quote) == 1, fstring]
    while i < end:
        found = special.search(text, i, end)  # the plain characters in between are skipped at once
        if found is None:
            return None
        i = found.start()
        char = text[i]
        if char == "\\":
            i += 2
        elif text.startswith(quote, i):
            return i
        elif char == "\n" and len(quote) == 1:
            return None
        elif fstring and char == "{":
            if text.startswith("{", i + 1):
                i += 2
            else:
                after = field_end(text, i, end, nested + 1)
                if after is None:
                    return None
                i = after
        else:
            i += 1
    return None


# How deep f-strings may nest in each other's replacement fields (PEP 701 lets a field hold an
# f-string with the same quotes); CPython's own parser refuses more than 150 levels.
MAX_FIELD_NESTING = 150

# The characters that may end, escape or interrupt a string body, by its quote character,
# whether the quote is single and whether the body is an f-string's.
_SPECIAL = {(q, single, fstring): re.compile("[\\\\" + q + ("\n" if single else "") + ("{" if fstring else "") + "]")
            for q in "'\"" for single in (True, False) for fstring in (True, False)}


def field_end(text: str, i: int, end: int, nested: int = 1) -> int | None:
    """The offset after the ``}`` that closes the replacement field opened at ``i``; strings
    inside the field (and, from Python 3.12, its own quotes) are skipped whole. Fields nested
    deeper than CPython allows (its parser stops at 150) are not read: None, as for a field
    that never closes."""
    if nested > MAX_FIELD_NESTING:
        return None
    depth = 0
    while i < end:
        char = text[i]
        if char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
            if depth == 0:
                return i + 1
        elif char in "'\"":
            prefix = ""
            back = i
            while back > 0 and text[back - 1] in "rRbBfFuU" and len(prefix) < 2:
                back -= 1
                prefix = text[back] + prefix
            quote = next(q for q in _QUOTES if text.startswith(q, i))
            close = closing_quote(text, i + len(quote), quote, "f" in prefix.lower(), end, nested)
            if close is None:
                return None
            i = close + len(quote)
            continue
        i += 1
    return None


def decode_tokens(tokens: list[StrToken]) -> tuple[str, list[int]]:
    """The text of string tokens joined, and for each of its characters the offset in the
    module's text where it is written (an escape's characters map to the escape)."""
    chars: list[str] = []
    offsets: list[int] = []
    for token in tokens:
        body, base = token.body, token.body_start
        if token.raw or "\\" not in body:
            chars.append(body)
            offsets.extend(range(base, base + len(body)))
            continue
        cursor = 0
        for match in ESCAPE.finditer(body):
            chars.append(body[cursor : match.start()])
            offsets.extend(range(base + cursor, base + match.start()))
            decoded = unescape(match.group(0), False)
            chars.append(decoded)
            offsets.extend([base + match.start()] * len(decoded))
            cursor = match.end()
        chars.append(body[cursor:])
        offsets.extend(range(base + cursor, base + len(body)))
    return "".join(chars), offsets


@dataclass(frozen=True)
class FieldRange:
    """A replacement field ``{expr!c:spec}`` of an f-string body: where it starts and ends."""

    start: int
    end: int


def fstring_fields(body: str) -> list[FieldRange] | None:
    """The replacement fields of an f-string token's body, in order."""
    fields = []
    i, n = 0, len(body)
    while i < n:
        char = body[i]
        if char == "\\":
            i += 2
        elif char == "{":
            if body.startswith("{", i + 1):
                i += 2
                continue
            close = field_end(body, i, n)
            if close is None:
                return None
            fields.append(FieldRange(i, close))
            i = close
        else:
            i += 1
    return fields


PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<conv>[diouxXeEfFgGcrsa%])"
)


def percent_fields(body: str) -> list[tuple[int, int, str | None]]:
    """``(start, end, key)`` for each ``%`` conversion (``key`` None for positional ones)."""
    return [(m.start(), m.end(), m.group("key")) for m in PERCENT.finditer(body) if m.group("conv") != "%"]


class Located:
    """Offsets inside a string token's body, mapped to spans and decoded static pieces."""

    def __init__(self, path: str, token: StrToken, locate: Callable[[int], tuple[int, int]]) -> None:
        self.path = path
        self.token = token
        self.locate = locate
        self.body = token.body

    def span(self, start: int, end: int) -> Span:
        line, column = self.locate(self.token.body_start + start)
        end_line, end_column = self.locate(self.token.body_start + end)
        return Span(self.path, line, column, end_line, end_column)

    def static(self, start: int, end: int, braces: bool = False, percent: bool = False) -> list[Piece]:
        text = self.body[start:end]
        if not text:
            return []
        if braces:
            text = text.replace("{{", "{").replace("}}", "}")
        if percent:
            text = text.replace("%%", "%")
        return [Piece(unescape(text, self.token.raw), self.span(start, end))]


def string_value(node: ast.AST | None) -> str | None:
    """The value of a text literal (not bytes), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return clean(node.value)
    return None


def keyed_fields(node: ast.AST) -> dict[str, ast.expr]:
    """The fields of a dict literal under its text keys (``{"role": "user", "content": ...}``), or
    of a call under its keyword arguments (``Message(role="user", content=...)``); the last of
    a repeated key wins, as at run time."""
    if isinstance(node, ast.Dict):
        return {k.value: v for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if isinstance(node, ast.Call):
        return {k.arg: k.value for k in node.keywords if k.arg}
    return {}


def is_text(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def number_value(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        try:
            return float(node.value)
        except OverflowError:
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        a, b = number_value(node.left), number_value(node.right)
        return a / b if a is not None and b else None
    return None


def written_scale(node: ast.AST) -> float | None:
    """The ratio of a product of numbers written in place that scales one count of 1,000 or more
    by a ratio above 2 and at most 6, any other factor a share of at most 1 (``120_000 * 3.5``,
    ``3.5 * 4096 * 0.8``): a token count turned into characters. None for any other product (two
    large factors, ``1024 * 1024 * 5``, are a size in bytes)."""
    factors = _factors(node) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) else None
    if factors is None:
        return None
    large = [f for f in factors if f >= 1000]
    ratios = [f for f in factors if 2 < f <= 6]
    if len(large) != 1 or len(ratios) != 1 or any(1 < f <= 2 or 6 < f < 1000 for f in factors):
        return None
    return ratios[0]


def _factors(node: ast.AST) -> list[float] | None:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        left, right = _factors(node.left), _factors(node.right)
        return left + right if left is not None and right is not None else None
    number = number_value(node)
    return [number] if number is not None and number > 0 else None


def flatten_union(node: ast.expr) -> list[ast.expr]:
    """The parts of ``a | b | c`` in order (a union type, or a LangChain pipe)."""
    parts: list[ast.expr] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.BinOp) and isinstance(current.op, ast.BitOr):
            stack.extend((current.right, current.left))
        else:
            parts.append(current)
    return parts


def value_parts(node: ast.AST) -> list[ast.expr]:
    """The sub-expressions whose value becomes part of ``node``'s value (not a condition, not
    what a measuring call such as ``len`` reads)."""
    if isinstance(node, ast.JoinedStr):
        return [p.value for p in node.values if isinstance(p, ast.FormattedValue)]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value if isinstance(e, ast.Starred) else e for e in node.elts]
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return [node.elt]
    if isinstance(node, ast.Dict):
        return list(node.values)
    return []


def with_sources(slot: Slot | None, sources: Iterable[Source]) -> Slot | None:
    sources = tuple(sources)
    if slot is None or not sources:
        return slot
    known = {(s.kind, s.span) for s in slot.sources}
    extra = tuple(s for s in sources if (s.kind, s.span) not in known)
    return replace(slot, sources=slot.sources + extra) if extra else slot


def strip(pieces: list[Piece], method: str) -> list[Piece]:
    """``str.strip``, ``lstrip`` or ``rstrip`` (``method``) applied to the pieces."""
    return strip_ends(pieces, start=method != "rstrip", end=method != "lstrip")


_INDENT = re.compile(r"[ \t]*")


def _indent(line: str) -> str:
    match = _INDENT.match(line)
    return match.group() if match else ""


def dedent(pieces: list[Piece], clean_doc: bool) -> list[Piece]:
    """``textwrap.dedent`` (or ``inspect.cleandoc``) applied to the static text, each slot
    standing in as one non-blank character."""
    lines = slot_text(pieces).split("\n")
    measured = lines[1:] if clean_doc else lines
    indents = [_indent(line) for line in measured if line.strip(" \t")]
    margin = indents[0] if indents else ""
    for indent in indents[1:]:
        while not indent.startswith(margin):
            margin = margin[:-1]
    keep: list[bool] = []
    for number, line in enumerate(lines):
        if not line.strip(" \t"):
            drop = len(line)
        elif clean_doc and number == 0:
            drop = len(_indent(line))
        else:
            drop = len(margin) if line.startswith(margin) else 0
        keep.extend([False] * drop + [True] * (len(line) - drop))
        keep.append(True)  # the newline
    result = kept(pieces, keep)
    if clean_doc:
        result = strip(result, "strip")
    return result
