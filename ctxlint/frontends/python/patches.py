"""Methods a module sets on a class after the class body (``LinkBot.reply = _link_reply``),
indexed once per module: the method a class has that its body does not define, and the class
whose ``self`` a module function reads."""

from __future__ import annotations

import ast
from functools import cached_property


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
