"""Integers read from user files, and how messages print them.

Python refuses to convert between text and ``int`` beyond 4,300 decimal digits (such
conversions take quadratic time), and a number that long in a request or a template is a
mistake or an attack, never a setting. Front-ends read integers with :func:`read_int`, which
gives an infinite float instead of a huge integer; messages and reports print numbers with
:func:`shown`, which never converts a huge integer to text.
"""

from __future__ import annotations

import math
import re

MAX_DIGITS = 4000  # the longest integer read as an int; below Python's 4,300-digit limit
_MAX_BITS = int(MAX_DIGITS * math.log2(10))
_SHOWN_DIGITS = 24  # longer numbers are described, not written out
_DIGITS = {base: re.compile(rf"[+-]?{d}(?:_?{d})*") for base, d in
           ((2, "[01]"), (8, "[0-7]"), (10, "[0-9]"), (16, "[0-9a-fA-F]"))}


def read_int(text: str, base: int = 10) -> int | float:
    """``int(text, base)`` for ``base`` 2, 8, 10 or 16 (a sign and ``_`` separators allowed, as
    ``int`` allows them), or ±infinity when the number has more than ``MAX_DIGITS`` digits or is
    larger than the largest such number. Raises ``ValueError`` as ``int`` does."""
    stripped = text.strip()
    if len(stripped) > MAX_DIGITS + 1 and len(stripped) - stripped.count("_") > MAX_DIGITS + 1:
        if not _DIGITS[base].fullmatch(stripped):
            raise ValueError(f"invalid literal for int() with base {base}")
        return -math.inf if stripped.startswith("-") else math.inf
    number = int(stripped, base)
    if number.bit_length() > _MAX_BITS:
        return -math.inf if number < 0 else math.inf
    return number


def too_long(digits: str) -> bool:
    """Whether a run of decimal digits is too long to read as an integer."""
    return len(digits) - digits.count("_") > MAX_DIGITS


def shown(number: float) -> str:
    """``number`` with thousands separators, or a description when it is too long to print."""
    if isinstance(number, int) and not isinstance(number, bool):
        magnitude = abs(number)
        if magnitude.bit_length() > _SHOWN_DIGITS * math.log2(10):
            digits = int(magnitude.bit_length() * math.log10(2)) + 1  # within one of the exact count
            return f"a {'negative ' if number < 0 else ''}number of about {digits:,} digits"
    return f"{number:,}"


MAX_COUNT = 10**15  # far more tokens than any model reads or writes


def token_count(value: object) -> int | None:
    """A setting's value (``max_tokens: 512``) as a token count, or None when it is not one: not an
    integer, or beyond ``MAX_COUNT``, where no check can compare it and no report can price it."""
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_COUNT:
        return None
    return value
