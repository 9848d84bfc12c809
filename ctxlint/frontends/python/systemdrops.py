"""A system prompt dropped when a flag says the model has no system role, in a module that builds
prompts or calls a model::

    messages = self.system_messages(system_prompts)
    if not self.use_system_prompt:
        messages = []
    messages.append(user_message(prompt))
    return self.complete(messages)

The list that held the system prompt is emptied and sent on: the model never reads its
instructions, and nothing says they were left out. Folding the system text into the first user
message (the branch mentions it again) is the fix, and is not reported.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Scope
from ctxlint.model import Evidence, EvidenceKind, Observation

Function = ast.FunctionDef | ast.AsyncFunctionDef
# Calls whose argument is only shown or measured, not sent.
_NOT_SENT = {"len", "print", "repr", "str", "bool", "isinstance", "debug", "info", "warning", "error", "log"}


class SystemDrops(Component):
    def observe(self, context: bool) -> list[Observation]:
        if not context or "system" not in self.m.text.lower():
            return []
        found: list[Observation] = []
        for fn, scope in self.m.functions:
            if fn.name.startswith("test"):
                continue
            for node in own_nodes(fn):  # a nested function's ifs are read with its own scope
                if isinstance(node, ast.If) and _says_system(node.test):
                    found.extend(self.emptied(fn, scope, node))
        return found

    def emptied(self, fn: Function, scope: Scope, branch: ast.If) -> list[Observation]:
        """``name = []`` in ``branch`` where ``name`` held the system prompt before it and is sent
        after it, and nothing else in the branch puts the system text back."""
        found = []
        for statement in branch.body:
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.List)
                    and not statement.value.elts):
                continue
            name = statement.targets[0].id
            held = next((r.value for r in scope.assigns.get(name, ()) if r.kind == "=" and r.value is not None
                         and r.end[0] < branch.lineno and _holds_system(r.value)), None)
            others = [s for s in branch.body if s is not statement]
            if held is None or any(_says_system(s) for s in others) or not self.sent_after(fn, name, branch):
                continue
            if _names(branch.test) & _names(held):
                continue  # `if not self.system_prompt: messages = []`: there is no system prompt to lose
            span = self.m.span(statement)
            steps = (Evidence(EvidenceKind.FLOW, f"`{name}` holds the system prompt: `{self.m.code(held)}`",
                              self.m.span(held)),
                     Evidence(EvidenceKind.FLOW, f"`{' '.join(self.m.code(branch.test).split())}`: the model is "
                              "taken to have no system role", self.m.span(branch.test)))
            found.append(self.messages_dropped("dropped-system", span, self.m.code(statement), steps,
                                               f"`{name}` is sent on without it"))
        return found

    def sent_after(self, fn: Function, name: str, branch: ast.If) -> bool:
        """Whether ``fn`` passes ``name`` to a call (not a log or a measure) or returns it after ``branch``."""
        end = branch.end_lineno or branch.lineno
        for node in walk(fn):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and node.lineno > end:
                parent = self.m.parents.get(id(node))
                if isinstance(parent, ast.Return):
                    return True
                if isinstance(parent, ast.Call) and node in parent.args and \
                        (self.m.qualified(parent.func) or "").rsplit(".", 1)[-1] not in _NOT_SENT:
                    return True
                if isinstance(parent, ast.keyword) and parent.arg in ("messages", "msgs", "prompt", "input"):
                    return True
        return False


def _says_system(node: ast.AST) -> bool:
    """Whether a name, attribute or string in ``node`` speaks of a system prompt or role."""
    for part in walk(node):
        word = part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else \
            part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else ""
        if "system" in word.lower():
            return True
    return False


def _names(node: ast.AST) -> set[str]:
    """The names and attributes ``node`` reads (``self.system_prompt`` gives ``system_prompt``)."""
    return {n.id if isinstance(n, ast.Name) else n.attr for n in walk(node)
            if isinstance(n, ast.Attribute) or isinstance(n, ast.Name) and n.id != "self"}


def _holds_system(value: ast.expr) -> bool:
    """A list of messages built from the system prompt: ``[system_message(text)]``,
    ``self.system_msgs(prompts)``, ``[{"role": "system", "content": text}]``."""
    if isinstance(value, ast.Await):
        value = value.value
    return isinstance(value, (ast.List, ast.ListComp, ast.Call)) and _says_system(value)
