"""Token accounting of a request: what the provider bills, per part and per tool.

**OpenAI (exact).** Counts follow OpenAI's cookbook notebook "How to count tokens with tiktoken"
(``num_tokens_from_messages``, ``num_tokens_for_tools``), whose figures match the API's own
``usage.prompt_tokens``:

- every message costs 3 tokens of framing plus the tokens of its role and its content (a
  ``name`` field would add its tokens + 1; the shared model does not carry message names, so
  they are not counted); every reply is primed with 3 more tokens;
- every tool costs ``func_init`` (7 for o200k_base models such as gpt-4o and gpt-4o-mini, 10 for
  cl100k_base models such as gpt-4 and gpt-3.5-turbo) + the tokens of ``name:description``
  (one trailing "." removed); a tool with properties adds ``prop_init`` 3, and each property
  ``prop_key`` 3 + the tokens of ``name:type:description`` (trailing "." removed); an enum adds
  ``enum_init`` -3 and, per item, ``enum_item`` 3 + the item's tokens; ``func_end`` 12 is added
  once when the request offers tools.

**OpenAI, beyond the cookbook (approximate).** The formula covers flat properties with a
string ``type``, ``description`` and ``enum``. Richer schemas are counted by extending it, and
the request's ``note`` says which tools were counted this way:

- nested ``properties`` (of an object property, or of an array's ``items``) add ``prop_init``
  and are counted property by property, exactly like top-level ones, at any depth;
- an array's ``items`` adds the tokens of its type name, and its ``enum`` like a property enum;
- a ``type`` list (``["string", "null"]``) is written ``string | null`` in the property line;
- any other keyword (``anyOf``, ``oneOf``, ``$ref``, ``default``, ``format``, ``minimum``,
  ``pattern``, top-level ``$defs``…) adds the tokens of its compact JSON text ``key:value``;
  ``title``, ``required``, ``additionalProperties`` and ``$schema`` add nothing.

A tool whose schema was converted from zod (TypeScript) is counted as the JSON Schema the SDK
would send, labelled as an estimate. A tool named without a definition (Dotprompt's ``tools: [name]``) is counted by its name only,
and a provider-defined tool (Anthropic's ``bash_20250124``) by what the request sends; both are
labelled approximate too.

**Anthropic and Google (estimates).** Neither publishes a tokenizer: text is counted with the
model's table encoding (o200k_base) and ``exact`` is False. A tool costs the tokens of its JSON
``{"name", "description", "input_schema"}``; Anthropic's tool-use system prompt
(``ModelInfo.tool_overhead_auto``, ``tool_choice`` auto) is added once when tools are offered.
The system prompt is a request parameter there, so it has no message framing; messages are
framed as OpenAI frames them.

**Slots count as 0 tokens**: they are filled at run time, so every total here is what the
request sends *before* any variable content (history, documents, the question). Static text
inside a loop counts once. Images and other non-text parts are not in the model and not counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ctxlint.analysis.volatility import Volatility
from ctxlint.model import Request, Role, Segment, Span, ToolDef
from ctxlint.tokens import DEFAULT_MODEL, ModelInfo, count_tokens, lookup_model

Counter = Callable[[str], int]

# OpenAI cookbook constants (num_tokens_from_messages / num_tokens_for_tools).
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3  # <|start|>assistant<|message|>
FUNC_INIT = {"o200k_base": 7, "cl100k_base": 10}
PROP_INIT = 3
PROP_KEY = 3
ENUM_INIT = -3
ENUM_ITEM = 3
FUNC_END = 12

FALLBACK_ENCODING = "o200k_base"
_PROVIDER_NAMES = {"openai": "OpenAI", "anthropic": "Anthropic", "google": "Google"}
# Schema keywords the OpenAI formula reads, and those that add nothing to the rendered tool.
_FORMULA_KEYS = frozenset({"type", "description", "enum"})
_SILENT_KEYS = frozenset({"title", "required", "additionalProperties", "$schema"})
_MAX_DEPTH = 64  # deeper schemas are counted as JSON text from there on


@dataclass(frozen=True)
class ToolCost:
    """One tool's tokens, its share of all tool tokens in the request (0..1), and its costliest
    field (``description``, ``parameters.properties.unit.enum``) with that field's tokens.

    ``tokens`` excludes request-level overhead (OpenAI's ``func_end``, Anthropic's tool-use
    system prompt), so the shares of a request's tools add up to 1.
    """

    name: str
    tokens: int
    share: float
    biggest_field: str
    biggest_field_tokens: int
    span: Span


@dataclass(frozen=True)
class RequestCost:
    """What one request costs before any run-time content is added (slots count as 0).

    ``tools`` includes per-tool and request-level tool overhead; ``system`` and ``messages``
    include per-message framing; ``total_input`` adds the reply priming. ``cacheable_prefix`` is
    the tokens from the start (tools, then system, then messages) up to the first volatile slot,
    or ``total_input`` when no slot is volatile. ``exact`` is False when any part is an estimate
    (a provider with no public tokenizer, an unknown model, a schema beyond OpenAI's formula);
    ``note`` says why.

    Prices are USD for 1,000 calls, None when the model or one of its prices is unknown:
    ``price_per_1k_calls`` bills the input at the input price and the reserve at the output
    price (the most the answer can cost). ``price_per_1k_calls_cached`` is the same with the
    cacheable prefix read from cache at the provider's cached-input price; the first call's
    cache-write surcharge (Anthropic: x1.25) is ignored, as it is paid once per cache lifetime,
    and Anthropic caches only what a ``cache_control`` breakpoint covers. A prefix below the
    model's minimum cacheable length, or a model without prompt caching, gets the uncached price;
    the prefix is not rounded down to OpenAI's 128-token cache steps.
    """

    path: str
    line: int
    model: str
    encoding: str
    exact: bool
    tools: int
    tool_costs: tuple[ToolCost, ...]
    system: int
    messages: int
    reserve: int
    total_input: int
    cacheable_prefix: int
    window: int | None
    window_share: float | None
    price_per_1k_calls: float | None
    price_per_1k_calls_cached: float | None
    note: str


# --- public API --------------------------------------------------------------------------------


def request_cost(request: Request, models: Mapping | None, default_model: str,
                 volatility: Volatility | None) -> RequestCost:
    """Exact (OpenAI) or estimated token accounting of ``request``.

    ``models`` is the config's ``[tool.ctxlint.models]`` table (or None); the request's own model
    wins over ``default_model``. ``volatility`` says which slots end the cacheable prefix (None:
    no slot does).
    """
    name = request.model or default_model or DEFAULT_MODEL
    info = lookup_model(name, models)
    encoding = info.encoding if info is not None else FALLBACK_ENCODING
    measured = measure(request, info, lambda text: count_tokens(text, encoding), volatility)

    reserve = _reserve(request)
    total = measured.total_input
    window = info.window if info is not None else None
    notes = list(measured.notes)
    if info is None:
        notes.insert(0, f"unknown model `{name}`: counted with {encoding} and OpenAI's framing; "
                        "window and prices unknown")
    return RequestCost(
        path=request.path,
        line=request.anchor.line,
        model=info.name if info is not None else name,
        encoding=encoding,
        exact=info is not None and info.exact and not measured.approximate,
        tools=measured.tools,
        tool_costs=measured.tool_costs,
        system=measured.system,
        messages=measured.messages,
        reserve=reserve,
        total_input=total,
        cacheable_prefix=measured.prefix,
        window=window,
        window_share=(total + reserve) / window if window else None,
        price_per_1k_calls=_price(info, total, 0, reserve),
        price_per_1k_calls_cached=_price(info, total, measured.prefix, reserve, cached=True),
        note="; ".join(notes),
    )


def tool_cost_breakdown(tool: ToolDef, model: ModelInfo | None, *, count: Counter | None = None) -> ToolCost:
    """One tool's tokens under ``model``'s accounting (None: OpenAI's formula with o200k_base).

    Alone, a tool's ``share`` is 1.0; ``request_cost`` sets it against the request's other
    tools. ``count`` replaces the tokenizer (``len(text.encode())`` gives a cheap upper bound).
    """
    return _tool(tool, model, count or _counter(model)).cost


def tools_tokens(tools: Sequence[ToolDef], model: ModelInfo | None, *,
                 count: Counter | None = None) -> tuple[int, tuple[ToolCost, ...]]:
    """All tool tokens of one request including request-level overhead, and each tool's cost."""
    measured = _tools(tools, model, count or _counter(model))
    return measured[0], measured[1]


def chat_message_tokens(messages: Iterable[Mapping[str, str]], encoding: str = FALLBACK_ENCODING) -> int:
    """The cookbook's ``num_tokens_from_messages``: framing, every value (role, content, name)
    and the reply priming, for messages given as plain ``{"role", "content", "name"?}`` dicts."""
    total = REPLY_PRIMING
    for message in messages:
        total += TOKENS_PER_MESSAGE
        for key, value in message.items():
            total += count_tokens(value, encoding)
            if key == "name":
                total += TOKENS_PER_NAME
    return total


# --- measuring -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """Totals of one request under one counter (exact tokens, or a byte upper bound)."""

    tools: int
    tool_costs: tuple[ToolCost, ...]
    system: int
    messages: int
    priming: int
    prefix: int
    approximate: bool
    notes: tuple[str, ...]

    @property
    def total_input(self) -> int:
        return self.tools + self.system + self.messages + self.priming


def measure(request: Request, info: ModelInfo | None, count: Counter,
            volatility: Volatility | None = None) -> Measured:
    """Every total of ``request`` with ``count`` as the tokenizer.

    All constants are the same whatever ``count`` is and every text term grows with it, so a
    counter that over-counts (UTF-8 bytes: a token covers at least one byte) gives an upper
    bound of the exact totals without loading a tokenizer.
    """
    provider = info.provider if info is not None else "openai"
    tool_total, tool_costs, approximate_tools = _tools(request.tools, info, count)
    notes: list[str] = []
    approximate = bool(approximate_tools)
    if info is not None and not info.exact:
        who = _PROVIDER_NAMES.get(provider, provider)
        notes.append(f"estimate: {who} publishes no tokenizer; counted with {info.encoding}")
    if provider == "anthropic" and request.tools:
        if info is not None and info.tool_overhead_auto is not None:
            notes.append(f"includes Anthropic's {info.tool_overhead_auto:,}-token tool-use system prompt")
        else:
            notes.append("Anthropic's tool-use system prompt for this model is not published and is not included")
    for reason, names in approximate_tools.items():
        notes.append(f"{_APPROXIMATE[reason]}: {', '.join(names)}")

    system = messages = 0
    running = tool_total  # tokens sent so far, in request order
    prefix = None
    frame_system = provider == "openai"
    for group in _messages(request.segments):
        role = group[0].role
        if role is Role.TOOLS:  # tool text written as prompt text: part of the tools, unframed
            framing, is_system = 0, False
        else:
            is_system = role in (Role.SYSTEM, Role.DEVELOPER)
            framing = TOKENS_PER_MESSAGE + count(role.value) if frame_system or not is_system else 0
        size = framing
        running += framing
        for segment in group:
            if segment.slot is not None:
                if prefix is None and volatility is not None and volatility.reason(segment.slot):
                    prefix = running
                continue
            tokens = count(segment.text)
            size += tokens
            running += tokens
        if role is Role.TOOLS:
            tool_total += size
        elif is_system:
            system += size
        else:
            messages += size
    total = tool_total + system + messages + REPLY_PRIMING
    return Measured(tool_total, tool_costs, system, messages, REPLY_PRIMING,
                    total if prefix is None else prefix, approximate, tuple(notes))


def _messages(segments: Sequence[Segment]) -> list[list[Segment]]:
    """Segments grouped into messages: a run with one ``message_index`` is one message."""
    groups: list[list[Segment]] = []
    for segment in segments:
        if groups and groups[-1][0].message_index == segment.message_index and \
                (groups[-1][0].role is Role.TOOLS) == (segment.role is Role.TOOLS):
            groups[-1].append(segment)
        else:
            groups.append([segment])
    return groups


def _counter(info: ModelInfo | None) -> Counter:
    encoding = info.encoding if info is not None else FALLBACK_ENCODING
    return lambda text: count_tokens(text, encoding)


def _reserve(request: Request) -> int:
    limit = request.output_limit
    return limit.value if limit is not None and limit.value is not None and limit.value > 0 else 0


def _price(info: ModelInfo | None, total: int, prefix: int, reserve: int, cached: bool = False) -> float | None:
    if info is None or info.input_per_mtok is None:
        return None
    if reserve and info.output_per_mtok is None:
        return None
    output = reserve * (info.output_per_mtok or 0.0)
    uncached = total * info.input_per_mtok + output
    if cached:
        if info.cache_min_tokens is None or prefix < info.cache_min_tokens or prefix <= 0:
            return uncached * 1000 / 1_000_000
        if info.cached_input_per_mtok is None:
            return None
        return ((total - prefix) * info.input_per_mtok + prefix * info.cached_input_per_mtok + output) \
            * 1000 / 1_000_000
    return uncached * 1000 / 1_000_000


# --- tools -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ToolMeasure:
    cost: ToolCost
    approximate: str | None  # a key of _APPROXIMATE, or None when the count is exact


# Why a tool's count is approximate, as the request's note says it.
_APPROXIMATE = {
    "schema": "approximate: tool schemas beyond OpenAI's published formula (nested objects, arrays, anyOf…)",
    "reference": "tools named without a definition (defined elsewhere) are counted by their name only",
    "provider": "provider-defined tools are counted from what the request sends; the provider adds "
                "its own definition",
    "converted": "estimate: schemas written in zod are counted as the JSON Schema the SDK converts them to",
}


def _tools(tools: Sequence[ToolDef], info: ModelInfo | None,
           count: Counter) -> tuple[int, tuple[ToolCost, ...], dict[str, list[str]]]:
    if not tools:
        return 0, (), {}
    measured = [_tool(tool, info, count) for tool in tools]
    tool_sum = sum(m.cost.tokens for m in measured)
    costs = tuple(replace(m.cost, share=m.cost.tokens / tool_sum if tool_sum else 0.0) for m in measured)
    provider = info.provider if info is not None else "openai"
    if provider == "openai":
        overhead = FUNC_END
    elif provider == "anthropic" and info is not None and info.tool_overhead_auto is not None:
        overhead = info.tool_overhead_auto
    else:
        overhead = 0
    approximate: dict[str, list[str]] = {}
    for m in measured:
        if m.approximate:
            approximate.setdefault(m.approximate, []).append(m.cost.name or "(unnamed)")
    return tool_sum + overhead, costs, approximate


def _tool(tool: ToolDef, info: ModelInfo | None, count: Counter) -> _ToolMeasure:
    provider = info.provider if info is not None else "openai"
    if provider == "openai":
        encoding = info.encoding if info is not None else FALLBACK_ENCODING
        tokens, fields, approximate = _openai_tool(tool, FUNC_INIT.get(encoding, FUNC_INIT["o200k_base"]), count)
    else:
        tokens, fields, approximate = _json_tool(tool, count)
    biggest, biggest_tokens = max(fields, key=lambda item: item[1]) if fields else ("name", 0)
    cost = ToolCost(tool.name or "", tokens, 1.0, biggest, max(biggest_tokens, 0), tool.span)
    if tool.schema is None and tool.description is None and not isinstance(tool.raw, Mapping):
        reason = "reference"  # Dotprompt `tools: [name]`: the definition is registered in code
    elif tool.schema is None and isinstance(tool.raw, Mapping) and \
            tool.raw.get("type") not in (None, "function") and "function" not in tool.raw:
        reason = "provider"  # Anthropic's bash_20250124, web_search_…
    elif tool.schema_estimate:
        reason = "converted"  # a zod schema turned into the JSON Schema the SDK would send
    else:
        reason = "schema" if approximate else None
    return _ToolMeasure(cost, reason)


def schema_prefix(tool: ToolDef) -> str:
    """How the tool's source spells its parameter schema: parameters, input_schema or inputSchema."""
    raw = tool.raw
    if isinstance(raw, Mapping):
        inner = raw.get("function")
        if isinstance(inner, Mapping) and "parameters" in inner:
            return "parameters"
        for key in ("inputSchema", "input_schema", "parameters"):
            if key in raw:
                return key
    return "parameters"


def _strip_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


def _openai_tool(tool: ToolDef, func_init: int, count: Counter) -> tuple[int, list[tuple[str, int]], bool]:
    name = tool.name or ""
    description = _strip_period(tool.description or "")
    fields: list[tuple[str, int]] = [("name", count(name))]
    if description:
        fields.append(("description", count(description)))
    tokens = func_init + count(f"{name}:{description}")
    schema = tool.schema
    approximate = False
    if isinstance(schema, Mapping):
        prefix = schema_prefix(tool)
        properties = schema.get("properties")
        if isinstance(properties, Mapping) and properties:
            tokens += PROP_INIT
            props, approx = _properties(properties, f"{prefix}.properties", count, fields, 1)
            tokens += props
            approximate |= approx
        elif properties is not None and not isinstance(properties, Mapping):
            tokens += _extra("properties", properties, prefix, count, fields)
            approximate = True
        for key, value in schema.items():
            if key in ("type", "properties") or key in _SILENT_KEYS:
                continue
            tokens += _extra(key, value, prefix, count, fields)
            approximate = True
    elif schema is not None:  # not an object schema: its JSON text
        tokens += _extra("parameters", schema, "", count, fields)
        approximate = True
    return tokens, fields, approximate


def _properties(properties: Mapping, path: str, count: Counter, fields: list[tuple[str, int]],
                depth: int) -> tuple[int, bool]:
    """The cookbook's per-property lines, extended to nested properties (see the module doc)."""
    tokens = 0
    approximate = False
    for key, spec in properties.items():
        where = f"{path}.{key}"
        tokens += PROP_KEY
        if not isinstance(spec, Mapping):
            tokens += count(f"{key}::") + _extra("schema", spec, where, count, fields)
            approximate = True
            continue
        p_type = spec.get("type", "")
        if isinstance(p_type, list):
            p_type = " | ".join(str(t) for t in p_type)
            approximate = True
        elif not isinstance(p_type, str):
            p_type = _json(p_type)
            approximate = True
        description = spec.get("description", "")
        if not isinstance(description, str):
            description = _json(description)
            approximate = True
        description = _strip_period(description)
        if description:
            fields.append((f"{where}.description", count(description)))
        if "enum" in spec:
            enum_tokens = _enum(spec["enum"], count)
            tokens += enum_tokens
            fields.append((f"{where}.enum", enum_tokens))
        tokens += count(f"{key}:{p_type}:{description}")
        if depth >= _MAX_DEPTH:
            rest = {k: v for k, v in spec.items() if k not in _FORMULA_KEYS}
            if rest:
                tokens += _extra("schema", rest, where, count, fields)
                approximate = True
            continue
        for sub_key, value in spec.items():
            if sub_key in _FORMULA_KEYS or sub_key in _SILENT_KEYS:
                continue
            approximate = True
            if sub_key == "properties" and isinstance(value, Mapping):
                if value:
                    tokens += PROP_INIT
                    tokens += _properties(value, f"{where}.properties", count, fields, depth + 1)[0]
            elif sub_key == "items" and isinstance(value, Mapping):
                tokens += _items(value, f"{where}.items", count, fields, depth + 1)
            else:
                tokens += _extra(sub_key, value, where, count, fields)
    return tokens, approximate


def _items(items: Mapping, path: str, count: Counter, fields: list[tuple[str, int]], depth: int) -> int:
    tokens = 0
    item_type = items.get("type")
    if isinstance(item_type, str):
        tokens += count(item_type)
    for key, value in items.items():
        if key == "type" or key in _SILENT_KEYS:
            continue
        if key == "enum":
            enum_tokens = _enum(value, count)
            tokens += enum_tokens
            fields.append((f"{path}.enum", enum_tokens))
        elif key == "description" and isinstance(value, str):
            description = _strip_period(value)
            part = count(description)
            tokens += part
            if description:
                fields.append((f"{path}.description", part))
        elif key == "properties" and isinstance(value, Mapping) and depth < _MAX_DEPTH:
            if value:
                tokens += PROP_INIT + _properties(value, f"{path}.properties", count, fields, depth + 1)[0]
        elif key == "items" and isinstance(value, Mapping) and depth < _MAX_DEPTH:
            tokens += _items(value, f"{path}.items", count, fields, depth + 1)
        else:
            tokens += _extra(key, value, path, count, fields)
    return tokens


def _enum(values: object, count: Counter) -> int:
    if not isinstance(values, list):
        return count(_json(values))
    return ENUM_INIT + sum(ENUM_ITEM + count(v if isinstance(v, str) else _json(v)) for v in values)


def _extra(key: str, value: object, path: str, count: Counter, fields: list[tuple[str, int]]) -> int:
    """A keyword the formula does not cover: the tokens of its compact JSON ``key:value``."""
    tokens = count(f"{key}:{_json(value)}")
    fields.append((f"{path}.{key}" if path else key, tokens))
    return tokens


def _json_tool(tool: ToolDef, count: Counter) -> tuple[int, list[tuple[str, int]], bool]:
    """A tool as Anthropic-style JSON: ``{"name", "description", "input_schema"}``."""
    body: dict[str, object] = {"name": tool.name or ""}
    if tool.description is not None:
        body["description"] = tool.description
    if tool.schema is not None:
        body["input_schema"] = tool.schema
    elif isinstance(tool.raw, Mapping):  # a provider-defined tool (bash_20250124): what is sent
        body = {k: v for k, v in tool.raw.items() if k != "cache_control"}
    fields: list[tuple[str, int]] = [("name", count(_json(tool.name or "")))]
    if tool.description:
        fields.append(("description", count(_json(tool.description))))
    if isinstance(tool.schema, Mapping):
        _json_fields(tool.schema, schema_prefix(tool), count, fields, 1)
    return count(_json(body)), fields, False


def _json_fields(schema: Mapping, path: str, count: Counter, fields: list[tuple[str, int]], depth: int) -> None:
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, spec in properties.items():
            where = f"{path}.properties.{key}"
            if not isinstance(spec, Mapping):
                continue
            for leaf in ("description", "enum"):
                if leaf in spec:
                    fields.append((f"{where}.{leaf}", count(_json(spec[leaf]))))
            if depth < _MAX_DEPTH:
                _json_fields(spec, where, count, fields, depth + 1)
    items = schema.get("items")
    if isinstance(items, Mapping) and depth < _MAX_DEPTH:
        for leaf in ("description", "enum"):
            if leaf in items:
                fields.append((f"{path}.items.{leaf}", count(_json(items[leaf]))))
        _json_fields(items, f"{path}.items", count, fields, depth + 1)


def _json(value: object) -> str:
    """Compact JSON of a schema value; never raises (cycles and odd objects become text)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, TypeError, RecursionError):
        return str(type(value).__name__)


__all__ = [
    "ENUM_INIT", "ENUM_ITEM", "FUNC_END", "FUNC_INIT", "PROP_INIT", "PROP_KEY", "REPLY_PRIMING",
    "TOKENS_PER_MESSAGE", "TOKENS_PER_NAME", "Measured", "RequestCost", "ToolCost", "chat_message_tokens",
    "measure", "request_cost", "schema_prefix", "tool_cost_breakdown", "tools_tokens",
]
