"""Reading a loop's statements: what it runs, which of them only log, and a skip that drops every
item after a running total passes its budget."""

from __future__ import annotations

import ast
from collections.abc import Iterator

# Methods that write a value to a log, a console or a warning.
LOGGING = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log", "trace", "echo",
            "print", "write_log"}


def loop_body(loop: ast.For | ast.AsyncFor | ast.While) -> Iterator[ast.stmt]:
    """The statements a loop runs, through ``if``, ``try`` and ``with`` but not inner loops."""
    stack: list[ast.stmt] = list(reversed(loop.body))
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, ast.If):
            stack.extend(reversed([*statement.body, *statement.orelse]))
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            stack.extend(reversed(statement.body))
        elif isinstance(statement, ast.Try):
            stack.extend(reversed([*statement.body, *statement.orelse, *statement.finalbody]))


def logs(statement: ast.stmt) -> bool:
    """``logger.warning(...)``, ``print(...)``: a statement that only writes to a log."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in LOGGING


def skips_rest(branch: list[ast.stmt], test: ast.expr, loop: ast.For | ast.AsyncFor) -> ast.Continue | None:
    """``if total_tokens > budget: log(...); continue`` where the loop adds to ``total_tokens``: once
    the running total passes the budget it stays past it, and every later item is skipped as a
    ``break`` would drop it (a test of one item's own size skips that item alone)."""
    stop = next((s for s in branch if isinstance(s, ast.Continue)), None)
    if stop is None or not all(s is stop or logs(s) for s in branch):
        return None
    tested = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    running = {s.target.id for s in loop_body(loop) if isinstance(s, ast.AugAssign) and isinstance(s.op, ast.Add)
               and isinstance(s.target, ast.Name)}
    return stop if tested & running else None
