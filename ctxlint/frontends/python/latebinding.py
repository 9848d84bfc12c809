"""A closure handed to a thread inside a loop that reads a name the loop sets anew on each pass.

``for doc in docs: _prompt = template.format(context=doc); futures.append(pool.submit(lambda:
self.llm(_prompt)))``: the lambda reads ``_prompt`` when a thread runs it, not when the loop hands
it over, and by then the loop may have set it for a later document. Which prompt each task sends
depends on how the threads are scheduled: some documents are asked about twice, others never, and
the run cannot be reproduced. Binding the value when the task is handed over (``lambda p=_prompt:
...``, or ``pool.submit(ask, _prompt)``) settles it. Only closures that ask a model are reported.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Unit

Function = ast.FunctionDef | ast.AsyncFunctionDef

# Calls that run a callable later, on another thread: the position of the callable among their
# arguments, or the keyword that gives it.
_LATER: dict[str, int | str] = {"submit": 0, "run_in_executor": 1, "to_thread": 0, "Thread": "target", "Timer": 1,
                                "apply_async": 0}


@dataclass(frozen=True)
class LateRead:
    name: str  # the name the loop sets
    read: ast.Name  # where the closure reads it
    set_at: ast.expr  # the loop's assignment of it (its target)
    handed: ast.Call  # the call that runs the closure later
    asks: ast.Call  # the closure's call that asks a model


def late_reads(m: Unit, asks_model: Callable[[ast.Call], bool]) -> list[LateRead]:
    """Each read, by a closure a loop hands to a thread, of a name the loop's body sets."""
    if not any(word in m.text for word in _LATER):
        return []
    found: list[LateRead] = []
    seen: set[int] = set()  # a closure in a loop nested in another is read for both loops
    for fn, _ in m.functions:
        for loop in own_nodes(fn):
            if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
                continue
            set_here = _set_in(loop)
            defined = {n.name: n for n in loop.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            for call in (n for statement in loop.body for n in walk(statement) if isinstance(n, ast.Call)):
                closure = _handed(call, defined)
                if closure is None:
                    continue
                params = {a.arg for a in (*closure.args.posonlyargs, *closure.args.args, *closure.args.kwonlyargs)}
                if isinstance(closure, ast.Lambda):
                    body: ast.AST = closure.body
                else:
                    body = ast.Module(closure.body, [])
                    params |= set(_set_in_body(body))  # the function's own locals
                asks = next((n for n in walk(body) if isinstance(n, ast.Call)
                             and (asks_model(n) or _model_called(n))), None)
                if asks is None:
                    continue
                for read in walk(body):
                    if isinstance(read, ast.Name) and isinstance(read.ctx, ast.Load) and read.id in set_here \
                            and read.id not in params:
                        if id(read) not in seen:
                            seen.add(id(read))
                            found.append(LateRead(read.id, read, set_here[read.id], call, asks))
                        break
    return found


def _handed(call: ast.Call, defined: dict[str, Function]) -> ast.Lambda | Function | None:
    """The closure ``call`` runs later on another thread: a lambda (``pool.submit(lambda: ...)``)
    or a function the loop defines (``def ask(): ...`` then ``pool.submit(ask)``)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    where = _LATER.get(name)
    if where is None:
        return None
    if isinstance(where, str):
        given = next((k.value for k in call.keywords if k.arg == where), None)
    else:
        given = call.args[where] if len(call.args) > where else None
    if isinstance(given, ast.Name):
        return defined.get(given.id)
    return given if isinstance(given, ast.Lambda) else None


def _set_in(loop: ast.For | ast.AsyncFor | ast.While) -> dict[str, ast.expr]:
    """The names the loop sets on each pass: its target and the names its body assigns."""
    targets: list[ast.expr] = [loop.target] if isinstance(loop, (ast.For, ast.AsyncFor)) else []
    return _set_in_body(ast.Module(loop.body, []), targets)


def _set_in_body(body: ast.Module, targets: list[ast.expr] | None = None) -> dict[str, ast.expr]:
    """The names ``body`` assigns (and ``targets`` name), each with where it is first set; a
    function's own locals are its, not the loop's."""
    targets = list(targets or [])
    for node in walk(body):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets.extend(node.targets if isinstance(node, ast.Assign) else [node.target])
    found: dict[str, ast.expr] = {}
    for target in targets:
        for node in walk(target):
            if isinstance(node, ast.Name):
                found.setdefault(node.id, target)
    return found


def _model_called(call: ast.Call) -> bool:
    """An object named for a model called itself (``self.llm(prompt)``, ``judge_llm(prompt)``)."""
    func = call.func
    name = (func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "").lower()
    return name == "llm" or name.endswith("_llm")

