"""String values: the pieces (static text with its spans, and slots) of literals, f-strings,
``.format``, ``%``, ``+``, ``join`` and names and functions that hold or return text.

Values are followed through names with memoisation and a size bound: a text that would grow
past ``MAX_PIECES`` pieces or past ``MIN_CHARS`` plus twice the module's size in characters
(``PROMPT = PROMPT + PROMPT``, ``f"{PROMPT}{PROMPT}"`` or ``"%s%s" % (PROMPT, PROMPT)`` written
forty times) stays one slot that stands for the expression, never a materialised copy.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from ctxlint.frontends.code.filled import linked_slot
from ctxlint.frontends.code.pieces import Facts, Piece, in_loop, replaced_by, unique
from ctxlint.frontends.placeholders import format_fields
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.inner_prompts import built_with, inner_prompts
from ctxlint.frontends.python.knowledge import MAX_DEPTH
from ctxlint.frontends.python.literals import (
    StrToken,
    dedent,
    fstring_fields,
    percent_fields,
    strip,
    with_sources,
)
from ctxlint.frontends.python.nodes import item_names
from ctxlint.frontends.python.renders import format_values
from ctxlint.frontends.python.scopes import other_branches
from ctxlint.frontends.python.taken import taken_returns
from ctxlint.frontends.python.unit import Component, Positioned, Unit
from ctxlint.frontends.python.values import Assign, Binding, Env, Loop
from ctxlint.model import Slot, Source, SourceKind, Span

# The most pieces one text value may have; beyond it the value is a slot for its expression.
MAX_PIECES = 2000
# The most characters one text value may hold, on top of twice the module's own length: only a
# value that repeats itself many times over (a doubling chain) grows past it.
MIN_CHARS = 100_000

FieldMaker = Callable[[str, Span], Piece]
# The most parts of a prompt constant joined with `+` read as one template.
_MAX_JOINED = 8
# The escape character that starts a terminal's colour code, as a pattern that removes them
# writes it: itself, or escaped (`r"\x1b[^m]*m"`, `"\\033\\[[0-9;]*m"`).
_ESCAPE_CODE = re.compile(r"\x1b|\\x1b|\\033|\\u001b", re.IGNORECASE)
K = TypeVar("K")  # what names a template field: a `{}` field's name, a `%` conversion's key or None


class Strings(Component):
    def text(self, node: ast.expr, env: Env) -> list[Piece] | None:
        """The pieces of a string-valued expression, or None if it is not one we can read; a
        value past the size bound is one slot for the expression."""
        found = self._text(node, env)
        if found is not None and (len(found) > MAX_PIECES or chars(found) > self.max_chars):
            return [self.slot_piece(node, env)]
        return found

    @property
    def max_chars(self) -> int:
        return MIN_CHARS + 2 * len(self.m.text)

    def _text(self, node: ast.expr, env: Env) -> list[Piece] | None:
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, str):
                return None
            tokens = self.m.string_tokens(node)
            if tokens is None or any(t.is_bytes or t.is_f for t in tokens):
                return None
            # The text's span starts after the prefix and quotes, where the text is written.
            return [p for t in tokens for p in self.m.located(t).static(0, len(t.body))]
        if isinstance(node, ast.JoinedStr):
            return self.fstring(node, env)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add):
                left, right = self.text(node.left, env), self.text(node.right, env)
                if left is None and right is None:
                    return None
                return (left if left is not None else [self.slot_piece(node.left, env)]) + (
                    right if right is not None else [self.slot_piece(node.right, env)]
                )
            if isinstance(node.op, ast.Mod):
                return self.percent(node, env)
            return None
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.name_text(node, env)
        if isinstance(node, ast.Call):
            return self.call_text(node, env)
        default = shipped_default(node, env)
        return self.text(default, env) if default is not None else None

    def pieces(self, node: ast.expr, env: Env) -> list[Piece]:
        found = self.text(node, env)
        return found if found is not None else [self.slot_piece(node, env)]

    def name_text(self, node: ast.Name | ast.Attribute, env: Env) -> list[Piece] | None:
        binding = self.scopes.resolve(node, env, foreign=True)
        if binding is None:
            return None
        if binding.owner is not None:  # a constant of another module: its text, where it is used here
            found = self.m.follow_binding(binding, binding.owner.strings.text)
            return None if found is None else self.m.adopt_pieces(found, self.m.span(node))
        if isinstance(node, ast.Name) and may_hold_untrusted_instead(self, node, binding):
            return None  # one of the values it may hold: a slot, read for the sources of each
        key = self.m.binding_key(binding)
        if key in self.m.text_memo:
            found, consumed = self.m.text_memo[key]
        else:
            followed = self.m.follow_apart(binding.value, self.binding_text, binding, merge=False)
            if followed is None:
                return None
            self.m.text_memo[key] = followed
            found, consumed = followed
        if found is None:
            return None
        self.m.consumed.update(consumed)
        self.consume(binding)
        return list(found)

    def binding_text(self, binding: Binding) -> list[Piece] | None:
        found = self.text(binding.value, binding.env)
        if found is None:
            return None
        found = list(found)
        size = chars(found)
        if len(binding.extras) > MAX_PIECES:
            return None
        for extra in binding.extras:
            if extra.kind != "+=" or extra.value is None or doubles(extra):
                return None
            more = self.pieces(extra.value, binding.extras_env)
            loop = binding.loop_of(extra)
            if loop is not None:
                sources = self.added_sources(binding, extra)
                more = [replace(p, slot=with_sources(p.slot, sources)) if p.slot else p for p in more]
                more = in_loop(more, loop.text)
            found.extend(more)
            size += chars(more)
            if len(found) > MAX_PIECES or size > self.max_chars:
                return None  # a value that repeats itself: the caller's slot stands for it
        return found

    def consume(self, binding: Binding) -> None:
        self.m.consumed.add(id(binding.value))
        self.m.consumed.update(id(e.value) for e in binding.extras)

    def loop_sources(self, loop: Loop, env: Env) -> tuple[Source, ...]:
        return self.flow.unordered_source(loop.node.iter, env) if not isinstance(loop.node, ast.While) else ()

    def added_sources(self, binding: Binding, extra: Assign) -> tuple[Source, ...]:
        """The collections in no fixed order the loops around an addition walk (each loop the
        binding is not already in: `for root, _, files in os.walk(d): for f in files: ...` adds
        in the order of `os.walk`, not only of `files`)."""
        return tuple(s for loop in extra.loops[binding.loops:] for s in self.loop_sources(loop, binding.env))

    def fstring(self, node: ast.JoinedStr, env: Env) -> list[Piece]:
        values = [v for v in node.values if isinstance(v, ast.FormattedValue)]
        tokens = self.m.string_tokens(node)
        layout = [(t, fstring_fields(t.body) if t.is_f else []) for t in tokens or ()]
        if tokens is None or any(t.is_bytes or fields is None for t, fields in layout) or sum(
                len(fields or ()) for _, fields in layout) != len(values):
            return [self.slot_piece(node, env)]  # written in a way we cannot locate: one slot
        pieces: list[Piece] = []
        size = 0  # of the inlined values: the literal's own text is bounded by the module
        remaining = iter(values)
        for token, fields in layout:
            located = self.m.located(token)
            cursor = 0
            for field in fields or ():
                pieces.extend(located.static(cursor, field.start, braces=token.is_f))
                value = next(remaining)
                inline = None
                if value.conversion == -1 and value.format_spec is None and isinstance(
                    value.value, (ast.Name, ast.Attribute, ast.Call)
                ):
                    inline = self.text(value.value, env)  # a known constant: its own text and spans
                if inline is not None:
                    pieces.extend(entered(inline, located.span(field.start, field.end), self.m.code(value.value),
                                          env.scope.node))
                    size += chars(inline)
                else:
                    piece = self.slot_piece(value.value, env)
                    pieces.append(replace(piece, span=located.span(field.start, field.end)))
                if len(pieces) > MAX_PIECES or size > self.max_chars:
                    return [self.slot_piece(node, env)]
                cursor = field.end
            pieces.extend(located.static(cursor, len(token.body), braces=token.is_f))
        return pieces

    def call_text(self, call: ast.Call, env: Env) -> list[Piece] | None:
        func = call.func
        qualified = self.m.qualified(func)
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method in ("format", "format_map"):
                return self.format_call(call, func, env)
            if method == "join" and len(call.args) == 1 and self.text(func.value, env) is not None:
                return self.join(call, func, env)
            if method in ("strip", "lstrip", "rstrip") and not call.args:
                inner = self.text(func.value, env)
                return None if inner is None else strip(inner, method)
            if method == "replace" and len(call.args) == 2 and not call.keywords:
                # PROMPT.replace("{now}", str(datetime.now())): a placeholder filled by hand
                inner = self.text(func.value, env)
                old = self.flow.literal_str(call.args[0], env)
                if inner is not None and old:
                    return replaced_by(inner, old, self.pieces(call.args[1], env))
        if qualified in ("textwrap.dedent", "inspect.cleandoc") and len(call.args) == 1:
            inner = self.text(call.args[0], env)
            return None if inner is None else dedent(inner, clean_doc=qualified == "inspect.cleandoc")
        if qualified == "str" and len(call.args) == 1:
            return self.text(call.args[0], env)
        if qualified == "re.sub" and len(call.args) == 3 and self.flow.literal_str(call.args[1], env) == "" \
                and _ESCAPE_CODE.search(self.flow.literal_str(call.args[0], env) or ""):
            # `re.sub(r"\x1b[^m]*m", "", output)`: terminal colour codes taken out, the text as it was built
            return self.text(call.args[2], env)
        target = self.callees.function_for(call, env, foreign=True)
        if target is None or self.cuts.helper(call, env) is not None or not self.m.enter(target.fn):
            return None  # a truncator's result is a slot that carries its cut, not the text it returns
        reader = target.owner.strings if target.owner is not None else self
        # `if fmt == "markdown": return ...` with `fmt` bound to "markdown": the returns this call reaches
        taken = taken_returns(target, (target.owner.unit if target.owner else self.m).parents, reader.flow.literal_str)
        try:
            texts = [reader.text(target.returns[i], target.env) for i in taken]
        finally:
            self.m.leave(target.fn)
        if any(t is None for t in texts):
            return None  # some return is not text we can read: the value is a slot with every return's facts
        # Every return is text: the last that says something (early ones are guards: `return ""`).
        index = next((i for i in range(len(texts) - 1, -1, -1) if texts[i]), len(texts) - 1)
        found = texts[index]
        assert found is not None
        if target.owner is not None:
            return self.m.adopt_pieces(found, self.m.span(call))
        self.m.consumed.add(id(target.returns[taken[index]]))
        return found

    def template_tokens(self, node: ast.expr, env: Env) -> list[StrToken] | None:
        """The string literal token(s) of a ``.format`` / ``%`` template, directly or through a
        name; a literal trimmed or dedented where it is written (``'...'.strip()``) keeps
        its fields where they are, so its tokens serve as well."""
        node = _untrimmed(node)
        tokens = plain_tokens(self.m, node)
        if tokens is not None:
            return tokens
        for _ in range(3):  # through names, `self.` attributes and `prompt or DEFAULT_PROMPT`
            binding = self.scopes.resolve(node, env) if isinstance(node, (ast.Name, ast.Attribute)) else None
            if binding is None or binding.extras:
                return None
            value, env = _untrimmed(binding.value), binding.env
            value = _untrimmed(shipped_default(value, env) or value)
            tokens = plain_tokens(self.m, value)
            if tokens is not None:
                self.m.consumed.add(id(binding.value))
                return tokens
            node = value
        return None

    def format_call(self, call: ast.Call, func: ast.Attribute, env: Env) -> list[Piece] | None:
        tokens = self.template_tokens(func.value, env)
        if tokens is None:
            return None
        # Fields whose argument cannot be found (``**context``) become slots named by the field.
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        for keyword in call.keywords:
            if keyword.arg is None:
                entries = self.containers.dict_entries(keyword.value, env, returned=True)
                keywords.update({k: v[0] for k, v in (entries or {}).items()})
        if func.attr == "format_map":
            entries = self.containers.dict_entries(call.args[0], env, returned=True) if call.args else None
            keywords, positional = {k: v[0] for k, v in (entries or {}).items()}, []
        auto = 0

        def field(name: str, span: Span) -> Piece:
            nonlocal auto
            head = re.split(r"[.\[]", name, maxsplit=1)[0]
            value: ast.expr | None
            if head == "":
                value = positional[auto] if auto < len(positional) else None
                auto += 1
            elif head.isdigit():
                value = positional[int(head)] if int(head) < len(positional) else None
            else:
                value = keywords.get(head)
            return self.field_piece(name, head, value, env, span)

        return self.template_fields(tokens, field)

    def percent(self, node: ast.BinOp, env: Env) -> list[Piece] | None:
        tokens = self.template_tokens(node.left, env)
        if tokens is None:
            return None
        right = node.right
        entries: dict[str, tuple[ast.expr, Env, Positioned]] = {}
        if isinstance(right, ast.Tuple):
            positional = [e for e in right.elts if not isinstance(e, ast.Starred)]
        else:
            entries = self.containers.dict_entries(right, env) or {}
            positional = [] if entries else [right]
        index = 0

        def field(token: StrToken, start: int, end: int, key: str | None, span: Span) -> Piece:
            nonlocal index
            value: ast.expr | None
            if key is not None:
                value = entries[key][0] if key in entries else None
                name = key
            else:
                value = positional[index] if index < len(positional) else None
                index += 1
                name = self.m.code(value) if value is not None else token.body[start:end]
            return self.field_piece(name, name, value, env, span)

        return self.fielded(tokens, lambda token: percent_fields(token.body), field, percent=True)

    def field_piece(self, name: str, head: str, value: ast.expr | None, env: Env, span: Span) -> Piece:
        """A ``{field}`` or ``%s`` of a template: constant text inlined, anything else a slot."""
        if value is None:
            return Piece(name, span, template_field(name))
        inline = self.text(value, env) if name == head else None  # the value's own text, with its loops
        if inline is not None and all(p.slot is None for p in inline):
            return Piece("".join(p.text for p in inline), span)
        if name == head:
            ok, constant = self.flow.literal(value, env)
            if ok and isinstance(constant, (int, float)) and not isinstance(constant, bool):
                return Piece(str(constant), span)
        expression = name or self.m.code(value)
        facts = self.flow.facts(value, env)
        facts.sources.extend(self.flow.iteration_sources(value, env))
        slot = make_slot(expression, facts, env)
        at = self.m.span(value)
        return Piece(expression, span, replace(slot, passed_at=at) if at.line != span.line else slot,
                     _printed_in(inline))

    def join(self, call: ast.Call, func: ast.Attribute, env: Env) -> list[Piece]:
        separator = "".join(p.text for p in self.text(func.value, env) or [] if p.slot is None)
        sep_span = self.m.span(func.value)
        iterable = call.args[0]
        if isinstance(iterable, (ast.GeneratorExp, ast.ListComp)) and len(iterable.generators) == 1:
            generator = iterable.generators[0]
            loop = self.m.code(generator.iter)
            ordered = self.flow.unordered_source(generator.iter, env)
            # An item of third-party content is third-party content: `"\n".join(h["content"] for h in hits)`;
            # the index of `enumerate(hits)` or a value the item does not give is not.
            untrusted = tuple(s for s in self.flow.facts(generator.iter, env).sources if s.kind is SourceKind.UNTRUSTED)
            item_vars = item_names(generator.target, generator.iter)
            element = [replace(p, slot=with_sources(p.slot, ordered + untrusted * _reads_any(p.slot, item_vars)))
                       if p.slot else p for p in self.pieces(iterable.elt, env)]
            sources = ordered + untrusted
            if sources and not any(p.slot for p in element):
                element.append(self.slot_piece(iterable, env, variable=True))
            pieces = in_loop(element, loop)
            if separator:
                pieces.append(Piece(separator, sep_span, loop=loop))
            return pieces
        items = self.containers.items(iterable, env)
        if items is None or any(item.variable for item in items):
            return [self.slot_piece(call, env, variable=True)]
        pieces = []
        for i, item in enumerate(items):
            if i and separator:
                pieces.append(Piece(separator, sep_span, loop=item.loop))
            found = self.pieces(item.node, item.env)
            if item.said:  # a log's entry, an item of a collection in no fixed order: its slots say so
                found = [replace(p, slot=with_sources(p.slot, item.said)) if p.slot else p for p in found]
            pieces.extend(in_loop(found, item.loop))
            if len(pieces) > MAX_PIECES:
                return [self.slot_piece(call, env, variable=True)]
        return pieces

    def slot_piece(self, node: ast.expr, env: Env, variable: bool = False) -> Piece:
        expression = self.m.code(node)
        facts = self.flow.facts(node, env)
        facts.sources.extend(self.flow.iteration_sources(node, env))
        if variable:
            facts.variable_length = True
        return Piece(expression, self.m.span(node), make_slot(expression, facts, env))

    def assigned_text(self, name: str, base: Assign, extras: list[Assign]) -> list[Piece] | None:
        """The text a prompt name holds once its scope has run (every ``+=`` included). A
        template that is filled elsewhere (``.format``) keeps its fields as slots."""
        assert base.value is not None
        env = Env(base.home)
        tokens = joined_tokens(self, base.value, env)
        if tokens is not None and not extras:
            # Where code fills it (here, or in a module that imports it), each field takes the
            # facts of the values passed: a clock, a web page.
            values = format_values(self.m, self.flow, self.containers, self.scopes, name, base.value)
            if values or name in self.m.format_receivers or "template" in name.lower():
                fields = self.template_fields(tokens)
                if fields is not None:
                    inner = functools.partial(built_with, inner_prompts(self.m)) if values else None
                    return [replace(p, slot=linked_slot(p.slot, p.loop, values, "code fills the prompt", True, inner))
                            if p.slot is not None and values else p for p in fields]
        found = self.text(base.value, env)
        if found is None:
            return None
        found = list(found)
        size = chars(found)
        binding = Binding(base.value, env, extras, len(base.loops))
        if len(extras) > MAX_PIECES:
            return None
        for extra in extras:
            if extra.kind != "+=" or extra.value is None or doubles(extra):
                return None
            more = self.pieces(extra.value, Env(extra.home))
            loop = binding.loop_of(extra)
            found.extend(in_loop(more, loop.text if loop else None))
            size += chars(more)
            if len(found) > MAX_PIECES or size > self.max_chars:
                return None
        return found

    def template_fields(self, tokens: list[StrToken], field: FieldMaker | None = None) -> list[Piece] | None:
        """The pieces of ``{name}`` templates: static text, and for each field ``field(name,
        span)`` (by default a slot named by the field, its value unknown)."""
        return self.fielded(tokens, lambda token: format_fields(token.body, nested=True, escapes=not token.raw),
                            lambda token, start, end, name, span: field(name, span) if field
                            else Piece(name, span, template_field(name)), percent=False)

    def fielded(self, tokens: list[StrToken], fields_of: Callable[[StrToken], Sequence[tuple[int, int, K]] | None],
                field: Callable[[StrToken, int, int, K, Span], Piece], percent: bool) -> list[Piece] | None:
        """The pieces of ``%`` templates (``percent``) or ``{}`` ones: the static text between the
        fields each token has (``fields_of``), its doubled ``%%`` or braces undone, and a piece
        for each field; None where a token's fields do not parse."""
        pieces: list[Piece] = []
        size = 0
        for token in tokens:
            fields = fields_of(token)
            if fields is None:
                return None
            located = self.m.located(token)
            cursor = 0
            for start, end, key in fields:
                pieces.extend(located.static(cursor, start, braces=not percent, percent=percent))
                pieces.append(field(token, start, end, key, located.span(start, end)))
                size += len(pieces[-1].text)
                if size > self.max_chars:
                    return None  # a value that repeats itself: the caller's slot stands for it
                cursor = end
            pieces.extend(located.static(cursor, len(token.body), braces=not percent, percent=percent))
        return pieces


def plain_tokens(m: Unit, node: ast.expr | None) -> list[StrToken] | None:
    """The tokens of a text literal with no f-string or bytes part."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return None
    tokens = m.string_tokens(node)
    if tokens is None or any(t.is_f or t.is_bytes for t in tokens):
        return None
    return tokens


def joined_tokens(strings: Strings, node: ast.expr | None, env: Env, depth: int = 0) -> list[StrToken] | None:
    """The tokens of a text literal, or of literals joined with ``+`` where each part is one or a
    name of the module bound once to one (``COMMON_PROMPT + \"\"\"...{ocr_result}...\"\"\"\"``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and depth < _MAX_JOINED:
        left = joined_tokens(strings, node.left, env, depth + 1)
        right = joined_tokens(strings, node.right, env, depth + 1) if left is not None else None
        return None if right is None or left is None else left + right
    if isinstance(node, ast.Name) and depth > 0:
        binding = strings.scopes.resolve(node, env)
        if binding is None or binding.owner is not None or binding.extras:
            return None
        return plain_tokens(strings.m, binding.value)
    return plain_tokens(strings.m, node)


def filled_fields(strings: Strings, node: ast.expr, env: Env) -> Callable[[str, Span], Piece] | None:
    """For the text a prompt object is built from, named in this module (``from_template(NAME)``):
    a maker of its ``{fields}``, each a slot with the facts of the values code passes where it
    fills the object (``PROMPT.format_prompt(**inputs)``, through a registry key too). None
    when no code shows them."""
    if not isinstance(node, ast.Name):
        return None
    binding = strings.scopes.resolve(node, env)
    if binding is None or binding.owner is not None or binding.extras:
        return None
    values = format_values(strings.m, strings.flow, strings.containers, strings.scopes, node.id, binding.value)
    if not values:
        return None
    inner = functools.partial(built_with, inner_prompts(strings.m))
    return lambda name, span: Piece(name, span, linked_slot(template_field(name), None, values,
                                                            "code fills the prompt", True, inner))


def _printed_in(pieces: list[Piece] | None) -> str | None:
    """The loop a value passed for a field prints its content in, item by item, when every slot of
    it is printed in that one loop (``"\n".join(d["page_content"] for d in docs)``), else None."""
    loops = {p.loop for p in pieces or () if p.slot is not None}
    return loops.pop() if len(loops) == 1 else None


def template_field(name: str) -> Slot:
    """A ``{name}`` field of a template that code fills elsewhere: nothing here says what fills
    it (``opaque``), so its name is the template's own word for it, as in a template file."""
    return Slot(name, names=(name,) if name.isidentifier() else (), opaque=True)


def entered(pieces: list[Piece], at: Span, expression: str, home: ast.AST | None) -> list[Piece]:
    """``pieces`` inlined at the field ``at`` of a function (``home``): a value another function
    built with no words of its own (a helper's fetched paragraphs joined with spaces) is content,
    not prompt text, and enters the prompt at the field."""
    slots = [p for p in pieces if p.slot is not None]
    start, end = getattr(home, "lineno", None), getattr(home, "end_lineno", None)
    if not slots or start is None or end is None or any(p.slot is None and _WORDS.search(p.text) for p in pieces) \
            or any(p.span.path == at.path and start <= p.span.line <= end for p in slots):
        return pieces
    return [replace(p, slot=replace(p.slot, entered_at=at, entered_as=expression)) if p.slot is not None else p
            for p in pieces]


_WORDS = re.compile(r"[^\W\d_]", re.UNICODE)


def chars(pieces: list[Piece]) -> int:
    return sum(len(piece.text) for piece in pieces)


def doubles(extra: Assign) -> bool:
    """``PROMPT += PROMPT``: a change that adds the name's own value, doubling it each time it runs
    (followed, thousands of them ask for each earlier value again: cubic work)."""
    target = extra.target
    return isinstance(target, ast.Name) and extra.value is not None and any(
        isinstance(node, ast.Name) and node.id == target.id for node in ast.walk(extra.value))


def _untrimmed(node: ast.expr) -> ast.expr:
    """The literal under ``.strip()`` (``lstrip``, ``rstrip``) or ``textwrap.dedent(...)``."""
    for _ in range(3):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args \
                and node.func.attr in ("strip", "lstrip", "rstrip"):
            node = node.func.value
        elif isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                and isinstance(node.func, (ast.Name, ast.Attribute)) and last_name(node.func) in ("dedent", "cleandoc"):
            node = node.args[0]
        else:
            break
    return node


def shipped_default(node: ast.expr, env: Env) -> ast.expr | None:
    """``SYSTEM_PROMPT`` of ``system_prompt or SYSTEM_PROMPT``, where ``system_prompt`` is a parameter
    of the function ``env`` runs, not bound to an argument here, None or empty by default: the
    value the project ships, which only a caller that wants another one replaces."""
    if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2):
        return None
    given = node.values[0]
    if not (isinstance(given, ast.Name) and env.scope.kind == "function" and given.id in env.scope.params
            and env.bound(given.id) is None):
        return None
    default = env.scope.params[given.id].default
    return node.values[1] if isinstance(default, ast.Constant) and default.value in (None, "") else None


def make_slot(expression: str, facts: Facts, env: Env | None = None) -> Slot:
    sources, seen = [], set()
    for source in facts.sources:
        if (source.kind, source.span) not in seen:
            seen.add((source.kind, source.span))
            sources.append(source)
    # A value written at module level (or in a class body) is computed once, when the module
    # loads; so is a call reached through a module-level constant.
    once = facts.calls if env is not None and env.scope.kind != "function" else facts.once
    return Slot(expression, unique(facts.names), unique(facts.calls), (), facts.variable_length, tuple(sources),
                once=unique(once), called_at=tuple(facts.called_at.items()), looked_up=unique(facts.looked_up))


def may_hold_untrusted_instead(strings: Strings, node: ast.Name, binding: Binding) -> bool:
    """Whether the name may hold, at ``node``, a value given on another side of an ``if`` than the
    assignment it resolves to (`out = run(cmd).stdout`, then `if tidy: out = summarise(out)`), and
    that value carries third-party content where the assignment's own does not: inlining the
    one assignment's text would hide the other's source. (When both carry some, the text is
    inlined, and its own slots are reported where the content is put in.)"""
    others = other_branches(node, binding, strings.m.parents)
    return any(strings.sources.untrusted(value, binding.env) is not None for value in others) \
        and strings.sources.untrusted(binding.value, binding.env) is None


def _reads_any(slot: Slot, names: set[str]) -> bool:
    """Whether a slot reads one of ``names`` (``hit["content"]`` reads ``hit``)."""
    return any(name.split(".")[0] in names for name in slot.names)
