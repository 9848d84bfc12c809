"""Calls of the project's own functions and model classes that send a request for their caller
(``callModel(prompt)``, ``input.llm.generateObject({messages, schema})`` on an
``llm: BaseLLM<any>``): the request is the one the callee sends (``summaries.py``), read at the
call with the caller's arguments.

When every implementation the call may run takes its output limit from the call, and the call
gives none, the request has no limit: a method may also fall back on settings its instance was
constructed with, which then must be unset at every construction of those classes in the tree.
An abstract method (or an interface's) is followed to every class of the tree that implements it;
every implementation must read its limit that way, or nothing is said.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxlint.frontends.typescript.classes import Classes
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.messages import Messages
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.summaries import (
    MAX_RELAYS,
    Path,
    Summary,
    argument,
    class_summaries,
    constructed_without,
    relayed,
    summarise,
)
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, RequestBuilder, Scope
from ctxlint.model import Evidence, EvidenceKind, Request, Role

MODEL_CLASS_UNSET = "model-class-unset"
WRAPPER_CALL = "wrapper-call"  # the Python front-end's name for the same evidence


@dataclass(eq=False)
class Layers:
    m: Module
    names: Names
    messages: Messages
    classes: Classes
    # By the function's or call's node and the relays left: a summary cut short by the relay limit
    # deep in one chain must not stand for the same function called directly.
    _summarised: dict[tuple[int, int], Summary | None] = field(default_factory=dict)
    _of_call: dict[tuple[int, int], tuple[Node | None, list[Summary], str]] = field(default_factory=dict)
    _of_method: dict[tuple[int, str], list[Summary]] = field(default_factory=dict)  # by class node and method
    _of_module: dict[int, Layers] = field(default_factory=dict)  # another module's calls, by its Classes

    def requests(self, call: Node, env: Env) -> list[Request]:
        """The requests a call of the project's function or method sends, with the caller's system
        text, messages and input; with no limit when the callee takes it from the call, which gives
        none. One per value an argument may hold when a ``switch`` before the call picks it."""
        callee, summaries, kind = self.summaries(call, env)
        if callee is None or not summaries:
            return []
        args = self.m.args(call)
        unset = self._limit_unset(summaries, args, env)
        read = {position for s in summaries for _, (position, _) in s.content}
        variants: list[dict[int, tuple[Node, Env]]] = [{}]
        for position, arg in enumerate(args):
            if position in read and (values := self._switched(arg, env)) is not None:
                variants = [{position: value} for value in values]
                break
        found = []
        for variant in variants:  # the limit is the call's own: said once, with the first
            request = self._request(call, callee, summaries, kind, args, env, variant, unset)
            unset = None
            if request is not None:
                found.append(request)
        return found

    def _request(self, call: Node, callee: Node, summaries: list[Summary], kind: str, args: list[Node], env: Env,
                 given_instead: dict[int, tuple[Node, Env]], unset: str | None) -> Request | None:
        builder = RequestBuilder()
        content = list(dict.fromkeys(c for s in summaries for c in s.content))
        for role in ("system", "messages", "input"):  # where the provider's API shape puts them
            for position, path in (p for r, p in content if r == role):
                given = argument(self.names, args, (position, path), env, given_instead)
                if given is None:
                    continue
                if role == "messages":
                    self.messages.messages(given[0], given[1], builder)
                else:
                    builder.next_message()
                    self.messages.content(given[0], given[1], builder, Role.SYSTEM if role == "system" else Role.USER,
                                          None)
        if unset is None and not builder.segments:
            return None
        first = summaries[0].limit
        return Request(path=self.m.path, anchor=self.m.span(call), segments=tuple(builder.segments),
                       declares_settings=unset is not None, settings_hint=f"`{first.spelled}`" if first else "",
                       breakpoints=tuple(builder.breakpoints), reserve_kind=kind if unset is not None else "",
                       reserve_evidence=(self._evidence(callee, summaries, unset),) if unset is not None else ())

    def summaries(self, call: Node, env: Env, relays: int = 0) -> tuple[Node | None, list[Summary], str]:
        """The callee, the summaries of what it sends for the call (none: it is not the project's
        function or method that sends one, itself or through ``relays`` more of them), and the kind
        of evidence a missing limit would be."""
        known = self._of_call.get((call.id, relays))
        if known is not None:
            return known
        callee = self.m.unwrap(self.m.field(call, "function")) if call.type == "call_expression" else None
        if callee is not None and callee.type == "await_expression" and callee.named_children:
            callee = self.m.unwrap(callee.named_children[0])  # `await llm.generate<T>({...})` parses so
        summaries: list[Summary] = []
        kind = WRAPPER_CALL
        if callee is not None and callee.type == "identifier":
            found = self._function(self.m.code(callee), env)
            summary = self._summary(found[0], found[1], relays) if found is not None else None
            summaries = [summary] if summary is not None else []
        elif callee is not None and callee.type == "member_expression" \
                and (prop := self.m.field(callee, "property")) is not None:
            typed = self.classes.expression_type(self.m.field(callee, "object"), env)
            if typed is not None and typed[1].type != "type_alias_declaration":
                key = (typed[1].id, self.m.code(prop))
                if key not in self._of_method:  # each call of a method, summarised once per module
                    self._of_method[key] = class_summaries(typed[0], typed[1], key[1])
                summaries = self._of_method[key]
            kind = MODEL_CLASS_UNSET
        found_now = (callee, summaries, kind)
        self._of_call[(call.id, relays)] = found_now
        return found_now

    def _summary(self, owner: Classes, function: Node, relays: int) -> Summary | None:
        """What a function sends: its own request, or the one a call of the project's it hands its
        parameters to sends (followed through at most MAX_RELAYS functions, once each)."""
        key = (function.id, relays)
        if key in self._summarised:
            return self._summarised[key]
        self._summarised[key] = None  # a function that calls itself relays nothing
        found = summarise(owner, function)
        if found is None and relays < MAX_RELAYS:
            layers = self if owner is self.classes else self._of_module.setdefault(
                id(owner), Layers(owner.m, owner.names, self.messages, owner))  # its messages are never read
            found = relayed(owner, function, lambda call, scope: layers.summaries(call, Env(scope), relays + 1)[1])
        self._summarised[key] = found
        return found

    def _limit_unset(self, summaries: list[Summary], args: list[Node], env: Env) -> str | None:
        """When every summary takes its limit from the call and the call gives none: what the
        constructions of the classes leave unset ("" when there is no fallback); else None."""
        limits = [s.limit for s in summaries]
        first = limits[0]
        if first is None or any(limit is None or limit.path != first.path for limit in limits) \
                or not self._unset(args, first.path, env):
            return None
        return constructed_without(summaries)

    def _evidence(self, callee: Node, summaries: list[Summary], unset_fallback: str) -> Evidence:
        first = summaries[0].limit
        assert first is not None
        owner = summaries[0].owner
        prop = self.m.field(callee, "property")
        method = f".{self.m.code(prop)}" if prop is not None else ""
        names = list(dict.fromkeys(s.name + method for s in summaries))
        named = " and ".join(f"`{n}`" for n in names) if len(names) <= 3 \
            else f"`{names[0]}`, `{names[1]}` and {len(names) - 2} more"
        if len(names) > 1:
            named += " (the classes of the tree that implement it)"
        sends = f"`{self.m.code(callee)}`"
        if callee.type != "identifier":
            sends += f" runs {named}, which"
        says = (f"{sends} sends a request that takes its limit from the call's `{first.spelled}` "
                f"(`{owner.m.code(first.sent_at)}`), and this call gives none")
        if unset_fallback:
            says += f", nor does any construction of those classes set `{unset_fallback}`"
        return Evidence(EvidenceKind.FLOW, says, owner.m.span(first.sent_at))

    def asks_a_model(self, call: Node, env: Env) -> bool:
        """Whether ``call`` runs a function of the project, imported from another module of the tree,
        that sends a request of the catalogue itself (``getFileSuggestion(prompt, files)`` asking the
        model for a path): what it gives back is made from the model's answer, whatever it was sent.
        A function of this module is followed to its returns instead."""
        callee = self.m.unwrap(self.m.field(call, "function")) if call.type == "call_expression" else None
        if callee is None or callee.type != "identifier" or self.names.function_for(call, env) is not None:
            return False
        found = self._function(self.m.code(callee), env)
        if found is None or found[0] is self.classes:
            return False
        owner, function = found
        return any(function.start_byte <= inner.start_byte < function.end_byte and owner.m.sink_of(inner) is not None
                   for inner, _ in owner.m.calls)

    def _function(self, name: str, env: Env) -> tuple[Classes, Node] | None:
        """The project's function a name calls: the module's own, or one imported from a module of
        the tree (by name, or as its default export)."""
        scope: Scope | None = env.scope
        while scope is not None:
            if name in scope.assigns and name not in scope.functions:
                return None
            if name in scope.functions:
                return self.classes, scope.functions[name].node
            scope = scope.parent
        found = self.classes.imported(name)
        function = found[0].m.module_scope.functions.get(found[1]) if found is not None else None
        return (found[0], function.node) if found is not None and function is not None else None

    def _switched(self, node: Node, env: Env) -> list[tuple[Node, Env]] | None:
        """The values a name may hold at a call after a ``switch`` that assigns it in several of
        its cases (``let prompt; switch (kind) { case "a": prompt = a(); break; ... }``): each is
        sent on some path. None for any other name (one assigned anywhere else, or in a case of
        a switch the call is in)."""
        node = self.m.unwrap(node)
        name = self.m.code(node)
        if node.type != "identifier" or env.bound(name) is not None:
            return None
        scope: Scope | None = env.scope
        while scope is not None and name not in scope.assigns:
            if name in scope.params:
                return None
            scope = scope.parent
        records = scope.assigns[name] if scope is not None else []
        valued = [r for r in records if r.value is not None]
        if len(valued) < 2 or any(r.kind != "=" for r in records) or any(r.end > node.start_byte for r in records):
            return None
        cases = [self._case_of(r.target) for r in valued]
        switches = {case.parent.parent.id for case in cases if case is not None and case.parent is not None
                    and case.parent.parent is not None}
        if None in cases or len(switches) != 1 or len({c.id for c in cases if c is not None}) != len(cases):
            return None
        switch = cases[0].parent.parent  # type: ignore[union-attr]
        if switch.start_byte <= node.start_byte < switch.end_byte:
            return None
        return [(r.value, Env(r.scope, env.bindings if r.scope is env.scope else (), env.depth + 1))
                for r in valued]

    @staticmethod
    def _case_of(node: Node) -> Node | None:
        current: Node | None = node
        while current is not None and current.type not in ("switch_case", "switch_default"):
            if current.type in ("function_declaration", "arrow_function", "function_expression", "method_definition"):
                return None
            current = current.parent
        return current

    def _unset(self, args: list[Node], path: Path, env: Env) -> bool:
        """Whether the call leaves the limit out: no argument there, or an object written out
        without the property."""
        position, properties = path
        if any(a.type == "spread_element" for a in args[:position + 1]):
            return False
        if position >= len(args):
            return True
        if not properties:
            return False
        opaque = [False]
        entries = self.names.entries(args[position], env, opaque)
        for key in properties:
            if entries is None or opaque[0]:
                return False
            if key not in entries:
                return True
            node, kenv, _ = entries[key]
            entries = self.names.entries(node, kenv, opaque)
        return False

