"""The table of provider model facts: windows, output limits, cache minimums, prices and
Anthropic's tool-use overheads, each entry with the page it was read from and the date.

Provider numbers change every few months, so they live here, in one table, and the user's
config (``[tool.ctxlint.models."name"]``) can override or extend it (see ``lookup``).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MODEL = "gpt-4o"
PROVIDERS = ("openai", "anthropic", "google")


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelInfo:
    """What ctxlint knows about one model. Prices are USD per million tokens; None = unknown.

    ``exact`` says whether ctxlint's counts for this model reproduce counts the provider's API
    printed (see tests/reference/counts.json): True only for the OpenAI models with published
    counts. Every other model, and every request shape outside the reproduced ones, is counted
    as an estimate.
    """

    name: str
    provider: str  # one of PROVIDERS
    window: int  # context window: input + output tokens
    max_output: int
    encoding: str  # tiktoken encoding used to count
    exact: bool
    cache_min_tokens: int | None  # shortest cacheable prefix; None = no prompt caching
    input_per_mtok: float | None
    output_per_mtok: float | None
    cached_input_per_mtok: float | None  # cache read
    cache_write_multiplier: float  # cache-write price as a multiple of the input price
    tool_overhead_auto: int | None  # tokens of the provider's tool-use system prompt
    tool_overhead_any: int | None  # the same with tool_choice any or a named tool
    aliases: tuple[str, ...] = ()
    source: str  # where the prices and limits were read
    as_of: str  # when


# OpenAI's own model and pricing pages. A model's entry names the page its prices were read from.
_OPENAI_MODELS = "https://developers.openai.com/api/docs/models/"


def _openai(
    name: str,
    window: int,
    max_output: int,
    prices: tuple[float | None, float | None, float | None],
    source: str,
    as_of: str,
    *,
    aliases: tuple[str, ...] = (),
    encoding: str = "o200k_base",
    cache_min_tokens: int | None = 1024,
    exact: bool = False,
) -> ModelInfo:
    input_price, output_price, cached_price = prices
    return ModelInfo(
        name=name, provider="openai", window=window, max_output=max_output, encoding=encoding,
        exact=exact, cache_min_tokens=cache_min_tokens, input_per_mtok=input_price,
        output_per_mtok=output_price, cached_input_per_mtok=cached_price,
        cache_write_multiplier=1.0,  # OpenAI caches automatically; writes cost nothing extra
        tool_overhead_auto=None, tool_overhead_any=None, aliases=aliases, source=source, as_of=as_of,
    )


# Anthropic and Google publish no tokenizer: o200k_base gives an estimate, flagged exact=False.
_ANTHROPIC_PRICING = "https://platform.claude.com/docs/en/docs/about-claude/pricing"


def _anthropic(
    name: str,
    window: int,
    max_output: int,
    cache_min_tokens: int,
    prices: tuple[float | None, float | None, float | None],
    tool_overhead: tuple[int | None, int | None],
    *,
    aliases: tuple[str, ...] = (),
) -> ModelInfo:
    input_price, output_price, cached_price = prices
    return ModelInfo(
        name=name, provider="anthropic", window=window, max_output=max_output, encoding="o200k_base",
        exact=False, cache_min_tokens=cache_min_tokens, input_per_mtok=input_price,
        output_per_mtok=output_price, cached_input_per_mtok=cached_price,
        cache_write_multiplier=1.25,  # 5-minute writes; 1-hour writes cost 2x
        tool_overhead_auto=tool_overhead[0], tool_overhead_any=tool_overhead[1], aliases=aliases,
        source=_ANTHROPIC_PRICING, as_of="2026-11",
    )


def _google(name: str, prices: tuple[float | None, float | None, float | None]) -> ModelInfo:
    input_price, output_price, cached_price = prices
    return ModelInfo(
        name=name, provider="google", window=1_048_576, max_output=65_535, encoding="o200k_base",
        exact=False,
        # ai.google.dev/gemini-api/docs/caching (updated 2026-07-07): implicit caching from 2,048
        # tokens for both 2.5 models.
        cache_min_tokens=2048, input_per_mtok=input_price, output_per_mtok=output_price,
        cached_input_per_mtok=cached_price,
        cache_write_multiplier=1.0,  # implicit caching bills no write; explicit caches bill storage
        tool_overhead_auto=None, tool_overhead_any=None,
        # Rates for prompts up to 200k tokens (2.5 Pro charges more above that); implicit cache
        # hits are billed at 10% of the input price ("90% discount", read from Google's pricing
        # page by this source).
        source="https://deploybase.ai/articles/gemini-api-pricing", as_of="2026-01-08",
    )


# (input, output, cached input) prices in USD per million tokens. Windows and output limits come
# from the providers' model pages, cache minimums from their prompt-caching guides (OpenAI: 1,024
# tokens) and Anthropic's tool-use overheads from
# platform.claude.com/docs/en/agents-and-tools/tool-use/overview, all read 2026-11 unless a
# comment says otherwise. `exact=True` marks the OpenAI models whose counts ctxlint reproduces
# against published API counts (the cookbook and the helper libraries in tests/reference/).
MODELS: tuple[ModelInfo, ...] = (
    _openai("gpt-4o", 128_000, 16_384, (2.50, 10.00, 1.25),
            "https://github.com/CommitBrief/commitbrief/wiki/Provider-OpenAI", "2026-05-27",
            aliases=("gpt-4o-2024-08-06", "gpt-4o-2024-11-20"), exact=True),
    # Window and output limit: vercel.com/ai-gateway/models/gpt-4o-mini-fast.md.
    _openai("gpt-4o-mini", 128_000, 16_384, (0.15, 0.60, 0.075),
            "https://github.com/CommitBrief/commitbrief/wiki/Provider-OpenAI", "2026-05-27",
            aliases=("gpt-4o-mini-2024-07-18",), exact=True),
    # Prices also in GitHub's Copilot model table (github/docs data/tables/copilot/models-and-pricing.yml).
    _openai("gpt-4.1", 1_047_576, 32_768, (2.00, 8.00, 0.50),
            "https://vercel.com/ai-gateway/models/gpt-4.1/providers", "2026-11",
            aliases=("gpt-4.1-2025-04-14",)),
    # Window and output limit: vercel.com/ai-gateway/models/gpt-4.1-mini-fast.md.
    _openai("gpt-4.1-mini", 1_047_576, 32_768, (0.40, 1.60, 0.10),
            "https://vercel.com/ai-gateway/models/gpt-4.1-mini/providers", "2026-11",
            aliases=("gpt-4.1-mini-2025-04-14",)),
    # Input price also confirmed by developers.openai.com/api/docs/models/codex-mini-latest.
    _openai("o4-mini", 200_000, 100_000, (1.10, 4.40, 0.275),
            "https://github.com/RooCodeInc/Roo-Code/pull/2691.patch", "2025-04-17",
            aliases=("o4-mini-2025-04-16",)),
    # Window and output limit: vercel.com/ai-gateway/models/o3-fast.md. Cached price: sources
    # disagreed, so it is left unknown.
    _openai("o3", 200_000, 100_000, (2.00, 8.00, None),
            "https://deploybase.ai/articles/openai-pricing", "2026-03",
            aliases=("o3-2025-04-16",)),
    # Input price also confirmed by developers.openai.com/api/docs/models/gpt-5-codex; cached
    # input at 10% of the input price for the GPT-5 family (docs.rs/crate/adk-model, 2026-03).
    _openai("gpt-5", 400_000, 128_000, (1.25, 10.00, 0.125),
            "https://deploybase.ai/articles/openai-pricing", "2026-03",
            aliases=("gpt-5-2025-08-07",)),
    _openai("gpt-5-mini", 400_000, 128_000, (0.25, 2.00, 0.025),
            _OPENAI_MODELS + "gpt-5-mini", "2026-11", aliases=("gpt-5-mini-2025-08-07",)),
    # Legacy models: cl100k_base, no prompt caching (their pages list no cached price).
    _openai("gpt-4", 8_192, 8_192, (30.00, 60.00, None), _OPENAI_MODELS + "gpt-4.md", "2026-11",
            aliases=("gpt-4-0613",), encoding="cl100k_base", cache_min_tokens=None, exact=True),
    # One copy of this page says gpt-3.5-turbo was shut down on 2026-10-23. Azure names its
    # deployments of it gpt-35-turbo.
    _openai("gpt-3.5-turbo", 16_385, 4_096, (0.50, 1.50, None), _OPENAI_MODELS + "gpt-3.5-turbo.md", "2026-11",
            aliases=("gpt-3.5-turbo-0125", "gpt-35-turbo"), encoding="cl100k_base", cache_min_tokens=None,
            exact=True),
    # Dated snapshots that were priced differently from the model they belong to (OpenAI's
    # deprecations page, as copied in this source).
    _openai("gpt-3.5-turbo-1106", 16_385, 4_096, (1.00, 2.00, None),
            "https://huggingface.co/spaces/Bikatr7/Kudasai/blob/ba92d48a9ad722049a5fa030731e317740ba7270/"
            "util/openai_model_info/openai_chat_model_info.csv", "2024-03",
            encoding="cl100k_base", cache_min_tokens=None, exact=True),
    _openai("gpt-3.5-turbo-0613", 4_096, 4_096, (1.50, 2.00, None),
            "https://huggingface.co/spaces/Bikatr7/Kudasai/blob/ba92d48a9ad722049a5fa030731e317740ba7270/"
            "util/openai_model_info/openai_chat_model_info.csv", "2024-03",
            encoding="cl100k_base", cache_min_tokens=None, exact=True),
    # Tool-use overheads of the 4.6 models: /work/shared/FACTS.md, from the tool-use docs (2026-12).
    _anthropic("claude-opus-4-6", 1_000_000, 128_000, 4096, (5.00, 25.00, 0.50), (497, 589)),
    _anthropic("claude-opus-4-5", 200_000, 64_000, 4096, (5.00, 25.00, 0.50), (496, 588),
               aliases=("claude-opus-4-5-20251101",)),
    _anthropic("claude-sonnet-4-6", 1_000_000, 64_000, 2048, (3.00, 15.00, 0.30), (497, 589)),
    _anthropic("claude-sonnet-4-5", 200_000, 64_000, 1024, (3.00, 15.00, 0.30), (496, 588),
               aliases=("claude-sonnet-4-5-20250929",)),
    _anthropic("claude-sonnet-4", 200_000, 64_000, 1024, (3.00, 15.00, 0.30), (313, 315),
               aliases=("claude-sonnet-4-0", "claude-sonnet-4-20250514")),
    _anthropic("claude-opus-4-1", 200_000, 32_000, 1024, (15.00, 75.00, 1.50), (313, 315),
               aliases=("claude-opus-4-1-20250805",)),
    _anthropic("claude-opus-4", 200_000, 32_000, 1024, (15.00, 75.00, 1.50), (313, 315),
               aliases=("claude-opus-4-0", "claude-opus-4-20250514")),
    _anthropic("claude-haiku-4-5", 200_000, 64_000, 4096, (1.00, 5.00, 0.10), (496, 588),
               aliases=("claude-haiku-4-5-20251001",)),
    # Window and output limit: docs.aihubmix.com/en/api/Claude-Native (a copy of Anthropic's table).
    _anthropic("claude-3-5-haiku", 200_000, 8_192, 2048, (0.80, 4.00, 0.08), (264, 355),
               aliases=("claude-3-5-haiku-20241022", "claude-haiku-3-5")),
    _google("gemini-2.5-pro", (1.25, 10.00, 0.125)),
    _google("gemini-2.5-flash", (0.30, 2.50, 0.03)),
)

# Anthropic's tools that Anthropic defines (``{"type": "bash_20250124", "name": "bash"}``): the
# input tokens each adds. bash and text_editor: the tool-use docs (/work/shared/FACTS.md,
# 2026-12-01); computer: 735 per the computer-use docs as quoted by
# claudecodeguides.com/claude-computer-use-token-cost-breakdown (read 2026-12). The server tools
# (web search, web fetch, code execution) are billed per use and publish no token size.
PROVIDER_TOOL_TOKENS = {"bash": 245, "text_editor": 700, "computer": 735}

# Anthropic's tools that Anthropic defines (``{"type": "bash_20250124", "name": "bash"}``): the
# input tokens each adds. bash and text_editor: the tool-use docs (/work/shared/FACTS.md,
# 2026-12-01); computer: 735 per the computer-use docs as quoted by
# claudecodeguides.com/claude-computer-use-token-cost-breakdown (read 2026-12). The server tools
# (web search, web fetch, code execution) are billed per use and publish no token size.
PROVIDER_TOOL_TOKENS = {"bash": 245, "text_editor": 700, "computer": 735}
