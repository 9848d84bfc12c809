"""``len(text) / 4``-style token estimates, observed where a value is used as a token count."""

from __future__ import annotations

import libcst as cst

from ctxlint.frontends.python.knowledge import WRAPPERS, token_name
from ctxlint.frontends.python.literals import number_value, walk
from ctxlint.frontends.python.unit import Component
from ctxlint.model import Observation


class Estimates(Component):
    def estimate_context(self, targets: list[str | None], value) -> None:
        if any(token_name(t) for t in targets):
            self.estimates_in(value)

    def estimate_comparison(self, node) -> None:
        operands = [node.left, *[c.comparator for c in node.comparisons]]
        if any(self.mentions_tokens(o) for o in operands):
            for operand in operands:
                self.estimates_in(operand)
        if any(self.is_len_like(o) for o in operands):
            for operand in operands:
                self.scaled_tokens(operand)

    def mentions_tokens(self, node) -> bool:
        for current in walk(node):
            if isinstance(current, (cst.Name, cst.Attribute)) and token_name(self.m.dotted(current)):
                return True
        return False

    def scaled_tokens(self, node) -> None:
        """``max_tokens * 4`` set against a length: a token budget turned into characters."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                number = number_value(b)
                if token_name(self.m.dotted(a)) and number is not None and 2 <= number <= 6:
                    self.observe(node)
                    return

    def estimates_in(self, node) -> None:
        """Observe each ``len(x) / 4``-style estimate inside an expression used as a token count."""
        if isinstance(node, cst.Call):
            last = (self.m.qualified(node.func) or "").split(".")[-1]
            if last in WRAPPERS and len(node.args) >= 1 and self.is_estimate(node.args[0].value):
                self.observe(node)
                return
            if last in (*WRAPPERS, "max", "min", "sum"):
                for arg in node.args:
                    self.estimates_in(arg.value)
        elif isinstance(node, cst.BinaryOperation):
            if self.is_estimate(node):
                self.observe(node)
                return
            self.estimates_in(node.left)
            self.estimates_in(node.right)
        elif isinstance(node, cst.UnaryOperation):
            self.estimates_in(node.expression)
        elif isinstance(node, cst.IfExp):
            self.estimates_in(node.body)
            self.estimates_in(node.orelse)
        elif isinstance(node, cst.GeneratorExp):
            self.estimates_in(node.elt)

    def is_estimate(self, node) -> bool:
        if not isinstance(node, cst.BinaryOperation):
            return False
        left, right, op = node.left, node.right, node.operator
        if isinstance(op, (cst.Divide, cst.FloorDivide)):
            number = number_value(right)
            if number is None:
                return False
            if self.is_word_count(left):
                return 0.5 <= number < 1
            return self.is_len_like(left) and 2 <= number <= 6
        if isinstance(op, cst.Multiply):
            for a, b in ((left, right), (right, left)):
                number = number_value(b)
                if number is None:
                    continue
                if self.is_word_count(a):
                    return 1 < number <= 2
                if self.is_len_like(a):
                    return 0 < number <= 0.5
        return False

    def is_len_like(self, node) -> bool:
        """A character count: ``len(x)``, ``sum(len(m) for m in ...)``, ``num_chars``."""
        if isinstance(node, cst.Call):
            qualified = self.m.qualified(node.func)
            if qualified == "len":
                return not self.is_word_count(node)
            if qualified == "sum" and node.args:
                return any(isinstance(n, cst.Call) and self.m.qualified(n.func) == "len"
                           for n in walk(node.args[0].value))
            return False
        if isinstance(node, (cst.Name, cst.Attribute)):
            last = (self.m.dotted(node) or "").rsplit(".", 1)[-1].lower()
            return "char" in last or last.endswith(("_len", "_length"))
        return False

    def is_word_count(self, node) -> bool:
        if isinstance(node, cst.Call) and self.m.qualified(node.func) == "len" and node.args:
            inner = node.args[0].value
            return (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute)
                    and inner.func.attr.value == "split")
        if isinstance(node, (cst.Name, cst.Attribute)):
            return "word" in (self.m.dotted(node) or "").rsplit(".", 1)[-1].lower()
        return False

    def observe(self, node) -> None:
        span = self.m.span(node)
        if span not in self.m.observed:
            self.m.observed.add(span)
            self.m.observations.append(Observation("char-token-estimate", span, self.m.code(node)))
