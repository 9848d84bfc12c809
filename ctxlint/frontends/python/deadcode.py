"""Code the shipped program never runs: a branch under a test that is false as written
(`elif False:`, `elif provider == "openai" and False:`), and a class of the project whose every
construction sits in such a branch. A finding about how such a class talks to the model describes
nothing a user of the program meets; projects park unfinished agents this way (`# TODO: enable
once it works`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.nodes import never_true
from ctxlint.frontends.python.project import MAX_CALLERS

if TYPE_CHECKING:
    from ctxlint.frontends.python.unit import Unit


def parked(unit: Unit, cls: str) -> bool:
    """Whether the class named ``cls`` in ``unit``'s module is built only in branches that never run:
    the project names it somewhere, every use of the name is a call under a test that is never
    true, and no class of the project extends it (a subclass would run its methods). A class the
    project never names is not parked: it is there for the package's users to build."""
    project = unit.project
    if project is None or project.subclasses(cls):
        return False
    mentioning = project.mentioning(cls)
    if len(mentioning) > MAX_CALLERS:
        return False
    calls = 0
    for path in mentioning:
        owner = project.analyzer(path)
        if owner is None:
            return False  # a module not read may build it
        uses = _uses(owner.unit.tree, cls)
        if uses is None:
            return False
        calls += uses
    return calls > 0


def _uses(tree: ast.Module, name: str) -> int | None:
    """How many times ``tree`` names ``name`` in branches that never run, or None when it uses the
    name in code that may run (a call, a value handed on, a base class); annotations do not count."""
    dead: set[int] = set()  # nodes in branches that never run
    typing: set[int] = set()  # nodes in type annotations, which build nothing
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While)) and never_true(node.test):
            dead.update(id(n) for statement in node.body for n in ast.walk(statement))
        for annotation in _annotations(node):
            typing.update(id(n) for n in ast.walk(annotation))
    calls = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) \
                and id(node) not in typing:
            if id(node) not in dead:
                return None
            calls += 1
    return calls


def _annotations(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return [node.returns] if node.returns is not None else []
    if isinstance(node, (ast.arg, ast.AnnAssign)):
        return [node.annotation] if node.annotation is not None else []
    return []
