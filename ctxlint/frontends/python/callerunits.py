"""The modules of the project that call a function by its name, read to judge what every call
of it gives (unsetcallers.py, spreadparams.py), and where a parameter stands among those a call
passes by position."""

from __future__ import annotations

import ast
from pathlib import Path

from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.project import MAX_CALLERS, MAX_DEFINERS, MAX_MODULES
from ctxlint.frontends.python.unit import Unit


def caller_units(m: Unit, name: str, private: bool = False) -> list[Unit]:
    """``m`` and the project's modules whose text calls ``name(...)``; none when there may be
    more than the scan keeps. With ``private`` (a method named ``_name``, called on ``self``
    where its class is written), not the modules that define a method of that name of their
    own: their calls are of their own classes' method."""
    units = [m]
    project, file = m.project, m.file
    if project is None or file is None:
        return units
    paths = [p for p in project.callers(name) if p != file]
    if private:
        definers = project.method_definers(name)
        if len(definers) > MAX_DEFINERS:
            return []
        paths = [p for p in paths if p not in definers]
    unread = sum(p not in project.used for p in paths)
    # more than the scan keeps, or than this file may read besides what it needs (the private
    # method's count is kept as it was for the other callers: a module it reads anew counts)
    if len(paths) >= MAX_CALLERS - 1 or (unread or not private) and len(project.used) + unread > MAX_MODULES // 2:
        return []
    for path in paths:
        analyzer = project.analyzer(Path(path))
        if analyzer is None:
            return []
        units.append(analyzer.unit)
    return units


def position_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> int | None:
    """Where ``name`` stands among the positional parameters after ``self`` (None for a
    keyword-only one)."""
    names = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if names[:1] in (["self"], ["cls"]):
        names = names[1:]
    return names.index(name) if name in names else None


def method_definitions(unit: Unit, method: str) -> list[tuple[Unit, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The functions named ``method`` that the project's modules outside its tests define, each with
    its module's unit (``unit`` itself for its own); none when more than MAX_DEFINERS modules define
    one (too common a name to say which runs) or ``unit`` belongs to no project."""
    project = unit.project
    if project is None or not method:
        return []
    definers = project.method_definers(method)
    if len(definers) > MAX_DEFINERS:
        return []
    found = []
    for path in definers:
        if in_tests(path, project.root):
            continue
        analyzer = unit.analyzer if path == unit.file else project.analyzer(path)
        if analyzer is None:
            continue
        found += [(analyzer.unit, fn) for fn, _ in analyzer.unit.functions if fn.name == method]
    return found
