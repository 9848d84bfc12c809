"""``text.length / 4``-style token estimates: observed where a value is used as a token count."""

from __future__ import annotations

from dataclasses import dataclass

from ctxlint.frontends.code.words import WINDOW_WORDS
from ctxlint.frontends.typescript.knowledge import Node, snake
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import number_value
from ctxlint.model import Observation


@dataclass(eq=False)
class Estimates:
    """Finds characters-per-token guesses; reads syntax only."""

    m: Module

    def estimate_context(self, target: str | None, value: Node) -> None:
        if target and "token" in target.rsplit(".", 1)[-1].lower():
            body = self.m.field(value, "body") if value.type == "arrow_function" else None
            # `const estimateTokens = (t: string) => Math.ceil(t.length / 4)`: what the function
            # returns is the count (a body in braces is read at its `return`s)
            self.estimates_in(body if body is not None and body.type != "statement_block" else value)

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
            ok, number = number_value(self.m.code(right)) if right.type == "number" else (False, None)
            if not ok or not isinstance(number, (int, float)):
                return False
            if self.is_word_count(left):
                return 0.5 <= number < 1
            return self.is_len_like(left) and 2 <= number <= 6
        if operator == "*":
            for a, b in ((left, right), (right, left)):
                ok, number = number_value(self.m.code(b)) if b.type == "number" else (False, None)
                if not ok or not isinstance(number, (int, float)):
                    continue
                if self.is_word_count(a):
                    return 1 < number <= 2
                if self.is_len_like(a):
                    return 0 < number <= 0.5
        return False

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

    def observe(self, node: Node) -> None:
        if self.caught_fallback(node):
            return
        span = self.m.span(node)
        if span not in self.m.observed:
            self.m.observed.add(span)
            self.m.observations.append(Observation("char-token-estimate", span, " ".join(self.m.code(node).split())))
