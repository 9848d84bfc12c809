"""A request sent from a spread the code cannot read whose limit belongs in a settings dict the
code writes into it just before, whole: ``data["options"] = {"temperature": t}``, then
``client.chat(**data)`` of Ollama's ``options={"num_predict": n}``. Whatever the spread held under
``options`` is replaced by the dict written there, which holds no limit, so the request sends none
although the rest of the spread is unknown.

Kept out: a write that does not run on every path to the call (in a branch the call is not in), a
settings dict with a spread of its own or written through a name, a change made to it after
(``data["options"]["num_predict"] = n``, ``data["options"].update(...)``), and a call with another
spread or ``*args`` besides."""

from __future__ import annotations

import ast

from ctxlint.frameworks import Arg
from ctxlint.frontends.python.flow import Entry
from ctxlint.frontends.python.nodes import BLOCKS, enclosing, statement_of, walk
from ctxlint.frontends.python.unit import Unit


def holder_written_without(m: Unit, specs: tuple[Arg, ...], call: ast.Call,
                           keywords: dict[str, Entry]) -> Entry | None:
    """The settings dict written over the spread's own (``data["options"] = {...}``), when every
    place the limit is looked for is a key of such a dict and none holds it; None otherwise."""
    if any(isinstance(a, ast.Starred) for a in call.args) or sum(k.arg is None for k in call.keywords) != 1:
        return None
    if not specs or any(not spec.key or spec.method is not None or spec.json for spec in specs):
        return None
    found: Entry | None = None
    for spec in specs:
        entry = next((keywords[k] for k in spec.keywords if k in keywords), None)
        if entry is None or any(k.arg in spec.keywords for k in call.keywords):
            return None  # not written over the spread (a keyword of the call is read as usual)
        write = _written_over(m, entry, call)
        if write is None or any(key in spec.key or "." in key for key in _literal_keys(write))\
                or any("." in key for key in spec.key):
            return None
        found = found or entry
    return found


def _written_over(m: Unit, entry: Entry, call: ast.Call) -> ast.Dict | None:
    """The dict literal of ``name["options"] = {...}`` when ``entry`` is that write, it runs on
    every path to ``call``, and nothing changes the dict after it."""
    target, value = entry[2], entry[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
            and isinstance(target.slice, ast.Constant) and isinstance(value, ast.Dict)):
        return None
    if any(k is None for k in value.keys):
        return None  # `{**defaults, "temperature": t}`: the defaults may hold the limit
    statement = statement_of(m.parents, target)
    if not isinstance(statement, ast.Assign) or statement.value is not value or not _dominates(m, statement, call):
        return None
    scope = enclosing(statement, m.parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))
    for node in walk(scope) if scope is not None else ():
        if _reads_item(node, target.value.id, target.slice.value) and node is not target \
                and getattr(node, "lineno", 0) >= statement.lineno and _changed(m, node):
            return None
    return value


def _dominates(m: Unit, statement: ast.stmt, call: ast.Call) -> bool:
    """Whether ``statement`` comes before ``call`` in a block that holds it: it runs on every
    path from the block's start to the call."""
    parent = m.parents.get(id(statement))
    node: ast.AST | None = call
    while node is not None:
        up = m.parents.get(id(node))
        if up is parent:
            blocks = [getattr(parent, f, None) for f in BLOCKS]
            return any(type(b) is list and statement in b and node in b and b.index(statement) < b.index(node)
                       for b in blocks)
        node = up
    return False


def _reads_item(node: ast.AST, name: str, key: object) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
        and isinstance(node.slice, ast.Constant) and node.slice.value == key


def _changed(m: Unit, item: ast.AST) -> bool:
    """Whether ``name["options"]`` is written again, or changed through (``[...] = n``,
    ``.update(...)``, ``.setdefault(...)``, passed to a call that may change it)."""
    if isinstance(getattr(item, "ctx", None), (ast.Store, ast.Del)):
        return True
    parent = m.parents.get(id(item))
    if isinstance(parent, ast.Subscript) and parent.value is item:
        return not isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Attribute) and parent.value is item:
        return parent.attr not in ("get", "copy", "items", "keys", "values")
    return isinstance(parent, (ast.Call, ast.keyword))


def _literal_keys(value: ast.Dict) -> list[str]:
    return [str(k.value) if isinstance(k, ast.Constant) else "." for k in value.keys]
