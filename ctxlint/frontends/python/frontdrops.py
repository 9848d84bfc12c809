"""The user's task put after the history in a list that a project helper, a few calls away,
trims from the front::

    def fit(messages, budget):                   # utils.py
        while count(messages) > budget:
            messages.pop(0)                      # the oldest message goes first
        return messages

    def build(history, limit):                   # another module
        turns = []
        for turn in history:
            turns.append(as_message(turn))
        return fit(turns, limit)

    def step_messages(task, done):
        steps = [{"role": "user", "content": task}]
        for result in done:                      # the run's steps, after the task
            steps.append({"role": "user", "content": result})
        return steps

    build(past_chat + step_messages(task, done), limit)   # all after the earlier conversation

``fit`` drops the front of its list parameter when it is over a budget (a front-trimmed
parameter), and ``build`` hands what it is given on to it, so ``history`` is front-trimmed too.
The caller puts the task after the whole earlier conversation and before the run's own steps:
when the list outgrows the budget, the oldest messages go, and on a long run the task is among
them. The same holds of ``self.messages`` that a constructor sets to the conversation it is given
and then adds the task to, when the agent's steps grow it. The task also given to the same call
(``build(..., query=task)``), or read by what the call is given besides the list (a system prompt
written from it), is kept, and is not reported; so is a task that is the newest message
(``past_chat + [task_message]``), or a list that starts with the task.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxlint.frontends.code.summaries import SummaryMemo
from ctxlint.frontends.python.deadcode import parked
from ctxlint.frontends.python.nodes import base_name, mentions, walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.taskdrops import TASK, assigned, on_self, read_by, user_content
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Observation

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer

# How many calls a front trim is followed back through (the helper that trims, the functions
# that hand the list on to it).
_MOST_HOPS = 3
# Passes over a function for the names a parameter flows into (a name filled from a name filled
# from the parameter, ...).
_MOST_PASSES = 6


@dataclass(frozen=True)
class Trim:
    """Where a list parameter is trimmed from the front: the function that pops its first item,
    and the path of calls from the function asked about down to it."""

    helper: str
    path: str
    line: int
    through: tuple[str, ...] = ()

    def passed(self, name: str) -> Trim:
        return Trim(self.helper, self.path, self.line, (name, *self.through))

    def describe(self) -> str:
        via = "".join(f"`{name}` -> " for name in self.through)
        return f"{via}`{self.helper}` ({self.path} line {self.line}) drops the oldest items first when over a budget"


@dataclass(frozen=True)
class Placed:
    """The user's task put after the earlier conversation in a list of messages: the node that
    does it (or reads the list that holds it), what it does, the task, and where it is added."""

    at: ast.expr
    says: str
    task: str
    added: Evidence
    carriers: frozenset[str] = frozenset()  # attributes set from the task (a prompt that quotes it)


class FrontDrops(Component):
    def __init__(self, unit: Unit) -> None:
        super().__init__(unit)
        # By (function, depth): kept for later files that reach this module, so the same answer
        # whichever file asks first (code/summaries.py).
        self.summaries: SummaryMemo[dict[str, Trim]] = SummaryMemo()
        self.held: dict[int, dict[str, Placed]] = {}

    def observe(self) -> list[Observation]:
        found = []
        for call, scope in self.m.calls:
            fn = scope.node if scope.kind == "function" else None
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            held = self.held_task_lists(scope.cls) if scope.cls is not None else {}
            for position, argument in _arguments(call):
                placed = self.task_after_history(argument, scope) or self.held_read(argument, fn, held)
                if placed is None:
                    continue
                trim = self.trimmed_argument(call, scope, position)
                if trim is None:
                    continue
                observation = self.observation(call, fn, argument, placed, trim)
                if observation is not None and not self.in_parked_class(scope):
                    found.append(observation)
                break
        return found

    def in_parked_class(self, scope: Scope) -> bool:
        """Whether ``scope`` is a method of a class the program only builds in code that never runs."""
        cls = scope.cls.node if scope.cls is not None else None
        return isinstance(cls, ast.ClassDef) and parked(self.m, cls.name)

    def task_after_history(self, argument: ast.expr, scope: Scope) -> Placed | None:
        """``history + steps`` (written as the argument, or assigned to the name given), ``steps`` a
        list that starts with the user's task and grows after it (``task_first``)."""
        joined = _only_value(argument, scope)
        if not (isinstance(joined, ast.BinOp) and isinstance(joined.op, ast.Add)) \
                or isinstance(joined.left, ast.List) and not joined.left.elts:
            return None
        steps = joined.right
        value = _only_value(steps, scope)
        task = self.task_first(value, steps, scope) if value is not None else None
        if task is None or value is None:
            return None
        code = self.m.code(task)
        says = (f"`{self.m.code(joined)}` puts the messages that start with the user's task `{code}` after "
                f"`{self.m.code(joined.left)}`")
        added = Evidence(EvidenceKind.FLOW, f"`{self.m.code(steps)}` starts with the user's task `{code}`",
                         self.m.span(value))
        return Placed(joined, says, code, added)

    def task_first(self, value: ast.expr, steps: ast.expr, scope: Scope) -> ast.expr | None:
        """The task, when ``steps`` is a list that starts with it and grows in a loop after it: a
        list written with a user message holding the task first, that the function then adds to in
        a loop; or what a project function given the task builds that way and returns (a list that
        is only the task is its newest message, and the trim reaches it last)."""
        fn = scope.node
        if isinstance(value, ast.List) and value.elts and isinstance(steps, ast.Name) \
                and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            task = user_content(value.elts[0])
            if task is not None and _names_task(task) and _first_then_grown(fn, steps.id, lambda e: e is value.elts[0]):
                return task
            return None
        if not isinstance(value, ast.Call):
            return None
        task = next((a for a in value.args if _names_task(a)), None)
        resolved = self.callees.callee(value.func, Env(scope), True) if task is not None else None
        if resolved is None or task is None:
            return None
        builder, method = resolved[1], resolved[3]
        param = _parameter(builder, value.args.index(task), method)
        if param is None:
            return None
        holding = _flows_into(builder, param)
        returned = {n.value.id for n in own_nodes(builder)
                    if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
        if any(_first_then_grown(builder, name, lambda e: mentions(e, holding)) for name in returned):
            return task
        return None

    def held_task_lists(self, cls: Scope) -> dict[str, Placed]:
        """The lists of messages the constructor of ``cls`` (or of a base class of the project)
        starts from a list it is given and then adds the user's task to (``self.messages =
        chat_history``, then ``self.messages += [Message(role="user", content=query)]``), by
        attribute, when a method of ``cls`` grows the list later. ``at`` is the task's message, for
        a read of the list to stand in for."""
        known = self.held.get(id(cls))
        if known is not None:
            return known
        found: dict[str, Placed] = {}
        self.held[id(cls)] = found
        for owner, node in self.constructors(cls):
            unit = owner.unit if owner is not None else self.m
            found.update(self.task_after_given(cls, unit, node))
        return found

    def constructors(self, cls: Scope) -> list[tuple[Analyzer | None, FunctionNode]]:
        """The ``__init__`` of ``cls`` and those of its first bases the project defines (a few
        classes up), each with the module that defines it (None for this one)."""
        found: list[tuple[Analyzer | None, FunctionNode]] = []
        owner: Analyzer | None = None
        callees = self.callees
        current: Scope | None = cls
        for _ in range(_MOST_HOPS):
            if current is None or not isinstance(current.node, ast.ClassDef):
                break
            init = current.functions.get("__init__")
            if init is not None and isinstance(init[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((owner, init[0]))
            base = base_name(current.node.bases[0]) if current.node.bases else None
            located = callees.class_named(base, current.parent, True) if base is not None else None
            if located is None:
                break
            owner = located[0] or owner
            callees = owner.callees if owner is not None else self.callees
            current = located[1]
        return found

    def task_after_given(self, cls: Scope, unit: Unit, node: FunctionNode) -> dict[str, Placed]:
        """What ``held_task_lists`` finds in one constructor, ``node``, defined in ``unit``."""
        found: dict[str, Placed] = {}
        params = {a.arg for a in (*node.args.args, *node.args.kwonlyargs)}
        started: dict[str, ast.stmt] = {}
        for statement in own_nodes(node):
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(statement.value, ast.Name) \
                    and statement.value.id in params:
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                started.update((t.attr, statement) for t in targets if isinstance(t, ast.Attribute) and on_self(t))
        for statement in own_nodes(node):
            added = _added_to_self(statement)
            if added is None or added[0] not in started or added[2].lineno <= started[added[0]].lineno:
                continue
            attr, message, adding = added
            task = user_content(message)
            if task is None or not _names_task(task) or not _grown_elsewhere(cls, attr, node):
                continue
            code, given = unit.code(task), unit.code(started[attr])
            named = code.rpartition(".")[2]
            carriers = frozenset(t.attr for n in own_nodes(node)
                                 if isinstance(n, ast.Assign) and mentions(n.value, {named})
                                 for t in n.targets if isinstance(t, ast.Attribute) and on_self(t))
            where = f"{unit.display_path()} line {adding.lineno}"
            says = (f"`self.{attr}` starts as the conversation the constructor is given (`{given}`) and then gets "
                    f"the user's task `{code}` ({where})")
            found[attr] = Placed(message, says, code,
                                 Evidence(EvidenceKind.FLOW, f"the user's task `{code}` added after the earlier "
                                          f"conversation in `self.{attr}` ({where})", unit.span(adding)), carriers)
        return found

    def held_read(self, argument: ast.expr, fn: FunctionNode, held: dict[str, Placed]) -> Placed | None:
        """A list of ``held`` read by ``argument`` (``self.messages``, or a value built from it),
        reported where it is read."""
        if not held:
            return None
        for read in read_by(argument, fn):
            if isinstance(read, ast.Attribute) and on_self(read) and read.attr in held:
                if isinstance(self.m.parents.get(id(read)), (ast.Attribute, ast.Subscript)):
                    continue  # an item of the list (`self.messages.pop()`, the newest), not the list
                placed = held[read.attr]
                added = Evidence(placed.added.kind, placed.added.text, self.m.span(read))
                return Placed(read, placed.says, placed.task, added, placed.carriers)
        return None

    def trimmed_argument(self, call: ast.Call, scope: Scope, position: int | str) -> Trim | None:
        """The trim of the callee's parameter that ``position`` of ``call`` is bound to, if any."""
        return self.passed_on(call, scope, position, -1)

    def front_trimmed(self, fn: FunctionNode, scope: Scope, depth: int) -> dict[str, Trim]:
        """The list parameters of ``fn`` (a function of this module) whose front ``fn`` drops when
        over a budget, by itself or through a function it hands them on to."""
        return self.summaries.get((id(fn), depth), lambda: self._front_trimmed(fn, scope, depth),
                                  self.m.cut_short) or {}

    def _front_trimmed(self, fn: FunctionNode, scope: Scope, depth: int) -> dict[str, Trim]:
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        flows = {param: _flows_into(fn, param) for param in params}
        found: dict[str, Trim] = {}
        for popped, line in _front_pops(fn):
            for param, names in flows.items():
                if popped in names and param not in found:
                    found[param] = Trim(fn.name, self.m.display_path(), line)
        if depth < _MOST_HOPS and len(found) < len(params):
            for call, inner in self.m.calls_in(scope):
                for position, argument in _arguments(call):
                    read = {n.id for n in walk(argument) if isinstance(n, ast.Name)}
                    takers = [p for p, names in flows.items() if p not in found and read & names]
                    trim = self.passed_on(call, inner, position, depth) if takers else None
                    for param in takers if trim is not None else ():
                        found[param] = trim.passed(fn.name)  # type: ignore[union-attr]
        return found

    def passed_on(self, call: ast.Call, scope: Scope, position: int | str, depth: int) -> Trim | None:
        resolved = self.callees.callee(call.func, Env(scope), True)
        if resolved is None:
            return None
        owner, fn, inner, method = resolved
        param = _parameter(fn, position, method)
        part = owner.front_drops if owner is not None else self
        return part.front_trimmed(fn, inner, depth + 1).get(param) if param is not None else None

    def observation(self, call: ast.Call, fn: FunctionNode, argument: ast.expr, placed: Placed,
                    trim: Trim) -> Observation | None:
        task = {placed.task.rpartition(".")[2], *placed.carriers}
        if any(_restated(a, fn, task, 0) for _, a in _arguments(call) if a is not argument):
            return None  # the task is sent again on every call, where the trim does not reach it
        span = self.m.span(placed.at)
        callee = self.m.code(call.func)
        steps = (placed.added, Evidence(EvidenceKind.FLOW, f"handed to `{callee}`: {trim.describe()}",
                                        self.m.span(call)))
        detail = (f"{placed.says}, and the list given to `{callee}` (line {call.lineno}) is trimmed from the front: "
                  f"{trim.describe()}. Once the conversation and the steps outgrow the budget, the oldest messages "
                  "go, and the task is among the first: the model carries on without what it was asked to do. "
                  "Send the task where the trim does not reach it (the system prompt, or again as the last "
                  "message), or trim the history before the task and keep the task")
        return self.messages_dropped("task-behind-history", span, callee, steps, detail, history=True)


def _only_value(node: ast.expr, scope: Scope) -> ast.expr | None:
    """``node``, or the one value the name ``node`` is set to in ``scope`` (None if it is set more
    than once; what is added to it after does not count)."""
    if not isinstance(node, ast.Name):
        return node
    records = [r for r in scope.assigns.get(node.id) or [] if r.kind == "="]
    return records[0].value if len(records) == 1 else None


def _first_then_grown(fn: FunctionNode, name: str, first: Callable[[ast.expr], bool]) -> bool:
    """Whether the first item ``fn`` puts in the list ``name`` is ``first`` (the first element of
    the list it is set to, or the first item appended to an empty one), and ``fn`` adds to the list
    in a loop after it (closures included: a helper that flushes a group of items into it)."""
    added: list[tuple[int, ast.expr]] = []
    for node in walk(fn):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets) \
                and isinstance(node.value, ast.List):
            added.extend((node.lineno, e) for e in node.value.elts[:1])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name and node.args:
            added.append((node.lineno, node.args[0]))
    if not added:
        return False
    line, item = min(added, key=lambda a: a[0])
    if not first(item):
        return False
    return _grown_in_loop(fn, name, line)


def _grown_in_loop(fn: FunctionNode, name: str, after: int) -> bool:
    """Whether ``fn`` adds to ``name`` in a loop that starts after line ``after``: directly, or by
    calling a function nested in ``fn`` that adds to it."""
    adders = {nested.name for nested in walk(fn) if isinstance(nested, (ast.FunctionDef, ast.AsyncFunctionDef))
              and nested is not fn and any(_adds(n, name) for n in walk(nested))}
    for loop in walk(fn):
        if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and loop.lineno > after and any(
                _adds(n, name) or isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in adders
                for n in walk(loop)):
            return True
    return False


def _adds(node: ast.AST, name: str) -> bool:
    """``name.append(...)``, ``name.extend(...)`` or ``name += ...``."""
    if isinstance(node, ast.AugAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("append", "extend") and isinstance(node.func.value, ast.Name) \
        and node.func.value.id == name


def _added_to_self(node: ast.AST) -> tuple[str, ast.expr, ast.AugAssign | ast.Call] | None:
    """``self.a += [message]`` or ``self.a.append(message)``: (``a``, the message, the node)."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
            and isinstance(node.target, ast.Attribute) and on_self(node.target) \
            and isinstance(node.value, ast.List) and len(node.value.elts) == 1:
        return node.target.attr, node.value.elts[0], node
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "append" and isinstance(node.func.value, ast.Attribute) \
            and on_self(node.func.value) and len(node.args) == 1:
        return node.func.value.attr, node.args[0], node
    return None


def _grown_elsewhere(cls: Scope, attr: str, init: FunctionNode) -> bool:
    """Whether a method of ``cls`` other than ``init`` adds to ``self.<attr>``."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("append", "extend") and isinstance(node.func.value, ast.Attribute)
               and node.func.value.attr == attr and on_self(node.func.value)
               or isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute)
               and node.target.attr == attr and on_self(node.target)
               for method in cls.node.body if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))  # type: ignore[attr-defined]
               and method is not init for node in own_nodes(method))


def _restated(value: ast.expr, fn: FunctionNode, task: set[str], depth: int) -> bool:
    """Whether ``value`` holds the task (a name or attribute called as in ``task``) however it is reached:
    read in it directly, or through local names every assignment of which holds it (a name set
    from the task on one branch only, the first turn, leaves the later turns without it)."""
    for node in walk(value):
        if isinstance(node, ast.Attribute) and node.attr in task and isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in task:
                return True
            values = assigned(fn, node.id) if depth < _MOST_HOPS else []
            if values and all(_restated(v, fn, task, depth + 1) for v in values):
                return True
    return False


def _arguments(call: ast.Call) -> list[tuple[int | str, ast.expr]]:
    """The call's arguments by position or keyword (not ``*args``/``**kwargs``)."""
    found: list[tuple[int | str, ast.expr]] = [(i, a) for i, a in enumerate(call.args)
                                               if not isinstance(a, ast.Starred)]
    found.extend((k.arg, k.value) for k in call.keywords if k.arg is not None)
    return found


def _parameter(fn: FunctionNode, position: int | str, method: bool) -> str | None:
    """The parameter of ``fn`` an argument at ``position`` is bound to."""
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if method and params and params[0] in ("self", "cls"):
        params = params[1:]
    if isinstance(position, int):
        return params[position] if position < len(params) else None
    return position if position in params or position in {a.arg for a in fn.args.kwonlyargs} else None


def _names_task(node: ast.expr) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return bool(name) and TASK.search(name) is not None


def _flows_into(fn: FunctionNode, param: str) -> set[str]:
    """The local names of ``fn`` that hold ``param`` or what is taken from it: assigned from it,
    looped over it, or filled with it (``turns.append(as_message(turn))``, ``turns += history``)."""
    names = {param}
    nodes = own_nodes(fn)
    for _ in range(_MOST_PASSES):
        before = len(names)
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None \
                    and mentions(node.value, names):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
            elif isinstance(node, (ast.For, ast.AsyncFor)) and mentions(node.iter, names):
                names.update(t.id for t in walk(node.target) if isinstance(t, ast.Name))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("append", "extend", "insert") and isinstance(node.func.value, ast.Name) \
                    and any(mentions(a, names) for a in node.args):
                names.add(node.func.value.id)
        if len(names) == before:
            break
    return names


def _front_pops(fn: FunctionNode) -> list[tuple[str, int]]:
    """The names whose first item ``fn`` drops in a loop run while a size is over a bound (not zero):
    ``while total > budget: messages.pop(0)`` (or ``del messages[0]``, ``messages = messages[1:]``)."""
    found = []
    for loop in own_nodes(fn):
        if not (isinstance(loop, ast.While) and any(_over_a_bound(n) for n in walk(loop.test))):
            continue
        for node in walk(loop):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" \
                    and isinstance(node.func.value, ast.Name) and len(node.args) == 1 and _is_zero(node.args[0]):
                found.append((node.func.value.id, node.lineno))
            elif isinstance(node, ast.Delete) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Subscript) and isinstance(node.targets[0].value, ast.Name) \
                    and _is_zero(node.targets[0].slice):
                found.append((node.targets[0].value.id, node.lineno))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Subscript) and isinstance(node.value.value, ast.Name) \
                    and node.value.value.id == node.targets[0].id and isinstance(node.value.slice, ast.Slice) \
                    and node.value.slice.upper is None and node.value.slice.lower is not None \
                    and not (isinstance(node.value.slice.lower, ast.UnaryOp)):
                found.append((node.targets[0].id, node.lineno))
    return found


def _over_a_bound(node: ast.AST) -> bool:
    """``size > budget`` (or ``budget < size``): a size over a bound that is not nothing (a queue
    emptied while ``len(queue) > 0`` is worked through, not trimmed)."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return False
    if isinstance(node.ops[0], (ast.Gt, ast.GtE)):
        bound = node.comparators[0]
    elif isinstance(node.ops[0], (ast.Lt, ast.LtE)):
        bound = node.left
    else:
        return False
    return not (isinstance(bound, ast.Constant) and bound.value in (0, None))


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0

