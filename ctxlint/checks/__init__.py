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

# The option types a check can declare belong to the catalogue, which validates rule files
# against them; checks import them from here.
from ctxlint.catalogue import BOOLEAN, INTEGER, NUMBER, STRING, STRINGS, option_type_ok

__all__ = ["BOOLEAN", "INTEGER", "NUMBER", "STRING", "STRINGS", "Check", "file_check", "option_type_ok",
           "option_types", "registry", "request_check", "suppression_check"]


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


def option_types() -> dict[str, Mapping[str, str]]:
    """What each check declares, by check name: the catalogue checks rules against it."""
    return {name: check.options for name, check in registry().items()}
