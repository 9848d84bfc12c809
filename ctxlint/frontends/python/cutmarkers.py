"""Markers written beside a cut, in the shapes code gives them: a name that says it marks a cut,
a marker joined to the cut text later in its function, a marker item between listed parts."""

from __future__ import annotations

import ast
from collections.abc import Callable
from itertools import pairwise
from typing import TypeGuard

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.nodes import function_of, statement_of
from ctxlint.markers import cut_marker, cut_marker_before, says_loss

# Methods that write a value to a log, a console or a warning.
LOGGING = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log", "trace", "echo",
           "print", "write_log"}


def logs(node: ast.AST) -> TypeGuard[ast.Call]:
    """A call made by a name of ``LOGGING``: ``logger.warning(...)``, ``print(...)``."""
    return isinstance(node, ast.Call) and last_name(node.func) in LOGGING


def names_a_marker(node: ast.expr) -> bool:
    """A value whose name says it marks a cut (``truncation_msg``, ``ELLIPSIS``, ``suffix``)."""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return any(word in name.lower() for word in ("truncat", "marker", "suffix", "ellipsis", "notice", "omitted"))


def conditional_marker(node: ast.expr, marks: Callable[[str], bool] = cut_marker) -> bool:
    """``("..." if len(text) > 500 else "")``: a marker written only when the cut removed something."""
    return isinstance(node, ast.IfExp) and any(
        isinstance(branch, ast.Constant) and isinstance(branch.value, str) and marks(branch.value)
        for branch in (node.body, node.orelse))


def assigned_to_name(node: ast.expr, parents: dict[int, ast.AST]) -> tuple[ast.Assign, str] | None:
    """The statement ``name = node`` that gives ``node`` to one plain name, and the name."""
    statement = parents.get(id(node))
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement, statement.targets[0].id
    return None


def joined_with_marker(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether the name a cut is assigned to is joined, further on in its function, with a value
    named as a marker (``truncated = text[:n]``, then ``return notice + truncated``)."""
    assigned = assigned_to_name(node, parents)
    if assigned is None:
        return False
    statement, target = assigned
    fn = function_of(statement, parents)
    if fn is None:
        return False
    for joined in ast.walk(fn):
        if isinstance(joined, ast.BinOp) and isinstance(joined.op, ast.Add) and joined.lineno > statement.lineno:
            parts = _added(joined)
            if any(isinstance(p, ast.Name) and p.id == target for p in parts) and any(map(names_a_marker, parts)):
                return True
    return False


def listed_with_marker(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether the cut is an item of a list added to a list holding a marker (``[head] + ["...
    (truncated) ..."] + [tail]``, joined later): the model reads the marker between the parts."""
    listed = parents.get(id(node))
    chain = parents.get(id(listed))
    if not isinstance(listed, ast.List) or not (isinstance(chain, ast.BinOp) and isinstance(chain.op, ast.Add)):
        return False
    while isinstance(up := parents.get(id(chain)), ast.BinOp) and isinstance(up.op, ast.Add):
        chain = up
    return any(names_a_marker(item) or (isinstance(item, ast.Constant) and isinstance(item.value, str)
                                        and (cut_marker(item.value) or cut_marker_before(item.value)))
               for part in _added(chain) if isinstance(part, ast.List) and part is not listed for item in part.elts)


def _added(node: ast.expr) -> list[ast.expr]:
    """The operands of a chain of ``+`` (``notice + "\\n" + text``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [*_added(node.left), *_added(node.right)]
    return [node]


def beside_named_marker(statement: ast.stmt, target: str) -> bool:
    """Whether a statement writes the cut text next to a value named as a marker
    (``f"{head}{marker}{tail}"`` after ``head = text[:n]``)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.JoinedStr):
            parts = [p.value for p in node.values if isinstance(p, ast.FormattedValue)]
            for before, after in pairwise(parts):
                for cut, other in ((before, after), (after, before)):
                    if isinstance(cut, ast.Name) and cut.id == target and names_a_marker(other):
                        return True
    return False


def logged_branch(node: ast.Subscript, bound: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether the slice ``node`` (``text[:n]``) is made in the branch of an ``if`` that tests the
    same text's length against the same bound (``if len(text) > n:``), and that branch writes a log
    that speaks of the loss (``print(f"{len(text)=} is too long! Use first {n} chars.")``,
    ``LOG.warning("Truncating the output")``): the code knows it cuts, and tells its log alone."""
    statement = statement_of(parents, node)
    branch = parents.get(id(statement)) if statement is not None else None
    if not isinstance(branch, ast.If) or statement not in branch.body:
        return False
    text, limit = ast.dump(node.value), ast.dump(bound)
    measured = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "len" and c.args
                   and ast.dump(c.args[0]) == text for c in ast.walk(branch.test))
    if not measured or not any(ast.dump(n) == limit for n in ast.walk(branch.test)):
        return False
    for call in (n for s in branch.body for n in ast.walk(s)):
        if logs(call):
            words = " ".join(n.value for a in (*call.args, *(k.value for k in call.keywords)) for n in ast.walk(a)
                             if isinstance(n, ast.Constant) and isinstance(n.value, str))
            if says_loss(words):
                return True
    return False


def no_room_for_marker(node: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef | None,
                       parents: dict[int, ast.AST]) -> bool:
    """``if kept == 0: return output[:max_chars]`` where ``kept = max(0, max_chars - marker_len)``: a
    bare cut in the branch where the budget leaves no room for the marker the function writes on
    its other paths (a bound subtracted by a value named for one, ``len(marker)``): a budget too small
    to say what was cut, not a cut left silent."""
    if fn is None:
        return False
    child: ast.AST = node
    parent = parents.get(id(node))
    budgets: set[str] | None = None  # the names given a bound less a marker's length: one walk, at the first `if`
    while parent is not None and parent is not fn:
        if isinstance(parent, ast.If) and any(s is child for s in parent.body):
            if budgets is None:
                budgets = {a.targets[0].id for a in ast.walk(fn) if isinstance(a, ast.Assign) and len(a.targets) == 1
                           and isinstance(a.targets[0], ast.Name) and _less_a_marker(a.value)}
            if any(isinstance(n, ast.Name) and n.id in budgets for n in ast.walk(parent.test)):
                return True
        child, parent = parent, parents.get(id(parent))
    return False


def _less_a_marker(value: ast.expr) -> bool:
    """``max_chars - marker_max_len``, ``limit - len(notice)``: a bound less a marker's length."""
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and any(
        names_a_marker(part) for part in ast.walk(n.right) if isinstance(part, (ast.Name, ast.Attribute)))
        for n in ast.walk(value))
