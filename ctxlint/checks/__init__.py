"""The generic check functions that rule files name.

A check is a plain function over the shared model. Request checks run once per request
(``fn(request, ctx)``); file checks run once per parsed file (``fn(parsed_file, ctx)``);
suppression checks run last, over the file's suppressions and what they covered.
They report through ``ctx`` and never open files or know a format. Every module in this
package is imported by ``registry()``, so a new check only needs its decorator.

A check declares the options it reads and their types (``options={"names": STRINGS}``); every
rule file that names the check must give exactly those options, with those types, and the
catalogue refuses one that does not when it loads (a user's rule pack included).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Option types a check can declare.
STRINGS = "a list of strings"
STRING = "a string"
INTEGER = "an integer"
NUMBER = "a number"
BOOLEAN = "true or false"


def option_type_ok(kind: str, value: Any) -> bool:
    if kind == STRINGS:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == STRING:
        return isinstance(value, str)
    if kind == BOOLEAN:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == INTEGER:
        return isinstance(value, int)
    return isinstance(value, (int, float))


@dataclass(frozen=True)
class Check:
    function: Callable
    scope: str  # "request", "file" or "suppressions"
    options: Mapping[str, str] = field(default_factory=dict)  # option name -> one of the types above


_CHECKS: dict[str, Check] = {}
_IMPORTED = False  # whether every check module has been imported (see registry)


def _register(scope: str, function: Callable | None, options: Mapping[str, str] | None):
    def register(fn: Callable) -> Callable:
        _CHECKS[fn.__name__] = Check(fn, scope, dict(options or {}))
        return fn

    return register(function) if function is not None else register


def request_check(function: Callable | None = None, *, options: Mapping[str, str] | None = None):
    """Register a check that runs once per request: ``@request_check`` or
    ``@request_check(options={...})``."""
    return _register("request", function, options)


def file_check(function: Callable | None = None, *, options: Mapping[str, str] | None = None):
    """Register a check that runs once per parsed file."""
    return _register("file", function, options)


def suppression_check(function: Callable | None = None, *, options: Mapping[str, str] | None = None):
    """Register a check of a file's suppressions, run after every other rule (it is given a
    ``directives.SuppressionUse``: which suppressions covered a finding)."""
    return _register("suppressions", function, options)


def registry() -> dict[str, Check]:
    """Every check by name (importing the modules registers them, once: every rule of every
    configuration asks)."""
    global _IMPORTED
    if not _IMPORTED:
        for module in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{module.name}")
        _IMPORTED = True
    return _CHECKS
