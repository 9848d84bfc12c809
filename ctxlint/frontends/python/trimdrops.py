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

At any index, the same trim loses what the user asked for in a revision loop: one that adds the
user's request each turn and regenerates one answer, returned once the user is satisfied::

    while True:
        request = await ask("Any changes?")
        if request.approved:
            break
        if len(convo.messages) > 11:
            convo.trim(3, 2)                     # the oldest change request and its answer
        convo.user(request.text)
        draft = await llm(convo)
    return draft

Each answer replaces the last, and the changes asked for earlier live only in the user messages
the trim removes first: the next version can undo them. A chat that trims old turns without
regenerating one result is not reported: there, the old turns are just old.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import function_of, walk
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.taskdrops import on_self
from ctxlint.frontends.python.unit import Component
from ctxlint.model import Evidence, EvidenceKind, Observation


class TrimDrops(Component):
    def observe(self) -> list[Observation]:
        if "len(" not in self.m.text:
            return []
        found = []
        for call, _ in self.m.calls:
            if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                    and len(call.args) == 2 and _is_int(call.args[0]) and _is_int(call.args[1])
                    and not _is_int(call.args[0], 0)):  # an index past the first message
                continue
            guarded = self.length_guard(call)
            if guarded is None:
                continue
            guard, loop = guarded
            revision = _revision(call, call.func.value.id, loop, self.m.parents)
            trimmed = self.trimming_method(call.func.attr, need_system=revision is None)
            if trimmed is None or (revision is None and not _is_int(call.args[0], 1)):
                continue
            cls, method, cut, system, path = trimmed
            if revision is not None:
                found.append(self.revisions_observation(call, guard, cls, method, cut, path, *revision))
            elif system is not None:
                found.append(self.observation(call, guard, cls, method, cut, system, path))
        return found

    def length_guard(self, call: ast.Call) -> tuple[ast.If, ast.While | ast.For | ast.AsyncFor] | None:
        """The ``if len(x.messages) > n:`` around ``call`` and the loop around it; None if not both."""
        guard: ast.If | None = None
        node: ast.AST | None = self.m.parents.get(id(call))
        while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if guard is None and isinstance(node, ast.If) and _compares_length(node.test):
                guard = node
            if guard is not None and isinstance(node, (ast.While, ast.For, ast.AsyncFor)):
                return guard, node
            node = self.m.parents.get(id(node))
        return None

    def trimming_method(self, name: str, need_system: bool
                        ) -> tuple[ast.ClassDef, FunctionNode, ast.stmt, ast.stmt | None, str] | None:
        """A class this module imports or defines whose method ``name`` cuts ``self.<list>`` at its
        first parameter (and, with ``need_system``, whose ``__init__`` adds a system message first):
        (the class, the method, its cut, the system message if any, the module that defines it)."""
        classes: list[tuple[ast.ClassDef, str]] = [(c, self.m.path) for c, _ in self.m.classes]
        for local, qualified in self.m.imports.items():
            if local in self.m.from_imports and local[:1].isupper():
                defined = self.m.foreign(qualified, self.m.import_levels.get(local, 0))
                if defined is not None and isinstance(defined[1], ast.ClassDef):
                    classes.append((defined[1], defined[0].unit.path))
        for cls, path in classes:
            methods = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
            method, init = methods.get(name), methods.get("__init__")
            if method is None:
                continue
            cut = _cut_at_first_parameter(method)
            system = _system_first(init) if init is not None else None
            if cut is not None and (system is not None or not need_system):
                return cls, method, cut, system, path
        return None

    def revisions_observation(self, call: ast.Call, guard: ast.If, cls: ast.ClassDef, method: FunctionNode,
                              cut: ast.stmt, path: str, asked: ast.Call, answer: ast.stmt, result: str
                              ) -> Observation:
        span = self.m.span(call)
        code = self.m.code(call)
        where = f"`{cls.name}.{method.name}`, {path} line {cut.lineno}"
        steps = (Evidence(EvidenceKind.FLOW, f"{where}, cuts the messages at its first argument", span),
                 Evidence(EvidenceKind.FLOW, f"what the user asks for, added each turn: `{self.m.code(asked)}`",
                          self.m.span(asked)),
                 Evidence(EvidenceKind.FLOW, f"`{result}` regenerated from the conversation and returned after "
                          "the loop", self.m.span(answer)))
        start, count = (self.m.code(a) for a in call.args)
        detail = (f"`{code}` ({where}) removes {count} messages at index {start} whenever "
                  f"`{self.m.code(guard.test)}` in this loop, which adds what the user asks for "
                  f"(`{self.m.code(asked)}`, line {asked.lineno}) and regenerates `{result}` from the conversation "
                  f"(line {answer.lineno}), returned after the loop: once the loop has run a few times the user's "
                  f"earliest requests are among the messages removed, and the next `{result}` can undo what they "
                  "asked for. Trim the superseded answers instead, or restate every request in the last message")
        return self.messages_dropped("revisions-trimmed", span, code, steps, detail)

    def observation(self, call: ast.Call, guard: ast.If, cls: ast.ClassDef, method: FunctionNode, cut: ast.stmt,
                    system: ast.stmt, path: str) -> Observation:
        span = self.m.span(call)
        code = self.m.code(call)
        where = f"`{cls.name}.{method.name}`, {path} line {cut.lineno}"
        steps = (Evidence(EvidenceKind.FLOW, f"{where}, cuts the messages at its first argument", span),
                 Evidence(EvidenceKind.FLOW, f"`{cls.name}.__init__` adds the system message first "
                          f"({path} line {system.lineno})", span))
        detail = (f"`{code}` ({where}) removes messages from index 1 whenever `{self.m.code(guard.test)}` in this "
                  f"loop, and message 0 is the system prompt (`{cls.name}.__init__`, {path} line {system.lineno}): "
                  "message 1 is the opening user message, the one that states the task, so it is the first to go "
                  "and the model carries on without it. Trim after the opening exchange, or restate the task in the "
                  "last message")
        return self.messages_dropped("first-turn-trimmed", span, code, steps, detail)


def _revision(trim: ast.Call, convo: str, loop: ast.While | ast.For | ast.AsyncFor,
              parents: dict[int, ast.AST]) -> tuple[ast.Call, ast.stmt, str] | None:
    """In ``loop``, after ``trim``: ``convo.user(text)`` with text that is not written in the code
    (the user's request), then ``result = [await] f(convo)`` (a call given the conversation or a
    part of it: ``create(messages=convo.messages)``), ``result`` returned by the function
    after the loop: (the user's message, the assignment, ``result``); None otherwise."""
    asked: ast.Call | None = None
    answer: tuple[ast.stmt, str] | None = None
    for node in walk(loop):
        if getattr(node, "lineno", 0) <= trim.lineno:
            continue
        if asked is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "user" and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == convo and len(node.args) == 1 and not _written(node.args[0]):
            asked = node
        elif asked is not None and answer is None and isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else \
                node.target if isinstance(node, ast.AnnAssign) else None
            calls = [n for n in walk(node.value) if isinstance(n, ast.Call)] if node.value is not None else []
            if isinstance(target, ast.Name) and target.id != convo and any(
                    isinstance(n, ast.Name) and n.id == convo for c in calls for a in (*c.args, *c.keywords)
                    for n in walk(a)):
                answer = (node, target.id)
    if asked is None or answer is None:
        return None
    function = function_of(loop, parents)
    inside = {id(n) for n in walk(loop)}
    returned = function is not None and any(
        isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id == answer[1]
        and id(n) not in inside for n in walk(function))
    return (asked, *answer) if returned else None


def _written(node: ast.expr) -> bool:
    """Text the code writes itself: a string constant, or an f-string with no value in it."""
    return isinstance(node, ast.Constant) or (
        isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values))


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
