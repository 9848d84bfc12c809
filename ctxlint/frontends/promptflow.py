"""promptflow flows: ``flow.dag.yaml`` and the templates of its LLM nodes.

An LLM node names its Jinja template (``source.path``), its connection, and the call's
settings under ``inputs`` (``deployment_name`` or ``model``, ``max_tokens``). The template alone
says nothing about those settings, so each LLM node becomes a request: the template's segments
(located in the template file, which is a dependency of the result) with the node's model and
output limit, located in the flow. A node without ``max_tokens`` is reported by CTX201 there.
"""

from __future__ import annotations

import os

import yaml

from ctxlint import yamlsafe
from ctxlint.frontends import jinja
from ctxlint.frontends.locate import line_locator
from ctxlint.model import OutputLimit, ParsedFile, Request, Span
from ctxlint.providers import LIMIT_KEYS

_MAX_TEMPLATE_BYTES = 2_000_000
_MODEL_KEYS = ("deployment_name", "model", "deployment")


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    if not text.strip():
        return parsed
    try:
        document = yamlsafe.load(text)
    except yamlsafe.YamlError as error:
        parsed.errors.append((Span.point(path, error.line + 1, error.column + 1), error.message))
        return parsed
    flow = document.data if isinstance(document.data, dict) else {}
    nodes = flow.get("nodes")
    if not isinstance(nodes, list) or not isinstance(document.node, yaml.MappingNode):
        return parsed
    node_list = next((v for k, v in document.node.value if isinstance(k, yaml.ScalarNode) and k.value == "nodes"), None)
    yaml_nodes = node_list.value if isinstance(node_list, yaml.SequenceNode) else []
    for index, node in enumerate(nodes):
        if isinstance(node, dict) and node.get("type") == "llm" and index < len(yaml_nodes):
            request = _llm_node(node, yaml_nodes[index], path, parsed)
            if request is not None:
                parsed.requests.append(request)
    return parsed


def _llm_node(node: dict, ynode: yaml.Node, path: str, parsed: ParsedFile) -> Request | None:
    anchor = _span(path, ynode)
    source = node.get("source")
    template = source.get("path") if isinstance(source, dict) else None
    if not isinstance(template, str) or not template:
        return None
    target = os.path.normpath(os.path.join(os.path.dirname(path), template))
    parsed.dependencies.append(target)
    segments = _template(target, template, anchor, parsed)
    inputs = node.get("inputs")
    if not isinstance(inputs, dict):
        inputs = {}
    limit = None
    for key in LIMIT_KEYS:
        if key in inputs:
            value = inputs[key]
            number = value if isinstance(value, int) and not isinstance(value, bool) else None
            where = yamlsafe.locate(ynode, "inputs", key)
            limit = OutputLimit(key, number, _span(path, where) if where is not None else anchor)
            break
    model = next((inputs[k] for k in _MODEL_KEYS if isinstance(inputs.get(k), str)), None)
    name = node.get("name") if isinstance(node.get("name"), str) else "the node"
    return Request(
        path=path,
        anchor=_span(path, yamlsafe.locate(ynode, "name") or ynode),
        segments=segments,
        model=model,
        output_limit=limit,
        declares_settings=True,
        settings_hint=f"`inputs.max_tokens` of the LLM node `{name}`",
        roles_marked=any(s.message_index for s in segments),
    )


def _template(target: str, written: str, anchor: Span, parsed: ParsedFile) -> tuple:
    """The template's segments; a template that cannot be read or parsed is reported and the
    node keeps its settings (a missing limit is still found)."""
    try:
        if os.path.getsize(target) > _MAX_TEMPLATE_BYTES:
            parsed.errors.append((anchor, f"the template `{written}` is over {_MAX_TEMPLATE_BYTES:,} bytes; not read"))
            return ()
        with open(target, "rb") as handle:
            body = handle.read().decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not UTF-8 text"
        parsed.errors.append((anchor, f"cannot read the template `{written}` ({target}): {reason}"))
        return ()
    try:
        return tuple(jinja.parse_template(body, target))
    except jinja.TemplateError as error:
        line, column = line_locator(body)(error.offset)
        parsed.errors.append((Span.point(target, line, column), error.message))
        return ()


def _span(path: str, node: yaml.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    if node.start_mark.line != node.end_mark.line and isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        return Span(path, start.line + 1, start.column + 1, start.line + 1, start.column + 1)
    return Span(path, start.line + 1, start.column + 1, end.line + 1, end.column + 1)
