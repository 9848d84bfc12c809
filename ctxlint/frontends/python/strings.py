"""String values: the pieces (static text with its spans, and slots) of literals, f-strings,
``.format``, ``%``, ``+``, ``join`` and names and functions that hold or return text."""

from __future__ import annotations

import re
from dataclasses import replace

import libcst as cst

from ctxlint.frontends.python.knowledge import MAX_DEPTH
from ctxlint.frontends.python.literals import (
    dedent,
    format_fields,
    in_loop,
    percent_fields,
    string_parts,
    strip,
    unescape,
    unique,
    with_sources,
)
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Assign, Binding, Env, Facts, Loop, Piece
from ctxlint.model import Slot, Source, Span


class Strings(Component):
    def text(self, node, env: Env) -> list[Piece] | None:
        """The pieces of a string-valued expression, or None if it is not one we can read."""
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, cst.SimpleString):
            prefix = node.prefix.lower()
            if "b" in prefix:
                return None
            # The text's span starts after the prefix and quotes, where the text is written.
            return self.m.located(node).static(0, len(node.raw_value), "r" in prefix)
        if isinstance(node, cst.ConcatenatedString):
            left, right = self.text(node.left, env), self.text(node.right, env)
            return None if left is None or right is None else left + right
        if isinstance(node, cst.FormattedString):
            return self.fstring(node, env)
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Add):
                left, right = self.text(node.left, env), self.text(node.right, env)
                if left is None and right is None:
                    return None
                return (left if left is not None else [self.slot_piece(node.left, env)]) + (
                    right if right is not None else [self.slot_piece(node.right, env)]
                )
            if isinstance(node.operator, cst.Modulo):
                return self.percent(node, env)
            return None
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self.name_text(node, env)
        if isinstance(node, cst.Call):
            return self.call_text(node, env)
        return None

    def pieces(self, node, env: Env) -> list[Piece]:
        found = self.text(node, env)
        return found if found is not None else [self.slot_piece(node, env)]

    def name_text(self, node, env: Env) -> list[Piece] | None:
        binding = self.scopes.resolve(node, env)
        if binding is None or not self.m.enter(binding.value):
            return None
        try:
            found = self.text(binding.value, binding.env)
            if found is None:
                return None
            found = list(found)
            for extra in binding.extras:
                if extra.kind != "+=":
                    return None
                more = self.pieces(extra.value, binding.env)
                loop = binding.loop_of(extra)
                if loop is not None:
                    sources = self.loop_sources(loop, binding.env)
                    more = [replace(p, slot=with_sources(p.slot, sources)) if p.slot else p for p in more]
                    more = in_loop(more, loop.text)
                found.extend(more)
            self.m.consumed.add(id(binding.value))
            self.m.consumed.update(id(e.value) for e in binding.extras)
            return found
        finally:
            self.m.leave(binding.value)

    def loop_sources(self, loop: Loop, env: Env) -> tuple[Source, ...]:
        return self.flow.unordered_source(loop.node.iter, env) if isinstance(loop.node, cst.For) else ()

    def fstring(self, node, env: Env) -> list[Piece]:
        raw = "r" in node.prefix.lower()
        pieces = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                text = unescape(part.value.replace("{{", "{").replace("}}", "}"), raw)
                if text:
                    pieces.append(Piece(text, self.m.span(part)))
            elif isinstance(part, cst.FormattedStringExpression):
                inline = None
                if part.conversion is None and part.format_spec is None and isinstance(
                    part.expression, (cst.Name, cst.Attribute, cst.Call)
                ):
                    inline = self.text(part.expression, env)  # a known constant: its own text and spans
                if inline is not None:
                    pieces.extend(inline)
                else:
                    pieces.append(self.slot_piece(part.expression, env, span_node=part))
        return pieces

    def call_text(self, call, env: Env) -> list[Piece] | None:
        func = call.func
        qualified = self.m.qualified(func)
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in ("format", "format_map"):
                return self.format_call(call, env)
            if method == "join" and len(call.args) == 1 and self.text(func.value, env) is not None:
                return self.join(call, env)
            if method in ("strip", "lstrip", "rstrip") and not call.args:
                inner = self.text(func.value, env)
                return None if inner is None else strip(inner, method)
        if qualified in ("textwrap.dedent", "inspect.cleandoc") and len(call.args) == 1:
            inner = self.text(call.args[0].value, env)
            return None if inner is None else dedent(inner, clean=qualified == "inspect.cleandoc")
        if qualified == "str" and len(call.args) == 1:
            return self.text(call.args[0].value, env)
        target = self.scopes.function_for(call, env)
        if target is None or not self.m.enter(target[0]):
            return None
        try:
            found = self.text(target[1], target[2])
        finally:
            self.m.leave(target[0])
        if found is not None:
            self.m.consumed.add(id(target[1]))
        return found

    def template_parts(self, node, env: Env) -> list | None:
        """The string literal(s) of a ``.format`` / ``%`` template, directly or through a name."""
        parts = string_parts(node)
        if parts is not None:
            return parts
        if isinstance(node, cst.Name):
            binding = self.scopes.resolve(node, env)
            if binding is not None and not binding.extras:
                parts = string_parts(binding.value)
                if parts is not None:
                    self.m.consumed.add(id(binding.value))
                    return parts
        return None

    def format_call(self, call, env: Env) -> list[Piece] | None:
        parts = self.template_parts(call.func.value, env)
        if parts is None:
            return None
        # Fields whose argument cannot be found (``**context``) become slots named by the field.
        positional = [a.value for a in call.args if not a.keyword and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        for arg in call.args:
            if arg.star == "**":
                keywords.update({k: v[0] for k, v in (self.flow.dict_entries(arg.value, env) or {}).items()})
        if call.func.attr.value == "format_map":
            entries = self.flow.dict_entries(call.args[0].value, env) if call.args else None
            keywords, positional = {k: v[0] for k, v in (entries or {}).items()}, []
        auto = 0

        def field(name: str, span: Span) -> Piece:
            nonlocal auto
            head = re.split(r"[.\[]", name, maxsplit=1)[0]
            if head == "":
                value = positional[auto] if auto < len(positional) else None
                auto += 1
            elif head.isdigit():
                value = positional[int(head)] if int(head) < len(positional) else None
            else:
                value = keywords.get(head)
            return self.field_piece(name, head, value, env, span)

        return self.template_fields(parts, field)

    def percent(self, node, env: Env) -> list[Piece] | None:
        parts = self.template_parts(node.left, env)
        if parts is None:
            return None
        right = node.right
        entries: dict = {}
        if isinstance(right, cst.Tuple):
            positional = [e.value for e in right.elements if isinstance(e, cst.Element)]
        else:
            entries = self.flow.dict_entries(right, env) or {}
            positional = [] if entries else [right]
        pieces: list[Piece] = []
        index = 0
        for part in parts:
            raw = "r" in part.prefix.lower()
            located = self.m.located(part)
            cursor = 0
            for start, end, key in percent_fields(part.raw_value):
                pieces.extend(located.static(cursor, start, raw, percent=True))
                if key is not None:
                    value = entries[key][0] if key in entries else None
                    name = key
                else:
                    value = positional[index] if index < len(positional) else None
                    index += 1
                    name = self.m.code(value) if value is not None else part.raw_value[start:end]
                pieces.append(self.field_piece(name, name, value, env, located.span(start, end)))
                cursor = end
            pieces.extend(located.static(cursor, len(part.raw_value), raw, percent=True))
        return pieces

    def field_piece(self, name: str, head: str, value, env: Env, span: Span) -> Piece:
        """A ``{field}`` or ``%s`` of a template: constant text inlined, anything else a slot."""
        if value is None:
            return Piece(name, span, Slot(name, names=(name,) if name.isidentifier() else ()))
        if name == head:
            inline = self.text(value, env)
            if inline is not None and all(p.slot is None for p in inline):
                return Piece("".join(p.text for p in inline), span)
            ok, constant = self.flow.literal(value, env)
            if ok and isinstance(constant, (int, float)) and not isinstance(constant, bool):
                return Piece(str(constant), span)
        expression = name or self.m.code(value)
        facts = self.flow.facts(value, env)
        facts.sources.extend(self.flow.iteration_sources(value, env))
        return Piece(expression, span, self.make_slot(expression, facts))

    def join(self, call, env: Env) -> list[Piece]:
        separator = "".join(p.text for p in self.text(call.func.value, env) or [] if p.slot is None)
        sep_span = self.m.span(call.func.value)
        iterable = call.args[0].value
        if isinstance(iterable, (cst.GeneratorExp, cst.ListComp)) and iterable.for_in.inner_for_in is None:
            loop = self.m.code(iterable.for_in.iter)
            sources = self.flow.unordered_source(iterable.for_in.iter, env)
            element = [replace(p, slot=with_sources(p.slot, sources)) if p.slot else p
                       for p in self.pieces(iterable.elt, env)]
            if sources and not any(p.slot for p in element):
                element.append(self.slot_piece(iterable, env, variable=True))
            pieces = in_loop(element, loop)
            if separator:
                pieces.append(Piece(separator, sep_span, loop=loop))
            return pieces
        items = self.flow.items(iterable, env)
        if items is None or any(item.variable for item in items):
            return [self.slot_piece(call, env, variable=True)]
        pieces = []
        for i, item in enumerate(items):
            if i and separator:
                pieces.append(Piece(separator, sep_span, loop=item.loop))
            pieces.extend(in_loop(self.pieces(item.node, item.env), item.loop))
        return pieces

    def slot_piece(self, node, env: Env, span_node=None, variable: bool = False) -> Piece:
        expression = self.m.code(node)
        facts = self.flow.facts(node, env)
        facts.sources.extend(self.flow.iteration_sources(node, env))
        if variable:
            facts.variable_length = True
        return Piece(expression, self.m.span(span_node or node), self.make_slot(expression, facts))

    def make_slot(self, expression: str, facts: Facts) -> Slot:
        sources, seen = [], set()
        for source in facts.sources:
            if (source.kind, source.span) not in seen:
                seen.add((source.kind, source.span))
                sources.append(source)
        return Slot(expression, unique(facts.names), unique(facts.calls), (), facts.variable_length, tuple(sources))

    def assigned_text(self, name: str, base: Assign, extras: list[Assign]) -> list[Piece] | None:
        """The text a prompt name holds once its scope has run (every ``+=`` included). A
        template that is filled elsewhere (``.format``) keeps its fields as slots."""
        env = Env(base.home)
        parts = string_parts(base.value)
        if parts is not None and not extras and (name in self.m.format_receivers or "template" in name.lower()):
            fields = self.template_fields(parts)
            if fields is not None:
                return fields
        found = self.text(base.value, env)
        if found is None:
            return None
        found = list(found)
        binding = Binding(base.value, env, extras, len(base.loops))
        for extra in extras:
            if extra.kind != "+=":
                return None
            more = self.pieces(extra.value, Env(extra.home))
            loop = binding.loop_of(extra)
            found.extend(in_loop(more, loop.text if loop else None))
        return found

    def template_fields(self, parts, field=None) -> list[Piece] | None:
        """The pieces of ``{name}`` templates: static text, and for each field ``field(name,
        span)`` (by default a slot named by the field, its value unknown)."""
        pieces = []
        for part in parts:
            raw = "r" in part.prefix.lower()
            fields = format_fields(part.raw_value, raw)
            if fields is None:
                return None
            located = self.m.located(part)
            cursor = 0
            for start, end, name in fields:
                pieces.extend(located.static(cursor, start, raw, braces=True))
                span = located.span(start, end)
                pieces.append(field(name, span) if field else
                              Piece(name, span, Slot(name, names=(name,) if name.isidentifier() else ())))
                cursor = end
            pieces.extend(located.static(cursor, len(part.raw_value), raw, braces=True))
        return pieces
