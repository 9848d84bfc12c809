"""The elements a script read from a page, cut to the first few with nothing to say more exist.

A script an agent runs in a browser page to read it (``(function() { ... })()`` injected through
the DevTools protocol or ``page.evaluate``) often walks the page and collects what it finds, in the
page's order, into arrays it hands back::

    const actions = [];
    function walk(root) {
      for (const el of root.children) { if (isInteractive(el)) actions.push(describe(el)); walk(el); }
    }
    walk(document.body);
    return JSON.stringify({ url: location.href, actions: actions.slice(0, 150) });

The cut keeps the first elements in document order, an order that ranks nothing, and the result
says nothing of the rest: the model takes the elements it got for everything on the page, and says
a button or a paragraph further down is not there. What a script reads from a page is made for a
model wherever it goes (as ``page_cuts`` reads a page's text), so no request need be seen.

Reported: ``items.slice(0, n)`` (``n`` at least ``MIN_ITEMS``) in a function that reads the page
(``document.``), of a local array given ``[]`` and filled with ``.push`` inside a nested function
or a loop of that function, where the cut is what the function returns (in place, or as a property
of an object it returns or serialises with ``JSON.stringify``) and the function never reads the
array's ``length`` (a count of the whole, as a note of how many more would).
"""

from __future__ import annotations

import re

from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.syntax import enclosing, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.model import Cut, Observation, Source, SourceKind

PAGE_ITEMS_CUT = "page-items-cut"
# The fewest elements a cut keeps for it to cut a collection, not pick a sample of a few.
MIN_ITEMS = 10
_FUNCTIONS = ("function_expression", "function_declaration", "arrow_function", "function")
_LOOPS = ("for_statement", "for_in_statement", "while_statement", "do_statement")
# What a cheap look at the module must find first.
_GATE = re.compile(r"\.slice\(\s*0\s*,\s*\d")


def page_item_cuts(m: Module) -> list[Observation]:
    """Every unmarked cut of the elements a page script collected and hands back."""
    if "document." not in m.src.text or ".push(" not in m.src.text or not _GATE.search(m.src.text):
        return []
    found = []
    for node in walk(m.root):
        if node.type == "call_expression":
            observation = _cut(m, node)
            if observation is not None:
                found.append(observation)
    return found


def _cut(m: Module, call: Node) -> Observation | None:
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "member_expression":
        return None
    method, items = callee.child_by_field_name("property"), callee.child_by_field_name("object")
    arguments = call.child_by_field_name("arguments")
    values = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    if method is None or items is None or m.code(method) != "slice" or items.type != "identifier" \
            or len(values) != 2 or m.code(values[0]).strip() != "0" or values[1].type != "number":
        return None
    try:
        kept = int(m.code(values[1]).replace("_", ""))
    except ValueError:
        return None
    function = enclosing(call, _FUNCTIONS)
    if kept < MIN_ITEMS or function is None or "document." not in m.code(function):
        return None
    name = m.code(items)
    if not (_declared_empty(m, function, name) and _pushed_inside(m, function, name) and _handed_back(m, call)) \
            or _counted(m, function, name):
        return None
    detail = " ".join(m.code(call).split())
    span = m.span(call)
    source = Source(SourceKind.TRUNCATION, detail, span, strong=True, kept=kept,
                    cut=Cut("items", "start", PAGE_ITEMS_CUT))
    return Observation(PAGE_ITEMS_CUT, span, "what an agent reads of the page, cut", source=source)


def _declared_empty(m: Module, function: Node, name: str) -> bool:
    """``const actions = [];`` in the function itself."""
    return any(n.type == "variable_declarator" and m.code(n.child_by_field_name("name") or n) == name
               and (value := n.child_by_field_name("value")) is not None and value.type == "array"
               and not value.named_children and (enclosing(n, _FUNCTIONS) or n).id == function.id
               for n in walk(function))


def _pushed_inside(m: Module, function: Node, name: str) -> bool:
    """``actions.push(...)`` in a function nested in ``function`` or in a loop of it: filled as
    the script walks the page."""
    for n in walk(function):
        callee = n.child_by_field_name("function") if n.type == "call_expression" else None
        if callee is None or m.code(callee) != f"{name}.push":
            continue
        parent = n.parent
        while parent is not None and parent.id != function.id:
            if parent.type in _FUNCTIONS or parent.type in _LOOPS:
                return True
            parent = parent.parent
    return False


def _handed_back(m: Module, call: Node) -> bool:
    """The cut is returned: in place, or as a property of an object returned or serialised."""
    node = call.parent
    if node is not None and node.type == "pair":
        node = node.parent.parent if node.parent is not None else None  # the object, then what holds it
        if node is not None and node.type == "arguments":
            holder = node.parent
            callee = holder.child_by_field_name("function") if holder is not None else None
            return callee is not None and m.code(callee) == "JSON.stringify"
    return node is not None and node.type == "return_statement"


def _counted(m: Module, function: Node, name: str) -> bool:
    """The function reads ``name.length``: it can say how many there were."""
    return any(n.type == "member_expression" and m.code(n) == f"{name}.length" for n in walk(function))
