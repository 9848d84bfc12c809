"""Token accounting: what each request part costs, which counts are exact and why the others are
estimates, caching priced by each provider's rules, and output priced apart.

Expected numbers come from tiktoken directly (``get_encoding``) and the published constants;
the published API counts themselves are in tests/reference/counts.json (test_reference_counts).
"""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from ctxlint.analysis.accounting import (
    FUNCTIONS_BLOCK,
    REPLY_PRIMING,
    TOKENS_PER_MESSAGE,
    RequestCost,
    ToolCost,
    chat_message_tokens,
    image_tiles,
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

SPAN = Span.point("x.json", 1)

WEATHER_TOOL = {
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
WEATHER_MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]
# The TypeScript namespace OpenAI renders WEATHER_TOOL as (openai-chat-tokens' format).
WEATHER_NAMESPACE = """namespace functions {

// Get the current weather in a given location
type get_current_weather = (_: {
// The city and state, e.g. San Francisco, CA
location: string,
// The unit of temperature to return
unit?: "celsius" | "fahrenheit",
}) => any;

} // namespace functions"""


def n(text: str, encoding: str = "o200k_base") -> int:
    return len(get_encoding(encoding).encode(text))


def parsed(document: dict, name: str = "request.json") -> Request:
    result = parse_file(json.dumps(document, indent=2), name)
    assert not result.errors and len(result.requests) == 1
    return result.requests[0]


def cost_of(document: dict, **kwargs) -> RequestCost:
    return request_cost(parsed(document), None, None, kwargs.pop("volatility", None), **kwargs)


def volatility() -> Volatility:
    return Volatility.from_rules(r for r in load_catalogue().values() if r.check == "volatile_in_prefix")


def png(width: int, height: int) -> str:
    """A data URL of a blank PNG of the given size (only its header matters to the count)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    body = zlib.compress((b"\x00" * (1 + (width + 7) // 8)) * height)
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", body) + chunk(b"IEND", b""))
    return "data:image/png;base64," + base64.b64encode(data).decode()


def image_message(url: str, detail: str | None = None) -> dict:
    image = {"url": url} if detail is None else {"url": url, "detail": detail}
    return {"role": "user", "content": [{"type": "text", "text": "Describe this picture:"},
                                        {"type": "image_url", "image_url": image}]}


# --- OpenAI chat: the reproduced accounting ----------------------------------------------------


@pytest.mark.parametrize(("model", "encoding"), [("gpt-4o", "o200k_base"), ("gpt-4", "cl100k_base")])
def test_tools_are_the_typescript_namespace_plus_nine_minus_four_with_a_system_message(model, encoding):
    cost = cost_of({"model": model, "messages": WEATHER_MESSAGES, "tools": [WEATHER_TOOL]})
    system_text = WEATHER_MESSAGES[0]["content"] + "\n"  # the first system message gains a newline
    system = TOKENS_PER_MESSAGE + n("system", encoding) + n(system_text, encoding)
    user = TOKENS_PER_MESSAGE + n("user", encoding) + n(WEATHER_MESSAGES[1]["content"], encoding)
    tools = n(WEATHER_NAMESPACE, encoding) + FUNCTIONS_BLOCK - 4
    assert (cost.system, cost.messages, cost.tools) == (system, user, tools)
    assert cost.total_input == system + user + tools + REPLY_PRIMING
    assert cost.exact and cost.basis == ("openai-chat", "openai-functions") and cost.note == ""


def test_without_a_system_message_the_block_keeps_its_nine_tokens():
    cost = cost_of({"model": "gpt-4o", "messages": [WEATHER_MESSAGES[1]], "tools": [WEATHER_TOOL]})
    assert cost.tools == n(WEATHER_NAMESPACE) + FUNCTIONS_BLOCK


def test_tool_breakdown_sums_to_the_block_and_names_the_biggest_field():
    cost = cost_of({"model": "gpt-4o", "messages": [WEATHER_MESSAGES[1]], "tools": [WEATHER_TOOL]})
    (tool,) = cost.tool_costs
    assert isinstance(tool, ToolCost) and tool.share == 1.0
    block = WEATHER_NAMESPACE.split("\n\n")[1]
    assert tool.tokens == n(block + "\n")
    assert tool.biggest_field == "parameters.properties.location.description"
    assert tool.biggest_field_tokens == n("The city and state, e.g. San Francisco, CA")
    assert cost.tools == tool.tokens + (n(WEATHER_NAMESPACE) + FUNCTIONS_BLOCK - tool.tokens)


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_names_add_their_tokens_and_one(encoding):
    model = "gpt-4o" if encoding == "o200k_base" else "gpt-4"
    message = {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."}
    cost = cost_of({"model": model, "messages": [message]})
    assert cost.total_input == chat_message_tokens([message], encoding)
    assert cost.system == TOKENS_PER_MESSAGE + n("system", encoding) + n(message["content"], encoding) + \
        n("example_user", encoding) + 1
    assert cost.exact


def test_function_messages_and_calls_on_cl100k_models():
    cl = "cl100k_base"
    function = {"role": "function", "name": "do_stuff", "content": '{"foo": "bar"}'}
    call = {"role": "assistant", "content": None, "function_call": {"name": "do_stuff", "arguments": '{"x": 1}'}}
    cost = cost_of({"model": "gpt-3.5-turbo", "messages": [function, call]})
    function_tokens = 3 + n("function", cl) + n(function["content"], cl) + n("do_stuff", cl) + 1 - 2
    call_tokens = 3 + n("assistant", cl) + n("do_stuff", cl) + n('{"x": 1}', cl) + 3  # null content: nothing
    assert cost.messages == function_tokens + call_tokens
    assert cost.exact


def test_tool_calls_one_and_several():
    cl = "cl100k_base"
    one = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"id":"7"}'}}]}
    several = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"id":"7"}'}},
        {"id": "c2", "type": "function", "function": {"name": "refund", "arguments": '{"id":"7"}'}}]}
    tool = {"role": "tool", "tool_call_id": "c1", "content": "Order 7 shipped."}
    frame = 3 + n("assistant", cl)
    single = cost_of({"model": "gpt-3.5-turbo", "messages": [one, tool]})
    assert single.messages == frame + n('lookup{"id":"7"}', cl) + n("lookup", cl) + 2 + \
        3 + n("tool", cl) + n("Order 7 shipped.", cl)
    # Published tool-call conversations disagree by a few tokens: the same rules, as an estimate.
    assert not single.exact and "message-unverified" in single.basis
    # A tool message has no `name` in the API: one written anyway is not sent, so not counted.
    named = cost_of({"model": "gpt-3.5-turbo", "messages": [one, {**tool, "name": "lookup"}]})
    assert named.messages == single.messages
    uses = '{"tool_uses":[{"recipient_name":"lookup","parameters":"{\\"id\\":\\"7\\"}"},' \
           '{"recipient_name":"refund","parameters":"{\\"id\\":\\"7\\"}"}]}'
    double = cost_of({"model": "gpt-3.5-turbo", "messages": [several]})
    assert double.messages == frame + n(uses, cl) + 12 + 2
    on_4o = cost_of({"model": "gpt-4o", "messages": [one, tool]})
    assert not on_4o.exact and "message-unverified" in on_4o.basis


@pytest.mark.parametrize(("choice", "extra"), [
    ("auto", 0), ("none", 1), ({"type": "function", "function": {"name": "get_current_weather"}}, None)])
def test_tool_choice(choice, extra):
    base = cost_of({"model": "gpt-4o", "messages": WEATHER_MESSAGES, "tools": [WEATHER_TOOL]})
    cost = cost_of({"model": "gpt-4o", "messages": WEATHER_MESSAGES, "tools": [WEATHER_TOOL], "tool_choice": choice})
    expected = 7 + n("get_current_weather") if extra is None else extra
    assert cost.total_input - base.total_input == expected == cost.other - REPLY_PRIMING
    assert cost.exact


def test_legacy_function_call_named_costs_four_plus_the_name():
    function = {"name": "foo", "parameters": {"type": "object", "properties": {}}}
    base = cost_of({"model": "gpt-3.5-turbo", "messages": [{"role": "user", "content": "hello"}], "functions": [function]})
    named = cost_of({"model": "gpt-3.5-turbo", "messages": [{"role": "user", "content": "hello"}], "functions": [function],
                     "function_call": {"name": "foo"}})
    assert named.total_input - base.total_input == 4 + n("foo", "cl100k_base")


def test_tool_choice_required_is_an_estimate():
    cost = cost_of({"model": "gpt-4o", "messages": WEATHER_MESSAGES, "tools": [WEATHER_TOOL], "tool_choice": "required"})
    assert not cost.exact and "tool-choice-unverified" in cost.basis


@pytest.mark.parametrize(("width", "height", "tiles"), [
    (1, 1, 1), (512, 512, 1), (513, 512, 2), (1126, 488, 3), (1024, 1024, 4), (4096, 2048, 6), (800, 4000, 4)])
def test_image_tiles(width, height, tiles):
    assert image_tiles(width, height) == tiles


@pytest.mark.parametrize(("model", "base", "tile"), [("gpt-4o", 85, 170), ("gpt-4o-mini", 2833, 5667)])
def test_images_from_their_declared_size(model, base, tile):
    text = 3 + n("user") + n("Describe this picture:") + REPLY_PRIMING
    high = cost_of({"model": model, "messages": [image_message(png(1126, 488), "high")]})
    assert high.total_input == text + base + 3 * tile and high.exact
    auto = cost_of({"model": model, "messages": [image_message(png(1126, 488))]})
    assert auto.total_input == high.total_input
    low = cost_of({"model": model, "messages": [image_message(png(1126, 488), "low")]})
    assert low.total_input == text + base and low.exact


def test_an_image_of_unknown_size_is_an_estimate():
    cost = cost_of({"model": "gpt-4o", "messages": [image_message("https://example.com/cat.jpg")]})
    assert not cost.exact and "image-size-unknown" in cost.basis
    assert cost.messages == 3 + n("user") + n("Describe this picture:") + 85 + 4 * 170


def test_audio_and_files_are_listed_not_counted():
    message = {"role": "user", "content": [
        {"type": "text", "text": "Transcribe and summarise."},
        {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
        {"type": "file", "file": {"filename": "report.pdf", "file_data": "data:application/pdf;base64,AAAA"}}]}
    cost = cost_of({"model": "gpt-4o", "messages": [message]})
    assert cost.unpriced == ("audio (user message)", "file (user message)")
    assert not cost.exact and "unpriced-parts" in cost.basis
    assert "not counted: audio (user message), file (user message)" in cost.note


def test_outside_the_published_shapes_counts_are_estimates():
    nested = {"type": "function", "function": {"name": "find", "description": "Find orders.", "parameters": {
        "type": "object", "properties": {"filter": {"type": "object", "description": "Filter.", "properties": {
            "owner": {"type": "string", "description": "Owner e-mail"}}}}}}}
    assert not cost_of({"model": "gpt-4o", "messages": WEATHER_MESSAGES, "tools": [nested]}).exact
    bare = {"type": "function", "function": {"name": "ping", "description": "Ping.", "parameters": {
        "type": "object", "properties": {"host": {"type": "string"}}}}}  # a property without a description
    assert "schema-unverified" in cost_of({"model": "gpt-4o", "messages": WEATHER_MESSAGES, "tools": [bare]}).basis
    developer = cost_of({"model": "gpt-4o", "messages": [{"role": "developer", "content": "Be brief."}]})
    assert not developer.exact and "message-unverified" in developer.basis
    newer = cost_of({"model": "gpt-4.1", "messages": WEATHER_MESSAGES, "tools": [WEATHER_TOOL]})
    assert not newer.exact and "model-unverified" in newer.basis
    assert newer.total_input == cost_of({"model": "gpt-4o", "messages": WEATHER_MESSAGES,
                                         "tools": [WEATHER_TOOL]}).total_input


def test_defaults_are_rendered_as_comments():
    tool = {"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {
        "type": "object", "properties": {"unit": {"type": "string", "description": "Unit.",
                                                  "enum": ["celsius", "fahrenheit"], "default": "celsius"}}}}}
    without = json.loads(json.dumps(tool))
    del without["function"]["parameters"]["properties"]["unit"]["default"]
    a = cost_of({"model": "gpt-4o", "messages": [WEATHER_MESSAGES[1]], "tools": [tool]})
    b = cost_of({"model": "gpt-4o", "messages": [WEATHER_MESSAGES[1]], "tools": [without]})
    line = 'unit?: "celsius" | "fahrenheit",'
    assert a.tools - b.tools == n(line + ' // default: "celsius"\n') - n(line + "\n")


# --- the Responses API -------------------------------------------------------------------------


def test_responses_api_is_counted_as_chat_and_labelled():
    document = {
        "model": "gpt-4o",
        "instructions": "You are a support agent.",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "Where is order 7?"}]},
            {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": '{"id":"7"}'},
            {"type": "function_call_output", "call_id": "c1", "output": "Shipped yesterday."},
        ],
        "tools": [{"type": "function", "name": "lookup", "description": "Look up an order.", "parameters": {
            "type": "object", "properties": {"id": {"type": "string", "description": "Order id"}}}},
                  {"type": "web_search"}, {"type": "file_search", "vector_store_ids": ["vs_1"]}],
        "max_output_tokens": 500,
    }
    request = parsed(document)
    assert request.api == "openai-responses"
    assert [m.role for m in request.messages] == ["developer", "user", "function_call", "function_call_output"]
    cost = request_cost(request, None, None, None)
    assert not cost.exact and "responses-api" in cost.basis
    assert cost.unpriced == ("web_search (hosted tool)", "file_search (hosted tool)")
    assert [t.name for t in cost.tool_costs] == ["lookup"]
    assert cost.system == 3 + n("developer") + n("You are a support agent.")
    call = 3 + n("assistant") + n('lookup{"id":"7"}') + n("lookup") + 2
    output = 3 + n("tool") + n("Shipped yesterday.")
    assert cost.messages == 3 + n("user") + n("Where is order 7?") + call + output
    assert cost.reserve == 500


def test_responses_input_as_a_string():
    cost = cost_of({"model": "gpt-4o", "instructions": "Be brief.", "input": "Hello"})
    assert cost.messages == 3 + n("user") + n("Hello") and cost.system == 3 + n("developer") + n("Be brief.")


# --- Anthropic -----------------------------------------------------------------------------------

ORDER_TOOL = {"name": "lookup_order", "description": "Look up an order by its number.",
              "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}


@pytest.mark.parametrize(("choice", "overhead"), [(None, 496), ({"type": "auto"}, 496), ({"type": "any"}, 588),
                                                  ({"type": "tool", "name": "lookup_order"}, 588)])
def test_anthropic_tool_use_prompt_follows_tool_choice(choice, overhead):
    document = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "You are a billing assistant.",
                "tools": [ORDER_TOOL], "messages": [{"role": "user", "content": "Order 7?"}]}
    if choice is not None:
        document["tool_choice"] = choice
    cost = cost_of(document)
    body = json.dumps({k: ORDER_TOOL[k] for k in ("name", "description", "input_schema")}, separators=(",", ":"))
    assert cost.tools == n(body) + overhead
    assert cost.system == n("You are a billing assistant.")  # a parameter: no message framing
    assert not cost.exact and cost.basis == ("anthropic", "anthropic-tool-use")


def test_anthropic_provider_tools_at_their_documented_sizes():
    document = {"model": "claude-sonnet-4-5", "max_tokens": 1024,
                "tools": [{"type": "bash_20250124", "name": "bash"},
                          {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
                          {"type": "computer_20250124", "name": "computer", "display_width_px": 1024,
                           "display_height_px": 768},
                          {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
                "messages": [{"role": "user", "content": "List the files."}]}
    cost = cost_of(document)
    assert [(t.name, t.tokens) for t in cost.tool_costs] == [
        ("bash", 245), ("str_replace_based_edit_tool", 700), ("computer", 735), ("web_search", 0)]
    assert cost.unpriced == ("web_search (provider-defined tool; size not published)",)
    assert cost.tools == 245 + 700 + 735 + 496
    assert "anthropic-provider-tools" in cost.basis and "unpriced-parts" in cost.basis


def test_anthropic_ignores_thinking_of_earlier_turns():
    thinking = {"type": "thinking", "thinking": "Let me work through this carefully first.", "signature": "x"}
    earlier = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [
        {"role": "user", "content": "Is 7 prime?"},
        {"role": "assistant", "content": [thinking, {"type": "text", "text": "Yes."}]},
        {"role": "user", "content": "And 9?"}]}
    without = json.loads(json.dumps(earlier))
    without["messages"][1]["content"] = [{"type": "text", "text": "Yes."}]
    assert cost_of(earlier).total_input == cost_of(without).total_input


def test_anthropic_images_by_area():
    document = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png(750, 1000)[22:]}},
        {"type": "text", "text": "What is this?"}]}]}
    cost = cost_of(document)
    assert cost.messages == 3 + n("user") + n("What is this?") + 1000
    assert "anthropic-images" in cost.basis


# --- Gemini --------------------------------------------------------------------------------------


def test_gemini_counts_text_without_framing():
    document = {"model": "gemini-2.5-flash", "systemInstruction": {"parts": [{"text": "Talk like a pirate!"}]},
                "contents": [{"role": "user", "parts": [{"text": "Hi there"}]},
                             {"role": "model", "parts": [{"text": "Ahoy!"}]}],
                "generationConfig": {"maxOutputTokens": 200}}
    cost = cost_of(document)
    assert (cost.system, cost.messages, cost.other) == (n("Talk like a pirate!"), n("Hi there") + n("Ahoy!"), 0)
    assert cost.reserve == 200 and not cost.exact and cost.basis == ("google",)
    # The same text in an OpenAI-shaped request on a Gemini model: no framing either.
    chat = cost_of({"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "Hi there"}]})
    assert chat.total_input == n("Hi there") and "translated" in chat.basis


# --- models: unknown, none, what-if ------------------------------------------------------------------


@pytest.mark.parametrize(("model", "provider", "encoding"), [
    ("claude-opus-4-7", "anthropic", "o200k_base"), ("gemini-3-pro", "google", "o200k_base"),
    ("gpt-35-turbo-16k", "openai", "cl100k_base"), ("our-finetune-v3", None, "o200k_base")])
def test_unknown_models_are_reported_as_unknown(model, provider, encoding):
    cost = cost_of({"model": model, "messages": [{"role": "user", "content": "Hi"}]})
    assert (cost.model, cost.model_known, cost.provider, cost.encoding) == (model, False, provider, encoding)
    assert not cost.exact and "unknown-model" in cost.basis
    assert cost.window is None and cost.input_price is None and cost.pricing.output_bound is None
    assert f"unknown model `{model}`" in cost.note


def test_a_request_with_no_model_says_so():
    cost = cost_of({"messages": [{"role": "user", "content": "Hi"}]})
    assert (cost.model, cost.model_known, cost.model_from) == ("(no model)", False, "none")
    assert not cost.exact and "no-model" in cost.basis and cost.input_price is None
    assert "no model named" in cost.note
    configured = request_cost(parsed({"messages": [{"role": "user", "content": "Hi"}]}), None, "gpt-4o", None)
    assert (configured.model, configured.model_from, configured.exact) == ("gpt-4o", "config", True)


def test_what_if_model_replaces_the_requests_own():
    request = parsed({"model": "gpt-4o", "messages": WEATHER_MESSAGES, "tools": [WEATHER_TOOL]})
    claude = request_cost(request, None, None, None, model="claude-sonnet-4-5")
    assert (claude.model, claude.model_from, claude.provider) == ("claude-sonnet-4-5", "what-if", "anthropic")
    assert claude.tools > 496 and not claude.exact


def test_config_models_extend_the_table():
    request = parsed({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 10})
    cost = request_cost(request, {"our-model": {"base": "gpt-4o", "window": 20_000}}, "our-model", None)
    assert cost.window == 20_000 and cost.encoding == "o200k_base" and cost.model_known
    assert cost.window_share == pytest.approx((cost.total_input + 10) / 20_000)


# --- slots and the cacheable prefix ---------------------------------------------------------------


def seg(role: Role, text: str, index: int, slot: Slot | None = None) -> Segment:
    return Segment(role, SPAN, text, slot, index)


def test_slots_count_as_zero():
    plain = Request("r", SPAN, segments=(seg(Role.SYSTEM, "Rules.", 0), seg(Role.USER, "Q: ", 1)))
    slotted = Request("r", SPAN, segments=(
        seg(Role.SYSTEM, "Rules.", 0), seg(Role.USER, "Q: ", 1),
        seg(Role.USER, "question", 1, Slot("question", names=("question",)))))
    a = request_cost(plain, None, "gpt-4o", volatility())
    b = request_cost(slotted, None, "gpt-4o", volatility())
    assert a.total_input == b.total_input and a.messages == b.messages


def test_cacheable_prefix_ends_at_the_first_volatile_slot():
    head = "You are the support assistant for Northwind Outdoor. "
    request = Request("r", SPAN, segments=(
        seg(Role.SYSTEM, head, 0),
        seg(Role.SYSTEM, "user.name", 0, Slot("user.name", names=("user.name",))),  # dynamic, not volatile
        seg(Role.SYSTEM, " Today is ", 0),
        seg(Role.SYSTEM, "now()", 0, Slot("now()", calls=("now",))),
        seg(Role.SYSTEM, "\nAnswer briefly.", 0),
        seg(Role.USER, "Hello", 1),
    ))
    cost = request_cost(request, None, "gpt-4o", volatility())
    assert cost.cacheable_prefix == TOKENS_PER_MESSAGE + n("system") + n(head) + n(" Today is ")
    assert request_cost(request, None, "gpt-4o", None).cacheable_prefix == cost.total_input


# --- prices: caching only where it applies, output apart ----------------------------------------------

LONG = "Northwind Outdoor sells tents, stoves and sleeping bags across Europe. " * 150


def long_request(model: str, volatile: bool = True, reserve: int | None = 1000) -> Request:
    segments = [seg(Role.SYSTEM, LONG, 0)]
    if volatile:
        segments.append(seg(Role.SYSTEM, "now()", 0, Slot("now()", calls=("now",))))
    segments += [seg(Role.SYSTEM, "\nAnswer briefly.", 0), seg(Role.USER, "Hi", 1)]
    limit = OutputLimit("max_tokens", reserve, SPAN) if reserve else None
    return Request("r", SPAN, segments=tuple(segments), model=model, output_limit=limit)


def test_openai_caches_from_1024_tokens_in_128_token_steps():
    info = lookup_model("gpt-4o")
    cost = request_cost(long_request("gpt-4o"), None, None, volatility())
    prefix = cost.cacheable_prefix
    assert prefix > 1024 and (prefix - 1024) % 128  # a prefix between two steps
    cached = 1024 + (prefix - 1024) // 128 * 128
    assert cost.pricing.cached_tokens == cached
    assert cost.pricing.input == pytest.approx(cost.total_input * info.input_per_mtok / 1000)
    assert cost.pricing.cached_input == pytest.approx(
        ((cost.total_input - cached) * info.input_per_mtok + cached * info.cached_input_per_mtok) / 1000)


def test_no_caching_below_the_minimum_or_without_prompt_caching():
    short = request_cost(Request("r", SPAN, segments=(seg(Role.SYSTEM, "Be brief.", 0),), model="gpt-4o"),
                         None, None, None)
    assert short.pricing.cached_input is None and short.cached_price == short.input_price
    assert "1,024-token minimum" in short.pricing.cache_note
    legacy = request_cost(long_request("gpt-4"), None, None, volatility())
    assert legacy.pricing.cached_input is None and legacy.pricing.cache_note == "gpt-4 has no prompt caching"


def test_anthropic_caches_only_behind_breakpoints_above_the_minimum():
    system = [{"type": "text", "text": LONG, "cache_control": {"type": "ephemeral"}}]
    document = {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": system,
                "messages": [{"role": "user", "content": "{{ question }}"}]}
    cost = cost_of(document)
    assert cost.pricing.cached_tokens == n(LONG) == cost.system
    info = lookup_model("claude-sonnet-4-5")
    assert cost.pricing.cached_input == pytest.approx(
        ((cost.total_input - n(LONG)) * info.input_per_mtok + n(LONG) * info.cached_input_per_mtok) / 1000)
    unmarked = cost_of({**document, "system": LONG})
    assert unmarked.pricing.cached_input is None and unmarked.pricing.cache_note == "no cache_control breakpoint"
    small = cost_of({**document, "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]})
    assert small.pricing.cached_input is None and "1,024-token minimum" in small.pricing.cache_note


def test_gemini_implicit_caching_above_its_minimum():
    cost = request_cost(long_request("gemini-2.5-flash", volatile=False), None, None, None)
    assert cost.pricing.cached_tokens == cost.cacheable_prefix == cost.total_input > 2048


def test_output_is_priced_apart_as_a_bound_and_an_expectation():
    info = lookup_model("gpt-4o")
    limited = request_cost(long_request("gpt-4o", reserve=700), None, None, None, expected_output=250)
    p = limited.pricing
    assert (p.output_bound_tokens, p.output_bound_from) == (700, "max_tokens")
    assert p.output_bound == pytest.approx(700 * info.output_per_mtok / 1000)
    assert (p.expected_output_tokens, p.expected_output) == (250, pytest.approx(250 * info.output_per_mtok / 1000))
    assert p.input == pytest.approx(limited.total_input * info.input_per_mtok / 1000)  # input alone
    unlimited = request_cost(long_request("gpt-4o", reserve=None), None, None, None)
    assert (unlimited.pricing.output_bound_tokens, unlimited.pricing.output_bound_from) == (16_384, "model maximum")
    assert unlimited.pricing.expected_output is None


# --- the byte bound and CTX203's totals ------------------------------------------------------------


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4", "claude-sonnet-4-5", "gemini-2.5-flash", "unknown-x"])
def test_bytes_bound_the_exact_count(model):
    documents = [
        {"model": model, "messages": WEATHER_MESSAGES, "tools": [WEATHER_TOOL]},
        {"model": model, "messages": [{"role": "system", "content": "中文提示：必须用中文回答。 🎉 " * 20},
                                      {"role": "user", "content": "{{ question }}"}]},
    ]
    info = lookup_model(model)
    tokenizer = get_encoding(info.encoding if info else "o200k_base")
    for document in documents:
        request = parsed(document)
        exact = measure(request, info, lambda t: len(tokenizer.encode_ordinary(t)))
        bound = measure(request, info, utf8_bytes)
        assert bound.total_input >= exact.total_input
        assert static_tokens(request, utf8_bytes, info) == bound.total_input


def test_tool_helpers_agree_with_the_request():
    info = lookup_model("gpt-4o")
    tool = ToolDef("get_current_weather", WEATHER_TOOL["function"]["description"],
                   WEATHER_TOOL["function"]["parameters"], SPAN, WEATHER_TOOL)
    total, costs = tools_tokens([tool], info)
    assert total == n(WEATHER_NAMESPACE) + FUNCTIONS_BLOCK
    assert tool_cost_breakdown(tool, info) == costs[0]


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
    assert tool_cost_breakdown(ToolDef("deep", "", schema, SPAN, None), None).tokens > 0


def test_request_cost_is_frozen():
    cost = cost_of({"model": "gpt-4o", "messages": WEATHER_MESSAGES})
    with pytest.raises(AttributeError):
        cost.tools = 5  # type: ignore[misc]


def test_a_hosted_tool_alone_costs_nothing_by_the_token():
    from ctxlint.analysis.accounting import tool_cost_breakdown
    from ctxlint.model import Span, ToolDef

    web = ToolDef("web_search", None, None, Span.point("request.json", 4), raw={"type": "web_search"})
    cost = tool_cost_breakdown(web, None)
    assert (cost.name, cost.tokens, cost.biggest_field_tokens) == ("web_search", 0, 0)


def test_each_distinct_text_of_a_request_is_counted_once():
    message = {"role": "user", "content": "Page: {{ page }}. Answer in one line."}
    text = json.dumps({"model": "gpt-4o", "messages": [message] * 500})
    (request,) = parse_file(text, "request.json").requests
    asked: list[str] = []

    def count(piece: str) -> int:
        asked.append(piece)
        return len(piece.encode())

    once = measure(request, lookup_model("gpt-4o"), count)
    assert sorted(asked) == sorted(set(asked)) and len(asked) <= 4  # "user", "Page: ", ". Answer…"
    assert once.messages == 500 * (TOKENS_PER_MESSAGE + 4 + len("Page: ") + len(". Answer in one line."))
