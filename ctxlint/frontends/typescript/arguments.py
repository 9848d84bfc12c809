"""What a call's argument tells about the slots of the text the called function returns beyond
its own value: that it is a loop's counter, so the text differs on every pass of the loop."""

from __future__ import annotations

from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.unit import Module
from ctxlint.model import Source, SourceKind


def loop_counter(m: Module, argument: Node, call: Node) -> Source | None:
    """``for (let i = 0; i < n; i++) { ... prompt(i) ... }``: the argument is the counter of a
    ``for`` loop the call runs in, so the text built from it differs on every pass of the loop
    (an agent's iteration number, sent with each of its requests)."""
    argument = m.unwrap(argument)
    if argument is None or argument.type != "identifier":
        return None
    name = m.code(argument)
    node: Node | None = call.parent
    while node is not None and node.type not in ("function_declaration", "arrow_function", "method_definition",
                                                   "function_expression", "program"):
        if node.type == "for_statement" and _counts(m, node, name):
            return Source(SourceKind.PER_ITERATION, f"the counter of the loop at line {node.start_point[0] + 1}",
                          m.span(argument))
        node = node.parent
    return None


def _counts(m: Module, loop: Node, name: str) -> bool:
    """Whether ``loop`` declares ``name`` in its initializer and steps it in its increment."""
    initializer, increment = m.field(loop, "initializer"), m.field(loop, "increment")
    if initializer is None or increment is None or increment.type not in ("update_expression",
                                                                          "augmented_assignment_expression"):
        return False
    declared = {m.code(m.field(d, "name")) for d in initializer.named_children
                if d.type == "variable_declarator" and m.field(d, "name") is not None}
    stepped = m.field(increment, "argument") if increment.type == "update_expression" else m.field(increment, "left")
    return name in declared and stepped is not None and m.code(stepped) == name
