"""Items of a declared type whose text field another module of the tree renders into a message.

``interface ContextItem { name: string; content: string }``: a provider returns
``[{ name: title, content: markdown }]`` from a fetched page, and another module of the tree joins
the items' text (``items.map((item) => item.content).join("\\n\\n")``) into the message it sends.
Neither shows the other: the provider builds no prompt, the renderer reads a field of any item.
The field's value is then the whole of what the model is shown of the item, with nothing else
the item carries (its name, its address) around it: third-party text there is unlabelled unless
the value itself marks it (``<page url="...">${markdown}</page>``).

The tree's renderers are found by the text scan of the tree index (classes.py); the items, in the
functions whose declared return type is an array of such a type (``Promise<ContextItem[]>``):
the object literals they return, written out or made by a ``.map`` of a collection. Each field
value that carries third-party content becomes a user message of its own.
"""

from __future__ import annotations

import re

from ctxlint.frontends.typescript.classes import tree_index
from ctxlint.frontends.typescript.fills import written_keys
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.sources import Sources
from ctxlint.frontends.typescript.strings import Strings
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, RequestBuilder
from ctxlint.model import Request, Role

_MAX_ITEMS = 64  # object literals read per function


def rendered_types(root: str, text: str) -> dict[str, set[str]]:
    """The declared types the tree under ``root`` renders a field of, that ``text`` returns arrays of."""
    index = tree_index(root) if root else None
    if index is None or not index.rendered:
        return {}
    return {t: fields for t, fields in index.rendered.items() if re.search(rf"\b{re.escape(t)}\[\]", text)}


def rendered_parts(m: Module, sources: Sources, strings: Strings) -> list[Request]:
    types = rendered_types(m.project.root, m.src.text)
    requests: list[Request] = []
    for scope in m.all_scopes() if types else ():
        annotation = m.field(scope.node, "return_type")
        said = m.code(annotation) if annotation is not None else ""
        fields = {f for t, fs in types.items() if re.search(rf"\b{re.escape(t)}\[\]", said) for f in fs}
        if not fields:
            continue
        objects = [o for returned in scope.returns for o in _items(m, returned)][:_MAX_ITEMS]
        for obj in objects:
            written = written_keys(m, obj) or {}
            for key in sorted(fields & set(written)):
                value = written[key]
                env = Env(m.innermost_scope(value))  # a `.map` callback's own, where the item is written
                if sources.untrusted(value, env) is None:
                    continue
                builder = RequestBuilder()
                builder.add(strings.pieces(value, env), Role.USER)
                requests.append(Request(m.path, m.span(value), tuple(builder.segments)))
    return requests


def _items(m: Module, node: Node) -> list[Node]:
    """The object literals ``node`` gives as the items of an array: written out, spread from a
    ``.map`` whose callback returns one, or the array of a ``Promise.all`` over such a ``.map``."""
    node = m.unwrap(node)
    if node.type == "await_expression":
        inner = next((c for c in node.named_children if c.type != "comment"), None)
        return _items(m, inner) if inner is not None else []
    if node.type == "array":
        found = []
        for child in node.named_children:
            if child.type == "object":
                found.append(child)
            elif child.type == "spread_element" and child.named_children:
                found.extend(_items(m, child.named_children[0]))
        return found
    if node.type != "call_expression":
        return []
    callee = m.unwrap(m.field(node, "function"))
    args = m.args(node)
    if callee is None or callee.type != "member_expression" or not args:
        return []
    method = m.code(m.field(callee, "property"))
    if method == "all" and m.code(m.field(callee, "object")) == "Promise":
        return _items(m, args[0])
    if method in ("reverse", "filter", "slice", "concat"):
        return _items(m, m.field(callee, "object"))
    if method != "map" or args[0].type not in ("arrow_function", "function_expression", "function"):
        return []
    callback = m.function_of(args[0])
    returned = [m.unwrap(r) for r in callback.scope.returns] if callback is not None else []
    return [r for r in returned if r.type == "object"]
