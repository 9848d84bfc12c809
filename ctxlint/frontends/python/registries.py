"""A chat model kept in a registry of models: built as a value of a dict entry
(``models["gpt-4o"] = {"chat_model": ChatOpenAI(...), "description": ...}``) in a function that
returns the dict, which the module keeps (``SUPPORTED_MODELS = get_supported_models()``) and a
module-level function takes the model out of (``return SUPPORTED_MODELS[name]["chat_model"]``).
That function returns the model as a factory does, and its callers send with it
(sentbycallers.py)."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Scope


def registry_getter(m: Unit, call: ast.Call, scope: Scope) -> str | None:
    """The name of the module-level function that takes the model ``call`` builds out of the
    module's registry of models, if the model is kept in one."""
    entry = m.parents.get(id(call))
    key = next((k.value for k, v in zip(entry.keys, entry.values, strict=True) if v is call
                and isinstance(k, ast.Constant) and isinstance(k.value, str)), None) \
        if isinstance(entry, ast.Dict) else None
    stored = m.parents.get(id(entry))
    target = stored.targets[0] if isinstance(stored, ast.Assign) and len(stored.targets) == 1 else None
    fn = scope.node
    if key is None or not isinstance(target, ast.Subscript) or not isinstance(target.value, ast.Name) \
            or scope.kind != "function" or scope.parent is not m.module_scope \
            or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    registry = target.value.id
    if not any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id == registry
               for n in walk(fn)):
        return None
    kept = {s.targets[0].id for s in m.tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Name) and s.value.func.id == fn.name}
    return next((getter.name for getter in m.tree.body if isinstance(getter, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and any(isinstance(n, ast.Return) and _taken_out(n.value, kept, key) for n in walk(getter))), None)


def _taken_out(value: ast.expr | None, kept: set[str], key: str) -> bool:
    """``REGISTRY[name][key]``, of a registry the module keeps."""
    return isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and value.slice.value == key \
        and isinstance(value.value, ast.Subscript) and isinstance(value.value.value, ast.Name) \
        and value.value.value.id in kept
