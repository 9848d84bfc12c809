"""Tools: the definitions a request offers, tool catalogues (lists, `tools/list` results) and
single tool files, in the OpenAI, Anthropic and MCP shapes."""

from __future__ import annotations

import re

from ctxlint.frontends.jsonpos import Node
from ctxlint.frontends.structured.context import Context, breakpoint_at, is_null
from ctxlint.model import (
    Breakpoint,
    Request,
    ToolDef,
)

_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema")
_DATED_TOOL_TYPE = re.compile(r"^[a-z_]+_\d{8}$")  # Anthropic's versioned tools: bash_20250124


def tool_def(ctx: Context, node: Node, strict: bool) -> ToolDef | None:
    """A tool in any of the known shapes; ``strict`` refuses objects that only look like one."""
    if node.kind != "object":
        return None
    value = node.value
    inner = value.get("function")
    if isinstance(inner, dict) and (value.get("type") in ("function", None)) and isinstance(inner.get("name"), str):
        source = inner
        schema = inner.get("parameters")
    elif any(k in value for k in _SCHEMA_KEYS) and "name" in value:
        source = value
        schema = next(value[k] for k in _SCHEMA_KEYS if k in value)
    elif isinstance(value.get("name"), str) and isinstance(value.get("type"), str) and (
            _DATED_TOOL_TYPE.match(value["type"]) or not strict):
        source, schema = value, None  # a provider-defined tool (Anthropic's bash, web_search)
    else:
        return None
    if strict and schema is not None and not isinstance(schema, dict):
        return None  # `parameters: [...]` of a CLI command or an API endpoint, not a JSON Schema
    name = source.get("name")
    description = source.get("description")
    return ToolDef(
        name=name if isinstance(name, str) else None,
        description=description if isinstance(description, str) else None,
        schema=schema,
        span=ctx.span(node.start, node.end),
        raw=value,
    )


def request_tools(ctx: Context, fields: dict) -> tuple[list[ToolDef], list[Breakpoint]]:
    tools: list[ToolDef] = []
    breakpoints: list[Breakpoint] = []
    for key in ("tools", "functions"):
        entry = fields.get(key)
        if entry is None or is_null(entry[1]):
            continue
        if entry[1].items is None:
            ctx.wrong_type(entry[1], f"`{key}`", "a list of tool definitions")
            continue
        for item in entry[1].items:
            tool = tool_def(ctx, item, strict=False) or hosted_tool(ctx, item)
            if tool is None:
                if item.kind != "object":
                    ctx.wrong_type(item, f"an item of `{key}`", "a tool definition (an object)")
                continue
            tools.append(tool)
            if "cache_control" in item.fields:
                breakpoints.append(breakpoint_at(ctx, item, 0))
    return tools, breakpoints


def hosted_tool(ctx: Context, node: Node) -> ToolDef | None:
    """A tool the provider runs and defines itself, named only by its type (Responses
    ``{"type": "web_search"}``, ``file_search``, ``code_interpreter``)."""
    kind = node.value.get("type") if node.kind == "object" else None
    if not isinstance(kind, str) or kind == "function" or not kind:
        return None
    return ToolDef(kind, None, None, ctx.span(node.start, node.end), node.value)


def tool_file(ctx: Context, root: Node) -> Request | None:
    """A file whose content is a list of tools (and nothing that makes it a request)."""
    listing, anchor = None, root
    single = _single_tool(ctx, root)
    if single is not None:
        return Request(ctx.path, ctx.point(root.start), tools=(single,),
                       breakpoints=(breakpoint_at(ctx, root, 0),) if "cache_control" in (root.fields or {}) else ())
    if root.kind == "array":
        listing = root
    elif root.kind == "object" and root.fields is not None:
        fields = root.fields
        result = fields.get("result", (None, None))[1]
        if result is not None and result.fields is not None and "tools" in result.fields:
            fields, anchor = result.fields, result.fields["tools"][0]
        for key in ("tools", "functions"):
            if key in fields and fields[key][1].items is not None:
                listing, anchor = fields[key][1], fields[key][0]
                break
    if listing is None or not listing.items:
        return None
    found = [tool_def(ctx, item, strict=True) for item in listing.items]
    tools = [t for t in found if t is not None]
    if len(tools) < len(found) or all(t.schema is None for t in tools):
        return None
    breakpoints = tuple(breakpoint_at(ctx, item, 0) for item in listing.items if "cache_control" in (item.fields or {}))
    return Request(ctx.path, ctx.span(anchor.start, anchor.end) if anchor is not root else ctx.point(root.start),
                   tools=tuple(tools), breakpoints=breakpoints)


def _single_tool(ctx: Context, root: Node) -> ToolDef | None:
    """A file that is one tool (MCP, OpenAI or Anthropic shape), whose schema reads as JSON Schema."""
    if root.kind != "object" or root.fields is None or any(
            key in root.fields for key in ("tools", "functions", "messages", "result")):
        return None
    tool = tool_def(ctx, root, strict=True)
    schema = tool.schema if tool is not None else None
    if tool is None or tool.name is None or not isinstance(schema, dict):
        return None
    return tool if schema.get("type") == "object" or "properties" in schema else None
