"""What a method of a class the tree declares returns, called on an instance the code types
(``const researcher = new Researcher(); await researcher.research(...)``): the class is found as
the code declares it (classes.py), in this module or one of the tree, and its method's returns
are read by that module's own analysis, as those of an imported function are."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.typescript.knowledge import Node
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
