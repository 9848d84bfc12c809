"""Counting through the on-disk vocabulary index gives exactly tiktoken's counts.

The index answers small texts by looking up only their substrings; these tests compare it with
the full encoding on every prompt file of the repository and on seeded random text built to hit
the edge cases of the pre-tokenizer split: every kind of Unicode whitespace, line breaks after
punctuation, CJK without spaces, combining marks, emoji, control characters and lone surrogates.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ctxlint import tokens
from ctxlint.tokens import index as tokenindex

ROOT = Path(__file__).resolve().parent.parent
ENCODINGS = ("o200k_base", "cl100k_base")
ALPHABET = (
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    + list(" .,;:!?'\"()[]{}<>/\\-_=+*&^%$#@~`|")
    + ["  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2028", "\u3000",
       "\u2003", "\u202f", "\u200b", "'s", "'ll", "don't", " the", " ünïcödé", "é", "e\u0301", "中文", "提示词",
       "必须", "。", "，", "🙂", "👩‍💻", "\ud800", "\udfff", "<|endoftext|>", "{{ name }}", "{% for d in docs %}",
       "1234567", "3.14159", "----", "====", "\n    ", "\t\t"]
)


def _texts() -> list[str]:
    files = [p for base in ("examples", "tests/data") for p in sorted((ROOT / base).rglob("*")) if p.is_file()]
    texts = [p.read_bytes().decode("utf-8", errors="replace")[:4000] for p in files]
    rng = random.Random(20240601)
    texts += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 120))) for _ in range(200)]
    return [t for t in texts if t]


@pytest.fixture
def index_dir(tmp_path_factory, monkeypatch):
    directory = tmp_path_factory.getbasetemp() / "tokenizer-index"
    monkeypatch.setenv(tokenindex.ENVIRONMENT, str(directory))
    monkeypatch.setattr(tokenindex, "_indexes", {})
    monkeypatch.setattr(tokenindex, "_MAX_CANDIDATES_PER_RUN", 10**9)
    monkeypatch.setattr(tokenindex, "_MAX_TOKENS_BUILT_PER_RUN", 10**9)
    return directory


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_index_counts_equal_the_full_encoding(index_dir, encoding):
    full = tokens.get_encoding(encoding)
    answered = 0
    texts = _texts()
    for text in texts:
        quick = tokenindex.count(text, encoding)
        if quick is None:
            continue
        answered += 1
        assert quick == len(full.encode_ordinary(text)), repr(text[:200])
    assert answered >= 0.8 * len(texts)  # the index, not the fallback, answered nearly all of them
    assert any(p.name.startswith(f"tokenizer-{encoding}-") for p in index_dir.iterdir())


def test_long_unbroken_text_falls_back_to_the_full_encoding(index_dir):
    paragraph = "提示词工程必须把约束放在开头并在结尾重申。" * 400  # no whitespace: one huge chunk
    assert tokenindex.count(paragraph, "o200k_base") is None
    assert tokens.count_tokens(paragraph) == len(tokens.get_encoding("o200k_base").encode_ordinary(paragraph))


def test_a_damaged_index_is_rebuilt_and_an_unwritable_one_skipped(index_dir, monkeypatch, tmp_path):
    assert tokenindex.count("You are the support assistant.", "o200k_base") == 6
    (path,) = [p for p in index_dir.iterdir() if p.name.startswith("tokenizer-o200k_base-")]
    path.write_bytes(b"not a database")
    monkeypatch.setattr(tokenindex, "_indexes", {})
    assert tokenindex.count("You are the support assistant.", "o200k_base") == 6
    assert path.read_bytes().startswith(b"SQLite format 3")
    monkeypatch.setattr(tokenindex, "_indexes", {})
    monkeypatch.setenv(tokenindex.ENVIRONMENT, "off")
    assert tokenindex.count("You are the support assistant.", "o200k_base") is None


def test_a_run_of_many_texts_builds_a_vocabulary_worth_of_subsets_at_most(index_dir, monkeypatch):
    # Every text with new tokens builds a subset encoding of all tokens seen so far: a 1 MB tool
    # catalogue built 1,094 of them (9 s). Past the bound the full encoding is cheaper.
    monkeypatch.setattr(tokenindex, "_MAX_TOKENS_BUILT_PER_RUN", 20_000)
    monkeypatch.setattr(tokenindex, "BUILD_OVERHEAD_TOKENS", 500)
    built: list[int] = []
    encoding = tokenindex._encoding

    def counted(name, ranks):
        built.append(len(ranks))
        return encoding(name, ranks)

    monkeypatch.setattr(tokenindex, "_encoding", counted)
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    texts = [" ".join("".join(rng.choice(letters) for _ in range(7)) for _ in range(12)) for _ in range(2_000)]
    answers = [tokenindex.count(text, "o200k_base") for text in texts]
    assert sum(built) + tokenindex.BUILD_OVERHEAD_TOKENS * len(built) <= 20_000
    assert answers[0] is not None and answers[-1] is None
    # What the index does not answer, tokens counts with the full encoding: the same numbers.
    full = tokens.get_encoding("o200k_base")
    assert [tokens.count_tokens(t) for t in texts[-3:]] == [len(full.encode_ordinary(t)) for t in texts[-3:]]
