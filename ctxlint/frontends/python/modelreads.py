"""Where a chat model kept by an assignment is read: the reads of ``self.llm`` in the class when
one statement of it sets the attribute (or those after a method builds it anew in each branch),
of ``self.llm`` in the methods of a class whose body keeps it, of ``llm`` in the code of a module
that keeps it at top level. What reads it is where it may be handed on (reserves.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.values import Scope


def model_reads(assign: ast.AST | None, scope: Scope) -> list[ast.expr] | None:
    """The reads of what ``assign`` keeps, for a model kept in an attribute, a class body or at
    module level; None when it is kept otherwise (a local name is read where its function reads it)."""
    reads = _attribute_reads(assign, scope)
    return reads if reads is not None else _shared_reads(assign, scope)


def _attribute_reads(assign: ast.AST | None, scope: Scope) -> list[ast.expr] | None:
    """The reads of ``self.name`` in the class when ``assign`` (``self.name = ...`` in one of its
    methods) is the only statement of the class that sets it; where other methods set it too, the
    reads in the method itself (its inner functions too) after the first of its statements that
    set it, when each of those builds an object (``self.llm = ChatOpenAI(...)`` in each branch):
    they read what the method built. None otherwise."""
    target = assign.targets[0] if isinstance(assign, ast.Assign) and len(assign.targets) == 1 else None
    if scope.cls is None or not isinstance(target, ast.Attribute) or not isinstance(target.value, ast.Name) \
            or target.value.id != "self":
        return None
    uses = [n for n in walk(scope.cls.node) if isinstance(n, ast.Attribute) and n.attr == target.attr
            and isinstance(n.value, ast.Name) and n.value.id == "self"]
    if sum(not isinstance(n.ctx, ast.Load) for n in uses) == 1:
        return [n for n in uses if isinstance(n.ctx, ast.Load)]
    if scope.kind != "function":
        return None
    here = [n for n in walk(scope.node) if isinstance(n, ast.Attribute) and n.attr == target.attr
            and isinstance(n.value, ast.Name) and n.value.id == "self"]
    stores = [n for n in here if not isinstance(n.ctx, ast.Load)]
    builds = [a for a in walk(scope.node) if isinstance(a, ast.Assign) and len(a.targets) == 1
              and any(t is a.targets[0] for t in stores) and isinstance(a.value, ast.Call)]
    if len(builds) != len(stores):
        return None  # set otherwise too (`self.llm = None`, `self.llm += ...`)
    first = min(n.lineno for n in stores)
    return [n for n in here if isinstance(n.ctx, ast.Load) and n.lineno > first]


def _shared_reads(assign: ast.AST | None, scope: Scope) -> list[ast.expr] | None:
    """The reads of a model kept once in a class body (``llm = ChatOpenAI(...)``, read as
    ``self.llm`` by methods of the class none of which sets it) or once at module level (read as
    ``llm`` by code that binds no ``llm`` of its own). None when it is kept otherwise."""
    target = assign.targets[0] if isinstance(assign, ast.Assign) and len(assign.targets) == 1 else None
    if not isinstance(target, ast.Name) or scope.kind not in ("class", "module") \
            or len(scope.assigns.get(target.id, ())) != 1:
        return None
    name = target.id
    if scope.kind == "class":
        uses = [n for n in walk(scope.node) if isinstance(n, ast.Attribute) and n.attr == name
                and isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")]
        return None if any(not isinstance(n.ctx, ast.Load) for n in uses) else list[ast.expr](uses)
    return list(_global_loads(scope.node, name))


def _global_loads(node: ast.AST, name: str) -> Iterator[ast.Name]:
    """The reads of the module's ``name`` under ``node``, skipping functions and classes that bind
    a ``name`` of their own (a parameter, an assignment, a loop variable)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Name) and child.id == name and isinstance(child.ctx, ast.Load):
            yield child
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) \
                and any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                        or isinstance(n, ast.arg) and n.arg == name for n in walk(child)):
            continue
        else:
            yield from _global_loads(child, name)
