"""Objects that hash as their text, and fields declared as sets.

A set iterates in the order of its items' hashes. A string's hash changes with each process's
hash seed, and so does the hash of an object of a project class whose ``__hash__`` hashes text
(``return hash(self.id)``, ``id: TermId`` with ``TermId = NewType("TermId", str)``;
``return hash(f"{self.guideline.id}_{self.score}")``; ``return hash(str(self.document))``), or of a
frozen dataclass with a text field (its generated ``__hash__`` hashes the tuple of its fields): a
set of them is in hash-seed order just as a set of strings is. Which class the items are is read
from declarations only: a field, a parameter or a function's return annotated with a collection
of the class (``glossary: set[Term]``, ``found: Sequence[Term]``).

A field the class of an object declares as a set (``state.glossary: set[Term]``, ``state`` of a
class that declares it, through fields and parameters annotated with their classes:
``context.state.glossary``, ``context: EngineContext``) is a set wherever it is read.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from ctxlint.frontends.python.callees import Callees, returned_class
from ctxlint.frontends.python.values import Env, Scope

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.unit import Unit

SET_ANNOTATION = re.compile(r"(typing\.)?([sS]et|frozenset|FrozenSet|AbstractSet|MutableSet)\b")
# Collections whose one type argument is the type of their items.
_COLLECTIONS = frozenset({"list", "List", "set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet",
                          "Sequence", "MutableSequence", "Iterable", "Collection", "tuple", "Tuple"})
_TEXT_TYPES = frozenset({"str", "Path", "pathlib.Path", "bytes"})
_MAX_HOPS = 3
_TUPLES = frozenset({"tuple", "Tuple", "typing.Tuple"})


def object_class(m: Unit, node: ast.expr, env: Env, hops: int = _MAX_HOPS) -> tuple[Unit, Scope] | None:
    """The module and class of the object ``node`` gives: ``self``, a parameter annotated with
    the class, an object the code builds, or a field of such an object declared with the class
    (``context.state``, ``state: ResponseState``)."""
    if m.analyzer is None:
        return None
    home = m  # the module whose names the class is looked up among
    if isinstance(node, ast.Attribute) and not (isinstance(node.value, ast.Name) and node.value.id == "self"):
        if hops <= 0:
            return None
        declared = field_annotation(m, node, env, hops - 1)
        named = Callees.class_annotation(declared[2]) if declared is not None else None
        if declared is None or named is None:
            return None
        home, cls, _ = declared
        assert home.analyzer is not None
        found = home.analyzer.callees.class_named(named.id, cls.parent, True)
    else:
        found = m.analyzer.callees.class_of(node, env, True) or _awaited_class(m, node, env) \
            or _unpacked_class(m, node, env)
    if found is None or not isinstance(found[1].node, ast.ClassDef):
        return None
    return (found[0].unit if found[0] is not None else home), found[1]


def _awaited_class(m: Unit, node: ast.expr, env: Env) -> tuple[Analyzer | None, Scope] | None:
    """For a name given the awaited result of a call (``result = await self._load(context)``): the
    class its function declares it returns (``-> MatchResult``)."""
    assert m.analyzer is not None
    binding = m.analyzer.scopes.resolve(node, env) if isinstance(node, ast.Name) else None
    if binding is None or binding.owner is not None or not isinstance(binding.value, ast.Await) \
            or not isinstance(binding.value.value, ast.Call):
        return None
    return returned_class(m.analyzer.callees, binding.value.value, binding.env, True)


def _unpacked_class(m: Unit, node: ast.expr, env: Env) -> tuple[Analyzer | None, Scope] | None:
    """For a name its function binds once, by unpacking a parameter annotated as a tuple of
    classes (``tool_id, tool, _ = candidate``, ``candidate: tuple[ToolId, Tool, list[Match]]``):
    the class declared at the name's position (``Tool``)."""
    scope = env.scope
    if m.analyzer is None or not isinstance(node, ast.Name) or scope.kind != "function" \
            or not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if not any(isinstance(p.annotation, ast.Subscript) and ast.unparse(p.annotation.value) in _TUPLES
               for p in scope.params.values()):
        return None  # no parameter declared a tuple: a cheap test before the walk of the whole function
    binds = [n for n in ast.walk(scope.node) if isinstance(n, ast.Name) and n.id == node.id
             and isinstance(n.ctx, ast.Store)]
    unpacking = m.parents.get(id(binds[0])) if len(binds) == 1 else None
    statement = m.parents.get(id(unpacking)) if isinstance(unpacking, ast.Tuple) else None
    if not isinstance(unpacking, ast.Tuple) or not isinstance(statement, ast.Assign) \
            or statement.targets != [unpacking] or not isinstance(statement.value, ast.Name) \
            or statement.value.id not in scope.params:
        return None
    declared = scope.params[statement.value.id].annotation
    if not isinstance(declared, ast.Subscript) or ast.unparse(declared.value) not in _TUPLES \
            or not isinstance(declared.slice, ast.Tuple) or len(declared.slice.elts) != len(unpacking.elts):
        return None
    named = Callees.class_annotation(declared.slice.elts[unpacking.elts.index(binds[0])])
    return m.analyzer.callees.class_named(named.id, scope, True) if named is not None else None


def field_annotation(m: Unit, node: ast.Attribute, env: Env, hops: int = _MAX_HOPS
                     ) -> tuple[Unit, Scope, ast.expr] | None:
    """The module, class and annotation with which the class of ``node.value`` declares the field
    ``node.attr`` (in its body, or the body of a base class of its module)."""
    found = object_class(m, node.value, env, hops)
    if found is None:
        return None
    unit, cls = found
    for _ in range(3):
        assert isinstance(cls.node, ast.ClassDef)
        annotation = next((s.annotation for s in cls.node.body if isinstance(s, ast.AnnAssign)
                           and isinstance(s.target, ast.Name) and s.target.id == node.attr), None)
        if annotation is not None:
            return unit, cls, annotation
        base = next((b.id for b in cls.node.bases if isinstance(b, ast.Name)), None)
        entry = unit.module_scope.functions.get(base) if base is not None else None
        if entry is None or not isinstance(entry[0], ast.ClassDef):
            return None
        cls = entry[1]
    return None


def declared_set(m: Unit, node: ast.Attribute, env: Env) -> tuple[Unit, Scope, ast.expr] | None:
    """``field_annotation`` where the field is declared as a set (``glossary: set[Term]``)."""
    declared = field_annotation(m, node, env)
    return declared if declared is not None and SET_ANNOTATION.match(ast.unparse(declared[2])) else None


def hashed_items(unit: Unit, annotation: ast.expr | None, scope: Scope | None) -> bool:
    """Whether ``annotation`` (read in ``unit``, where ``scope`` is) is a collection of text or of
    objects of a project class that hash as their text (``set[Term]``, ``Sequence[GuidelineMatch]``)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name) \
            and annotation.value.id == "Optional":
        annotation = annotation.slice
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        annotation = annotation.left  # `list[Term] | None`
    if not isinstance(annotation, ast.Subscript):
        return False
    outer = annotation.value.attr if isinstance(annotation.value, ast.Attribute) else \
        annotation.value.id if isinstance(annotation.value, ast.Name) else None
    items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if outer not in _COLLECTIONS or not items:
        return False
    item = items[0]
    if ast.unparse(item) in _TEXT_TYPES:
        return True
    named = Callees.class_annotation(item)
    if named is None or unit.analyzer is None:
        return False
    found = unit.analyzer.callees.class_named(named.id, scope or unit.module_scope, True)
    if found is None or not isinstance(found[1].node, ast.ClassDef):
        return False
    owner = found[0].unit if found[0] is not None else unit
    return hashes_text(owner, found[1].node)


def hashes_text(unit: Unit, cls: ast.ClassDef) -> bool:
    """Whether the objects of ``cls`` hash as text: its ``__hash__`` returns the hash of text (a
    field declared as text, an f-string, ``str(...)``, a tuple holding one), or it is a frozen
    dataclass with a field declared as text and no ``__hash__`` of its own."""
    method = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__hash__"), None)
    if method is not None:
        returns = [s.value for s in ast.walk(method) if isinstance(s, ast.Return) and s.value is not None]
        return bool(returns) and all(isinstance(r, ast.Call) and isinstance(r.func, ast.Name) and r.func.id == "hash"
                                     and len(r.args) == 1 and _text(unit, cls, r.args[0]) for r in returns)
    if any(isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__hash__" for t in s.targets)
           for s in cls.body):
        return False  # `__hash__ = None` or another class's
    return _frozen_dataclass(cls) and any(_text_type(unit, s.annotation) for s in cls.body
                                          if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name))


def _text(unit: Unit, cls: ast.ClassDef, value: ast.expr) -> bool:
    """Whether ``value``, in a method of ``cls``, is text: an f-string, ``str(...)``, a field of
    ``self`` declared as text, or a tuple holding one of them."""
    if isinstance(value, ast.JoinedStr):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "str":
        return True
    if isinstance(value, ast.Tuple):
        return any(_text(unit, cls, e) for e in value.elts)
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self":
        return any(_text_type(unit, s.annotation) for s in cls.body if isinstance(s, ast.AnnAssign)
                   and isinstance(s.target, ast.Name) and s.target.id == value.attr)
    return False


def _text_type(unit: Unit, annotation: ast.expr) -> bool:
    """``str``, ``Path``, or a name the module binds to one (``TermId = NewType("TermId", str)``,
    ``Slug = str``)."""
    written = ast.unparse(annotation)
    if written in _TEXT_TYPES:
        return True
    if not isinstance(annotation, ast.Name):
        return False
    for statement in unit.tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == annotation.id
                                                     for t in statement.targets):
            value = statement.value
            if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) \
                    and ast.unparse(value.func).endswith("NewType") and len(value.args) == 2:
                value = value.args[1]
            return ast.unparse(value) in _TEXT_TYPES
    return False


def _frozen_dataclass(cls: ast.ClassDef) -> bool:
    """``@dataclass(frozen=True)`` (or ``unsafe_hash=True``): a ``__hash__`` over its fields."""
    for decorator in cls.decorator_list:
        if isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith("dataclass") \
                and any(k.arg in ("frozen", "unsafe_hash") and isinstance(k.value, ast.Constant)
                        and k.value.value is True for k in decorator.keywords):
            return True
    return False
