"""A system prompt lost on the branch that handles an overflow: the request rebuilt without it::

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

Or the system prompt (or its first part, ``const [instructions, context] = system.content.split(...)``)
given to a project function that cuts it to a size: one whose returns give the text back whole or
rebuilt from a slice of its pieces (``decode(tokens.slice(0, half)) + " … " + decode(tokens.slice(-half))``,
where ``tokens = encoder.encode(input)``), the text a parameter or a property of an options parameter
(``cannonball({ input: system, targetTokenSize })``). A marker in the cut tells the model something is
missing, not what: the instructions in the part cut out are gone.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, MAX_RESOLVE, Node
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.truncators import Truncators
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Function, Scope
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind, Span

SYSTEM_DROPPED = "system-dropped"
SYSTEM_CUT = "system-cut"
_TAKES = ("shift",)  # `messages.shift()`: the first message, taken off the list
_TEXT_FIELDS = ("content", "text")  # where a message literal holds its text
_LONGEST_DETAIL = 80


@dataclass(frozen=True)
class _Taken:
    """``name`` holds the system prompt, taken from parameter ``param`` (its property ``key``, or
    its first item when ``key`` is None) at ``node``."""

    name: str
    param: str
    key: str | None
    node: Node


def system_drops(m: Module, truncators: Truncators) -> list[Observation]:
    """Each return of a function that rebuilds the request without the system prompt the function
    took out of its parameter and reads again on another path; and each call that cuts it to a size."""
    if "system" not in m.code(m.root).lower():
        return []
    found = []
    for scope in m.all_scopes():
        if scope.kind != "function":
            continue
        for taken in _taken(m, scope):
            for value in scope.returns if len(scope.returns) > 1 else ():
                observation = _dropped(m, scope, taken, value)
                if observation is not None:
                    found.append(observation)
                    break
            found.extend(_cut(m, truncators, scope, taken))
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


def _cut(m: Module, truncators: Truncators, scope: Scope, taken: _Taken) -> list[Observation]:
    """Each call in the function that gives the system text to a project function that cuts it."""
    texts = _system_texts(m, scope.node, taken.name)
    found = []
    for call, call_scope in m.calls:
        if not (scope.node.start_byte <= call.start_byte and call.end_byte <= scope.node.end_byte):
            continue
        callee = truncators.callee(call, call_scope)
        if callee is None:
            continue
        owner, function = callee
        for index, given in enumerate(m.args(call)):
            given = m.unwrap(given)
            pairs = m.raw_pairs(given).items() if given.type == "object" else [(None, given)]
            for key, value in pairs:
                text = _system_text(m, value, texts)
                param = _param(owner.m, function, index, key) if text is not None else None
                cut = _cuts(owner.m, function, param) if param is not None else None
                if cut is not None:
                    found.append(_cut_observation(m, call, text or "", taken, cut))
    return found


def _cut_observation(m: Module, call: Node, text: str, taken: _Taken, where: Span) -> Observation:
    code = " ".join(m.code(call).split())
    detail = code if len(code) <= _LONGEST_DETAIL else f"{m.code(m.field(call, 'function'))}(…)"
    steps = (Evidence(EvidenceKind.FLOW, f"`{taken.name}` holds the system prompt, taken from `{taken.param}`",
                      m.span(taken.node)),
             Evidence(EvidenceKind.FLOW, f"`{m.code(m.field(call, 'function'))}` returns the text rebuilt from a "
                      f"slice of its pieces ({where.path}:{where.line})", where))
    source = Source(SourceKind.TRUNCATION, detail, m.span(call), flow=steps,
                    cut=Cut("tokens", "both", SYSTEM_CUT), strong=True)
    what = f"the system prompt `{text}`" if text == taken.name else f"`{text}`, the first part of the system prompt,"
    return Observation(SYSTEM_CUT, m.span(call),
                       f"`{detail}` cuts {what} to a size: whatever instructions sit in the part cut out are "
                       "gone on the long requests where the cut runs", source=source)


def _system_texts(m: Module, function: Node, name: str) -> dict[str, str]:
    """``name``, and the first piece of it split (``const [instructions] = system.content.split(...)``):
    each name that holds the system prompt's text, with the name it came from."""
    texts = {name: name}
    for node in walk(function):
        if node.type != "variable_declarator":
            continue
        pattern, value = m.field(node, "name"), m.field(node, "value")
        if pattern is None or value is None or pattern.type != "array_pattern" or value.type != "call_expression":
            continue
        callee = m.field(value, "function")
        if callee is None or callee.type != "member_expression" or m.code(m.field(callee, "property")) != "split" \
                or _system_text(m, m.field(callee, "object"), texts) is None:
            continue
        first = next((c for c in pattern.named_children if c.type != "comment"), None)
        if first is not None and first.type == "assignment_pattern":
            first = m.field(first, "left")
        if first is not None and first.type == "identifier":
            texts[m.code(first)] = name
    return texts


def _system_text(m: Module, node: Node | None, texts: dict[str, str]) -> str | None:
    """The name ``node`` reads the system text from: ``system``, ``system.content``."""
    node = m.unwrap(node) if node is not None else None
    if node is not None and node.type == "member_expression" and m.code(m.field(node, "property")) in _TEXT_FIELDS:
        node = m.unwrap(m.field(node, "object"))
    if node is None or node.type not in ("identifier", "shorthand_property_identifier"):
        return None
    return m.code(node) if m.code(node) in texts else None


def _param(m: Module, function: Function, index: int, key: str | None) -> str | None:
    """The name in ``function`` of its parameter ``index`` (of its property ``key``, destructured)."""
    parameters = m.field(function.node, "parameters")
    params = [p for p in parameters.named_children if p.type != "comment"] if parameters is not None else []
    if index >= len(params):
        return None
    pattern = m.field(params[index], "pattern") or params[index]
    if pattern.type == "assignment_pattern":
        pattern = m.field(pattern, "left") or pattern
    if key is None:
        return m.code(pattern) if pattern.type == "identifier" else None
    if pattern.type != "object_pattern":
        return None
    for child in pattern.named_children:
        if child.type == "object_assignment_pattern":
            child = m.field(child, "left")
        if child is not None and child.type == "shorthand_property_identifier_pattern" and m.code(child) == key:
            return key
        if child is not None and child.type == "pair_pattern" and m.key_text(m.field(child, "key")) == key:
            value = m.field(child, "value")
            value = m.field(value, "left") if value is not None and value.type == "assignment_pattern" else value
            return m.code(value) if value is not None and value.type == "identifier" else None
    return None


def _cuts(m: Module, function: Function, param: str) -> Span | None:
    """Where ``function`` cuts ``param``: every return gives it back whole (or empty), or text rebuilt
    from a slice of its pieces; at least one does the latter."""
    scope = function.scope
    found: Span | None = None
    for returned in scope.returns:
        value = _local(m, scope, returned)
        if (value.type == "identifier" and m.code(value) == param) or m.code(value) in ('""', "''", "``"):
            continue
        sliced = _sliced(m, scope, value, param)
        if sliced is None:
            return None
        found = found or sliced
    return found


def _sliced(m: Module, scope: Scope, value: Node, param: str) -> Span | None:
    """A concatenation with a part ``decode(pieces.slice(...))``, ``pieces = encoder.encode(param)``."""
    parts, stack = [], [value]
    while stack:  # the operands of `a + b + c`, in order
        node = stack.pop()
        if node.type == "binary_expression" and m.code(m.field(node, "operator")) == "+":
            stack.extend(m.unwrap(x) for x in (m.field(node, "right"), m.field(node, "left")) if x is not None)
        else:
            parts.append(node)
    if len(parts) < 2:
        return None
    for part in parts:
        arguments = m.args(part) if part.type == "call_expression" else []
        sliced = _local(m, scope, arguments[0]) if len(arguments) == 1 else None
        callee = m.field(sliced, "function") if sliced is not None and sliced.type == "call_expression" else None
        if callee is None or callee.type != "member_expression" or m.code(m.field(callee, "property")) != "slice":
            continue
        pieces = _local(m, scope, m.field(callee, "object"))
        given = m.args(pieces) if pieces.type == "call_expression" else []
        if given and m.code(m.unwrap(given[0])) == param:
            return m.span(sliced)
    return None


def _local(m: Module, scope: Scope, node: Node) -> Node:
    """A name bound once in the function: its value."""
    node = m.unwrap(node)
    for _ in range(MAX_RESOLVE):
        records = (scope.assigns.get(m.code(node)) or []) if node.type == "identifier" else []
        if len(records) != 1 or records[0].value is None or records[0].key is not None:
            return node
        node = m.unwrap(records[0].value)
    return node
