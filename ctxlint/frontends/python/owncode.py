"""Which code of a project is its own, outside its tests: a module's path read as a test's, and
whether a module outside tests builds a class (a class only tests or users of a library build
takes whatever settings they give it)."""

from __future__ import annotations

import ast
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env

if TYPE_CHECKING:
    from ctxlint.frontends.python.project import Project

_TEST_FOLDERS = frozenset({"test", "tests", "testing", "__tests__", "unit_tests", "integration_tests"})


def module_in_tests(unit: Unit) -> bool:
    """``in_tests`` of a module's path inside its project, or of its path as given without one."""
    project, file = unit.project, unit.file
    if project is None or file is None:
        return in_tests(PurePath(unit.path))
    return in_tests(file, project.root)


def in_tests(path: PurePath, root: Path | None = None) -> bool:
    """Whether a module is a test's: in a ``tests`` folder below the project's root (the folders
    above it, a checkout under `/ci/tests/`, are not the project's), or named as pytest collects it."""
    parts = (path.relative_to(root) if root is not None and path.is_relative_to(root) else path).parts
    name = parts[-1] if parts else ""
    return any(p in _TEST_FOLDERS for p in parts[:-1]) or name.startswith("test_") or name.endswith("_test.py") \
        or name == "conftest.py"


def built_outside_tests(project: Project, name: str) -> bool:
    """Whether a module of the project, outside tests, calls the class ``name`` (not only
    defines it: ``class Name(Base)`` is no call); the project's text scan, once per name."""
    return any(not in_tests(path, project.root) for path in project.callers(name, built=True))


def users_settings(unit: Unit, node: ast.expr, env: Env) -> bool:
    """Whether a dict spread into a call is a ``self.`` field of a class that no module of the
    project builds outside tests (``**self.model_params`` of a search class only the library's
    users construct): the settings they give it may well hold the limit."""
    cls = env.scope.cls
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
        and cls is not None and isinstance(cls.node, ast.ClassDef) and unit.project is not None \
        and not unit.calls_named({cls.node.name}) \
        and not built_outside_tests(unit.project, cls.node.name)
