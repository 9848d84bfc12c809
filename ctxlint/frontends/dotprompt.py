"""Dotprompt files (``*.prompt``, Google Genkit): YAML front matter and a Handlebars body.

Read as the reference implementation (google/dotprompt, ``js/src/parse.ts`` and
``helpers.ts``) builds messages from a rendered template:

- Text before any role marker is a **user** message (``toMessages`` starts with role
  ``user``). ``{{role "system"}}``, ``{{role "user"}}``, ``{{role "model"}}`` (assistant) and
  ``{{role "tool"}}`` start a new message; a marker that follows only whitespace just changes
  the role of the message being built.
- ``{{history}}`` inserts the conversation history there: a variable-length slot (role user,
  the MIDDLE of the request). Text after it without a new role marker belongs to a **model**
  message, as in ``toMessages``. When a template has no ``{{history}}``, Dotprompt inserts
  any history before the last user message at render time; nothing in the file shows it, so
  no segment stands for it.
- Output is not HTML-escaped (Dotprompt compiles with ``noEscape``), so ``{{x}}`` is raw.
- ``{{media url=…}}`` and ``{{section "name"}}`` are slots (an image or document; content
  Genkit fills in, such as output instructions); other helpers (``json``, ``ifEquals``) are
  ordinary helper calls.

Front matter (optionally after ``#`` licence lines, as Dotprompt allows): ``model``,
``config.maxOutputTokens`` (the output limit, located at its key), ``tools`` (names of tools
defined in code: tool definitions with a name only) and ``input.schema``, whose array fields
make a slot that prints one (``{{documents}}``) variable-length. A file is a request of its own
only when its front matter configures the model call (``model`` or ``config``) and asks for a
text answer (``config.responseModalities`` is not media only): partials (``_name.prompt``),
templates the code renders and sends with its own settings, and files with another dialect's
front matter (``name``, ``description``, ``version``) declare no settings.

The suffix does not decide the body's language: a body written in Jinja (``{% … %}``,
``{{ x | filter }}``, and no Handlebars construct; see ``template_syntax``) is read with
Jinja's parser, as code-generation agents that name their Jinja templates ``*.prompt`` render it.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import PurePath

import yaml

from ctxlint import yamlsafe
from ctxlint.frontends import handlebars, jinja, template_syntax
from ctxlint.frontends.handlebars import nodes as hb
from ctxlint.frontends.locate import line_locator, span_maker
from ctxlint.frontends.media import media_answer
from ctxlint.model import OutputLimit, ParsedFile, Request, Role, Segment, Slot, Span, ToolDef
from ctxlint.numbers import token_count
from ctxlint.providers import LIMIT_KEYS, roles

_LEAD = r"\A(?:(?:#[^\n]*|[ \t]*)\n)*"  # licence comments and blank lines before the front matter
_FRONT_MATTER = re.compile(_LEAD + r"---[ \t]*\n(.*?)^---[ \t]*(?:\n|\Z)", re.DOTALL | re.MULTILINE)
_OPENING = re.compile(_LEAD + r"---[ \t]*$", re.MULTILINE)
_ROLES = roles("system", "user", "model", "assistant", "tool")  # what `{{role "..."}}` accepts
_HELPERS = frozenset({"history"})  # Dotprompt helpers that take no argument
_PICO_ARRAY = re.compile(r"^(\w+)\??\(\s*array\b")


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    if not text.strip():
        return parsed
    match = _FRONT_MATTER.match(text)
    if match is None and (opening := _OPENING.match(text)):
        line = text.count("\n", 0, opening.end()) + 1
        parsed.errors.append((Span.point(path, line), "the front matter opened here is never closed with a `---` line"))
        return parsed
    header_line = text.count("\n", 0, match.start(1)) + 1 if match else 1
    try:
        document = yamlsafe.load(match.group(1)) if match and match.group(1).strip() else yamlsafe.Document(None, None)
    except yamlsafe.YamlError as error:
        parsed.errors.append((Span.point(path, error.line + header_line, error.column + 1), error.message))
        return parsed
    if document.data is not None and not isinstance(document.data, dict):
        parsed.errors.append((Span.point(path, header_line),
                              "the front matter must be a YAML mapping of settings (`model:`, `config:`, …)"))
        return parsed
    meta = document.data or {}

    body_start = match.end() if match else 0
    body = text[body_start:]
    locate = line_locator(body, text.count("\n", 0, body_start) + 1)
    try:
        segments, marked = _body(body, path, locate, meta)
    except (handlebars.HandlebarsError, jinja.TemplateError) as error:
        line, column = locate(error.offset)
        parsed.errors.append((Span.point(path, line, column), error.message))
        return parsed

    def node_span(node: yaml.Node) -> Span:
        start, end = node.start_mark, node.end_mark
        return Span(path, start.line + header_line, start.column + 1, end.line + header_line, end.column + 1)

    config_node = document.locate("config")
    anchor = node_span(config_node) if config_node is not None else Span.point(path, header_line - 1 if match else 1)
    config = meta.get("config")
    limit = None
    if isinstance(config, dict):
        for key in LIMIT_KEYS:
            if key in config:
                value = config[key]
                number = token_count(value)
                key_node = document.locate("config", key)  # None when it came through a `<<:` merge
                limit = OutputLimit(key, number, node_span(key_node) if key_node is not None else anchor)
                break
    model = meta.get("model")
    parsed.requests.append(
        Request(
            path=path,
            anchor=anchor,
            segments=tuple(segments),
            tools=tuple(_tools(document, node_span)),
            model=model if isinstance(model, str) and model else None,
            output_limit=limit,
            declares_settings=_configures_model(meta) and not PurePath(path).name.startswith("_"),
            settings_hint="`config.maxOutputTokens`",
            roles_marked=marked,
        )
    )
    return parsed


def _body(body: str, path: str, locate, meta: dict) -> tuple[list[Segment], bool]:
    """The body's segments and whether they say their roles. A body in Jinja (a common
    convention of code-generation agents) is read with Jinja's parser, as the code that renders
    it does; so is one with both languages' constructs (Handlebars quoted in ``{% raw %}``)
    that Jinja reads."""
    syntax = template_syntax.sniff(body)
    if syntax == "jinja" or (syntax is None and "{%" in body):
        try:
            segments = jinja.parse_template(body, path, locate)
            return segments, jinja.roles_marked(segments, path)
        except jinja.TemplateError:
            if syntax == "jinja":
                raise
            # Both languages' constructs and not Jinja after all: Handlebars, by the suffix.
    span = span_maker(path, locate)
    return _segments(handlebars.parse(body), span, _array_inputs(meta.get("input"))), True


def _configures_model(meta: dict) -> bool:
    """Whether the front matter configures a model call that answers in text (``model:``,
    ``config:``). Without either, the file is a template the code renders and sends with its own settings (Genkit's
    ``prompt.render()``), or metadata of another prompt-file dialect (``name``, ``description``,
    ``version``): not a request of its own."""
    config = meta.get("config")
    if isinstance(config, dict) and media_answer(config.get("responseModalities")):
        return False  # an image or speech answer: no text for a token limit to bound
    # `modelName`, `modelProvider`: the model keys of older prompt-file dialects configure it too.
    models = any(isinstance(k, str) and k.lower().startswith("model") and meta[k] for k in meta)
    return models or isinstance(config, dict)


def _segments(nodes: list[hb.Node], span, arrays: frozenset[str]) -> list[Segment]:
    segments: list[Segment] = []
    role, index, has_content = Role.USER, 0, False
    # A role marker after only whitespace changes the role of the message being built. The
    # message's segments are retagged once, when it gets content or ends, not at every marker:
    # thousands of markers in a row would otherwise retag the same segments thousands of times.
    retag = False
    read: dict[tuple[int, bool, bool], Slot] = {}  # the slots made, by call (see content_segment)

    def settle() -> None:
        nonlocal retag
        if retag:
            _retag(segments, index, role)
            retag = False

    for node, loop in handlebars.walk(nodes):
        if isinstance(node, hb.Text):
            segments.append(Segment(role, span(node.start, node.end), node.value, None, index, loop))
            if not has_content and node.value.strip():
                settle()
                has_content = True
            continue
        call = node.call
        helper = call.helper if isinstance(node, hb.Mustache) else None
        if helper == "role" and call.params:
            argument = call.params[0]
            if isinstance(argument, hb.Literal) and isinstance(argument.value, str):
                new_role = _ROLES.get(argument.value, role)
            else:
                new_role = role
            if has_content:
                index += 1
                has_content = False
            else:  # only whitespace so far: Dotprompt changes the role of the message being built
                retag = True
            role = new_role
            continue
        settle()
        if helper == "history" and not call.has_arguments:
            if segments and segments[-1].message_index == index:
                index += 1
            slot = Slot("history", ("history",), variable_length=True)
            segments.append(Segment(Role.USER, span(node.start, node.end), "history", slot, index, loop))
            role, index, has_content = Role.ASSISTANT, index + 1, False
            continue
        segment = handlebars.content_segment(node, loop, role, index, span, _HELPERS, html_escape=False, read=read)
        if arrays and segment.slot is not None and not segment.slot.variable_length and (
            arrays.intersection(segment.slot.names)
        ):
            slot = segment.slot
            segment = Segment(role, segment.span, segment.text,
                              Slot(slot.expression, slot.names, slot.calls, slot.filters, True), index, loop)
        segments.append(segment)
        has_content = True
    settle()
    return segments


def _retag(segments: list[Segment], index: int, role: Role) -> None:
    position = len(segments)
    while position and segments[position - 1].message_index == index:
        position -= 1
    segments[position:] = [dataclasses.replace(s, role=role) for s in segments[position:]]


def _array_inputs(spec: object) -> frozenset[str]:
    """Top-level input fields declared as arrays, in Picoschema (``docs(array): …``) or JSON Schema."""
    schema = spec.get("schema") if isinstance(spec, dict) else None
    if not isinstance(schema, dict):
        return frozenset()
    names = set()
    properties = schema.get("properties")
    if isinstance(properties, dict):  # JSON Schema
        for name, field in properties.items():
            if isinstance(field, dict) and field.get("type") == "array":
                names.add(str(name))
    for key in schema:  # Picoschema
        match = _PICO_ARRAY.match(str(key))
        if match:
            names.add(match.group(1))
    return frozenset(names)


def _tools(document: yamlsafe.Document, node_span) -> list[ToolDef]:
    """``tools: [name, …]``: tools defined in code, referenced by name (no schema here)."""
    key = document.locate("tools")
    if key is None or not isinstance(document.node, yaml.MappingNode):
        return []
    value = next((v for k, v in document.node.value if k is key), None)
    if not isinstance(value, yaml.SequenceNode):
        return []
    return [
        ToolDef(item.value, None, None, node_span(item), item.value)
        for item in value.value
        if isinstance(item, yaml.ScalarNode) and item.value
    ]
