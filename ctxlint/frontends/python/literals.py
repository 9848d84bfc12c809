"""String literals: escapes, format fields and ``%`` conversions located in the source text, and
operations on the pieces of a string value (strip, dedent) that keep each piece's span."""

from __future__ import annotations

import re
from dataclasses import replace

import libcst as cst

from ctxlint.frontends.python.knowledge import CUT_MARKERS
from ctxlint.frontends.python.values import Piece
from ctxlint.model import Slot, Span

ESCAPE = re.compile(
    r"\\(?:\n|[\\'\"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|N\{[^}\n]*\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})"
)


def decode_escape(match: re.Match) -> str:
    import ast

    text = match.group(0)
    if text == "\\\n":
        return ""
    try:
        return ast.literal_eval('"' + text + '"')
    except (ValueError, SyntaxError):
        return text


def unescape(text: str, raw: bool) -> str:
    return text if raw or "\\" not in text else ESCAPE.sub(decode_escape, text)


def format_fields(body: str, raw: bool) -> list[tuple[int, int, str]] | None:
    """``(start, end, field)`` for each replacement field of a ``str.format`` template body."""
    fields = []
    i, n = 0, len(body)
    while i < n:
        char = body[i]
        if char == "\\" and not raw:
            if body.startswith("N{", i + 1):
                close = body.find("}", i)
                i = close + 1 if close > 0 else n
            else:
                i += 2
            continue
        if char == "{":
            if body.startswith("{", i + 1):
                i += 2
                continue
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(body[j], 0)
                j += 1
            if depth:
                return None
            inner = body[i + 1 : j - 1]
            fields.append((i, j, re.split(r"[!:]", inner, maxsplit=1)[0].strip()))
            i = j
        elif char == "}":
            if body.startswith("}", i + 1):
                i += 2
                continue
            return None
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
    """Offsets inside a string literal's token, mapped to spans and decoded static pieces."""

    def __init__(self, path: str, part, locate):
        self.path = path
        self.locate = locate
        self.body_start = len(part.prefix) + len(part.quote)
        self.body = part.raw_value

    def span(self, start: int, end: int) -> Span:
        line, column = self.locate(self.body_start + start)
        end_line, end_column = self.locate(self.body_start + end)
        return Span(self.path, line, column, end_line, end_column)

    def static(self, start: int, end: int, raw: bool, braces: bool = False, percent: bool = False) -> list[Piece]:
        text = self.body[start:end]
        if not text:
            return []
        if braces:
            text = text.replace("{{", "{").replace("}}", "}")
        if percent:
            text = text.replace("%%", "%")
        return [Piece(unescape(text, raw), self.span(start, end))]



def string_value(node) -> str | None:
    try:
        value = node.evaluated_value
    except Exception:  # noqa: BLE001 - libcst raises on odd literals; treat them as unknown
        return None
    return value if isinstance(value, str) else None


def string_parts(node) -> list | None:
    """The SimpleString parts of a (possibly implicitly concatenated) text literal."""
    if isinstance(node, cst.SimpleString):
        return None if "b" in node.prefix.lower() else [node]
    if isinstance(node, cst.ConcatenatedString):
        left, right = string_parts(node.left), string_parts(node.right)
        return None if left is None or right is None else left + right
    return None


def number_value(node) -> float | None:
    if isinstance(node, (cst.Integer, cst.Float)):
        try:
            return float(node.evaluated_value)
        except (ValueError, TypeError):
            return None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
        a, b = number_value(node.left), number_value(node.right)
        return a / b if a is not None and b else None
    return None


def walk(node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(c for c in current.children if isinstance(c, cst.CSTNode))


def flatten_union(node) -> list:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return flatten_union(node.left) + flatten_union(node.right)
    return [node]


def value_parts(node) -> list:
    """The sub-expressions whose value becomes part of ``node``'s value (not a condition, not
    what a measuring call such as ``len`` reads)."""
    if isinstance(node, cst.FormattedString):
        return [p.expression for p in node.parts if isinstance(p, cst.FormattedStringExpression)]
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return [e.value for e in node.elements]
    if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        return [node.elt]
    if isinstance(node, cst.Dict):
        return [e.value for e in node.elements]
    return []


def cut_marker(text: str) -> bool:
    return text.lstrip().lower().startswith(CUT_MARKERS)


def unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def in_loop(pieces: list[Piece], loop: str | None) -> list[Piece]:
    return pieces if loop is None else [replace(p, loop=p.loop or loop) for p in pieces]


def with_sources(slot: Slot | None, sources) -> Slot | None:
    if slot is None or not sources:
        return slot
    known = {(s.kind, s.span) for s in slot.sources}
    extra = tuple(s for s in sources if (s.kind, s.span) not in known)
    return replace(slot, sources=slot.sources + extra) if extra else slot


def strip(pieces: list[Piece], method: str) -> list[Piece]:
    pieces = list(pieces)
    if method in ("strip", "lstrip"):
        while pieces and pieces[0].slot is None:
            text = pieces[0].text.lstrip()
            if text:
                pieces[0] = replace(pieces[0], text=text)
                break
            pieces.pop(0)
    if method in ("strip", "rstrip"):
        while pieces and pieces[-1].slot is None:
            text = pieces[-1].text.rstrip()
            if text:
                pieces[-1] = replace(pieces[-1], text=text)
                break
            pieces.pop()
    return pieces


INDENT = re.compile(r"[ \t]*")


def dedent(pieces: list[Piece], clean: bool) -> list[Piece]:
    """``textwrap.dedent`` (or ``inspect.cleandoc``) applied to the static text, each slot
    standing in as one non-blank character."""
    joined = "".join("\x00" if p.slot is not None else p.text for p in pieces)
    lines = joined.split("\n")
    measured = lines[1:] if clean else lines
    indents = [INDENT.match(line).group() for line in measured if line.strip(" \t")]
    margin = indents[0] if indents else ""
    for indent in indents[1:]:
        while not indent.startswith(margin):
            margin = margin[:-1]
    keep = []
    for number, line in enumerate(lines):
        if not line.strip(" \t"):
            drop = len(line)
        elif clean and number == 0:
            drop = len(INDENT.match(line).group())
        else:
            drop = len(margin) if line.startswith(margin) else 0
        keep.extend([False] * drop + [True] * (len(line) - drop))
        keep.append(True)  # the newline
    result, offset = [], 0
    for piece in pieces:
        width = 1 if piece.slot is not None else len(piece.text)
        if piece.slot is not None:
            result.append(piece)
        else:
            text = "".join(c for c, k in zip(piece.text, keep[offset : offset + width]) if k)
            if text:
                result.append(replace(piece, text=text))
        offset += width
    if clean:
        result = strip(result, "strip")
    return result
