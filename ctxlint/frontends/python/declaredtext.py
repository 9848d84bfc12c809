"""Whether a collection's declared type says it holds strings or paths: a parameter annotated
``list[str]``, a call of a project function whose return is annotated ``List[str]``, or a field
``obj.names`` of a class whose body declares ``names: List[str]`` (``obj`` built by the class, by
``Cls.model_validate_json(...)``, returned by a function annotated ``-> Cls | None``, or a name
annotated where its function assigns it: ``reply: Answer = await llm(...)``); through a field
declared as one of several classes (``action: Union[ReadFiles, AddFiles]``, then
``action.add_files``), where every one of them that declares the field declares it so.

A path hashes as its text does, so a set of paths iterates in an order that changes with each
process's hash seed just as a set of strings does.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.callees import Callees
from ctxlint.frontends.python.hashedtext import field_annotation, hashed_items
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope

_TEXT_COLLECTION = re.compile(
    r"((?:typing\.)?Optional\[)?(?:typing\.)?(?:List|list|Set|set|FrozenSet|frozenset|Sequence|Iterable|Collection"
    r"|Tuple|tuple)\[\s*(?:str|Path|pathlib\.Path)\s*(?:,\s*\.\.\.\s*)?\](?(1)\])")
# Methods that cut a text into strings.
_PIECES = {"findall", "split", "rsplit", "splitlines"}
# Pydantic's constructors that build an object of the class they are called on.
_BUILDS = {"model_validate", "model_validate_json", "model_construct", "parse_obj", "parse_raw"}


def text_collection(annotation: ast.expr | None) -> bool:
    """``list[str]``, ``Set[Path]``, ``Optional[List[str]]``, ``tuple[str, ...]``."""
    return annotation is not None and bool(_TEXT_COLLECTION.fullmatch(ast.unparse(annotation).replace(" | None", "")))


class DeclaredText(Component):
    def declared_text(self, node: ast.expr, env: Env) -> bool:
        """Whether the declared type of ``node`` is a collection of strings or paths, or it is
        the pieces of a text (``pattern.findall(text)``, ``line.split(",")``: strings, or tuples
        of them, whose order the hash seed decides just as well)."""
        node = node.value if isinstance(node, ast.Await) or (
            isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)) else node  # some of them
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _PIECES:
            return True
        if isinstance(node, ast.Call):
            target = self.callees.function_for(node, env, foreign=True, returns=False)
            return target is not None and (text_collection(target.fn.returns) or hashed_items(
                target.owner.unit if target.owner is not None else self.m, target.fn.returns, target.env.scope))
        if isinstance(node, ast.Name):
            scope = env.scope
            if scope.kind == "function" and node.id in scope.params and env.bound(node.id) is None:
                annotation = scope.params[node.id].annotation  # `found: Sequence[Term]`, `Term` hashed as text
                return text_collection(annotation) or hashed_items(self.m, annotation, scope)
            binding = self.scopes.resolve(node, env)
            return binding is not None and binding.owner is None and isinstance(binding.value, (ast.Call, ast.Await)) \
                and self.declared_text(binding.value, binding.env)
        if isinstance(node, ast.Attribute):
            classes = self.instance_classes(node.value, env)
            declared = [a for cls in classes if (a := _field(cls, node.attr)) is not None]
            if declared and all(text_collection(a) for a in declared):
                return True
            # `result.matches`, a field of a class of another module, declared `Sequence[Match]`, `Match`
            # hashed as text (also where the object's class is found otherwise: `result = await load(...)`)
            found = field_annotation(self.m, node, env)
            return found is not None and hashed_items(found[0], found[2], found[1])
        return False

    def self_field(self, node: ast.Attribute, env: Env) -> ast.expr | None:
        """For ``self.<name>`` in a method: the annotation the body of its class, or of a base class
        of the module, declares the field with (``tools: dict[str, Tool] = {}``)."""
        scope: Scope | None = env.scope
        while scope is not None and scope.cls is None:
            scope = scope.parent  # a function nested in the method
        if not (isinstance(node.value, ast.Name) and node.value.id == "self") or scope is None or scope.cls is None:
            return None
        classes = {cls.name: cls for cls, _ in self.m.classes}
        pending = [scope.cls.node]
        for _ in range(4):  # the class, then its bases, a level at a time
            found = next((s.annotation for cls in pending if isinstance(cls, ast.ClassDef) for s in cls.body
                          if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                          and s.target.id == node.attr), None)
            if found is not None:
                return found
            pending = [classes[b.id] for cls in pending if isinstance(cls, ast.ClassDef) for b in cls.bases
                       if isinstance(b, ast.Name) and b.id in classes]
        return None

    def instance_classes(self, node: ast.expr, env: Env, hops: int = 3) -> list[Scope]:
        """The classes the object ``node`` gives may be of: ``instance_class``'s one, the class a
        name is annotated with where its function assigns it, or the classes a field of such an
        object is declared as (``Union[A, B]``, ``A | None``)."""
        cls = self.instance_class(node, env)
        if cls is not None or hops <= 0:
            return [cls] if cls is not None else []
        if isinstance(node, ast.Name):
            annotation = _annotated(node.id, env)
            if annotation is not None:
                return self.classes_named(annotation, env.scope)
            binding = self.scopes.resolve(node, env)
            if binding is None or binding.owner is not None or not isinstance(binding.value, ast.Attribute):
                return []
            node, env = binding.value, binding.env
        if isinstance(node, ast.Attribute):
            fields = [(a, c) for c in self.instance_classes(node.value, env, hops - 1)
                      if (a := _field(c, node.attr)) is not None]
            return [found for a, c in fields for found in self.classes_named(a, c)]
        return []

    def classes_named(self, annotation: ast.expr, scope: Scope) -> list[Scope]:
        """The project's classes an annotation names, each member of a union among them."""
        found = [self.callees.class_named(name, scope, True) for name in _class_names(annotation)]
        return [f[1] for f in found if f is not None and isinstance(f[1].node, ast.ClassDef)]

    def instance_class(self, node: ast.expr, env: Env) -> Scope | None:
        """The class of the object a call (or the name holding its value) gives: built by it, by
        one of Pydantic's constructors called on it, or returned by a project function whose
        return is annotated with it."""
        value, value_env = node, env
        if isinstance(node, ast.Name):
            binding = self.scopes.resolve(node, env)
            if binding is None or binding.owner is not None:
                return None
            value, value_env = binding.value, binding.env
        value = value.value if isinstance(value, ast.Await) else value
        if not isinstance(value, ast.Call):
            return None
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in _BUILDS and isinstance(func.value, ast.Name):
            found = self.callees.class_named(func.value.id, value_env.scope, True)
            return found[1] if found is not None else None
        if isinstance(func, ast.Name):
            found = self.callees.class_named(func.id, value_env.scope, True)
            if found is not None:
                return found[1]
        target = self.callees.function_for(value, value_env, foreign=True, returns=False)
        named = Callees.class_annotation(target.fn.returns) if target is not None else None
        if target is None or named is None:
            return None
        home = target.owner.callees if target.owner is not None else self.callees
        found = home.class_named(named.id, target.env.scope, True)
        return found[1] if found is not None else None


def _field(cls: Scope, name: str) -> ast.expr | None:
    """The annotation the class body declares field ``name`` with."""
    if not isinstance(cls.node, ast.ClassDef):
        return None
    return next((s.annotation for s in cls.node.body if isinstance(s, ast.AnnAssign)
                 and isinstance(s.target, ast.Name) and s.target.id == name), None)


def _annotated(name: str, env: Env) -> ast.expr | None:
    """The annotation of the one annotated assignment of ``name`` in its function."""
    fn = env.scope.node
    if env.scope.kind != "function" or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    found = [n.annotation for n in own_nodes(fn) if isinstance(n, ast.AnnAssign)
             and isinstance(n.target, ast.Name) and n.target.id == name]
    return found[0] if len(found) == 1 else None


def _class_names(annotation: ast.expr) -> list[str]:
    """``A``, ``Optional[A]``, ``Union[A, B]``, ``A | B | None``: the capitalised names."""
    if isinstance(annotation, ast.Name):
        return [annotation.id] if annotation.id[:1].isupper() else []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _class_names(annotation.left) + _class_names(annotation.right)
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, (ast.Name, ast.Attribute)) \
            and (annotation.value.id if isinstance(annotation.value, ast.Name) else annotation.value.attr) \
            in ("Optional", "Union"):
        members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return [name for m in members for name in _class_names(m)]
    return []
