"""What a count rests on: the providers' published constants, the basis codes that say why a count
is exact or an estimate, the profile a model is counted under, and the running tally of a walk."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ctxlint.model import Span
from ctxlint.tokens import (
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
    "message-unverified": "developer messages, tool calls and tool results (published counts of such conversations "
                          "disagree by a few tokens), or function messages on an o200k_base model: counted by the "
                          "chat framing",
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
    "registry-listed": "tools a framework's registry lists (MetaGPT's `@register_tool`), counted as function "
                       "tools: a class as one tool whose parameters are its methods' signatures and docstrings",
    "unpriced-parts": "audio, files, documents or hosted tools are sent but not counted (listed apart)",
    "translated": "a request written for another provider, counted as this model's provider would receive it",
    "unseen-values": "tools, system text or messages sent from values ctxlint cannot read (loaded at run time, "
                     "passed in, returned by a call): the count is a lower bound",
}
# Codes under which a count is still exact.
EXACT_BASIS = frozenset({"openai-chat", "openai-functions", "openai-images"})


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


@dataclass
class Tally:
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


def counter_for(encoding: str) -> Counter:
    return lambda text: count_tokens(text, encoding)


def remembered(count: Counter) -> Counter:
    """``count`` that counts each distinct text once. A request repeats texts (every message's
    role, an instruction or a tool description written again and again), and one measure asks
    for each of them; a counter is a pure function of the text, so the answer can be kept."""
    return functools.cache(count)
