"""What a wrapper's parameter holds when its caller leaves it out: nothing (a None or empty
default the function never sets), or a value of the function's own that it falls back on
(``max_tokens = max_tokens or DEFAULT_MAX_TOKENS``)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.nodes import kept_default, none_written, walk
from ctxlint.frontends.python.scopes import FunctionNode

if TYPE_CHECKING:
    from ctxlint.frontends.python.flow import Flow
    from ctxlint.frontends.python.scopes import Scopes
    from ctxlint.frontends.python.values import Env


def falls_back(fn: FunctionNode, name: str, call: ast.Call) -> bool:
    """Whether ``fn`` gives its parameter ``name`` a value of its own before ``call`` when the caller
    gives none (``max_tokens = max_tokens or DEFAULT_MAX_TOKENS``, ``if max_tokens is None:
    max_tokens = 4000``): the request always has a limit, whatever the caller passes."""
    for node in walk(fn):
        if not (isinstance(node, ast.Assign) and node.lineno < call.lineno
                and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)):
            continue
        value = node.value
        if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and not none_written(value.values[-1]):
            return True
        if isinstance(value, ast.IfExp) and not none_written(value.body) and not none_written(value.orelse):
            return True
        if isinstance(value, ast.Constant) and value.value is not None:  # under `if max_tokens is None:`
            return True
    return False


def empty_by_default(fn: FunctionNode, name: str) -> bool:
    """Whether ``fn``'s parameter ``name`` holds nothing when a call leaves it out: its default is
    None or an empty literal (``format_msgs: list | None = None``), and ``fn`` never sets it."""
    default = kept_default(fn, name)
    return default is not None and (none_written(default) or _empty_literal(default))


def _empty_literal(node: ast.expr) -> bool:
    return (isinstance(node, (ast.List, ast.Tuple)) and not node.elts) or \
        (isinstance(node, ast.Dict) and not node.keys) or (isinstance(node, ast.Constant) and node.value == "")


def fallback_literal(scopes: Scopes, flow: Flow, node: ast.expr, env: Env) -> str | None:
    """The literal a name falls back on unless a caller gives another value: ``"gemini-2.5-flash-image"``
    for ``self.model_name`` of ``self.model_name = model_name or self.DEFAULT_MODEL`` (the model a
    request names by default)."""
    binding = scopes.resolve(node, env) if isinstance(node, (ast.Name, ast.Attribute)) else None
    value = binding.value if binding is not None else None
    if binding is None or not (isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or)):
        return None
    return flow.literal_str(value.values[-1], binding.env)
