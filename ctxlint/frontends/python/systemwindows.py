"""A window over a message list whose first message is the system prompt::

    def reset(self, chat_id, content):
        self.conversations[chat_id] = [{"role": "system", "content": content}]
    ...
    self.conversations[chat_id] = self.conversations[chat_id][-self.max_history:]
    ...
    client.chat.completions.create(model=..., messages=self.conversations[chat_id])

Keeping the last N messages of the list keeps the newest turns, and once the conversation is
longer than N it drops index 0 with the oldest ones: the system prompt. Every later request goes
without the instructions, and nothing says they were left out. The same holds for a trim that
removes the first message (``self.messages.pop(0)``, ``del self.messages[:2]``) of a list a class,
or a class of the project it derives from, starts with the system message. A window that keeps
the first message (``x[:1] + x[-n:]``, ``x.pop(1)``), over a list of turns the system message is
not part of, under a test of a message's role, or followed by code that puts the system message
back (``x.insert(0, system)``) is not reported.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import enclosing, walk
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.model import Evidence, EvidenceKind, Observation

Function = ast.FunctionDef | ast.AsyncFunctionDef
# The argument names and dictionary keys that send a list of messages to a model.
_SENT_AS = {"messages", "input", "chat_history", "history", "conversation"}


class SystemWindows(Component):
    def observe(self, context: bool) -> list[Observation]:
        if not context or not any(w in self.m.text for w in (":]", "pop(0)", "del ")):
            return []
        found = []
        done: set[tuple[int, str]] = set()  # one finding for each list a function cuts
        for node in walk(self.m.module_scope.node):
            cut = _front_cut(node) if isinstance(node, ast.stmt) else None
            if cut is None or not isinstance(node, ast.stmt):
                continue
            key, size = cut
            fn = enclosing(node, self.m.parents)
            if (id(fn), key) in done or self.role_tested(node):
                continue
            areas = self.areas(node, key)
            first = next(((a, "" if unit is self.m else unit.path) for area, unit in areas for a in walk(area)
                          if isinstance(a, ast.Assign) and a is not node and any(_key(t) == key for t in a.targets)
                          and _system_first(a.value, enclosing(a, unit.parents))), None)
            if first is None or self.put_back(node, key) or not (
                    any(_sent(area, key) for area, _ in areas) or _names_messages(key)):
                continue
            done.add((id(fn), key))
            found.append(self.observation(node, key, size, *first))
        return found

    def areas(self, cut: ast.stmt, key: str) -> list[tuple[ast.AST, Unit]]:
        """Where the list lives, with the module of each place: the class for
        ``self.<list>`` and the classes it derives from (in this module, or imported from the
        project), else the function of the cut."""
        if not key.startswith("self."):
            return [(enclosing(cut, self.m.parents) or self.m.module_scope.node, self.m)]
        cls = enclosing(cut, self.m.parents, (ast.ClassDef,))
        if not isinstance(cls, ast.ClassDef):
            return [(self.m.module_scope.node, self.m)]
        found: list[tuple[ast.AST, Unit]] = [(cls, self.m)]
        local = {c.name: c for c, _ in self.m.classes}
        for base in cls.bases:
            if not isinstance(base, ast.Name):
                continue
            if base.id in local and local[base.id] is not cls:
                found.append((local[base.id], self.m))
            elif base.id in self.m.imports:
                defined = self.m.foreign(self.m.imports[base.id], self.m.import_levels.get(base.id, 0))
                if defined is not None and isinstance(defined[1], ast.ClassDef):
                    found.append((defined[1], defined[0].unit))
        return found

    def role_tested(self, cut: ast.stmt) -> bool:
        """Whether an ``if`` around the cut reads a message's role or speaks of the system message
        (``if messages[0]["role"] != "system": messages.pop(0)``): the code looks before it cuts."""
        node: ast.AST | None = self.m.parents.get(id(cut))
        while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(node, (ast.If, ast.While)) and any(
                    isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in ("role", "system")
                    or isinstance(n, ast.Attribute) and n.attr == "role" for n in walk(node.test)):
                return True
            node = self.m.parents.get(id(node))
        return False

    def put_back(self, cut: ast.stmt, key: str) -> bool:
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

    def observation(self, cut: ast.stmt, key: str, size: str | None, first: ast.Assign, path: str) -> Observation:
        span = self.m.span(cut)
        code = self.m.code(cut.value) if isinstance(cut, ast.Assign) else self.m.code(cut)
        where = f"{path} line {first.lineno}" if path else f"line {first.lineno}"
        steps = (Evidence(EvidenceKind.FLOW, f"`{key}` starts with the system message ({where})",
                          span if path else self.m.span(first)),
                 Evidence(EvidenceKind.FLOW, f"`{code}` removes the list's first message", span))
        does = f"keeps only the last `{size}` messages of" if size is not None else \
            "removes the first message of"
        detail = (f"`{code}` {does} a conversation whose first message is the system prompt ({where}): once "
                  "it is long enough, the system prompt is cut away with the oldest turns and every later request "
                  "goes without its instructions. Keep the first message and cut after it (`x[:1] + x[-n:]`, "
                  "`x.pop(1)`), or put the system message back after the cut")
        return self.messages_dropped("system-windowed", span, code, steps, detail, history=True)


def _names_messages(key: str) -> bool:
    """A list held under a name for the messages of a conversation (``self.messages``)."""
    last = key.rsplit(".", 1)[-1].split("[", 1)[0].lower()
    return last in ("messages", "msgs", "conversation", "conversations", "history", "chat_history")


def _front_cut(node: ast.AST) -> tuple[str, str | None] | None:
    """The list a statement cuts from its front, and how many messages it keeps if it says:
    ``x = x[-n:]`` (n), ``x.pop(0)``, ``del x[0]``, ``del x[:k]`` (None)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and _window(node.value):
        assert isinstance(node.value, ast.Subscript) and isinstance(node.value.slice, ast.Slice)
        key = _key(node.value.value)
        lower = node.value.slice.lower
        assert isinstance(lower, ast.UnaryOp)
        return (key, ast.unparse(lower.operand)) if key is not None and _key(node.targets[0]) == key else None
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) \
            and node.value.func.attr == "pop" and len(node.value.args) == 1 and _is_zero(node.value.args[0]):
        key = _key(node.value.func.value)
        return (key, None) if key is not None else None
    if isinstance(node, ast.Delete) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        target = node.targets[0]
        index = target.slice
        front = _is_zero(index) or (isinstance(index, ast.Slice) and (index.lower is None or _is_zero(index.lower))
                                    and index.upper is not None and index.step is None)
        key = _key(target.value)
        return (key, None) if front and key is not None else None
    return None


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


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


def _system_first(value: ast.expr | None, fn: ast.AST | None) -> bool:
    """A list literal (or one with more added after it) whose first item is a system message,
    written there or held by a name the function ``fn`` gives one (``[system_item]``)."""
    while isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        value = value.left
    if not (isinstance(value, ast.List) and value.elts):
        return False
    item = value.elts[0]
    if isinstance(item, ast.Name) and fn is not None:
        given = [a.value for a in walk(fn) if isinstance(a, ast.Assign) and len(a.targets) == 1
                 and isinstance(a.targets[0], ast.Name) and a.targets[0].id == item.id]
        return len(given) == 1 and _system_message(given[0])
    return _system_message(item)


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
