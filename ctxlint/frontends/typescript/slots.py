"""The slot a value's unknown part becomes, with the facts its expression shows: the names and calls
it reads (through the module's constants, where they run once), the sources of its content, text
cut to a fixed length (``text.slice(0, 4000)``) and whether a marker says so."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ctxlint.frontends.code import words
from ctxlint.frontends.code.guard import bound_list
from ctxlint.frontends.code.pieces import Facts, Piece
from ctxlint.frontends.code.words import cut_marker
from ctxlint.frontends.typescript.knowledge import (
    FUNCTIONS,
    MAX_ANSWER_DEPTH,
    MAX_RESOLVE,
    MEASURES,
    MEASURING_CALLS,
    MEASURING_METHODS,
    Node,
    snake,
)
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.sources import Sources
from ctxlint.frontends.typescript.strings import Strings
from ctxlint.frontends.typescript.syntax import unescape
from ctxlint.frontends.typescript.truncators import Truncators
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import ITEM, Binding, Env, Scope, named
from ctxlint.frontends.typescript.walked import walked_collection
from ctxlint.markers import cut_marker_before
from ctxlint.model import Cut, Role, Segment, Slot, Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.analyzer import Analyzer

# The fewest entries of a listing whose cut reads as the whole folder (as listingcuts.py counts).
_LEAST_ENTRIES = 10


@dataclass(eq=False)
class Slots:
    """Makes slots and their facts; the top of the reading of values."""

    m: Module
    names: Names
    sources: Sources
    strings: Strings
    truncators: Truncators

    def slot_piece(self, node: Node, env: Env, span_node: Node | None = None, variable: bool = False) -> Piece:
        expression = " ".join(self.m.code(node).split())
        facts = self.facts(node, env)
        facts.sources.extend(self.sources.iteration_sources(node, env))
        if variable:
            facts.variable_length = True
        slot = self.make_slot(expression, facts)
        walked = walked_collection(self.m, self.m.unwrap(node))
        if walked is not None and walked.type == "identifier":  # a caller's argument gives the order
            slot = replace(slot, walks=(self.m.code(walked),))
        return Piece(expression, self.m.span(span_node or node), slot)

    def make_slot(self, expression: str, facts: Facts) -> Slot:
        sources, seen = [], set()
        for source in facts.sources:
            if (source.kind, source.span) not in seen:
                seen.add((source.kind, source.span))
                sources.append(source)
        once = tuple(c for c in named(facts.once) if c not in facts.calls)
        return Slot(expression, named(facts.names), named([*facts.calls, *once]), (), facts.variable_length,
                    tuple(sources), once=once)

    def facts(self, node: Node, env: Env, acc: Facts | None = None) -> Facts:
        acc = acc if acc is not None else Facts()
        if env.depth > MAX_RESOLVE:
            return acc
        node = self.m.unwrap(node)
        kind = node.type
        if kind in ("identifier", "member_expression", "subscript_expression", "call_expression", "await_expression",
                    "shorthand_property_identifier"):
            for source in (self.sources.untrusted(node, env), self.truncation(node, env)):
                if source is not None:
                    acc.sources.append(source)
        elif kind in ("binary_expression", "template_string"):
            self.mark_cuts(node)
        if kind in ("identifier", "member_expression", "subscript_expression", "shorthand_property_identifier"):
            dotted = self.m.dotted(node)
            if dotted is not None:
                if kind == "member_expression" and dotted.rsplit(".", 1)[-1] in MEASURES:
                    inner = self.facts(self.m.field(node, "object"), env)
                    acc.calls.extend(inner.calls)
                    acc.once.extend(inner.once)
                    return acc
                if self.m.is_variable(dotted):
                    if kind == "member_expression" and self.written_item_member(node, env):
                        return acc  # the project's own text, whatever its name says
                    acc.names.append(dotted)
                    if kind in ("identifier", "shorthand_property_identifier"):
                        self.merge_binding(node, env, acc)
                    else:
                        acc.sources.extend(self.property_cuts(node, env))
                        if self.m.answers:
                            acc.sources.extend(self.answer_read(node, env))
                return acc
            if kind == "member_expression":
                return self.facts(self.m.field(node, "object"), env, acc)
        if kind in ("call_expression", "new_expression"):
            self.call_facts(node, env, acc)
            return acc
        if kind in FUNCTIONS or kind == "ERROR":
            # What error recovery swallowed into an expression (a whole run of statements in one
            # `${...}`) is not a value; following each of its names and calls is not done.
            return acc
        for child in node.named_children:
            if child.type not in ("comment", "property_identifier", "type_arguments", "type_annotation"):
                self.facts(child, env, acc)
        return acc

    def property_cuts(self, node: Node, env: Env) -> list[Source]:
        """``ctx.synthesis`` where ``ctx`` is an object literal (bound here, or what a function of the
        module returns) whose ``synthesis`` holds text cut to a length (``answer.slice(0, 1500)``):
        the cut the property carries to wherever it is read. Only the cuts: the property's other
        facts stay with the name read, as before."""
        obj, key = self.m.field(node, "object"), self.names.property_key(node)
        if obj is None or key is None or self.m.unwrap(obj).type not in ("identifier", "call_expression"):
            return []
        entries = self.names.entries(obj, env)
        if not entries or key not in entries:
            return []
        value, value_env, _ = entries[key]
        if self.m.unwrap(value).type in FUNCTIONS or value_env.depth >= MAX_RESOLVE:
            return []
        inner = self.facts(value, Env(value_env.scope, value_env.bindings, value_env.depth + 1))
        return [s for s in inner.sources if s.kind == SourceKind.TRUNCATION]

    def answer_read(self, node: Node, env: Env) -> list[Source]:
        """``step.codingIssue`` where ``step`` holds (a part of) what a request of the module
        returned: the model's own answer, whatever the property is called."""
        call = self.answered(node, env, 0)
        return [] if call is None else [Source(SourceKind.MODEL_OUTPUT, "the answer of a request", self.m.span(call))]

    def answered(self, node: Node, env: Env, depth: int) -> Node | None:
        """The request call whose answer ``node`` is built from, read from syntax alone (the value
        of a name, an object's entries, a property, a call's receiver and arguments), or None. A
        name's value is asked once per module."""
        node = self.m.unwrap(node)
        if node is None or depth > MAX_ANSWER_DEPTH:
            return None
        if node.type == "call_expression" and node.id in self.m.answers:
            return node
        if node.type in ("identifier", "shorthand_property_identifier"):
            binding = self.names.resolve(node, env)
            if binding is None:
                return None
            key = binding.value.id
            if key not in self.m.answered:
                self.m.answered[key] = None  # a name built from itself is not followed round again
                self.m.answered[key] = self.answered(binding.value, binding.env, depth + 1)
            return self.m.answered[key]
        if node.type in ("member_expression", "subscript_expression"):
            return self.answered(self.m.field(node, "object"), env, depth + 1)
        if node.type in ("await_expression", "call_expression", "object", "pair", "spread_element", "arguments",
                         "binary_expression", "ternary_expression", "array"):
            for child in node.named_children:
                if child.type not in FUNCTIONS:
                    found = self.answered(child, env, depth + 1)
                    if found is not None:
                        return found
        return None

    def written_item_member(self, node: Node, env: Env) -> bool:
        """``doc.usage`` in ``DOCS.map((doc) => ...)`` where every item of ``DOCS``, an array the
        project writes out (here, or as the default export of a module it imports), gives
        ``usage`` as a literal string: in an object literal, or as a constant of a module imported
        whole (``import * as card from "./card"``)."""
        obj, key = self.m.field(node, "object"), self.names.property_key(node)
        obj = self.m.unwrap(obj) if obj is not None else None
        if obj is None or key is None or obj.type != "identifier":
            return False
        binding = self.names.resolve(obj, env)
        if binding is None or binding.part != ITEM:
            return False
        items = self.names.written_items(binding.value, binding.env)
        return bool(items) and all(_literal_member(owner or self, item, item_env, key)
                                   for owner, item, item_env in items or ())

    def merge_binding(self, node: Node, env: Env, acc: Facts) -> None:
        binding = self.names.resolve(node, env)
        inner = self.bound_facts(binding) if binding is not None else None
        if binding is None or inner is None:
            return
        # A module-level constant is evaluated once, when the module loads.
        (acc.once if binding.env.scope.kind == "module" else acc.calls).extend(inner.calls)
        acc.once.extend(inner.once)
        acc.names.extend(inner.names)
        acc.sources.extend(inner.sources)
        acc.variable_length = acc.variable_length or inner.variable_length

    def bound_facts(self, binding: Binding) -> Facts | None:
        """The facts of a name's value and of what is added to it afterwards (None when a cycle
        guard stops the reading). Like its text (see name_text), they are kept when read outside
        any other name's reading, with what the reading consumed: a page quoted in 10,000
        messages is followed to its fetch once, not 10,000 times."""
        key = self.m.kept_key(binding)
        kept = self.m.facts_memo.get(key) if key is not None else None
        if kept is not None:
            self.m.consumed |= kept[1]
            return kept[0]
        followed = self.m.follow_apart(binding.value, self._bound_facts, binding, merge=True)
        if followed is None:
            return None
        if key is not None:
            self.m.facts_memo[key] = followed
        return followed[0]

    def _bound_facts(self, binding: Binding) -> Facts:
        inner = self.facts(binding.value, binding.env)
        for extra in binding.extras:
            if extra.value is not None:
                self.facts(extra.value, binding.env, inner)
            if binding.loop_of(extra) is not None:
                inner.variable_length = True
        return inner

    def call_facts(self, call: Node, env: Env, acc: Facts) -> None:
        callee = self.m.field(call, "function") if call.type == "call_expression" else self.m.field(call, "constructor")
        args = self.m.args(call)
        if callee is None:
            return
        if call.id in self.m.answers:  # what a request returns is the model's answer, whatever it was sent
            acc.sources.append(Source(SourceKind.MODEL_OUTPUT, f"the answer of `{self.m.short(callee)}(...)`",
                                      self.m.span(call)))
            return
        callee = self.m.unwrap(callee)
        qualified = self.m.qualified(callee)
        method = self.m.code(self.m.field(callee, "property")) if callee.type == "member_expression" else None
        if call.type == "new_expression":
            if qualified == "Date" and not args:
                acc.calls.append("new Date")  # the current time; `new Date(value)` is that value's date
            elif qualified:
                acc.calls.append(qualified)
            for arg in args:
                self.facts(arg, env, acc)
            return
        if qualified in MEASURING_CALLS or method in MEASURING_METHODS:
            inner = Facts()
            if callee.type == "member_expression":
                self.facts(self.m.field(callee, "object"), env, inner)
            for arg in args:
                self.facts(arg, env, inner)
            acc.calls.append(qualified or method or "")
            acc.calls.extend(inner.calls)
            acc.once.extend(inner.once)
            return
        if qualified:
            acc.calls.append(qualified)
            written = self.m.dotted(callee)
            if written and written != qualified:
                acc.calls.append(written)  # `uuidv4` as written, `uuid.v4` as imported: rules name either
            if callee.type == "member_expression":
                receiver = self.m.field(callee, "object")
                receiver_name = self.m.dotted(receiver)
                if receiver_name and self.m.is_variable(receiver_name):
                    acc.names.append(receiver_name)
                    if self.m.unwrap(receiver).type == "identifier":
                        self.merge_binding(receiver, env, acc)
                elif receiver_name is None:
                    self.facts(receiver, env, acc)
        else:
            self.facts(callee, env, acc)
        target = self.names.function_for(call, env)
        if target is not None and self.m.follow(target[0], self.facts, target[1], target[2], acc) is not None:
            inner = Facts()
            for arg in args:
                self.facts(arg, env, inner)
            acc.calls.extend(inner.calls)
            acc.once.extend(inner.once)
            acc.sources.extend(s for s in inner.sources if s.kind not in (SourceKind.UNTRUSTED, SourceKind.TRUNCATION))
            return
        given = [arg for arg in args if arg.type not in FUNCTIONS]
        for arg in given:
            if len(given) == 1:
                self.facts(arg, env, acc)
                continue
            # A call given several values (`search(queries, context, allWebContents)`) is named by
            # none of them: its result keeps their sources and clocks, not their names.
            inner = Facts()
            self.facts(arg, env, inner)
            acc.calls.extend(inner.calls)
            acc.once.extend(inner.once)
            acc.sources.extend(inner.sources)
            acc.variable_length = acc.variable_length or inner.variable_length
            for name, span in inner.called_at.items():
                acc.called_at.setdefault(name, span)

    def truncation(self, node: Node, env: Env) -> Source | None:
        """``text.slice(0, 4000)``: a string cut to a fixed length; or a call of a project function
        that returns a cut of what it is given."""
        node = self.m.unwrap(node)
        if node.type != "call_expression" or node.id in self.m.marked:
            return None
        callee = self.m.unwrap(self.m.field(node, "function"))
        if callee is not None and callee.type == "identifier":
            return self.truncators.at_call(node, env)
        if callee is None or callee.type != "member_expression":
            return None
        method = self.m.code(self.m.field(callee, "property"))
        args = self.m.args(node)
        bound, keeps = self.cut_bound(method, args, env)
        if bound is None:
            return None
        ok, value = self.strings.literal(bound, env)
        if ok and (not isinstance(value, int) or isinstance(value, bool) or value < words.MIN_CUT):
            return None
        receiver = self.m.field(callee, "object")
        if keeps == "end" and self.padded(receiver):
            return None
        listing = self.sources.unordered(receiver, env)
        if listing is not None and "shuffle" not in listing and ok and isinstance(value, int) \
                and value >= _LEAST_ENTRIES and not self.counted(receiver, node):
            # `(await glob("**/*")).slice(0, 200)`: a folder's first entries, an order that ranks nothing
            return Source(SourceKind.TRUNCATION, " ".join(self.m.code(node).split()), self.m.span(node), kept=value,
                          cut=Cut("entries", "start", "listing-cut"))
        if self.is_list(receiver, env) is not False or self.strings.literal_str(receiver, env) is not None:
            return None  # a list's items, or the program's own constant text
        content = tuple(Segment(Role.SYSTEM, p.span, p.text)
                        for p in self.strings.text(receiver, env) or () if p.slot is None)
        return Source(SourceKind.TRUNCATION, " ".join(self.m.code(node).split()), self.m.span(node), content=content,
                      kept=value if ok and isinstance(value, int) else None,
                      cut=Cut("characters", "end") if keeps == "end" else None)

    def cut_bound(self, method: str, args: list[Node], env: Env) -> tuple[Node | None, str]:
        """The length a slice keeps and which end: ``text.slice(0, 4000)`` the start,
        ``text.slice(-4000)`` (or ``substr(-4000)``) the end; None for a middle part, a cut that
        drops a fixed end (``slice(0, -1)``) or one sized by another text (``slice(-suffix.length)``).
        ``substring`` reads a negative start as 0: ``substring(-n)`` is the whole text."""
        if method in ("slice", "substr") and len(args) == 1:
            start = self.m.unwrap(args[0])
            if start.type != "unary_expression" or not self.m.code(start).startswith("-"):
                return None, "end"
            bound = self.m.unwrap(start.named_children[-1])
            return (None if ".length" in self.m.code(bound) else bound), "end"
        if method not in ("slice", "substring", "substr") or len(args) != 2:
            return None, "start"
        ok, start = self.strings.literal(args[0], env)
        if not ok or start != 0:
            return None, "start"
        upper = self.m.unwrap(args[1])
        if upper.type == "unary_expression" or ".length" in self.m.code(upper):
            return None, "start"
        return upper, "start"

    def padded(self, receiver: Node) -> bool:
        """``("0".repeat(n) + value).slice(-n)``, ``(" " + line).slice(-width)``: text padded on
        the left to a width and cut back to it, not content cut to fit."""
        node = self.m.unwrap(receiver)
        while node.type == "binary_expression":
            node = self.m.unwrap(self.m.field(node, "left"))
        return node.type in ("string", "template_string") or (
            node.type == "call_expression" and self.m.code(node).startswith(("\"", "'", "`")))

    def counted(self, listing: Node, cut: Node) -> bool:
        """Whether the function that cuts a listing counts all of it (``files.length - 150``): to
        say how many entries were left out, as a note beside the cut usually does."""
        function = cut.parent
        while function is not None and function.type not in FUNCTIONS:
            function = function.parent
        return function is not None and f"{self.m.code(self.m.unwrap(listing))}.length" in self.m.code(function)

    def is_list(self, node: Node, env: Env) -> bool | None:
        node = self.m.unwrap(node)
        if node.type in ("string", "template_string"):
            return False
        if node.type == "array":
            return True
        if node.type == "call_expression":
            callee = self.m.unwrap(self.m.field(node, "function"))
            if callee is not None and callee.type == "member_expression":
                method = self.m.code(self.m.field(callee, "property"))
                if method in ("split", "map", "filter", "flatMap", "concat", "entries", "keys", "values", "sort"):
                    return True
                if method in ("text", "trim", "join", "toString", "replace", "replaceAll", "toLowerCase",
                              "readFileSync", "readFile", "stringify"):
                    return False
            return None if self.strings.text(node, env) is None else False
        if node.type == "await_expression":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.is_list(inner, env) if inner is not None else None
        if node.type in ("identifier", "member_expression"):
            raw_name = (self.m.dotted(node) or "").rsplit(".", 1)[-1]
            name = snake(raw_name)
            scope: Scope | None = env.scope
            while scope is not None:
                annotation = scope.params.get(raw_name)
                if annotation:
                    if annotation.endswith("[]") or annotation.startswith(("Array", "ReadonlyArray")):
                        return True
                    if annotation.startswith("string"):
                        return False
                scope = scope.parent
            binding = self.names.resolve(node, env)
            found = None if binding is None else self.m.follow(binding.value, bound_list, binding, self.is_list)
            if found is not None:
                return found
            if name.endswith(("text", "content", "body", "html", "markdown", "page", "prompt", "message", "output",
                              "result", "response", "description", "summary", "doc", "document", "transcript")):
                return False
            return name.endswith("s") and not name.endswith(("ss", "us", "is"))  # a plural names a collection
        return None

    def mark_cuts(self, node: Node) -> None:
        """``text.slice(0, 500) + "…"``: a cut followed by a marker is not silent; nor is one that
        keeps the end with a marker before it (``"…" + text.slice(-500)``)."""
        if node.type == "binary_expression":
            left, right = self.m.unwrap(self.m.field(node, "left")), self.m.unwrap(self.m.field(node, "right"))
            while left is not None and left.type == "binary_expression":
                left = self.m.unwrap(self.m.field(left, "right"))
            if left is not None and right is not None and left.type == "call_expression":
                marker = self.m.string_value(right)
                if marker is not None and cut_marker(marker):
                    self.m.marked.add(left.id)
            if left is not None and right is not None and right.type == "call_expression":
                marker = self.m.string_value(left)
                if marker is not None and cut_marker_before(marker):
                    self.m.marked.add(right.id)
        elif node.type == "template_string":
            children = list(node.children)
            for before, part, after in zip(children, children[1:], children[2:], strict=False):
                if part.type != "template_substitution":
                    continue
                inner = next((c for c in part.named_children if c.type != "comment"), None)
                if inner is None:
                    continue
                if after.type in ("string_fragment", "escape_sequence") and cut_marker(unescape(self.m.code(after))):
                    self.m.marked.add(self.m.unwrap(inner).id)
                if before.type == "string_fragment" and cut_marker_before(unescape(self.m.code(before))):
                    self.m.marked.add(self.m.unwrap(inner).id)


def _literal_member(owner: Slots | Analyzer, item: Node, env: Env, key: str) -> bool:
    """Whether ``item`` (read in ``owner``'s module) gives ``key`` as a literal string."""
    names, strings = owner.names, owner.strings
    item = owner.m.unwrap(item)
    if item.type == "identifier" and owner.m.code(item) in owner.m.namespaces:
        # An item module of a listing is a leaf (its literal constants): read one import further,
        # so a listing imported by a prompt module that is itself imported is still known.
        module = names.imported_module(owner.m.code(item), deeper=1)
        records = module.m.module_scope.assigns.get(key, []) if module is not None else []
        if module is None or len(records) != 1 or records[0].kind != "=" or records[0].value is None:
            return False
        module_env = Env(module.m.module_scope, (), MAX_RESOLVE // 2)
        return module.strings.literal_str(records[0].value, module_env) is not None
    entries = names.entries(item, env)
    if entries is None or key not in entries:
        return False
    value, value_env, _ = entries[key]
    return strings.literal_str(value, value_env) is not None
