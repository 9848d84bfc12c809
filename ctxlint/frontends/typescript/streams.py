"""Third-party content that arrives through callbacks: what a command prints on its output stream,
and what a promise the code makes resolves with.

``const child = spawn("git", ["log", "-p"])`` gives no output as a value: each chunk comes to the
callback of ``child.stdout.on("data", (chunk) => { out += chunk })``, and a helper hands the whole
back with ``return new Promise((resolve) => child.on("close", () => resolve(out)))``. The chunk is
the command's output (the catalogue's ``processes.streams``: calls whose result emits it on
``stdout``); the promise resolves with what its executor passes to ``resolve``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.values import Env, Scope, described
from ctxlint.model import Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.sources import Sources

_DATA_EVENTS = ("data",)
_MAX_RESOLVES = 8  # calls of `resolve` read in one executor


def stream_chunk(sources: Sources, scope: Scope, name: str) -> Source | None:
    """What the parameter ``name`` of the callback ``scope`` is given when the callback listens to
    the output stream of a command (``child.stdout.on("data", (chunk) => ...)``)."""
    m = sources.m
    callback = scope.node
    arguments = callback.parent
    call = arguments.parent if arguments is not None else None
    if call is None or call.type != "call_expression" or scope.positional[:1] != [name]:
        return None
    args = m.args(call)
    callee = m.unwrap(m.field(call, "function"))
    if len(args) != 2 or args[1] != callback or callee is None or callee.type != "member_expression":
        return None
    if m.code(m.field(callee, "property")) not in ("on", "once") or m.string_value(args[0]) not in _DATA_EVENTS:
        return None
    stream = m.unwrap(m.field(callee, "object"))
    if stream is None or stream.type != "member_expression" or (
            sources.names.property_key(stream) not in m.ts.source("processes", "attributes")):
        return None
    carrier = sources.carrier(m.field(stream, "object"), Env(m.innermost_scope(call)))
    if carrier is None or carrier[1] != "stream":
        return None
    return Source(SourceKind.UNTRUSTED, described("process", f"{carrier[0]}.{m.code(stream).rsplit('.', 1)[-1]}"),
                  m.span(callback), strong=carrier[2], origin="subprocess")


def constructed(sources: Sources, node: Node, env: Env) -> Source | None:
    """What an object constructed around third-party content holds (``new JSDOM(html)``), and what
    a promise the code makes resolves with (``new Promise((resolve) => ... resolve(out))``)."""
    m = sources.m
    constructor = m.unwrap(m.field(node, "constructor"))
    args = m.args(node)
    if constructor is not None and m.code(constructor) == "Promise" and args and args[0].type in FUNCTIONS:
        return _resolved(sources, args[0])
    for arg in args:
        found = None if arg.type in FUNCTIONS else sources.untrusted(arg, env)
        if found is not None:
            return found
    return None


def _resolved(sources: Sources, executor: Node) -> Source | None:
    m = sources.m
    function = m.function_of(executor)
    if function is None or not function.scope.positional or not function.scope.positional[0]:
        return None
    resolve = function.scope.positional[0]
    seen = 0
    for call in walk(m.field(executor, "body") or executor):
        callee = m.field(call, "function") if call.type == "call_expression" else None
        if callee is None or callee.type != "identifier" or m.code(callee) != resolve:
            continue
        seen += 1
        given = m.args(call)
        found = sources.untrusted(given[0], Env(m.innermost_scope(call))) if given else None
        if found is not None or seen >= _MAX_RESOLVES:
            return found
    return None
