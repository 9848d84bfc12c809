"""Calls of a method of the project's own model classes (``input.llm.generateObject({messages,
schema})`` on an ``llm: BaseLLM<any>``): the request is the one the method's implementations send,
read at the call with the caller's arguments.

A method summary says how an implementation builds its SDK request from its first parameter: which
of the parameter's properties become the messages, and where the output limit comes from. The
limit is followed when it is written as the caller's property, falling back on settings the
instance was constructed with (``input.options?.maxTokens ?? this.config.options?.maxTokens``).
When the call gives no such property and no construction of the classes in the tree sets the
fallback, the request has no limit. An abstract method is followed to every subclass of the tree
that implements it; every implementation must read its limit that way, or nothing is said.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxlint.frontends.typescript.classes import Classes
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.messages import Messages
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, RequestBuilder
from ctxlint.model import Evidence, EvidenceKind, Request

MODEL_CLASS_UNSET = "model-class-unset"
MAX_IMPLEMENTATIONS = 40


@dataclass(frozen=True)
class Summary:
    """How one implementation sends its request."""

    sent_at: Node  # the limit's key and value in the SDK call
    owner: Classes
    limit: tuple[str, ...]  # the parameter's path the limit is read from
    fallback: tuple[int, tuple[str, ...]] | None  # constructor argument's position and path, else None
    messages: tuple[str, ...]  # the parameter's properties the messages are read from
    class_name: str


@dataclass(eq=False)
class Layers:
    m: Module
    names: Names
    messages: Messages
    classes: Classes

    def request(self, call: Node, env: Env) -> Request | None:
        """The request of a call of a project class's method whose implementations all take the
        limit from the call, when the call gives none (nor any construction of those classes)."""
        callee = self.m.unwrap(self.m.field(call, "function")) if call.type == "call_expression" else None
        if callee is not None and callee.type == "await_expression" and callee.named_children:
            callee = self.m.unwrap(callee.named_children[0])  # `await llm.generate<T>({...})` parses so
        args = self.m.args(call)
        if callee is None or callee.type != "member_expression" or not args:
            return None
        prop = self.m.field(callee, "property")
        typed = self.classes.expression_type(self.m.field(callee, "object"), env)
        if prop is None or typed is None or typed[1].type == "type_alias_declaration":
            return None
        summaries = _summaries(typed[0], typed[1], self.m.code(prop))
        if not summaries:
            return None
        opaque = [False]
        given = self.names.entries(args[0], env, opaque)
        if given is None or opaque[0]:
            return None
        limit = summaries[0].limit
        if any(s.limit != limit for s in summaries) or not self._unset(given, limit):
            return None
        unset_fallback = _fallbacks_unset(summaries)
        if unset_fallback is None:
            return None
        builder = RequestBuilder()
        for key in dict.fromkeys(k for s in summaries for k in s.messages):
            if key in given:
                node, kenv, _ = given[key]
                self.messages.messages(node, kenv, builder)
        first = summaries[0]
        classes = list(dict.fromkeys(s.class_name for s in summaries))
        named = " and ".join(f"`{c}`" for c in classes) if len(classes) <= 3 \
            else f"`{classes[0]}`, `{classes[1]}` and {len(classes) - 2} more"
        named += "" if len(classes) == 1 else " (the classes of the tree that implement it)"
        path = ".".join(limit)
        says = (f"`{self.m.code(callee)}` runs {named}, whose request takes its limit from the call's `{path}` "
                f"(`{first.owner.m.code(first.sent_at)}`), and this call gives none")
        if unset_fallback:
            says += f", nor does any construction of those classes set `{unset_fallback}`"
        evidence = (Evidence(EvidenceKind.FLOW, says, first.owner.m.span(first.sent_at)),)
        return Request(path=self.m.path, anchor=self.m.span(call), segments=tuple(builder.segments),
                       declares_settings=True, settings_hint=f"`{path}`", breakpoints=tuple(builder.breakpoints),
                       reserve_kind=MODEL_CLASS_UNSET, reserve_evidence=evidence)

    def _unset(self, given: dict, path: tuple[str, ...]) -> bool:
        """Whether the call's argument leaves ``path`` out (an object written out without it)."""
        entries: dict | None = given
        for key in path:
            if entries is None:
                return False
            if key not in entries:
                return True
            node, kenv, _ = entries[key]
            opaque = [False]
            entries = self.names.entries(node, kenv, opaque)
            if opaque[0]:
                return False
        return False


def _summaries(owner: Classes, declaration: Node, method: str) -> list[Summary]:
    """One summary per implementation of ``method`` the class runs: its own (or inherited) body,
    else every subclass's; empty when one of them cannot be summarised."""
    own = owner.method(declaration, method)
    if own is not None:
        found = _summary(*own)
        return [found] if found is not None else []
    summaries: list[Summary] = []
    for sub_owner, subclass in owner.subclasses(declaration):
        member = sub_owner.member(subclass, method)
        if member is None or member.type != "method_definition":
            continue  # inherits an implementation found at its base, or none
        found = _summary(sub_owner, subclass, member)
        if found is None or len(summaries) >= MAX_IMPLEMENTATIONS:
            return []
        summaries.append(found)
    return summaries


def _summary(owner: Classes, declaration: Node, method: Node) -> Summary | None:
    m = owner.m
    params = m.field(method, "parameters")
    first = next((p for p in params.named_children if p.type in ("required_parameter", "optional_parameter")),
                 None) if params is not None else None
    pattern = m.field(first, "pattern") if first is not None else None
    if pattern is None or pattern.type != "identifier":
        return None
    param = m.code(pattern)
    sent = [(call, scope) for call, scope in m.calls
            if method.start_byte <= call.start_byte < method.end_byte and m.sink_of(call) is not None]
    if len(sent) != 1:
        return None  # none, or several requests: not one summary
    call, scope = sent[0]
    sink = m.sink_of(call)
    args = m.args(call)
    opaque = [False]
    keywords = owner.names.entries(args[0], Env(scope), opaque) if args and sink is not None else None
    if keywords is None or opaque[0] or sink is None:
        return None
    settings: dict | None = keywords
    if sink.shape.settings:
        held = keywords.get(sink.shape.settings.rstrip("."))
        settings = owner.names.entries(held[0], held[1], opaque) if held is not None else {}
    if settings is None or opaque[0]:
        return None
    limit_key = next((k for k in sink.shape.limit_keys if k in settings), None)
    if limit_key is None:
        return None  # the implementation sends no limit: reported where it sends its request
    value, _, pair = settings[limit_key]
    routes = [m.dotted(part) for part in _alternatives(m, value)]
    from_param = [tuple(r.split(".")[1:]) for r in routes if r and r.split(".")[0] == param]
    from_field = [r.split(".")[1:] for r in routes if r and r.startswith("this.")]
    if len(from_param) != 1 or len(from_param) + len(from_field) != len(routes) or len(from_field) > 1 \
            or not from_param[0]:
        return None
    fallback = None
    if from_field:
        kept = owner.constructor_field(declaration, from_field[0][0]) if len(from_field[0]) > 1 else None
        if kept is None:
            return None
        fallback = (kept[0], tuple(from_field[0][1:]))
    messages = []
    for key in (*sink.shape.messages, *sink.shape.system, *sink.shape.input):
        if key in keywords:
            messages.extend(_param_properties(m, keywords[key][0], param))
    name = m.field(declaration, "name")
    return Summary(pair, owner, from_param[0], fallback, tuple(dict.fromkeys(messages)),
                   m.code(name) if name is not None else "")


def _alternatives(m: Module, node: Node) -> list[Node]:
    """The operands of ``a ?? b || c`` (one value: itself)."""
    node = m.unwrap(node)
    operator = m.field(node, "operator") if node.type == "binary_expression" else None
    if operator is not None and m.code(operator) in ("??", "||"):
        left, right = m.field(node, "left"), m.field(node, "right")
        return [*_alternatives(m, left), *_alternatives(m, right)] if left is not None and right is not None \
            else [node]
    return [node]


def _param_properties(m: Module, node: Node, param: str) -> list[str]:
    """The properties of ``param`` read in an expression (``messages`` of ``convert(input.messages)``)."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "member_expression":
            parts = (m.dotted(current) or "").split(".")
            if len(parts) == 2 and parts[0] == param:
                found.append(parts[1])
                continue
        stack.extend(current.named_children)
    return found


def _fallbacks_unset(summaries: list[Summary]) -> str | None:
    """What the fallback is (``options``), "" when there is none, or None when some construction of
    a class that runs one of the implementations may set it (or none is found at all)."""
    with_fallback = [s for s in summaries if s.fallback is not None]
    if not with_fallback:
        return ""
    written = None
    for summary in with_fallback:
        position, path = summary.fallback  # type: ignore[misc]
        declared = summary.owner.declarations().get(summary.class_name)
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
