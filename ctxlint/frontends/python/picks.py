"""A function of the module that picks one item of a list it is given by a score, as ``max``
does: ``best = None; for item in items: ...; if score >= best_score: best = item``, then
``return best``. What it gives back is one item, not the list in its order: the order of the list
decides only between items of equal score, as it does for ``max(items, key=score)``."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.unit import Unit

# Calls that add to a collection or yield from it: a function that makes one keeps more than one item.
_GROWS = frozenset({"append", "extend", "insert", "add", "update", "join", "setdefault"})


def picks_one_item(m: Unit, call: ast.Call, arg: ast.AST) -> bool:
    """Whether ``call`` calls a function of the module whose parameter ``arg`` fills is only
    looped over to pick the item of best score, which is all the function returns."""
    if not isinstance(call.func, ast.Name):
        return False
    defined = m.module_scope.functions.get(call.func.id)
    fn = defined[0] if defined is not None else None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    param = _param_filled(fn, call, arg)
    return param is not None and _picks_best(fn, param, m.parents)


def _param_filled(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, arg: ast.AST) -> str | None:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if arg in call.args:
        index = call.args.index(arg)
        if any(isinstance(a, ast.Starred) for a in call.args[:index + 1]) or index >= len(positional):
            return None
        return positional[index].arg
    keyword = next((k.arg for k in call.keywords if k.value is arg), None)
    return keyword if keyword in {a.arg for a in [*positional, *fn.args.kwonlyargs]} else None


def _picks_best(fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str, parents: dict[int, ast.AST]) -> bool:
    nodes = list(ast.walk(fn))
    reads = [n for n in nodes if isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Load)]
    loops = [n for n in nodes if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.iter, ast.Name)
             and n.iter.id == param and isinstance(n.target, ast.Name)]
    if len(reads) != 1 or len(loops) != 1 or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes) \
            or any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROWS
                   for n in nodes):
        return False
    loop = loops[0]
    assert isinstance(loop.target, ast.Name)  # (tested above)
    item = loop.target.id
    kept = _kept_names(loop, item, parents)
    if kept is None or len(kept) != 1:
        return False
    best = next(iter(kept))
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    return bool(returns) and all(_returns_only(r, best) for r in returns) \
        and _set_only_to_none_or_item(nodes, best, item)


def _kept_names(loop: ast.For | ast.AsyncFor, item: str, parents: dict[int, ast.AST]) -> set[str] | None:
    """The names the loop sets to its item, each under a test that compares (a score); None when the
    item is used any other way than read through (``item.task``, ``item["task"]``), compared, or kept so."""
    kept: set[str] = set()
    for node in ast.walk(loop):
        if not (isinstance(node, ast.Name) and node.id == item and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.Compare) or (isinstance(parent, (ast.Attribute, ast.Subscript))
                                               and parent.value is node):
            continue
        if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Name) and _under_comparison(parent, parents, loop):
            kept.add(parent.targets[0].id)
            continue
        return None
    return kept


def _under_comparison(node: ast.AST, parents: dict[int, ast.AST], loop: ast.AST) -> bool:
    """Whether an ``if`` inside ``loop`` around ``node`` compares (a score with the best one's)."""
    current = parents.get(id(node))
    while current is not None and current is not loop:
        if isinstance(current, ast.If) and any(isinstance(n, ast.Compare) and any(
                isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) for op in n.ops) for n in ast.walk(current.test)):
            return True
        current = parents.get(id(current))
    return False


def _returns_only(node: ast.Return, best: str) -> bool:
    value = node.value
    return value is None or (isinstance(value, ast.Constant) and value.value is None) \
        or (isinstance(value, ast.Name) and value.id == best)


def _set_only_to_none_or_item(nodes: list[ast.AST], best: str, item: str) -> bool:
    for node in nodes:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == best for t in node.targets):
            value = node.value
            if not ((isinstance(value, ast.Constant) and value.value is None)
                    or (isinstance(value, ast.Name) and value.id == item)):
                return False
    return True
