"""Clients of a provider's SDK that a web page points at its own server.

A browser bundle cannot hold a provider key, so an app's front end often builds the SDK's client
with ``baseURL: `${window.location.origin}/v1` `` (or ``"/api/openai"``) and a fake key: its
requests go to the app's own server, which sends them on with its own settings. Such a request is
still the prompt the model reads, but what it says of an output limit is not what the provider
gets: the server decides."""

from __future__ import annotations

from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env

_BASE_KEYS = ("baseURL", "baseUrl")
# What a page's own address is read from.
_OWN_ORIGIN = ("window.location", "location.origin", "location.host", "document.location", "globalThis.location")


def own_server_base(m: Module, names: Names, call: Node, env: Env) -> Node | None:
    """The ``baseURL`` that points the client of ``call`` (``openai.chat.completions.create``)
    at the page's own server, or None."""
    callee = m.unwrap(m.field(call, "function"))
    root = callee
    while root is not None and root.type == "member_expression":
        root = m.unwrap(m.field(root, "object"))
    if root is None or root.type != "identifier":
        return None
    made, made_env = names.deref(root, env)
    if made.type != "new_expression":
        return None
    args = m.args(made)
    options = m.unwrap(args[0]) if args else None
    if options is None or options.type != "object":
        return None
    pairs = m.raw_pairs(options)
    base = next((pairs[key] for key in _BASE_KEYS if key in pairs), None)
    return base if base is not None and _own_origin(m, names, base, made_env) else None


def _own_origin(m: Module, names: Names, base: Node, env: Env) -> bool:
    """A path on the page's own host (``"/v1"``), or an address built from ``window.location``,
    directly or in a function of the module the address calls (``${host()}/v1``)."""
    text = m.string_value(base)
    if text is not None:
        return text.startswith("/") and not text.startswith("//")
    if any(word in m.code(base) for word in _OWN_ORIGIN):
        return True
    stack = [base]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            fn = m.unwrap(m.field(node, "function"))
            found = names.function_for(node, env) if fn is not None and fn.type == "identifier" else None
            if found is not None and any(word in m.code(found[0]) for word in _OWN_ORIGIN):
                return True
        stack.extend(node.named_children)
    return False
