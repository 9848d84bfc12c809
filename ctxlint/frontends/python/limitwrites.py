"""Whether the project writes an output limit into a dict of a given name (``hints={"max_tokens":
300}``): a parameter of that name that a request's settings come from may then hold one, and the
request is not one left without a limit by default (spreads.empty_by_default)."""

from __future__ import annotations

import re

from ctxlint.frontends.python.unit import Unit
from ctxlint.providers import LIMIT_KEYWORDS

_LIMIT = b"(?:" + b"|".join(key.encode() for key in LIMIT_KEYWORDS) + b")"


def limit_written_into(unit: Unit, name: str) -> bool:
    """Whether the module or the project writes an output limit into a dict kept or passed as
    ``name``: ``hints={"max_tokens": 300}``, ``hints = dict(max_tokens=300)``,
    ``hints["max_tokens"] = 300``, ``hints.update(max_tokens=300)``. A parameter of that name
    may then hold one (a text scan, once per name and run)."""
    escaped = re.escape(name.encode())
    pattern = (rb"\b" + escaped + rb"\s*=\s*(?:\{[^}]{0,400}?[\"']" + _LIMIT + rb"[\"']\s*:|dict\([^)]{0,400}?\b"
               + _LIMIT + rb"\s*=)|\b" + escaped + rb"\s*\[\s*[\"']" + _LIMIT + rb"[\"']\s*\]\s*=(?!=)|\b" + escaped
               + rb"\.update\([^)]{0,400}?\b" + _LIMIT + rb"\b")
    if re.search(pattern, unit.text.encode("utf-8")):
        return True
    project = unit.project
    return project is not None and bool(project.modules_matching("limit-into", name, pattern, 1))
