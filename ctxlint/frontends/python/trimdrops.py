"""The first message after the system prompt trimmed away by a project method that cuts at an
index::

    class Conversation:                          # in another module of the project
        def __init__(self):
            self.messages = []
            self.system(render("system"))        # message 0: the system prompt
        def trim(self, start, count):
            self.messages = self.messages[:start] + self.messages[start + count:]

    while True:
        ...
        if len(convo.messages) > 10:
            convo.trim(1, 2)                     # messages 1 and 2 go

Message 0 is the system prompt, so message 1 is the opening user message: the one that states
the task. Trimming a conversation that grows in a loop from index 1 drops the task first, and
the model goes on without it. Trimming after the opening exchange (``trim(3, 2)``) keeps it.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.taskdrops import on_self
from ctxlint.frontends.python.unit import Component
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind


class TrimDrops(Component):
    def observe(self) -> list[Observation]:
        if "(1," not in self.m.text:
            return []
        found = []
        for call, _ in self.m.calls:
            if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                    and len(call.args) == 2 and _is_int(call.args[0], 1) and _is_int(call.args[1])):
                continue
            guard = self.length_guard(call)
            if guard is None:
                continue
            trimmed = self.trimming_method(call.func.attr)
            if trimmed is None:
                continue
            observation = self.observation(call, guard, *trimmed)
            found.append(observation)
        return found

    def length_guard(self, call: ast.Call) -> ast.If | None:
        """The ``if len(x.messages) > n:`` around ``call``, inside a loop; None if not both."""
        guard: ast.If | None = None
        node: ast.AST | None = self.m.parents.get(id(call))
        while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if guard is None and isinstance(node, ast.If) and _compares_length(node.test):
                guard = node
            if guard is not None and isinstance(node, (ast.While, ast.For, ast.AsyncFor)):
                return guard
            node = self.m.parents.get(id(node))
        return None

    def trimming_method(self, name: str) -> tuple[ast.ClassDef, FunctionNode, ast.stmt, ast.stmt, str] | None:
        """A class this module imports or defines whose method ``name`` cuts ``self.<list>`` at its
        first parameter and whose ``__init__`` adds a system message first: (the class, the method,
        its cut, the system message, the module that defines it)."""
        classes: list[tuple[ast.ClassDef, str]] = [(c, self.m.path) for c, _ in self.m.classes]
        for local, qualified in self.m.imports.items():
            if local in self.m.from_imports and local[:1].isupper():
                defined = self.m.foreign(qualified, self.m.import_levels.get(local, 0))
                if defined is not None and isinstance(defined[1], ast.ClassDef):
                    classes.append((defined[1], defined[0].unit.path))
        for cls, path in classes:
            methods = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
            method, init = methods.get(name), methods.get("__init__")
            if method is None or init is None:
                continue
            cut = _cut_at_first_parameter(method)
            system = _system_first(init)
            if cut is not None and system is not None:
                return cls, method, cut, system, path
        return None

    def observation(self, call: ast.Call, guard: ast.If, cls: ast.ClassDef, method: FunctionNode, cut: ast.stmt,
                    system: ast.stmt, path: str) -> Observation:
        span = self.m.span(call)
        code = self.m.code(call)
        where = f"`{cls.name}.{method.name}`, {path} line {cut.lineno}"
        steps = (Evidence(EvidenceKind.FLOW, f"{where}, cuts the messages at its first argument", span),
                 Evidence(EvidenceKind.FLOW, f"`{cls.name}.__init__` adds the system message first "
                          f"({path} line {system.lineno})", span))
        source = Source(SourceKind.TRUNCATION, code, span, cut=Cut("messages", "end", "first-turn-trimmed"),
                        flow=steps, strong=True)
        detail = (f"`{code}` ({where}) removes messages from index 1 whenever `{self.m.code(guard.test)}` in this "
                  f"loop, and message 0 is the system prompt (`{cls.name}.__init__`, {path} line {system.lineno}): "
                  "message 1 is the opening user message, the one that states the task, so it is the first to go "
                  "and the model carries on without it. Trim after the opening exchange, or restate the task in the "
                  "last message")
        return Observation("first-turn-trimmed", span, detail, source=source)


def _is_int(node: ast.expr, value: int | None = None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and (value is None or node.value == value)


def _compares_length(test: ast.expr) -> bool:
    """``len(x.messages) > n`` (or ``>=``)."""
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Gt, ast.GtE)) \
        and isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name) and test.left.func.id == "len" \
        and _is_int(test.comparators[0])


def _cut_at_first_parameter(method: FunctionNode) -> ast.stmt | None:
    """``self.a = self.a[:start] + self.a[start + count:]`` or ``del self.a[start:start + count]``,
    ``start`` the method's first parameter after ``self``."""
    params = [a.arg for a in method.args.args[1:]]
    if not params:
        return None
    start = params[0]
    for node in walk(method):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Add):
            head, rest = node.value.left, node.value.right
            if isinstance(head, ast.Subscript) and isinstance(head.slice, ast.Slice) \
                    and head.slice.lower is None and _names(head.slice.upper) == {start} \
                    and isinstance(rest, ast.Subscript) and isinstance(rest.slice, ast.Slice) \
                    and start in _names(rest.slice.lower) and on_self(head.value) and on_self(rest.value):
                return node
        if isinstance(node, ast.Delete) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            target = node.targets[0]
            if isinstance(target.slice, ast.Slice) and _names(target.slice.lower) == {start} \
                    and on_self(target.value):
                return node
    return None


def _system_first(init: FunctionNode) -> ast.stmt | None:
    """The first statement of ``__init__`` that adds a message, when it adds a system message
    (``self.system(text)``, ``self.messages.append({"role": "system", ...})``)."""
    for statement in walk(init):
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                and isinstance(statement.value.func, ast.Attribute)):
            continue
        func = statement.value.func
        if func.attr in ("system", "user", "assistant") and _is_self_name(func.value):
            return statement if func.attr == "system" else None
        if func.attr == "append" and on_self(func.value) and statement.value.args:
            message = statement.value.args[0]
            roles = [v.value for k, v in zip(message.keys, message.values, strict=True)
                     if isinstance(message, ast.Dict) and isinstance(k, ast.Constant) and k.value == "role"
                     and isinstance(v, ast.Constant)] if isinstance(message, ast.Dict) else []
            return statement if roles == ["system"] else None
    return None


def _names(node: ast.expr | None) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)} if node is not None else set()


def _is_self_name(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"
