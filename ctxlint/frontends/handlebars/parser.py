"""The parser: a template's text into a flat list of nodes with exact offsets (see the package)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ctxlint.frontends import limits
from ctxlint.frontends.handlebars.nodes import (
    MAX_SUBEXPRESSION_DEPTH,
    Call,
    Close,
    Else,
    Expr,
    HandlebarsError,
    Literal,
    Mustache,
    Node,
    Open,
    Partial,
    Ref,
    Text,
)
from ctxlint.numbers import read_int

# --- lexing ------------------------------------------------------------------------------

# Handlebars' ID: anything but whitespace and the punctuation the grammar uses.
_ID = re.compile(r"""[^\s!"#%-,./;->@\[-^`{-~]+""")
_ID_LOOKAHEAD = frozenset("=~}/.)|") | frozenset(" \t\r\n\f\v")
_LITERAL = re.compile(r"(?:-?[0-9]+(?:\.[0-9]+)?|true|false|undefined|null)(?=[~}\s)])")
_BLOCK_PARAMS = re.compile(r"as\s+\|")
_STRING = {'"': re.compile(r'"((?:\\"|[^"])*)"'), "'": re.compile(r"'((?:\\'|[^'])*)'")}
_ID_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_LITERAL_START = frozenset("0123456789tfun")
_PUNCTUATION = {"(": "open_sexpr", ")": "close_sexpr", "=": "equals", "|": "close_bp", "@": "data"}
_COMMENT_END = re.compile(r"--(~?)\}\}")
_PLAIN_COMMENT_END = re.compile(r"(~?)\}\}")


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # id, sep, data, string, literal, open_sexpr, close_sexpr, equals, open_bp, close_bp
    value: str
    start: int
    end: int


def _snippet(source: str, start: int, limit: int = 30) -> str:
    """The start of a tag as the user wrote it, cut at the line end (for messages)."""
    end = source.find("\n", start, start + limit)
    text = source[start : end if end >= 0 else start + limit].rstrip()
    return text + ("…" if end < 0 and len(source) > start + limit else "")


def _describe(source: str, offset: int) -> str:
    char = source[offset]
    return "a line break" if char == "\n" else f"`{char}`"


def _lex(source: str, start: int, opener: int, closer: str) -> tuple[list[_Token], int, bool]:
    """Tokens of a mustache's inside from ``start`` up to ``closer`` (``}}`` or ``}}}``).

    Returns the tokens, the offset just after the closer, and whether ``~`` preceded it.
    """
    tokens: list[_Token] = []
    n = len(source)
    i = start
    while True:
        while i < n and source[i].isspace():
            i += 1
        if i >= n:
            raise HandlebarsError(f"`{_snippet(source, opener)}` is never closed with `{closer}`", opener)
        char = source[i]
        if char in _ID_START:  # the common case first: a name, a keyword literal or `as |`
            if char == "a" and (match := _BLOCK_PARAMS.match(source, i)):
                tokens.append(_Token("open_bp", match.group(), i, match.end()))
                i = match.end()
                continue
            if char in _LITERAL_START and (match := _LITERAL.match(source, i)):
                tokens.append(_Token("literal", match.group(), i, match.end()))
                i = match.end()
                continue
            match = _ID.match(source, i)
            assert match is not None  # a character of _ID_START begins a name
            end = match.end()
            if end < n and source[end] not in _ID_LOOKAHEAD:
                raise HandlebarsError(f"unexpected {_describe(source, end)} in a mustache", end)
            tokens.append(_Token("id", match.group(), i, end))
            i = end
            continue
        if char == "~" and source.startswith(closer, i + 1):
            return tokens, i + 1 + len(closer), True
        if source.startswith(closer, i):
            return tokens, i + len(closer), False
        if char == "}":
            raise HandlebarsError(f"expected `{closer}` to close the mustache opened here", opener)
        if char in "\"'":
            match = _STRING[char].match(source, i)
            if match is None:
                raise HandlebarsError("unterminated string literal", i)
            tokens.append(_Token("string", match.group(1).replace("\\" + char, char), i, match.end()))
            i = match.end()
            continue
        if char == "[":
            close = source.find("]", i + 1)
            if close < 0:
                raise HandlebarsError("unterminated `[` path segment", i)
            tokens.append(_Token("id", source[i + 1 : close], i, close + 1))
            i = close + 1
            continue
        if char in _PUNCTUATION:
            tokens.append(_Token(_PUNCTUATION[char], char, i, i + 1))
            i += 1
            continue
        if source.startswith("..", i):
            tokens.append(_Token("id", "..", i, i + 2))
            i += 2
            continue
        if char == "." and (i + 1 >= n or source[i + 1] in _ID_LOOKAHEAD):
            tokens.append(_Token("id", ".", i, i + 1))
            i += 1
            continue
        if char in "./":
            tokens.append(_Token("sep", char, i, i + 1))
            i += 1
            continue
        if char == "-" and (match := _LITERAL.match(source, i)):
            tokens.append(_Token("literal", match.group(), i, match.end()))
            i = match.end()
            continue
        match = _ID.match(source, i)
        if match is None:
            raise HandlebarsError(f"unexpected {_describe(source, i)} in a mustache", i)
        end = match.end()
        if end < n and source[end] not in _ID_LOOKAHEAD:
            raise HandlebarsError(f"unexpected {_describe(source, end)} in a mustache", end)
        tokens.append(_Token("id", match.group(), i, end))
        i = end


# --- parsing expressions -----------------------------------------------------------------


class _Reader:
    def __init__(self, source: str, tokens: list[_Token], opener: int):
        self.source = source
        self.tokens = tokens
        self.pos = 0
        self.opener = opener

    def peek(self, offset: int = 0) -> _Token | None:
        index = self.pos + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def error(self, message: str) -> HandlebarsError:
        token = self.peek()
        return HandlebarsError(message, token.start if token else self.opener)

    def call(self, depth: int = 0, sub: bool = False) -> Call:
        first = self.peek()
        head = self.expr(depth)
        params: list[Expr] = []
        pairs: list[tuple[str, Expr]] = []
        while (token := self.peek()) is not None and token.kind not in ("close_sexpr", "open_bp"):
            after = self.peek(1)
            if token.kind == "id" and after is not None and after.kind == "equals":
                self.pos += 2
                if self.peek() is None:
                    raise self.error(f"`{token.value}=` needs a value")
                pairs.append((token.value, self.expr(depth)))
            elif pairs:
                raise self.error("a positional argument cannot follow `key=value` arguments")
            else:
                params.append(self.expr(depth))
        last = self.tokens[self.pos - 1]
        text = self.source[first.start : last.end] if first else ""
        return Call(head, tuple(params), tuple(pairs), text, sub)

    def expr(self, depth: int) -> Expr:
        token = self.peek()
        if token is None:
            raise self.error("expected an expression")
        if token.kind == "open_sexpr":
            if depth >= MAX_SUBEXPRESSION_DEPTH:
                raise HandlebarsError("sub-expressions nest too deeply to parse", token.start)
            self.pos += 1
            following = self.peek()
            if following is None or following.kind == "close_sexpr":
                raise self.error("empty sub-expression `()`")
            inner = self.call(depth + 1, sub=True)
            closing = self.peek()
            if closing is None or closing.kind != "close_sexpr":
                raise HandlebarsError("`(` is never closed with `)`", token.start)
            self.pos += 1
            return Call(inner.head, inner.params, inner.hash, self.source[token.start : closing.end], True)
        if token.kind == "string":
            self.pos += 1
            return Literal(self.source[token.start : token.end], token.value)
        if token.kind == "literal":
            self.pos += 1
            return Literal(token.value, _literal_value(token.value))
        if token.kind == "data":
            self.pos += 1
            ref = self.path()
            if ref.name == "root" or ref.name.startswith("root."):  # @root.x is the input x
                return Ref("@" + ref.original, ref.name[5:] or "this")
            return Ref("@" + ref.original, "@" + ref.name, data=True)
        if token.kind == "id":
            return self.path()
        raise self.error(f"unexpected `{token.value}` in a mustache")

    def path(self) -> Ref:
        token = self.peek()
        if token is None or token.kind != "id":
            raise self.error("expected a name")
        start = token.start
        parts = [token.value]
        self.pos += 1
        while (sep := self.peek()) is not None and sep.kind == "sep":
            nxt = self.peek(1)
            if nxt is None or nxt.kind != "id":
                raise HandlebarsError(f"`{sep.value}` must be followed by a name", sep.start)
            parts.append(nxt.value)
            self.pos += 2
        original = self.source[start : self.tokens[self.pos - 1].end]
        return Ref(original, _dotted(parts))


def _literal_value(text: str) -> object:
    if text in ("true", "false"):
        return text == "true"
    if text in ("undefined", "null"):
        return None
    return float(text) if "." in text else read_int(text)


def _dotted(parts: list[str]) -> str:
    """``../user/name`` → ``user.name``; ``this`` and ``.`` alone stay ``this``."""
    kept = [p for p in parts if p not in ("..", ".", "this")]
    return ".".join(kept) if kept else "this"


# --- parsing the template ----------------------------------------------------------------


def parse(source: str) -> list[Node]:
    """The template's nodes in source order; raises ``HandlebarsError``."""
    nodes: list[Node] = []
    blocks: list[Open] = []
    strip_next = False  # the previous tag ended with ~}}: the next text loses leading whitespace
    n = len(source)
    pos = 0
    slots = 0
    calls: dict[str, Call] = {}
    tags: dict[tuple[str, bool, str], tuple[Node | None, bool]] = {}

    def add_text(start: int, end: int) -> None:
        nonlocal strip_next
        if strip_next:
            while start < end and source[start].isspace():
                start += 1
            strip_next = False
        if start < end:
            nodes.append(Text(start, end, source[start:end]))

    def strip_previous() -> None:
        if nodes and isinstance(nodes[-1], Text):
            last = nodes.pop()
            end = last.end
            while end > last.start and source[end - 1].isspace():
                end -= 1
            if end > last.start:
                nodes.append(Text(last.start, end, source[last.start : end]))

    while pos < n:
        i = source.find("{{", pos)
        if i < 0:
            add_text(pos, n)
            break
        backslashes = 0
        while backslashes < 2 and i - backslashes - 1 >= pos and source[i - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes == 1:  # \{{ … is literal text up to the next mustache
            add_text(pos, i - 1)
            end = _next_mustache(source, i + 2)
            add_text(i, end)
            pos = end
            continue
        add_text(pos, i - 1 if backslashes == 2 else i)  # \\{{ drops one backslash
        strip_next = False
        node: Node | None
        common = _COMMON.match(source, i)  # `{{name}}`, `{{#each items}}`, `{{/each}}`: most tags
        read = _simple_tag(common, common.group("sigil"), i, calls) if common is not None else None
        if read is not None:
            node, end, strip_right = read
        else:
            if source.startswith("{{{{", i):
                pos = _raw_block(source, i, nodes)
                continue
            j = i + 2
            triple = source.startswith("{", j)
            if triple:
                j += 1
            strip_left = source.startswith("~", j)
            if strip_left:
                j += 1
                strip_previous()
            if not triple and source.startswith("!", j):
                pos, strip_right = _comment(source, i, j)
                strip_next = strip_right
                continue
            closer = "}}}" if triple else "}}"
            sigil = ""
            if not triple and j < n and source[j] in "#/^>&*":
                sigil = source[j : j + 2] if source.startswith(("#>", "#*"), j) else source[j]
                j += len(sigil)
            simple = _SIMPLE.match(source, j) if sigil in _SIMPLE_SIGILS and not triple else None
            read = _simple_tag(simple, sigil, i, calls) if simple is not None else None
            if read is not None:
                node, end, strip_right = read
            else:
                # A tag that ends at the first closer after it reads the same wherever it stands:
                # the node of one already read is reused at the new place (`{{role "user"}}` 50,000
                # times is lexed once). A closer inside a string makes the text a mere prefix, which
                # is then lexed as usual; so is a tag with a backslash, where a string may end past it.
                close = source.find(closer, j)
                written = source[j : close + len(closer)] if close >= 0 else None
                if written is not None and "\\" in written:
                    written = None
                known = tags.get((sigil, triple, written)) if written is not None else None
                if known is not None:
                    node, strip_right = known
                    end = j + len(written or "")
                    if node is not None:
                        node = dataclasses.replace(node, start=i, end=end)
                else:
                    tokens, end, strip_right = _lex(source, j, i, closer)
                    node = _tag(source, _Reader(source, tokens, i), sigil, i, end, triple)
                    if written is not None and end == j + len(written):
                        tags[(sigil, triple, written)] = (node, strip_right)
        if isinstance(node, Open):
            blocks.append(node)
        elif isinstance(node, Else):
            if not blocks:
                raise HandlebarsError(f"`{source[i:end]}` is not inside a block", i)
        elif isinstance(node, Close):
            if not blocks:
                raise HandlebarsError(f"`{source[i:end]}` closes a block that was never opened", i)
            opened = blocks.pop()
            if opened.name != node.name:
                raise HandlebarsError(
                    f"`{source[i:end]}` does not match `{source[opened.start:opened.end]}`", i
                )
        if isinstance(node, (Mustache, Partial)):  # a slot of the template
            slots += 1
            if slots > limits.MAX_SEGMENTS:
                raise HandlebarsError(limits.too_many_segments(), i)
        if node is not None:
            nodes.append(node)
        pos = end
        strip_next = strip_right
    if blocks:
        opened = blocks[-1]
        raise HandlebarsError(
            f"`{source[opened.start:opened.end]}` is never closed; add `{{{{/{opened.name}}}}}`", opened.start
        )
    return nodes


# The common tags (`{{name}}`, `{{user.name}}`, `{{this}}`, `{{#if ok}}`, `{{/if}}`) matched in one
# step; the result is what the general lexer and reader build for them. `this` is an ordinary
# path there (`_dotted` keeps it as `this`), so it needs no keyword treatment.
_PATH = r"[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*"
_SIMPLE = re.compile(rf"[ \t]*(?P<head>{_PATH})(?:[ \t]+(?P<arg>{_PATH}))?[ \t]*(?P<strip>~?)\}}\}}")
# The same tag from its `{{`, with no whitespace control before it and a one-character sigil.
_COMMON = re.compile(r"\{\{(?P<sigil>[#/^&]?)" + _SIMPLE.pattern)
_SIMPLE_SIGILS = frozenset({"", "#", "/", "^", "&"})
_KEYWORDS = frozenset({"else", "true", "false", "null", "undefined", "as"})


def _simple_tag(match: re.Match, sigil: str, start: int, calls: dict[str, Call]) -> tuple[Node, int, bool] | None:
    """The node of a common tag, or None when one of its paths is a keyword (``{{else}}``,
    ``{{#each x as}}``) or a close tag names more than its block. ``calls`` holds the calls
    already read by their text: a call has no position, and a template repeats the same few
    tags (``{{this}}``, ``{{/each}}``)."""
    first, second, strip = match.group("head", "arg", "strip")
    if first in _KEYWORDS or second is not None and (sigil == "/" or second in _KEYWORDS):
        return None
    end = match.end()
    if sigil == "/":
        return Close(start, end, first), end, bool(strip)
    text = first if second is None else match.string[match.start("head") : match.end("arg")]
    call = calls.get(text)
    if call is None:
        head = Ref(first, _dotted(first.split(".")))
        params = (Ref(second, _dotted(second.split("."))),) if second else ()
        call = calls[text] = Call(head, params, (), text)
    if sigil in ("#", "^"):
        return Open(start, end, sigil, call), end, bool(strip)
    return Mustache(start, end, call, escaped=sigil != "&"), end, bool(strip)


def _next_mustache(source: str, start: int) -> int:
    """Where an escaped mustache's literal text ends: at the next ``{{``, ``\\{{`` or ``\\\\{{``."""
    k = source.find("{{", start)
    if k < 0:
        return len(source)
    for _ in range(2):
        if k - 1 >= start and source[k - 1] == "\\":
            k -= 1
    return k


def _raw_block(source: str, i: int, nodes: list[Node]) -> int:
    close = source.find("}}}}", i + 4)
    if close < 0:
        raise HandlebarsError("`{{{{` is never closed with `}}}}`", i)
    name = source[i + 4 : close].split(None, 1)
    if not name:
        raise HandlebarsError("a raw block needs a helper name: `{{{{raw}}}}`", i)
    end_tag = "{{{{/" + name[0] + "}}}}"
    end = source.find(end_tag, close + 4)
    if end < 0:
        raise HandlebarsError(f"`{source[i:close + 4]}` is never closed; add `{end_tag}`", i)
    if end > close + 4:
        nodes.append(Text(close + 4, end, source[close + 4 : end]))
    return end + len(end_tag)


def _comment(source: str, i: int, j: int) -> tuple[int, bool]:
    """Skip ``{{! … }}`` or ``{{!-- … --}}`` whose ``!`` is at ``j``; return the end and ``~``."""
    if source.startswith("!--", j):
        match = _COMMENT_END.search(source, j + 3)
        if match is None:
            raise HandlebarsError("`{{!--` comment is never closed with `--}}`", i)
    else:
        match = _PLAIN_COMMENT_END.search(source, j + 1)
        if match is None:
            raise HandlebarsError("`{{!` comment is never closed with `}}`", i)
    return match.end(), bool(match.group(1))


def _tag(source: str, reader: _Reader, sigil: str, start: int, end: int, triple: bool) -> Node | None:
    tokens = reader.tokens
    if not tokens:
        if sigil == "^":
            return Else(start, end)
        raise HandlebarsError(f"empty mustache `{source[start:end]}`", start)
    if sigil == "" and tokens[0].kind == "id" and tokens[0].value == "else" and (
        len(tokens) == 1 or tokens[1].kind not in ("sep", "equals")
    ):
        if len(tokens) == 1:
            return Else(start, end)
        reader.pos = 1
        call = _whole_call(reader)
        return Else(start, end, call)
    if sigil == "/":
        ref = reader.path()
        if reader.peek() is not None:
            raise reader.error(f"a close tag names only the block: `{{{{/{ref.original}}}}}`")
        return Close(start, end, ref.original)
    if sigil == "*":  # a decorator: changes nothing that is sent
        _whole_call(reader)
        return None
    if sigil in ("#", "^", "#>", "#*"):
        call = reader.call()
        params: tuple[str, ...] = ()
        if (token := reader.peek()) is not None and token.kind == "open_bp":
            reader.pos += 1
            names = []
            while (token := reader.peek()) is not None and token.kind == "id":
                names.append(token.value)
                reader.pos += 1
            if token is None or token.kind != "close_bp" or not names:
                raise reader.error("block parameters are written `as |item index|`")
            reader.pos += 1
            params = tuple(names)
        if (token := reader.peek()) is not None:
            raise reader.error(f"unexpected `{token.value}` in a block tag")
        return Open(start, end, sigil, call, params)
    call = _whole_call(reader)
    if sigil == ">":
        return Partial(start, end, call)
    return Mustache(start, end, call, escaped=not (triple or sigil == "&"))


def _whole_call(reader: _Reader) -> Call:
    call = reader.call()
    if (token := reader.peek()) is not None:
        raise HandlebarsError(f"unexpected `{token.value}` in a mustache", token.start)
    return call
