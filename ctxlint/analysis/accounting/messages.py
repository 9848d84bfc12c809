"""A request walked in the order it is sent: message framing, text, tool calls, images and
``tool_choice``, with the cacheable prefix and the cache breakpoints on the way."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from ctxlint.analysis.accounting.basis import (
    _API_PROVIDER,
    ANTHROPIC_PIXELS_PER_TOKEN,
    ANTHROPIC_UNKNOWN_IMAGE,
    EXACT_BASIS,
    FUNCTION_CALL,
    FUNCTION_CALL_NAMED,
    FUNCTION_ROLE,
    FUNCTIONS_WITH_SYSTEM,
    GEMINI_IMAGE,
    IMAGE_TOKENS,
    REPLY_PRIMING,
    TOKENS_PER_MESSAGE,
    TOKENS_PER_NAME,
    TOOL_CALL,
    TOOL_CALLS,
    TOOL_CHOICE_NAMED,
    TOOL_CHOICE_NONE,
    UNKNOWN_IMAGE_TILES,
    Counter,
    Profile,
    Tally,
    ToolCost,
    profile_for,
    profile_of,
    remembered,
)
from ctxlint.analysis.accounting.tools import measure_tools
from ctxlint.analysis.volatility import Volatility
from ctxlint.model import Message, Part, Request, Role, Segment
from ctxlint.tokens import ModelInfo


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
    unseen: tuple[str, ...] = ()  # what the request sends from values ctxlint cannot read

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


def measure_profile(request: Request, profile: Profile, count: Counter,
                    volatility: Volatility | None = None) -> Measured:
    count = remembered(count)
    provider = profile.provider
    tally = Tally()
    _flag_model(profile, request, tally)
    unseen = unseen_parts(request)
    if unseen:
        tally.flag("unseen-values")
    choice = request.tool_choice.mode if request.tool_choice is not None else None
    tools = measure_tools(request.tools, profile, count, tally, choice)
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
                    tuple(tally.basis), tuple(tally.unpriced), unseen)


def unseen_parts(request: Request) -> tuple[str, ...]:
    """What the request sends from values the source does not show: tools the front-end could
    not read (``Request.unseen``), a system message that is nothing but a value
    (``system=system_text``), and messages that are all one value (``messages=history``).
    Other slots are the variable content every count leaves out by design."""
    out = list(request.unseen)
    wire = _wire_messages(request)
    shown = False  # whether any message text is written out in the source
    for message, segments in wire:
        role = message.role if message is not None else segments[0][1].role.value if segments else ""
        if role == Role.TOOLS.value or not segments:
            continue
        texts = [s for _, s in segments if s.slot is None and s.text.strip()]
        shown = shown or bool(texts)
        values = list(dict.fromkeys(s.slot.expression for _, s in segments if s.slot is not None))
        if role in ("system", "developer") and values and not texts:
            out.append(f"{role} text from `{', '.join(values)}`")
    rest = [s for s in request.segments if s.role not in (Role.SYSTEM, Role.DEVELOPER, Role.TOOLS)]
    whole = {s.slot.expression for s in rest if s.slot is not None and s.slot.variable_length}
    if not shown and not request.messages and len(whole) == 1 and all(s.slot is not None for s in rest):
        out.append(f"messages from `{whole.pop()}`")
    return tuple(dict.fromkeys(out))


def _flag_model(profile: Profile, request: Request, tally: Tally) -> None:
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
                 tally: Tally, system: bool, pad: bool = False) -> int:
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
                 tally: Tally, has_tools: bool) -> None:
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
        if message.name and _wire_role(role) != "tool":  # a tool message has no `name` in the API: not sent
            tally.add(count(message.name) + TOKENS_PER_NAME, system)
        if role == "function":
            tally.add(FUNCTION_ROLE, system)
        # Tool calls and tool results: the published counts of such conversations disagree with
        # each other by a few tokens (gpt-3.5-turbo and gpt-4), so no rule reproduces them all.
        if role in ("developer", "tool", "function_call_output", "function_call") or \
                role == "function" and profile.encoding != "cl100k_base":
            tally.flag("message-unverified")
        calls = [p for p in message.parts if p.kind == "tool_call"]
        if calls:
            tally.add(_tool_calls(calls, count), system)
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


def _walk_unframed(request: Request, count: Counter, volatility: Volatility | None, tally: Tally) -> None:
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


def _image_tokens(part: Part, profile: Profile, tally: Tally) -> int:
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


def _tool_choice(request: Request, profile: Profile, count: Counter, tally: Tally) -> int:
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
