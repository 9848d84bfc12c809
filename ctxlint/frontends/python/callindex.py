"""The calls of a module under analysis, indexed by the scope they are made in and by the name
they are written with: each index is built the first time it is asked for, from the calls the
scopes recorded (which do not change after)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ctxlint.frontends.python.values import Scope


class CallIndex:
    """The part of a ``Unit`` that finds its calls."""

    calls: list[tuple[ast.Call, Scope]]
    _call_scopes: dict[int, Scope] | None = None
    _calls_by_scope: dict[int, list[tuple[ast.Call, Scope]]] | None = None
    _calls_by_name: dict[str, list[int]] | None = None

    def scope_of(self, call: ast.Call) -> Scope | None:
        """The scope a call of the module is made in (indexed once)."""
        if self._call_scopes is None:
            self._call_scopes = {id(c): where for c, where in self.calls}
        return self._call_scopes.get(id(call))

    def calls_named(self, names: set[str]) -> list[tuple[ast.Call, Scope]]:
        """The calls of the module written with one of ``names`` (``name(...)``, ``x.name(...)``),
        with their scopes, in source order: indexed once, not a walk over every call for each
        function whose callers are asked for (a 1 MB test module asked for 229 took 2 s)."""
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for index, (call, _) in enumerate(self.calls):
                func = call.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
                if name is not None:
                    self._calls_by_name.setdefault(name, []).append(index)
        found = [i for name in names for i in self._calls_by_name.get(name, ())]
        return [self.calls[i] for i in (sorted(found) if len(names) > 1 else found)]

    def function_calls(self) -> Iterator[tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef, Scope]]:
        """The calls made directly in a function that is not a test (``test_*``), with it and its scope."""
        for call, scope in self.calls:
            fn = scope.node
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and not fn.name.startswith("test"):
                yield call, fn, scope

    def calls_in(self, scope: Scope) -> list[tuple[ast.Call, Scope]]:
        """The calls made in ``scope`` and the scopes nested in it, in source order."""
        if self._calls_by_scope is None:
            index: dict[int, list[tuple[ast.Call, Scope]]] = {}
            for call, where in self.calls:
                current: Scope | None = where
                while current is not None:
                    index.setdefault(id(current), []).append((call, where))
                    current = current.parent
            self._calls_by_scope = index
        return self._calls_by_scope.get(id(scope), [])
