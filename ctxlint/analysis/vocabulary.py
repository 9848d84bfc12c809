"""Word families of third-party content: what the words of a slot's name say it holds.

A name is read as words, whatever its spelling (``issue_body``, ``prDiff``, ``search-hits``,
``ticket.description``), and each word is compared with families of words, plurals included,
rather than with a list of one project's variable names:

- *content* words name text someone else wrote: pages and their accessibility trees, retrieved
  documents and chunks, search results, issues, comments, reviews, diffs and patches, tickets,
  e-mails, chat transcripts, files, uploads, tool and command output (``issue``, ``diff``,
  ``transcript``, ``stdout``, ``tool output``);
- *ambiguous* words name content as often as the operator's own text (``context``, ``content``,
  ``text``, ``result``, ``output``): on their own they are weak;
- *metadata* words, as the last word of a name, make it a fact about content rather than the
  content itself (``doc_id``, ``page_url``, ``file_name``, ``file description``).

A name is named for what its last words are (English puts the head noun last): a family word
counts when only content, ambiguous or *carrier* words (``str``, ``list``, ``parts``) follow it,
so ``issue_body`` and ``pull_request_arr`` say content and ``comment_checks_performed`` does
not. Phrases (``tool output``, ``pull request``) match consecutive words. The families are options of
the trust rules, so a team extends them in configuration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ctxlint.analysis.names import normalise

_WORD_SPLIT = re.compile(r"[^a-z]+")
# First words that make a name a number about content, not content: `max_webpages`, `num_results`.
_QUANTITIES = frozenset({"max", "min", "num", "n", "number", "count", "total", "limit"})


@dataclass(frozen=True)
class Vocabulary:
    content: tuple[str, ...]
    ambiguous: tuple[str, ...]
    metadata: tuple[str, ...]
    carriers: tuple[str, ...] = ()  # words for what holds content (`str`, `list`, `parts`)


def family(name: str, vocabulary: Vocabulary) -> tuple[str, str] | None:
    """The word (or phrase) of ``name`` that says third-party content and its family, "content"
    or "ambiguous"; None for a name that says neither or that names metadata about content."""
    return _family(name, vocabulary.content, vocabulary.ambiguous, vocabulary.metadata, vocabulary.carriers)


def is_metadata(name: str, vocabulary: Vocabulary) -> bool:
    """Whether the last words of ``name`` name a fact about content (its id, url, name, size),
    written in any form (``date_str``, ``date_human_readable``: carrier words after it)."""
    words = _without_carriers(_words(name), _phrases(vocabulary.carriers))
    return bool(words) and _ends_with(words, _phrases(vocabulary.metadata))


def _without_carriers(words: tuple[str, ...], carriers: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """``words`` without the carrier words and phrases at their end, keeping at least one word."""
    stripped = True
    while stripped:
        stripped = False
        for phrase in carriers:
            if phrase and len(phrase) < len(words) and words[-len(phrase):] == phrase:
                words, stripped = words[:-len(phrase)], True
                break
    return words


@lru_cache(maxsize=65_536)  # the trust rules ask about every slot, and prompts repeat a few names
def _family(name: str, content: tuple[str, ...], ambiguous: tuple[str, ...], metadata: tuple[str, ...],
            carriers: tuple[str, ...]) -> tuple[str, str] | None:
    words = _words(name)
    if not words or _ends_with(words, _phrases(metadata)) or (len(words) > 1 and words[0] in _QUANTITIES):
        return None
    heads = _phrases(content) + _phrases(ambiguous) + _phrases(carriers)
    for kind, entries in (("content", content), ("ambiguous", ambiguous)):
        for phrase in _phrases(entries):
            if _heads(words, phrase, heads):
                return " ".join(phrase), kind
    return None


@lru_cache(maxsize=65_536)
def _words(name: str) -> tuple[str, ...]:
    return tuple(w for w in _WORD_SPLIT.split(normalise(name)) if w)


@lru_cache(maxsize=64)
def _phrases(entries: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(w for w in _WORD_SPLIT.split(entry.lower()) if w) for entry in entries)


def _same(word: str, entry: str) -> bool:
    """A word and a family entry, plurals included (``patches``, ``replies``)."""
    if word == entry:
        return True
    if word.endswith("ies"):
        return entry.endswith("y") and word[:-3] == entry[:-1]
    if word.endswith("es") and word[:-2] == entry:
        return True
    return word.endswith("s") and word[:-1] == entry


def _heads(words: tuple[str, ...], phrase: tuple[str, ...], heads: tuple[tuple[str, ...], ...]) -> bool:
    """Whether ``phrase`` occurs in ``words`` followed only by words of ``heads``."""
    size = len(phrase)
    return size > 0 and any(all(_same(words[i + k], phrase[k]) for k in range(size))
                            and _only(words[i + size:], heads) for i in range(len(words) - size + 1))


def _only(words: tuple[str, ...], phrases: tuple[tuple[str, ...], ...]) -> bool:
    return all(any(len(p) == 1 and _same(word, p[0]) for p in phrases) for word in words)


def _ends_with(words: tuple[str, ...], phrases: tuple[tuple[str, ...], ...]) -> bool:
    """Whether ``words`` end with one of ``phrases``: only the phrases whose last word the last
    word can be (itself or its singular) are compared, so a name costs the same however long the
    list (the trust rules ask about every slot of a prompt)."""
    candidates = _by_last_word(phrases)
    last = words[-1]
    singulars = (last, last[:-1], last[:-2], last[:-3] + "y") if last.endswith("s") else (last,)
    return any(len(p) <= len(words) and all(_same(w, e) for w, e in zip(words[-len(p):], p, strict=True))
               for form in singulars for p in candidates.get(form, ()))


@lru_cache(maxsize=64)
def _by_last_word(phrases: tuple[tuple[str, ...], ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    index: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        if phrase:
            index.setdefault(phrase[-1], []).append(phrase)
    return {word: tuple(entries) for word, entries in index.items()}


@lru_cache(maxsize=4096)  # a long prompt repeats the same few lead-ins before its slots
def content_word(text: str, words: tuple[str, ...]) -> str | None:
    """The first of ``words`` (or its plural) in ``text``, whatever its case and spacing."""
    match = _word_pattern(words).search(text.lower())
    return match.group(0) if match else None


_WORD_PATTERNS: dict[tuple[str, ...], re.Pattern] = {}


def _word_pattern(words: tuple[str, ...]) -> re.Pattern:
    """The content words as one pattern over lower-cased text (three times faster than matching
    with IGNORECASE, and every slot's lead-in is searched)."""
    if words not in _WORD_PATTERNS:
        alternatives = "|".join(re.escape(w.lower()).replace(r"\ ", r"[\s_-]+") for w in words) or "(?!)"
        _WORD_PATTERNS[words] = re.compile(rf"\b(?:{alternatives})s?\b")  # plurals too
    return _WORD_PATTERNS[words]
