"""Matching variable names against the configured globs, and what a slot's filters say about them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import translate
from functools import lru_cache

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=4096)
def normalise(name: str) -> str:
    """A name in snake case and lower case (``pageText`` -> ``page_text``), as patterns are written."""
    return _CAMEL.sub("_", name).lower()


_IDENTIFIER_PATH = re.compile(r"[A-Za-z_][\w.]*")
# Template filters that turn a value into a number about it: `{{ documents | length }}` prints a
# count, not the documents, so it is neither their content nor a variable-length block.
_MEASURING_FILTERS = frozenset({"length", "count", "wordcount", "int", "float", "round", "abs", "sum",
                                "filesizeformat"})


def matches(name: str, patterns: Sequence[str]) -> bool:
    """Whether a name (``documents``, ``doc.text``) matches a glob over its normalised form."""
    return _matches(name, patterns if isinstance(patterns, tuple) else tuple(patterns))


@lru_cache(maxsize=65_536)
def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    # Kept: the trust and layout analyses ask about every slot, and a long prompt repeats a
    # few names thousands of times (each against several lists of dozens of globs).
    return _compiled(patterns).match(normalise(name)) is not None


@lru_cache(maxsize=256)
def _compiled(patterns: tuple[str, ...]) -> re.Pattern:
    """All globs of a list as one regex: the analyses match every slot against dozens of them."""
    return re.compile("|".join(translate(p.lower()) for p in patterns) or "(?!)")


def root(name: str) -> str:
    return name.split(".", 1)[0]


def last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def leading_name(expression: str) -> str | None:
    """The variable an expression starts from: ``retrieved_documents`` in ``retrieved_documents | sort``."""
    match = _IDENTIFIER_PATH.match(expression.strip())
    return match.group(0) if match else None


def measured(slot) -> bool:
    """Whether a slot prints only a measure of what it reads (its outermost filter is ``length``)."""
    return slot is not None and bool(slot.filters) and slot.filters[0] in _MEASURING_FILTERS


# A name (or path) and a whole number joined by arithmetic: `i + 1`, `loop.index0 + 1`, `2 * n`.
_COUNTED = re.compile(r"\s*(?:[A-Za-z_][\w.]*\s*[-+*]\s*\d+|\d+\s*[-+*]\s*[A-Za-z_][\w.]*)\s*")


def counted(slot) -> bool:
    """Whether a slot prints a number worked out from a name (``i + 1`` of ``enumerate(pages)``):
    no text of anyone's can be in it."""
    return slot is not None and not slot.filters and _COUNTED.fullmatch(slot.expression) is not None
