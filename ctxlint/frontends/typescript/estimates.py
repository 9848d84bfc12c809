"""``text.length / 4``-style token estimates: observed where a value is used as a token count."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ctxlint.frontends.code.words import WINDOW_WORDS
from ctxlint.frontends.typescript.knowledge import Node, snake
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import number_value
from ctxlint.model import Observation


@dataclass(eq=False)
class Estimates:
    """Finds characters-per-token guesses; reads syntax only."""

    m: Module
    # Whether each estimating function the module declares only feeds tallies (`only_tallied`).
    tallies: dict[str, bool] = field(default_factory=dict)
    # The module's numeric constants, by how code reads them (`CHARS_PER_TOKEN`, `Tokenizer.DIVISOR`).
    _constants: dict[str, object] | None = None
    # Whether another module of the tree imports or calls a name (the analyzer gives the tree's
    # index; a module read alone cannot tell, so an exported name may be used anywhere).
    used_elsewhere: Callable[[str], bool] = lambda name: True

    def estimate_context(self, target: str | None, value: Node) -> None:
        if target and "token" in target.rsplit(".", 1)[-1].lower():
            if "." in target and self.tallied(target.rsplit(".", 1)[-1]):
                return
            body = self.m.field(value, "body") if value.type == "arrow_function" else None
            if body is not None and (self.only_places_cache_breakpoints(target, value) or self.only_tallied(target)):
                return
            # `const estimateTokens = (t: string) => Math.ceil(t.length / 4)`: what the function
            # returns is the count (a body in braces is read at its `return`s)
            self.estimates_in(body if body is not None and body.type != "statement_block" else value)

    def only_places_cache_breakpoints(self, name: str, function: Node) -> bool:
        """Whether every use of the module's estimating function ``name`` only decides where a
        cache breakpoint goes: its count, held by a name or not, is read only in the conditions of
        ``if`` statements that add ``cache_control`` (``if (tokens > 500) { ... cache_control ... }``).
        A wrong guess then moves a breakpoint; no budget or cut rests on it. A function the module
        exports may be used anywhere, so it is not asked about."""
        if _CACHE_BREAKPOINT not in self.m.src.text and "cacheControl" not in self.m.src.text:
            return False  # no branch of the module adds a breakpoint
        declaration = function.parent.parent if function.parent is not None else None
        if declaration is None or declaration.parent is None or declaration.parent.type == "export_statement":
            return False
        uses = [n for n in walk(self.m.root) if n.type == "identifier" and self.m.code(n) == name
                and not function.start_byte <= n.start_byte < function.end_byte]
        calls = [u for u in uses if u.parent is not None and u.parent.type == "call_expression"
                 and self.m.field(u.parent, "function") == u]
        if not calls or len(calls) != len(uses) - 1:  # the declarator's own name is the one other use
            return False
        for call in calls:
            made = call.parent
            holder = made.parent if made is not None else None
            if holder is not None and holder.type == "variable_declarator" and self.m.field(holder, "value") == made:
                held = self.m.field(holder, "name")
                block = holder.parent.parent if holder.parent is not None else None
                if held is None or held.type != "identifier" or block is None:
                    return False
                reads = [n for n in walk(block) if n.type == "identifier"
                         and self.m.code(n) == self.m.code(held) and n != held]
                if not reads or not all(self.gates_cache(read) for read in reads):
                    return False
            elif not self.gates_cache(call.parent):
                return False
        return True

    def tallied(self, name: str) -> bool:
        """Whether the module's field ``name`` only keeps a tally (``usage.inputTokensEstimated +=
        …``): every mention of it is a write, an object literal's key (its first value), or a field
        of a template string, which only shows it (a log line). No budget or cut reads it: a count
        guessed for it ends in what a usage report or a log displays. An object handed on whole
        (`res.json(usage)`) shows its fields the same way."""
        for node in walk(self.m.root):
            if node.type not in ("property_identifier", "identifier", "shorthand_property_identifier",
                                 "shorthand_property_identifier_pattern") or self.m.code(node) != name:
                continue
            parent = node.parent
            if parent is None:
                return False
            if parent.type == "pair" and self.m.field(parent, "key") == node:
                continue
            if parent.type == "member_expression" and self.m.field(parent, "property") == node:
                holder = parent.parent
                if holder is not None and holder.type in ("assignment_expression", "augmented_assignment_expression") \
                        and self.m.field(holder, "left") == parent:
                    continue
                if self.displayed(parent):
                    continue
            return False
        return True

    def only_tallied(self, function: str) -> bool:
        """Whether every use of the module's function ``function`` is a call whose count is added to
        or written into a field that only keeps a tally (``tallied``). A function handed on may be
        used anywhere: not asked about; nor is one exported (`module.exports = { estimateTokens }`)
        unless no other module of the tree imports it or calls it by name."""
        if function not in self.tallies:
            uses = [n for n in walk(self.m.root) if n.type in ("identifier", "shorthand_property_identifier")
                    and self.m.code(n) == function]
            exports = [use for use in uses if self.exported(use)]
            if exports and self.used_elsewhere(function):
                exports = []
            fields = [self.tally_field(use) for use in uses]
            written = [f for f in fields if f is not None]
            shown = [use for use, f in zip(uses, fields, strict=True) if f is None and self.shown(use)]
            # the declaration's own name is the one use that is neither a call nor an export
            self.tallies[function] = bool(written or shown) \
                and len(written) + len(shown) == len(uses) - len(exports) - 1 \
                and all(self.tallied(f) for f in set(written))
        return self.tallies[function]

    def exported(self, use: Node) -> bool:
        """Whether ``use`` only exports a name: an entry of `module.exports = { name }` or of
        `export { name }`, or the value of `exports.name = name`."""
        parent = use.parent
        if parent is None:
            return False
        if use.type == "shorthand_property_identifier" and parent.type == "object":
            holder = parent.parent
            return holder is not None and holder.type == "assignment_expression" \
                and self.m.code(self.m.field(holder, "left")) in ("module.exports", "exports")
        if parent.type == "export_specifier":
            return True
        if parent.type == "assignment_expression" and self.m.field(parent, "right") == use:
            left = self.m.code(self.m.field(parent, "left"))
            return left.startswith(("module.exports.", "exports."))
        return False

    def tally_field(self, use: Node) -> str | None:
        """The field a call of ``use`` is written into (``usage.outputTokensEstimated += estimate(t)``)."""
        call = use.parent
        if call is None or call.type != "call_expression" or self.m.field(call, "function") != use:
            return None
        holder = call.parent
        while holder is not None and holder.type in ("await_expression", "parenthesized_expression"):
            holder = holder.parent
        left = self.m.field(holder, "left") if holder is not None and holder.type in (
            "assignment_expression", "augmented_assignment_expression") else None
        if left is None or left.type != "member_expression":
            return None
        name = self.m.field(left, "property")
        return self.m.code(name) if name is not None else None

    def shown(self, use: Node) -> bool:
        """Whether a call of ``use`` is only shown: a field of a template string (a log line), or
        the value of a local name every read of which is one (``const total = estimate(x)`` then
        `` `total≈${total}` ``). No budget or cut reads it."""
        call = use.parent
        if call is None or call.type != "call_expression" or self.m.field(call, "function") != use:
            return False
        if self.displayed(call):
            return True
        holder = call.parent
        if holder is None or holder.type != "variable_declarator" or self.m.field(holder, "value") != call:
            return False
        held = self.m.field(holder, "name")
        block = holder.parent.parent if holder.parent is not None else None
        if held is None or held.type != "identifier" or block is None:
            return False
        reads = [n for n in walk(block) if n.type == "identifier" and self.m.code(n) == self.m.code(held) and n != held]
        return bool(reads) and all(self.displayed(read) for read in reads)

    def displayed(self, node: Node) -> bool:
        """Whether ``node`` is a field of a template string (`` `est=${usage.tokensEstimated}` ``)."""
        current = node.parent
        while current is not None and current.type in ("member_expression", "parenthesized_expression"):
            current = current.parent
        return current is not None and current.type == "template_substitution"

    def gates_cache(self, node: Node) -> bool:
        """Whether ``node`` is in the condition of an ``if`` whose branch adds a cache breakpoint."""
        current = node
        while current.parent is not None and current.parent.type not in ("statement_block", "program"):
            parent = current.parent
            if parent.type == "if_statement" and self.m.field(parent, "condition") == current:
                consequence = self.m.field(parent, "consequence")
                return consequence is not None and _CACHE_BREAKPOINT in self.m.code(consequence).replace(
                    "cacheControl", _CACHE_BREAKPOINT)
            current = parent
        return False

    def estimates_in(self, node: Node) -> None:
        """Observe ``text.length / 4``-style estimates inside an expression used as a token count."""
        node = self.m.unwrap(node)
        if node.type == "call_expression":
            callee = self.m.dotted(self.m.unwrap(self.m.field(node, "function"))) or ""
            if callee in ("Math.ceil", "Math.floor", "Math.round", "Math.max", "Math.min", "Math.trunc"):
                args = self.m.args(node)
                if callee != "Math.max" and callee != "Math.min" and args and self.is_estimate(args[0]):
                    self.observe(node)
                    return
                for arg in args:
                    self.estimates_in(arg)
        elif node.type == "binary_expression":
            if self.is_estimate(node):
                self.observe(node)
                return
            for side in (self.m.field(node, "left"), self.m.field(node, "right")):
                if side is not None:
                    self.estimates_in(side)
        elif node.type == "ternary_expression":
            branches = [b for b in (self.m.field(node, "consequence"), self.m.field(node, "alternative"))
                        if b is not None]
            if any(self.counts_tokens(b) for b in branches):
                return  # `useTokenizer ? countTokens(t) : t.length / 4`: a fallback the code chooses
            for branch in branches:
                self.estimates_in(branch)

    def caught_fallback(self, node: Node) -> bool:
        """An estimate in the ``catch`` of a ``try`` that counts with a tokenizer: what is used only
        when the tokenizer fails."""
        current = node.parent
        for _ in range(12):
            if current is None or current.type in ("function_declaration", "arrow_function", "method_definition"):
                return False
            if current.type == "catch_clause":
                attempt = current.parent
                body = self.m.field(attempt, "body") if attempt is not None and attempt.type == "try_statement" \
                    else None
                return body is not None and self.counts_tokens(body)
            current = current.parent
        return False

    def counts_tokens(self, node: Node) -> bool:
        """A call that counts tokens with a tokenizer: ``countTokens(text, model)``,
        ``encoding.encode(text).length``, ``tokenizer.encode(text)``."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "call_expression":
                callee = snake((self.m.dotted(self.m.unwrap(self.m.field(current, "function"))) or "")
                               .replace(".", "_"))
                if "count_tokens" in callee or "tokeniz" in callee or callee.endswith("encode") and (
                        "token" in callee or "enc" in callee.rsplit("_encode", 1)[0].rsplit("_", 1)[-1]):
                    return True
            stack.extend(current.named_children)
        return False

    def is_estimate(self, node: Node) -> bool:
        node = self.m.unwrap(node)
        if node.type != "binary_expression":
            return False
        operator = self.m.code(self.m.field(node, "operator"))
        left, right = self.m.unwrap(self.m.field(node, "left")), self.m.unwrap(self.m.field(node, "right"))
        if operator == "/":
            ok, number = self.number(right)
            if not ok or not isinstance(number, (int, float)):
                return False
            if self.is_word_count(left):
                return 0.5 <= number < 1
            return self.is_len_like(left) and 2 <= number <= 8  # as in Python: any ratio a guess takes
        if operator == "*":
            for a, b in ((left, right), (right, left)):
                ok, number = self.number(b)
                if not ok or not isinstance(number, (int, float)):
                    continue
                if self.is_word_count(a):
                    return 1 < number <= 2
                if self.is_len_like(a):
                    return 0 < number <= 0.5
        return False

    def number(self, node: Node) -> tuple[bool, object]:
        """The number ``node`` is: written in place, or a constant of the module it names (a
        top-level ``const CHARS_PER_TOKEN = 4``, a class's ``static DIVISOR = 4`` read as
        ``Tokenizer.DIVISOR``)."""
        if node.type == "number":
            return number_value(self.m.code(node))
        if node.type not in ("identifier", "member_expression"):
            return False, None
        if self._constants is None:
            self._constants = self.constants()
        code = self.m.code(node)
        return (True, self._constants[code]) if code in self._constants else (False, None)

    def constants(self) -> dict[str, object]:
        """The module's top-level ``const`` numbers and its classes' ``static`` numbers."""
        found: dict[str, object] = {}
        for statement in self.m.root.named_children:
            declaration = statement.named_children[0] if statement.type == "export_statement" \
                and statement.named_children else statement
            if declaration.type == "lexical_declaration" and self.m.code(declaration).startswith("const"):
                for declarator in declaration.named_children:
                    name, value = self.m.field(declarator, "name"), self.m.field(declarator, "value")
                    if name is not None and value is not None and value.type == "number":
                        found[self.m.code(name)] = number_value(self.m.code(value))[1]
            elif declaration.type == "class_declaration":
                named, body = self.m.field(declaration, "name"), self.m.field(declaration, "body")
                for member in body.named_children if named is not None and body is not None else ():
                    key = self.m.field(member, "name") or self.m.field(member, "property")
                    value = self.m.field(member, "value")
                    if member.type in ("public_field_definition", "field_definition") and key is not None \
                            and value is not None and value.type == "number" \
                            and any(c.type == "static" for c in member.children):
                        found[f"{self.m.code(named)}.{self.m.code(key)}"] = number_value(self.m.code(value))[1]
        return found

    def is_len_like(self, node: Node) -> bool:
        """A character count (``text.length``, ``numChars``); not a window (``this.contextLength``)."""
        dotted = self.m.dotted(node) or ""
        last = snake(dotted.rsplit(".", 1)[-1])
        if node.type == "member_expression" and last == "length":
            return not self.is_word_count(node)
        if any(word in last for word in WINDOW_WORDS):
            return False
        return "char" in last or last.endswith(("_len", "_length"))

    def is_word_count(self, node: Node) -> bool:
        node = self.m.unwrap(node)
        if node.type == "member_expression" and self.m.code(self.m.field(node, "property")) == "length":
            return ".split(" in self.m.code(self.m.field(node, "object"))
        return "word" in snake((self.m.dotted(node) or "").rsplit(".", 1)[-1])

    def commented_ratios(self) -> None:
        """``// ~ 4 chars per token, max tokens of 75000`` over ``const CHARACTER_MAX = 300000``: a
        character budget its own comment derives from a token budget at a fixed ratio, which the
        module compares with a character count (``totalChars > CHARACTER_MAX``) or cuts text to
        (``text.slice(0, CHARACTER_MAX)``): the ``length / 4`` guess, worked out by hand."""
        if _RATIO_NOTE.search(self.m.src.text) is None:
            return
        for comment in walk(self.m.root):
            if comment.type != "comment" or _RATIO_NOTE.search(self.m.code(comment)) is None:
                continue
            declarator = self.declared_beside(comment)
            name = self.m.field(declarator, "name") if declarator is not None else None
            if name is None or name.type not in ("identifier", "property_identifier") \
                    or "char" not in snake(self.m.code(name)) or not self.compared_with_text(self.m.code(name), name):
                continue
            self.observe(declarator, kind="char-token-comment")

    def declared_beside(self, comment: Node) -> Node | None:
        """The constant a comment describes: the declaration on the line after it, or the one it ends."""
        line = comment.start_point[0]
        after, before = comment.next_named_sibling, comment.prev_named_sibling
        for node, ok in ((after, after is not None and after.start_point[0] == comment.end_point[0] + 1),
                         (before, before is not None and before.end_point[0] == line)):
            if node is None or not ok:
                continue
            if node.type == "export_statement" and node.named_children:
                node = node.named_children[-1]
            if node.type == "public_field_definition":
                value = self.m.field(node, "value")
                return node if value is not None and value.type == "number" else None
            declarators = [c for c in node.named_children if c.type == "variable_declarator"] \
                if node.type in ("lexical_declaration", "variable_declaration") else []
            value = self.m.field(declarators[0], "value") if len(declarators) == 1 else None
            if value is not None and self.m.unwrap(value).type in ("number", "binary_expression") \
                    and all(n.type != "identifier" for n in walk(value)):
                return declarators[0]
        return None

    def compared_with_text(self, name: str, declared: Node) -> bool:
        """Whether the module compares ``name`` with a character count or cuts text to it."""
        for node in walk(self.m.root):
            if node.id == declared.id or self.m.code(node) not in (name, f"this.{name}") \
                    or node.type not in ("identifier", "member_expression") or node.parent is None:
                continue
            parent = node.parent
            if parent.type == "binary_expression" and self.m.code(self.m.field(parent, "operator")) in _COMPARISONS:
                other = self.m.field(parent, "right" if self.m.field(parent, "left") == node else "left")
                if other is not None and self.is_len_like(self.m.unwrap(other)):
                    return True
            if parent.type == "arguments" and parent.parent is not None and parent.parent.type == "call_expression":
                callee = self.m.unwrap(self.m.field(parent.parent, "function"))
                if callee is not None and callee.type == "member_expression" \
                        and self.m.code(self.m.field(callee, "property")) in ("slice", "substring", "substr"):
                    return True
        return False

    def observe(self, node: Node, kind: str = "char-token-estimate") -> None:
        if self.caught_fallback(node):
            return
        span = self.m.span(node)
        if span not in self.m.observed:
            self.m.observed.add(span)
            self.m.observations.append(Observation(kind, span, " ".join(self.m.code(node).split())))


_CACHE_BREAKPOINT = "cache_control"
# A comment that states a fixed number of characters per token (`~ 4 chars per token`, `4 characters/token`).
_RATIO_NOTE = re.compile(r"\b\d+(?:\.\d+)?\s*(?:chars?|characters?)\s*(?:per|/|a|an|each|for each)\s*token",
                         re.IGNORECASE)
_COMPARISONS = ("<", "<=", ">", ">=")

