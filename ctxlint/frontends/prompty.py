"""Prompty files: YAML front matter (safe loader) and a Jinja body with role lines.

The front matter gives the model and the output limit; a file without a ``model`` section
configures no call of its own (the code that runs it supplies the settings). Prompty has spelled the limit two ways:
``model.parameters.max_tokens`` (v1, promptflow) and ``maxOutputTokens`` (v2, under
``model.options``); both are read, along with the OpenAI spellings of newer models. Its
``${file:...}`` references are read relative to the prompt: a tool list
(``model.parameters.tools: ${file:tools.json}``) gives the request its tools, so they are
counted and the tool rules apply.
"""

from __future__ import annotations

import os
import re

from ctxlint import yamlsafe
from ctxlint.frontends import jinja
from ctxlint.frontends.locate import line_locator
from ctxlint.model import OutputLimit, ParsedFile, Request, Span, ToolDef
from ctxlint.numbers import token_count
from ctxlint.providers import LIMIT_KEYS

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)
_FILE_REFERENCE = re.compile(r"^\s*\$\{file:([^}]+)\}\s*$")
_MAX_REFERENCED_BYTES = 2_000_000
_SETTINGS_TABLES = ("parameters", "options")
_MODEL_KEYS = (("id",), ("name",), ("configuration", "azure_deployment"), ("configuration", "model"),
               ("configuration", "name"))


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    if not text.strip():
        return parsed
    match = _FRONT_MATTER.match(text)
    header = match.group(1) if match else ""
    body_start = match.end() if match else 0
    try:
        document = yamlsafe.load(header) if header.strip() else yamlsafe.Document(None, None)
    except yamlsafe.YamlError as error:
        parsed.errors.append((Span.point(path, error.line + 2, error.column + 1), error.message))
        return parsed
    config = document.data if isinstance(document.data, dict) else {}
    body = text[body_start:]
    body_line = text.count("\n", 0, body_start) + 1
    try:
        segments = jinja.parse_template(body, path, line_locator(body, body_line))
    except jinja.TemplateError as error:
        line, column = line_locator(body, body_line)(error.offset)
        parsed.errors.append((Span.point(path, line, column), error.message))
        return parsed

    model = config.get("model")
    limit = None
    for table in _SETTINGS_TABLES:
        settings = model.get(table) if isinstance(model, dict) else None
        for key in LIMIT_KEYS:
            if isinstance(settings, dict) and key in settings:
                node = document.locate("model", table, key)
                span = _node_span(path, node) if node is not None else Span.point(path, 1)
                value = settings[key]
                limit = OutputLimit(key, token_count(value), span)
                break
        if limit:
            break
    model_node = document.locate("model")
    anchor = _node_span(path, model_node) if model_node is not None else Span.point(path, 1)
    tools = _referenced_tools(config, document, path, parsed)
    parsed.requests.append(
        Request(
            path=path,
            anchor=anchor,
            segments=tuple(segments),
            tools=tools,
            model=_model_name(model),
            output_limit=limit,
            declares_settings=model is not None and _generates_text(model),
            settings_hint="`model.parameters.max_tokens` (Prompty 2: `model.options.maxOutputTokens`)",
        )
    )
    return parsed


# Prompty's `model.api` (v1) and `model.apiType` (v2): embedding and image prompts produce no
# text answer, so there is no output limit to set.
_TEXT_APIS = ("chat", "completion", "completions", "responses", "text")


def _generates_text(model) -> bool:
    """Whether the model section asks for a text answer. A file with no model section
    configures no call (the code that runs it does), so it is not asked."""
    if not isinstance(model, dict):
        return True
    api = model.get("apiType", model.get("api"))
    return not isinstance(api, str) or api.strip().lower() in _TEXT_APIS
def _referenced_tools(config: dict, document, path: str, parsed: ParsedFile) -> tuple[ToolDef, ...]:
    """Tools from ``${file:tools.json}`` references: ``model.parameters.tools`` or a top-level
    ``tools``. Every ``${file:...}`` in the front matter (``sample``, ``inputs`` too) is read
    relative to the prompt and becomes a dependency of the result; one that cannot be read is
    reported where it is written."""
    tools: tuple[ToolDef, ...] = ()
    for keys, value in _references(config, ()):
        reference = _FILE_REFERENCE.match(value)
        if reference is None:
            continue
        target = os.path.normpath(os.path.join(os.path.dirname(path), reference.group(1).strip()))
        node = document.locate(*keys)
        where = _node_span(path, node) if node is not None else Span.point(path, 1)
        parsed.dependencies.append(target)
        try:
            if os.path.getsize(target) > _MAX_REFERENCED_BYTES:
                parsed.errors.append((where, f"`{value}` is over {_MAX_REFERENCED_BYTES:,} bytes; not read"))
                continue
            with open(target, "rb") as handle:
                text = handle.read().decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or "not UTF-8 text"
            parsed.errors.append((where, f"cannot read `{value}` ({target}): {reason}"))
            continue
        if keys[-1] != "tools":
            continue
        from ctxlint.frontends import structured

        listing = structured.parse_file(text.removeprefix("\ufeff").replace("\r\n", "\n"), target)
        parsed.errors.extend(listing.errors)
        tools = tuple(tool for request in listing.requests for tool in request.tools)
    return tools


def _references(value, keys: tuple[str, ...]):
    """``(keys, text)`` for every string in the front matter, depth first."""
    if isinstance(value, str):
        yield keys, value
    elif isinstance(value, dict) and len(keys) < 8:
        for key, inner in value.items():
            if isinstance(key, str):
                yield from _references(inner, (*keys, key))


def _model_name(model) -> str | None:
    if isinstance(model, str):
        return model
    if not isinstance(model, dict):
        return None
    for keys in _MODEL_KEYS:
        value: object = model
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str) and value:
            return value
    return None


def _node_span(path: str, node) -> Span:
    # Front matter starts on line 2 (after the opening ---); YAML marks are 0-based.
    start, end = node.start_mark, node.end_mark
    return Span(path, start.line + 2, start.column + 1, end.line + 2, end.column + 1)
