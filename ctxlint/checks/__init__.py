"""The generic check functions that rule files name.

A check is a plain function over the shared model. Request checks run once per request
(``fn(request, ctx)``); file checks run once per parsed file (``fn(parsed_file, ctx)``).
They report through ``ctx`` and never open files or know a format. Every module in this
package is imported by ``registry()``, so a new check only needs its decorator.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    function: Callable
    scope: str  # "request" or "file"


_CHECKS: dict[str, Check] = {}


def request_check(function: Callable) -> Callable:
    _CHECKS[function.__name__] = Check(function, "request")
    return function


def file_check(function: Callable) -> Callable:
    _CHECKS[function.__name__] = Check(function, "file")
    return function


def registry() -> dict[str, Check]:
    """Every check by name (importing the modules registers them)."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return _CHECKS
