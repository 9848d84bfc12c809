"""Prompty files: YAML front matter (safe loader) and a Jinja body with role lines.

The front matter gives the model and the output limit. Prompty has spelled the limit two ways:
``model.parameters.max_tokens`` (v1, promptflow) and ``maxOutputTokens`` (v2, under
``model.options``); both are read, along with the OpenAI spellings of newer models.
"""

from __future__ import annotations

import re

from ctxlint.frontends import jinja, yamlsafe
from ctxlint.frontends.locate import line_locator
from ctxlint.model import OutputLimit, ParsedFile, Request, Span

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)
_LIMIT_KEYS = ("max_tokens", "maxOutputTokens", "max_completion_tokens", "max_output_tokens", "maxTokens")
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
        for key in _LIMIT_KEYS:
            if isinstance(settings, dict) and key in settings:
                node = document.locate("model", table, key)
                span = _node_span(path, node) if node is not None else Span.point(path, 1)
                value = settings[key]
                limit = OutputLimit(key, value if isinstance(value, int) and not isinstance(value, bool) else None, span)
                break
        if limit:
            break
    model_node = document.locate("model")
    anchor = _node_span(path, model_node) if model_node is not None else Span.point(path, 1)
    parsed.requests.append(
        Request(
            path=path,
            anchor=anchor,
            segments=tuple(segments),
            model=_model_name(model),
            output_limit=limit,
            declares_settings=_generates_text(model),
            settings_hint="`model.parameters.max_tokens` (Prompty 2: `model.options.maxOutputTokens`)",
        )
    )
    return parsed


# Prompty's `model.api` (v1) and `model.apiType` (v2): embedding and image prompts produce no
# text answer, so there is no output limit to set.
_TEXT_APIS = ("chat", "completion", "completions", "responses", "text")


def _generates_text(model) -> bool:
    if not isinstance(model, dict):
        return True
    api = model.get("apiType", model.get("api"))
    return not isinstance(api, str) or api.strip().lower() in _TEXT_APIS


def _model_name(model) -> str | None:
    if isinstance(model, str):
        return model
    if not isinstance(model, dict):
        return None
    for keys in _MODEL_KEYS:
        value = model
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str) and value:
            return value
    return None


def _node_span(path: str, node) -> Span:
    # Front matter starts on line 2 (after the opening ---); YAML marks are 0-based.
    start, end = node.start_mark, node.end_mark
    return Span(path, start.line + 2, start.column + 1, end.line + 2, end.column + 1)
