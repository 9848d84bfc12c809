"""Methods a class gets from outside its body: a module function a top-level statement sets on the
class (``LinkBot.reply = _link_reply``), or a function a method assigns over a stub at run time
(``def run_sql(self, sql): raise NotImplementedError`` replaced by ``self.run_sql = run_sql_postgres``
in ``connect_to_postgres``), so a call of the method reaches that function."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import abstract


def replaced_stub(func: ast.expr, method: ast.AST) -> bool:
    """Whether ``func`` is ``self.name`` for a method with no body of its own (``abstract``, or one
    that only raises: ``raise Exception("connect to a database first")``): one the code may replace
    at run time by assigning a function to the attribute."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
            and isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))):
        return False
    return abstract(method) or all(isinstance(s, ast.Raise) or (isinstance(s, ast.Expr) and isinstance(
        s.value, ast.Constant)) for s in method.body)


def patched_method(tree: ast.Module, cls: str, attr: str) -> str | None:
    """The module function a top-level statement of the module sets as the method ``attr`` of the
    class ``cls`` (``LinkBot.reply = _link_reply``): a method the class body does not define."""
    found = [s.value.id for s in tree.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name)
             for t in s.targets if isinstance(t, ast.Attribute) and t.attr == attr
             and isinstance(t.value, ast.Name) and t.value.id == cls]
    return found[0] if len(found) == 1 else None


def patched_onto(tree: ast.Module, function: str) -> str | None:
    """The class a top-level statement of the module sets the module function ``function`` on as a
    method (``LinkBot.reply = _link_reply``): its ``self`` is an object of that class."""
    found = {t.value.id for s in tree.body if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name)
             and s.value.id == function for t in s.targets
             if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)}
    return found.pop() if len(found) == 1 else None
