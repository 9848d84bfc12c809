"""A method of a base class that never runs: every class of the tree that extends the class
replaces the method with its own, none calls the base's (``super.stream(...)``), and no code of
the tree builds the base class itself (``new Provider(...)``). A request its body makes is a
default the subclasses all set aside, not one the program sends.

A class of the tree with no subclass, or a method some subclass keeps, runs as written."""

from __future__ import annotations

from ctxlint.frontends.typescript.classes import CLASSES, Classes
from ctxlint.frontends.typescript.knowledge import Node


def overridden_everywhere(classes: Classes, function: Node) -> bool:
    """Whether ``function``, a method of a class of the module, is replaced by every subclass of
    the tree, and the class is never built itself: what the method sends is never sent."""
    m = classes.m
    if function.type != "method_definition" or function.parent is None:
        return False
    declaration, name = function.parent.parent, m.field(function, "name")
    if declaration is None or declaration.type not in CLASSES or name is None or m.code(name) == "constructor":
        return False
    class_name = m.field(declaration, "name")
    if class_name is None or classes.constructions(m.code(class_name)):
        return False
    method = m.code(name)
    subclasses = classes.direct_subclasses(declaration)
    return bool(subclasses) and all(_replaces(sub, declared, method) for sub, declared in subclasses)


def _replaces(classes: Classes, declaration: Node, method: str) -> bool:
    """Whether a subclass declares ``method`` with a body of its own that never calls the base's."""
    own = classes.member(declaration, method)
    return own is not None and own.type == "method_definition" and classes.m.field(own, "body") is not None \
        and f"super.{method}" not in classes.m.code(own)
