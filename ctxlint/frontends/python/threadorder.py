"""A list that a function run on a thread pool adds to: its items come in the order the threads finish.

``def interview(expert): ... asked.append(question)``, nested in a function that hands it to a
pool it opens (``with ThreadPoolExecutor(...) as pool: pool.submit(interview, e)``) and adds to a
list of that enclosing function: each thread adds when it gets there, so the list's order changes
from run to run. Where data flow shows the list reaching a call that asks a model is decided by
the caller (orderprompts.py); this module only finds the additions.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Unit

Function = ast.FunctionDef | ast.AsyncFunctionDef

_POOL = "ThreadPoolExecutor"  # a process pool shares no list with its tasks
_HANDS = ("submit", "map")
_ADDS = ("append", "extend", "insert")


@dataclass(frozen=True)
class ThreadAddition:
    inner: Function  # the function the pool runs
    outer: Function  # the function that opens the pool and holds the list
    handed: ast.Call  # `pool.submit(inner, ...)`
    added: ast.Call  # `name.append(...)` in ``inner``
    name: str  # the list, a local of ``outer``


def thread_additions(m: Unit) -> list[ThreadAddition]:
    """Each addition a function the module hands to a thread pool makes to a list of the function
    that hands it."""
    if _POOL not in m.text:
        return []  # no pool in the module: its name is written wherever one is made or imported
    found: list[ThreadAddition] = []
    for outer, scope in m.functions:
        inner_functions = {name: node for name, (node, _) in scope.functions.items()
                           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if not inner_functions:
            continue
        nodes = own_nodes(outer)
        pools = _pools(nodes, m)
        lists = _empty_lists(nodes)
        for call in nodes:
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _HANDS
                    and isinstance(call.func.value, ast.Name) and call.func.value.id in pools and call.args
                    and isinstance(call.args[0], ast.Name) and call.args[0].id in inner_functions):
                continue
            inner = inner_functions[call.args[0].id]
            for added in _additions(inner, lists):
                assert isinstance(added.func, ast.Attribute) and isinstance(added.func.value, ast.Name)
                found.append(ThreadAddition(inner, outer, call, added, added.func.value.id))
    return found


def _pools(nodes: Sequence[ast.AST], m: Unit) -> set[str]:
    """The names a function gives a thread pool: ``with ThreadPoolExecutor(...) as pool``, ``pool = ...``."""
    names: set[str] = set()
    for node in nodes:
        pairs: list[tuple[ast.expr, ast.expr | None]] = []
        if isinstance(node, (ast.With, ast.AsyncWith)):
            pairs = [(item.context_expr, item.optional_vars) for item in node.items]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            pairs = [(node.value, node.targets[0])]
        for value, target in pairs:
            if isinstance(value, ast.Call) and isinstance(target, ast.Name) \
                    and (m.qualified(value.func) or "").rsplit(".", 1)[-1] == _POOL:
                names.add(target.id)
    return names


def _empty_lists(nodes: Sequence[ast.AST]) -> set[str]:
    """The names a function starts as an empty list (``asked = []``, ``asked: list[str] = []``)."""
    names: set[str] = set()
    for node in nodes:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if isinstance(value, ast.List) and not value.elts:
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _additions(inner: Function, lists: set[str]) -> list[ast.Call]:
    """The additions ``inner`` makes to lists of the enclosing function it does not rebind."""
    nodes = own_nodes(inner)
    bound = {a.arg for a in (*inner.args.posonlyargs, *inner.args.args, *inner.args.kwonlyargs)}
    bound |= {t.id for node in nodes if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
              for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
    return [node for node in nodes if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in _ADDS and isinstance(node.func.value, ast.Name)
            and node.func.value.id in lists - bound]
