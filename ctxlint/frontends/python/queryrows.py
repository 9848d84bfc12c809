"""Rows of a database query that asks for no order (CTX104).

A query with no ORDER BY returns its rows in an order the database picks: it changes with the
plan, a vacuum or a concurrent write. What is a query and what fixes its order is catalogue data
(``rows`` in frameworks/python-io.yaml): a Django manager's queryset (``Note.objects.filter(...)``,
and the querysets built on it), SQLAlchemy's ``session.query(Model)``, SQL text run by a
connection or a cursor (``db.execute("select ... from notes")``); ``order_by``, ``get`` or
``first`` on the way gives the rows an order or keeps one row.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxlint.frameworks.entries import RowQueries
from ctxlint.frontends.python.values import Env
from ctxlint.model import QUERY_ROWS

if TYPE_CHECKING:
    from ctxlint.frontends.python.ordering import Ordering

# SQL that reads rows: what an execute is given first.
_SELECT = re.compile(r"^\s*(?:--[^\n]*\n\s*)*(?:select|with)\b", re.IGNORECASE)
_ORDER_BY = re.compile(r"\border\s+by\b", re.IGNORECASE)
_NESTED = re.compile(r"\([^()]*\)")
_AGGREGATE = re.compile(r"^\s*select\s+(?:(?:count|sum|min|max|avg|total)\s*\([^()]*\)(?:\s+as\s+\w+)?\s*,?\s*)+"
                        r"from\b(?!.*\bgroup\s+by\b)", re.IGNORECASE | re.DOTALL)
SLOT = "\x00"  # where the text of SQL has a value filled in


def rows_of(flow: Ordering, call: ast.Call, env: Env) -> str | None:
    """``QUERY_ROWS`` for the rows of a database query that asks for no order
    (``Note.objects.filter(...)``, ``db.execute("select ...")``); what a copy of a collection made
    awaitable is in no fixed order by (``sync_to_async(list)(query)``); or None."""
    rows = flow.m.catalogue.rows
    if wrapped(call, rows, flow.m.qualified) in ("list", "tuple") and len(call.args) == 1:
        return flow.unordered(call.args[0], env)
    found = query_rows(call, rows, lambda e: _sql_text(flow, e, env), lambda r: flow.unordered(r, env) == QUERY_ROWS,
                       lambda model: _model_ordered(flow, model, env))
    return QUERY_ROWS if found else None


def _sql_text(flow: Ordering, node: ast.expr, env: Env) -> str | None:
    """The text an expression holds, ``SLOT`` standing in for what is filled in (``f"... {table}"``)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if not isinstance(node, (ast.JoinedStr, ast.BinOp, ast.Name)):
        return None
    parts = flow.strings.text(node, env)
    return None if parts is None else "".join(SLOT if p.slot else p.text for p in parts)


def _model_ordered(flow: Ordering, model: ast.expr, env: Env) -> bool:
    """Whether the model class a query reads (``Note`` of ``Note.objects``), where the project
    shows it, declares the order of every query of it."""
    if not isinstance(model, ast.Name):
        return False
    found = flow.callees.class_named(model.id, env.scope, foreign=flow.m.project is not None)
    return found is not None and isinstance(found[1].node, ast.ClassDef) \
        and declares_order(found[1].node, flow.m.catalogue.rows)


def unordered_sql(text: str) -> bool:
    """Whether SQL text reads rows with no ORDER BY of its own: one inside a sub-query
    (``where id = (select id ... order by id limit 1)``) orders only that sub-query's rows. A
    value filled in outside every parenthesis (``f"... {order}"``, written ``SLOT``) may be the
    ORDER BY, and a SELECT of aggregates only with no GROUP BY (``select count(*) ...``) reads one
    row."""
    if not _SELECT.match(text) or _AGGREGATE.match(text):
        return False
    outer = text
    for _ in range(8):  # parentheses nest a few deep at most in hand-written SQL
        outer, replaced = _NESTED.subn(" ", outer)
        if not replaced:
            break
    return SLOT not in outer and not _ORDER_BY.search(outer)


def query_rows(call: ast.Call, rows: RowQueries, text_of: Callable[[ast.expr], str | None],
               receiver_rows: Callable[[ast.expr], bool], model_ordered: Callable[[ast.expr], bool]) -> bool:
    """Whether ``call`` gives the rows of a query in no fixed order. ``text_of`` gives the
    string an expression holds, ``receiver_rows`` whether a receiver is such rows already (a
    name bound to a queryset: ``query.filter(...)``), ``model_ordered`` whether a model class
    declares the order of every query of it (Django's ``class Meta: ordering = [...]``)."""
    if not isinstance(call.func, ast.Attribute):
        return False
    method, receiver = call.func.attr, call.func.value
    if method in rows.ordered:
        return False  # `.order_by(...)`, `.get(pk=key)`: the rows in an order asked for, or one row
    if method in rows.sql_methods and call.args:
        sql = text_of(call.args[0])
        if sql is not None and _SELECT.match(sql):
            return unordered_sql(sql)
    if method in rows.managers and len(call.args) == 1 and _class_named(call.args[0]):
        return not model_ordered(call.args[0])  # `session.query(Note)`
    if method not in rows.builders:
        return False
    if isinstance(receiver, ast.Attribute) and receiver.attr in rows.managers:
        return not model_ordered(receiver.value)  # `Note.objects.filter(...)`
    return receiver_rows(receiver)


def wrapped(call: ast.Call, rows: RowQueries, qualified: Callable[[ast.expr], str | None]) -> str | None:
    """``sync_to_async(list)(query)``: the function (``list``) a wrapper makes awaitable and calls."""
    if isinstance(call.func, ast.Call) and len(call.func.args) == 1 and qualified(call.func.func) in rows.wrappers:
        return qualified(call.func.args[0])
    return None


def declares_order(cls: ast.ClassDef, rows: RowQueries) -> bool:
    """Whether a model class's body declares the order of its rows (``class Meta: ordering = [...]``:
    ``Meta.ordering`` in ``declared_order``)."""
    for declared in rows.declared_order:
        inner, _, name = declared.rpartition(".")
        holders = [s for s in cls.body if isinstance(s, ast.ClassDef) and s.name == inner] if inner else [cls]
        if any(name in _assigned(s) for holder in holders for s in holder.body):
            return True
    return False


def _assigned(statement: ast.stmt) -> set[str]:
    """The plain names a statement assigns."""
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, ast.AnnAssign) else []
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _class_named(node: ast.expr) -> bool:
    """``Note``, ``models.Note``: a name written as a class's (a model), not a value's."""
    last = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return last[:1].isupper() and not last.isupper()
