"""Matching variable names against the configured globs."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from ctxlint.analysis.volatility import normalise

_IDENTIFIER_PATH = re.compile(r"[A-Za-z_][\w.]*")


def matches(name: str, patterns: list[str]) -> bool:
    """Whether a name (``documents``, ``doc.text``) matches a glob over its normalised form."""
    normal = normalise(name)
    return any(fnmatchcase(normal, p.lower()) for p in patterns)


def root(name: str) -> str:
    return name.split(".", 1)[0]


def last(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def leading_name(expression: str) -> str | None:
    """The variable an expression starts from: ``retrieved_documents`` in ``retrieved_documents | sort``."""
    match = _IDENTIFIER_PATH.match(expression.strip())
    return match.group(0) if match else None
