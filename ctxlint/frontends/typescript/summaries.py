"""Summaries of the project's functions and methods that send an SDK request for their caller:
which of their parameters the request's system text, messages, input and output limit come from.

A summary is read from the function's own syntax: its parameters (positional, or properties of a
destructured object, ``{ messages, maxTokens }: Options``), the sink calls of the catalogue its
body makes, which of their system text, messages and input read a parameter (the caller's
content, read at the call), and the value at the request's limit key. The limit is followed only
for a function that sends one request, and only when that value is made of the caller's
parameters alone, written ``input.options?.maxTokens``, ``maxTokens`` or
``opts.maxTokens ?? this.config.maxTokens`` (a method may fall back on settings the instance was
constructed with); a number, a parameter with a default, or anything else is a limit set.

A message list the function writes out keeps the role of each part it reads from the caller
(``{ role: "system", content: prompt.system }``). A function that sends nothing itself but hands
its parameters to one of the project's calls that does is summarised through that call
(``relayed``), for its content only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ctxlint.frameworks.typescript import TsSink
from ctxlint.frontends.typescript.classes import Classes
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, Scope
from ctxlint.model import Role
from ctxlint.providers import ROLE_NAMES

MAX_IMPLEMENTATIONS = 40
MAX_RELAYS = 3  # functions a request's content is followed back through, past the one that sends it
_PARAMETERS = ("required_parameter", "optional_parameter", "identifier", "assignment_pattern", "object_pattern")

Path = tuple[int, tuple[str, ...]]  # a parameter's position, and the properties read in it


@dataclass(frozen=True)
class Limit:
    """Where a function's request takes its output limit from its caller."""

    sent_at: Node  # the limit's key and value in the SDK call
    path: Path  # where the caller's limit is read
    spelled: str  # how a caller gives it: `options.maxTokens`, or the parameter's name
    fallback: Path | None  # a constructor's argument a method falls back on (``this.config.maxTokens``)


@dataclass(frozen=True)
class Summary:
    """How one function or method sends its request for its caller."""

    owner: Classes  # the module the function is in
    name: str  # the class that declares the method, or the function
    content: tuple[tuple[str, Path], ...]  # ("system" | "messages" | "input", the caller's argument)
    limit: Limit | None  # None: the limit is set, or not the caller's to give


def class_summaries(owner: Classes, declaration: Node, method: str) -> list[Summary]:
    """One summary per implementation of ``method`` the class runs: its own (or inherited) body,
    else every subclass's; empty when one of them cannot be summarised."""
    own = owner.method(declaration, method)
    if own is not None:
        found = summarise(own[0], own[2], own[1])
        return [found] if found is not None else []
    summaries: list[Summary] = []
    for sub_owner, subclass in owner.subclasses(declaration):
        member = sub_owner.member(subclass, method)
        if member is None or member.type != "method_definition":
            continue  # inherits an implementation found at its base, or none
        found = summarise(sub_owner, member, subclass)
        if found is None or len(summaries) >= MAX_IMPLEMENTATIONS:
            return []
        summaries.append(found)
    return summaries


def summarise(owner: Classes, function: Node, declaration: Node | None = None) -> Summary | None:
    """The summary of a function (``declaration`` None) or of a method of ``declaration``: None when
    it sends no request of the catalogue, or none that takes anything from its caller."""
    m = owner.m
    params = parameters(m, function)
    params.update(_destructured_locals(m, function, params))
    reads = _content_parameters(m, function)  # the caller's content: a default is only its fallback
    sent = [(call, scope, sink) for call, scope in m.calls
            if function.start_byte <= call.start_byte < function.end_byte and (sink := m.sink_of(call)) is not None]
    if not reads or not sent:
        return None
    content: list[tuple[str, Path]] = []
    for call, scope, sink in sent:
        args = m.args(call)
        keywords = owner.names.entries(args[0], Env(scope)) if args else None
        for kind, keys in (("system", sink.shape.system), ("messages", sink.shape.messages),
                           ("input", sink.shape.input)):
            for key in keys:
                if keywords is not None and key in keywords:
                    value, venv, _ = keywords[key]
                    tagged = _role_tagged(owner, value, venv, reads) if kind == "messages" else None
                    content.extend(tagged if tagged is not None
                                   else ((kind, path) for path in _parameters_read(m, value, reads)))
    # The limit is followed only for a function that sends one request: with several (a retry, a
    # fallback model), which one a call ends in is not the code's to show.
    limit = _limit(owner, *sent[0], params, declaration) if len(sent) == 1 else None
    if not content and limit is None:
        return None
    name = m.field(declaration if declaration is not None else function, "name")
    return Summary(owner, m.code(name) if name is not None else "", tuple(dict.fromkeys(content)), limit)


def relayed(owner: Classes, function: Node, inner: Callable[[Node, Scope], list[Summary]]) -> Summary | None:
    """The summary of a function that sends no request itself but hands its parameters on to a
    call that does, one of the project's functions or methods with a summary (``inner``):
    ``run(prompt)`` calling ``gen.make({ system: prompt.system, prompt: prompt.user })``. Only
    the content is followed; a limit two calls away is not read."""
    m = owner.m
    params = _content_parameters(m, function)
    if not params:
        return None
    content: list[tuple[str, Path]] = []
    for call, scope in m.calls:
        if not function.start_byte <= call.start_byte < function.end_byte:
            continue
        summaries = inner(call, scope)
        args = m.args(call)
        for kind, path in dict.fromkeys(c for s in summaries for c in s.content):
            given = argument(owner.names, args, path, Env(scope))
            if given is None:
                continue
            # a list of messages the function writes out before it hands it on (`const messages = [...]`):
            # each of the caller's values in it keeps its role
            tagged = _role_tagged(owner, given[0], given[1], params) if kind == "messages" else None
            content.extend(tagged if tagged is not None else ((kind, read) for read in _parameters_read(
                m, given[0], params)))
    if not content:
        return None
    name = m.field(function, "name")
    return Summary(owner, m.code(name) if name is not None else "", tuple(dict.fromkeys(content)), None)


def argument(names: Names, args: list[Node], path: Path, env: Env,
             given_instead: dict[int, tuple[Node, Env]] | None = None) -> tuple[Node, Env] | None:
    """A caller's value at ``path``: an argument (or the value ``given_instead`` of it), or one
    property of it; None past a spread, or for a deeper path."""
    position, properties = path
    if position >= len(args) or any(a.type == "spread_element" for a in args[:position + 1]) or len(properties) > 1:
        return None
    given, genv = (given_instead or {}).get(position, (args[position], env))
    if not properties:
        return given, genv
    entries = names.entries(given, genv)
    found = entries.get(properties[0]) if entries is not None else None
    return (found[0], found[1]) if found is not None else None


def _limit(owner: Classes, call: Node, scope: Scope, sink: TsSink, params: dict[str, Path | None],
           declaration: Node | None) -> Limit | None:
    """Where the request takes its limit from the caller, or None (set, or not readable)."""
    m = owner.m
    args = m.args(call)
    opaque = [False]
    keywords = owner.names.entries(args[0], Env(scope), opaque) if args else None
    if keywords is None or opaque[0]:
        return None
    settings: dict | None = keywords
    if sink.shape.settings:
        held = keywords.get(sink.shape.settings.rstrip("."))
        settings = owner.names.entries(held[0], held[1], opaque) if held is not None else {}
    if settings is None or opaque[0]:
        return None
    limit_key = next((k for k in sink.shape.limit_keys if k in settings), None)
    if limit_key is None:
        return None  # the function sends no limit: reported where it sends its request
    value, _, pair = settings[limit_key]
    from_param: list[Path] = []
    from_field: list[list[str]] = []
    spelled = ""
    for part in _alternatives(m, value):
        route = (m.dotted(part) or "").split(".")
        if route[0] in params and params[route[0]] is not None:
            position, path = params[route[0]]  # type: ignore[misc]
            from_param.append((position, (*path, *route[1:])))
            spelled = ".".join((*path, *route[1:])) or route[0]
        elif route[0] == "this" and declaration is not None and len(route) > 2:
            from_field.append(route[1:])
        else:
            return None  # a number, a default, a value of the module: a limit set
    if len(from_param) != 1 or len(from_field) > 1:
        return None
    fallback = None
    if from_field:
        kept = owner.constructor_field(declaration, from_field[0][0]) if declaration is not None else None
        if kept is None:
            return None
        fallback = (kept[0], tuple(from_field[0][1:]))
    return Limit(pair, from_param[0], spelled, fallback)


def _content_parameters(m: Module, function: Node) -> dict[str, Path | None]:
    """The names a function's parameters bind, for the content a caller gives: a name with a default
    (``{ conversationContext = "" }``) is still the caller's value wherever the caller gives one."""
    params = parameters(m, function, defaults=True)
    params.update(_destructured_locals(m, function, params, defaults=True))
    return params


def parameters(m: Module, function: Node, defaults: bool = False) -> dict[str, Path | None]:
    """The names a function's parameters bind, each with its position and the property it reads
    (``{ messages, maxTokens }`` binds two properties of the first); None for a name with a
    default value (``maxTokens = 1024``), which is never unset (with ``defaults``, its path
    all the same)."""
    params = m.field(function, "parameters")
    if params is None:
        single = m.field(function, "parameter")  # `x => ...`
        return {m.code(single): (0, ())} if single is not None else {}
    found: dict[str, Path | None] = {}
    listed = [p for p in params.named_children if p.type in _PARAMETERS]
    for position, param in enumerate(listed):
        pattern = m.field(param, "pattern") if param.type in ("required_parameter", "optional_parameter") else param
        defaulted = m.field(param, "value") is not None
        if pattern is not None and pattern.type == "assignment_pattern":
            pattern, defaulted = m.field(pattern, "left"), True
        if pattern is None:
            continue
        if pattern.type == "identifier":
            found[m.code(pattern)] = None if defaulted and not defaults else (position, ())
        elif pattern.type == "object_pattern":
            for part in pattern.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    found[m.code(part)] = (position, (m.code(part),))
                elif part.type == "object_assignment_pattern":
                    left = m.field(part, "left")
                    if left is not None:
                        found[m.code(left)] = (position, (m.code(left),)) if defaults else None
                elif part.type == "pair_pattern":
                    key, value = m.key_text(m.field(part, "key")), m.field(part, "value")
                    if key is not None and value is not None and value.type == "identifier":
                        found[m.code(value)] = (position, (key,))
                    elif key is not None and value is not None and value.type == "assignment_pattern":
                        left = m.field(value, "left")
                        if left is not None:
                            found[m.code(left)] = (position, (key,)) if defaults else None
    return found


def _destructured_locals(m: Module, function: Node, params: dict[str, Path | None],
                         defaults: bool = False) -> dict[str, Path | None]:
    """Names the function's body takes out of a parameter (``const { system, messages } = options``),
    each as the property it reads; None for one with a default (``numRetries = 0``), unless ``defaults``."""
    own = m.function_of(function)
    scope = own.scope if own is not None else None
    found: dict[str, Path | None] = {}
    for name, records in (scope.assigns.items() if scope is not None else ()):
        record = records[0] if len(records) == 1 else None
        value = m.unwrap(record.value) if record is not None and record.value is not None else None
        if record is None or record.key is None or value is None or value.type != "identifier" \
                or name in params or params.get(m.code(value)) is None:
            continue
        position, path = params[m.code(value)]  # type: ignore[misc]
        defaulted = any(c.type == "object_assignment_pattern" and m.code(m.field(c, "left") or c) == name
                        for c in record.target.named_children)
        found[name] = None if defaulted and not defaults else (position, (*path, record.key))
    return found


# What part of the request a message of each role is: the system text, or the caller's input.
_KIND_OF_ROLE = {Role.SYSTEM: "system", Role.DEVELOPER: "system", Role.USER: "input"}
_KIND_ORDER = ("system", "messages", "input")  # the order the request is rebuilt in at the call


def _role_tagged(owner: Classes, value: Node, env: Env,
                 params: dict[str, Path | None]) -> list[tuple[str, Path]] | None:
    """The caller's values a message list written out in the function holds, each kept with its
    role: ``[{ role: "system", content: prompt.system }, ...history, { role: "user", content:
    prompt.user }]`` takes the caller's system text, messages and input. None when the list is
    not written so (a role that is not a literal system or user one, an element of another
    shape), or not in the order the request is rebuilt in: then the list is read whole."""
    m = owner.m
    node, nenv = owner.names.deref(value, env)
    if node.type != "array":
        return None
    found: list[tuple[str, Path]] = []
    for element in (e for e in node.named_children if e.type != "comment"):
        if element.type == "spread_element":
            found.extend(("messages", path) for path in _parameters_read(m, element, params))
            continue
        entries = owner.names.entries(element, nenv) if element.type == "object" else None
        role = m.string_value(m.unwrap(entries["role"][0])) if entries is not None and "role" in entries else None
        kind = _KIND_OF_ROLE.get(ROLE_NAMES[role]) if role in ROLE_NAMES else None
        if entries is None or kind is None or "content" not in entries:
            return None
        found.extend((kind, path) for path in _parameters_read(m, entries["content"][0], params))
    kinds = [_KIND_ORDER.index(kind) for kind, _ in found]
    return found if kinds == sorted(kinds) else None


def _alternatives(m: Module, node: Node) -> list[Node]:
    """The operands of ``a ?? b || c`` (one value: itself)."""
    node = m.unwrap(node)
    operator = m.field(node, "operator") if node.type == "binary_expression" else None
    if operator is not None and m.code(operator) in ("??", "||"):
        left, right = m.field(node, "left"), m.field(node, "right")
        return [*_alternatives(m, left), *_alternatives(m, right)] if left is not None and right is not None \
            else [node]
    return [node]


def _parameters_read(m: Module, node: Node, params: dict[str, Path | None]) -> list[Path]:
    """The parameters (or their properties, one level) an expression reads: ``messages`` of
    ``convert(input.messages)``, or the parameter given whole."""
    found: list[Path] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("member_expression", "identifier", "shorthand_property_identifier"):
            parts = (m.dotted(current) or "").split(".")
            bound = params.get(parts[0])
            if bound is not None and len(bound[1]) + len(parts) - 1 <= 1:
                found.append((bound[0], (*bound[1], *parts[1:])))
                continue
        stack.extend(current.named_children)
    return found


def constructed_without(summaries: list[Summary]) -> str | None:
    """What the fallback of the summaries is (``options``), "" when there is none, or None when some
    construction of a class that runs one of them may set it (or none is found at all)."""
    with_fallback = [s for s in summaries if s.limit is not None and s.limit.fallback is not None]
    if not with_fallback:
        return ""
    written = None
    for summary in with_fallback:
        position, path = summary.limit.fallback  # type: ignore[union-attr,misc]
        declared = summary.owner.declarations().get(summary.name)
        if declared is None or not path:
            return None
        family = [(summary.owner, declared), *summary.owner.subclasses(declared)]
        sites = 0
        for owner, declaration in family:
            name = owner.m.field(declaration, "name")
            if owner is not summary.owner and owner.member(declaration, "constructor") is not None:
                return None  # a subclass's own constructor may pass its settings another way
            for site_owner, site in summary.owner.constructions(owner.m.code(name)) if name is not None else []:
                args = site_owner.m.args(site)
                argument = site_owner.m.unwrap(args[position]) if position < len(args) else None
                if argument is None or argument.type != "object":
                    return None
                keys = site_owner.m.raw_pairs(argument)
                if path[0] in keys or any(c.type == "spread_element" for c in argument.named_children):
                    return None
                sites += 1
        if not sites:
            return None
        written = path[0]
    return written
