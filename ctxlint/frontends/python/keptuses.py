"""Whether a value kept in a local name is only inspected, never passed on as text a model reads.

A cut kept in a name (``content = page.text[:1000].lower()``) goes somewhere only through the
name's later uses. When every one of them tests the text (``word in content``, ``if content``,
``content == ...``), logs it, raises it in an error (``raise ApiError(message=message)``), or hands
it to a function named for embeddings (vectors, not text a model answers from), the cut loses
nothing a model would have read. A use that only gives the name a new value built from the old
(``message = detail or message``) is followed by the name's later uses, which are read as well.
Nor does a cut made where the code handles a failed HTTP response (``if resp.status_code >= 400:
body = {"raw": resp.text[:1000]}``): an error report, whose end no task needed.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.cutmarkers import logs
from ctxlint.frontends.python.knowledge import RESPONSE_FLAGS
from ctxlint.frontends.python.nodes import reads_of, statement_of

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def only_inspected(parents: dict[int, ast.AST], fn: FunctionNode, name: str, assign: ast.stmt) -> bool:
    """True when ``name``, given its value by ``assign`` in ``fn``, is read later in ``fn`` and
    every reading only inspects it. A name read nowhere after is not known to be unused (it may
    be returned by a later branch written in another way), so that answer is False."""
    uses = reads_of(fn, name, assign)
    return bool(uses) and all(_inspected(parents, use, name) for use in uses)


def _inspected(parents: dict[int, ast.AST], use: ast.Name, name: str) -> bool:
    current: ast.AST = use
    while True:
        parent = parents.get(id(current))
        if parent is None:
            return False
        if isinstance(parent, (ast.Compare, ast.Assert, ast.Raise)):
            return True
        if isinstance(parent, (ast.If, ast.While, ast.IfExp)) and current is parent.test:
            return True
        if isinstance(parent, ast.Call) and current is not parent.func:
            called = last_name(parent.func) or ""
            return logs(parent) or "embed" in called.lower() \
                or isinstance(statement_of(parents, parent), ast.Raise)
        if isinstance(parent, ast.Assign):
            # `message = detail or message`: the name again, whose later uses are read as well
            return all(isinstance(t, ast.Name) and t.id == name for t in parent.targets)
        if isinstance(parent, ast.stmt):
            return False  # kept again, returned, yielded, a bare statement: it goes on
        current = parent


def in_failure_branch(parents: dict[int, ast.AST], node: ast.AST) -> bool:
    """Whether ``node`` is in a branch taken when an HTTP response failed: the body of an ``if``
    that tests a status code for an error (``resp.status_code >= 400``, ``status != 200``, ``not
    resp.ok``, ``resp.is_error``), or the ``else`` of one that tests it for success."""
    current: ast.AST = node
    while (parent := parents.get(id(current))) is not None and not isinstance(parent, FunctionNode):
        if isinstance(parent, ast.If) and current is not parent.test:
            failed = _status_test(parent.test)
            if failed is not None and failed == (current in parent.body):
                return True
        current = parent
    return False


# Of the attributes of a response that say how its request went, `status_code` is an HTTP
# response's alone; the others count only on a name said of a response (a run's `result.is_success`
# is no HTTP call).


def _response(node: ast.expr) -> bool:
    """A value named as an HTTP response (``resp``, ``response``, ``r``, ``api_response``)."""
    name = (node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")).lower()
    return name in ("r", "res", "resp", "response") or name.endswith(("_resp", "_response"))


def _status_test(test: ast.expr) -> bool | None:
    """True when ``test`` holds for a failed response, False when for a successful one, None when
    it tests no response's status."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _status_test(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.Attribute) and test.attr in RESPONSE_FLAGS and _response(test.value):
        return test.attr == "is_error"
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Attribute)
            and (test.left.attr == "status_code" or (test.left.attr == "status" and _response(test.left.value)))):
        return None
    op, code = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(code, (ast.List, ast.Tuple, ast.Set)) and code.elts \
            and all(isinstance(c, ast.Constant) and isinstance(c.value, int) and 200 <= c.value < 300
                    for c in code.elts):  # `status_code not in [200, 201, 202]`: a test for success codes
        return isinstance(op, ast.NotIn)
    if not (isinstance(code, ast.Constant) and isinstance(code.value, int)):
        return None
    if isinstance(op, (ast.GtE, ast.Gt)) and code.value >= 300:
        return True
    if isinstance(op, ast.Lt) and code.value in (300, 400):
        return False
    if isinstance(op, (ast.NotEq, ast.Eq)) and code.value == 200:
        return isinstance(op, ast.NotEq)
    return None
