"""Requests sent only to see whether they go through: an access or connectivity check whose answer
no code reads (``try: client.invoke_model(...)`` with the result thrown away, ``if response.status_code
== 200:``). An output limit changes nothing the program does with them (rules/**/CTX201)."""

from __future__ import annotations

import ast
from dataclasses import replace

from ctxlint.frontends.python.knowledge import RESPONSE_STATUS
from ctxlint.frontends.python.nodes import reads_of
from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Request

# What reading a response for whether it went through looks like: nothing of its answer.
_STATUS = RESPONSE_STATUS | {"ok", "raise_for_status"}


def unread_answers(unit: Unit, requests: list[Request]) -> list[Request]:
    """``requests`` with each one a probe sends marked as one whose answer is never read."""
    if not requests:
        return requests
    lines = {r.anchor.line for r in requests}  # only a call on a request's line can be its anchor
    calls = {unit.span(call): call for call, _ in unit.calls if call.lineno in lines}
    return [replace(r, answer_read=False) if (call := calls.get(r.anchor)) is not None and probe(unit, call) else r
            for r in requests]


def probe(unit: Unit, call: ast.Call) -> bool:
    """Whether the answer of ``call`` is never read: thrown away inside a ``try`` (what is learnt is
    whether it raises), or kept in a name that is only asked for its status."""
    node: ast.AST = call
    parent = unit.parents.get(id(node))
    if isinstance(parent, ast.Await):
        node, parent = parent, unit.parents.get(id(parent))
    if isinstance(parent, ast.Expr):
        return _in_try(unit, parent)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    scope = unit.scope_of(call)
    fn = scope.node if scope is not None else None
    reads = reads_of(fn, parent.targets[0].id, parent) if fn is not None else []
    return bool(reads) and all(isinstance(attr := unit.parents.get(id(read)), ast.Attribute) and attr.attr in _STATUS
                               for read in reads)


def _in_try(unit: Unit, statement: ast.stmt) -> bool:
    """Whether ``statement`` runs in the body of a ``try`` that handles an exception."""
    child: ast.AST = statement
    node = unit.parents.get(id(statement))
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(node, ast.Try) and node.handlers and child in node.body:
            return True
        child, node = node, unit.parents.get(id(node))
    return False
