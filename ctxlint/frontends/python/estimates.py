"""``len(text) / 4``-style token estimates, observed where a value is used as a token count."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import replace
from fnmatch import fnmatchcase

from ctxlint.frontends.code.words import WINDOW_WORDS
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.knowledge import LIST_NAMES, TOKENIZER_CALLS, WRAPPERS, token_name
from ctxlint.frontends.python.literals import number_value, written_scale
from ctxlint.frontends.python.nodes import function_of, walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Observation


def char_name(name: str | None) -> bool:
    """A name for a number of characters (``char_limit``, ``max_chars``, ``tokens_to_chars``), not
    of tokens or a ratio (``chars_per_token``)."""
    last = (name or "").rsplit(".", 1)[-1].lower()
    return "char" in last and last.rfind("char") > last.rfind("token")


# What a function's name says when it counts (`count_token`, `num_tokens_from_string`, `estimate_tokens`).
_COUNT_WORDS = ("count", "num", "len", "estimat", "calc", "size")
# The annotations of a parameter that holds text (none written counts: the name decides).
_TEXT_ANNOTATIONS = ("str", "str|None", "Optional[str]")
# Calls whose argument bounds something: a count passed to them decides, it is not bookkeeping.
_BOUNDING_CALLS = ("min", "max", "range")
_LIMIT_WORDS = ("limit", "max", "budget", "size", "bound", "cap", "window")


class Estimates(Component):
    def __init__(self, unit: Unit) -> None:
        super().__init__(unit)
        # The estimates assigned to a local name, by the id of their observation: (name, value).
        self.held: dict[int, tuple[str, ast.expr]] = {}

    def bookkeeping(self) -> None:
        """Estimates held by a local name that is only reported (returned, stored, passed on as a
        usage count) and never decides anything: no comparison, slice, condition, bound or limit
        uses it. They fill usage numbers, and are observed as such (`char-token-usage`)."""
        for index, observation in enumerate(self.m.observations):
            if id(observation) in self.held:
                name, value = self.held[id(observation)]
                if not self.decides(name, value):
                    self.m.observations[index] = replace(observation, kind="char-token-usage")
        self.held = {}

    def decides(self, name: str, value: ast.expr) -> bool:
        """Whether a use of ``name`` in the function around ``value`` decides something."""
        parents = self.m.parents
        fn = function_of(value, parents)
        uses = [n for n in walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)] \
            if fn is not None else []
        return not uses or any(self.deciding_use(use) for use in uses)

    def deciding_use(self, use: ast.expr) -> bool:
        parents = self.m.parents
        current: ast.AST = use
        while True:
            parent = parents.get(id(current))
            if isinstance(parent, ast.FormattedValue):
                return False  # written into a text (`f"~{estimated:,} tokens"`): a figure to read, deciding nothing
            if parent is None or isinstance(parent, (ast.Compare, ast.Slice, ast.While, ast.If, ast.IfExp,
                                                     ast.Assert, ast.AugAssign)):
                return parent is not None
            if isinstance(parent, ast.keyword) and any(w in (parent.arg or "").lower() for w in _LIMIT_WORDS):
                return True
            if isinstance(parent, ast.Call) and current is not parent.func and \
                    (self.m.qualified(parent.func) or "") in _BOUNDING_CALLS:
                return True
            if isinstance(parent, ast.stmt):
                return isinstance(parent, ast.Assign) and not all(
                    isinstance(t, (ast.Attribute, ast.Subscript)) for t in parent.targets)
            current = parent

    def drop_fallbacks(self) -> None:
        """Forget the estimates of functions that also count with a real tokenizer: there the
        guess is the fallback for when no tokenizer is available, not the way tokens are counted."""
        if not self.m.observations:
            return
        counts: dict[int, bool] = {}  # function -> whether it counts with a tokenizer

        def counting(fn: ast.AST) -> bool:
            if id(fn) not in counts:
                counts[id(fn)] = any(self.counts_tokens(n) for n in walk(fn))
            return counts[id(fn)]

        # The module's own functions that count with a tokenizer (`is_large_file(content)`): a
        # guess made before a call of one is a cheap first filter, the exact count comes after.
        # (A guess after such a count is how the code cuts, and stays an estimate.)
        counters: set[str] | None = None
        last_count: dict[int, int] = {}  # a function -> the line of its last call of a counter

        def counted_after(fn: ast.AST, line: int) -> bool:
            nonlocal counters
            if counters is None:
                counters = {f.name for f, _ in self.m.functions if counting(f)}
            if not counters:
                return False
            if id(fn) not in last_count:
                last_count[id(fn)] = max((n.lineno for n in walk(fn) if isinstance(n, ast.Call)
                                          and last_name(n.func) in counters), default=0)
            return last_count[id(fn)] > line

        # The functions around each estimate's line, in one sweep over both sorted by line (a
        # search of every function per estimate was quadratic: a 1 MB module ran for minutes).
        # Functions nest, so those open at a line are a stack.
        spans = sorted(((fn.lineno, fn.end_lineno or fn.lineno, fn) for fn, _ in self.m.functions),
                       key=lambda span: (span[0], -span[1]))
        fallback: dict[int, bool] = {}
        stack: list[tuple[int, int, ast.AST]] = []
        next_span = 0
        for line in sorted({o.span.line for o in self.m.observations}):
            while next_span < len(spans) and spans[next_span][0] <= line:
                while stack and stack[-1][1] < spans[next_span][0]:
                    stack.pop()
                stack.append(spans[next_span])
                next_span += 1
            while stack and stack[-1][1] < line:
                stack.pop()
            fallback[line] = any(counting(fn) or counted_after(fn, line)
                                 for start, end, fn in stack if start <= line <= end)
        self.m.observations[:] = [o for o in self.m.observations if not fallback[o.span.line]]

    def counts_tokens(self, node: ast.AST) -> bool:
        """A call that counts tokens with a tokenizer: ``tokenizer.encode(text)``,
        ``tiktoken.encoding_for_model(...)``, ``client.count_tokens(...)``."""
        if not isinstance(node, ast.Call):
            return False
        dotted = (self.m.qualified(node.func) or self.m.dotted(node.func) or "").lower()
        receiver, _, last = dotted.rpartition(".")
        if last in TOKENIZER_CALLS or dotted.startswith("tiktoken."):
            return True
        return last == "encode" and ("token" in receiver or "enc" in receiver.rsplit(".", 1)[-1])

    def estimate_context(self, targets: list[str | None], value: ast.expr) -> None:
        if any(token_name(t) for t in targets) and not self.ratio_by_script(value, targets):
            before = len(self.m.observations)
            self.estimates_in(value)
            name = targets[0] if len(targets) == 1 and targets[0] and "." not in targets[0] else None
            if name is not None:  # a local count: what its uses decide is read once the module is indexed
                self.held.update((id(o), (name, value)) for o in self.m.observations[before:])
        elif any(char_name(t) for t in targets):
            self.scaled_tokens_in(value)  # char_limit = max_tokens * 4

    def ratio_by_script(self, value: ast.expr, targets: list[str | None]) -> bool:
        """Whether the count ``value`` gives ``targets`` is one arm of a choice by the text's
        language or script (``if is_chinese: tokens = len(text) / 1.5 else: tokens = len(text) / 4``,
        also as ``a if ... else b``): the code already knows the ratio depends on the content."""
        if isinstance(value, ast.IfExp):
            return _script_test(value.test) and _ratios(value.body) != _ratios(value.orelse) != set()
        parents = self.m.parents
        statement = parents.get(id(value))
        chain = parents.get(id(statement)) if statement is not None else None
        while isinstance(chain, ast.If) and isinstance(parents.get(id(chain)), ast.If) \
                and chain in getattr(parents.get(id(chain)), "orelse", ()):
            chain = parents.get(id(chain))  # up an `elif` chain to its first `if`
        if not isinstance(chain, ast.If):
            return False
        tests, ratios = [], []
        branch: ast.If | None = chain
        while branch is not None:
            tests.append(branch.test)
            arms = [branch.body] + ([] if _elif(branch) else [branch.orelse])
            ratios += [_ratios(s.value) for arm in arms for s in arm if isinstance(s, (ast.Assign, ast.AnnAssign))
                       and s.value is not None and _targets(s, self.m.dotted) == targets]
            branch = branch.orelse[0] if _elif(branch) and isinstance(branch.orelse[0], ast.If) else None
        return any(_script_test(t) for t in tests) and len({frozenset(r) for r in ratios if r}) > 1

    def estimate_comparison(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        if any(self.mentions_tokens(o) for o in operands):
            for operand in operands:
                self.estimates_in(operand)
        if any(self.is_len_like(o) for o in operands):
            for operand in operands:
                self.scaled_tokens(operand)

    def mentions_tokens(self, node: ast.expr) -> bool:
        for current in walk(node):
            # The last part of the dotted name is the attribute or name itself: test it before
            # building the name, which costs a walk down the chain.
            last = current.id if isinstance(current, ast.Name) else current.attr if isinstance(
                current, ast.Attribute) else None
            if last is not None and "token" in last.lower() and token_name(self.m.dotted(current)):
                return True
        return False

    def scaled_tokens(self, node: ast.expr) -> None:
        """``max_tokens * 4`` set against a length: a token budget turned into characters."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                number = self.number(b)
                if token_name(self.m.dotted(a)) and number is not None and 2 < number <= 6:
                    self.observe(node)
                    return

    def scaled_tokens_in(self, node: ast.expr) -> None:
        """Each ``max_tokens * 4`` inside a value used as a number of characters."""
        for part in walk(node):
            if isinstance(part, ast.BinOp):
                self.scaled_tokens(part)

    def char_budgets(self) -> None:
        """Token budgets turned into characters where they are used as such: a slice bound held
        by a name (``limit = max_tokens * 4; text[:limit]``), a character count a prompt is told
        (``.replace("{char_limit}", str(limit * 4))``), an argument or a return named for characters."""
        for fn, scope in [(None, self.m.module_scope), *self.m.functions]:
            if fn is not None and char_name(fn.name):
                for value in scope.returns:
                    self.scaled_tokens_in(value)
            for node in own_nodes(fn) if fn is not None else ():
                if isinstance(node, ast.Compare):
                    self.written_budgets(node, scope)
                elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                    for bound in (node.slice.lower, node.slice.upper):
                        held = bound.operand if isinstance(bound, ast.UnaryOp) else bound
                        if isinstance(held, ast.Name):
                            binding = self.scopes.resolve(held, Env(scope))
                            if binding is not None and binding.owner is None:
                                self.scaled_tokens_in(binding.value)
                            # Each value the name is given in the function, not only the last
                            # before the slice: `limit = max_tokens * 4` on a first try,
                            # `limit = int(limit * 0.9)` on the next, then `text[:limit]`.
                            for record in scope.assigns.get(held.id, ()):
                                if record.kind == "=" and record.value is not None and (
                                        binding is None or record.value is not binding.value):
                                    self.scaled_tokens_in(record.value)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        node.func.attr == "replace" and len(node.args) == 2 and \
                        isinstance(node.args[0], ast.Constant) and char_name(str(node.args[0].value)):
                    self.scaled_tokens_in(node.args[1])
                elif isinstance(node, ast.keyword) and node.arg and char_name(node.arg):
                    self.scaled_tokens_in(node.value)

    def written_budgets(self, node: ast.Compare, scope: Scope) -> None:
        """A token count written out and turned into characters by a fixed ratio (``120_000 * 3.5``,
        ``3.5 * 4096 * 0.8``), set against a count of characters: in place, through a name given it
        once, in the function or the module (``MAX_CHAR_BUDGET = 120000 * 3.5``, then
        ``len(diff) >= MAX_CHAR_BUDGET``), or through a parameter whose default is one
        (``budget: int = SNIPPET_TOKEN_BUDGET``, then ``cost <= budget`` where
        ``cost = sum(len(s) for s in snippets)``)."""
        operands = [node.left, *node.comparators]
        if not any(self.is_len_like(o) or self.held_length(o, scope) for o in operands):
            return
        for operand in operands:
            value: ast.expr | None = operand
            holder = None
            if isinstance(operand, ast.Name):
                param = scope.params.get(operand.id)
                if param is not None:
                    value = param.default
                elif operand.id in scope.assigns:  # `max_tokens = 4096 * 3.5 * 0.9`, then `len(reply) > max_tokens`
                    value, holder = _single_value(scope, operand.id), operand.id
                if isinstance(value, ast.Name):
                    holder = value.id
                    value = _single_value(self.m.module_scope, holder)
            if value is not None and self.scaled_count(value, holder):
                self.observe(value)

    def held_length(self, node: ast.expr, scope: Scope) -> bool:
        """A local name every value of which in its function is a count of characters
        (``cost = sum(len(s) for s in snippets)``)."""
        if not isinstance(node, ast.Name) or node.id in scope.params:
            return False
        records = scope.assigns.get(node.id, ())
        return bool(records) and all(r.kind == "=" and r.value is not None and self.is_len_like(r.value)
                                     for r in records)

    def scaled_count(self, value: ast.expr, holder: str | None) -> bool:
        """``count * ratio`` (possibly times a share, ``* 0.8``, inside ``int(...)``): a count of
        1,000 or more written out, scaled by a ratio of characters per token (above 2, at most 6);
        said to be tokens by the ratio itself (not a whole number, ``3.5``), by the name that holds
        it (``SNIPPET_TOKEN_BUDGET``) or by a comment on its lines (``# 80% of max tokens``). Not
        ``1024 * 1024 * 5``: two large factors are a size in bytes."""
        while isinstance(value, ast.Call) and len(value.args) == 1 and \
                (self.m.qualified(value.func) or "").rsplit(".", 1)[-1] in WRAPPERS:
            value = value.args[0]
        ratio = written_scale(value)
        if ratio is None:
            return False
        lines = self.m.lines[max(value.lineno - 2, 0):(value.end_lineno or value.lineno) + 1]
        return not ratio.is_integer() or "token" in (holder or "").lower() or any(
            "#" in line and "token" in line.split("#", 1)[1].lower() for line in lines)

    def number(self, node: ast.expr) -> float | None:
        """A number written in place or held by a module constant (``CHARS_PER_TOKEN = 4``)."""
        found = number_value(node)
        if found is None and isinstance(node, ast.Name):
            for record in self.m.module_scope.assigns.get(node.id, ()):
                if record.kind == "=" and record.value is not None:
                    found = number_value(record.value)
        return found

    def estimates_in(self, node: ast.expr) -> None:
        """Observe each ``len(x) / 4``-style estimate inside an expression used as a token count."""
        if isinstance(node, ast.Call):
            last = (self.m.qualified(node.func) or "").split(".")[-1]
            if last in WRAPPERS and len(node.args) >= 1 and self.is_estimate(node.args[0]):
                self.observe(node)
                return
            if last in (*WRAPPERS, "max", "min", "sum"):
                for arg in node.args:
                    self.estimates_in(arg)
        elif isinstance(node, ast.BinOp):
            if self.is_estimate(node):
                self.observe(node)
                return
            self.estimates_in(node.left)
            self.estimates_in(node.right)
        elif isinstance(node, ast.UnaryOp):
            self.estimates_in(node.operand)
        elif isinstance(node, ast.IfExp):
            self.estimates_in(node.body)
            self.estimates_in(node.orelse)
        elif isinstance(node, ast.GeneratorExp):
            self.estimates_in(node.elt)

    def token_return(self, function: str | None, value: ast.expr, scope: Scope) -> None:
        """What a function named for tokens returns: the estimates in it, or the text's length as the count."""
        self.estimates_in(value)
        self.length_as_count(function, value, scope)

    def length_as_count(self, function: str | None, value: ast.expr, scope: Scope) -> None:
        """``def count_token(self, user_input): return len(user_input)``: a function named for counting
        tokens that returns the length of the text it is given, one token per character, unscaled. A
        parameter named or annotated as a collection (``messages``, ``tokens``, ``list[str]``) is counted
        in items, and a function named for a place in a text (``_leading_token_end``) gives no count."""
        name = (function or "").lower()
        if not isinstance(value, ast.Call) or self.m.qualified(value.func) != "len" or len(value.args) != 1 \
                or not isinstance(value.args[0], ast.Name) or not any(w in name for w in _COUNT_WORDS):
            return
        param = scope.params.get(value.args[0].id)
        given = param.name.lower() if param is not None else ""
        annotation = ast.unparse(param.annotation).replace(" ", "") if param and param.annotation else "str"
        if param is None or token_name(given) or annotation not in _TEXT_ANNOTATIONS or given.endswith("s") \
                or any(fnmatchcase(given, p) for p in LIST_NAMES):
            return
        self.observe(value)

    def is_estimate(self, node: ast.expr) -> bool:
        if not isinstance(node, ast.BinOp):
            return False
        left, right, op = node.left, node.right, node.op
        if isinstance(op, (ast.Div, ast.FloorDiv)):
            number = self.number(right)
            if number is None:
                return False
            if self.is_word_count(left):
                return 0.5 <= number < 1
            # Two characters or fewer per token over-counts every language: a deliberately
            # safe bound, not the English average mistaken for a rule. Up to 8 (a guess low
            # enough to be safe for code and long words) is still a guess.
            return self.is_len_like(left) and 2 < number <= 8
        if isinstance(op, ast.Mult):
            for a, b in ((left, right), (right, left)):
                number = self.number(b)
                if number is None:
                    continue
                if self.is_word_count(a):
                    return 1 < number <= 2
                if self.is_len_like(a):
                    return 0 < number < 0.5
        return False

    def is_len_like(self, node: ast.expr) -> bool:
        """A character count: ``len(x)``, ``sum(len(m) for m in ...)``, ``len(a) + len(b)``,
        ``num_chars``, a file's ``st_size``; not a window (``context_length / 4`` is a share of it)."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.is_len_like(node.left) and self.is_len_like(node.right)
        if isinstance(node, ast.Call):
            qualified = self.m.qualified(node.func)
            if qualified == "len":
                return not self.is_word_count(node)
            if qualified == "sum" and node.args:
                return any(isinstance(n, ast.Call) and self.m.qualified(n.func) == "len"
                           for n in walk(node.args[0]))
            return False
        if isinstance(node, (ast.Name, ast.Attribute)):
            # the attribute itself, also at the end of a call (`path.stat().st_size`)
            last = (node.attr if isinstance(node, ast.Attribute) else node.id).lower()
            if any(word in last for word in WINDOW_WORDS):
                return False
            return "char" in last or last.endswith(("_len", "_length", "_bytes")) or last == "st_size"
        return False

    def is_word_count(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call) and self.m.qualified(node.func) == "len" and node.args:
            inner = node.args[0]
            return (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr == "split")
        if isinstance(node, (ast.Name, ast.Attribute)):
            return "word" in (self.m.dotted(node) or "").rsplit(".", 1)[-1].lower()
        return False

    def observe(self, node: ast.expr) -> None:
        span = self.m.span(node)
        if span not in self.m.observed:
            self.m.observed.add(span)
            self.m.observations.append(Observation("char-token-estimate", span, self.m.code(node)))


# A test that tells the text's language or script apart (`is_chinese_text`, `lang == "zh"`,
# `text.isascii()`, a CJK range in a pattern).
_SCRIPT_TEST = re.compile(r"chinese|cjk|japanese|korean|english|lang|isascii|ascii|unicode|\\u4e00|\u4e00"
                          r"|(?<![a-z])(?:zh|ja|ko)(?![a-z])")


def _script_test(test: ast.expr) -> bool:
    return _SCRIPT_TEST.search(ast.unparse(test).lower()) is not None


def _ratios(value: ast.expr) -> set[float]:
    """The numbers a length is divided or multiplied by in ``value``."""
    found = set()
    for node in walk(value):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mult)):
            number = number_value(node.right) if number_value(node.right) is not None else number_value(node.left)
            if number is not None:
                found.add(number)
    return found


def _elif(branch: ast.If) -> bool:
    return len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If)


def _targets(statement: ast.Assign | ast.AnnAssign, dotted: Callable[[ast.AST | None], str | None]) -> list[str | None]:
    return [dotted(t) for t in statement.targets] if isinstance(statement, ast.Assign) else [dotted(statement.target)]


def _single_value(scope: Scope, name: str) -> ast.expr | None:
    """The value a name is given, when its scope gives it one and only once."""
    records = scope.assigns.get(name, ())
    return records[0].value if len(records) == 1 and records[0].kind == "=" else None
