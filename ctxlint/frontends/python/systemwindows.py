"""A window over a message list whose first message is the system prompt::

    def reset(self, chat_id, content):
        self.conversations[chat_id] = [{"role": "system", "content": content}]
    ...
    self.conversations[chat_id] = self.conversations[chat_id][-self.max_history:]
    ...
    client.chat.completions.create(model=..., messages=self.conversations[chat_id])

Keeping the last N messages of the list keeps the newest turns, and once the conversation is
longer than N it drops index 0 with the oldest ones: the system prompt. Every later request goes
without the instructions, and nothing says they were left out. A window that keeps the first
message (``x[:1] + x[-n:]``), over a list of turns the system message is not part of, or followed
by code that puts the system message back (``x.insert(0, system)``) is not reported.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import enclosing, walk
from ctxlint.frontends.python.unit import Component
from ctxlint.model import Evidence, EvidenceKind, Observation

Function = ast.FunctionDef | ast.AsyncFunctionDef
# The argument names and dictionary keys that send a list of messages to a model.
_SENT_AS = {"messages", "input", "chat_history", "history", "conversation"}


class SystemWindows(Component):
    def observe(self, context: bool) -> list[Observation]:
        if not context or "system" not in self.m.text.lower() or ":]" not in self.m.text:
            return []
        found = []
        tree = self.m.module_scope.node
        for node in walk(tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and _window(node.value)):
                continue
            assert isinstance(node.value, ast.Subscript)
            key = _key(node.value.value)
            if key is None or _key(node.targets[0]) != key:
                continue
            area = self.area(node, key)
            first = next((a for a in walk(area) if isinstance(a, ast.Assign) and a is not node
                          and any(_key(t) == key for t in a.targets) and _system_first(a.value)), None)
            if first is None or not _sent(area, key) or self.put_back(node, key):
                continue
            found.append(self.observation(node, key, first))
        return found

    def area(self, cut: ast.Assign, key: str) -> ast.AST:
        """Where the list lives: the class for ``self.<list>``, else the function of the cut."""
        kinds: tuple[type, ...] = (ast.ClassDef,) if key.startswith("self.") else (ast.FunctionDef,
                                                                                    ast.AsyncFunctionDef)
        return enclosing(cut, self.m.parents, kinds) or self.m.module_scope.node

    def put_back(self, cut: ast.Assign, key: str) -> bool:
        """Whether the function of the cut puts a system message at the front again after it
        (``x.insert(0, system)``, ``x = [system] + x``)."""
        fn = enclosing(cut, self.m.parents)
        if fn is None:
            return False
        for node in walk(fn):
            if getattr(node, "lineno", 0) <= cut.lineno:
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "insert" \
                    and _key(node.func.value) == key:
                return True
            if isinstance(node, ast.Assign) and any(_key(t) == key for t in node.targets) and _says_system(node.value):
                return True
        return False

    def observation(self, cut: ast.Assign, key: str, first: ast.Assign) -> Observation:
        assert isinstance(cut.value, ast.Subscript) and isinstance(cut.value.slice, ast.Slice)
        lower = cut.value.slice.lower
        assert isinstance(lower, ast.UnaryOp)
        size = self.m.code(lower.operand)
        span = self.m.span(cut)
        code = self.m.code(cut.value)
        steps = (Evidence(EvidenceKind.FLOW, f"`{key}` starts with the system message: `{self.m.code(first)}`",
                      self.m.span(first)),
                 Evidence(EvidenceKind.FLOW, f"`{code}` keeps only the last `{size}` messages", span))
        detail = (f"`{code}` keeps only the last `{size}` messages of a conversation whose first message is the "
                  f"system prompt (line {first.lineno}): once it is longer, the system prompt is cut away with the "
                  "oldest turns and every later request goes without its instructions. Keep the first message and "
                  "window the rest (`x[:1] + x[-n:]`), or put the system message back after the cut")
        return self.messages_dropped("system-windowed", span, code, steps, detail, history=True)


def _window(value: ast.expr) -> bool:
    """``x[-n:]``: the last ``n`` items, ``n`` not a constant 1 (the last message alone is a
    choice, not a window)."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)):
        return False
    part = value.slice
    lower = part.lower
    return part.upper is None and part.step is None and isinstance(lower, ast.UnaryOp) \
        and isinstance(lower.op, ast.USub) and not (isinstance(lower.operand, ast.Constant)
                                                    and lower.operand.value == 1)


def _key(node: ast.expr) -> str | None:
    """The place a list is held, with variable indexes blurred: ``self.conversations[chat_id]``
    gives ``self.conversations[]``; None for anything but names, attributes and indexes."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _key(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        inner = _key(node.value)
        index = node.slice
        shown = repr(index.value) if isinstance(index, ast.Constant) else ""
        return f"{inner}[{shown}]" if inner is not None else None
    return None


def _system_first(value: ast.expr | None) -> bool:
    """A list literal (or one with more added after it) whose first item is a system message."""
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        value = value.left
    return isinstance(value, ast.List) and bool(value.elts) and _system_message(value.elts[0])


def _system_message(item: ast.expr) -> bool:
    """``{"role": "system", ...}`` (the role may be chosen: ``"assistant" if o1 else "system"``),
    ``SystemMessage(...)``, ``Message(role="system", ...)``, ``("system", text)``."""
    if isinstance(item, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" and _says_system(v)
                   for k, v in zip(item.keys, item.values, strict=True))
    if isinstance(item, ast.Call):
        func = item.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return "system" in name.lower() or any(k.arg == "role" and _says_system(k.value) for k in item.keywords)
    if isinstance(item, ast.Tuple) and item.elts:
        first = item.elts[0]
        return isinstance(first, ast.Constant) and first.value == "system"
    return False


def _says_system(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.lower() == "system"
               or isinstance(n, ast.Call) and _system_message(n) or isinstance(n, ast.Dict) and _system_message(n)
               for n in walk(node))


def _sent(area: ast.AST, key: str) -> bool:
    """Whether the list is sent as the messages of a request in ``area``: ``messages=x`` or a
    dictionary entry ``"messages": x``."""
    for node in walk(area):
        if isinstance(node, ast.keyword) and node.arg in _SENT_AS and _key(node.value) == key:
            return True
        if isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value in _SENT_AS and _key(v) == key
                for k, v in zip(node.keys, node.values, strict=True)):
            return True
    return False
