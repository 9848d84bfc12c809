"""Objects of the tree's own making that give third-party content: an instance of a class the tree
declares, whose method returns it (``const researcher = new Researcher(); await
researcher.research(...)``: the class is found as the code declares it, classes.py, and the
method's returns are read by its module's own analysis, as those of an imported function are);
and a client an HTTP library makes (``axios.create({...})``), exported by one module and used by
another."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env
from ctxlint.model import Evidence, EvidenceKind, Source

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.classes import Classes
    from ctxlint.frontends.typescript.sources import Sources


def method_returns(sources: Sources, classes: Classes, call: Node, receiver: Node, method: str,
                   env: Env) -> Source | None:
    """The third-party content the method ``method`` of the class ``receiver`` is declared with
    returns, or None (an instance of no class the tree declares, or a method that returns none)."""
    typed = classes.expression_type(receiver, env)
    found = typed[0].method(typed[1], method) if typed is not None else None
    if found is None:
        return None
    owner, _, node = found
    m = sources.m
    other = owner.m is not m
    analysis = m.project.read_file(owner.m.path) if other else None
    reader = analysis.sources if analysis is not None else sources
    function = reader.m.function_of(node)
    if function is None or (other and analysis is None):
        return None
    returned = reader.returned_untrusted(Env(function.scope, (), env.depth + 1))
    if returned is None or (other and not reader.carried_across(returned)):
        return None
    where = f" ({os.path.basename(owner.m.path)})" if other else ""
    step = Evidence(EvidenceKind.FLOW, f"returned by `{m.code(m.field(call, 'function'))}()`{where}", m.span(call))
    return replace(returned, flow=(*returned.flow, step))


def made_client(sources: Sources, node: Node | None, env: Env) -> bool:
    """Whether ``node`` names a client an HTTP library makes (``const api = axios.create({...})``),
    bound in this module or imported from the module of the tree that makes and exports it: its
    verbs (``api.post(url)``) make requests as the library's own do."""
    m = sources.m
    if node is None or node.type != "identifier":
        return False
    binding = sources.names.resolve(node, env)
    if binding is not None:
        return binding.value is not None and _creates(m, binding.value, sources)
    imported = sources.classes.imported(m.code(node)) if sources.classes is not None else None
    if imported is None:
        return False
    owner, exported = imported
    records = owner.m.module_scope.assigns.get(exported) or []
    value = records[-1].value if len(records) == 1 else None
    return value is not None and _creates(owner.m, value, sources)


def _creates(m: Module, value: Node, sources: Sources) -> bool:
    value = m.unwrap(value)
    callee = m.unwrap(m.field(value, "function")) if value.type == "call_expression" else None
    if callee is None or callee.type != "member_expression" or m.code(m.field(callee, "property")) != "create":
        return False
    library = m.code(m.field(callee, "object"))
    clients = sources.m.ts.source("http", "clients")
    return library in clients or m.imports.get(library, "").split(".")[0] in clients
