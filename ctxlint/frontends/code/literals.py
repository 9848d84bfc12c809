"""JSON-like values read from a list's elements or a dict's entries, the same in Python and in
TypeScript: each front-end reads one element (``literal``), these read the container."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

N = TypeVar("N")
E = TypeVar("E")
Literal = Callable[[N, E], tuple[bool, object]]


def literal_list(elements: Iterable[N], env: E, literal: Literal[N, E]) -> tuple[bool, object]:
    """``(True, [values])`` when every element is a literal; ``(False, None)`` otherwise."""
    values = []
    for element in elements:
        ok, value = literal(element, env)
        if not ok:
            return False, None
        values.append(value)
    return True, values


def literal_dict(entries: Mapping[str, tuple[N, E, object]] | None, literal: Literal[N, E]) -> tuple[bool, object]:
    """``(True, {key: value})`` when every entry's value is a literal (each read where it was
    written); ``(False, None)`` when one is not, or the entries are unknown."""
    if entries is None:
        return False, None
    result = {}
    for key, (value_node, value_env, _) in entries.items():
        ok, value = literal(value_node, value_env)
        if not ok:
            return False, None
        result[key] = value
    return True, result
