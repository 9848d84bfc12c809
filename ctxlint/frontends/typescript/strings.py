"""String values: literals, template literals, ``+``, ``concat``, ``join``, ``trim``, ``dedent``
tags, the module's constants and simple functions, read into pieces of text with their spans; and
literal values (numbers, arrays, objects) where the code writes them."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from ctxlint.frontends.code.literals import literal_dict, literal_list
from ctxlint.frontends.code.pieces import Piece, in_loop, replaced_by, strip
from ctxlint.frontends.typescript.arguments import loop_counter
from ctxlint.frontends.typescript.knowledge import DEDENT_TAGS, MAX_RESOLVE, TEMPLATE_TAGS, Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.syntax import unescape
from ctxlint.frontends.typescript.truncators import Truncators
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Binding, Env, Item, dedent, evaluated_once, number_value, replaced
from ctxlint.model import Evidence, EvidenceKind, Source, SourceKind, Span

if TYPE_CHECKING:
    pass


class SlotMaker(Protocol):
    def __call__(self, node: Node, env: Env, span_node: Node | None = None, variable: bool = False) -> Piece: ...


@dataclass(eq=False)
class Strings:
    """Reads text and literal values. Where part of a text is not known, it asks for the slot that
    stands for it: ``slot_piece`` is set by the analyzer to ``Slots.slot_piece``, the one call from
    here to a component above (a slot's facts are read with this text in turn)."""

    m: Module
    names: Names
    truncators: Truncators
    slot_piece: SlotMaker = field(init=False)  # set by the analyzer (see the class's docstring)

    def text(self, node: Node, env: Env) -> list[Piece] | None:
        if env.depth > MAX_RESOLVE:
            return None
        node = self.m.unwrap(node)
        kind = node.type
        if kind == "string":
            return self.static(node.start_byte + 1, node.end_byte - 1)
        if kind == "template_string":
            return self.template(node, env)
        if kind == "binary_expression":
            operator = self.m.field(node, "operator")
            if operator is None or self.m.code(operator) != "+":
                return None
            left, right = self.m.field(node, "left"), self.m.field(node, "right")
            ltext, rtext = self.text(left, env), self.text(right, env)
            if ltext is None and rtext is None:
                return None
            return (ltext if ltext is not None else [self.slot_piece(left, env)]) + (
                rtext if rtext is not None else [self.slot_piece(right, env)])
        if kind in ("identifier", "member_expression", "subscript_expression", "shorthand_property_identifier"):
            return self.name_text(node, env)
        if kind == "call_expression":
            return self.call_text(node, env)
        return None

    def static(self, start: int, end: int) -> list[Piece]:
        if end <= start:
            return []
        return [Piece(unescape(self.m.src.slice(start, end)), self.m.src.span(start, end))]

    def template(self, node: Node, env: Env) -> list[Piece]:
        pieces: list[Piece] = []
        cursor = node.start_byte + 1
        for child in node.named_children:
            if child.type != "template_substitution":
                continue
            pieces.extend(self.static(cursor, child.start_byte))
            inner = next((c for c in child.named_children if c.type != "comment"), None)
            inline = None
            if inner is not None and self.m.unwrap(inner).type in ("identifier", "member_expression",
                                                                     "call_expression"):
                inline = self.text(inner, env)
            if inline is not None:
                pieces.extend(inline)
            elif inner is not None:
                pieces.append(self.slot_piece(inner, env, span_node=child))
            cursor = child.end_byte
        pieces.extend(self.static(cursor, node.end_byte - 1))
        return pieces

    def pieces(self, node: Node, env: Env) -> list[Piece]:
        return self.or_slot(self.text(node, env), node, env)

    def or_slot(self, found: list[Piece] | None, node: Node, env: Env) -> list[Piece]:
        """``found``, the text of ``node`` already read, or the slot that stands for it."""
        return found if found is not None else [self.slot_piece(node, env)]

    def name_text(self, node: Node, env: Env) -> list[Piece] | None:
        binding = self.names.resolve(node, env)
        if binding is None and node.type == "identifier":
            imported = self.names.imported_constant(self.m.code(node))
            return imported[0].strings.text(imported[1], imported[2]) if imported is not None else None
        if binding is None or binding.part is not None:
            return None
        # Every call site in functions of a module reads a module constant's last value: its text is read
        # once (1,829 call sites naming one `skills` read it 1,829 times). Only what is read outside any
        # other name's reading is kept, where no cycle guard cut it short; what it read (_consumed) is
        # replayed with it.
        key = self.m.kept_key(binding)
        if key is not None and key in self.m.text_memo:
            found, consumed = self.m.text_memo[key]
            self.m.consumed |= consumed
            return None if found is None else list(found)
        followed = self.m.follow_apart(binding.value, self.bound_text, binding, merge=True)
        if followed is None:
            return None
        found = followed[0]
        if key is not None:
            self.m.text_memo[key] = followed
        return None if found is None else list(found)

    def bound_text(self, binding: Binding) -> list[Piece] | None:
        """The text of a name's value and of what ``+=`` adds to it afterwards."""
        found = self.text(binding.value, binding.env)
        if found is None:
            return None
        found = list(found)
        for extra in binding.extras:
            if extra.kind != "+=" or extra.value is None:
                return None
            more = self.pieces(extra.value, binding.env)
            loop = binding.loop_of(extra)
            if loop is not None:
                more = [replace(p, loop=p.loop or loop.text) for p in more]
            found.extend(more)
        self.m.consumed.add(binding.value.id)
        self.m.consumed.update(e.value.id for e in binding.extras if e.value is not None)
        if binding.env.scope.kind == "module":  # built once, when the module loads
            found = [evaluated_once(p) for p in found]
        return found

    def call_text(self, call: Node, env: Env) -> list[Piece] | None:
        callee = self.m.unwrap(self.m.field(call, "function"))
        arguments = self.m.field(call, "arguments")
        if callee is None:
            return None
        if arguments is not None and arguments.type == "template_string":
            # A tagged template: `dedent\`...\``, `String.raw\`...\``: the text as written.
            tag = (self.m.dotted(callee) or "").rsplit(".", 1)[-1]
            if tag in TEMPLATE_TAGS:
                tagged = self.template(arguments, env)
                return dedent(tagged) if tag in DEDENT_TAGS else tagged
            return None
        args = self.m.args(call)
        if callee.type == "member_expression":
            method = self.m.code(self.m.field(callee, "property"))
            receiver = self.m.field(callee, "object")
            if method == "join" and len(args) <= 1:
                return self.join(call, receiver, args, env)
            if method in ("trim", "trimStart", "trimEnd") and not args:
                inner = self.text(receiver, env)
                return None if inner is None else strip(inner, start=method != "trimEnd", end=method != "trimStart")
            if method == "concat":
                inner = self.text(receiver, env)
                if inner is not None:
                    for arg in args:
                        inner = inner + self.pieces(arg, env)
                    return inner
            if method in ("replace", "replaceAll"):
                return self.replaced(receiver, args, method, env)
        qualified = self.m.qualified(callee)
        if qualified in ("String", "dedent") and len(args) == 1:
            argument = self.text(args[0], env)
            return dedent(argument) if argument is not None and qualified == "dedent" else argument
        if callee.type == "identifier" and self.truncators.called(call, env.scope) is not None:
            return None  # a cut of what it is given: a slot, whose facts say so
        target = self.names.function_for(call, env)
        if target is None:
            imported = self.names.imported_function(self.m.code(callee)) if callee.type == "identifier" else None
            passed = self.passed_through(imported[0].m, imported[1], imported[2].scope.positional, args, env) \
                if imported is not None else None
            if passed is not None:
                return passed
            found = imported[0].strings.text(imported[1], imported[2]) if imported is not None else None
            return None if found is None or imported is None \
                else self.with_arguments(found, imported[2].scope.positional, call, env)
        found = self.m.follow(target[0], self.text, target[1], target[2])
        if found is not None:
            self.m.consumed.add(target[1].id)
            found = self.with_arguments(found, target[2].scope.positional, call, env, flow=False)
        return found

    def passed_through(self, module: Module, returned: Node, parameters: list[str], args: list[Node],
                       env: Env) -> list[Piece] | None:
        """The caller's own text, when another module's function gives back one of its parameters,
        trimmed or with static text replaced (``return text.replace(/\\n{3,}/g, "\\n\\n").trim()``):
        that module cannot read the argument, this one can."""
        node, trimmed = module.unwrap(returned), False
        for _ in range(8):
            callee = module.unwrap(module.field(node, "function")) if node.type == "call_expression" else None
            if callee is None or callee.type != "member_expression":
                break
            method, given = module.code(module.field(callee, "property")), module.args(node)
            static = len(given) == 2 and module.unwrap(given[1]).type == "string"
            if not (method in ("trim", "trimStart", "trimEnd") and not given
                    or method in ("replace", "replaceAll") and static):
                return None
            trimmed = trimmed or method.startswith("trim")
            node = module.unwrap(module.field(callee, "object"))
        if node.type != "identifier" or module.code(node) not in parameters:
            return None
        position = parameters.index(module.code(node))
        if position >= len(args) or any(a.type == "spread_element" for a in args[:position + 1]):
            return None
        found = self.text(args[position], env)
        return strip(found) if found is not None and trimmed else found

    def with_arguments(self, pieces: list[Piece], parameters: list[str], call: Node, env: Env,
                       flow: bool = True) -> list[Piece]:
        """The text a function returns, its parameter slots given what the call tells of the
        arguments: a loop counter (the text differs on every pass); and, for another module's
        function (``flow``), what this module knows of where they come from (search results, a
        fetched page) and the clocks they read. The names stay the function's own."""
        args = self.m.args(call)
        spread = next((i for i, a in enumerate(args) if a.type == "spread_element"), len(args))
        passed = dict(zip(parameters, args[:spread], strict=False))  # positions after a spread are unknown
        out = []
        for piece in pieces:
            # `p` of `paths.forEach((p) => ...)` reads the argument given for `paths`, item by item
            read = {n.split(".")[0] for n in (*piece.slot.names, *piece.slot.walks)} if piece.slot else set()
            arguments = [passed[p] for p in passed if p and p in read]
            if piece.slot is None or not arguments:
                out.append(piece)
                continue
            slot = piece.slot
            for argument in arguments:
                counter = loop_counter(self.m, argument, call)
                if counter is not None:
                    slot = replace(slot, sources=(*slot.sources, counter))
                facts = self.slot_piece(argument, env).slot if flow else None
                if facts is not None:
                    step = Evidence(EvidenceKind.FLOW, f"passed by the call at line {call.start_point[0] + 1} of "
                                    f"{os.path.basename(self.m.path)}", self.m.span(call))
                    carried = tuple(replace(s, flow=(*s.flow, step), from_caller=True) for s in facts.sources)
                    slot = replace(slot, sources=slot.sources + carried, calls=slot.calls + facts.calls)
            out.append(replace(piece, slot=slot))
        return out

    def replaced(self, receiver: Node, args: list[Node], method: str, env: Env) -> list[Piece] | None:
        """``text.replace(/\\n{2,}/g, "\\n\\n")``: a replacement that is static text keeps the slots
        where they are; a value put in for a placeholder written as a string (``PROMPT.replace("{page}",
        page)``) stands where the placeholder was, as a template's field filled with it (the first
        occurrence; each with ``replaceAll``), named by the field too (``field_filled``)."""
        pattern = self.m.unwrap(args[0]) if len(args) == 2 else None
        replacement = self.literal_str(args[1], env) if pattern is not None else None
        if pattern is not None and replacement is None and pattern.type != "regex" \
                and self.m.unwrap(args[1]).type not in ("arrow_function", "function_expression", "function"):
            placeholder = self.literal_str(pattern, env)
            found = self.text(receiver, env) if placeholder else None
            if found is None or not placeholder:
                return None
            filled = field_filled(placeholder, self.pieces(args[1], env), self.m.span(args[1]))
            return replaced_by(found, placeholder, filled, -1 if method == "replaceAll" else 1)
        if pattern is None or replacement is None:
            return None
        if pattern.type == "regex":
            body, flags = self.m.field(pattern, "pattern"), self.m.field(pattern, "flags")
            found = self.text(receiver, env)
            return None if found is None or body is None else replaced(
                found, self.m.code(body), True, self.m.code(flags) if flags is not None else "", replacement)
        literal = self.literal_str(pattern, env)
        found = self.text(receiver, env) if literal is not None else None
        return None if found is None or literal is None else replaced(
            found, literal, False, "g" if method == "replaceAll" else "", replacement)

    def join(self, call: Node, receiver: Node, args: list[Node], env: Env) -> list[Piece] | None:
        separator = ","
        if args:
            value = self.text(args[0], env)
            if value is None or any(p.slot for p in value):
                separator = ""
            else:
                separator = "".join(p.text for p in value)
        sep_span = self.m.span(args[0]) if args else self.m.span(call)
        items = self.names.items(receiver, env)
        if items is None or any(i.variable for i in items):
            return [self.slot_piece(call, env, variable=True)]
        pieces: list[Piece] = []
        for i, item in enumerate(items):
            if i and separator:
                pieces.append(Piece(separator, sep_span, loop=item.loop))
            pieces.extend(in_loop(self._logged(self.pieces(item.node, item.env), item), item.loop))
        return pieces

    def _logged(self, pieces: list[Piece], item: Item) -> list[Piece]:
        """The pieces of an entry a loop appends on every pass to the log it reads, their slots
        saying so (a value before the log leaves every earlier entry uncached)."""
        if item.grows is None:
            return pieces
        loop, pushed = item.grows
        source = Source(SourceKind.LOG_ENTRY, f"the loop `{loop.text}` (line {loop.node.start_point[0] + 1})",
                        self.m.span(pushed))
        return [replace(p, slot=replace(p.slot, sources=(*p.slot.sources, source))) if p.slot is not None else p
                for p in pieces]

    def literal(self, node: Node, env: Env) -> tuple[bool, object]:
        if env.depth > MAX_RESOLVE:
            return False, None
        node = self.m.unwrap(node)
        kind = node.type
        if kind in ("string", "template_string", "binary_expression"):
            if kind == "binary_expression":
                operator = self.m.field(node, "operator")
                if operator is None or self.m.code(operator) != "+":
                    return False, None
            found = self.text(node, env)
            if found is None or any(p.slot for p in found):
                return False, None
            return True, "".join(p.text for p in found)
        if kind == "number":
            return number_value(self.m.code(node))
        if kind in ("true", "false", "null"):
            return True, {"true": True, "false": False, "null": None}[kind]
        if kind == "unary_expression":
            operator = self.m.field(node, "operator")
            argument = self.m.field(node, "argument")
            if operator is not None and argument is not None and self.m.code(operator) == "-":
                ok, value = self.literal(argument, env)
                if ok and isinstance(value, (int, float)) and not isinstance(value, bool):
                    return True, -value
            return False, None
        if kind in ("identifier", "member_expression", "subscript_expression", "shorthand_property_identifier"):
            binding = self.names.resolve(node, env)
            if binding is None and kind == "identifier":
                imported = self.names.imported_constant(self.m.code(node))
                return (imported[0].strings.literal(imported[1], imported[2]) if imported is not None
                        else (False, None))
            if binding is None or binding.extras or binding.part is not None:
                return False, None
            return self.m.follow(binding.value, self.literal, binding.value, binding.env, otherwise=(False, None))
        if kind == "array":
            elements = [e for e in node.named_children if e.type != "comment"]
            if any(e.type == "spread_element" for e in elements):
                return False, None
            return literal_list(elements, env, self.literal)
        if kind == "object":
            return literal_dict(self.names.entries(node, env), self.literal)
        if kind == "call_expression":
            callee = self.m.unwrap(self.m.field(node, "function"))
            name = (self.m.qualified(callee) or "") if callee is not None else ""
            args = self.m.args(node)
            if name.rsplit(".", 1)[-1] in self.m.ts.json_schemas and args:  # the AI SDK's jsonSchema({...})
                return self.literal(args[0], env)
        return False, None

    def literal_str(self, node: Node, env: Env) -> str | None:
        ok, value = self.literal(node, env)
        return value if ok and isinstance(value, str) else None


# A placeholder written as a template's field: `{PAGE_CONTENTS}`, `{{ context }}`.
_FIELD = re.compile(r"\{\{?\s*([A-Za-z_][\w.-]*)\s*\}\}?")


def field_filled(placeholder: str, pieces: list[Piece], at: Span) -> list[Piece]:
    """The value put in for a placeholder written as a template's field (``PROMPT.replace(
    "{PAGE_CONTENTS}", original)``), when it is one value the code does not show the text of: a
    field of a prompt constant that code fills, as Python's ``PROMPT.format(page_contents=original)``
    is. The field's name is the prompt's own word for what it holds, read beside the value's names,
    and ``filled_at`` says where code fills it (the trust and cache rules weigh such a field apart
    from a variable's name). Other values (text, or text with values in it) are left as they are."""
    match = _FIELD.fullmatch(placeholder.strip())
    slot = pieces[0].slot if len(pieces) == 1 else None
    if match is None or slot is None or slot.filled_at:
        return pieces
    name = match.group(1)
    return [replace(pieces[0], slot=replace(slot, expression=name, names=(name, *(n for n in slot.names if n != name)),
                                            filled_at=(at,)))]
