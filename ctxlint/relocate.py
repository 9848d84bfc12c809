"""A model object with every span in it moved: the findings and requests of code read out of a
container (a notebook's cells, a document's code blocks) placed where the container holds them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass, replace
from typing import TypeVar

from ctxlint.model import ParsedFile, Span

T = TypeVar("T")


def map_spans(value: T, relocate: Callable[[Span], Span]) -> T:
    """``value`` (a model object, or a list or tuple of them) with every span in it relocated."""
    if isinstance(value, Span):
        return relocate(value)  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        mapped = [map_spans(item, relocate) for item in value]
        return type(value)(mapped) if isinstance(value, tuple) else mapped  # type: ignore[return-value]
    names = _fields_of(type(value))
    if not names:  # text, numbers, enums: nothing in them to move
        return value
    changes = {}
    for name in names:
        current = getattr(value, name)
        if isinstance(current, (Span, list, tuple)) or _fields_of(type(current)):
            changes[name] = map_spans(current, relocate)
    if isinstance(value, ParsedFile):
        for name, new in changes.items():
            setattr(value, name, new)
        return value
    return replace(value, **changes)  # type: ignore[type-var]


# The fields of each dataclass that may hold spans (an embedded module's text does not), by
# type: a notebook's result has tens of thousands of objects to relocate, of a dozen types.
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields_of(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in fields(kind) if f.name != "embedded") if is_dataclass(
            kind) else ()
    return names
