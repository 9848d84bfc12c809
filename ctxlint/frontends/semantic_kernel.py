"""Semantic Kernel prompt functions: ``skprompt.txt`` and the ``config.json`` beside it.

The template language is SK's own (``TemplateTokenizer`` / ``CodeTokenizer`` in
microsoft/semantic-kernel, ported here without rendering):

- ``{{$name}}`` reads a variable; ``{{plugin.function}}``, ``{{time.Now}}`` and
  ``{{weather.getForecast $city}}`` call a function (one positional argument, then
  ``name=$var`` / ``name="text"`` arguments); ``{{ "text" }}`` is a literal, i.e. static text.
- ``}}`` inside a quoted value does not close a block, ``\\"`` escapes a quote, a block that
  never closes and an empty ``{{ }}`` are plain text (as SK treats them). A malformed block
  (``{{$}}``, ``{{ $a $b }}``, ``{{fn a b}}``) is an error SK raises when it loads the
  function: reported as a parse error at the block.
- Roles: when the text holds ``<message role="…">`` elements (SK's chat prompt syntax), each
  element is a message in its role. Text outside them is dropped by .NET's
  ``ChatPromptParser`` but kept by Python's ``ChatHistory.from_rendered_prompt`` (before the
  first element as a system message, after one as a user message); ctxlint keeps it as
  Python does, so nothing that may be sent goes unchecked. Without message elements the
  whole prompt is one **user** message: what .NET's ``GetChatMessageContentsAsync`` does
  ("use the prompt as the chat user message"; Python would make it a system message).
- SK HTML-encodes the variable values and function results it inserts unless config.json
  allows otherwise (``allow_dangerously_set_content``: top level for function results, on an
  ``input_variables`` entry for that variable); encoded slots carry the filter ``escape``.
- ``{{$history}}``, ``{{$chat_history}}`` and other ``*history`` / ``*messages`` variables are
  variable-length: SK renders a chat history there.

``config.json`` in the same directory holds the execution settings: the output limit is
``execution_settings.<service>.max_tokens`` (``default`` first; a list of settings in early
1.0 files) or the older ``completion.max_tokens``, the model ``…model_id``. With a
config.json the request declares settings (a missing limit is reported at line 1 of
skprompt.txt) and the limit's span points into config.json. A config.json that cannot be read
is reported where it breaks, in config.json.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass

from ctxlint.frontends import OffsetError, jsonpos, limits
from ctxlint.frontends.locate import Locator, line_locator, span_maker
from ctxlint.model import OutputLimit, ParsedFile, Request, Role, Segment, Slot, Span
from ctxlint.numbers import token_count
from ctxlint.providers import LIMIT_KEYS, roles

CONFIG_NAME = "config.json"
MAX_CONFIG_BYTES = 2_000_000  # the engine's default file limit
_MODEL_KEYS = ("model_id", "ai_model_id", "model")

_EVENT = re.compile(r"\{\{|\}\}|[\"']")
_QUOTE_OR_ESCAPE = {'"': re.compile(r'["\\]'), "'": re.compile(r"['\\]")}
_BLANK = " \t\r\n"
_NAME = re.compile(r"[A-Za-z0-9_]+\Z")
_FUNCTION = re.compile(r"[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?\Z")
_TAG = re.compile(r"""<message\s+role\s*=\s*(["'])(\w+)\1[^>]*>|</message\s*>|</?chat_history\s*>""", re.IGNORECASE)
_MESSAGE = re.compile(r"<message\s+role\s*=", re.IGNORECASE)
_ROLES = roles("system", "developer", "user", "assistant", "tool")  # Semantic Kernel's AuthorRole
_ESCAPE = "escape"  # the filter name for a value SK HTML-encodes (as Jinja's `| e`)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_HISTORY = re.compile(r"(?:\w*_)?(?:history|messages)\Z")


class TemplateError(OffsetError):
    """A malformed ``{{ }}`` block; ``offset`` locates it in the template text."""


@dataclass(frozen=True, slots=True)
class _Config:
    """What config.json says: the output limit, the model, and which values SK inserts without
    HTML-encoding them (``allow_dangerously_set_content``)."""

    limit: OutputLimit | None = None
    model: str | None = None
    raw_variables: frozenset[str] = frozenset()  # lower-case names
    raw_functions: bool = False


@dataclass(frozen=True, slots=True)
class _Block:
    start: int
    end: int
    code: str | None = None  # the trimmed inside of a code block; None for text
    code_start: int = 0


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    config = _read_config(path, parsed)
    if not text.strip():
        return parsed
    locate = line_locator(text)
    known = config or _Config()
    try:
        segments = parse_template(text, path, locate, known.raw_variables, known.raw_functions)
    except TemplateError as error:
        line, column = locate(error.offset)
        parsed.errors.append((Span.point(path, line, column), error.message))
        return parsed
    parsed.requests.append(
        Request(
            path=path,
            anchor=Span.point(path, 1),
            segments=tuple(segments),
            model=known.model,
            output_limit=known.limit,
            declares_settings=config is not None,
            settings_hint=f"`execution_settings.default.max_tokens` in {CONFIG_NAME}",
        )
    )
    return parsed


# --- the template ------------------------------------------------------------------------


def _blocks(text: str) -> list[_Block]:
    """Text and code blocks, as SK's TemplateTokenizer splits them."""
    blocks: list[_Block] = []
    end_of_last = 0
    pos = 0
    while (start := text.find("{{", pos)) >= 0:
        cursor = start + 1  # "{{{x}}": the block starts at the last "{{" of a run
        close = -1
        while (event := _EVENT.search(text, cursor)) is not None:
            token = event.group()
            if token == "{{":
                start, cursor = event.start(), event.start() + 1
            elif token == "}}":
                close = event.end()
                break
            else:
                cursor = _after_quote(text, event.end(), token)
                if cursor < 0:
                    break
        if close < 0:  # never closed: the rest is text
            break
        inner = text[start + 2 : close - 2]
        content = inner.strip()
        if content:
            if len(blocks) >= limits.MAX_SEGMENTS:
                raise TemplateError(limits.too_many_segments(), start)
            if start > end_of_last:
                blocks.append(_Block(end_of_last, start))
            offset = start + 2 + (len(inner) - len(inner.lstrip()))
            blocks.append(_Block(start, close, content, offset))
            end_of_last = close
        pos = close  # an empty "{{ }}" stays part of the text around it
    if end_of_last < len(text):
        blocks.append(_Block(end_of_last, len(text)))
    return blocks


def _after_quote(text: str, pos: int, quote: str) -> int:
    """The offset after the quote that closes a value opened just before ``pos``, or -1."""
    pattern = _QUOTE_OR_ESCAPE[quote]
    while (found := pattern.search(text, pos)) is not None:
        at = found.start()
        if text[at] == "\\":
            pos = at + 2 if text[at + 1 : at + 2] in ('"', "'", "\\") else at + 1
            continue
        return at + 1
    return -1


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # variable, value, function, named
    text: str
    start: int  # offsets in the file
    end: int


def _code_tokens(code: str, base: int) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(code)
    while i < n:
        if code[i] in _BLANK:
            i += 1
            continue
        if tokens and tokens[-1].end == base + i:
            raise TemplateError("tokens in a `{{ }}` block must be separated by a space", base + i)
        if code[i] in "\"'":
            j = _after_quote(code, i + 1, code[i])
            if j < 0:
                raise TemplateError(f"unterminated {code[i]} value", base + i)
            tokens.append(_Token("value", code[i:j], base + i, base + j))
            i = j
            continue
        j = i
        while j < n and code[j] not in _BLANK:
            if code[j] == "=" and code[j + 1 : j + 2] in ('"', "'"):  # name="a value with spaces"
                j = _after_quote(code, j + 2, code[j + 1])
                if j < 0:
                    raise TemplateError("unterminated quoted argument", base + i)
                break
            j += 1
        word = code[i:j]
        kind = "variable" if word.startswith("$") else "named" if "=" in word else "function"
        tokens.append(_Token(kind, word, base + i, base + j))
        i = j
    return tokens


def _unquote(value: str) -> str:
    return re.sub(r"\\([\"'\\])", r"\1", value[1:-1])


def _check_variable(token: _Token) -> str:
    name = token.text[1:]
    if not _NAME.match(name):
        what = "needs a name" if not name else "may hold only letters, digits and `_`"
        raise TemplateError(f"the variable `{token.text}` {what}", token.start)
    return name


def _code_slot(code: str, base: int) -> Slot | str:
    """The slot a code block stands for, or the text of a literal ``{{ "value" }}``."""
    tokens = _code_tokens(code, base)
    first = tokens[0]
    if first.kind in ("variable", "value"):
        if len(tokens) > 1:
            raise TemplateError(f"nothing may follow the {first.kind} `{first.text}` in a block", tokens[1].start)
        if first.kind == "value":
            return _unquote(first.text)
        name = _check_variable(first)
        return Slot(code, (name,), variable_length=bool(_HISTORY.match(_snake(name))))
    if first.kind == "named":
        raise TemplateError(f"`{first.text}` is an argument; it must follow a function name", first.start)
    if not _FUNCTION.match(first.text):
        raise TemplateError(
            f"`{first.text}` is not a function name: write `plugin.function` with letters, digits and `_`",
            first.start,
        )
    names: list[str] = []
    for position, token in enumerate(tokens[1:], start=1):
        value = token.text
        if token.kind == "named":
            key, _, value = token.text.partition("=")
            if not _NAME.match(key) or not value or value[0] not in "$\"'":
                raise TemplateError(f"`{token.text}` is not a valid argument: write `name=$variable` or "
                                     "`name=\"text\"`", token.start)
        elif position > 1 or token.kind == "function":
            raise TemplateError(f"`{token.text}`: a function takes one positional argument (`$variable` or "
                                 "`\"text\"`); name the others (`name=$variable`)", token.start)
        if value.startswith("$"):
            names.append(_check_variable(_Token("variable", value, token.start, token.end)))
    return Slot(code, tuple(dict.fromkeys(names)), (first.text,))


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


def parse_template(text: str, path: str, locate: Locator | None = None,
                   raw_variables: frozenset[str] = frozenset(), raw_functions: bool = False) -> list[Segment]:
    """An SK template as segments, roles from ``<message>`` elements; raises ``TemplateError``.

    ``locate`` maps offsets in ``text`` to file positions (for a template inside another file).
    SK HTML-encodes every variable value and function result it inserts (so content cannot
    forge a ``<message>`` element or close a tag), except variables named in ``raw_variables``
    (lower case) and, with ``raw_functions``, function results: those are the ones config.json
    marks ``allow_dangerously_set_content``. Encoded slots get the filter ``escape``.
    """
    span = span_maker(path, locate or line_locator(text))
    blocks = _blocks(text)
    chat = any(_MESSAGE.search(text, b.start, b.end) for b in blocks if b.code is None)
    role, index = (Role.SYSTEM if chat else Role.USER), 0
    segments: list[Segment] = []
    for block in blocks:
        if block.code is not None:
            slot = _code_slot(block.code, block.code_start)
            if isinstance(slot, Slot) and not (raw_functions if slot.calls else
                                               slot.names[0].lower() in raw_variables):
                slot = dataclasses.replace(slot, filters=(_ESCAPE,))
            if isinstance(slot, str):
                segments.append(Segment(role, span(block.start, block.end), slot, None, index))
            else:
                segments.append(Segment(role, span(block.start, block.end), block.code, slot, index))
            continue
        if len(segments) >= limits.MAX_SEGMENTS:
            raise TemplateError(limits.too_many_segments(), block.start)
        cursor = block.start
        for tag in _TAG.finditer(text, block.start, block.end) if chat else ():
            if tag.start() > cursor:
                segments.append(Segment(role, span(cursor, tag.start()), text[cursor : tag.start()], None, index))
            cursor = tag.end()
            if tag.group(2) is not None:  # <message role="…">
                role, index = _ROLES.get(tag.group(2).lower(), Role.USER), index + 1
            elif tag.group().lower().startswith("</message"):
                role, index = Role.USER, index + 1  # text after an element: a user message (Python SK)
        if block.end > cursor:
            segments.append(Segment(role, span(cursor, block.end), text[cursor : block.end], None, index))
    return segments


# --- config.json -------------------------------------------------------------------------


def _read_config(path: str, parsed: ParsedFile) -> _Config | None:
    """What the sibling config.json says; None when there is none (or it is broken, which adds
    a located error to ``parsed``)."""
    config_path = os.path.join(os.path.dirname(path), CONFIG_NAME)
    parsed.dependencies.append(config_path)  # present or not: creating it changes the result
    if not os.path.isfile(config_path):
        return None

    def fail(message: str, line: int = 1, column: int = 1) -> None:
        parsed.errors.append((Span.point(config_path, line, column), message))

    try:
        size = os.path.getsize(config_path)
        if size > MAX_CONFIG_BYTES:
            fail(f"{CONFIG_NAME} is {size:,} bytes, over the {MAX_CONFIG_BYTES:,}-byte limit; "
                 "its settings were not read")
            return None
        with open(config_path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        fail(f"cannot read {CONFIG_NAME} ({error.strerror or error})")
        return None
    if b"\0" in data[:8192]:
        fail(f"{CONFIG_NAME} is a binary file, not JSON execution settings")
        return None
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        fail(f"not valid UTF-8 (byte 0x{data[error.start]:02x}); save {CONFIG_NAME} as UTF-8", line, column)
        return None
    source = source.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    try:
        root = jsonpos.parse(source)
    except jsonpos.JsonError as error:
        line, column = line_locator(source)(error.offset)
        fail(f"invalid JSON in {CONFIG_NAME}: {error.message}", line, column)
        return None
    if root.kind != "object":
        fail(f"{CONFIG_NAME} must be a JSON object with `execution_settings`")
        return None
    return _settings(root, source, config_path)


def _settings(root: jsonpos.Node, source: str, config_path: str) -> _Config:
    """The output limit and model (the ``default`` service first, then the others in order,
    then the pre-1.0 ``completion`` table) and the values inserted without encoding."""
    candidates: list[jsonpos.Node] = []
    services = _field(root, "execution_settings")
    if services is not None and services.fields is not None:
        ordered = sorted(services.fields.items(), key=lambda item: item[0] != "default")
        candidates += [value for _, (_, value) in ordered]
    elif services is not None and services.items is not None:
        candidates += services.items
    completion = _field(root, "completion")
    if completion is not None:
        candidates.append(completion)

    limit = model = None
    for settings in candidates:
        if settings.kind != "object" or settings.fields is None:
            continue
        if model is None:
            model = next((v for k in _MODEL_KEYS if isinstance(v := settings.value.get(k), str) and v), None)
        if limit is None:
            key = next((k for k in LIMIT_KEYS if k in settings.fields), None)
            if key is not None:
                key_node, value_node = settings.fields[key]
                value = value_node.value
                number = token_count(value)
                locate = line_locator(source)
                line, column = locate(key_node.start)
                end_line, end_column = locate(key_node.end)
                limit = OutputLimit(key, number, Span(config_path, line, column, end_line, end_column))
    variables = root.value.get("input_variables")
    raw_variables = frozenset(
        item["name"].lower()
        for item in (variables if isinstance(variables, list) else [])
        if isinstance(item, dict) and isinstance(item.get("name"), str)
        and item.get("allow_dangerously_set_content") is True
    )
    return _Config(limit, model, raw_variables, root.value.get("allow_dangerously_set_content") is True)


def _field(node: jsonpos.Node, key: str) -> jsonpos.Node | None:
    pair = node.fields.get(key) if node.fields else None
    return pair[1] if pair else None
