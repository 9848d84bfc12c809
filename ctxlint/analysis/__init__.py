"""Shared passes over the model that several checks and reports need."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

_Pass = TypeVar("_Pass", bound=Callable)


def kept() -> list:
    """A list for a pass to keep its last request's results in, emptied by ``forget``."""
    last: list = []
    _KEPT.append(last)
    return last


_KEPT: list[list] = []


def forget() -> None:
    """Drop what the passes kept of the last request: once a file's checks have run, the
    request (and all it holds: segments, spans, slots) can be freed as soon as nothing else
    needs it, instead of being walked by the collector and kept until the next file."""
    for last in _KEPT:
        last.clear()


def reuse_last(function: _Pass) -> _Pass:
    """Remember a pass's last result for the same arguments: the very same objects, or equal
    option lists (each rule has its own copy). The checks of one request each ask for the same
    pass over it (its sentences, its regions), and a pass over a large request is worth doing once."""
    last = kept()  # [arguments, result]

    @functools.wraps(function)
    def reused(*arguments):
        if last and len(last[0]) == len(arguments) and all(
                _same(a, b) for a, b in zip(last[0], arguments, strict=True)):
            return last[1]
        result = function(*arguments)
        last[:] = [arguments, result]
        return result

    return reused  # type: ignore[return-value]


def _same(a: object, b: object) -> bool:
    return a is b or (type(a) is list and type(b) is list and a == b)
