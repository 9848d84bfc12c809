"""A call that builds a plain dict keyed by its keywords: an SDK's request-parameter
``TypedDict`` (``ResponseCreateParamsBase(input=..., model=...)``), or one the project declares
(``class CompleteKwargs(TypedDict)``, called ``CompleteKwargs(model=m, max_tokens=n)`` or, nested
in a class, ``self.CompleteKwargs(...)``). Its keywords are the keys a ``**`` spread of it gives."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env, own_class

if TYPE_CHECKING:
    from ctxlint.frontends.python.callees import Callees

# The bases of a class whose objects are plain dicts, keyed by what they are built with.
_TYPED_DICTS = frozenset({"typing.TypedDict", "typing_extensions.TypedDict"})


def typed_dict(m: Unit, callees: Callees, call: ast.Call, env: Env) -> bool:
    """Whether ``call``, given keywords alone, builds a ``TypedDict``: of a library, named for a
    request's parameters, or of the project."""
    if call.args or any(k.arg is None for k in call.keywords):
        return False
    name = last_name(call.func) or ""
    if name[:1].isupper() and name.endswith(("Params", "Param", "ParamsBase")) \
            and m.catalogue.from_library(m.qualified(call.func) or ""):
        return True
    return _own_typed_dict(m, callees, call, env)


def _own_typed_dict(m: Unit, callees: Callees, call: ast.Call, env: Env) -> bool:
    func, found = call.func, None
    if isinstance(func, ast.Name):
        found = callees.class_named(func.id, env.scope, foreign=True)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and (cls := own_class(func.value.id, env.scope)) is not None:
        nested = cls.functions.get(func.attr)
        found = (None, nested[1]) if nested is not None and isinstance(nested[0], ast.ClassDef) else None
    if found is None or not isinstance(found[1].node, ast.ClassDef):
        return False
    unit = found[0].unit if found[0] is not None else m
    return any(unit.qualified(base) in _TYPED_DICTS for base in found[1].node.bases)
