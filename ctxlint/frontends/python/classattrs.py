"""What a class's attributes are declared or set to, read from the class and the bases the project
shows: the class an annotation names, a field's or property's declared class, the value a base's
constructor sets. Below :mod:`callees`, which asks these when it looks for the class of an object."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.nodes import base_name, forward_reference
from ctxlint.frontends.python.values import Env, Scope

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.callees import Callees


def class_annotation(annotation: ast.expr | None) -> ast.Name | None:
    """The class an annotation names: ``BaseLLM``, ``Optional[BaseLLM]``, ``BaseLLM | None``,
    or any of them written as a forward reference (``"BaseLLM"``, a class imported only
    under ``TYPE_CHECKING``)."""
    for _ in range(4):
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str) \
                and len(annotation.value) < 200:
            annotation = forward_reference(annotation)
        if isinstance(annotation, ast.Name):
            return annotation if annotation.id.lstrip("_")[:1].isupper() else None  # `_MatchResult` too
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            annotation = annotation.right if isinstance(annotation.left, ast.Constant) else annotation.left
        elif isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name) \
                and annotation.value.id == "Optional":
            annotation = annotation.slice
        else:
            return None
    return None


def declared_in(cls: Scope, attr: str) -> ast.Name | None:
    """The class a class body declares ``attr`` with: an annotated field (a dataclass's, a
    pydantic model's: ``llm: Optional[BaseLLM] = None``) or a property's return annotation."""
    if not isinstance(cls.node, ast.ClassDef):
        return None
    for statement in cls.node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and statement.target.id == attr:
            return class_annotation(statement.annotation)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == attr \
                and any(isinstance(d, ast.Name) and d.id in ("property", "cached_property")
                        for d in statement.decorator_list):
            return class_annotation(statement.returns)
    return None


def declared_in_bases(callees: Callees, attr: str, cls: Scope, foreign: bool, depth: int = 0
                      ) -> tuple[Analyzer | None, Scope] | None:
    """The class a base class or mixin of the project declares ``self.attr`` with, when the class
    itself neither declares nor sets it (``llm``, a property of a mixin typed ``BaseLLM``): the
    annotation read in the module that defines the base."""
    if depth >= 4 or not isinstance(cls.node, ast.ClassDef):
        return None
    for base in map(base_name, cls.node.bases):
        located = callees.class_named(base, cls.parent, foreign) if base is not None else None
        if located is None:
            continue
        owner, base_cls = located
        reader = owner.callees if owner is not None else callees
        declared = declared_in(base_cls, attr)
        found = reader.class_named(declared.id, base_cls.parent, foreign) if declared is not None \
            else declared_in_bases(reader, attr, base_cls, foreign, depth + 1)
        if found is not None:
            return (found[0] or owner), found[1]
    return None


def set_by_base(callees: Callees, attr: str, cls: Scope | None) -> tuple[ast.expr, Env, Analyzer | None] | None:
    """``Callees.set_by_base`` for the class ``cls``, looked up: what the nearest base class of the
    project sets ``self.attr`` to in its constructor, its env and the module it is in."""
    owner: Analyzer | None = None
    first = callees
    below: list[Scope] = []  # the classes between, whose constructors hand the parameters on
    for _ in range(3):
        if cls is not None:
            below.append(cls)
        base = base_name(cls.node.bases[0]) if cls is not None and isinstance(cls.node, ast.ClassDef) \
            and cls.node.bases else None
        if cls is None or base is None:
            return None
        located = callees.class_named(base, cls.parent, True)
        if located is None:
            return None
        owner = located[0] or owner
        cls = located[1]
        callees = owner.callees if owner is not None else first
        records = [r for r in cls.assigns.get(attr, ()) if r.kind == "="]
        if records:
            last = records[-1]
            if last.value is None:
                return None
            read = {n.id for n in ast.walk(last.value) if isinstance(n, ast.Name)} & set(last.home.params)
            if any(_reassigns(c, read) for c in below):
                return None
            return last.value, Env(last.home), owner
    return None


def _reassigns(cls: Scope, names: set[str]) -> bool:
    """Whether the constructor of ``cls`` gives one of its parameters ``names`` a value of its own."""
    init = cls.functions.get("__init__")
    if init is None or not isinstance(init[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and any(
        isinstance(target, ast.Name) and target.id in names
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target]))
        for node in ast.walk(init[0]))


def attribute_class(callees: Callees, attr: str, cls: Scope, foreign: bool) -> tuple[Analyzer | None, Scope] | None:
    """The class of ``obj.attr`` for an object of the class ``cls`` (``builder.config`` of a
    ``DriftContextBuilder``): the class the body declares it with, or the annotation of the one
    constructor parameter its ``__init__`` sets it to, and nothing else (``self.config = config`` of
    ``config: DriftConfig``); else what a base class declares."""
    if not isinstance(cls.node, ast.ClassDef):
        return None
    declared = declared_in(cls, attr)
    if declared is None:
        init = next((s for s in cls.node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and s.name == "__init__"), None)
        sets = [n for n in ast.walk(init) if isinstance(n, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" and t.attr == attr
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))] if init is not None else []
        if len(sets) == 1 and isinstance(sets[0].value, ast.Name) and init is not None:
            name = sets[0].value.id
            param = next((a for a in (*init.args.args, *init.args.kwonlyargs) if a.arg == name), None)
            declared = class_annotation(param.annotation) if param is not None else None
        elif sets:
            return None
    if declared is None:
        return declared_in_bases(callees, attr, cls, foreign)
    found = callees.class_named(declared.id, cls.parent, foreign)
    return found
