"""Cuts sized by the model's context window: the code cuts the text so that the model can read it,
so the model was meant to read all of it, and a text longer than the window is the common case.

The bound names the window (``prompt[:int(config.context_window * 0.9)]``), or the project helper
that makes the cut does, by its name or in the bound it cuts to (``def trim_text_to_max_ctx(self,
text): return text[:ideal_ctx] if ideal_ctx is not None else text``).
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Evidence, EvidenceKind

# A name of the model's context window (`context_window`, `n_ctx`, `max_ctx`, `model_max_length`);
# not a run's context object (`ctx`), nor the length of a text called context (`max_context_length`,
# `max_context_size`, `context_above`).
_WINDOW = re.compile(r"(?:^|_)(?:\w+_ctx|context_window|max_model_len|model_max_length)(?:_|$)", re.IGNORECASE)


def names_window(name: str) -> bool:
    return _WINDOW.search(name) is not None


def window_sized(m: Unit, node: ast.Subscript | ast.Call,
                 helper: ast.FunctionDef | ast.AsyncFunctionDef | None) -> tuple[Evidence, ...]:
    """Where a cut (a slice, or a call of the project ``helper`` that returns a cut of its
    argument) is sized by the model's context window; empty when nothing says so."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        bound = node.slice.upper if node.slice.upper is not None else node.slice.lower
        named = _leaves(bound)
        said = next((n for n in named if names_window(n.id if isinstance(n, ast.Name) else n.attr)), None)
        return () if said is None else (Evidence(
            EvidenceKind.SOURCE, f"its length is the model's context window (`{m.code(said)}`)", m.span(said),
            strong=False),)
    if helper is None:
        return ()
    bounds = [n.slice for n in ast.walk(helper) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)]
    named_in_bounds = [n.id if isinstance(n, ast.Name) else n.attr for b in bounds for n in _leaves(b)]
    said_name = next((n for n in (helper.name, *named_in_bounds) if names_window(n)), None)
    return () if said_name is None else (Evidence(
        EvidenceKind.SOURCE, f"`{helper.name}` cuts to the model's context window (`{said_name}`)", m.span(node),
        strong=False),)


def _leaves(bound: ast.AST | None) -> list[ast.Name | ast.Attribute]:
    """The names a bound reads, each by its last part (``config.context_window``, not ``config``)."""
    nodes = list(ast.walk(bound or ast.Pass()))
    inner = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
    return [n for n in nodes if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in inner]
