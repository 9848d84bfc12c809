"""Token accounting of a request: what the provider bills, per part and per tool, and how sure it is.

A count is **exact** only where ctxlint reproduces counts the provider's API printed for the same
request: the OpenAI models with published counts (gpt-3.5-turbo and gpt-4 on cl100k_base,
gpt-4o and gpt-4o-mini on o200k_base) and the request shapes those counts cover. Everything else
is an **estimate**, and every count says why in ``basis``: machine-readable codes (``BASIS``
explains each). tests/reference/counts.json holds the published counts, with their sources, that
the exact rules reproduce and the estimates stay within.

**OpenAI chat completions** (the OpenAI cookbook "How to count tokens with tiktoken", and the
helper libraries openai-chat-tokens and openai-messages-token-helper, whose test counts come from
the API):

- a message costs 3 tokens of framing plus its role and its text; a ``name`` adds its tokens + 1;
  a ``function``-role message 2 fewer; every reply is primed with 3 more tokens;
- an assistant ``function_call`` adds its name and arguments + 3; one ``tool_calls`` entry adds
  its name twice, its arguments and 2; several are sent as one ``tool_uses`` JSON object + 12 +
  their number;
- tools (or legacy functions) are sent as a TypeScript ``namespace functions`` block (each tool a
  ``type name = (_: {...}) => any;`` with its description as a comment) + 9 tokens; with a
  system message present, the first one gains a trailing newline and the total drops by 4;
- ``tool_choice`` ``none`` adds 1 token, a named tool 7 + its name (``function_call``: 4 + name);
- an image costs 85 tokens at ``detail: low``; otherwise it is scaled to fit 2048×2048, then
  down to a shortest side of 768, and costs 85 + 170 per 512-pixel tile (gpt-4o-mini: 2,833 +
  5,667), from the size the image's header declares.

**Estimates.** Other OpenAI models (same framing, no published count); the Responses API
(counted as chat: instructions as a developer message, function calls and outputs as tool
turns); Anthropic and Gemini (no public tokenizer: text counted with o200k_base; Anthropic's
system prompt unframed, its tool-use system prompt added per ``tool_choice``, provider-defined
tools at their documented sizes; Gemini's text without any message framing). Audio, files,
hosted tools (web search, file search, code interpreter) and PDF documents are listed as
unpriced, never counted as 0 silently.

**Slots count as 0 tokens**: they are filled at run time, so every total here is what the
request sends *before* any variable content. Static text inside a loop counts once.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ctxlint.analysis.volatility import Volatility
from ctxlint.model import Message, Part, Request, Role, Segment, Span, ToolDef
from ctxlint.tokens import (
    PROVIDER_TOOL_TOKENS,
    ModelGuess,
    ModelInfo,
    count_tokens,
    guess_model,
    lookup_model,
)

Counter = Callable[[str], int]

# OpenAI chat framing (cookbook num_tokens_from_messages; openai-chat-tokens).
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
FUNCTION_ROLE = -2  # a function-role message: its name replaces part of the framing
REPLY_PRIMING = 3  # <|start|>assistant<|message|>
FUNCTION_CALL = 3  # an assistant's legacy function_call
TOOL_CALL = 2  # one tool_calls entry (its name is sent twice)
TOOL_CALLS = 12  # several tool_calls, sent as one tool_uses object, + 1 per call
FUNCTIONS_BLOCK = 9  # the namespace functions block
FUNCTIONS_WITH_SYSTEM = -4  # the block reuses the system message
TOOL_CHOICE_NONE = 1
TOOL_CHOICE_NAMED = 7  # tool_choice {"type": "function", "function": {"name": ...}}
FUNCTION_CALL_NAMED = 4  # legacy function_call {"name": ...}
# OpenAI images: (base, per 512-pixel tile) by model; low detail costs the base only.
IMAGE_TOKENS = {"gpt-4o": (85, 170), "gpt-4o-mini": (2833, 5667)}
UNKNOWN_IMAGE_TILES = 4  # a high-detail image of unknown size: a 768-pixel square or larger
ANTHROPIC_PIXELS_PER_TOKEN = 750  # tokens ~ width * height / 750 (vision docs)
ANTHROPIC_UNKNOWN_IMAGE = 1600  # about the most one image costs after resizing to 1.15 megapixels
GEMINI_IMAGE = 258  # per image up to 384 px, and per 768-pixel tile beyond

FALLBACK_ENCODING = "o200k_base"
_API_PROVIDER = {"openai-chat": "openai", "openai-responses": "openai", "anthropic": "anthropic", "gemini": "google"}

# Why a count is what it is. Every request lists the codes that apply: ``exact`` codes describe
# reproduced accounting, the others say what makes the count an estimate.
BASIS: dict[str, str] = {
    "openai-chat": "OpenAI chat framing, reproduced against published API counts",
    "openai-functions": "tools rendered as OpenAI's TypeScript namespace, reproduced against published API counts",
    "openai-images": "images by OpenAI's published tile formula from their declared size",
    "model-unverified": "no published API count for this model: counted with its encoding and gpt-4o's framing",
    "message-unverified": "developer messages, or function/tool messages and tool calls on an o200k_base model: "
                          "no published counts",
    "schema-unverified": "a tool schema beyond the published counts (nested objects, anyOf, number enums, "
                         "properties without descriptions): counted by the same rendering",
    "tool-choice-unverified": "tool_choice required: no published count, counted as auto",
    "image-size-unknown": f"an image of unknown size, assumed {UNKNOWN_IMAGE_TILES} tiles",
    "image-formula-unverified": "images on a model without a published image count: gpt-4o's tile formula",
    "responses-api": "the Responses API has no published counts: counted as chat completions",
    "anthropic": "Anthropic publishes no tokenizer: text counted with o200k_base, the system prompt unframed",
    "anthropic-tool-use": "Anthropic's tool-use system prompt for the request's tool_choice (tool-use docs)",
    "anthropic-tool-use-unknown": "Anthropic's tool-use system prompt for this model is not published: not included",
    "anthropic-provider-tools": "Anthropic-defined tools at their documented sizes",
    "anthropic-images": "images at about width x height / 750 tokens (vision docs)",
    "google": "Google publishes no tokenizer for Gemini: text counted with o200k_base, without message framing",
    "google-images": "images at 258 tokens per 768-pixel tile",
    "unknown-model": "a model missing from the table: counted with the encoding its name suggests",
    "no-model": "the request names no model and none is configured: counted as an OpenAI chat request",
    "tool-reference": "tools named without a definition (defined elsewhere) are counted by their name only",
    "schema-converted": "tool schemas written in zod, counted as the JSON Schema the SDK converts them to",
    "unpriced-parts": "audio, files, documents or hosted tools are sent but not counted (listed apart)",
    "translated": "a request written for another provider, counted as this model's provider would receive it",
}
# Codes under which a count is still exact.
EXACT_BASIS = frozenset({"openai-chat", "openai-functions", "openai-images"})

# Schema keywords the namespace rendering reads, or that it drops without a trace.
_PROPERTY_KEYS = frozenset({"type", "description", "enum", "items", "default"})
_OBJECT_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "description", "title",
                          "$schema"})
_PRIMITIVES = frozenset({"string", "number", "integer", "boolean", "null", "array", None})
_MAX_DEPTH = 64  # deeper schemas are rendered as `any` from there on


# --- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCost:
    """One tool's tokens, its share of all tool tokens in the request (0..1), and its costliest
    field (``description``, ``parameters.properties.unit.enum``) with that field's tokens.

    ``tokens`` excludes request-level overhead (OpenAI's namespace wrapper, Anthropic's tool-use
    system prompt), so the shares of a request's tools add up to 1.
    """

    name: str
    tokens: int
    share: float
    biggest_field: str
    biggest_field_tokens: int
    span: Span


@dataclass(frozen=True)
class Pricing:
    """What 1,000 calls of a request cost, in USD (None: the model or the price is unknown).

    ``input`` is the headline: every call sends the input. ``cached_input`` is the same with the
    provider's prompt caching, and None where it does not apply (``cache_note`` says why);
    ``cached_tokens`` are the tokens read from cache on each call. Output is priced apart: an
    upper bound from the output limit (``max_tokens``, or the model's maximum when the request
    sets none) and, with ``expected-output-tokens`` configured, an expectation.
    """

    input: float | None
    cached_input: float | None
    cached_tokens: int
    cache_note: str
    output_bound_tokens: int | None
    output_bound_from: str  # "max_tokens" (the request's key) or "model maximum"
    output_bound: float | None
    expected_output_tokens: int | None
    expected_output: float | None


@dataclass(frozen=True)
class RequestCost:
    """What one request costs before any run-time content is added (slots count as 0).

    ``tools`` includes per-tool and request-level tool overhead; ``system`` and ``messages``
    include per-message framing and the media they carry; ``other`` is the reply priming and
    ``tool_choice``; ``total_input`` is their sum. ``cacheable_prefix`` is the tokens from the
    start up to the first volatile slot (or all of them). ``exact`` is True only where the count
    reproduces published API counts; ``basis`` says on what it rests (codes of ``BASIS``),
    ``note`` the same in words. ``unpriced`` lists what the request sends but is not counted.
    """

    path: str
    line: int
    model: str
    model_known: bool
    provider: str | None
    encoding: str
    exact: bool
    basis: tuple[str, ...]
    tools: int
    tool_costs: tuple[ToolCost, ...]
    system: int
    messages: int
    other: int
    reserve: int
    total_input: int
    cacheable_prefix: int
    window: int | None
    window_share: float | None
    pricing: Pricing
    unpriced: tuple[str, ...] = ()
    note: str = ""
    model_from: str = "request"  # request, config (its `model`), what-if (--model) or none
    cell: int | None = None  # the notebook cell that `line` counts in (None outside notebooks)

    @property
    def input_price(self) -> float | None:
        return self.pricing.input

    @property
    def cached_price(self) -> float | None:
        """The price with caching, or the input price where caching does not apply."""
        return self.pricing.cached_input if self.pricing.cached_input is not None else self.pricing.input


# --- profiles: how a model's requests are counted -----------------------------------------------


@dataclass(frozen=True)
class Profile:
    """Who counts a request, and how: the model (known or guessed) and its provider's rules."""

    model: str  # the name the report shows
    info: ModelInfo | None  # the table entry; None for an unknown model or no model
    provider: str | None  # openai, anthropic, google; None when unknown
    encoding: str
    guess: ModelGuess | None = None
    no_model: bool = False

    @property
    def exact(self) -> bool:
        return self.info is not None and self.info.exact


def profile_for(name: str | None, models: Mapping | None = None, api: str | None = None) -> Profile:
    """The profile of the model called ``name`` (None: the request names none).

    A model missing from the table keeps its own name; its provider and encoding are guessed from
    the name (``tokens.guess_model``), never borrowed from a default model.
    """
    if not name:
        provider = "anthropic" if api == "anthropic" else "openai"
        return Profile("(no model)", None, provider, FALLBACK_ENCODING, no_model=True)
    info = lookup_model(name, models)
    if info is not None:
        return Profile(info.name, info, info.provider, info.encoding)
    guess = guess_model(name)
    guessed = guess.provider or ("anthropic" if api == "anthropic" else None)
    return Profile(name, None, guessed, guess.encoding, guess)


def profile_of(info: ModelInfo | None) -> Profile:
    """A profile from a table entry (None: OpenAI's accounting with o200k_base, as an estimate)."""
    if info is None:
        return Profile("(no model)", None, "openai", FALLBACK_ENCODING, no_model=True)
    return Profile(info.name, info, info.provider, info.encoding)


# --- public API --------------------------------------------------------------------------------


def request_cost(request: Request, models: Mapping | None, default_model: str | None,
                 volatility: Volatility | None, *, model: str | None = None,
                 expected_output: int | None = None) -> RequestCost:
    """Token accounting and prices of ``request``.

    The model is ``model`` when given (a what-if audit), else the request's own, else
    ``default_model`` (the config's ``model``); with none of them the request is counted as an
    estimate and left unpriced. ``models`` is the config's ``[tool.ctxlint.models]``;
    ``volatility`` says which slots end the cacheable prefix; ``expected_output`` is the
    configured expected answer length.
    """
    name = model or request.model or default_model
    profile = profile_for(name, models, request.api)
    count = _counter(profile.encoding)
    measured = measure_profile(request, profile, count, volatility)
    limit = request.output_limit
    reserve = limit.value if limit is not None and limit.value is not None and limit.value > 0 else 0
    info = profile.info
    window = info.window if info is not None else None
    total = measured.total_input
    return RequestCost(
        path=request.path,
        line=request.anchor.line,
        cell=request.anchor.cell,
        model=profile.model,
        model_known=info is not None,
        provider=profile.provider,
        encoding=profile.encoding,
        exact=measured.exact,
        basis=measured.basis,
        tools=measured.tools,
        tool_costs=measured.tool_costs,
        system=measured.system,
        messages=measured.messages,
        other=measured.other,
        reserve=reserve,
        total_input=total,
        cacheable_prefix=measured.prefix,
        window=window,
        window_share=(total + reserve) / window if window else None,
        pricing=_pricing(profile, measured, reserve, limit.key if limit is not None and reserve else "",
                         expected_output),
        unpriced=measured.unpriced,
        note=_note(profile, measured),
        model_from="what-if" if model else "request" if request.model else "config" if default_model else "none",
    )


def tool_cost_breakdown(tool: ToolDef, model: ModelInfo | None, *, count: Counter | None = None) -> ToolCost:
    """One tool's tokens under ``model``'s accounting (None: OpenAI's, with o200k_base).

    Alone, a tool's ``share`` is 1.0; ``request_cost`` sets it against the request's other
    tools. ``count`` replaces the tokenizer (``len(text.encode())`` gives a cheap upper bound).
    """
    profile = profile_of(model)
    costs = _tools([tool], profile, count or _counter(profile.encoding), None).costs
    # A hosted tool (OpenAI's web_search) has no definition the request pays for by the token.
    return costs[0] if costs else ToolCost(tool.name or "", 0, 0.0, "name", 0, tool.span)


def tools_tokens(tools: Sequence[ToolDef], model: ModelInfo | None, *,
                 count: Counter | None = None) -> tuple[int, tuple[ToolCost, ...]]:
    """All tool tokens of one request including request-level overhead, and each tool's cost."""
    profile = profile_of(model)
    measured = _tools(tools, profile, _remembered(count or _counter(profile.encoding)), None)
    return measured.total, measured.costs


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


def describe_basis(codes: Iterable[str]) -> str:
    return "; ".join(BASIS.get(code, code) for code in codes)


# --- measuring -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    """Totals of one request under one counter (exact tokens, or a byte upper bound)."""

    tools: int
    tool_costs: tuple[ToolCost, ...]
    system: int
    messages: int
    other: int
    prefix: int  # tokens up to the first volatile slot
    breakpoints: tuple[int, ...]  # tokens up to each cache_control breakpoint, in order
    basis: tuple[str, ...]
    unpriced: tuple[str, ...] = ()

    @property
    def total_input(self) -> int:
        return self.tools + self.system + self.messages + self.other

    @property
    def exact(self) -> bool:
        return all(code in EXACT_BASIS for code in self.basis)


def measure(request: Request, info: ModelInfo | None, count: Counter,
            volatility: Volatility | None = None) -> Measured:
    """Every total of ``request`` under ``info``'s accounting, with ``count`` as the tokenizer.

    All constants are the same whatever ``count`` is and every text term grows with it, so a
    counter that over-counts (UTF-8 bytes: a token covers at least one byte) gives an upper
    bound of the exact totals without loading a tokenizer.
    """
    profile = profile_of(info) if info is not None else profile_for(request.model, None, request.api)
    return measure_profile(request, profile, count, volatility)


@dataclass
class _Tally:
    """Running totals while a request is walked in the order it is sent."""

    system: int = 0
    messages: int = 0
    running: int = 0  # tokens sent so far
    prefix: int | None = None
    basis: list[str] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)
    segment_end: dict[int, int] = field(default_factory=dict)  # segment position -> tokens sent through it

    def flag(self, code: str) -> None:
        if code not in self.basis:
            self.basis.append(code)

    def add(self, tokens: int, system: bool) -> None:
        if system:
            self.system += tokens
        else:
            self.messages += tokens
        self.running += tokens


def measure_profile(request: Request, profile: Profile, count: Counter,
                    volatility: Volatility | None = None) -> Measured:
    count = _remembered(count)
    provider = profile.provider
    tally = _Tally()
    _flag_model(profile, request, tally)
    choice = request.tool_choice.mode if request.tool_choice is not None else None
    tools = _tools(request.tools, profile, count, tally, choice)
    tally.running = tools.total
    tool_breakpoints = [tools.position(bp.span) for bp in request.breakpoints if bp.covers == 0]
    if provider == "google":
        _walk_unframed(request, count, volatility, tally)
        other = 0
    else:
        _walk_framed(request, profile, count, volatility, tally, bool(request.tools))
        other = REPLY_PRIMING + _tool_choice(request, profile, count, tally)
    total_tools = tools.total
    if provider in ("openai", None) and request.tools and "system" in _message_roles(request):
        total_tools += FUNCTIONS_WITH_SYSTEM  # the namespace block reuses the system message
    prefix = tally.prefix if tally.prefix is not None else total_tools + tally.system + tally.messages + other
    segment_breakpoints = [tally.segment_end.get(bp.covers - 1, 0) for bp in request.breakpoints if bp.covers > 0]
    return Measured(total_tools, tools.costs, tally.system, tally.messages, other, prefix,
                    tuple(sorted(p for p in tool_breakpoints + segment_breakpoints if p > 0)),
                    tuple(tally.basis), tuple(tally.unpriced))


def _flag_model(profile: Profile, request: Request, tally: _Tally) -> None:
    if profile.no_model:
        tally.flag("no-model")
    elif profile.info is None:
        tally.flag("unknown-model")
    if profile.provider == "anthropic":
        tally.flag("anthropic")
    elif profile.provider == "google":
        tally.flag("google")
    elif profile.info is not None and not profile.info.exact:
        tally.flag("model-unverified")
    if request.api == "openai-responses":
        tally.flag("responses-api")
    written_for = _API_PROVIDER.get(request.api or "")
    if written_for and profile.provider and written_for != profile.provider:
        tally.flag("translated")
    if not tally.basis:
        tally.flag("openai-chat")


def _message_roles(request: Request) -> list[str]:
    if request.messages:
        return [m.role for m in request.messages]
    return [group[0].role.value for group in _groups(request.segments)]


def _groups(segments: Sequence[Segment]) -> list[list[Segment]]:
    """Segments grouped into messages: a run with one ``message_index`` is one message."""
    groups: list[list[Segment]] = []
    for segment in segments:
        if groups and groups[-1][0].message_index == segment.message_index and \
                (groups[-1][0].role is Role.TOOLS) == (segment.role is Role.TOOLS):
            groups[-1].append(segment)
        else:
            groups.append([segment])
    return groups


def _wire_messages(request: Request) -> list[tuple[Message | None, list[tuple[int, Segment]]]]:
    """Each message in send order with its segments (and their positions in the request).

    Requests from request files list every message (``Request.messages``), text or not;
    templates and code only have segments, grouped by ``message_index``.
    """
    indexed = list(enumerate(request.segments))
    if not request.messages:
        out: list[tuple[Message | None, list[tuple[int, Segment]]]] = []
        for pos, segment in indexed:
            if out and out[-1][1][-1][1].message_index == segment.message_index and \
                    (out[-1][1][-1][1].role is Role.TOOLS) == (segment.role is Role.TOOLS):
                out[-1][1].append((pos, segment))
            else:
                out.append((None, [(pos, segment)]))
        return out
    by_index: dict[int, list[tuple[int, Segment]]] = {}
    for pos, segment in indexed:
        by_index.setdefault(segment.message_index, []).append((pos, segment))
    return [(m, by_index.pop(m.index, [])) for m in request.messages] + \
        [(None, group) for _, group in sorted(by_index.items())]


def _text_tokens(segments: list[tuple[int, Segment]], count: Counter, volatility: Volatility | None,
                 tally: _Tally, system: bool, pad: bool = False) -> int:
    """The message's static text, in order; the first volatile slot ends the cacheable prefix."""
    size = 0
    last_static = None
    for pos, segment in segments:
        if segment.slot is not None:
            if tally.prefix is None and (segment.slot.opaque or  # nothing says how often it changes
                                         volatility is not None and volatility.reason(segment.slot)):
                tally.prefix = tally.running
        else:
            tokens = count(segment.text)
            size += tokens
            tally.add(tokens, system)
            last_static = segment
        tally.segment_end[pos] = tally.running
    if pad and last_static is not None and segments[-1][1] is last_static:
        # With functions, OpenAI ends the first system message with a newline.
        extra = count(last_static.text + "\n") - count(last_static.text)
        size += extra
        tally.add(extra, system)
    return size


def _walk_framed(request: Request, profile: Profile, count: Counter, volatility: Volatility | None,
                 tally: _Tally, has_tools: bool) -> None:
    """OpenAI-style messages: each framed with its role; Anthropic's system parameter unframed."""
    anthropic = profile.provider == "anthropic"
    padded = not (has_tools and profile.provider in ("openai", None))
    last = len(request.messages) - 1
    for position, (message, segments) in enumerate(_wire_messages(request)):
        role = message.role if message is not None else segments[0][1].role.value
        if role == Role.TOOLS.value:  # tool text written as prompt text: part of the tools, unframed
            _text_tokens(segments, count, volatility, tally, False)
            continue
        system = role in ("system", "developer")
        if not (anthropic and system):  # Anthropic's system prompt is a parameter, not a message
            tally.add(TOKENS_PER_MESSAGE + count(_wire_role(role)), system)
        pad = not padded and role == "system"
        padded = padded or role == "system"
        _text_tokens(segments, count, volatility, tally, system, pad)
        if message is None:
            continue
        if message.name:
            tally.add(count(message.name) + TOKENS_PER_NAME, system)
        if role == "function":
            tally.add(FUNCTION_ROLE, system)
        if role == "developer" or role in ("function", "tool", "function_call_output", "function_call") \
                and profile.encoding != "cl100k_base":
            tally.flag("message-unverified")
        calls = [p for p in message.parts if p.kind == "tool_call"]
        if calls:
            tally.add(_tool_calls(calls, count), system)
            if profile.encoding != "cl100k_base":
                tally.flag("message-unverified")
        for part in message.parts:
            if part.kind == "function_call":
                tally.add(count(part.name) + count(part.text) + FUNCTION_CALL, system)
                if profile.encoding != "cl100k_base":
                    tally.flag("message-unverified")
            elif part.kind == "image":
                tally.add(_image_tokens(part, profile, tally), system)
            elif part.kind == "thinking":
                # Anthropic ignores thinking blocks of earlier assistant turns; the current turn's count.
                if position == last or not anthropic:
                    tally.add(count(part.text), system)
            elif part.kind != "tool_call":
                tally.unpriced.append(f"{part.kind} ({message.role} message)")
                tally.flag("unpriced-parts")


def _wire_role(role: str) -> str:
    """The role a message is framed with (Responses items are sent as tool turns)."""
    if role in ("function_call", "custom_tool_call"):
        return "assistant"
    if role.endswith("_output"):
        return "tool"
    return role


def _walk_unframed(request: Request, count: Counter, volatility: Volatility | None, tally: _Tally) -> None:
    """Gemini: the text of the system instruction and the turns, with no framing."""
    for message, segments in _wire_messages(request):
        system = (message.role if message is not None else segments[0][1].role.value) in ("system", "developer")
        _text_tokens(segments, count, volatility, tally, system)
        for part in message.parts if message is not None else ():
            if part.kind == "image":
                tally.flag("google-images")
                tiles = 1 if part.width is None or part.height is None or max(part.width, part.height) <= 384 else \
                    math.ceil(part.width / 768) * math.ceil(part.height / 768)
                tally.add(GEMINI_IMAGE * tiles, system)
            elif part.kind in ("tool_call", "function_call"):
                tally.add(count(part.name) + count(part.text), system)
            else:
                tally.unpriced.append(f"{part.kind} ({message.role if message else 'user'} message)")
                tally.flag("unpriced-parts")


def _tool_calls(calls: list[Part], count: Counter) -> int:
    """An assistant turn's tool calls (openai-chat-tokens, from forum measurements of the API)."""
    if len(calls) == 1:
        call = calls[0]
        return count(call.name + call.text) + count(call.name) + TOOL_CALL
    uses = json.dumps({"tool_uses": [{"recipient_name": c.name, "parameters": c.text} for c in calls]},
                      ensure_ascii=False, separators=(",", ":"))
    return count(uses) + TOOL_CALLS + len(calls)


def _image_tokens(part: Part, profile: Profile, tally: _Tally) -> int:
    if profile.provider == "anthropic":
        tally.flag("anthropic-images")
        if part.width is None or part.height is None:
            return ANTHROPIC_UNKNOWN_IMAGE
        width, height = part.width, part.height
        scale = min(1.0, 1568 / max(width, height), math.sqrt(1_150_000 / (width * height)))
        return max(1, math.ceil(width * scale * height * scale / ANTHROPIC_PIXELS_PER_TOKEN))
    info = profile.info
    base, tile = IMAGE_TOKENS.get(info.name if info is not None else "", (0, 0))
    if not base:
        base, tile = IMAGE_TOKENS["gpt-4o"]
        tally.flag("image-formula-unverified")
    tally.flag("openai-images")
    if part.detail == "low":
        return base
    if part.width is None or part.height is None:
        tally.flag("image-size-unknown")
        return base + tile * UNKNOWN_IMAGE_TILES
    return base + tile * image_tiles(part.width, part.height)


def image_tiles(width: int, height: int) -> int:
    """512-pixel tiles of a high-detail image: fit 2048x2048, then shortest side at most 768."""
    if max(width, height) > 2048:
        ratio = 2048 / max(width, height)
        width, height = int(width * ratio), int(height * ratio)
    if min(width, height) > 768:
        ratio = 768 / min(width, height)
        width, height = int(width * ratio), int(height * ratio)
    return math.ceil(width / 512) * math.ceil(height / 512)


def _tool_choice(request: Request, profile: Profile, count: Counter, tally: _Tally) -> int:
    choice = request.tool_choice
    if choice is None or not request.tools or profile.provider != "openai":
        return 0
    if choice.mode == "none":
        return TOOL_CHOICE_NONE
    if choice.mode == "tool" and choice.name:
        named = FUNCTION_CALL_NAMED if choice.key == "function_call" else TOOL_CHOICE_NAMED
        return named + count(choice.name)
    if choice.mode == "required":
        tally.flag("tool-choice-unverified")
    return 0


# --- prices ---------------------------------------------------------------------------------------


def _pricing(profile: Profile, measured: Measured, reserve: int, limit_key: str,
             expected_output: int | None) -> Pricing:
    info = profile.info
    total = measured.total_input
    per_1k = 1000 / 1_000_000
    input_price = total * info.input_per_mtok * per_1k if info is not None and info.input_per_mtok is not None else None
    cached_tokens, note = cached_prefix(profile, measured)
    cached_price = None
    if (cached_tokens and info is not None and info.input_per_mtok is not None
            and info.cached_input_per_mtok is not None):
        cached_price = ((total - cached_tokens) * info.input_per_mtok + cached_tokens * info.cached_input_per_mtok) \
            * per_1k
    output = info.output_per_mtok if info is not None else None
    if reserve:
        bound_tokens, bound_from = reserve, limit_key
    elif info is not None:
        bound_tokens, bound_from = info.max_output, "model maximum"
    else:
        bound_tokens, bound_from = None, ""
    return Pricing(
        input=input_price,
        cached_input=cached_price,
        cached_tokens=cached_tokens if cached_price is not None else 0,
        cache_note=note,
        output_bound_tokens=bound_tokens,
        output_bound_from=bound_from,
        output_bound=bound_tokens * output * per_1k if bound_tokens is not None and output is not None else None,
        expected_output_tokens=expected_output,
        expected_output=expected_output * output * per_1k if expected_output and output is not None else None,
    )


def cached_prefix(profile: Profile, measured: Measured) -> tuple[int, str]:
    """Tokens the provider reads from cache on each call, by its rules, and why when none.

    OpenAI caches automatically from 1,024 tokens, in 128-token steps; Anthropic only what a
    ``cache_control`` breakpoint covers, before the first volatile slot and from the model's
    minimum; Gemini (implicit caching) the stable prefix from the model's minimum.
    """
    info = profile.info
    if info is None:
        return 0, "model unknown"
    if info.cache_min_tokens is None:
        return 0, f"{info.name} has no prompt caching"
    if info.cached_input_per_mtok is None:
        return 0, f"{info.name}'s cached-input price is unknown"
    minimum = info.cache_min_tokens
    if profile.provider == "anthropic":
        covered = [p for p in measured.breakpoints if p <= measured.prefix]
        if not measured.breakpoints:
            return 0, "no cache_control breakpoint"
        if not covered:
            return 0, "every cache_control breakpoint follows a value that changes per call"
        if covered[-1] < minimum:
            return 0, f"the cached prefix is under {info.name}'s {minimum:,}-token minimum"
        return covered[-1], ""
    if measured.prefix < minimum:
        return 0, f"the stable prefix is under the {minimum:,}-token minimum"
    if profile.provider == "openai":
        return minimum + (measured.prefix - minimum) // 128 * 128, ""
    return measured.prefix, ""


def _note(profile: Profile, measured: Measured) -> str:
    parts = []
    if profile.guess is not None:
        who = profile.guess.provider or "an unknown provider"
        parts.append(f"unknown model `{profile.model}` ({profile.guess.reason}; provider {who}, counted with "
                     f"{profile.encoding}); window and prices unknown")
    elif profile.no_model:
        parts.append("no model named: set `model` in the config or in the request to price it")
    estimate = [code for code in measured.basis
                if code not in EXACT_BASIS and code not in ("unknown-model", "no-model")]
    if estimate:
        parts.append("estimate: " + describe_basis(estimate))
    if measured.unpriced:
        parts.append("not counted: " + ", ".join(dict.fromkeys(measured.unpriced)))
    return "; ".join(parts)


def _counter(encoding: str) -> Counter:
    return lambda text: count_tokens(text, encoding)


def _remembered(count: Counter) -> Counter:
    """``count`` that counts each distinct text once. A request repeats texts (every message's
    role, an instruction or a tool description written again and again), and one measure asks
    for each of them; a counter is a pure function of the text, so the answer can be kept."""
    return functools.cache(count)


# --- tools -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ToolsMeasure:
    total: int  # with request-level overhead
    costs: tuple[ToolCost, ...]
    ends: tuple[tuple[Span, int], ...]  # each tool's span and the tokens sent through it

    def position(self, span: Span) -> int:
        """Tokens sent through the tool at ``span`` (a cache_control breakpoint on a tool)."""
        for tool_span, end in self.ends:
            if tool_span.line <= span.line <= tool_span.end_line:
                return end
        return self.total


def _tools(tools: Sequence[ToolDef], profile: Profile, count: Counter, tally: _Tally | None,
           choice: str | None = None) -> _ToolsMeasure:
    if not tools:
        return _ToolsMeasure(0, (), ())
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
    return _ToolsMeasure(tool_sum + overhead, shared, tuple(ends))


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
        if tool.schema_estimate:  # a zod schema turned into the JSON Schema the SDK would send
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
        if tool.schema_estimate:
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


__all__ = [
    "BASIS", "EXACT_BASIS", "FUNCTIONS_BLOCK", "REPLY_PRIMING", "TOKENS_PER_MESSAGE", "Measured", "Pricing",
    "Profile", "RequestCost", "ToolCost", "cached_prefix", "chat_message_tokens", "describe_basis", "image_tiles",
    "measure", "measure_profile", "profile_for", "profile_of", "request_cost", "schema_prefix", "tool_cost_breakdown",
    "tools_tokens",
]
