"""The user's text dropped before its attachments by a budget loop that pops content parts::

    def with_files(text, files):
        parts = [{"type": "text", "text": text}]
        parts += [{"type": "text", "text": f} for f in files]
        return parts

    def fit(messages, budget):
        while count(messages) > budget:
            if len(messages[0].content) > 1:
                messages[0].content.pop(0)      # the first part of the oldest message
            else:
                messages.pop(0)

    messages.append(Message(role="user", content=with_files(user_message, files)))
    fit(messages, budget)

When the user's message is the oldest one left, popping its first part drops the question and
keeps the files attached to it: the model answers material with nothing asked about it. Each
step is in the module: the loop, the call that passes the list to it, and the function that puts
the user's text first among the parts.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.taskdrops import TASK, user_content
from ctxlint.frontends.python.unit import Component
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind


class PartDrops(Component):
    def observe(self) -> list[Observation]:
        if ".pop(0)" not in self.m.text:
            return []
        functions = {fn.name: fn for fn, scope in self.m.functions if scope.kind == "function"
                     and isinstance(scope.parent, type(scope)) and scope.parent.kind == "module"}
        found = []
        for fn in functions.values():
            for position, pop in _first_part_pops(fn):
                for caller, messages in self.calls_of(fn.name, position):
                    observation = self.dropped_text(pop, fn, caller, messages, functions)
                    if observation is not None:
                        found.append(observation)
                        break
                else:
                    continue
                break
        return found

    def calls_of(self, name: str, position: int) -> list[tuple[FunctionNode, str]]:
        """The module's functions that call ``name`` with a local list at ``position``."""
        found = []
        for fn, _ in self.m.functions:
            for node in walk(fn):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
                        and len(node.args) > position):
                    continue
                passed = node.args[position]
                if isinstance(passed, ast.Name):
                    found.append((fn, passed.id))
        return found

    def dropped_text(self, pop: ast.Call, fn: FunctionNode, caller: FunctionNode, messages: str,
                     functions: dict[str, FunctionNode]) -> Observation | None:
        """The observation when ``caller`` appends to ``messages`` a user message whose parts a
        module function builds with the user's text first."""
        for node in walk(caller):
            parts = _appended_user_parts(node, messages)
            if not (isinstance(parts, ast.Call) and isinstance(parts.func, ast.Name) and parts.args
                    and isinstance(parts.args[0], ast.Name) and TASK.search(parts.args[0].id)):
                continue
            builder = functions.get(parts.func.id)
            first = _text_first(builder) if builder is not None else None
            if builder is None or first is None:
                continue
            text, builder_name = parts.args[0].id, builder.name
            span = self.m.span(pop)
            steps = (Evidence(EvidenceKind.FLOW, f"`{builder_name}` puts its text first among the parts, what is "
                              "attached after it", self.m.span(first)),
                     Evidence(EvidenceKind.FLOW, f"the user's message: `{builder_name}({text}, …)`",
                              self.m.span(parts)))
            source = Source(SourceKind.TRUNCATION, self.m.code(pop), span,
                            cut=Cut("items", "end", "task-part-dropped"), flow=steps, strong=True)
            detail = (f"`{self.m.code(pop)}` (in `{fn.name}`, called from `{caller.name}`) drops the first content "
                      f"part of the oldest message while the messages are over budget, and the user's message "
                      f"(line {parts.lineno}) is built by `{builder_name}`, which puts the text `{text}` first and "
                      f"what is attached to it after (line {first.lineno}): once that message is the oldest left, "
                      "its text goes before its attachments, and the model reads the material without the "
                      "request. Drop attachments before the text, or put the text last")
            return Observation("task-part-dropped", span, detail, source=source)
        return None


def _first_part_pops(fn: FunctionNode) -> list[tuple[int, ast.Call]]:
    """``p[0].content.pop(0)`` (or ``p[0]["content"].pop(0)``) inside a ``while`` loop of ``fn``,
    for a parameter ``p``: (its position, the call)."""
    params = [a.arg for a in fn.args.args]
    found = []
    for loop in walk(fn):
        if not isinstance(loop, ast.While):
            continue
        for node in walk(loop):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop"
                    and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0):
                continue
            content = node.func.value
            oldest = content.value if isinstance(content, ast.Attribute) and content.attr == "content" else \
                content.value if isinstance(content, ast.Subscript) and _is_constant(content.slice, "content") \
                else None
            if isinstance(oldest, ast.Subscript) and _is_constant(oldest.slice, 0) \
                    and isinstance(oldest.value, ast.Name) and oldest.value.id in params:
                found.append((params.index(oldest.value.id), node))
    return found


def _is_constant(node: ast.expr, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value == value and type(node.value) is type(value)


def _appended_user_parts(node: ast.AST, messages: str) -> ast.expr | None:
    """The content of ``messages.append(Message(content=..., role="user"))`` (or a dict)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == messages and len(node.args) == 1):
        return None
    return user_content(node.args[0])


def _text_first(fn: FunctionNode) -> ast.stmt | None:
    """The statement of ``fn`` that starts the list it returns with a text part of its first
    parameter (``parts = [{"type": "text", "text": message}]``, or ``+=`` onto an empty list),
    when a later statement adds more parts to that list."""
    if not fn.args.args:
        return None
    text = fn.args.args[0].arg
    returned = {n.value.id for n in walk(fn) if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
    adds = [n for n in walk(fn) if isinstance(n, (ast.AugAssign, ast.Assign))
            and any(isinstance(t, ast.Name) and t.id in returned
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))
            and not (isinstance(n.value, ast.List) and not n.value.elts)]
    adds.sort(key=lambda n: (n.lineno, n.col_offset))
    if len(adds) < 2 or not isinstance(adds[0], ast.AugAssign):
        return None
    first = adds[0]
    parts = [first.value.body, first.value.orelse] if isinstance(first.value, ast.IfExp) else [first.value]
    if any(isinstance(p, ast.List) and p.elts and _text_part_of(p.elts[0], text) for p in parts) \
            and any(isinstance(later, ast.AugAssign) for later in adds[1:]):
        return first
    return None


def _text_part_of(part: ast.expr, name: str) -> bool:
    """``{"type": "text", "text": name}``."""
    if not isinstance(part, ast.Dict):
        return False
    fields = {k.value: v for k, v in zip(part.keys, part.values, strict=True) if isinstance(k, ast.Constant)}
    value = fields.get("text")
    return isinstance(value, ast.Name) and value.id == name
