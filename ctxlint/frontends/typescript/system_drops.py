"""A request rebuilt without the system prompt on the branch that handles an overflow::

    function compress(messages) {
      const system = messages.shift();
      const user = messages.pop();
      if (tokens(user.content) > limit) return [{ role: "user", content: shorten(user.content) }];
      ...
      return [system, ...history, user];
    }

A function takes the system prompt out of what it is given (the first message shifted off a list
parameter, ``messages.shift()`` or ``messages[0]``, held by a name that says system; or the
``systemPrompt`` property of an options parameter), and one of its returns rebuilds the request
without it: a list of message literals none of which is a system message, or a call of the builder
another call of which in the function is given the ``systemPrompt`` property, here left out. The
system prompt is read again further down, where the usual path keeps it. On that branch the model
gets none of the system prompt's instructions, and nothing says they were dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Scope
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

SYSTEM_DROPPED = "system-dropped"
_TAKES = ("shift",)  # `messages.shift()`: the first message, taken off the list
_LONGEST_DETAIL = 80


@dataclass(frozen=True)
class _Taken:
    """``name`` holds the system prompt, taken from parameter ``param`` (its property ``key``, or
    its first item when ``key`` is None) at ``node``."""

    name: str
    param: str
    key: str | None
    node: Node


def system_drops(m: Module) -> list[Observation]:
    """Each return of a function that rebuilds the request without the system prompt the function
    took out of its parameter and reads again on another path."""
    if "system" not in m.code(m.root).lower():
        return []
    found = []
    for scope in m.all_scopes():
        if scope.kind != "function" or len(scope.returns) < 2:
            continue
        for taken in _taken(m, scope):
            for value in scope.returns:
                observation = _dropped(m, scope, taken, value)
                if observation is not None:
                    found.append(observation)
                    break
    return found


def _taken(m: Module, scope: Scope) -> list[_Taken]:
    found = []
    for name, records in scope.assigns.items():
        for record in records:
            if record.kind != "=" or record.value is None:
                continue
            value = m.unwrap(record.value)
            if record.key is not None:  # `const { systemPrompt } = promptArgs`
                if value.type == "identifier" and m.code(value) in scope.params and "system" in record.key.lower():
                    found.append(_Taken(name, m.code(value), record.key, value))
                continue
            taken = _first_item(m, value, scope) if "system" in name.lower() else None
            if taken is not None:
                found.append(_Taken(name, taken, None, value))
            elif value.type == "member_expression":  # `const system = promptArgs.systemPrompt`
                base, prop = m.field(value, "object"), m.field(value, "property")
                if base is not None and prop is not None and base.type == "identifier" \
                        and m.code(base) in scope.params and "system" in m.code(prop).lower():
                    found.append(_Taken(name, m.code(base), m.code(prop), value))
    return found


def _first_item(m: Module, value: Node, scope: Scope) -> str | None:
    """The list parameter whose first item ``value`` is: ``messages.shift()``, ``messages[0]``."""
    if value.type == "call_expression" and not m.args(value):
        callee = m.field(value, "function")
        if callee is not None and callee.type == "member_expression" \
                and m.code(m.field(callee, "property")) in _TAKES:
            value = m.field(callee, "object")
            return m.code(value) if value.type == "identifier" and m.code(value) in scope.params else None
    if value.type == "subscript_expression" and m.code(m.field(value, "index") or value) == "0":
        base = m.field(value, "object")
        return m.code(base) if base is not None and base.type == "identifier" \
            and m.code(base) in scope.params else None
    return None


def _dropped(m: Module, scope: Scope, taken: _Taken, returned: Node) -> Observation | None:
    value = m.unwrap(returned)
    if value.start_byte < taken.node.end_byte or _reads(m, value, taken.name):
        return None
    if not any(_reads(m, later, taken.name) for later in _after(scope.node, value)):
        return None  # the function never sends it: nothing is lost on this branch alone
    if taken.key is None:
        if not _non_system_messages(m, value):
            return None
        what = f"a list of messages without the system message `{taken.name}` took off `{taken.param}`"
    else:
        if not _builder_without(m, scope.node, value, taken.key):
            return None
        what = f"the request without the `{taken.key}` of `{taken.param}` that another call of the builder is given"
    code = " ".join(m.code(value).split())
    detail = f"return {code if len(code) <= _LONGEST_DETAIL else code[:_LONGEST_DETAIL] + '…'}"
    step = Evidence(EvidenceKind.FLOW, f"`{taken.name}` holds the system prompt, taken from `{taken.param}`",
                    m.span(taken.node))
    source = Source(SourceKind.TRUNCATION, detail, m.span(value), flow=(step,),
                    cut=Cut("items", "end", SYSTEM_DROPPED), strong=True)
    return Observation(SYSTEM_DROPPED, m.span(value),
                       f"This return rebuilds {what}: on this branch the model gets none of the system "
                       "prompt's instructions, and nothing says they were left out", source=source)


def _reads(m: Module, node: Node, name: str) -> bool:
    return any(n.type in ("identifier", "shorthand_property_identifier") and m.code(n) == name for n in walk(node))


def _after(function: Node, value: Node) -> list[Node]:
    """The identifiers of ``function`` after ``value``, outside it."""
    return [n for n in walk(function) if n.type in ("identifier", "shorthand_property_identifier")
            and n.start_byte >= value.end_byte]


def _non_system_messages(m: Module, value: Node) -> bool:
    """``[{ role: "user", content: ... }]``: message literals, none of them a system message."""
    if value.type != "array":
        return False
    items = [c for c in value.named_children if c.type != "comment"]
    if not items:
        return False
    for item in items:
        if item.type != "object":
            return False
        role = m.raw_pairs(item).get("role")
        text = m.string_value(role) if role is not None else None
        if text is None or text in ("system", "developer"):
            return False
    return True


def _builder_without(m: Module, function: Node, value: Node, key: str) -> bool:
    """``llm.constructPrompt({ userPrompt })`` where another call of ``llm.constructPrompt`` in the
    function is given ``key`` (``{ systemPrompt: ..., userPrompt }``)."""
    if value.type != "call_expression":
        return False
    callee = m.field(value, "function")
    arguments = [m.unwrap(a) for a in m.args(value)]
    if callee is None or len(arguments) != 1 or arguments[0].type != "object" \
            or key in m.raw_pairs(arguments[0]):
        return False
    for node in walk(function):
        if node.id == value.id or node.type != "call_expression" or _inner_function(node, function):
            continue
        other = m.field(node, "function")
        if other is None or m.code(other) != m.code(callee):
            continue
        given = [m.unwrap(a) for a in m.args(node)]
        if len(given) == 1 and given[0].type == "object" and key in m.raw_pairs(given[0]):
            return True
    return False


def _inner_function(node: Node, function: Node) -> bool:
    """Whether ``node`` is in a function nested in ``function``."""
    parent = node.parent
    while parent is not None and parent.id != function.id:
        if parent.type in FUNCTIONS:
            return True
        parent = parent.parent
    return False
