"""Items dropped when a call overflows the model's window, then the call retried: in an
``except`` for a context overflow (``except ContextWindowExceededError``, ``if
is_token_limit_exceeded(e): ...``) a collection is given a slice of itself (``messages =
messages[2:]``) or what a project function returns of it when every return of that function is it
whole or a slice of it (``messages = remove_up_to_last_ai_message(messages)``, which returns
``messages[:i]``). Nothing tells the model what was dropped.

A slice written beside a marker, or a handler that only logs and gives up, is not one.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.loopshapes import drop_of, history_name, says_cut
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind, Span

# What an error (or a test for one) that says the model's window overflowed is called.
_OVERFLOW = re.compile(r"(context|token|prompt).*(exceed|overflow|too_?long|limit)", re.IGNORECASE)


# A drop an overflow handler makes: the statement, the collection, the end it keeps, where a helper
# slices it, and the test that says the window overflowed.
Drop = tuple[ast.stmt, ast.expr, str, Span | None, ast.expr]


class Overflows(Component):
    def observe(self, context: bool) -> list[Observation]:
        if not context or "except" not in self.m.text:  # a module with no handler: no walk
            return []
        found: list[Observation] = []
        for node, scope, _ in self.cut_sites.scoped_nodes():
            if isinstance(node, ast.ExceptHandler):
                found.extend(self.handler(node, Env(scope)))
        return found

    def handler(self, handler: ast.ExceptHandler, env: Env) -> list[Observation]:
        """The drops an ``except`` for an overflow makes, as observations."""
        found = []
        for statement, subject, keeps, where, test in self.drops(handler, env):
            cut = Cut("items", keeps, "drop-loop", history_name(self.m.dotted(subject) or ""))
            steps = [Evidence(EvidenceKind.FLOW, f"`{self.m.code(test)}`: the call overflowed the model's "
                              "window, and is retried with less", self.m.span(test))]
            if where is not None:
                steps.append(Evidence(EvidenceKind.FLOW, f"it returns a slice of what it is given "
                                      f"({where.path}:{where.line})", where))
            source = Source(SourceKind.TRUNCATION, self.m.code(statement), self.m.span(statement), cut=cut,
                            flow=tuple(steps))
            found.append(Observation("drop-loop", self.m.span(statement), "no marker says what was dropped",
                                     source=source))
        return found

    def drops(self, handler: ast.ExceptHandler, env: Env) -> list[Drop]:
        """The drops an ``except`` for an overflow makes, directly or under an ``if`` that tests for
        one: (the statement, the collection, the end it keeps, where a helper slices it, the test)."""
        blocks: list[tuple[list[ast.stmt], ast.expr]] = []
        if handler.type is not None and _overflow(handler.type):
            blocks.append((handler.body, handler.type))
        for statement in handler.body:
            if isinstance(statement, ast.If) and _overflow(statement.test):
                blocks.append((statement.body, statement.test))
        found = []
        for body, test in blocks:
            if says_cut(body):
                continue
            for statement in body:
                dropped = self.dropped(statement, env)
                if dropped is not None:
                    found.append((statement, *dropped, test))
        return found

    def dropped(self, statement: ast.stmt, env: Env) -> tuple[ast.expr, str, Span | None] | None:
        """What a statement drops items of, the end it keeps, and where a helper slices it."""
        direct = drop_of(statement)
        if direct is not None:
            return direct[0], direct[1], None
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.value, ast.Call) and len(statement.value.args) == 1):
            return None
        target, call = statement.targets[0], statement.value
        if self.m.dotted(target) is None or self.m.dotted(call.args[0]) != self.m.dotted(target):
            return None  # `messages = trim(messages)`: the same collection given back shorter
        callee = self.callees.callee(call.func, env, foreign=True)
        if callee is None:
            return None
        owner, fn, scope, method = callee
        assert isinstance(scope, Scope)
        params = scope.positional[1:] if method and scope.positional[:1] in (["self"], ["cls"]) else scope.positional
        if not params or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        sliced = _slices(scope, params[0])
        if sliced is None:
            return None
        keeps, node = sliced
        unit = owner.unit if owner is not None else self.m
        return target, keeps, unit.span(node)


def _slices(scope: Scope, param: str) -> tuple[str, ast.Subscript] | None:
    """Whether every return of a function is ``param`` whole or a slice of it (``param[:i]`` keeps
    the start, ``param[i:]`` the end, the same end each time), with at least one slice."""
    found: tuple[str, ast.Subscript] | None = None
    for value in scope.returns:
        if isinstance(value, ast.Name) and value.id == param:
            continue
        if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == param
                and isinstance(value.slice, ast.Slice) and value.slice.step is None):
            return None
        lower, upper = value.slice.lower, value.slice.upper
        if upper is not None and (lower is None or (isinstance(lower, ast.Constant) and lower.value == 0)):
            keeps = "start"
        elif upper is None and lower is not None:
            keeps = "end"
        else:
            return None
        if found is not None and found[0] != keeps:
            return None
        found = found or (keeps, value)
    return found


def _overflow(node: ast.expr) -> bool:
    """An error class or a call whose name says the model's window overflowed."""
    for part in ast.walk(node):
        name = part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else \
            part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else ""
        if name and _OVERFLOW.search(name):
            return True
    return False
