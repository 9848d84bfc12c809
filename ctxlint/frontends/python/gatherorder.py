"""Chat messages added in the order concurrent tasks finish.

``await asyncio.gather(*[self.run_tool(c) for c in calls])``, where ``run_tool`` (a method of the
class or of a base class in another module) awaits the tool and then adds a message built with a
role to the conversation it keeps (``await self.conversation.add_message(Message(role="tool",
content=...))``, ``self.messages.append({"role": "tool", ...})``): ``gather`` gives back its
results in order, but each task adds its message when it gets there, so the messages of the next
request come in the order the tools finish. A task that adds before its first ``await`` adds in
order (the tasks start one after the other), and results added after ``gather`` returns are not
this.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ctxlint.frontends.python.knowledge import GATHERS
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.orderprompts import COMPLETION_ORDER
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, Observation, Source, SourceKind

Function = ast.FunctionDef | ast.AsyncFunctionDef

_ADDS = ("append", "add_message", "add_messages", "extend")


class GatherOrder(Component):

    def observe(self) -> list[Observation]:
        if "gather" not in self.m.text:
            return []
        found: list[Observation] = []
        for call, scope in self.m.calls:
            if self.m.qualified(call.func) not in GATHERS:
                continue
            home = scope
            while home.cls is None and home.parent is not None and home.parent.kind == "function" \
                    and "self" not in home.params:
                home = home.parent  # a function nested in a method: the method's `self`
            env = Env(home)
            for task in _tasks(call):
                target = self.callees.function_for(task, env, foreign=True, returns=False)
                if target is None or not isinstance(target.fn, ast.AsyncFunctionDef):
                    continue
                added = _message_added_late(target.fn)
                if added is None:
                    continue
                unit = target.owner.unit if target.owner is not None else self.m
                receiver, adding = added
                where = unit.span(_statement_of(adding, unit.parents))
                step = Evidence(EvidenceKind.FLOW, f"`{target.fn.name}`, run for each task, adds a chat message "
                                f"to `{receiver}` after it awaits its work", where)
                source = Source(SourceKind.UNORDERED_ITERATION, "asyncio.gather", self.m.span(call), flow=(step,))
                found.append(Observation(COMPLETION_ORDER, self.m.span(call),
                                         f"the messages in `{receiver}` come in the order the tasks finish, and the "
                                         "next request sends them in that order", source=source))
                break
        return found


def _tasks(call: ast.Call) -> Iterator[ast.Call]:
    """The calls whose coroutines ``gather`` is given: ``gather(a(), b())``, ``gather(*[f(x) for x in xs])``."""
    for arg in call.args:
        value = arg.value if isinstance(arg, ast.Starred) else arg
        if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
            value = value.elt
        if isinstance(value, ast.Call):
            yield value


def _message_added_late(fn: ast.AsyncFunctionDef) -> tuple[str, ast.Call] | None:
    """The call by which ``fn`` adds a chat message (a call or dict with a ``role``) to an
    attribute of ``self`` after an ``await`` of something else, and the attribute's name."""
    nodes = own_nodes(fn)
    awaited = [n.lineno for n in nodes if isinstance(n, ast.Await) and not _adds(n.value)]
    for node in sorted((n for n in nodes if isinstance(n, ast.Call) and _adds(n)), key=lambda n: n.lineno):
        assert isinstance(node.func, ast.Attribute)
        receiver = ast.unparse(node.func.value)
        if receiver.startswith("self.") and any(_has_role(a) for a in node.args) \
                and any(line < node.lineno for line in awaited):
            return receiver, node
    return None


def _adds(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ADDS


def _has_role(node: ast.expr) -> bool:
    if isinstance(node, ast.Call):
        return any(k.arg == "role" for k in node.keywords)
    if isinstance(node, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" for k in node.keys)
    return False


def _statement_of(node: ast.Call, parents: dict[int, ast.AST]) -> ast.expr | ast.stmt:
    """The statement that is the call alone (``await self.add(...)``), for the step's place; else the call."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Await):
        parent = parents.get(id(parent))
    return parent if isinstance(parent, ast.Expr) else node
