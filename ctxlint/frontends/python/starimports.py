"""Names bound by an import: ``from x import name``, or ``from x import *`` of a module of the
project (``from inference import *`` in a project that takes its helper modules whole), which
binds every public name that module gives, the last such import winning as Python binds them.
Looked up lazily, once per name and file: a builtin, a private name or a name the module binds
itself is never looked for, and star imports that import each other give nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlint.frontends.python.knowledge import BUILTINS

if TYPE_CHECKING:
    import ast

    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.unit import Unit


def imported(unit: Unit, name: str) -> tuple[str, int] | None:
    """Where an import of ``unit`` binds ``name`` to something of another module: ``(qualified, dots)``."""
    if name in unit.from_imports:
        return unit.imports[name], unit.import_levels.get(name, 0)
    return star_imported(unit, name)


def imported_value(unit: Unit, name: str) -> tuple[Analyzer, ast.AST] | None:
    """The module of the project an import of ``unit`` takes ``name`` from, and what it binds there."""
    bound = imported(unit, name)
    return unit.foreign(*bound) if bound is not None else None


def star_imported(unit: Unit, name: str) -> tuple[str, int] | None:
    """The module of the project whose ``from x import *`` in ``unit`` binds ``name``."""
    scope = unit.module_scope
    if not unit.star_imports or name.startswith("_") or name in BUILTINS or scope.assigns.get(name) \
            or name in scope.functions or name in unit.imports:
        return None
    if name in unit.star_memo:
        return unit.star_memo[name]
    unit.star_memo[name] = None  # while it is looked for
    for module, level in reversed(unit.star_imports):
        qualified = f"{module}.{name}" if module else name
        if unit.foreign(qualified, level) is not None:
            unit.star_memo[name] = (qualified, level)
            break
    return unit.star_memo[name]
