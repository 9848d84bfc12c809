"""Tools as each provider is sent them: OpenAI's TypeScript namespace, Anthropic's and Gemini's
JSON with Anthropic's tool-use system prompt, each tool's tokens and its costliest field."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ctxlint.analysis.accounting.basis import FUNCTIONS_BLOCK, Counter, Profile, Tally, ToolCost
from ctxlint.model import Span, ToolDef
from ctxlint.tokens import PROVIDER_TOOL_TOKENS, ModelInfo

_PROPERTY_KEYS = frozenset({"type", "description", "enum", "items", "default"})
_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "description", "title",
                          "$schema"})
_PRIMITIVES = frozenset({"string", "number", "integer", "boolean", "null", "array", None})
_MAX_DEPTH = 64  # deeper schemas are rendered as `any` from there on


@dataclass(frozen=True)
class ToolsMeasure:
    total: int  # with request-level overhead
    costs: tuple[ToolCost, ...]
    ends: tuple[tuple[Span, int], ...]  # each tool's span and the tokens sent through it

    def position(self, span: Span) -> int:
        """Tokens sent through the tool at ``span`` (a cache_control breakpoint on a tool)."""
        for tool_span, end in self.ends:
            if tool_span.line <= span.line <= tool_span.end_line:
                return end
        return self.total


def measure_tools(tools: Sequence[ToolDef], profile: Profile, count: Counter, tally: Tally | None,
           choice: str | None = None) -> ToolsMeasure:
    if not tools:
        return ToolsMeasure(0, (), ())
    provider = profile.provider
    flag = tally.flag if tally is not None else (lambda code: None)
    unpriced: list[str] = tally.unpriced if tally is not None else []
    if provider == "openai" or provider is None:
        costs, overhead = _openai_tools(tools, count, flag, unpriced)
    else:
        costs, overhead = _json_tools(tools, profile, count, flag, unpriced, choice)
    tool_sum = sum(c.tokens for c in costs)
    shared = tuple(ToolCost(c.name, c.tokens, c.tokens / tool_sum if tool_sum else 0.0, c.biggest_field,
                            c.biggest_field_tokens, c.span) for c in costs)
    ends, running = [], overhead if provider == "anthropic" else 0
    for c in shared:
        running += c.tokens
        ends.append((c.span, running))
    return ToolsMeasure(tool_sum + overhead, shared, tuple(ends))


def _openai_tools(tools: Sequence[ToolDef], count: Counter, flag: Callable[[str], None],
                  unpriced: list[str]) -> tuple[list[ToolCost], int]:
    """OpenAI renders function tools as one TypeScript namespace; hosted tools are its own."""
    functions = []
    for tool in tools:
        if hosted(tool):
            unpriced.append(f"{tool.name} (hosted tool)")
            flag("unpriced-parts")
        else:
            functions.append(tool)
    costs = []
    blocks = []
    for tool in functions:
        rendering = _rendering(tool, openai=True)
        if tool.registered:  # listed in a prompt by the framework, in a shape of its own
            flag("registry-listed")
        elif tool.schema_estimate:  # a zod schema turned into the JSON Schema the SDK would send
            flag("schema-converted")
        elif not rendering.verified:
            flag("tool-reference" if tool.schema is None and not isinstance(tool.raw, Mapping) else "schema-unverified")
        blocks.append(rendering.text)
        biggest, biggest_tokens = _biggest(rendering, count)
        costs.append(ToolCost(tool.name or "", count(rendering.text + "\n"), 1.0, biggest, biggest_tokens,
                              tool.span))
    if not functions:
        return costs, 0
    flag("openai-functions")
    text = "namespace functions {\n\n" + "\n\n".join(blocks) + "\n\n} // namespace functions"
    overhead = count(text) + FUNCTIONS_BLOCK - sum(c.tokens for c in costs)
    return costs, overhead


def hosted(tool: ToolDef) -> bool:
    """A provider-run tool named by its type (OpenAI's `web_search_preview`), with no schema."""
    raw = tool.raw
    return tool.schema is None and isinstance(raw, Mapping) and isinstance(raw.get("type"), str) \
        and raw.get("type") != "function" and "function" not in raw and "parameters" not in raw


@dataclass(frozen=True)
class _Rendering:
    """One tool as a provider is sent it: the text, each field's path and text (to find its
    costliest field), and whether its shape is one the published counts cover."""

    text: str
    fields: tuple[tuple[str, str], ...]
    verified: bool = True


# Renderings made, by tool (kept with the tool, so its id is not reused while the entry lives).
# One lint measures a catalogue several times (a byte bound, then tokens, in each tool check and
# in the budget check); each tool is rendered once. Emptied when it holds RENDERED_CHARS.
_RENDERED: dict[tuple[int, bool], tuple[ToolDef, _Rendering]] = {}
RENDERED_CHARS = 8_000_000
_rendered_chars = 0


def _rendering(tool: ToolDef, openai: bool) -> _Rendering:
    """``tool`` in OpenAI's TypeScript namespace (``openai``) or as Anthropic's and Gemini's JSON."""
    global _rendered_chars
    kept = _RENDERED.get((id(tool), openai))
    if kept is not None and kept[0] is tool:
        return kept[1]
    rendering = _render_function(tool) if openai else _json_tool(tool)
    size = len(rendering.text) + sum(len(text) for _, text in rendering.fields)
    if _rendered_chars + size > RENDERED_CHARS:
        _RENDERED.clear()
        _rendered_chars = 0
    _RENDERED[(id(tool), openai)] = (tool, rendering)
    _rendered_chars += size
    return rendering


def _biggest(rendering: _Rendering, count: Counter) -> tuple[str, int]:
    """The tool's costliest field (the first of equals) and its tokens.

    Counters never count more tokens than UTF-8 bytes (a token covers at least one byte), so a
    field of fewer bytes than the longest field's tokens cannot be the costliest and is not
    counted: a tool's name and most of its fields are a few bytes beside its description.
    """
    if not rendering.fields:
        return "name", 0
    longest = max((text for _, text in rendering.fields), key=len)
    floor = count(longest)
    biggest, biggest_tokens = "name", 0
    for where, text in rendering.fields:
        if text is not longest and len(text.encode("utf-8", "surrogatepass")) < floor:
            continue
        tokens = floor if text is longest else count(text)
        if tokens > biggest_tokens:
            biggest, biggest_tokens = where, tokens
    return biggest, biggest_tokens


def _render_function(tool: ToolDef) -> _Rendering:
    """A tool as OpenAI's namespace shows it."""
    name = tool.name or ""
    lines = []
    fields: list[tuple[str, str]] = [("name", name)]
    if tool.description:
        lines.append(f"// {tool.description}")
        fields.append(("description", tool.description))
    schema = tool.schema
    verified = tool.schema is not None or isinstance(tool.raw, Mapping)
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if schema is not None and not isinstance(schema, Mapping) or isinstance(schema, Mapping) and (
            set(schema) - _OBJECT_KEYS or schema.get("type", "object") != "object"):
        verified = False
    if isinstance(schema, Mapping) and isinstance(properties, Mapping) and properties:
        prefix = schema_prefix(tool)
        body, body_verified = _render_properties(schema, 0, f"{prefix}.properties", fields, 1)
        lines += [f"type {name} = (_: {{", *body, "}) => any;"]
        verified = verified and body_verified
    else:
        lines.append(f"type {name} = () => any;")
        if properties is not None and not isinstance(properties, Mapping):
            verified = False
    return _Rendering("\n".join(lines), tuple(fields), verified)


def _render_properties(schema: Mapping, indent: int, path: str, fields: list[tuple[str, str]],
                       depth: int) -> tuple[list[str], bool]:
    properties = schema.get("properties")
    required = list(schema["required"]) if isinstance(schema.get("required"), list) else []
    lines: list[str] = []
    verified = True
    pad = " " * indent
    for key, spec in (properties.items() if isinstance(properties, Mapping) else ()):
        where = f"{path}.{key}"
        if not isinstance(spec, Mapping):
            spec, verified = {}, False
        description = spec.get("description")
        if isinstance(description, str) and description:
            fields.append((f"{where}.description", description))
            if indent < 2:  # OpenAI drops descriptions of properties nested in properties
                lines.append(f"{pad}// {description}")
        else:
            verified = False  # published counts disagree on properties without a description
        if set(spec) - _PROPERTY_KEYS:
            verified = False
        rendered, type_verified = _render_type(spec, indent, where, fields, depth)
        verified = verified and type_verified
        mark = "" if key in required else "?"
        default = f" // default: {_json(spec['default'])}" if "default" in spec else ""
        lines.append(f"{pad}{key}{mark}: {rendered},{default}")
    return lines, verified


def _render_type(spec: Mapping, indent: int, path: str, fields: list[tuple[str, str]], depth: int) -> tuple[str, bool]:
    if depth > _MAX_DEPTH:
        return "any", False
    if isinstance(spec.get("anyOf"), list):
        parts = [_render_type(v if isinstance(v, Mapping) else {}, indent, path, fields, depth + 1)[0]
                 for v in spec["anyOf"]]
        return " | ".join(parts), False
    kind = spec.get("type")
    if isinstance(kind, list):
        return " | ".join(_render_type({**spec, "type": k}, indent, path, fields, depth + 1)[0]
                          for k in kind), False
    enum = spec.get("enum")
    if kind == "string" or (kind is None and isinstance(enum, list)):
        if isinstance(enum, list):
            text = " | ".join(f'"{v}"' for v in enum)
            fields.append((f"{path}.enum", text))
            return text, kind == "string"
        return "string", True
    if kind in ("number", "integer"):
        if isinstance(enum, list):
            text = " | ".join(_json(v) for v in enum)
            fields.append((f"{path}.enum", text))
            return text, False  # published counts disagree on number enums
        return "number", True
    if kind in ("boolean", "null"):
        return str(kind), True
    if kind == "object":
        body, _ = _render_properties(spec, indent + 2, f"{path}.properties", fields, depth + 1)
        return "\n".join(["{", *body, "}"]) if body else "{\n\n}", False
    if kind == "array":
        items = spec.get("items")
        if isinstance(items, Mapping):
            inner, verified = _render_type(items, indent, f"{path}.items", fields, depth + 1)
            simple = items.get("type") in _PRIMITIVES and items.get("type") not in ("array", None)
            return f"{inner}[]", verified and simple and not set(items) - _PROPERTY_KEYS
        return "any[]", False
    return "any", kind is None and "enum" not in spec


def schema_prefix(tool: ToolDef) -> str:
    """How the tool's source spells its parameter schema: parameters, input_schema, inputSchema, or
    methods for a registered class (frontends/python/registered.py)."""
    if tool.registered:
        return "methods"
    raw = tool.raw
    if isinstance(raw, Mapping):
        inner = raw.get("function")
        if isinstance(inner, Mapping) and "parameters" in inner:
            return "parameters"
        for key in ("inputSchema", "input_schema", "parameters"):
            if key in raw:
                return key
    return "parameters"


def _json_tools(tools: Sequence[ToolDef], profile: Profile, count: Counter, flag: Callable[[str], None],
                unpriced: list[str], choice: str | None) -> tuple[list[ToolCost], int]:
    """Anthropic and Gemini tools: their JSON definitions, plus Anthropic's tool-use prompt."""
    costs = []
    anthropic = profile.provider == "anthropic"
    for tool in tools:
        kind = tool.raw.get("type") if isinstance(tool.raw, Mapping) else None
        if anthropic and isinstance(kind, str) and tool.schema is None and kind not in ("custom", "function"):
            size = PROVIDER_TOOL_TOKENS.get(kind.rsplit("_", 1)[0])
            if size is None:
                unpriced.append(f"{tool.name or kind} (provider-defined tool; size not published)")
                flag("unpriced-parts")
                size = 0
            else:
                flag("anthropic-provider-tools")
            costs.append(ToolCost(tool.name or kind, size, 1.0, "definition", size, tool.span))
            continue
        if profile.provider == "google" and tool.schema is None and tool.description is None \
                and isinstance(tool.raw, Mapping):  # googleSearch, codeExecution: Google's own tools
            unpriced.append(f"{tool.name} (hosted tool)")
            flag("unpriced-parts")
            continue
        if tool.schema is None and tool.description is None and not isinstance(tool.raw, Mapping):
            flag("tool-reference")
        if tool.registered:
            flag("registry-listed")
        elif tool.schema_estimate:
            flag("schema-converted")
        rendering = _rendering(tool, openai=False)
        biggest, biggest_tokens = _biggest(rendering, count)
        costs.append(ToolCost(tool.name or "", count(rendering.text), 1.0, biggest, biggest_tokens, tool.span))
    overhead = 0
    if anthropic:
        overhead, code = _anthropic_overhead(profile.info, choice)
        flag(code)
    return costs, overhead


def _anthropic_overhead(info: ModelInfo | None, mode: str | None) -> tuple[int, str]:
    if info is None or info.tool_overhead_auto is None:
        return 0, "anthropic-tool-use-unknown"
    if mode in ("any", "tool") and info.tool_overhead_any is not None:
        return info.tool_overhead_any, "anthropic-tool-use"
    return info.tool_overhead_auto, "anthropic-tool-use"


def _json_tool(tool: ToolDef) -> _Rendering:
    """A tool as JSON: ``{"name", "description", "input_schema"}``."""
    body: dict[str, object] = {"name": tool.name or ""}
    if tool.description is not None:
        body["description"] = tool.description
    if tool.schema is not None:
        body["input_schema"] = tool.schema
    fields: list[tuple[str, str]] = [("name", _json(tool.name or ""))]
    if tool.description:
        fields.append(("description", _json(tool.description)))
    if isinstance(tool.schema, Mapping):
        _json_fields(tool.schema, schema_prefix(tool), fields, 1)
    return _Rendering(_json(body), tuple(fields))


def _json_fields(schema: Mapping, path: str, fields: list[tuple[str, str]], depth: int) -> None:
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, spec in properties.items():
            where = f"{path}.properties.{key}"
            if not isinstance(spec, Mapping):
                continue
            for leaf in ("description", "enum"):
                if leaf in spec:
                    fields.append((f"{where}.{leaf}", _json(spec[leaf])))
            if depth < _MAX_DEPTH:
                _json_fields(spec, where, fields, depth + 1)
    items = schema.get("items")
    if isinstance(items, Mapping) and depth < _MAX_DEPTH:
        for leaf in ("description", "enum"):
            if leaf in items:
                fields.append((f"{path}.items.{leaf}", _json(items[leaf])))
        _json_fields(items, f"{path}.items", fields, depth + 1)


def _json(value: object) -> str:
    """Compact JSON of a schema value; never raises (cycles and odd objects become text)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, TypeError, RecursionError):
        return str(type(value).__name__)
