"""A method called on an object whose class the code does not show, known by its name.

An application often holds its model client as an object a registry builds
(``self.llm = LLMCreator.create_llm(kind)``) and calls a method its own base class defines
(``self.llm.gen(model=model, messages=messages)``, where ``BaseLLM.gen`` runs the override each
provider subclass gives, which sends the request). Nothing shows the object's class, but the name
does when, of the project's shipped classes, only one base class and its subclasses define a
method of that name that takes the call's arguments: the call is read as a call of the base's
method. The call must fit it (it gives ``messages=``, a parameter of the method, and no keyword the
method does not take); a name two unrelated classes define, a name a catalogue sink has, and an
object a library builds or an imported module are left alone.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from ctxlint.discover import glob_any
from ctxlint.frontends.python.project import MAX_DEFINERS
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer

Defined = tuple["Analyzer | None", FunctionNode, Scope, bool]


class BaseMethods(Component):
    def callee(self, call: ast.Call, env: Env) -> tuple[Defined, Evidence] | None:
        """The method of the one base class of the project that ``call`` is taken to call, with the
        evidence that says why; None unless the call fits it and nothing else."""
        func = call.func
        project, file = self.m.project, self.m.file
        if project is None or file is None or not isinstance(func, ast.Attribute) \
                or self.m.sink_names.named(func.attr) or func.attr.startswith("__") \
                or not any(k.arg == "messages" for k in call.keywords) or self.library_object(func.value, env):
            return None
        definers = [path for path in project.method_definers(func.attr)
                    if not glob_any(project.not_shipped, path.relative_to(project.root).as_posix())]
        if not definers or len(definers) > MAX_DEFINERS:
            return None
        fitting: list[tuple[Analyzer, str, FunctionNode, Scope]] = []
        for path in definers:
            analyzer = self.m.analyzer if path == file else project.analyzer(path)
            if analyzer is None:
                return None  # a module that cannot be read may define another
            found = _fitting_methods(analyzer, func.attr, call)
            if found is None:
                return None  # a function of the name outside a class, which may be it
            fitting += [(analyzer, *method) for method in found]
        roots = [entry for entry in fitting
                 if {name for _, name in project.subclasses(entry[1])} >= {other[1] for other in fitting} - {entry[1]}]
        if len(roots) != 1:
            return None
        analyzer, class_name, fn, fn_scope = roots[0]
        where = f"{analyzer.unit.path}, line {fn.lineno}"
        evidence = Evidence(EvidenceKind.FLOW, f"`{self.m.code(func.value)}` is taken for a `{class_name}`: of the "
                                               f"project's classes only `{class_name}` and its subclasses define a "
                                               f"`{func.attr}` this call fits ({where})", analyzer.unit.span(fn))
        return (analyzer if analyzer.unit is not self.m else None, fn, fn_scope, True), evidence

    def library_object(self, node: ast.expr, env: Env) -> bool:
        """Whether the receiver is an imported name, or of a class the code shows (whose method the
        plain lookup did not find), or is built by a call of a library's (not the project's)."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and (root.id in self.m.imports or root.id in ("self", "cls") and root is node):
            return True
        if self.callees.class_of(node, env, True) is not None:
            return True
        binding = self.scopes.resolve(node, env) if isinstance(node, (ast.Name, ast.Attribute)) else None
        value = binding.value if binding is not None else None
        if not isinstance(value, ast.Call):
            return False
        head = value.func
        while isinstance(head, (ast.Attribute, ast.Call)):
            head = head.value if isinstance(head, ast.Attribute) else head.func
        unit = binding.owner.unit if binding is not None and binding.owner is not None else self.m
        if not isinstance(head, ast.Name) or head.id not in unit.imports:
            return False
        imported = unit.imports[head.id]
        project, file = self.m.project, unit.file
        if project is None or file is None:
            return True
        level = unit.import_levels.get(head.id, 0)
        return all(project.module_file(module, file, level) is None
                   for module in (imported, imported.rpartition(".")[0]) if module or level)


def _fitting_methods(analyzer: Analyzer, name: str, call: ast.Call) -> list[tuple[str, FunctionNode, Scope]] | None:
    """The methods ``name`` of the module's top-level classes that ``call`` fits, by class; None when
    a function of that name that fits it is defined anywhere else (a nested class, a closure)."""
    unit = analyzer.unit
    found: list[tuple[str, FunctionNode, Scope]] = []
    methods: set[int] = set()
    for entry in unit.module_scope.functions.values():
        if isinstance(entry[0], ast.ClassDef) and (method := entry[1].functions.get(name)) is not None \
                and isinstance(method[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods.add(id(method[0]))
            if _fits(method[0], call):
                found.append((entry[0].name, method[0], method[1]))
    pattern = re.compile(r"\bdef\s+" + re.escape(name) + r"\s*\(")
    if len(pattern.findall(unit.text)) > len(methods):  # defined elsewhere too: does that one fit?
        for node in ast.walk(unit.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name \
                    and id(node) not in methods and _fits(node, call):
                return None
    return found


def _fits(fn: FunctionNode, call: ast.Call) -> bool:
    """Whether ``call`` may call the method ``fn``: it takes ``messages=``, every keyword the call
    names (or any, with ``**kwargs``) and as many positional arguments as the call gives."""
    args = fn.args
    named = {a.arg for a in (*args.args, *args.kwonlyargs)} - {"self", "cls"}
    if "messages" not in named or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    if args.kwarg is None and any(k.arg is not None and k.arg not in named for k in call.keywords):
        return False
    return args.vararg is not None or len(call.args) <= len(args.posonlyargs) + len(args.args) - 1
