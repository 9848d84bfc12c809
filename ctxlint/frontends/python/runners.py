"""A function handed to a thread runner: ``await asyncio.to_thread(parse, path)`` gives back what
``parse(path)`` returns (as do ``loop.run_in_executor(None, parse, path)``, Starlette's
``run_in_threadpool`` and anyio's ``to_thread.run_sync``). The runner's call is read as the call
it makes of the function (``THREAD_RUNNERS`` gives where the function stands among its
arguments), so what that function returns -- a fetched page, a document's text, a clock -- reaches
the caller as from a direct call. A helper that runs the function its own caller hands it
(``run_step(parse, path)``, returning ``await asyncio.wait_for(asyncio.to_thread(func, *args),
timeout)``) runs the function that caller passes.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.knowledge import THREAD_RUNNERS
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env, Scope

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.callees import Callees


def handed_call(m: Unit, call: ast.Call) -> ast.Call | None:
    """The call a thread runner makes of the function it is handed, with the arguments after it
    (``parse(path)`` for ``asyncio.to_thread(parse, path)``), made once per runner call; None for
    any other call."""
    if id(call) in m.handed_calls:
        return m.handed_calls[id(call)]
    position = THREAD_RUNNERS.get(last_name(call.func) or "")
    made = None
    if position is not None and len(call.args) > position \
            and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        made = ast.copy_location(ast.Call(call.args[position], call.args[position + 1:], call.keywords), call)
        m.probes.append(made)  # kept alive: its id stays its own in the analysis's tables
    m.handed_calls[id(call)] = made
    return made


def handed_callee(callees: Callees, func: ast.expr, env: Env, foreign: bool
                  ) -> tuple[Analyzer | None, FunctionNode, Scope, bool] | None:
    """The function a runner is handed: one the code names, or the one a caller of the helper
    that runs it passes for its parameter (``run_step(parse, path)`` where ``run_step(func,
    *args)`` returns ``await asyncio.to_thread(func, *args)``)."""
    bound = env.bound(func.id) if isinstance(func, ast.Name) else None
    if bound is None or not isinstance(bound.node, (ast.Name, ast.Attribute)):
        return callees.callee(func, env, foreign)
    reader = bound.owner.callees if bound.owner is not None else callees
    found = reader.callee(bound.node, bound.env, foreign)
    if found is None or found[0] is not None or bound.owner is None:
        return found
    return (bound.owner, *found[1:])  # a function of the caller's module, read there


def runs_handed(fn: FunctionNode, params: list[str]) -> int | None:
    """Where among ``params`` (the parameters a call's positional arguments fill) stands the
    function that ``fn`` runs in a thread with its ``*args`` and gives back what it returns: every
    return is ``await asyncio.wait_for(asyncio.to_thread(func, *args), timeout)`` or
    ``await asyncio.to_thread(func, *args)``. None for any other function."""
    if fn.args.vararg is None:
        return None  # nothing to hand on: the function takes no `*args`
    rest = fn.args.vararg.arg
    returns = [n.value for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value is not None]
    handed: set[str] = set()
    for value in returns:
        value = value.value if isinstance(value, ast.Await) else value
        if isinstance(value, ast.Call) and last_name(value.func) == "wait_for" and value.args:
            value = value.args[0]
        position = THREAD_RUNNERS.get(last_name(value.func) or "") if isinstance(value, ast.Call) else None
        if not isinstance(value, ast.Call) or position is None or len(value.args) != position + 2:
            return None
        func, spread = value.args[position], value.args[-1]
        if not (isinstance(func, ast.Name) and isinstance(spread, ast.Starred) and isinstance(spread.value, ast.Name)
                and spread.value.id == rest):
            return None
        handed.add(func.id)
    if len(handed) != 1:
        return None
    name = handed.pop()
    return params.index(name) if name in params else None
