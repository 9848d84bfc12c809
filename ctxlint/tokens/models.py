"""The table of provider model facts: windows, output limits, cache minimums, prices and
Anthropic's tool-use overheads, each entry with the page it was read from and the date.

Provider numbers change every few months, so they live here, in one table, and the user's
config (``[tool.ctxlint.models."name"]``) can override or extend it (see ``lookup``).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MODEL = "gpt-4o"
PROVIDERS = ("openai", "anthropic", "google")


# The figures a model entry gives, each with the page it was read from (``ModelInfo.sources``).
FIGURES = ("window", "max-output", "input", "cached", "output", "cache-min")
# Pages of the providers themselves; every other source is a copy or a reseller's table, shown
# as such by `ctxlint models`.
_PROVIDER_SITES = ("openai.com", "anthropic.com", "claude.com", "ai.google.dev", "cloud.google.com")


def from_provider(url: str) -> bool:
    """Whether ``url`` is a page of a model provider (not a copy of one)."""
    host = url.split("://", 1)[-1].split("/", 1)[0].lower()
    return any(host == site or host.endswith("." + site) for site in _PROVIDER_SITES)


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
    source: str  # where the figures were read that ``sources`` does not name
    as_of: str  # when
    # (figures, page, date read) for figures read elsewhere than ``source``: "window max-output"
    sources: tuple[tuple[str, str, str], ...] = ()
    status: str = ""  # "retired 2025-10-28": the provider no longer serves it

    def source_of(self, figure: str) -> tuple[str, str]:
        """The page one of ``FIGURES`` was read from, and when."""
        for figures, page, as_of in self.sources:
            if figure in figures.split():
                return page, as_of
        return self.source, self.as_of


# OpenAI's own model and pricing pages. A model's entry names the page its prices were read from.
_OPENAI_MODELS = "https://developers.openai.com/api/docs/models/"
_OPENAI_CACHING = ("cache-min", "https://developers.openai.com/api/docs/guides/prompt-caching", "2026-11")
_VERCEL = "https://vercel.com/ai-gateway/models/"  # Vercel's AI Gateway model cards (a reseller)
_COMMITBRIEF = "https://github.com/CommitBrief/commitbrief/wiki/Provider-OpenAI"
_KUDASAI = ("https://huggingface.co/spaces/Bikatr7/Kudasai/blob/ba92d48a9ad722049a5fa030731e317740ba7270/"
            "util/openai_model_info/openai_chat_model_info.csv")


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
    sources: tuple[tuple[str, str, str], ...] = (),
) -> ModelInfo:
    input_price, output_price, cached_price = prices
    if cache_min_tokens is not None:
        sources = (*sources, _OPENAI_CACHING)
    return ModelInfo(
        name=name, provider="openai", window=window, max_output=max_output, encoding=encoding,
        exact=exact, cache_min_tokens=cache_min_tokens, input_per_mtok=input_price,
        output_per_mtok=output_price, cached_input_per_mtok=cached_price,
        cache_write_multiplier=1.0,  # OpenAI caches automatically; writes cost nothing extra
        tool_overhead_auto=None, tool_overhead_any=None, aliases=aliases, source=source, as_of=as_of,
        sources=sources,
    )


# Anthropic and Google publish no tokenizer: o200k_base gives an estimate, flagged exact=False.
_ANTHROPIC_PRICING = "https://platform.claude.com/docs/en/docs/about-claude/pricing"
_ANTHROPIC_PAGES = (
    ("window max-output", "https://platform.claude.com/docs/en/about-claude/models/overview", "2026-11"),
    ("cache-min", "https://platform.claude.com/docs/en/docs/build-with-claude/prompt-caching", "2026-11"),
)
# The pricing page as it stood before Claude 4.5, which still priced Sonnet 3.5 and 3.7 (a stored
# copy read 2026-12-03); Anthropic's table of windows from the same time, as copied by a reseller.
_ANTHROPIC_OLD_PRICING = "https://docs.anthropic.com/en/docs/about-claude/pricing"
_AIHUBMIX = "https://docs.aihubmix.com/en/api/Claude-Native"


def _anthropic(
    name: str,
    window: int,
    max_output: int,
    cache_min_tokens: int,
    prices: tuple[float | None, float | None, float | None],
    tool_overhead: tuple[int | None, int | None],
    *,
    aliases: tuple[str, ...] = (),
    source: tuple[str, str] = (_ANTHROPIC_PRICING, "2026-11"),
    sources: tuple[tuple[str, str, str], ...] = _ANTHROPIC_PAGES,
    status: str = "",
) -> ModelInfo:
    input_price, output_price, cached_price = prices
    return ModelInfo(
        name=name, provider="anthropic", window=window, max_output=max_output, encoding="o200k_base",
        exact=False, cache_min_tokens=cache_min_tokens, input_per_mtok=input_price,
        output_per_mtok=output_price, cached_input_per_mtok=cached_price,
        cache_write_multiplier=1.25,  # 5-minute writes; 1-hour writes cost 2x
        tool_overhead_auto=tool_overhead[0], tool_overhead_any=tool_overhead[1], aliases=aliases,
        source=source[0], as_of=source[1], sources=sources, status=status,
    )


def _google(name: str, prices: tuple[float | None, float | None, float | None]) -> ModelInfo:
    input_price, output_price, cached_price = prices
    return ModelInfo(
        name=name, provider="google", window=1_048_576, max_output=65_535, encoding="o200k_base",
        exact=False,
        # Implicit caching from 2,048 tokens for both 2.5 models (the caching page, updated 2026-07-07).
        cache_min_tokens=2048, input_per_mtok=input_price, output_per_mtok=output_price,
        cached_input_per_mtok=cached_price,
        cache_write_multiplier=1.0,  # implicit caching bills no write; explicit caches bill storage
        tool_overhead_auto=None, tool_overhead_any=None,
        # Rates for prompts up to 200k tokens (2.5 Pro charges more above that); implicit cache
        # hits are billed at 10% of the input price ("90% discount", read from Google's pricing
        # page by this source). Google's own pricing page was not found to read them from.
        source="https://deploybase.ai/articles/gemini-api-pricing", as_of="2026-01-08",
        sources=(("window max-output", "https://ai.google.dev/gemini-api/docs/models", "2026-11"),
                 ("cache-min", "https://ai.google.dev/gemini-api/docs/caching", "2026-11")),
    )


# (input, output, cached input) prices in USD per million tokens; each entry names the pages its
# figures were read from and when (``ctxlint models`` lists them, marking those that are not the
# provider's own). Anthropic's tool-use overheads come from
# platform.claude.com/docs/en/agents-and-tools/tool-use/overview (2026-11). `exact=True` marks the
# OpenAI models whose counts ctxlint reproduces against published API counts (the cookbook and
# the helper libraries in tests/reference/).
MODELS: tuple[ModelInfo, ...] = (
    _openai("gpt-4o", 128_000, 16_384, (2.50, 10.00, 1.25), _COMMITBRIEF, "2026-05-27",
            aliases=("gpt-4o-2024-08-06", "gpt-4o-2024-11-20"), exact=True,
            sources=(("window max-output", _VERCEL + "gpt-4o.md", "2026-12-03"),)),
    _openai("gpt-4o-mini", 128_000, 16_384, (0.15, 0.60, 0.075), _COMMITBRIEF, "2026-05-27",
            aliases=("gpt-4o-mini-2024-07-18",), exact=True,
            sources=(("window max-output", _VERCEL + "gpt-4o-mini-fast.md", "2026-11"),)),
    # Prices also in GitHub's Copilot model table (github/docs data/tables/copilot/models-and-pricing.yml).
    _openai("gpt-4.1", 1_047_576, 32_768, (2.00, 8.00, 0.50), _VERCEL + "gpt-4.1/providers", "2026-11",
            aliases=("gpt-4.1-2025-04-14",),
            sources=(("window max-output", _VERCEL + "gpt-4.1-fast.md", "2026-12-03"),)),
    _openai("gpt-4.1-mini", 1_047_576, 32_768, (0.40, 1.60, 0.10), _VERCEL + "gpt-4.1-mini/providers", "2026-11",
            aliases=("gpt-4.1-mini-2025-04-14",),
            sources=(("window max-output", _VERCEL + "gpt-4.1-mini-fast.md", "2026-11"),)),
    # OpenAI's page in its Korean locale (the figures are the same on every locale).
    _openai("gpt-4.1-nano", 1_047_576, 32_768, (0.10, 0.40, 0.025),
            "https://developers.openai.com/ko-KR/api/docs/models/gpt-4.1-nano", "2026-12-03"),
    # Input price also confirmed by developers.openai.com/api/docs/models/codex-mini-latest.
    _openai("o4-mini", 200_000, 100_000, (1.10, 4.40, 0.275),
            "https://github.com/RooCodeInc/Roo-Code/pull/2691.patch", "2025-04-17",
            aliases=("o4-mini-2025-04-16",)),
    # Cached price: sources disagreed, so it is left unknown.
    _openai("o3", 200_000, 100_000, (2.00, 8.00, None), "https://deploybase.ai/articles/openai-pricing", "2026-03",
            aliases=("o3-2025-04-16",), sources=(("window max-output", _VERCEL + "o3-fast.md", "2026-11"),)),
    # Input price also confirmed by developers.openai.com/api/docs/models/gpt-5-codex.
    _openai("gpt-5", 400_000, 128_000, (1.25, 10.00, 0.125), "https://deploybase.ai/articles/openai-pricing", "2026-03",
            aliases=("gpt-5-2025-08-07",),
            # 10% of the input price for the GPT-5 family.
            sources=(("cached", "https://docs.rs/crate/adk-model", "2026-03"),)),
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
    _openai("gpt-3.5-turbo-1106", 16_385, 4_096, (1.00, 2.00, None), _KUDASAI, "2024-03",
            encoding="cl100k_base", cache_min_tokens=None, exact=True),
    _openai("gpt-3.5-turbo-0613", 4_096, 4_096, (1.50, 2.00, None), _KUDASAI, "2024-03",
            encoding="cl100k_base", cache_min_tokens=None, exact=True),
    # Tool-use overheads of the 4.6 models: the tool-use docs (2026-12).
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
    _anthropic("claude-3-5-haiku", 200_000, 8_192, 2048, (0.80, 4.00, 0.08), (264, 355),
               aliases=("claude-3-5-haiku-20241022", "claude-haiku-3-5"),
               sources=(("window max-output", _AIHUBMIX, "2026-11"), _ANTHROPIC_PAGES[1])),
    # Sonnet 3.7 (200k window, 64k output; 128k with a beta header) and Sonnet 3.5 are gone from
    # Anthropic's current pages: the release notes (docs.claude.com/en/release-notes/overview)
    # deprecated 3.7 and retired 3.5 on 2025-10-28. Their tool-use overheads were not found.
    _anthropic("claude-3-7-sonnet", 200_000, 64_000, 1024, (3.00, 15.00, 0.30), (None, None),
               aliases=("claude-3-7-sonnet-20250219", "claude-sonnet-3-7"),
               source=(_ANTHROPIC_OLD_PRICING, "2026-12-03"),
               sources=(("window max-output", _AIHUBMIX, "2026-12-03"),
                        # Anthropic's prompt-caching page, as quoted in an issue of its SDK
                        ("cache-min", "https://github.com/anthropics/anthropic-sdk-python/issues/1194", "2026-12-03")),
               status="deprecated 2025-10-28"),
    _anthropic("claude-3-5-sonnet", 200_000, 8_192, 1024, (3.00, 15.00, 0.30), (None, None),
               aliases=("claude-3-5-sonnet-20241022", "claude-3-5-sonnet-20240620", "claude-3-5-sonnet-v2",
                        "claude-sonnet-3-5"),
               source=(_ANTHROPIC_OLD_PRICING, "2026-12-03"),
               sources=(("window max-output", _AIHUBMIX, "2026-12-03"),
                        ("cache-min", "https://docs.truefoundry.com/gateway/chat-completions-prompt-caching",
                         "2026-12-03")),
               status="retired 2025-10-28"),
    _google("gemini-2.5-pro", (1.25, 10.00, 0.125)),
    _google("gemini-2.5-flash", (0.30, 2.50, 0.03)),
)

# Anthropic's tools that Anthropic defines (``{"type": "bash_20250124", "name": "bash"}``): the
# input tokens each adds. bash and text_editor: the tool-use docs (/work/shared/FACTS.md,
# 2026-12-01); computer: 735 per the computer-use docs as quoted by
# claudecodeguides.com/claude-computer-use-token-cost-breakdown (read 2026-12). The server tools
# (web search, web fetch, code execution) are billed per use and publish no token size.
PROVIDER_TOOL_TOKENS = {"bash": 245, "text_editor": 700, "computer": 735}
