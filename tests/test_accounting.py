"""Token accounting: the OpenAI cookbook's API figures, tiktoken cross-checks, tool breakdowns,
estimates for providers without a tokenizer, the cacheable prefix and prices per 1,000 calls."""

from __future__ import annotations

import json

import pytest

from ctxlint.analysis.accounting import (
    ENUM_INIT,
    ENUM_ITEM,
    FUNC_END,
    PROP_INIT,
    PROP_KEY,
    REPLY_PRIMING,
    TOKENS_PER_MESSAGE,
    RequestCost,
    ToolCost,
    chat_message_tokens,
    measure,
    request_cost,
    tool_cost_breakdown,
    tools_tokens,
)
from ctxlint.analysis.budget import static_tokens, utf8_bytes
from ctxlint.analysis.volatility import Volatility
from ctxlint.catalogue import load_catalogue
from ctxlint.frontends.structured import parse_file
from ctxlint.model import OutputLimit, Request, Role, Segment, Slot, Span, ToolDef
from ctxlint.tokens import get_encoding, lookup_model

# --- the cookbook's examples -------------------------------------------------------------------
# Source: OpenAI cookbook, examples/How_to_count_tokens_with_tiktoken.ipynb (openai/openai-cookbook),
# sections 6 ("Counting tokens for chat completions API calls") and 7 ("... with tool calls").
# The notebook prints the API's own usage.prompt_tokens for these inputs: 129 (gpt-3.5-turbo,
# gpt-4) and 124 (gpt-4o, gpt-4o-mini) for the messages; 105 and 101 for the tool example.

JARGON_MESSAGES = [
    {"role": "system",
     "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
    {"role": "system", "name": "example_user",
     "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
    {"role": "system", "name": "example_assistant",
     "content": "Let's talk later when we're less busy about how to do better."},
    {"role": "user",
     "content": "This late pivot means we don't have time to boil the ocean for the client deliverable."},
]

WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "description": "Get the current weather in a given location",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                    "unit": {"type": "string", "description": "The unit of temperature to return",
                             "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["location"],
            },
        },
    }
]

WEATHER_MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]

API_MESSAGES = {"gpt-4o": 124, "gpt-4o-mini": 124, "gpt-4": 129, "gpt-3.5-turbo": 129}
API_TOOLS = {"gpt-4o": 101, "gpt-4o-mini": 101, "gpt-4": 105, "gpt-3.5-turbo": 105}

SPAN = Span.point("x.json", 1)


def tool_def(tool: dict) -> ToolDef:
    function = tool.get("function", tool)
    schema = function.get("parameters", function.get("input_schema", function.get("inputSchema")))
    return ToolDef(function.get("name"), function.get("description"), schema, SPAN, tool)


def parsed(document: dict, name: str = "request.json") -> Request:
    result = parse_file(json.dumps(document, indent=2), name)
    assert not result.errors and len(result.requests) == 1
    return result.requests[0]


def volatility() -> Volatility:
    return Volatility.from_rules(r for r in load_catalogue().values() if r.check == "volatile_in_prefix")


@pytest.mark.parametrize("model", sorted(API_MESSAGES))
def test_cookbook_messages_match_the_api(model):
    info = lookup_model(model)
    assert chat_message_tokens(JARGON_MESSAGES, info.encoding) == API_MESSAGES[model]


@pytest.mark.parametrize("model", sorted(API_TOOLS))
def test_cookbook_tools_match_the_api(model):
    info = lookup_model(model)
    tools, _ = tools_tokens([tool_def(t) for t in WEATHER_TOOLS], info)
    assert tools + chat_message_tokens(WEATHER_MESSAGES, info.encoding) == API_TOOLS[model]


@pytest.mark.parametrize("model", sorted(API_TOOLS))
def test_cookbook_tool_request_through_the_front_end(model):
    """The same request written as a chat-request file: the whole pipeline gives the API's count."""
    request = parsed({"model": model, "messages": WEATHER_MESSAGES, "tools": WEATHER_TOOLS})
    cost = request_cost(request, None, "gpt-4o", volatility())
    assert cost.total_input == API_TOOLS[model]
    assert cost.exact and cost.note == ""
    assert cost.total_input == cost.tools + cost.system + cost.messages + REPLY_PRIMING
    assert cost.tools == cost.tool_costs[0].tokens + FUNC_END


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4"])
def test_jargon_request_through_the_front_end_without_names(model):
    """Message `name` fields are not in the shared model: the request counts as if they were absent."""
    request = parsed({"model": model, "messages": JARGON_MESSAGES})
    cost = request_cost(request, None, "gpt-4o", None)
    unnamed = [{k: v for k, v in m.items() if k != "name"} for m in JARGON_MESSAGES]
    encoding = lookup_model(model).encoding
    assert cost.total_input == chat_message_tokens(unnamed, encoding)
    names = sum(len(get_encoding(encoding).encode(m["name"])) + 1 for m in JARGON_MESSAGES if "name" in m)
    assert cost.total_input + names == API_MESSAGES[model]


# --- cross-checks against tiktoken -------------------------------------------------------------


@pytest.mark.parametrize(("model", "func_init"), [("gpt-4o", 7), ("gpt-4o-mini", 7), ("gpt-4", 10),
                                                  ("gpt-3.5-turbo", 10), ("gpt-4.1", 7), ("o4-mini", 7)])
def test_tool_formula_against_tiktoken(model, func_init):
    info = lookup_model(model)
    enc = get_encoding(info.encoding)
    n = lambda text: len(enc.encode(text))  # noqa: E731
    tool = WEATHER_TOOLS[0]
    by_hand = (func_init + n("get_current_weather:Get the current weather in a given location") + PROP_INIT
               + PROP_KEY + n("location:string:The city and state, e.g. San Francisco, CA")
               + PROP_KEY + n("unit:string:The unit of temperature to return")
               + ENUM_INIT + ENUM_ITEM + n("celsius") + ENUM_ITEM + n("fahrenheit"))
    cost = tool_cost_breakdown(tool_def(tool), info)
    assert cost.tokens == by_hand
    assert cost.share == 1.0
    assert cost.biggest_field == "parameters.properties.location.description"
    assert cost.biggest_field_tokens == n("The city and state, e.g. San Francisco, CA")


def test_trailing_period_is_removed_once():
    info = lookup_model("gpt-4o")
    enc = get_encoding("o200k_base")
    schema = {"type": "object", "properties": {"x": {"type": "string", "description": "An x."}}}
    tool = ToolDef("f", "Does a thing..", schema, SPAN, None)
    expected = 7 + len(enc.encode("f:Does a thing.")) + PROP_INIT + PROP_KEY + len(enc.encode("x:string:An x"))
    assert tool_cost_breakdown(tool, info).tokens == expected


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4"])
def test_message_framing_against_tiktoken(model):
    info = lookup_model(model)
    enc = get_encoding(info.encoding)
    system = "你好！You are the support assistant for Northwind Outdoor. 🎒 Answer briefly."
    user = "Where is my order #1234?\n\nThanks"
    request = parsed({"model": model, "max_tokens": 300,
                      "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]})
    cost = request_cost(request, None, "gpt-4o", None)
    assert cost.system == TOKENS_PER_MESSAGE + len(enc.encode("system")) + len(enc.encode(system))
    assert cost.messages == TOKENS_PER_MESSAGE + len(enc.encode("user")) + len(enc.encode(user))
    assert cost.total_input == cost.system + cost.messages + REPLY_PRIMING
    assert cost.reserve == 300
    assert cost.window == info.window
    assert cost.window_share == pytest.approx((cost.total_input + 300) / info.window)
    assert cost.encoding == info.encoding and cost.model == model


# --- tool breakdowns ----------------------------------------------------------------------------

CURRENCIES = ["EUR", "USD", "GBP", "JPY", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "RON", "BGN", "ISK",
              "TRY", "CAD", "AUD", "NZD", "SGD", "HKD", "KRW", "INR", "BRL", "MXN", "ZAR", "CNY", "THB"]


def test_biggest_field_and_shares():
    info = lookup_model("gpt-4o")
    enc = get_encoding("o200k_base")
    convert = ToolDef("convert", "Convert money.", {"type": "object", "properties": {
        "amount": {"type": "number"}, "currency": {"type": "string", "enum": CURRENCIES}}}, SPAN, None)
    ping = ToolDef("ping", "Check the service.", {"type": "object", "properties": {}}, SPAN, None)
    total, costs = tools_tokens([convert, ping], info)
    assert [c.name for c in costs] == ["convert", "ping"]
    assert total == sum(c.tokens for c in costs) + FUNC_END
    assert sum(c.share for c in costs) == pytest.approx(1.0)
    assert costs[0].share == pytest.approx(costs[0].tokens / (costs[0].tokens + costs[1].tokens))
    assert costs[0].biggest_field == "parameters.properties.currency.enum"
    assert costs[0].biggest_field_tokens == ENUM_INIT + sum(ENUM_ITEM + len(enc.encode(c)) for c in CURRENCIES)
    # An empty `properties` adds nothing (the cookbook checks len(properties) > 0).
    assert costs[1].tokens == 7 + len(enc.encode("ping:Check the service"))
    assert costs[1].biggest_field == "description"
    assert isinstance(costs[0], ToolCost) and costs[0].span == SPAN


def test_field_paths_follow_the_source_shape():
    mcp = {"name": "search", "description": "Search.", "inputSchema": {"type": "object", "properties": {
        "q": {"type": "string", "description": "What to look for, in plain words, as long as you like."}}}}
    anthropic = {"name": "search", "description": "Search.", "input_schema": mcp["inputSchema"]}
    assert tool_cost_breakdown(tool_def(mcp), None).biggest_field == "inputSchema.properties.q.description"
    assert tool_cost_breakdown(tool_def(anthropic), lookup_model("claude-sonnet-4-5")).biggest_field == \
        "input_schema.properties.q.description"


def test_nested_schema_is_counted_by_the_documented_extension():
    info = lookup_model("gpt-4o")
    enc = get_encoding("o200k_base")
    n = lambda text: len(enc.encode(text))  # noqa: E731
    schema = {"type": "object", "properties": {
        "filter": {"type": "object", "description": "Filter.", "properties": {
            "owner": {"type": "string", "description": "Owner e-mail"}}},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        "when": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "mode": {"type": ["string", "null"], "title": "Mode"},
    }}
    tool = ToolDef("find", "Find things.", schema, SPAN, None)
    by_hand = (7 + n("find:Find things") + PROP_INIT
               + PROP_KEY + n("filter:object:Filter") + PROP_INIT + PROP_KEY + n("owner:string:Owner e-mail")
               + PROP_KEY + n("tags:array:") + n("string") + ENUM_INIT + 2 * ENUM_ITEM + n("a") + n("b")
               + PROP_KEY + n("when::") + n('anyOf:[{"type":"string"},{"type":"null"}]')
               + PROP_KEY + n("mode:string | null:"))
    assert tool_cost_breakdown(tool, info).tokens == by_hand

    cost = request_cost(Request("t.json", SPAN, tools=(tool,)), None, "gpt-4o", None)
    assert not cost.exact
    assert "approximate" in cost.note and "find" in cost.note
    assert cost.tools == by_hand + FUNC_END


def test_flat_cookbook_schema_is_exact_and_titles_are_free():
    schema = {"type": "object", "title": "Args", "properties": {"city": {"type": "string", "title": "City"}},
              "required": ["city"], "additionalProperties": False}
    cost = request_cost(Request("t.json", SPAN, tools=(ToolDef("w", "Weather.", schema, SPAN, None),)),
                        None, "gpt-4o", None)
    assert cost.exact and cost.note == ""


def test_references_and_provider_tools_are_labelled():
    reference = ToolDef("lookupOrder", None, None, SPAN, "lookupOrder")  # Dotprompt `tools: [lookupOrder]`
    bash = ToolDef("bash", None, None, SPAN, {"type": "bash_20250124", "name": "bash"})
    openai = request_cost(Request("t", SPAN, tools=(reference,)), None, "gpt-4o", None)
    assert not openai.exact and "counted by their name only: lookupOrder" in openai.note
    assert openai.tool_costs[0].tokens == 7 + len(get_encoding("o200k_base").encode("lookupOrder:"))
    claude = request_cost(Request("t", SPAN, tools=(bash,), model="claude-sonnet-4-5"), None, "gpt-4o", None)
    assert "provider-defined tools" in claude.note and "bash" in claude.note


@pytest.mark.parametrize("schema", [
    [1, 2, 3], "object", {"type": "object", "properties": ["a", "b"]},
    {"type": "object", "properties": {"a": "string", "b": {"type": 5, "description": 7, "enum": "x"}}},
    {"type": "object", "properties": {"a": {"type": "array", "items": {"items": {"enum": [1, None, True]}}}}},
])
def test_odd_schemas_never_raise(schema):
    tool = ToolDef(None, None, schema, SPAN, None)
    for model in ("gpt-4o", "claude-sonnet-4-5"):
        cost = tool_cost_breakdown(tool, lookup_model(model))
        assert cost.tokens > 0 and cost.name == ""


def test_deep_schema_is_bounded():
    schema: dict = {"type": "string"}
    for _ in range(200):
        schema = {"type": "object", "properties": {"x": schema}}
    assert tool_cost_breakdown(ToolDef("deep", "", schema, SPAN, None), None).tokens > 200


# --- estimates: Anthropic and Google --------------------------------------------------------------


def test_anthropic_is_an_estimate_with_the_tool_use_overhead():
    info = lookup_model("claude-sonnet-4-5")
    enc = get_encoding("o200k_base")
    tool = {"name": "get_weather", "description": "Current weather.", "input_schema": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "cache_control": {"type": "ephemeral"}}
    request = parsed({"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "You are a weather bot.",
                      "tools": [tool], "messages": [{"role": "user", "content": "Oslo?"}]})
    cost = request_cost(request, None, "gpt-4o", None)
    assert not cost.exact
    assert cost.encoding == "o200k_base"
    assert "estimate: Anthropic publishes no tokenizer; counted with o200k_base" in cost.note
    assert info.tool_overhead_auto == 496
    body = {"name": "get_weather", "description": "Current weather.", "input_schema": tool["input_schema"]}
    tool_tokens = len(enc.encode(json.dumps(body, ensure_ascii=False, separators=(",", ":"))))
    assert cost.tool_costs[0].tokens == tool_tokens
    assert cost.tools == tool_tokens + 496
    assert "496-token tool-use system prompt" in cost.note
    # The system prompt is a request parameter: no message framing; the user message is framed.
    assert cost.system == len(enc.encode("You are a weather bot."))
    assert cost.messages == TOKENS_PER_MESSAGE + len(enc.encode("user")) + len(enc.encode("Oslo?"))

    without = parsed({"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "You are a weather bot.",
                      "messages": [{"role": "user", "content": "Oslo?"}]})
    bare = request_cost(without, None, "gpt-4o", None)
    assert bare.tools == 0 and "tool-use" not in bare.note and not bare.exact


def test_anthropic_unpublished_overhead_is_said():
    tool = ToolDef("t", "T.", {"type": "object"}, SPAN, {"name": "t", "input_schema": {"type": "object"}})
    cost = request_cost(Request("r.json", SPAN, tools=(tool,), model="claude-opus-4-6"), None, "gpt-4o", None)
    assert cost.tools == cost.tool_costs[0].tokens
    assert "not published" in cost.note


def test_google_is_an_estimate():
    request = parsed({"model": "gemini-2.5-pro", "messages": [{"role": "user", "content": "Hi"}]})
    cost = request_cost(request, None, "gpt-4o", None)
    assert not cost.exact and "Google publishes no tokenizer" in cost.note


def test_unknown_model_is_labelled_and_has_no_window_or_price():
    request = parsed({"model": "our-finetune-v3", "messages": [{"role": "user", "content": "Hi"}]})
    cost = request_cost(request, None, "gpt-4o", None)
    assert cost.model == "our-finetune-v3" and cost.encoding == "o200k_base"
    assert not cost.exact and "unknown model" in cost.note
    assert cost.window is None and cost.window_share is None
    assert cost.price_per_1k_calls is None and cost.price_per_1k_calls_cached is None


def test_default_model_and_config_models():
    request = parsed({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 10})
    assert request_cost(request, None, "gpt-4", None).model == "gpt-4"
    cost = request_cost(request, {"our-model": {"base": "gpt-4o", "window": 20_000}}, "our-model", None)
    assert cost.window == 20_000 and cost.encoding == "o200k_base"
    assert cost.window_share == pytest.approx((cost.total_input + 10) / 20_000)


# --- slots and the cacheable prefix ---------------------------------------------------------------


def seg(role: Role, text: str, index: int, slot: Slot | None = None) -> Segment:
    return Segment(role, SPAN, text, slot, index)


def test_slots_count_as_zero_and_loops_once():
    plain = Request("r", SPAN, segments=(seg(Role.SYSTEM, "Rules.", 0), seg(Role.USER, "Q: ", 1)))
    slotted = Request("r", SPAN, segments=(
        seg(Role.SYSTEM, "Rules.", 0), seg(Role.USER, "Q: ", 1),
        seg(Role.USER, "question", 1, Slot("question", names=("question",)))))
    a = request_cost(plain, None, "gpt-4o", volatility())
    b = request_cost(slotted, None, "gpt-4o", volatility())
    assert a.total_input == b.total_input and a.messages == b.messages


def test_cacheable_prefix_ends_at_the_first_volatile_slot():
    enc = get_encoding("o200k_base")
    n = lambda text: len(enc.encode(text))  # noqa: E731
    tool = tool_def(WEATHER_TOOLS[0])
    head = "You are the support assistant for Northwind Outdoor. "
    tail = "\nAnswer politely and briefly."
    request = Request("r", SPAN, tools=(tool,), segments=(
        seg(Role.SYSTEM, head, 0),
        seg(Role.SYSTEM, "user.name", 0, Slot("user.name", names=("user.name",))),  # dynamic, not volatile
        seg(Role.SYSTEM, " Today is ", 0),
        seg(Role.SYSTEM, "now()", 0, Slot("now()", calls=("now",))),
        seg(Role.SYSTEM, tail, 0),
        seg(Role.USER, "Hello", 1),
    ))
    cost = request_cost(request, None, "gpt-4o", volatility())
    tools = tool_cost_breakdown(tool, lookup_model("gpt-4o")).tokens + FUNC_END
    assert cost.cacheable_prefix == tools + TOKENS_PER_MESSAGE + n("system") + n(head) + n(" Today is ")
    assert cost.total_input == cost.cacheable_prefix + n(tail) + TOKENS_PER_MESSAGE + n("user") + n("Hello") \
        + REPLY_PRIMING
    # Without a volatility definition, or without a volatile slot, the whole input is the prefix.
    assert request_cost(request, None, "gpt-4o", None).cacheable_prefix == cost.total_input


def test_cacheable_prefix_through_a_template_in_a_request_file():
    request = parsed({"model": "gpt-4o", "messages": [
        {"role": "system", "content": "You are the support assistant.\nCurrent time: {{ now() }}\nBe brief."},
        {"role": "user", "content": "{{ question }}"}]})
    enc = get_encoding("o200k_base")
    cost = request_cost(request, None, "gpt-4o", volatility())
    assert cost.cacheable_prefix == TOKENS_PER_MESSAGE + len(enc.encode("system")) + len(
        enc.encode("You are the support assistant.\nCurrent time: "))
    assert cost.cacheable_prefix < cost.total_input


# --- prices ---------------------------------------------------------------------------------------


def long_request(model: str, reserve: int = 1000, volatile: bool = True) -> Request:
    text = "Northwind Outdoor sells tents, stoves and sleeping bags across Europe. " * 100
    segments = [seg(Role.SYSTEM, text, 0)]
    if volatile:
        segments.append(seg(Role.SYSTEM, "now()", 0, Slot("now()", calls=("now",))))
    segments += [seg(Role.SYSTEM, "\nAnswer briefly and quote the order number.", 0), seg(Role.USER, "Hi", 1)]
    return Request("r", SPAN, segments=tuple(segments), model=model,
                   output_limit=OutputLimit("max_tokens", reserve, SPAN))


def test_prices_per_thousand_calls_from_the_model_table():
    info = lookup_model("gpt-4o")
    cost = request_cost(long_request("gpt-4o"), None, "gpt-4o", volatility())
    assert cost.cacheable_prefix >= info.cache_min_tokens
    total, prefix = cost.total_input, cost.cacheable_prefix
    assert cost.price_per_1k_calls == pytest.approx(
        1000 * (total * info.input_per_mtok + 1000 * info.output_per_mtok) / 1e6)
    assert cost.price_per_1k_calls_cached == pytest.approx(
        1000 * ((total - prefix) * info.input_per_mtok + prefix * info.cached_input_per_mtok
                + 1000 * info.output_per_mtok) / 1e6)
    assert cost.price_per_1k_calls_cached < cost.price_per_1k_calls


def test_anthropic_prices_use_the_cache_read_price():
    info = lookup_model("claude-sonnet-4-5")
    cost = request_cost(long_request("claude-sonnet-4-5", reserve=2000), None, "gpt-4o", volatility())
    total, prefix = cost.total_input, cost.cacheable_prefix
    assert prefix >= info.cache_min_tokens
    assert cost.price_per_1k_calls == pytest.approx(1000 * (total * 3.00 + 2000 * 15.00) / 1e6)
    assert cost.price_per_1k_calls_cached == pytest.approx(
        1000 * ((total - prefix) * 3.00 + prefix * 0.30 + 2000 * 15.00) / 1e6)


def test_cached_price_edge_cases():
    # A prefix below the model's minimum cacheable length is not cached.
    short = Request("r", SPAN, segments=(seg(Role.SYSTEM, "now()", 0, Slot("now()", calls=("now",))),
                                         seg(Role.SYSTEM, "Be brief.", 0)), model="gpt-4o")
    cost = request_cost(short, None, "gpt-4o", volatility())
    assert cost.price_per_1k_calls_cached == cost.price_per_1k_calls
    # No prompt caching (gpt-4): same price. Unknown cached price (gpt-5): None.
    legacy = request_cost(long_request("gpt-4", reserve=100), None, "gpt-4o", volatility())
    assert legacy.price_per_1k_calls_cached == legacy.price_per_1k_calls is not None
    gpt5 = request_cost(long_request("gpt-5"), None, "gpt-4o", volatility())
    assert gpt5.price_per_1k_calls is not None and gpt5.price_per_1k_calls_cached is None
    # No output limit: the reserve is 0 and only input is priced.
    no_limit = Request("r", SPAN, segments=(seg(Role.USER, "Hi", 0),), model="gpt-4o")
    free = request_cost(no_limit, None, "gpt-4o", None)
    assert free.reserve == 0
    assert free.price_per_1k_calls == pytest.approx(1000 * free.total_input * 2.50 / 1e6)


# --- the byte bound and CTX203's totals ------------------------------------------------------------


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4", "claude-sonnet-4-5", "gemini-2.5-flash", "unknown-x"])
def test_bytes_bound_the_exact_count(model):
    documents = [
        {"model": model, "messages": WEATHER_MESSAGES, "tools": WEATHER_TOOLS},
        {"model": model, "messages": JARGON_MESSAGES},
        {"model": model, "messages": [{"role": "system", "content": "中文提示：必须用中文回答。 🎉 " * 20},
                                      {"role": "user", "content": "{{ question }}"}]},
    ]
    for document in documents:
        request = parsed(document)
        info = lookup_model(model)
        encoding = info.encoding if info else "o200k_base"
        exact = measure(request, info, lambda t: len(get_encoding(encoding).encode_ordinary(t)))
        bound = measure(request, info, utf8_bytes)
        assert bound.total_input >= exact.total_input
        assert static_tokens(request, utf8_bytes, info) == bound.total_input


def test_static_tokens_is_the_request_total():
    request = parsed({"model": "gpt-4o", "messages": WEATHER_MESSAGES, "tools": WEATHER_TOOLS})
    count = lambda t: len(get_encoding("o200k_base").encode_ordinary(t))  # noqa: E731
    assert static_tokens(request, count) == 101
    assert static_tokens(request, count, lookup_model("gpt-4o")) == 101


def test_request_cost_is_frozen():
    cost = request_cost(parsed({"model": "gpt-4o", "messages": WEATHER_MESSAGES}), None, "gpt-4o", None)
    assert isinstance(cost, RequestCost)
    with pytest.raises(AttributeError):
        cost.tools = 5  # type: ignore[misc]
