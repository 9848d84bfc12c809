"""A list that the tasks of ``Promise.all`` add to as each finishes, given to the model as a tool's result.

``await Promise.all(queries.map(async (q) => { const res = await search(q); results.push(...res) }))``
fills ``results`` in the order the network calls come back, not the order of ``queries``. Where
the function that starts ``results`` empty is the ``execute`` of a tool (an object that also gives
the model a schema and a description) and returns it, the model reads the items, and numbers them
for citations, in an order that changes from run to run. The array ``Promise.all`` returns keeps
the order of its input, and a list sorted after the tasks finish keeps one order: neither is this.
"""

from __future__ import annotations

from collections.abc import Iterator

from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.syntax import enclosing, own_nodes, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.model import Evidence, EvidenceKind, Observation, Source, SourceKind

_ALL = ("Promise.all", "Promise.allSettled")
# What a tool object gives the model besides the function it runs.
_SCHEMA_KEYS = ("schema", "parameters", "inputSchema", "input_schema")
_DESCRIPTION_KEYS = ("description", "getDescription", "getToolDescription")


def completion_order(m: Module) -> list[Observation]:
    found = []
    for call, _scope in m.calls:
        callee = m.field(call, "function")
        if callee is None or m.qualified(callee) not in _ALL:
            continue
        outer = enclosing(call)
        task = _task(m, call, outer)
        if outer is None or task is None:
            continue
        given = _gives_model(m, outer, call, task)
        if given is None:
            continue
        kind, gives = given
        reported: set[str] = set()
        for push, name in _late_pushes(m, task):
            if name in reported or not _started_empty(m, outer, name) or _sorted(m, outer, name) or \
                    not _returned(m, outer, name):
                continue
            reported.add(name)
            step = Evidence(EvidenceKind.FLOW, f"each task adds to `{name}` after it awaits its work", m.span(push))
            source = Source(SourceKind.UNORDERED_ITERATION, m.qualified(callee) or "Promise.all", m.span(call),
                            flow=(step,))
            found.append(Observation(kind, m.span(push), f"`{name}`, {gives}, gives the model its "
                                     "items in the order the tasks finish", source=source))
    return found


def _gives_model(m: Module, outer: Node, call: Node, task: Node) -> tuple[str, str] | None:
    """The kind of evidence and what makes the function's result the model's to read: it runs the
    model's tool calls, one task each (``completion-order``: the results go back in the order the
    calls finish, beside the calls they answer), or it is a tool's ``execute``
    (``tool-completion-order``: one tool's items, such as live search results, whose order a run
    does not keep anyway; judged of little value)."""
    line = m.span(outer).line
    if _runs_tool_calls(m, task):
        return "completion-order", f"returned by the function that runs the model's tool calls (line {line})"
    tool = _tool_of(m, outer)
    if tool is not None:
        return "tool-completion-order", f"returned by the `execute` of the tool `{tool}` (line {line})"
    return None


def _runs_tool_calls(m: Module, task: Node) -> bool:
    """The task hands a call the name and the arguments of its item (``run(call.name, call.arguments)``):
    the items are the model's tool calls, whose results go back to it."""
    params = m.field(task, "parameters") or m.field(task, "parameter")
    first = next((p for p in (params.named_children if params is not None and params.type == "formal_parameters"
                              else [params] if params is not None else [])), None)
    if first is not None and first.type in ("required_parameter", "optional_parameter"):
        first = m.field(first, "pattern")
    if first is None or first.type != "identifier":
        return False
    item = m.code(first)
    for node in own_nodes(task):
        if node.type == "call_expression":
            given = {m.code(a) for a in m.args(node)}
            if f"{item}.name" in given and given & {f"{item}.{k}" for k in ("arguments", "args", "input")}:
                return True
    return False



def _task(m: Module, call: Node, outer: Node | None) -> Node | None:
    """The function ``Promise.all(items.map(task))`` runs for each item: written in place or a
    local ``const task = async (...) => {...}`` of the same function."""
    args = m.args(call)
    mapped = m.unwrap(args[0]) if args else None
    if mapped is None or mapped.type != "call_expression":
        return None
    callee = m.field(mapped, "function")
    if callee is None or callee.type != "member_expression" or m.code(m.field(callee, "property")) != "map":
        return None
    given = m.args(mapped)
    task = m.unwrap(given[0]) if given else None
    if task is not None and task.type == "identifier" and outer is not None:
        task = _local_function(m, outer, m.code(task))
    return task if task is not None and task.type in ("arrow_function", "function_expression") else None


def _local_function(m: Module, outer: Node, name: str) -> Node | None:
    for node in own_nodes(outer):
        if node.type == "variable_declarator" and m.code(m.field(node, "name") or node) == name:
            value = m.field(node, "value")
            return m.unwrap(value) if value is not None else None
    return None


def _late_pushes(m: Module, task: Node) -> Iterator[tuple[Node, str]]:
    """``name.push(...)`` calls of the task made once an ``await`` of its own has returned."""
    awaited = [n.end_byte for n in own_nodes(task) if n.type == "await_expression"]
    for node in own_nodes(task):
        if node.type != "call_expression":
            continue
        callee = m.field(node, "function")
        if callee is None or callee.type != "member_expression" or m.code(m.field(callee, "property")) != "push":
            continue
        target = m.field(callee, "object")
        if target is None or target.type != "identifier":
            continue
        inside = any(n.type == "await_expression" for n in walk(node, into_functions=False))
        if inside or any(end <= node.start_byte for end in awaited):
            yield node, m.code(target)


def _started_empty(m: Module, outer: Node, name: str) -> bool:
    """``const name = []`` (or ``let name: T[] = []``) in the function itself: a list it owns."""
    for node in own_nodes(outer):
        if node.type == "variable_declarator" and m.code(m.field(node, "name") or node) == name:
            value = m.field(node, "value")
            value = m.unwrap(value) if value is not None else None
            return value is not None and value.type == "array" and not value.named_children
    return False


def _sorted(m: Module, outer: Node, name: str) -> bool:
    """The list is put in an order of its own once filled (``name.sort(...)``, ``sortBy(name)``)."""
    for node in own_nodes(outer):
        if node.type != "call_expression":
            continue
        callee = m.field(node, "function")
        if callee is None:
            continue
        if callee.type == "member_expression" and m.code(m.field(callee, "object")) == name and \
                m.code(m.field(callee, "property")) in ("sort", "toSorted", "reverse"):
            return True
        if "sort" in m.code(callee).lower() and any(m.code(a) == name for a in m.args(node)):
            return True
    return False


def _returned(m: Module, outer: Node, name: str) -> bool:
    """``return name`` or ``return {..., name}`` / ``{key: name}``: the list is the function's result."""
    for node in own_nodes(outer):
        if node.type != "return_statement":
            continue
        value = next((c for c in node.named_children if c.type != "comment"), None)
        value = m.unwrap(value) if value is not None else None
        if value is None:
            continue
        if value.type == "identifier" and m.code(value) == name:
            return True
        if value.type == "object" and any(m.unwrap(v).type in ("identifier", "shorthand_property_identifier") and
                                          m.code(m.unwrap(v)) == name for v in m.raw_pairs(value).values()):
            return True
    return False


def _tool_of(m: Module, function: Node) -> str | None:
    """The name of the tool whose ``execute`` ``function`` is: an object that also gives the model
    a schema and a description (``{name, schema, getDescription, execute}``, ``tool({...})``)."""
    pair = function.parent
    if pair is None or pair.type != "pair" or m.key_text(m.field(pair, "key")) != "execute":
        return None
    obj = pair.parent
    if obj is None or obj.type != "object":
        return None
    pairs = m.raw_pairs(obj)
    if not any(k in pairs for k in _SCHEMA_KEYS) or not any(k in pairs for k in _DESCRIPTION_KEYS):
        return None
    name = pairs.get("name")
    if name is not None and m.string_value(name) is not None:
        return m.string_value(name)
    holder = obj.parent
    while holder is not None and holder.type in ("arguments", "call_expression", "parenthesized_expression",
                                                 "as_expression", "satisfies_expression"):
        holder = holder.parent
    if holder is not None and holder.type == "variable_declarator":
        return m.code(m.field(holder, "name") or holder)
    return "execute"
