"""Tool catalogues with no cap: a request that offers one tool per item of a collection whose size
the code does not decide (every tool an MCP server lists, every function a registry or a database
holds, every operation of a loaded spec).

The collection must come from a call made on the way (a server's listing, a query, a project
function that does not return a fixed list), with no slice, no count given to the call, no
``break`` and no selection (``if tool.name in chosen``) between it and the tool. A function's
parameter is its caller's choice (an adapter converting the tools it is given), an object's
attribute its configuration, and a list written in the code a fixed registry: none of them is
reported. What the tool rules then say about the request rests on this kind of evidence alone.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from ctxlint.frontends.python.knowledge import tool_shaped
from ctxlint.frontends.python.tool_shapes import PROVIDER_TOOL_KEYS
from ctxlint.frontends.python.values import Assign, Env, Item, Loop
from ctxlint.model import Evidence, EvidenceKind, Request, Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.tools import Tools

_MAX_DEPTH = 6
# Calls that pass their first argument's items on, in the same number.
_PASS_ON = frozenset({"sorted", "list", "tuple", "reversed", "enumerate", "iter", "set", "frozenset"})
# Methods that give a mapping's items, keys or values, or a copy.
_VIEWS = frozenset({"items", "values", "keys", "copy"})
# Calls whose result is a file the project ships (a tool registry written as data), or a number.
_FIXED_CALLS = frozenset({"json.load", "json.loads", "yaml.load", "yaml.safe_load", "tomllib.load",
                          "tomllib.loads", "range", "zip", "len", "dict", "map", "filter"})
# A keyword that tells a call how many items to return (a retriever's top-k, a page size).
_COUNT_WORDS = ("k", "n", "top", "limit", "max", "count", "size", "first", "last")


def uncapped(tools: Tools, item: Item) -> tuple[Evidence, ...]:
    """The steps showing that ``item``, a tool of a tool list, is made once per item of a
    collection nothing caps; empty when a loop around it is capped or selects, or when no loop
    runs over a collection some call on the way gives."""
    if not item.repeats or any(_selects(tools, repeat, item.node) for repeat in item.repeats):
        return ()
    for repeat in reversed(item.repeats):  # the innermost loop names the collection its tools come from
        found = _origin(tools, repeat.iter, item.env, 0)
        if found is not None:
            m = tools.m
            return (Evidence(EvidenceKind.SOURCE, f"`{_short(found)}`: a collection whose size nothing "
                                                  "here caps", m.span(found)),
                    Evidence(EvidenceKind.FLOW, f"one tool made per item of `{_short(repeat.iter)}`",
                             m.span(item.node)))
    return ()


def _selects(tools: Tools, repeat: ast.For | ast.AsyncFor | ast.comprehension, node: ast.expr) -> bool:
    """Whether the loop stops early (``break``) or keeps only some items: a test other than
    whether a value is there (``if data:``, ``is not None``) around the tool or before a ``continue``."""
    if isinstance(repeat, ast.comprehension):
        return any(not _presence(test) for test in repeat.ifs)
    parents = tools.m.parents
    at: ast.AST | None = parents.get(id(node))
    while at is not None and at is not repeat:
        if isinstance(at, ast.If) and not _presence(at.test):
            return True
        at = parents.get(id(at))
    for inner in _own_statements(repeat.body):
        if isinstance(inner, ast.Break):
            return True
        if isinstance(inner, ast.If) and not _presence(inner.test) and any(
                isinstance(s, ast.Continue) for s in _own_statements(inner.body + inner.orelse)):
            return True
    return False


def _own_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a loop's body, nested blocks included, but not those of an inner loop
    or function (whose ``break`` and ``continue`` are theirs)."""
    found: list[ast.stmt] = []
    stack = list(body)
    while stack:
        statement = stack.pop()
        found.append(statement)
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                                  ast.ClassDef)):
            continue
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                stack.append(child)
            elif isinstance(child, ast.ExceptHandler):
                stack.extend(child.body)
    return found


def _presence(test: ast.expr) -> bool:
    """A test of whether a value is there, not a choice among items: ``if data``, ``if not x``,
    ``x is None``, ``isinstance(x, T)``."""
    if isinstance(test, (ast.Name, ast.Attribute, ast.Subscript)):
        return True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _presence(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)):
        return isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"


def _origin(tools: Tools, node: ast.expr, env: Env, depth: int) -> ast.Call | None:
    """The call whose result a loop runs over, when nothing on the way fixes or cuts its size."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Await):
        return _origin(tools, node.value, env, depth + 1)
    if isinstance(node, ast.Call):
        return _called(tools, node, env, depth)
    if isinstance(node, ast.Subscript):
        return None if isinstance(node.slice, ast.Slice) else _origin(tools, node.value, env, depth + 1)
    if isinstance(node, ast.Attribute):
        # `result.tools` of a listing; `self.tools` is the object's configuration
        return None if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls") \
            else _origin(tools, node.value, env, depth + 1)
    if not isinstance(node, ast.Name):
        return None
    bound = env.bound(node.id)
    if bound is not None:  # a parameter read with the argument a call gives it
        return _origin(tools, bound.node, bound.env, depth + 1)
    if node.id in env.scope.params:
        return None  # the caller's collection: a function that converts the tools it is given
    binding = tools.scopes.resolve(node, env)
    if binding is None or binding.owner is not None or binding.extras:
        return None  # unknown, another module's, or a list this code fills itself
    value = binding.value
    if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)) and len(value.generators) == 1:
        generator = value.generators[0]
        if any(not _presence(test) for test in generator.ifs):
            return None
        return _origin(tools, generator.iter, binding.env, depth + 1)
    return _origin(tools, value, binding.env, depth + 1)


def _called(tools: Tools, call: ast.Call, env: Env, depth: int) -> ast.Call | None:
    qualified = tools.m.qualified(call.func) or ""
    func = call.func
    if isinstance(func, ast.Name) and func.id in _PASS_ON and call.args:
        return _origin(tools, call.args[0], env, depth + 1)
    if isinstance(func, ast.Attribute) and func.attr in _VIEWS and not call.args:
        return _origin(tools, func.value, env, depth + 1)
    if isinstance(func, ast.Attribute) and func.attr == "get" and call.args:
        return _origin(tools, func.value, env, depth + 1)  # `data.get("tools")`: a lookup, like `data["tools"]`
    if qualified in _FIXED_CALLS or _counted(call) or any(_collection(tools, a, env, depth) for a in call.args):
        return None
    target = tools.callees.function_for(call, env)
    if target is not None and target.owner is None and all(
            _origin(tools, r, target.env, depth + 1) is None for r in target.returns):
        return None  # a function of the module that returns a list it writes out or holds: a fixed registry
    return call


def _collection(tools: Tools, node: ast.expr, env: Env, depth: int) -> bool:
    """Whether an argument is a list the code already holds (``keep(tools, config)``): the call
    then picks from a collection, and may keep only some of it."""
    if not isinstance(node, ast.Name):
        return False
    binding = tools.scopes.resolve(node, env)
    return binding is not None and (bool(binding.extras) or isinstance(
        binding.value, (ast.List, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp, ast.Dict))
        or _origin(tools, node, env, depth + 1) is not None)


def _counted(call: ast.Call) -> bool:
    """Whether the call is told how many or which items to give: a number among its arguments, a
    keyword such as ``k``, ``top_k``, ``limit`` or ``max_results``, or a SQL query with a ``where``
    (the tools one stored response was sent with, not every tool the table holds)."""
    for arg in call.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, int) and not isinstance(arg.value, bool):
            return True
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _SELECTS.search(arg.value):
            return True
    return any(k.arg is not None and any(word == part for part in k.arg.lower().split("_") for word in _COUNT_WORDS)
               for k in call.keywords)


_SELECTS = re.compile(r"\bselect\b[\s\S]*\bwhere\b", re.IGNORECASE)


def _short(node: ast.expr) -> str:
    """An expression as a message names it: on one line, at most 60 characters."""
    code = ast.unparse(node)
    return code if len(code) <= 60 else code[:57].rstrip() + "…"



def unsent_catalogues(tools: Tools, claimed: set[Span]) -> list[Request]:
    """Lists a function fills with a tool per item of a collection nothing caps, where no request
    of the module is seen offering them (the list is returned, or handed to a wrapper the analysis
    does not follow): one request each, with no tools counted and the catalogue's steps, the last
    one saying that no call is seen sending it. ``claimed``: the tools requests already report."""
    requests = []
    for _, scope in tools.m.functions:
        for records in scope.assigns.values():
            for item in _added(records, Env(scope)):
                if tools.m.span(item.node) in claimed or not _tool_made(tools, item):
                    continue
                steps = uncapped(tools, item)
                if steps:
                    claimed.add(tools.m.span(item.node))
                    sink = Evidence(EvidenceKind.SINK, "no call is seen offering the list", steps[-1].span, False)
                    requests.append(Request(tools.m.path, steps[-1].span or tools.m.span(item.node),
                                            catalogue=(*steps, sink)))
    return requests


def _added(records: list[Assign], env: Env) -> list[Item]:
    """What a name's assignments add to the list it holds, each with the loops that repeat it:
    the element of a comprehension it is set to, and what a loop appends after it is set."""
    items = []
    base: tuple[Loop, ...] = ()
    for record in records:
        value = record.value
        if record.kind == "=":
            base = record.loops
            if isinstance(value, (ast.ListComp, ast.GeneratorExp)) and len(value.generators) == 1:
                items.append(Item(value.elt, env, repeats=(value.generators[0],)))
        elif record.kind == "append" and value is not None:
            repeats = tuple(loop.node for loop in record.loops[len(base):]
                            if isinstance(loop.node, (ast.For, ast.AsyncFor)))
            items.append(Item(value, env, repeats=repeats))
    return items


def _tool_made(tools: Tools, item: Item) -> bool:
    """Whether the value added is a tool: a dict or a call with a name and a schema (``schema``
    counts here, where one is made per item of a listing), or OpenAI's or Bedrock's wrapper."""
    node, env = tools.scopes.deref(item.node, item.env)
    entries = tools.entries(node, env)
    if entries is None:
        return False
    keys = frozenset(entries)
    if isinstance(node, ast.Dict) and keys - PROVIDER_TOOL_KEYS - {"function", "toolSpec"}:
        return False  # a dict with keys of the project's own (`module`, `file_path`): a listing for people
    for wrapper in ("function", "toolSpec"):
        if wrapper in entries:  # a tool call (`arguments`) or a tool forced by name is no definition
            inner = tools.entries(entries[wrapper][0], entries[wrapper][1])
            return inner is not None and "name" in inner and "arguments" not in inner
    return tool_shaped(keys) or {"name", "schema"} <= keys
