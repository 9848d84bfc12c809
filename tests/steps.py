"""Work measured in steps, not seconds: how many lines of Python a call executes.

Tests bound the work of ctxlint on hostile input without a clock (a loaded CI machine makes any
time limit flaky): a line count is the same on every machine. Work done inside C (a regular
expression, ``str.find``) counts as the one line that calls it, so these bounds catch Python
loops that grow too fast; the fuzz benchmark (benchmarks/fuzz.py) times the rest.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def count_steps(function: Callable[[], object]) -> tuple[int, object]:
    """The number of Python lines (and calls) ``function()`` executes, and what it returned."""
    steps = 0

    def trace(frame, event, arg):
        nonlocal steps
        steps += 1
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        result = function()
    finally:
        sys.settrace(previous)
    return steps, result


def growth(make: Callable[[int], Callable[[], object]], small: int, factor: int = 4) -> float:
    """How much more work ``make(small * factor)()`` takes than ``make(small)()``, per unit of
    input: about 1 for a linear pass, ``factor`` for a quadratic one."""
    little, _ = count_steps(make(small))
    large, _ = count_steps(make(small * factor))
    return large / (little * factor)
