"""The app's own API route a body is posted to, when it forwards that body to a model.

A body posted to a path of the app's own (``fetch("/api/responses", {body})``) is no request of a
model by itself: the server route sends one, with settings of its own. Some routes are proxies:
they read the body they are posted and spread it into the SDK call
(``openai.responses.create({...body, stream: false})`` of ``const body = await req.json()``). The
body the browser posts is then the request's settings, and its missing output limit is missing
from the request. Routes are found where Next.js keeps them (``app/api/x/route.ts``,
``pages/api/x.ts``, under ``src/`` too)."""

from __future__ import annotations

import os

from ctxlint.frameworks.typescript import TsSink
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env
from ctxlint.providers import LIMIT_KEYS

# Where Next.js keeps the handler of the path `/api/x` (without the file's suffix).
_ROUTE_FILES = ("app{path}/route", "pages{path}", "pages{path}/index")


def forwarding_route(m: Module, names: Names, url: Node, env: Env) -> TsSink | None:
    """The sink of the route the URL names, when that route spreads the body it is posted into the
    sink's options and sets no output limit of its own; None otherwise (or when the URL is not a
    path written out, or the tree's root is not known)."""
    path = _written_path(m, names, url, env)
    root = m.project.root
    if path is None or not root:
        return None
    for base in ("", "src/"):
        for pattern in _ROUTE_FILES:
            route = m.project.read_file(os.path.join(root, base + pattern.format(path=path)))
            if route is not None and (sink := _spread_body_sink(route.m)) is not None:
                return sink
    return None


def _written_path(m: Module, names: Names, url: Node, env: Env) -> str | None:
    """The path a URL names when it is written out whole (``"/api/responses"``), without a query."""
    node, _ = names.deref(url, env)
    node = m.unwrap(node)
    if node.type == "string":
        text = m.string_value(node)
    elif node.type == "template_string" and "${" not in m.code(node):
        text = m.code(node)[1:-1]
    else:
        return None
    path = (text or "").split("?", 1)[0].rstrip("/")
    return path if path.startswith("/") and not path.startswith("//") and ".." not in path else None


def _spread_body_sink(route: Module) -> TsSink | None:
    """The first of the route module's sink calls whose options object spreads the body the route
    reads (a name given ``await request.json()``, or a parameter of that name the body is handed
    to) and names no output limit: read once per module, however many posts name the route."""
    if route.route_sink is None:
        route.route_sink = (_read_spread_body_sink(route),)
    return route.route_sink[0]


def _read_spread_body_sink(route: Module) -> TsSink | None:
    bodies = {route.code(name) for node in walk(route.root) if node.type == "variable_declarator"
              and (name := route.field(node, "name")) is not None and name.type == "identifier"
              and _reads_json(route, route.field(node, "value"))}
    if not bodies:
        return None
    for call, _ in route.calls:
        sink = route.sink_of(call)
        args = route.args(call) if sink is not None else []
        options = route.unwrap(args[0]) if args else None
        if sink is None or options is None or options.type != "object":
            continue
        members = options.named_children
        spread = any(c.type == "spread_element" and c.named_children
                     and route.code(route.unwrap(c.named_children[0])) in bodies for c in members)
        limited = any(c.type == "pair" and route.key_text(route.field(c, "key")) in LIMIT_KEYS for c in members)
        if spread and not limited:
            return sink
    return None


def _reads_json(route: Module, value: Node | None) -> bool:
    """``await req.json()`` (or ``req.json()``): the body a route handler is posted."""
    value = route.unwrap(value) if value is not None else None
    if value is not None and value.type == "await_expression" and value.named_children:
        value = route.unwrap(value.named_children[0])
    callee = route.field(value, "function") if value is not None and value.type == "call_expression" else None
    prop = route.field(callee, "property") if callee is not None and callee.type == "member_expression" else None
    return prop is not None and route.code(prop) == "json" and not route.args(value)
