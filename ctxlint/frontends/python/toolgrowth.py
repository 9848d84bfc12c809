"""A tool added, on every request, to the list of tools an object keeps::

    def __init__(self):
        self.tools = [search, fetch]

    def answer(self, question):
        tools = self.tools                # the object's own list, not a copy
        if self.index is not None:
            tools.append(Tool.from_function(func=self.query_index, name="query_knowledge_base", ...))
        agent = create_tool_calling_agent(self.llm, tools, prompt)

Each call of ``answer`` adds one more copy of the tool to ``self.tools``, which nothing empties:
the request offers a duplicate name (which providers reject) and the catalogue grows without
bound over a conversation. The addition must be made in a method other than the constructor, the
one that sends the request (or a function nested in it), to the object's list itself (directly
or through a local name bound to it), with no assignment of the attribute in that method and no
test of what the list holds around it (``if tool not in self.tools:``).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.values import Assign, Env, Scope, own_class
from ctxlint.model import Accumulated, Evidence, EvidenceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.tools import Tools
    from ctxlint.frontends.python.unit import Unit

_ADDS = frozenset({"append", "extend", "insert", "+="})


def accumulated(tools: Tools, node: ast.expr, env: Env) -> Accumulated | None:
    """The list ``node`` holds and the steps showing that a tool is added to it on every call of
    the method sending it; None when nothing shows that."""
    m = tools.m
    target, additions = node, []
    if isinstance(node, ast.Name):
        binding = tools.scopes.resolve(node, env)
        if binding is None or binding.owner is not None:
            return None
        target = binding.value
        additions = [(extra, binding.extras_env.scope) for extra in binding.extras]
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return None
    method = _method(env.scope)  # `self` of a function nested in a method is the method's
    cls = own_class(target.value.id, method) if method is not None else None
    if method is None or cls is None or getattr(method.node, "name", "") == "__init__":
        return None
    records = cls.assigns.get(target.attr) or []
    if not any(r.kind == "=" for r in records) or any(
            r.kind == "=" and _within(m, r.home.node, method.node) for r in records):
        return None  # never set, or set again by the method itself: a fresh list each call
    additions += [(r, r.home) for r in records if r.kind in _ADDS and _within(m, r.home.node, method.node)]
    for extra, _ in additions:
        if extra.kind not in _ADDS or extra.value is None or extra.loops or _tested(m, extra, target.attr, method):
            continue
        base = next(r for r in records if r.kind == "=")
        name = getattr(method.node, "name", "?")
        kept = base.target or base.value
        return Accumulated(f"`self.{target.attr}`", (
            Evidence(EvidenceKind.SOURCE, f"`self.{target.attr}`: a list the object keeps from call to call",
                     m.span(kept) if kept is not None else None),
            Evidence(EvidenceKind.FLOW, f"a tool added to it on every call of `{name}`, never removed",
                     m.span(extra.value))))
    return None


def _method(scope: Scope) -> Scope | None:
    """The method ``scope`` is, or is nested in."""
    current: Scope | None = scope
    while current is not None:
        if current.kind == "function" and current.cls is not None:
            return current
        current = current.parent
    return None


def _within(m: Unit, inner: ast.AST, outer: ast.AST) -> bool:
    if not isinstance(inner, (ast.stmt, ast.expr)) or not isinstance(outer, (ast.stmt, ast.expr)):
        return False  # a module or class scope: not within a method
    return m.start(outer) <= m.start(inner) and m.end(inner) <= m.end(outer)


def _tested(m: Unit, extra: Assign, attr: str, method: Scope) -> bool:
    """Whether an ``if`` around the addition tests what the list holds (``if tool not in tools``,
    ``if not self.tools``) or whether it names the attribute."""
    parents = m.parents
    at = parents.get(id(extra.value))
    while at is not None and at is not method.node:
        if isinstance(at, ast.If) and any(
                isinstance(part, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in part.ops)
                or isinstance(part, ast.Attribute) and part.attr == attr for part in ast.walk(at.test)):
            return True
        at = parents.get(id(at))
    return False
