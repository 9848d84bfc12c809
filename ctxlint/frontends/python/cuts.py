"""Truncation: where text is cut to a length, in the forms code writes it, and which end it keeps.

* a slice of text: ``text[:4000]`` keeps the start, ``text[-4000:]`` the end;
* a cut to words or lines: ``" ".join(text.split()[:500])``;
* a cut to tokens: ``enc.decode(enc.encode(text)[:n])``, ``detokenize(tokens[0:n])``;
* a project function that returns a cut of its parameter (``truncate(text, 200)``): a truncator
  wherever it is called, from a small summary of its returns (``summary``);
* ``textwrap.shorten`` with an empty placeholder.

A cut is to a *length*: a number, a setting, arithmetic on them. A slice at an index the code
found (``text[:text.rindex("\\n")]``, a loop's index) keeps what a search found, not a budget.
A marker written in the same value (``text[:500] + "… [truncated]"``) makes a cut not silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from itertools import pairwise

from ctxlint.frontends.code.summaries import SummaryMemo
from ctxlint.frontends.code.words import MIN_CUT
from ctxlint.frontends.python.cutmarkers import conditional_marker, logged_branch, names_a_marker
from ctxlint.frontends.python.knowledge import LIST_NAMES, RAW_OUTPUT_NAMES, reads_output
from ctxlint.frontends.python.nodes import statement_of, walk
from ctxlint.frontends.python.recuts import cut_again_in_loop
from ctxlint.frontends.python.runners import runs_handed
from ctxlint.frontends.python.shortercuts import already_shorter
from ctxlint.frontends.python.tokenizercalls import TO_TOKENS, wrapped_step
from ctxlint.frontends.python.turncuts import LEAST_TURN, reads_a_turn, spoken
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.frontends.python.wordbudgets import word_budget
from ctxlint.markers import LEAST_SPOKEN, cut_marker, cut_marker_before
from ctxlint.model import Cut, Evidence, EvidenceKind, Role, Segment, Source, SourceKind, Span

# Calls whose result is a position the code found in a value, not a length.
_INDEX_CALLS = {"find", "rfind", "index", "rindex", "search", "match", "start", "end", "span", "bisect",
                "bisect_left", "bisect_right"}
# What a position in a value is called.
_INDEX_NAMES = {"i", "j", "k", "idx", "index", "pos", "position", "start", "end", "offset", "cut", "split_at",
                "boundary", "cutoff", "last_index", "split_index", "split_idx"}
# Methods that turn tokens back into text.
_DECODERS = {"decode", "detokenize", "decode_tokens", "convert_tokens_to_string"}
# Methods a function may return its cut through and still return the cut.
_KEEPING = {"strip", "lstrip", "rstrip"}
# What a conversation's history is called: keeping the start of one drops the newest turns.
HISTORY_NAMES = ("*history*", "*messages", "*msgs", "*turns", "*conversation*", "*dialog*", "*dialogue*",
                 "*transcript*", "*memories", "*memory", "*events", "*chat_log*")
# Messages that are no conversation's turns: a repository's commits, a program's errors and logs.
_NOT_TURNS = ("commit*", "git_*", "error*", "log_*", "warning*", "exception*", "validation_*", "status_*")
# What a whole document, or the context gathered to answer from, is called: what a model is asked
# to read and answer from, not a window around a hit (`context_above`) nor one chunk of it.
DOCUMENT_NAMES = ("context", "*_context", "document", "*_document", "documents", "*_documents", "docs", "*_docs",
                  "*search_results")

# What a table (a pandas DataFrame) is called, and the fewest rows whose head is more than a glance.
_FRAMES = ("df", "*_df", "df_*", "dataframe", "*_dataframe", "frame", "*_frame")
_LEAST_ROWS = 10
ROW_CUT = "row-cut"
# The item that no longer fits a loop's budget, added cut to what is left of it before the loop stops.
LAST_ITEM_CUT = "last-item-cut"
# How a function that keeps the words of a text until a count reaches a budget cuts, and how a
# call of one does.
BUDGET_LOOP = "word-budget"
HELPER_BUDGET_CUT = "helper-budget-cut"
HELPER_CUTS = ("helper-cut", HELPER_BUDGET_CUT)


@dataclass(frozen=True)
class Found:
    """A cut: what it cuts (``subject``), how, and the node that writes it."""

    node: ast.expr
    subject: ast.expr
    cut: Cut
    kept: int | None = None
    budget: str | None = None  # the parameter that gives the length kept


@dataclass(frozen=True)
class Truncator:
    """A function that returns a cut of one of its parameters (its other returns give the
    parameter back whole, or cut at a place found in it)."""

    param: str
    cut: Cut
    span: Span  # where the function cuts
    kept: int | None = None
    budget: str | None = None  # the parameter that gives the length kept


class Cuts(Component):
    def __init__(self, unit: Unit) -> None:
        super().__init__(unit)
        self.summaries: SummaryMemo[Truncator] = SummaryMemo()  # by the function's node

    # ---- the cut a value is ----------------------------------------------------------------------

    def source(self, node: ast.AST, env: Env) -> Source | None:
        """The cut ``node`` makes, as a fact about the value it gives."""
        if not isinstance(node, (ast.Subscript, ast.Call)) or id(node) in self.m.marked:
            return None
        if isinstance(env.scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and cut_again_in_loop(self.m, node, env.scope.node):
            return None  # a first step of the trim a loop after it makes: the loop's cut is the one
        helper = self.helper(node, env) if isinstance(node, ast.Call) else None
        if helper is not None:
            return helper
        found = self.find(node, env)
        if found is None:
            return None
        if found.cut.unit == "characters" and isinstance(env.scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and already_shorter(self.m, node, env.scope.node, found.kept):
            return None  # every caller gives text already cut shorter: this cut never cuts
        content: tuple[Segment, ...] = ()
        if found.cut.how in ("slice", "output-slice") and found.cut.keeps == "start":
            # What is cut, where readable: constraints in it may be what the cut drops (CTX301).
            content = tuple(Segment(Role.SYSTEM, p.span, p.text) for p in self.strings.text(found.subject, env) or ()
                            if p.slot is None)
        return Source(SourceKind.TRUNCATION, " ".join(self.m.code(node).split()), self.m.span(node), content=content,
                      kept=found.kept,
                      cut=found.cut)

    def find(self, node: ast.AST, env: Env) -> Found | None:
        if isinstance(node, ast.Subscript):
            return self.text_slice(node, env)
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        if (self.m.qualified(func) or "") == "textwrap.shorten" and node.args:
            placeholder = next((k.value for k in node.keywords if k.arg == "placeholder"), None)
            if placeholder is not None and self.flow.literal_str(placeholder, env) == "":
                return Found(node, node.args[0], self.cut_of(node.args[0], "characters", "start", "slice"))
            return None
        if isinstance(func, ast.Attribute) and len(node.args) == 1 and not node.keywords:
            if func.attr == "join" and self.flow.literal_str(func.value, env) is not None:
                return self.word_cut(node, env)
            if func.attr in _DECODERS:
                return self.token_cut(node, env)
            if func.attr == "head" and _frame(func.value):
                return self.row_cut(node, env)
        if isinstance(func, ast.Name) and wrapped_step(self, node, env, _DECODERS):  # `decode_tokens(ids[:n])`
            return self.token_cut(node, env)
        return None

    def row_cut(self, call: ast.Call, env: Env) -> Found | None:
        """``df.head(25)``: the first rows of a table, a number of them the code fixes."""
        ok, rows = self.flow.literal(call.args[0], env)
        if not ok or not isinstance(rows, int) or isinstance(rows, bool) or rows < _LEAST_ROWS:
            return None
        assert isinstance(call.func, ast.Attribute)
        return Found(call, call.func.value, Cut("rows", "start", ROW_CUT), rows)

    def text_slice(self, node: ast.Subscript, env: Env) -> Found | None:
        """``text[:n]``, ``text[-n:]``: a string (not a list) cut to at least ``MIN_CUT`` characters."""
        bounds = self.bounds(node, env)
        if bounds is None:
            return None
        keeps, bound, kept = bounds
        parent = self.m.parents.get(id(node))
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in _DECODERS:
            return None  # tokens, cut where they are decoded
        subject = node.value
        if _frame(subject):  # `df[:500]`: the first rows of a table, as `df.head(500)`, not characters
            return Found(node, subject, Cut("rows", keeps, ROW_CUT), kept) \
                if keeps == "start" and kept is not None and kept >= _LEAST_ROWS else None
        last = subject.attr if isinstance(subject, ast.Attribute) else getattr(subject, "id", "")
        # A name said of a collection (`history`) cuts items, unless the value it holds is shown to be
        # text (`history = "...\n".join(commands)`); an unknown one counts where it is put in text.
        if (any(fnmatchcase(last.lower(), p) for p in LIST_NAMES) or not self.placed_in_text(node)) \
                and self.flow.is_list(subject, env) is not False:
            return None
        # A process's streams or a fetched page's raw text, by name: what an agent reads back.
        how = "output-slice" if reads_output(subject, RAW_OUTPUT_NAMES) else \
            LAST_ITEM_CUT if keeps == "start" and fills_what_is_left(node, self.m.parents) else "slice"
        cut = self.cut_of(node.value, "characters", keeps, how)
        if logged_branch(node, bound, self.m.parents):  # `if len(text) > n: log.warning("truncating"); text[:n]`
            cut = replace(cut, logged=True)
        if keeps == "start" and (kept is None or kept >= LEAST_TURN) and \
                reads_a_turn(self.m.parents, node, subject, HISTORY_NAMES):  # `msg["content"][:500]` in a transcript
            cut = replace(cut, turn=True)
        elif keeps == "start" and (kept is None or kept >= LEAST_SPOKEN) and spoken(self.m.parents, node):
            cut = replace(cut, spoken=True)  # `f"User: {user_input[:12000]}"`
        if not cut.document and (_read_whole(subject, env) or _share_of_its_tokens(bound, subject, env) or (
                isinstance(parent, ast.Return) and _names_a_document(env.scope))):
            cut = replace(cut, document=True)
        return Found(node, node.value, cut, kept)

    def bounds(self, node: ast.Subscript, env: Env, least: int = MIN_CUT) -> tuple[str, ast.expr, int | None] | None:
        """Which end a slice keeps, the length it keeps and its value when known; None for a
        slice that is no cut to a length (``[1:]``, ``[:-1]``, ``[:i]`` at a found index)."""
        cut = node.slice
        if not isinstance(cut, ast.Slice) or cut.step is not None:
            return None
        lower, upper = cut.lower, cut.upper
        if upper is not None and (lower is None or (isinstance(lower, ast.Constant) and lower.value == 0)):
            if isinstance(upper, ast.UnaryOp):
                return None  # text[:-1]: a fixed tail dropped, not a length kept
            keeps, bound = "start", upper
        elif upper is None and isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
            keeps, bound = "end", lower.operand
        elif upper is None and isinstance(lower, ast.Constant) and isinstance(lower.value, int) and lower.value < 0:
            keeps, bound = "end", ast.Constant(-lower.value)
        else:
            return None
        ok, value = self.flow.literal(bound, env)
        if ok:
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                return None
            return keeps, bound, value
        return (keeps, bound, None) if self.is_length(bound, env) else None

    def is_length(self, bound: ast.expr, env: Env, depth: int = 0) -> bool:
        """A number of characters (a setting, arithmetic on settings), not a position the code
        found (``text.rindex("\\n")``, ``match.end()``, ``len(prefix)``, a loop's index)."""
        if isinstance(bound, ast.Call) and (self.m.qualified(bound.func) or "") == "len":
            # text[:len(prefix)] is a place; len(" ".join(words[:500])) is a word budget, whatever
            # the text measured was read from (`pages[i]`)
            return any(isinstance(s, ast.Subscript) and isinstance(s.slice, ast.Slice) for s in walk(bound))
        for part in walk(bound):
            if isinstance(part, ast.Call):
                name = part.func.attr if isinstance(part.func, ast.Attribute) else getattr(part.func, "id", "")
                if name in _INDEX_CALLS:
                    return False
            elif isinstance(part, ast.Name) and part.id.lower() in _INDEX_NAMES:
                return False  # text[:i], text[:split_at]: a place, not a budget
            elif isinstance(part, ast.Name) and depth < 3:
                binding = self.scopes.resolve(part, env)
                if binding is None:
                    if self.loop_target(part.id, env):
                        return False
                elif binding.owner is None:
                    # A name that is the whole bound may hold `len(prefix)`; inside arithmetic a
                    # length (`budget - len(used)`) is what is left of a budget.
                    value = binding.value if part is bound else _no_len(binding.value)
                    if self.m.follow(binding.value, self.is_length, value, binding.env, depth + 1) is False:
                        return False
        return True

    @staticmethod
    def loop_target(name: str, env: Env) -> bool:
        """A name bound by a loop or an unpacking (``for i, msg in enumerate(messages)``)."""
        scope: Scope | None = env.scope
        while scope is not None:
            if name in scope.params:
                return False
            records = scope.assigns.get(name)
            if records:
                return any(r.kind == "=" and r.value is None for r in records)
            scope = scope.parent
        return False

    def word_cut(self, call: ast.Call, env: Env) -> Found | None:
        """``" ".join(text.split()[:500])``: the first (or last) words or lines of a text."""
        sliced = self.deref_slice(call.args[0], env)
        if sliced is None:
            return None
        node, inner_env = sliced
        splitter = node.value
        binding = self.scopes.resolve(splitter, inner_env) if isinstance(splitter, ast.Name) else None
        if binding is not None and not binding.extras:
            splitter, inner_env = binding.value, binding.env
        if not (isinstance(splitter, ast.Call) and isinstance(splitter.func, ast.Attribute)
                and splitter.func.attr in ("split", "splitlines")):
            return None
        separator = self.flow.literal_str(splitter.args[0], inner_env) if splitter.args else None
        unit = "lines" if splitter.func.attr == "splitlines" or separator == "\n" else "words"
        bounds = self.bounds(node, inner_env)
        if bounds is None:
            return None
        return Found(call, splitter.func.value, self.cut_of(splitter.func.value, unit, bounds[0], "word-cut"),
                     bounds[2])

    def token_cut(self, call: ast.Call, env: Env) -> Found | None:
        """``enc.decode(enc.encode(text)[:n])``: text cut to a number of tokens."""
        if isinstance(call.args[0], ast.Name) and env.scope.positional == [call.args[0].id] and \
                call in env.scope.returns:
            return None  # a wrapper's own decoding (`return encoding.decode(tokens)`): its call is the cut
        sliced = self.deref_slice(call.args[0], env)
        if sliced is None:
            return None
        node, inner_env = sliced
        bounds = self.bounds(node, inner_env)
        if bounds is None:
            return None
        subject = node.value
        if isinstance(subject, ast.Call) and subject.args and (isinstance(subject.func, ast.Attribute) and \
                subject.func.attr in TO_TOKENS or wrapped_step(self, subject, inner_env, TO_TOKENS)):
            subject = subject.args[0]
        return Found(call, subject, self.cut_of(subject, "tokens", bounds[0], "token-cut"), bounds[2])

    def deref_slice(self, node: ast.expr, env: Env) -> tuple[ast.Subscript, Env] | None:
        """A slice, written in place or held by a local name (``tokens = ids[:n]``)."""
        if isinstance(node, ast.Name):
            binding = self.scopes.resolve(node, env)
            if binding is None or binding.extras or binding.owner is not None:
                return None
            node, env = binding.value, binding.env
        return (node, env) if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) else None

    def cut_of(self, subject: ast.expr, unit: str, keeps: str, how: str) -> Cut:
        name = (self.m.dotted(subject) or "").rsplit(".", 1)[-1].lower()
        history = bool(name) and any(fnmatchcase(name, p) for p in HISTORY_NAMES) \
            and not any(fnmatchcase(name, p) for p in _NOT_TURNS)
        return Cut(unit, keeps, how, history=history,
                   document=bool(name) and any(fnmatchcase(name, p) for p in DOCUMENT_NAMES))

    def placed_in_text(self, node: ast.expr) -> bool:
        """A value written straight into text (an f-string field, a ``.format`` argument, one
        side of ``+`` with a string): text, whatever its name says."""
        parent = self.m.parents.get(id(node))
        if isinstance(parent, ast.FormattedValue):
            return True
        if isinstance(parent, ast.keyword):
            parent = self.m.parents.get(id(parent))
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "format":
            return node is not parent.func
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add):
            other = parent.right if parent.left is node else parent.left
            return isinstance(other, ast.JoinedStr) or (isinstance(other, ast.Constant)
                                                         and isinstance(other.value, str))
        return False

    # ---- project functions that cut ---------------------------------------------------------------

    def helper(self, call: ast.Call, env: Env) -> Source | None:
        """A call of a project function that returns a cut of the argument it is given."""
        found = self.helper_cut(call, env)
        if found is None:
            return None
        fn, truncator, argument, params = found
        how = HELPER_BUDGET_CUT if truncator.cut.how == BUDGET_LOOP else "helper-cut"
        cut = self.cut_of(argument, truncator.cut.unit, truncator.cut.keeps, how)
        kept = truncator.kept
        budget = _argument(call, truncator.budget, params) if truncator.budget else None
        if budget is not None:
            ok, value = self.flow.literal(budget, env)
            kept = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
        where = truncator.span
        step = Evidence(EvidenceKind.FLOW, f"`{fn.name}` returns a cut of its `{truncator.param}` "
                        f"({where.path}:{where.line})", where)
        return Source(SourceKind.TRUNCATION, self.m.code(call), self.m.span(call), kept=kept, cut=cut,
                      flow=(step,))

    def helper_cut(self, call: ast.Call, env: Env
                   ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, Truncator, ast.expr, list[str]] | None:
        """The truncator ``call`` runs, the summary of it, the argument it cuts and the parameters the
        call's arguments fill."""
        found = self.callees.remembered_callee(call, env)
        if found is None:
            return None
        owner, fn, scope, method = found
        assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(scope, Scope)
        cuts = owner.cuts if owner is not None else self  # type: ignore[attr-defined]
        truncator = cuts.summary(fn, scope)
        params = scope.positional[1:] if method and scope.positional[:1] in (["self"], ["cls"]) else scope.positional
        if truncator is None:  # `run_step("bound", url, self.clip, text)`, which runs `self.clip(text)` in a thread
            position = runs_handed(fn, params) if owner is None and len(call.args) > 1 else None
            if position is None or len(call.args) <= position + 1 or any(isinstance(a, ast.Starred) for a in call.args):
                return None
            made = ast.copy_location(ast.Call(call.args[position], call.args[position + 1:], []), call)
            self.m.probes.append(made)  # kept alive: its id stays its own in the analysis's tables
            return self.helper_cut(made, env)
        argument = _argument(call, truncator.param, params)
        return None if argument is None else (fn, truncator, argument, params)

    def summary(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> Truncator | None:
        """Whether ``fn`` returns a cut of one of its parameters: every return is the parameter
        itself, a cut of it to a length, or a slice of it at a place found in it, and at least one
        is a cut to a length."""
        return self.summaries.get(id(fn), lambda: self._summary(fn, scope), self.m.cut_short)

    def _summary(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> Truncator | None:
        env = Env(scope)
        found: Truncator | None = None
        for returned in _branches(scope.returns):
            value, value_env = self.unwrap(returned, env)
            if isinstance(value, ast.Name) and value.id in scope.params:
                continue  # short enough: given back whole
            if isinstance(value, ast.Constant) and not value.value:
                continue  # nothing given: nothing to give back (`if not stream: return ""`)
            cut = self.find(value, value_env) or self.accumulated(fn, scope, _stripped(returned))
            if cut is None or id(cut.node) in self.m.marked:
                if (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice)
                        and isinstance(value.value, ast.Name) and value.value.id in scope.params):
                    continue  # cut at a place found in it (a sentence's end)
                return None
            subject = cut.subject  # a local name given the parameter (`text = (body or "").strip()`) is it
            subject = self.unwrap(subject, value_env)[0] if isinstance(subject, ast.Name) else subject
            if not (isinstance(subject, ast.Name) and subject.id in scope.params) or (
                    found is not None and found.param != subject.id):
                return None
            found = found or Truncator(subject.id, cut.cut, self.m.span(cut.node), cut.kept, cut.budget)
        return found

    def accumulated(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, kept: ast.expr) -> Found | None:
        """A text built from the words (or lines) of a parameter in a loop that stops at a budget
        (``wordbudgets.word_budget``): the start of the text, with nothing to say the rest was left out."""
        found = word_budget(fn, scope, kept, self.flow.literal_str)
        if found is None:
            return None
        budget, text, by_words, limit = found
        return Found(budget, ast.Name(text, ast.Load()), Cut("words" if by_words else "lines", "start", BUDGET_LOOP),
                     budget=limit)

    def unwrap(self, value: ast.expr, env: Env) -> tuple[ast.expr, Env]:
        """A returned value through ``.strip()`` and local names (``cut = text[:n]; return cut``)."""
        for _ in range(4):
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                    value.func.attr in _KEEPING and not value.args:
                value = value.func.value
            elif isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and len(value.values) == 2 \
                    and isinstance(value.values[1], ast.Constant) and not value.values[1].value:
                value = value.values[0]  # `body or ""`: the value, or nothing
            elif isinstance(value, ast.Name) and value.id not in env.scope.params:
                binding = self.scopes.resolve(value, env)
                if binding is None or binding.extras or binding.owner is not None:
                    break
                value, env = binding.value, binding.env
            else:
                break
        return value, env

    # ---- markers in the same value ----------------------------------------------------------------

    def mark(self, node: ast.BinOp | ast.JoinedStr, env: Env) -> None:
        """Cuts with a marker beside them in the same value (``text[:500] + "…"``,
        ``f"{text[:500]}… [truncated]"``, ``"[earlier lines omitted]\n" + log[-2000:]``) are not silent."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = node.left
            while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add):
                left = left.right
            if isinstance(left, (ast.Subscript, ast.Call)):
                following = self.strings.text(node.right, env)
                if (following and following[0].slot is None and cut_marker(following[0].text)) or \
                        names_a_marker(node.right) or conditional_marker(node.right):
                    self.m.marked.add(id(left))
            if isinstance(node.right, (ast.Subscript, ast.Call)):
                before = node.left.right if isinstance(node.left, ast.BinOp) else node.left
                preceding = self.strings.text(node.left, env)
                if (preceding and preceding[-1].slot is None and cut_marker_before(preceding[-1].text)) or \
                        names_a_marker(before) or conditional_marker(before, cut_marker_before):
                    # `head + TRUNCATION_MARKER + text[-n:]`, `("…" if len(log) > n else "") + log[-n:]`
                    self.m.marked.add(id(node.right))
        elif isinstance(node, ast.JoinedStr):
            for before, after in pairwise(node.values):
                for part, text, marks in ((before, after, cut_marker), (after, before, cut_marker_before)):
                    # the cheap test of the neighbour first: a held cut is looked up only beside a marker
                    if not isinstance(part, ast.FormattedValue) or not (
                            (isinstance(text, ast.Constant) and isinstance(text.value, str) and marks(text.value))
                            or (isinstance(text, ast.FormattedValue) and (  # `{"..." if len(x) > n else ""}`
                                names_a_marker(text.value) or conditional_marker(text.value, marks)))):
                        continue
                    value = part.value
                    if isinstance(value, ast.IfExp):  # `{text[-n:] if n > 0 else ""}`: the cut when there is one
                        value = value.body
                    cut = value if isinstance(value, (ast.Subscript, ast.Call)) else self.held_cut(value, env)
                    if cut is not None:
                        self.m.marked.add(id(cut))

    def held_cut(self, node: ast.expr, env: Env) -> ast.expr | None:
        """The cut a local name holds when this is the one place its function reads it
        (``head = " ".join(words[:n])`` then ``return f"{head} [rest omitted]"``): marked here,
        it reaches nothing unmarked."""
        if not isinstance(node, ast.Name) or env.scope.kind != "function":
            return None
        binding = self.scopes.resolve(node, env)
        if binding is None or binding.extras or binding.owner is not None or binding.env.scope is not env.scope \
                or not isinstance(binding.value, (ast.Subscript, ast.Call)):
            return None
        reads = sum(1 for n in ast.walk(env.scope.node) if isinstance(n, ast.Name) and n.id == node.id
                    and isinstance(n.ctx, ast.Load))
        return binding.value if reads == 1 else None


def _frame(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return any(fnmatchcase(name.lower(), p) for p in _FRAMES)


def _read_whole(subject: ast.expr, env: Env) -> bool:
    """A local name its function gives a file's whole text (``content = f.read()``,
    ``text = path.read_text()``): a document, whatever it is called."""
    if not isinstance(subject, ast.Name) or env.scope.kind != "function":
        return False
    return any(isinstance(r.value, ast.Call) and isinstance(r.value.func, ast.Attribute) and not r.value.args
               and r.value.func.attr in ("read", "read_text") for r in env.scope.assigns.get(subject.id, ()))


def _share_of_its_tokens(bound: ast.expr, subject: ast.expr, env: Env) -> bool:
    """A bound the function works out from the text's own size in tokens
    (``index = int(len(text) * (window - reserve) / len(enc.encode(text)))``, through its local
    names): the code measured the whole text against the model's window and keeps what fits, so
    the text was meant to be read whole."""
    if env.scope.kind != "function":
        return False
    cut = ast.unparse(subject)
    values: list[ast.expr] = [bound]
    seen: set[str] = set()
    while values:
        value = values.pop()
        for node in ast.walk(value):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "encode", "tokenize") and node.args and ast.unparse(node.args[0]) == cut:
                return True
            if isinstance(node, ast.Name) and node.id not in seen and len(seen) < 8:
                seen.add(node.id)
                values.extend(r.value for r in env.scope.assigns.get(node.id, ()) if r.value is not None)
    return False


def _names_a_document(scope: Scope) -> bool:
    """A function named for the document or context it gives back (``_clean_text_context``,
    ``load_documents``): what it returns is that, whatever its local name."""
    fn = scope.node
    return scope.kind == "function" and isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        fnmatchcase(fn.name.lower().lstrip("_"), p) for p in DOCUMENT_NAMES)


def _argument(call: ast.Call, param: str, params: list[str]) -> ast.expr | None:
    """The value ``call`` gives the parameter ``param``, by keyword or by position."""
    argument = next((k.value for k in call.keywords if k.arg == param), None)
    if argument is None and param in params:
        index = params.index(param)
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        argument = positional[index] if index < len(positional) else None
    return argument


def _branches(returns: list[ast.expr]) -> list[ast.expr]:
    """Each value a return can give: both sides of ``text[:n] if n is not None else text``."""
    found: list[ast.expr] = []
    stack = list(reversed(returns))
    while stack:
        value = stack.pop()
        if isinstance(value, ast.IfExp):
            stack += [value.orelse, value.body]
        else:
            found.append(value)
    return found


def _stripped(value: ast.expr) -> ast.expr:
    """A returned value without the ``.strip()`` calls around it."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _KEEPING \
            and not value.args:
        value = value.func.value
    return value


def _no_len(value: ast.expr) -> ast.expr:
    """``len(x)`` stands for a count inside arithmetic: a constant in its place for ``is_length``."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "len":
        return ast.Constant(0)
    return value


def fills_what_is_left(node: ast.Subscript, parents: dict[int, ast.AST]) -> bool:
    """``parts.append(block[:limit - used]); break``: in a loop that adds its items while a running
    total (``used += len(block)``) stays within a budget, the item that does not fit is added cut to
    what is left of the budget, mid-text, and the loop stops."""
    bound = node.slice.upper if isinstance(node.slice, ast.Slice) else None
    if not (isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Sub)):
        return False
    statement = statement_of(parents, node)
    owner = parents.get(id(statement)) if statement is not None else None
    if not isinstance(owner, ast.If) or not (isinstance(statement, ast.AugAssign) or (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr in ("append", "extend"))):
        return False
    branch = owner.body if statement in owner.body else owner.orelse
    if not isinstance(branch[-1], ast.Break):
        return False
    loop = parents.get(id(owner))
    while loop is not None and not isinstance(loop, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                                                     ast.AsyncFunctionDef)):
        loop = parents.get(id(loop))
    total = ast.unparse(bound.right)
    return isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and any(
        isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and ast.unparse(n.target) == total
        for n in ast.walk(loop))
