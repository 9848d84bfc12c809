"""Tools a framework's registry lists, which prompts later pick by name (MetaGPT's ``@register_tool``).

A registered function is a tool as a decorator makes it (its docstring and signature). A
registered class is one entry: its docstring, then each public method (or only the methods the
decorator names) with its signature and docstring. That whole entry is what a prompt carries, so
it is measured as one tool whose parameters are the methods. No call offering either is seen,
and which tools a prompt picks is decided at run time: each is a request of its own.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.discover import glob_any
from ctxlint.frontends.code.pieces import Builder
from ctxlint.frontends.python.literals import clean
from ctxlint.frontends.python.project import display_path, picked_by_name
from ctxlint.frontends.python.values import Env
from ctxlint.model import Request, Span, ToolDef

if TYPE_CHECKING:
    from ctxlint.frontends.python.tools import Tools

# A package's `__all__` names what it exports, not what a prompt picks.
_EXPORTS = re.compile(rb"^__all__\s*\+?=\s*[\[(][^\])]*[\])]", re.MULTILINE)


def registered_requests(tools: Tools) -> list[Request]:
    """One request per function or class a catalogue registry decorator lists."""
    registries = tools.m.catalogue.tool_registries
    names = registries.last_names()

    def registry(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, env: Env) -> ast.expr | None:
        return next((d for d in node.decorator_list if decorator_name(d) in names and registries.match(
            tools.calls.path(d.func if isinstance(d, ast.Call) else d, env))), None)

    found: list[ToolDef] = []
    for fn, scope in tools.m.functions:
        outer = Env(scope.parent or tools.m.module_scope)
        decorator = registry(fn, outer)
        if decorator is not None:
            tool = tools.decorated_tool(fn, scope, decorator, Builder())
            found.append(replace(tool, offered=False, registered=True))
    for cls, where in tools.m.classes:
        decorator = registry(cls, Env(where))
        class_found = class_tool(tools, cls, decorator, Env(where)) if decorator is not None else None
        if class_found is not None:
            found.append(class_found)
    return [Request(tools.m.path, tool.span, (), (replace(tool, picked_at=_picked_at(tools, tool.name)),))
            for tool in found]


def _picked_at(tools: Tools, name: str | None) -> Span | None:
    """Where a module of the project outside tests and examples names the registered tool
    ``name`` in a string (the first such place): a registry's entries reach a prompt only when
    something picks them by name, and one named only by a sample script is rarely sent."""
    project, m = tools.m.project, tools.m
    if name is None or project is None:
        return None
    for path in project.pickers(name):
        if glob_any(project.not_shipped, path.relative_to(project.root).as_posix()):
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        exported = [m.span() for m in _EXPORTS.finditer(data)]
        found = next((f for f in re.finditer(picked_by_name(name), data)
                      if not any(start <= f.start() < end for start, end in exported)), None)
        if found is not None:
            line = data.count(b"\n", 0, found.start()) + 1
            m.dependencies.add(display_path(path))
            return Span(m.path if path == m.file else display_path(path), line, 1, line, 1)
    return None


def decorator_name(decorator: ast.expr) -> str | None:
    """The last name of a decorator: ``register_tool`` in ``@registry.register_tool(...)``."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else None


def class_tool(tools: Tools, cls: ast.ClassDef, decorator: ast.expr, env: Env) -> ToolDef | None:
    """The tool a registered class defines, or None when it documents nothing."""
    methods = {node.name: node for node in cls.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               and not node.name.startswith("_")}
    listed = _listed_methods(tools, decorator, env, set(methods))
    properties: dict[str, object] = {}
    for name, method in methods.items():
        doc = ast.get_docstring(method)
        if (listed is None or name in listed) and doc:
            properties[name] = {"description": f"{name}{_signature(method)}\n{doc}"}
    description = clean(ast.get_docstring(cls, clean=False) or "") or None
    if not properties and description is None:
        return None
    schema = {"type": "object", "properties": properties}
    raw = {"name": cls.name, "description": description or "", "methods": schema}
    # Reported at the registration: the decorator is what makes the class one tool.
    return ToolDef(cls.name, description, schema, tools.m.span(decorator), raw, offered=False, registered=True)


def _listed_methods(tools: Tools, decorator: ast.expr, env: Env, methods: set[str]) -> set[str] | None:
    """The methods the decorator names (``include_functions=["read", "write"]``): a keyword whose
    value is a list of the class's method names; None when no keyword lists them."""
    if not isinstance(decorator, ast.Call):
        return None
    for keyword in decorator.keywords:
        ok, value = tools.flow.literal(keyword.value, env)
        if ok and isinstance(value, list) and value and all(isinstance(v, str) for v in value) \
                and set(value) <= methods:
            return set(value)
    return None


def _signature(method: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``(path: str, content: str) -> str``: the parameters after ``self`` and the return type."""
    args = method.args
    positional = [*args.posonlyargs, *args.args]
    if positional and positional[0].arg in ("self", "cls"):
        args = ast.arguments(posonlyargs=[], args=positional[1:], vararg=args.vararg, kwonlyargs=args.kwonlyargs,
                             kw_defaults=args.kw_defaults, kwarg=args.kwarg,
                             defaults=args.defaults[-len(positional[1:]):] if positional[1:] else [])
    returns = f" -> {ast.unparse(method.returns)}" if method.returns is not None else ""
    return f"({ast.unparse(args)}){returns}"
