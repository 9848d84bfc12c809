"""Tool definitions recognised by their shape, wherever the code builds them.

A tool the model is offered is written many ways: a dict (``{"type": "function", "function":
{...}}``, Anthropic's ``{"name", "description", "input_schema"}``), a typed dict or model built
by keywords (``ChatCompletionToolParam(type="function", function={...})``,
``FunctionDeclaration(name=..., parameters=...)``, Pydantic AI's ``ToolDefinition(name=...,
parameters_json_schema=...)``), returned from a helper or kept in a module constant. The shape
decides, not the name of the class: a name and a JSON Schema of parameters, or OpenAI's
``function`` wrapper around them. A tool call (``arguments``) or a forced ``tool_choice`` (a name
alone) has another shape.

Definitions that no call site offers and no server registers still cost what they cost once
offered: they become requests of their own (a list of them one request, a catalogue), so the
tool rules measure them and ``ctxlint cost`` counts them. Such tools carry ``offered=False``:
their findings rest on evidence of their own kind.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.code.pieces import Builder
from ctxlint.frontends.python.knowledge import TOOL_SCHEMA_KEYS, tool_shaped
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Request, Span, ToolDef

if TYPE_CHECKING:
    from ctxlint.frontends.python.flow import Entry
    from ctxlint.frontends.python.tools import Tools

# Keywords of a JSON Schema: a value with one of them is a schema, not some other dict.
_SCHEMA_WORDS = ("type", "properties", "allOf", "anyOf", "oneOf", "$ref")


def keyword_entries(node: ast.expr, env: Env) -> dict[str, Entry] | None:
    """The keyword arguments of a call made with keywords only (a typed dict, a model), as
    the entries of the dict it builds."""
    if not isinstance(node, ast.Call) or node.args or not node.keywords:
        return None
    if any(k.arg is None for k in node.keywords):
        return None
    return {k.arg: (k.value, env, k) for k in node.keywords if k.arg is not None}


def _keys(node: ast.AST) -> frozenset[str]:
    if isinstance(node, ast.Dict):
        return frozenset(k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
    if isinstance(node, ast.Call):
        return frozenset(k.arg for k in node.keywords if k.arg is not None)
    return frozenset()


# What a provider's tool holds beside its schema (OpenAI, Anthropic, MCP, Gemini, Pydantic AI).
PROVIDER_TOOL_KEYS = frozenset({"type", "name", "description", "strict", "cache_control", "title", "annotations",
                                 "outputSchema", "output_schema", "response", "behavior", "_meta", "meta",
                                 *TOOL_SCHEMA_KEYS})


def _own_format(schema: dict[str, object], keys: frozenset[str]) -> bool:
    """Whether a tool-shaped dict is in a project's own format rather than a provider's: no
    ``type`` at its schema's top, and a ``required: true`` on a property (JSON Schema draft 3,
    which no provider reads) or keys of the project's own beside the name (``active``, ``url``).
    A project that writes its tools so converts them before a request."""
    properties = schema.get("properties")
    if "type" in schema or not isinstance(properties, dict):
        return False
    return bool(keys - PROVIDER_TOOL_KEYS) or any(
        isinstance(p, dict) and isinstance(p.get("required"), bool) for p in properties.values())


class ShapeScan:
    """The tool definitions of one module that no request includes."""

    def __init__(self, tools: Tools) -> None:
        self.tools = tools
        self.m = tools.m
        self.claimed: set[int] = set()  # nodes some request found includes

    def definition(self, node: ast.expr, env: Env) -> ToolDef | None:
        """The tool ``node`` defines, if it has a tool's shape all the way in: a schema that is
        a JSON Schema, a function wrapper around a name and a schema or description."""
        entries = self.tools.entries(node, env)
        if entries is None or not tool_shaped(frozenset(entries)):
            return None
        kind = entries.get("type")
        if kind is not None and self.tools.flow.literal_str(kind[0], kind[1]) not in ("function", "custom", None):
            return None  # a tool the provider defines (`{"type": "web_search", ...}`)
        inner = entries
        for wrapper in ("function", "toolSpec"):
            if wrapper in entries:
                wrapped, wrapped_env = self.tools.scopes.deref(entries[wrapper][0], entries[wrapper][1])
                inner = self.tools.entries(wrapped, wrapped_env) or {}
                if "name" not in inner or "arguments" in inner:
                    return None  # a tool call, or a tool forced by name (`tool_choice`)
                self.claimed.add(id(wrapped))  # the wrapped definition is this tool, not another
                break
        schema_key = next((k for k in TOOL_SCHEMA_KEYS if k in inner), None)
        if schema_key is None:
            if "description" not in inner:
                return None
        else:
            ok, schema = self.tools.flow.literal(inner[schema_key][0], inner[schema_key][1])
            if isinstance(schema, dict) and set(schema) == {"json"}:
                schema = schema["json"]
            if not ok or not isinstance(schema, dict) or (schema and not set(_SCHEMA_WORDS) & set(schema)):
                return None  # a schema we cannot read, or a dict that is no JSON Schema
            if not schema and "description" not in inner:
                return None  # a name and `{}`: a reference to a function, not a definition the model reads
            if inner is entries and _own_format(schema, frozenset(entries)):
                return None  # the project's own action format, converted before any request
        tool = self.tools.entries_tool(node, env, entries, Builder(), legacy=False)
        if tool.name is None and tool.written is not None:
            return None  # a helper's template (`{"name": name, ...}`): its callers give the tools
        return replace(tool, offered=False)

    def requests(self, offered: set[Span]) -> list[Request]:
        """One request per list of definitions (a catalogue), and one per definition in no list."""
        requests: list[Request] = []
        for display, scope in self.m.lists:
            tools = []
            for element in display.elts:
                node, env = self.tools.scopes.deref(element, Env(scope))
                if id(node) in self.claimed or not tool_shaped(_keys(node)):
                    continue
                tool = self.definition(node, env)
                if tool is not None and tool.span not in offered:
                    tools.append(tool)
                    self.claimed.add(id(node))
            if tools:
                requests.append(Request(self.m.path, self.m.span(display), (), tuple(tools)))
        candidates: list[tuple[ast.Dict | ast.Call, Scope]] = [
            (node, scope) for node, scope in self.m.dicts if tool_shaped(_keys(node))]
        candidates += [(call, scope) for call, scope in self.m.calls if call.keywords and tool_shaped(_keys(call))]
        # Wrappers first: the definition a wrapper holds is claimed by it.
        candidates.sort(key=lambda c: not {"function", "toolSpec"} & _keys(c[0]))
        for node, scope in candidates:
            if id(node) in self.claimed or self.m.span(node) in offered:
                continue
            tool = self.definition(node, Env(scope))
            if tool is not None:
                self.claimed.add(id(node))
                requests.append(Request(self.m.path, tool.span, (), (tool,)))
        return sorted(requests, key=lambda r: (r.anchor.line, r.anchor.column))
