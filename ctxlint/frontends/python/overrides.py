"""A method an object runs in place of its base class's: ``self.recall(task)`` in a method of
``Recommender`` runs ``TagRecommender.recall`` when the object is a ``TagRecommender``. A call
resolves to the method of the class it is written in; for the callers of an override, such a
call of the base class is one of them (a template method: the base class calls what each
subclass provides, then uses what it gives back)."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.callees import Callees
from ctxlint.frontends.python.loopshapes import called_name
from ctxlint.frontends.python.nodes import base_name
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env, Scope

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_MOST_LEVELS = 4  # how many base classes up a subclass is looked through


def module_callers(m: Unit, callees: Callees, fn: FunctionNode) -> list[tuple[FunctionNode, ast.Call]]:
    """The module's calls of ``fn`` (``fn(...)``, ``self.fn(...)``) with the functions they are made
    in, resolved to it: a method of the same name on another class is not one; ``self.fn(...)`` in a
    base class of its class is."""
    return [(home.node, call) for call, home in m.calls if called_name(call) == fn.name
            and isinstance(home.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and home.node is not fn
            and (called_through_base(m, fn, call, home)
                 or (target := callees.function_for(call, Env(home), returns=False)) is not None and target.fn is fn)]


def called_through_base(m: Unit, fn: FunctionNode, call: ast.Call, home: Scope) -> bool:
    """Whether ``call`` (``self.name(...)`` in a method of a class of the module) reaches ``fn``,
    a method of the same name of a class of the module that derives from it."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == fn.name and isinstance(func.value, ast.Name)
            and func.value.id == "self"):
        return False
    own = m.parents.get(id(fn))
    base = _class_of(home)
    if not isinstance(own, ast.ClassDef) or base is None or base is own:
        return False
    classes = {node.name: node for node, _ in m.classes}
    if classes.get(base.name) is not base:
        return False  # two classes of one name: which one a subclass means is not known
    return derives(own, base.name, classes)


def derives(own: ast.ClassDef, base: str, classes: dict[str, ast.ClassDef]) -> bool:
    """Whether the class ``own`` derives from a class named ``base``: written as deriving from it,
    or through ``classes`` between (the module's, by name; up to ``_MOST_LEVELS``)."""
    pending, levels = [own], 0
    while pending and levels < _MOST_LEVELS:
        names = {base_name(b) for cls in pending for b in cls.bases}
        if base in names:
            return True
        pending = [classes[name] for name in names if name in classes]
        levels += 1
    return False


def _class_of(home: Scope) -> ast.ClassDef | None:
    """The class of the method a call is made in (also in a function nested in the method)."""
    scope: Scope | None = home
    while scope is not None and scope.cls is None:
        scope = scope.parent
    node = scope.cls.node if scope is not None and scope.cls is not None else None
    return node if isinstance(node, ast.ClassDef) else None
