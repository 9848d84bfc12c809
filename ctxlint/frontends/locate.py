"""Offsets to (line, column) positions, for front-ends whose text starts inside a file."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from ctxlint.model import Span

# A function from an offset in a front-end's text to a 1-based (line, column) in the file.
Locator = Callable[[int], tuple[int, int]]


def line_locator(text: str, first_line: int = 1, first_column: int = 1) -> Locator:
    """Locate offsets of ``text``, which starts at ``first_line``:``first_column`` of a file."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def locate(offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(starts, offset) - 1
        column = offset - starts[index] + 1
        return first_line + index, column + (first_column - 1 if index == 0 else 0)

    return locate


def span_maker(path: str, locate: Locator) -> Callable[[int, int], Span]:
    """The span in ``path`` from one offset of a front-end's text to another, located by ``locate``."""
    def span(start: int, end: int) -> Span:
        line, column = locate(start)
        end_line, end_column = locate(end)
        return Span(path, line, column, end_line, end_column)

    return span
