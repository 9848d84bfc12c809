"""The user's task placed first in an agent's message list that the API trims from the front::

    if not self.messages:
        self.messages = [Message(role="user", content=self.query)]
    ...
    self.messages += [Message(role="assistant", content=response.output)]
    ...
    client.responses.create(model=..., input=self.messages, truncation="auto")

With ``truncation="auto"`` the Responses API drops the oldest input items when the input
outgrows the window. The list starts with the task and grows with every step, so on a long run
the task is the first thing the model loses. A request that also sends the task elsewhere (in
``instructions``, or again at the end of ``input``) keeps it, and is not reported.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.deadcode import parked
from ctxlint.frontends.python.literals import keyed_fields
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Scope
from ctxlint.model import Evidence, EvidenceKind, Observation

# Names of the value that holds what the user asked for.
TASK = re.compile(r"(?:^|_)(?:query|task|goal|objective|instructions?|request|question|user_message|user_input)$",
                  re.I)
# How many local assignments the input is followed through (`x = self.format(self.messages)`).
_MAX_HOPS = 4


class TaskDrops(Component):
    def observe(self) -> list[Observation]:
        if "truncation" not in self.m.text:
            return []
        found = []
        for call, scope in self.m.calls:
            truncation = _keyword(call, "truncation")
            if not (isinstance(truncation, ast.Constant) and truncation.value == "auto"):
                continue
            sent = _keyword(call, "input")
            method = _method(scope)
            if sent is None or method is None:
                continue
            fn, cls = method
            read = read_by(sent, fn)
            for attribute in sorted({a.attr for a in read if isinstance(a, ast.Attribute) and on_self(a)}):
                observation = self.dropped_task(call, attribute, cls, read)
                if observation is not None and not parked(self.m, cls.name):
                    found.append(observation)
                    break
        return found

    def dropped_task(self, call: ast.Call, attribute: str, cls: ast.ClassDef,
                     read: list[ast.expr]) -> Observation | None:
        """The observation when ``self.<attribute>`` is set to a list that starts with a user message
        holding the task, grows elsewhere in ``cls``, and the request sends the task nowhere else."""
        placed: ast.Assign | None = None
        grown: ast.stmt | None = None
        task: ast.expr | None = None
        for node in walk(cls):
            if placed is None and isinstance(node, ast.Assign) and any(_is_self(t, attribute) for t in node.targets) \
                    and isinstance(node.value, ast.List) and node.value.elts:
                # the first list the attribute is set to decides, wherever a reset sits among the methods
                task = _task_content(node.value.elts[0])
                placed = node if task is not None else None
            elif grown is None and isinstance(node, ast.stmt) and _grows(node, attribute):
                grown = node
            if placed is not None and grown is not None:
                break
        if placed is None or grown is None or task is None:
            return None
        task_code = self.m.code(task)
        elsewhere = [self.m.code(k.value) for k in call.keywords if k.arg not in ("input", "truncation")]
        if any(self.m.code(r) == task_code for r in read) or any(task_code in code for code in elsewhere):
            return None  # the task is sent again, where the trim does not reach it
        keyword = next(k for k in call.keywords if k.arg == "truncation")
        span = self.m.span(keyword)
        steps = (Evidence(EvidenceKind.FLOW, f"`self.{attribute}` starts with the user's task `{task_code}`",
                          self.m.span(placed)),
                 Evidence(EvidenceKind.FLOW, f"`self.{attribute}` grows: `{self.m.code(grown).splitlines()[0]}`",
                          self.m.span(grown)))
        detail = (f"`truncation=\"auto\"` drops the oldest input items first, and the first item of "
                  f"`self.{attribute}` is the user's task `{task_code}` (line {placed.lineno}), which the list "
                  f"grows after (line {grown.lineno}): on a long run the model loses what it was asked to do. Send the "
                  "task where the trim does not reach it (the instructions, or again as the last input item), or "
                  "trim the middle of the list and keep its first items")
        return self.messages_dropped("task-front-dropped", span, self.m.code(keyword), steps, detail, history=True)


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _method(scope: Scope) -> tuple[FunctionNode, ast.ClassDef] | None:
    """The method the call is in (directly) and its class."""
    if scope.kind != "function" or scope.cls is None or not isinstance(scope.cls.node, ast.ClassDef):
        return None
    if not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return scope.node, scope.cls.node


def read_by(value: ast.expr, fn: FunctionNode) -> list[ast.expr]:
    """The names and attributes ``value`` reads, and those read by the local assignments of the
    names it reads (a few hops back within ``fn``)."""
    read: list[ast.expr] = []
    names: set[str] = set()
    pending = [value]
    for _ in range(_MAX_HOPS + 1):
        next_values = []
        for node in pending:
            for part in walk(node):
                if isinstance(part, (ast.Name, ast.Attribute)) and isinstance(part.ctx, ast.Load):
                    read.append(part)
                    if isinstance(part, ast.Name) and part.id not in names:
                        names.add(part.id)
                        next_values.extend(assigned(fn, part.id))
        pending = next_values
    return read


def assigned(fn: FunctionNode, name: str) -> list[ast.expr]:
    return [node.value for node in walk(fn) if isinstance(node, (ast.Assign, ast.AnnAssign))
            and node.value is not None
            and any(isinstance(t, ast.Name) and t.id == name
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))]


def on_self(node: ast.expr) -> bool:
    """``self.<something>``."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _is_self(node: ast.expr, attribute: str) -> bool:
    return on_self(node) and isinstance(node, ast.Attribute) and node.attr == attribute


def _grows(node: ast.AST, attribute: str) -> bool:
    """``self.a += [...]``, ``self.a.append(...)``, ``self.a.extend(...)``."""
    if isinstance(node, ast.AugAssign):
        return isinstance(node.op, ast.Add) and _is_self(node.target, attribute)
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
        and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in ("append", "extend") \
        and _is_self(node.value.func.value, attribute)


def user_content(message: ast.expr) -> ast.expr | None:
    """The content of a user message written as ``Message(role="user", content=...)`` or
    ``{"role": "user", "content": ...}``."""
    fields = keyed_fields(message)
    role = fields.get("role")
    return fields.get("content") if isinstance(role, ast.Constant) and role.value == "user" else None


def _task_content(message: ast.expr) -> ast.expr | None:
    """The content of a user message when it is a name or attribute named as the task."""
    content = user_content(message)
    if content is None:
        return None
    name = content.id if isinstance(content, ast.Name) else content.attr if isinstance(content, ast.Attribute) else ""
    return content if name and TASK.search(name) else None
