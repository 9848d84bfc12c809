"""What a call reaches: the function or method it calls (in this module, in a class the code
shows and its bases, or in another module of the project), the class of the object it is made
on, and the function's parameters bound to the call's arguments. Names and what they hold come
from :mod:`scopes`, below it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.knowledge import MAX_DEPTH
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Bound, Env, Scope

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer


class Callees(Component):
    def function_for(self, call: ast.Call, env: Env, foreign: bool = False, returns: bool = True) -> Called | None:
        """The function (or method) ``call`` calls, with its return values and the parameters
        bound to the call's arguments; None if the code does not show it (or, with ``returns``,
        if it returns nothing). A function of the module, a method of ``self``, of an object of a
        class the code shows or of a parameter annotated with one (found in the class or its
        bases), and with ``foreign``, a function or class another module of the project defines."""
        if env.depth > MAX_DEPTH:
            return None
        found = self.callee(call.func, env, foreign)
        if found is None:
            return None
        owner, fn, inner, method = found
        if returns and not inner.returns:
            return None
        return Called(fn, inner.returns, Env(inner, self.bind(call, env, found), env.depth + 1), owner)

    def returned_items(self, node: ast.Subscript, position: int, env: Env) -> list[tuple[ast.expr, Env, Called]]:
        """The ``position``-th item of each tuple the function ``node`` calls returns
        (``return page.text, mime``), in the env the function runs in; empty when the code does
        not show the function or a return is not a tuple that long."""
        return self.items_returned_by(node.value, position, env)

    def items_returned_by(self, call: ast.expr, position: int, env: Env) -> list[tuple[ast.expr, Env, Called]]:
        """``returned_items`` of a call; a return that hands over to another function the code
        shows (``return run_subprocess(command)``) gives that function's items."""
        call = call.value if isinstance(call, ast.Await) else call
        if not isinstance(call, ast.Call):
            return []
        target = self.function_for(call, env, foreign=True)
        if target is None:
            return []
        items: list[tuple[ast.expr, Env, Called]] = []
        for value in target.returns:
            if isinstance(value, ast.Tuple):
                if len(value.elts) <= position or any(isinstance(e, ast.Starred) for e in value.elts):
                    return []
                items.append((value.elts[position], target.env, target))
                continue
            reader = target.owner.callees if target.owner is not None else self
            handed = reader.items_returned_by(value, position, target.env)
            if not handed:
                return []
            items += [(item, item_env, called if called.owner is not None else replace(called, owner=target.owner))
                      for item, item_env, called in handed]
        return items

    def bind(self, call: ast.Call, env: Env, found: tuple[Analyzer | None, FunctionNode, Scope, bool]
             ) -> tuple[Bound, ...]:
        """The parameters of the function ``found`` bound to ``call``'s arguments, the others to
        their defaults; a ``**kwargs`` parameter holds the keywords no other parameter takes."""
        owner, fn, inner, method = found
        params = inner.positional[1:] if method and inner.positional[:1] in (["self"], ["cls"]) else inner.positional
        caller = self.m.analyzer if owner is not None else None
        bindings: list[Bound] = []
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        for name, value in zip(params, positional, strict=False):  # extra arguments or defaults
            bindings.append(Bound(name, value, env, caller))
        extra: list[ast.keyword] = []
        for keyword in call.keywords:
            if keyword.arg is not None and keyword.arg in inner.params:
                bindings.append(Bound(keyword.arg, keyword.value, env, caller))
            else:
                extra.append(keyword)
        kwargs = fn.args.kwarg
        if kwargs is not None and all(k.arg is not None for k in extra):
            # `def make(**kwargs)` called as `make(model=m, max_tokens=300)`: a dict of the rest,
            # its keys placed where the caller writes them (it lives as long as the binding).
            rest = ast.Dict([ast.copy_location(ast.Constant(k.arg), k) for k in extra], [k.value for k in extra])
            bindings.append(Bound(kwargs.arg, ast.copy_location(rest, call), env, caller))
        given = {b.param for b in bindings}
        home = owner.unit if owner is not None else self.m
        defaults = Env(inner.parent or home.module_scope, (), env.depth + 1)
        for name, param in inner.params.items():
            if name not in given and param.default is not None:
                bindings.append(Bound(name, param.default, defaults))
        return tuple(bindings)

    def callee(self, func: ast.expr, env: Env, foreign: bool) -> tuple[Analyzer | None, FunctionNode, Scope,
                                                                          bool] | None:
        """``(owner, function, its scope, is a method)`` for the function an expression names."""
        found: tuple[ast.AST, Scope] | None = None
        owner: Analyzer | None = None
        method = False
        if isinstance(func, ast.Name):
            scope: Scope | None = env.scope
            while scope is not None and found is None:
                if scope.kind != "class" or scope is env.scope:
                    found = scope.functions.get(func.id)
                scope = scope.parent
            if found is None and foreign and func.id in self.m.from_imports:
                located = self.m.foreign(self.m.imports[func.id], self.m.import_levels.get(func.id, 0))
                if located is not None:
                    owner, node = located
                    found = owner.unit.module_scope.functions.get(getattr(node, "name", ""))
        elif isinstance(func, ast.Attribute):
            method = True
            cls = self.class_of(func.value, env, foreign)
            if cls is not None:
                owner, cls_scope = cls
                inherited = self.method_of(owner, cls_scope, func.attr, foreign)
                if inherited is not None:
                    owner, found = inherited
            elif foreign and isinstance(func.value, ast.Name) and func.value.id in self.m.imports:
                head = func.value.id  # helpers.fetch(...), where `import helpers`
                located = self.m.foreign(f"{self.m.imports[head]}.{func.attr}", self.m.import_levels.get(head, 0))
                if located is not None:
                    owner, node = located
                    found = owner.unit.module_scope.functions.get(getattr(node, "name", ""))
                    method = False
        if found is None or not isinstance(found[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        return owner, found[0], found[1], method

    def class_of(self, node: ast.expr, env: Env, foreign: bool, hops: int = 0) -> tuple[Analyzer | None, Scope] | None:
        """The class whose method ``node.method(...)`` calls: ``self``/``cls``, a class the code
        shows (``Fetcher.page``), the class of an object built from one (``Fetcher().page``),
        or the class a parameter is annotated with (``llm: BaseLLM``), through names and
        ``self`` attributes that hold it (``self.llm = llm``)."""
        if isinstance(node, ast.Name) and node.id in ("self", "cls"):
            return (None, env.scope.cls) if env.scope.cls is not None else None
        if isinstance(node, ast.Call):
            node = node.func
        else:
            binding = self.scopes.resolve(node, env) if isinstance(node, (ast.Name, ast.Attribute)) else None
            factory = _default_factory(binding.value) if binding is not None else None
            if factory is not None:  # `runner: Runner = Field(default_factory=Runner)`: the object it builds
                assert binding is not None
                node, env = factory, binding.env
            elif binding is not None and isinstance(binding.value, ast.Call):
                node, env = binding.value.func, binding.env
            elif binding is not None and isinstance(binding.value, ast.Name) and binding.owner is None and hops < 4:
                return self.class_of(binding.value, binding.env, foreign, hops + 1)
            elif isinstance(node, ast.Name) and env.scope.kind == "function" and node.id in env.scope.params \
                    and env.bound(node.id) is None:
                annotation = self.class_annotation(env.scope.params[node.id].annotation)
                if annotation is None:
                    return None
                node = annotation
            elif isinstance(node, ast.Attribute):  # `self.llm` of a class that declares `llm: Optional[BaseLlm] = None`
                node = self.declared_class(node, env) or node
        if not isinstance(node, ast.Name):
            return None
        return self.class_named(node.id, env.scope, foreign)

    def class_named(self, name: str, scope: Scope | None, foreign: bool) -> tuple[Analyzer | None, Scope] | None:
        """The class ``name`` is where ``scope`` reads it: defined around it, or imported from a
        module of the project."""
        while scope is not None:
            found = scope.functions.get(name)
            if found is not None:
                return (None, found[1]) if isinstance(found[0], ast.ClassDef) else None
            scope = scope.parent
        if foreign and name in self.m.from_imports:
            located = self.m.foreign(self.m.imports[name], self.m.import_levels.get(name, 0))
            if located is not None:
                owner, cls = located
                # the class, or the class bound to a name there too (`Config = Settings`)
                defined = cls.name if isinstance(cls, ast.ClassDef) else cls.id if isinstance(cls, ast.Name) else None
                entry = owner.unit.module_scope.functions.get(defined) if defined is not None else None
                return (owner, entry[1]) if entry is not None and isinstance(entry[0], ast.ClassDef) else None
        return None

    def declared_class(self, node: ast.expr, env: Env) -> ast.Name | None:
        """The class the enclosing class's body annotates a ``self.`` attribute with, when the
        code assigns it no object of its own (a field set by whoever builds the object)."""
        cls = env.scope.cls
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
                and cls is not None and isinstance(cls.node, ast.ClassDef)):
            return None
        for statement in cls.node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                    and statement.target.id == node.attr:
                return self.class_annotation(statement.annotation)
        return None

    @staticmethod
    def class_annotation(annotation: ast.expr | None) -> ast.Name | None:
        """The class an annotation names: ``BaseLLM``, ``Optional[BaseLLM]``, ``BaseLLM | None``."""
        for _ in range(4):
            if isinstance(annotation, ast.Name):
                return annotation if annotation.id[:1].isupper() else None
            if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
                annotation = annotation.right if isinstance(annotation.left, ast.Constant) else annotation.left
            elif isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name) \
                    and annotation.value.id == "Optional":
                annotation = annotation.slice
            else:
                return None
        return None

    def method_of(self, owner: Analyzer | None, cls: Scope, name: str, foreign: bool, depth: int = 0
                  ) -> tuple[Analyzer | None, tuple[ast.AST, Scope]] | None:
        """The method ``name`` of a class, defined in it or inherited from a base class the
        project defines (looked up in the module that defines each class)."""
        found = cls.functions.get(name)
        if found is not None:
            return owner, found
        if depth >= 4 or not isinstance(cls.node, ast.ClassDef):
            return None
        home = owner.callees if owner is not None else self
        for base in cls.node.bases:
            if not isinstance(base, ast.Name):
                continue
            located = home.class_named(base.id, cls.parent, foreign)
            if located is None:
                continue
            base_owner = located[0] if located[0] is not None else owner
            inherited = home.method_of(base_owner, located[1], name, foreign, depth + 1)
            if inherited is not None:
                return inherited
        return None

    def param_annotation(self, name: str, env: Env) -> str | None:
        scope = env.scope
        if scope.kind == "function" and name in scope.params and env.bound(name) is None:
            annotation = scope.params[name].annotation
            if annotation is not None:
                return self.m.code(annotation)
        return None


def _default_factory(value: ast.expr) -> ast.Name | None:
    """The class a field declaration builds its default with (``Field(default_factory=Runner)``,
    dataclasses' ``field(default_factory=Runner)``), when it names one."""
    if not (isinstance(value, ast.Call) and last_name(value.func) in ("Field", "field")):
        return None
    factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
    return factory if isinstance(factory, ast.Name) and factory.id[:1].isupper() else None


@dataclass(frozen=True)
class Called:
    """A function a call reaches: its definition, its return values, the env its body runs in
    (parameters bound to the call's arguments) and the module it is in, when another one."""

    fn: FunctionNode
    returns: list[ast.expr]
    env: Env
    owner: Analyzer | None = None
