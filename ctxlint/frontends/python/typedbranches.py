"""Branches of a type test that never run: a value the function only ever gives text, tested
``if isinstance(out, str): ... elif isinstance(out, bytes): ... else: ...``.

A function that normalises what it returns often tests the type of a value it built itself
(``out = "\\n".join(lines)``, ``out = raw.decode("utf-8")``, ``out += note``). Where every value the
function gave the name before the test is text, the ``isinstance(out, str)`` arm is the one that
runs, and the arms after it (the bytes case, the fallback for "any unexpected type") never do:
what they cut reaches nobody, and the cut in the ``str`` arm is the one to report.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.knowledge import KEEP_TEXT, MAKE_TEXT
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Scope


def after_text_test(unit: Unit, node: ast.AST, scope: Scope) -> bool:
    """Whether ``node`` sits after the ``isinstance(name, str)`` arm of an ``if`` chain (in an
    ``elif`` or the ``else``), ``name`` a local name of the function whose every value given
    before that ``if`` (assigned or added to) is text."""
    child, parent = node, unit.parents.get(id(node))
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(parent, ast.If) and any(statement is child for statement in parent.orelse):
            name = _tested_as_text(parent.test)
            if name is not None and _only_text_before(name, parent, scope):
                return True
        child, parent = parent, unit.parents.get(id(parent))
    return False


def _tested_as_text(test: ast.expr) -> str | None:
    """``name`` of ``isinstance(name, str)``."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) \
            and isinstance(test.args[1], ast.Name) and test.args[1].id == "str":
        return test.args[0].id
    return None


def _only_text_before(name: str, test: ast.If, scope: Scope) -> bool:
    records = [r for r in scope.assigns.get(name, ()) if r.value is not None and r.scope is scope
               and getattr(r.value, "lineno", test.lineno) < test.lineno]
    # `out += note` keeps text text (text plus anything else fails): the values given with `=` decide
    given = [r for r in records if r.kind != "+="]
    return bool(given) and all(r.kind == "=" and r.value is not None and _text(r.value) for r in given)


def _text(value: ast.expr) -> bool:
    """A value that is text whatever it is made of: an f-string, a string, a text method's result,
    ``str(...)``, or a sum with one of them."""
    if isinstance(value, ast.JoinedStr):
        return True
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str)
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name):
            return func.id == "str"
        return isinstance(func, ast.Attribute) and (
            func.attr in MAKE_TEXT or func.attr in KEEP_TEXT and _text(func.value))
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mod)):
        return _text(value.left) or _text(value.right)
    return False
