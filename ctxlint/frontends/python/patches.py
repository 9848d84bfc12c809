"""Methods a class gets from outside its body: a module function a top-level statement sets on the
class (``LinkBot.reply = _link_reply``), indexed once per module, and a function a method assigns
over a stub at run time (``def run_sql(self, sql): raise NotImplementedError`` replaced by
``self.run_sql = run_sql_postgres`` in ``connect_to_postgres``), so a call of the method reaches it."""

from __future__ import annotations

import ast
from functools import cached_property

from ctxlint.frontends.python.nodes import abstract


class PatchIndex:
    """The part of a ``Unit`` that finds the module functions set as methods of its classes."""

    tree: ast.Module

    @cached_property
    def patches(self) -> tuple[tuple[str, str, str], ...]:
        """The module's top-level statements that set a module function as a method of a class:
        (class, method, function)."""
        return tuple((t.value.id, t.attr, s.value.id) for s in self.tree.body
                     if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name)
                     for t in s.targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name))

    def patched(self, cls: str, attr: str) -> str | None:
        """The module function a top-level statement sets as the method ``attr`` of the class
        ``cls``, when one does."""
        found = [function for on, name, function in self.patches if on == cls and name == attr]
        return found[0] if len(found) == 1 else None

    def patched_onto(self, function: str) -> str | None:
        """The class a top-level statement sets the module function ``function`` on as a
        method: its ``self`` is an object of that class."""
        found = {on for on, _, set_to in self.patches if set_to == function}
        return found.pop() if len(found) == 1 else None


def replaced_stub(func: ast.expr, method: ast.AST) -> bool:
    """Whether ``func`` is ``self.name`` for a method with no body of its own (``abstract``, or one
    that only raises: ``raise Exception("connect to a database first")``): one the code may replace
    at run time by assigning a function to the attribute."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
            and isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))):
        return False
    return abstract(method) or all(isinstance(s, ast.Raise) or (isinstance(s, ast.Expr) and isinstance(
        s.value, ast.Constant)) for s in method.body)
