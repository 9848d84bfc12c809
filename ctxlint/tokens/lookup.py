"""Finding a model in the table by any of its spellings (case, aliases, provider prefixes, dated
snapshots, Bedrock and Vertex AI ids), what the name of a model missing from it says, and the
config's entries that override or extend it."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ctxlint.tokens.encodings import ENCODINGS
from ctxlint.tokens.models import MODELS, PROVIDERS, ModelInfo

# A dated snapshot: -2024-08-06, -20250929, -0613 (older OpenAI ids), @20250929 (Vertex), -latest.
_SNAPSHOT = re.compile(r"(?:[-@](?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest))+")
# Amazon Bedrock model ids: an optional cross-region prefix, the vendor, a version suffix.
_BEDROCK = re.compile(r"^(?:(?:us|eu|apac|global|us-gov|jp|au)\.)?"
                      r"(?:anthropic|amazon|meta|mistral|cohere|ai21|deepseek|openai|writer|qwen)\.")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")
# A provider written before a colon, as pydantic-ai and others do: "openai:gpt-4o",
# "google-gla:gemini-2.5-pro", "bedrock:us.anthropic.claude-…" (not "ft:", a fine-tune).
_COLON_PREFIX = re.compile(r"^(?!ft:)[a-z][a-z0-9_-]*:(?=[a-z])")


def _key(name: str) -> str:
    """Lookup form of a model name: case-folded, provider prefix dropped, dots as hyphens.

    "openai/gpt-4o", "azure/gpt-4o", "models/gemini-2.5-pro" and LiteLLM's "vertex_ai/…" keep only
    the last part, "openai:gpt-4o" what follows the provider; Bedrock ids lose their vendor
    prefix and version ("us.anthropic.claude-sonnet-4-5-20250929-v1:0" is
    claude-sonnet-4-5-20250929); dots become hyphens so "claude-sonnet-4.5" finds
    claude-sonnet-4-5 (and gpt-4.1 is "gpt-4-1").
    """
    key = _COLON_PREFIX.sub("", name.strip().lower().rsplit("/", 1)[-1])
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
