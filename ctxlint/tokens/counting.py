"""Exact token counts of a text in an encoding, without loading the tokenizer where the
vocabulary index can answer (``ctxlint.tokens.index``)."""

from __future__ import annotations

import functools
import re

from ctxlint.tokens.encodings import _built, get_encoding

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
    vocabulary (ctxlint.tokens.index), which gives the same count without loading all of it. A
    run of whitespace longer than ``BLANK_BLOCK`` characters is counted in blocks (see above).
    """
    if len(text) <= SHORT_TEXT:
        return _count_short(text, encoding)
    key = (text, encoding)
    known = _LONG_COUNTS.get(key)
    if known is not None:
        return known
    if len(text) > BLANK_BLOCK and _LONG_BLANK.search(text):
        found = _count_in_blocks(text, encoding)
    else:
        found = _count(text, encoding)
    global _long_chars
    if _long_chars + len(text) <= LONG_TEXTS_CHARS:
        _LONG_COUNTS[key] = found
        _long_chars += len(text)
    return found


# Short texts recur: roles, names, a tool's fields measured by several checks, an instruction
# repeated in every message. Their counts are kept (at most SHORT_TEXTS of them, a few MB).
SHORT_TEXT = 256
SHORT_TEXTS = 1 << 16


# Longer texts recur within a file: a tool's rendering is measured by each tool rule (CTX501,
# CTX502, CTX504) and the request's pricing, a prompt's static text by CTX101 and CTX203; on the
# bench corpus 81 counts of long texts were of 42 distinct ones. Their counts are kept until
# forget_long_counts (the engine calls it before each file: a file's texts rarely recur in the
# next), while the texts kept add up to at most LONG_TEXTS_CHARS characters.
LONG_TEXTS_CHARS = 8_000_000
_LONG_COUNTS: dict[tuple[str, str], int] = {}
_long_chars = 0


def forget_long_counts() -> None:
    """Drop the counts of long texts kept so far."""
    global _long_chars
    _LONG_COUNTS.clear()
    _long_chars = 0


@functools.lru_cache(maxsize=SHORT_TEXTS)
def _count_short(text: str, encoding: str) -> int:
    return _count(text, encoding)


def _count(text: str, encoding: str) -> int:
    if encoding not in _built:
        from ctxlint.tokens import index

        quick = index.count(text, encoding)
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
