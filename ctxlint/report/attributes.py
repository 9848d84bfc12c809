"""A JSON object of an object's attributes, each under its own name, for the report writers."""

from __future__ import annotations

from typing import Any


def attributes(obj: object, *names: str) -> dict[str, Any]:
    """``{name: obj.name}`` for each of ``names``, in their order (the order of the JSON's keys)."""
    return {name: getattr(obj, name) for name in names}
