"""Project functions that cut the text they are given, and the calls of them.

A function of the tree is a *truncator* when every return gives back one of its parameters, whole
(``if (tokens.length <= max) return prompt;``) or cut to a length, and at least one cuts it:

* to lines or words: ``lines.slice(start).join("\\n")`` where ``lines = prompt.split("\\n")``;
* to tokens: ``enc.decode(tokens.slice(0, max))`` where ``tokens = enc.encode(prompt)``, whatever the
  tokenizer calls its two directions (``tokensFromString`` / ``bytesFromTokens``);
* to characters: ``text.slice(0, limit)`` of a string parameter;
* through another truncator given that parameter (``return pruneStringFromTop(model, max, prompt)``).

A call of one is a cut wherever its result goes (``pruneLinesFromTop(prefix, budget, model)``), as
the Python front-end's ``cuts.summary`` reads its functions. The length must be a budget: another
parameter, a number, or a value the function works out; a cut at a place found in the text
(``text.slice(0, text.indexOf("\\n"))``) keeps what a search found, and is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ctxlint.frontends.code.summaries import SummaryMemo
from ctxlint.frontends.typescript.knowledge import MAX_RESOLVE, Node, snake
from ctxlint.frontends.typescript.logged_cuts import logged_only
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, Function, Scope
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind, Span

_SLICES = ("slice", "substring", "substr")
_KEEPING = ("trim", "trimEnd", "trimStart", "trimRight", "trimLeft")
# A bound computed from a place found in the text: a cut there keeps what a search found.
_FOUND = ("indexOf", "lastIndexOf", "search(", "findIndex", "findLastIndex")
# A tokenizer's two directions, by what a method's name says it makes: text to tokens (`encode`,
# `tokenize`, `tokensFromString`, `textToTokens`) and tokens to text (`decode`, `detokenize`,
# `bytesFromTokens`, `tokensToText`); a project's own token manager names them its way.
_TO_TOKENS = re.compile(r"^(?:encode|tokenize)(?:_|$)|^tokens?_from_|_to_tokens?$")
_FROM_TOKENS = re.compile(r"^(?:decode|detokenize)(?:_|$)|_from_tokens?$|^tokens?_to_")
# How many truncators deep a call is followed (``pruneRawPromptFromTop`` -> ``pruneStringFromTop``).
_MAX_DEPTH = 4
# The longest call a message quotes whole.
_LONGEST_DETAIL = 120


@dataclass(frozen=True)
class Truncator:
    """A function that returns a cut of its parameter number ``index`` (``param``)."""

    index: int
    param: str
    cut: Cut
    span: Span  # where the function (or the truncator it calls) cuts
    in_tokens: bool  # sized in tokens, the model's unit: it cuts tokens, a parameter names them, or it encodes
    # the text it cuts (`encoder.encode(prompt).length <= contextSize`)


@dataclass(eq=False)
class Truncators:
    m: Module
    names: Names
    # By the function's node, with how deep the reading was when it was worked out: a function found
    # to be no truncator only because the reading was already deep is read again from less deep.
    summaries: SummaryMemo[Truncator] = field(default_factory=SummaryMemo)

    def at_call(self, call: Node, env: Env) -> Source | None:
        """``pruneLinesFromTop(content, budget, model)``: a call of a truncator of the module, or
        of one imported from the tree, given a value: the value, cut."""
        truncator = self.called(call, env.scope)
        return None if truncator is None else self.source(call, truncator)

    def unsent_cuts(self, context: bool) -> list[Observation]:
        """Calls of a truncator sized in tokens that no request of the module is seen to include (the
        check leaves out those a request does): in a module that sends requests or defines tools,
        what the Python front-end calls a ``token-sized-cut``; elsewhere a ``far-cut``, or a
        ``logged-cut`` where the code tests the budget again and only logs that it cut."""
        found = []
        for call, scope in self.m.calls:
            truncator = self.called(call, scope) if call.id not in self.m.marked else None
            if truncator is None or not truncator.in_tokens or self.returned_by_truncator(call, scope) \
                    or self.own_text(self.m.args(call)[truncator.index], scope):
                continue  # the program's own text; or a truncator's own cut, reported where it is called
            source = self.source(call, truncator)
            logged = None if context else logged_only(self.m, call, truncator.index)
            if logged is not None:  # the code knows it cut, and says so to its log only
                found.append(Observation("logged-cut", source.span, "no request of this module is seen to send it",
                                         source=replace(source, flow=(*source.flow, logged))))
                continue
            found.append(Observation("token-sized-cut" if context else "far-cut", source.span,
                                     "no request of this module is seen to send it", source=source))
        return found

    def own_text(self, node: Node, scope: Scope) -> bool:
        """A string the program writes, or a name bound to one (`const prompt = "Line 1\\nLine 2"`)."""
        node = self.m.unwrap(node)
        if node.type == "identifier":
            binding = self.names.resolve(node, Env(scope))
            node = self.m.unwrap(binding.value) if binding is not None and not binding.extras else node
        return node.type == "string" or (node.type == "template_string" and not any(
            c.type == "template_substitution" for c in node.named_children))

    def returned_by_truncator(self, call: Node, scope: Scope) -> bool:
        """``return pruneStringFromTop(model, max, prompt)`` in a function that is a truncator itself."""
        if not any(self.m.unwrap(r).id == call.id for r in scope.returns):
            return False
        function = self.m.function_of(scope.node)
        if function is None or (function.node.parent is not None and function.node.parent.type == "arguments"):
            return False  # a callback (`.map(c => trimPrompt(c, n))`): no call of it is read as a cut
        return self.summary(function, 0) is not None

    def called(self, call: Node, scope: Scope) -> Truncator | None:
        """The truncator ``call`` calls, given the value it cuts."""
        found = self.callee(call, scope)
        if found is None:
            return None
        owner, function = found
        truncator = owner.summary(function, 0)
        args = self.m.args(call)
        if truncator is None or len(args) <= truncator.index or args[truncator.index].type == "spread_element":
            return None
        return truncator

    def source(self, call: Node, truncator: Truncator) -> Source:
        where = truncator.span
        name = self.m.code(self.m.unwrap(self.m.field(call, "function")))
        step = Evidence(EvidenceKind.FLOW, f"`{name}` returns a cut of its `{truncator.param}` "
                        f"({where.path}:{where.line})", where)
        cut = Cut(truncator.cut.unit, truncator.cut.keeps, "helper-cut", truncator.cut.history)
        detail = " ".join(self.m.code(call).split())
        if len(detail) > _LONGEST_DETAIL:  # a whole prompt written in the call: the message names the call
            detail = f"{name}(…)"
        return Source(SourceKind.TRUNCATION, detail, self.m.span(call), cut=cut, flow=(step,))

    def callee(self, call: Node, scope: Scope | None) -> tuple[Truncators, Function] | None:
        """The function a call by plain name runs: the module's own, or one a relative import names."""
        found = self.names.project_function(call, scope)
        if found is None:
            return None
        owner, function = found
        return (self if owner is None else owner.truncators), function

    def summary(self, function: Function, depth: int) -> Truncator | None:
        """Whether ``function`` returns a cut of one of its parameters, asked ``depth`` calls in;
        kept per depth, so an answer does not depend on what was asked before (code/summaries.py)."""
        return self.summaries.get((function.node.id, depth), lambda: self._summary(function, depth), lambda: False)

    def _summary(self, function: Function, depth: int) -> Truncator | None:
        scope = function.scope
        found: Truncator | None = None
        for returned in scope.returns:
            value = self.m.unwrap(returned)
            if value.type == "identifier" and self.m.code(value) in scope.params:
                continue  # short enough: given back whole
            if value.type == "string" and self.m.code(value) in ('""', "''", "``"):
                continue  # nothing given, nothing back (`if (!prompt) return "";`)
            again = self.recursive(value, function)
            if again == []:
                continue  # itself given its parameters whole: returns what its other returns do
            # `return trimPrompt(prompt.slice(0, n), size)`: a cut, which the next call may cut again
            cut = self.cut_of(value, scope, depth) if again is None else \
                self.cut_of(again[0], scope, depth) or self.first_piece(again[0], scope)
            if cut is None or (found is not None and found.param != cut[0]):
                return None
            param, unit, keeps, span = cut
            in_tokens = unit == "tokens" or any("token" in p.lower() for p in scope.positional) \
                or any(_TO_TOKENS.search(snake(method)) for method in re.findall(
                    rf"\.(\w+)\(\s*{re.escape(param)}\s*\)", self.m.code(function.node)))
            found = found or Truncator(scope.positional.index(param), param, Cut(unit, keeps), span, in_tokens)
        return found

    def recursive(self, value: Node, function: Function) -> list[Node] | None:
        """A call of ``function`` by itself: its arguments that are no parameter given on whole (a
        cut of one, as the next call sees it); None for any other value."""
        if value.type != "call_expression":
            return None
        found = self.callee(value, function.scope)
        if found is None or found[1] is not function:
            return None
        given = [self.m.unwrap(a) for a in self.m.args(value)]
        return [a for a in given if a.type not in ("number", "binary_expression")  # a budget, worked out
                and (a.type != "identifier" or self.param_of(a, function.scope) is None)][:1]

    def first_piece(self, node: Node, scope: Scope) -> tuple[str, str, str, Span] | None:
        """``splitter.splitText(prompt)[0] ?? ""``: the first piece of a parameter split to a size."""
        node = self.m.unwrap(self.local(node, scope))
        if node.type == "binary_expression" and self.m.code(self.m.field(node, "operator")) in ("??", "||"):
            node = self.m.unwrap(self.m.field(node, "left"))
        index = self.m.field(node, "index") if node.type == "subscript_expression" else None
        split = self.m.unwrap(self.m.field(node, "object")) if index is not None else None
        callee = self.m.unwrap(self.m.field(split, "function")) if split is not None \
            and split.type == "call_expression" else None
        if index is None or self.m.code(index) != "0" or callee is None or callee.type != "member_expression" \
                or not self.m.code(self.m.field(callee, "property")).lower().startswith("split") \
                or self.m.code(self.m.field(callee, "property")) == "split":
            return None  # `text.split("\n")[0]`: a first line, found in the text
        args = self.m.args(split)
        param = self.param_of(args[0], scope) if args else None
        return None if param is None else (param, "characters", "start", self.m.span(node))

    def cut_of(self, node: Node, scope: Scope, depth: int) -> tuple[str, str, str, Span] | None:
        """The parameter ``node`` is a cut of, the unit and the end kept, and where it is cut."""
        node = self.m.unwrap(self.local(node, scope))
        if node.type != "call_expression" or depth > _MAX_DEPTH:
            return None
        callee = self.m.unwrap(self.m.field(node, "function"))
        args = self.m.args(node)
        if callee is not None and callee.type == "identifier":
            found = self.callee(node, scope)
            if found is None:
                return None
            owner, function = found
            inner = owner.summary(function, depth + 1)
            if inner is None or len(args) <= inner.index:
                return None
            given = self.param_of(args[inner.index], scope)
            return None if given is None else (given, inner.cut.unit, inner.cut.keeps, inner.span)
        if callee is None or callee.type != "member_expression":
            return None
        method = self.m.code(self.m.field(callee, "property"))
        receiver = self.m.field(callee, "object")
        if method in _KEEPING and not args:
            return self.cut_of(receiver, scope, depth)
        if method == "join":
            return self.pieces_cut(receiver, scope, "split", ("lines", "words"))
        if _FROM_TOKENS.search(snake(method)) and len(args) == 1:
            return self.pieces_cut(args[0], scope, "encode", ("tokens",))
        if method in _SLICES:
            param = self.param_of(receiver, scope)
            annotation = scope.params.get(param or "", "")
            keeps = self.keeps(node, args, scope)
            if param is None or keeps is None or not (annotation.startswith("string") or not annotation):
                return None
            return param, "characters", keeps, self.m.span(node)
        return None

    def pieces_cut(self, node: Node, scope: Scope, splitter: str, units: tuple[str, ...]
                   ) -> tuple[str, str, str, Span] | None:
        """``lines.slice(start)`` where ``lines = text.split("\\n")`` (or ``tokens.slice(0, n)`` where
        ``tokens = enc.encode(text)``): a slice of the pieces of a parameter."""
        node = self.m.unwrap(self.local(node, scope))
        callee = self.m.unwrap(self.m.field(node, "function")) if node.type == "call_expression" else None
        if callee is None or callee.type != "member_expression" or self.m.code(self.m.field(callee, "property")) \
                not in _SLICES:
            return None
        keeps = self.keeps(node, self.m.args(node), scope)
        pieces = self.m.unwrap(self.local(self.m.field(callee, "object"), scope))
        split = self.m.unwrap(self.m.field(pieces, "function")) if pieces.type == "call_expression" else None
        made_by = self.m.code(self.m.field(split, "property")) if split is not None \
            and split.type == "member_expression" else ""
        if keeps is None or not (made_by == splitter or splitter == "encode" and _TO_TOKENS.search(snake(made_by))):
            return None
        split_args = self.m.args(pieces)
        if splitter == "split":
            if len(split_args) != 1:
                return None
            param = self.param_of(self.m.field(split, "object"), scope)
            unit = "lines" if "\\n" in self.m.code(split_args[0]) else "words"
        else:
            param = self.param_of(split_args[0], scope) if split_args else None
            unit = "tokens"
        return None if param is None or unit not in units else (param, unit, keeps, self.m.span(node))

    def keeps(self, node: Node, args: list[Node], scope: Scope) -> str | None:
        """Which end ``x.slice(...)`` keeps: "start" for ``(0, n)``, "end" for ``(k)`` or ``(-n)``;
        None for a middle part, a cut at a place found in the text, or no budget at all."""
        code = self.m.code(node)
        if not args or len(args) > 2 or any(word in code for word in _FOUND):
            return None
        first = self.m.unwrap(args[0])
        budgeted = len(scope.positional) > 1  # a value the function works out from its other parameters
        if len(args) == 1:  # `slice(-n)`, or `slice(k)` for a k worked out from the budget
            negative = first.type == "unary_expression" and self.m.code(first).startswith("-")
            return "end" if negative or (first.type != "number" and budgeted) else None
        if not (first.type == "number" and self.m.code(first) == "0"):
            return None
        return "start" if self.m.unwrap(args[1]).type == "number" or budgeted else None

    def param_of(self, node: Node, scope: Scope) -> str | None:
        node = self.m.unwrap(self.local(node, scope))
        name = self.m.code(node) if node.type == "identifier" else None
        return name if name in scope.positional else None

    def local(self, node: Node, scope: Scope) -> Node:
        """A name bound once in the function to a value: that value (``const lines = text.split(...)``)."""
        node = self.m.unwrap(node)
        for _ in range(MAX_RESOLVE):
            if node.type != "identifier" or self.m.code(node) in scope.params:
                return node
            records = scope.assigns.get(self.m.code(node)) or []
            if len(records) != 1 or records[0].kind != "=" or records[0].value is None or records[0].key is not None:
                return node
            node = self.m.unwrap(records[0].value)
        return node
