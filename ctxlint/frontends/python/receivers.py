"""A method's ``self.<field>`` read from the object the call is made on: the argument its
constructor was given for that field.

``ToolUse("output", [], page).to_output()`` runs a method whose return formats ``self.content``;
a dataclass (or a NamedTuple) assigns its fields nowhere the class shows, so what the field holds
is the argument the object was built with, by keyword or by the field's place among the class's
annotated fields. ``callees.bind`` binds the object a method is called on as ``RECEIVER`` (a name
no code can write), and passes it on to the methods that method calls on ``self``.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.values import Bound, Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Source

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.sources import Sources
    from ctxlint.frontends.python.unit import Component

# The parameter an object a method is called on is bound as: not a name Python code can write.
RECEIVER = "<receiver>"


def receiver_binding(call: ast.Call, env: Env, caller: Analyzer | None, method: Scope) -> tuple[Bound, ...]:
    """What a method (its scope ``method``) called by ``call`` runs on: the object it is called
    on, or, for a method called on ``self``, the object the calling method runs on. Only for a
    class whose fields its constructor call gives (``_fields_given``): other methods keep one env
    for every object, and so their memo."""
    if not isinstance(call.func, ast.Attribute) or method.cls is None or not _fields_given(method.cls):
        return ()
    held = call.func.value
    if isinstance(held, ast.Name) and held.id == "self":
        bound = env.bound(RECEIVER)
        return () if bound is None else (bound,)
    return (Bound(RECEIVER, held, env, caller),)


def field_argument(part: Component, node: ast.Attribute, env: Env
                   ) -> tuple[ast.expr, Env, Analyzer | None, ast.Call] | None:
    """The argument the object a method runs on was built with for ``self.<field>`` (``node``),
    with the env it is read in, the module that reads it (None: this one) and the constructor
    call; None when the object is not built where the code shows it, by a call of the method's
    own class, or the class has an ``__init__`` of its own (its assignments say what fields hold)."""
    bound = env.bound(RECEIVER)
    cls = env.scope.cls
    if bound is None or cls is None or not isinstance(cls.node, ast.ClassDef) or not _fields_given(cls):
        return None
    scopes = bound.owner.scopes if bound.owner is not None else part.scopes
    built, built_env = scopes.deref(bound.node, bound.env)
    if not isinstance(built, ast.Call) or last_name(built.func) != cls.node.name:
        return None
    if any(k.arg is None for k in built.keywords) or any(isinstance(a, ast.Starred) for a in built.args):
        return None  # `Item(**row)`: a spread may give any field
    keyword = next((k.value for k in built.keywords if k.arg == node.attr), None)
    if keyword is not None:
        return keyword, built_env, bound.owner, built
    fields = [s.target.id for s in cls.node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    index = fields.index(node.attr) if node.attr in fields else -1
    if 0 <= index < len(built.args):
        return built.args[index], built_env, bound.owner, built
    return None


def _fields_given(cls: Scope) -> bool:
    """A class with annotated fields and no ``__init__`` of its own (a dataclass, a NamedTuple, a
    pydantic model): its constructor call gives the fields."""
    return isinstance(cls.node, ast.ClassDef) and "__init__" not in cls.functions and any(
        isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) for s in cls.node.body)


def field_given(sources: Sources, node: ast.Attribute, env: Env) -> Source | None:
    """The third-party content ``self.<field>`` of a dataclass a method runs on holds: what the
    object was built with, with the step that keeps it there."""
    given = field_argument(sources, node, env) if isinstance(node.value, ast.Name) and node.value.id == "self" \
        else None
    if given is None:
        return None
    value, value_env, owner, built = given
    found = (owner.sources if owner is not None else sources).untrusted(value, value_env)
    if found is None:
        return None
    at = (owner.unit if owner is not None else sources.m).span(built)
    step = Evidence(EvidenceKind.FLOW, f"kept as `{node.attr}` of `{last_name(built.func)}(...)`", at)
    found = replace(found, flow=(*found.flow, step))
    return sources.m.adopt_source(found, sources.m.span(node)) if owner is not None else found
