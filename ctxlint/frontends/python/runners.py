"""A function handed to a thread runner: ``await asyncio.to_thread(parse, path)`` gives back what
``parse(path)`` returns (as do ``loop.run_in_executor(None, parse, path)``, Starlette's
``run_in_threadpool`` and anyio's ``to_thread.run_sync``). The runner's call is read as the call
it makes of the function (``THREAD_RUNNERS`` gives where the function stands among its
arguments), so what that function returns -- a fetched page, a document's text, a clock -- reaches
the caller as from a direct call. A helper that runs the function its own caller hands it
(``run_step(parse, path)``, returning ``await asyncio.wait_for(asyncio.to_thread(func, *args),
timeout)``) runs the function that caller passes.

The same reading finds a request sent through a runner (``run_call``): the SDK's function or an
HTTP client's post handed to it, through ``functools.partial`` too, or to a helper of the project
that runs the function it is handed with the rest of its arguments.
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


def run_call(m: Unit, call: ast.Call, callees: Callees, env: Env) -> ast.Call | None:
    """The call of a library function that ``call`` makes through a runner, made once per call:
    ``client.generate(prompt)`` for ``asyncio.to_thread(client.generate, prompt)``, through
    ``functools.partial`` (``loop.run_in_executor(None, partial(requests.post, url, json=body))``),
    or through a helper of the project that runs the function it is handed with the rest of its
    arguments (``run_sync(requests.post, url, json=body)`` of ``def run_sync(func, *args,
    **kwargs)`` returning ``loop.run_in_executor(None, partial(func, *args, **kwargs))``). The
    made call stands where ``call`` does (its result is the runner's). None for any other call."""
    if id(call) in m.run_calls:
        return m.run_calls[id(call)]
    made = handed_call(m, call)
    if made is not None and isinstance(made.func, ast.Call):
        made = _unwrapped(m, made.func, made)
    elif made is None and isinstance(call.func, ast.Call):  # `partial(f, x)()`
        made = _unwrapped(m, call.func, call)
    elif made is None and call.args and not isinstance(call.args[0], ast.Starred) \
            and last_name(call.args[0]) in m.sink_names:
        called = callees.function_for(call, env, foreign=True, returns=False)
        if called is not None and _runs_first_parameter(called.fn):
            made = ast.copy_location(ast.Call(call.args[0], call.args[1:], call.keywords), call)
            m.probes.append(made)
    parent = m.parents.get(id(call))
    if made is not None and parent is not None:
        m.parents.setdefault(id(made), parent)  # what reads the runner's result reads the made call's
    m.run_calls[id(call)] = made
    return made


def _partial(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and last_name(node.func) == "partial" and bool(node.args) \
        and not isinstance(node.args[0], ast.Starred)


def _unwrapped(m: Unit, partial: ast.Call, made: ast.Call) -> ast.Call | None:
    """``f(x, y, k=v)`` for ``partial(f, x, k=v)`` called with ``y``; None for anything but a partial."""
    if not _partial(partial):
        return None
    call = ast.copy_location(ast.Call(partial.args[0], [*partial.args[1:], *made.args],
                                      [*partial.keywords, *made.keywords]), made)
    m.probes.append(call)
    return call


def _runs_first_parameter(fn: FunctionNode) -> bool:
    """Whether ``fn`` (``def run_sync(func, *args, **kwargs)``) calls its first parameter with the
    rest of what it is given: ``func(*args, **kwargs)``, ``partial(func, *args, **kwargs)``, or a
    runner handed ``func`` and ``*args``."""
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if params[:1] in (["self"], ["cls"]):
        params = params[1:]
    rest, named = fn.args.vararg, fn.args.kwarg
    if not params or rest is None:
        return False
    first = params[0]

    def passes_rest(args: list[ast.expr], keywords: list[ast.keyword]) -> bool:
        starred = any(isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == rest.arg
                      for a in args)
        spread = named is None or any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == named.arg
                                      for k in keywords)
        return starred and spread

    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id == first and passes_rest(node.args, node.keywords):
            return True
        named_first = bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id == first
        if last_name(node.func) == "partial" and named_first and passes_rest(node.args[1:], node.keywords):
            return True
        position = THREAD_RUNNERS.get(last_name(node.func) or "")
        handed = node.args[position] if position is not None and len(node.args) > position else None
        if isinstance(handed, ast.Name) and handed.id == first and position is not None \
                and passes_rest(node.args[position + 1:], node.keywords):
            return True
    return False
