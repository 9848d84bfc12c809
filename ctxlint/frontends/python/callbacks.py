"""What a callback's parameter holds: the arguments the function it is handed to calls it with.

``self._request(lambda sampling: client.chat.completions.create(..., **sampling))``, where
``_request(self, call)`` runs ``call(self._sampling_kwargs())`` and, on a refusal, ``call({})``:
``sampling`` is one of those dicts on every call, so the request's settings are read from them
(here: a temperature or nothing, never an output limit). Retry and fallback helpers are written
this way; without it the spread is unknown and the call's missing limit goes unseen."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.values import Env

if TYPE_CHECKING:
    from ctxlint.frontends.python.flow import Entry
    from ctxlint.frontends.python.spreads import Spread, Spreads, Step

# How many calls of a callback one function may make for its arguments to be read, and how many
# returns of a function that builds a dict are read for its keys.
MAX_CALLBACK_CALLS = MAX_RETURNS = 4


def callback_spread(spreads: Spreads, node: ast.Name, env: Env, depth: int) -> Spread | None:
    """The keys ``node`` holds when it is a parameter of a lambda handed to a function of this
    module that calls it with dicts whose keys the code shows (the keys of all of them), and the
    steps of those dicts; None when ``node`` is not such a parameter or a call is not read."""
    given = _callback_arguments(spreads, node, env)
    return union([spreads.entries(argument, argument_env, depth + 1) for argument, argument_env in given]) \
        if given else None


def union(found: list[Spread | None]) -> Spread | None:
    """The keys of several dicts one of which a value is (what each return of a function gives,
    each call of a callback passes): all of their keys, or None when one is unknown."""
    keys: dict[str, Entry] = {}
    steps: list[Step] = []
    for spread in found:
        if spread is None or spread[0] is None:
            return None
        keys.update(spread[0])
        steps += spread[1]
    return keys, steps


def _callback_arguments(spreads: Spreads, node: ast.Name, env: Env) -> list[tuple[ast.expr, Env]] | None:
    parents = spreads.m.parents
    lam = parents.get(id(node))
    while lam is not None and not isinstance(lam, ast.Lambda):
        if isinstance(lam, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        lam = parents.get(id(lam))
    if lam is None or lam.args.vararg is not None or lam.args.kwarg is not None:
        return None
    names = [a.arg for a in lam.args.args]
    if node.id not in names:
        return None
    position = names.index(node.id)
    outer = parents.get(id(lam))
    if isinstance(outer, ast.keyword):
        outer = parents.get(id(outer))
    if not isinstance(outer, ast.Call) or outer.func is lam:
        return None
    target = spreads.callees.function_for(outer, env, returns=False)
    if target is None or target.owner is not None:
        return None  # a function of another module: its calls are read in its own module's terms
    param = next((b.param for b in target.env.bindings if b.node is lam), None)
    if param is None:
        return None
    found: list[tuple[ast.expr, Env]] = []
    for inner in own_nodes(target.fn):
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == param:
            if inner.keywords or len(inner.args) != len(names) or isinstance(inner.args[position], ast.Starred):
                return None
            found.append((inner.args[position], target.env))
        elif isinstance(inner, ast.Name) and inner.id == param and not _called(parents.get(id(inner)), inner):
            return None  # handed on or kept: called elsewhere with what this function does not show
    return found if len(found) <= MAX_CALLBACK_CALLS else None


def _called(parent: ast.AST | None, name: ast.Name) -> bool:
    return isinstance(parent, ast.Call) and parent.func is name
