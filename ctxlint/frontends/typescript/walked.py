"""The collection a loop variable walks, in its order: ``p`` in ``paths.forEach((p) => ...)`` or
``for (const p of paths)``. A piece of text that reads ``p`` in another module's function, where
``paths`` is a parameter, takes its order (and what else is known of it) from the argument the
caller gives for ``paths`` (strings.py, ``with_arguments``): a glob's listing passed to a helper
that writes one line per path comes back as text in the file system's order."""

from __future__ import annotations

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.unit import Module


def walked_collection(m: Module, read: Node) -> Node | None:
    """The collection whose items the name ``read`` takes one by one, in its order: ``p`` in
    ``paths.forEach((p) => ...)`` (or ``map``, ``flatMap``, ``filter``), or in
    ``for (const p of paths)``; None when ``read`` is no such name."""
    if read.type != "identifier":
        return None
    name = m.code(read)
    current = read.parent
    while current is not None:
        if current.type == "for_in_statement" and any(c.type == "of" for c in current.children):
            left = m.field(current, "left")
            if left is not None and name in {m.code(n) for n in walk(left) if n.type == "identifier"}:
                return m.unwrap(m.field(current, "right"))
        elif current.type in FUNCTIONS:
            declared = m.field(current, "parameters") or m.field(current, "parameter")
            if declared is not None and name in {m.code(n) for n in walk(declared) if n.type == "identifier"}:
                return _walked_by_callback(m, current)
        current = current.parent
    return None


def _walked_by_callback(m: Module, function: Node) -> Node | None:
    """``paths`` when ``function`` is the first argument of ``paths.forEach(...)`` and the like."""
    arguments = function.parent
    call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
    if call is None or call.type != "call_expression" or m.args(call)[:1] != [function]:
        return None
    callee = m.unwrap(m.field(call, "function"))
    if callee is None or callee.type != "member_expression":
        return None
    if m.code(m.field(callee, "property")) not in ("forEach", "map", "flatMap", "filter"):
        return None
    return m.unwrap(m.field(callee, "object"))
