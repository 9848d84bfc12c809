"""Data flow: the facts of a value (names it reads, calls it makes, where its content comes from)
and literal values (dict entries and list items are in ``containers.py``, the iteration order
of collections in ``ordering.py``)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from ctxlint.frontends.code.guard import bound_list
from ctxlint.frontends.code.literals import literal_dict, literal_list
from ctxlint.frontends.code.pieces import Facts, add_new
from ctxlint.frontends.python.callees import item_call
from ctxlint.frontends.python.carriers import number_parameter
from ctxlint.frontends.python.data_parts import built_part_without_text, encodes, sent_in_its_own_role, unlabelled_in
from ctxlint.frontends.python.delimiters import delimited, wrapped_by_adds
from ctxlint.frontends.python.knowledge import (
    DROPS_NAMES,
    KEEP_TEXT,
    LIST_NAMES,
    LOCATION_CALLS,
    LOCATOR,
    MAKE_TEXT,
    MAX_DEPTH,
    MEASURES,
    MEASURING_METHODS,
    PICKS,
    READ_TEXT,
    SERIALIZERS,
    STRING_NAMES,
    TEXT_ATTRIBUTES,
    YAML_DUMPERS,
    hands_a_system_prompt,
)
from ctxlint.frontends.python.literals import clean
from ctxlint.frontends.python.lookups import looked_up
from ctxlint.frontends.python.nodes import abstract, children
from ctxlint.frontends.python.ordering import COMPREHENSIONS, Ordering
from ctxlint.frontends.python.ownfields import own_field
from ctxlint.frontends.python.renders import filled_elsewhere, template_text
from ctxlint.frontends.python.unit import Component, Positioned, Unit
from ctxlint.frontends.python.unread_templates import headed_fields
from ctxlint.frontends.python.values import Assign, Binding, Env, Scope, unpacked_position
from ctxlint.model import Evidence, EvidenceKind, Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.scopes import FunctionNode

# Facts of these kinds say what a value's text is; a call that only measures its argument
# (`len(page)`) does not pass them on.
# What an argument brings no call's result: its content, a cut of it, or its being a model's answer
# (what a search returns for a query the model wrote is no answer of the model).
_CONTENT = (SourceKind.UNTRUSTED, SourceKind.TRUNCATION, SourceKind.MODEL_OUTPUT)
_NAMED = (ast.Name, ast.Attribute, ast.Subscript)

# Names of values that locate a file, and the calls that give a location back as text.
_FILE_NAME = re.compile(r"(^|_)(path|file|filename|filepath)$")
_PATH_HELPERS = ("os.path.", "pathlib.", "Path", "str", "repr", "print", "shlex.", "urllib.parse.")
_OPENS = {"open", "io.open", "codecs.open", "gzip.open", "bz2.open", "wave.open", "aiofiles.open"}
Entry = tuple[ast.expr, Env, Positioned]
# The most items one list value may have; beyond it the list is one we cannot read (`M = M + M`
# forty times would otherwise double it at every step).
MAX_ITEMS = 2000


@dataclass(frozen=True)
class Region:
    """A stretch of source with no node of its own (a dict's ``key: value``)."""

    lineno: int
    col_offset: int
    end_lineno: int | None
    end_col_offset: int | None

    @classmethod
    def between(cls, first: Positioned, last: Positioned) -> Region:
        return cls(first.lineno, first.col_offset, last.end_lineno, last.end_col_offset)


def clock_format(call: ast.Call) -> list[str]:
    """``strftime('<format>')`` for a ``.strftime`` call with a written format: how finely a clock
    is read (`"%Y-%m-%d %H:%M:%S"`), whatever the variable holding it is called (`current_date`);
    read by analysis.volatility.daily."""
    func, args = call.func, call.args
    if isinstance(func, ast.Attribute) and func.attr == "strftime" and args and isinstance(args[0], ast.Constant) \
            and isinstance(args[0].value, str):
        return [f"strftime({args[0].value!r})"]
    return []


class Flow(Ordering):
    def facts(self, node: ast.AST, env: Env, acc: Facts | None = None) -> Facts:
        """Names read, calls made and sources of an expression, through the module's names and
        functions."""
        acc = acc if acc is not None else Facts()
        if env.depth > MAX_DEPTH or not self.m.step():
            return acc
        # `content` of `content, mime = fetch(url)`; `got[0]` of `got = run(cmd)`
        if isinstance(node, ast.Subscript) and (held := item_call(self.callees, node, env)) is not None:
            return self.unpacked_facts(*held, acc, node)
        if isinstance(node, (*_NAMED, ast.Call, ast.Await)):
            found = self.sources.untrusted(node, env) or self.messages.model_answer(node, env)
            for source in (found, self.cuts.source(node, env), delimited(self, node, env)):
                if source is not None:
                    acc.sources.append(source)
            if isinstance(node, ast.Call):
                for value, headed in headed_fields(self.m, self.scopes, node, env):
                    acc.sources.append(replace(headed, why=" ".join(self.passed_names(value, env))))
        elif isinstance(node, (ast.BinOp, ast.JoinedStr)):
            self.cuts.mark(node, env)
        if isinstance(node, _NAMED):
            dotted = self.m.dotted(node)
            if dotted is not None:
                if self.m.is_variable(dotted):
                    if not (isinstance(node, ast.Name) and self.sources.own_text_from_callers(node, env)
                            or isinstance(node, ast.Attribute) and own_field(self.sources, node, env)):
                        acc.names.append(dotted)  # (filled with our text, or our own files': no name)
                    self.merge_binding(node, env, acc)
                    if isinstance(node, ast.Name):
                        self.caller_calls(node, env, acc)
                return acc
            if isinstance(node, ast.Attribute):
                return self.facts(node.value, env, acc)
        if isinstance(node, ast.Call):
            self.call_facts(node, env, acc)
            return acc
        if isinstance(node, COMPREHENSIONS):
            acc.variable_length = True
        if isinstance(node, ast.Lambda):
            return acc
        if isinstance(node, ast.IfExp):
            # `" Search the web." if web_search else ""`: the condition picks one of the branches
            # and none of its text reaches the prompt; what it calls still runs.
            condition = self.facts(node.test, env)
            acc.calls.extend(condition.calls)
            acc.once.extend(condition.once)
            self.facts(node.body, env, acc)
            self.facts(node.orelse, env, acc)
            return acc
        before = len(acc.sources)
        for child in children(node):
            if isinstance(child, (ast.expr, ast.comprehension, ast.keyword)):
                self.facts(child, env, acc)
        if isinstance(node, ast.Dict) and sent_in_its_own_role(node):  # a tool's message: its role labels it
            acc.sources[before:] = unlabelled_in(node, acc.sources[before:])
        return acc

    def merge_binding(self, node: ast.expr, env: Env, acc: Facts) -> None:
        binding = self.scopes.resolve(node, env, foreign=True)
        if binding is None:
            return
        if binding.owner is not None:
            found = self.m.follow_binding(binding, binding.owner.flow.facts)
            if found is not None:
                acc.merge(self.m.adopt_facts(found, self.m.span(node)),
                           module_level=binding.env.scope.kind != "function")
            return
        key = self.m.binding_key(binding)
        inner = self.m.facts_memo.get(key)
        if inner is None:
            if not self.m.enter(binding.value):
                return
            try:
                inner = self.facts(binding.value, binding.env)
                for extra in binding.extras:
                    if extra.kind != "shuffle" and extra.value is not None:
                        _facts_added(self, binding, extra, inner)
                    if binding.loop_of(extra) is not None:
                        inner.variable_length = True
            finally:
                self.m.leave(binding.value)
            self.m.facts_memo[key] = inner
        if isinstance(node, ast.Name) and (LOCATOR.match(node.id.lower()) or number_parameter(node, env)):
            # `url = line.partition("=")[2]`: a location parsed out of content is not the content;
            # nor is a parameter declared a number (`file_tokens: int`), whatever it was counted from
            inner = without_untrusted(inner)
        elif isinstance(node, ast.Name) and _joins_text(binding.value):
            inner = replace(inner, sources=[joined(self.m, s, node, binding.value) for s in inner.sources])
        if isinstance(node, ast.Name) and looked_up(node, binding, self.m.parents):
            acc.looked_up.append(node.id)
        acc.merge(inner, module_level=binding.env.scope.kind != "function")

    def passed_names(self, value: ast.expr, env: Env) -> list[str]:
        """The names ``value`` reads; for a parameter no call binds here, also those of what the
        module's own callers pass for it (``batch(context_data=data)``, over retrieved chunks)."""
        found = list(self.facts(value, env).names)
        fn = self.sources.unbound_parameter(value, env) if isinstance(value, ast.Name) else None
        if fn is not None and isinstance(value, ast.Name) and self.m.enter(fn):
            try:
                for call, bound in self.sources.callers(fn, value.id, env):
                    found.extend(self.facts(bound.node, bound.env).names)
                    iterated = self.iterated(call, bound.node)
                    if iterated is not None:  # `f(context_data=data) for data in result.context_chunks`
                        found.extend(self.facts(iterated, bound.env).names)
            finally:
                self.m.leave(fn)
        return found

    def iterated(self, call: ast.Call, node: ast.expr) -> ast.expr | None:
        """The collection that the loop or comprehension around ``call`` takes the name ``node``
        from, item by item, if it does."""
        if not isinstance(node, ast.Name):
            return None
        parents = self.m.parents
        at: ast.AST | None = call
        for _ in range(8):  # the loop a few statements or expressions up, in the same function
            at = parents.get(id(at))
            if at is None or isinstance(at, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return None
            loops: list[ast.comprehension | ast.For | ast.AsyncFor] = (
                list(at.generators) if isinstance(at, COMPREHENSIONS)
                else [at] if isinstance(at, (ast.For, ast.AsyncFor)) else [])
            for loop in loops:
                if isinstance(loop.target, ast.Name) and loop.target.id == node.id:
                    return loop.iter
        return None

    def caller_calls(self, node: ast.Name, env: Env, acc: Facts) -> None:
        """A parameter no call binds here: the calls the module's own callers make for it
        (``compose(context=self.env_context())``, where ``env_context`` reads the clock), so a
        clock passed in is seen where the parameter is placed. Names and sources stay the
        parameter's own (sources are followed to callers by ``Sources.from_callers``)."""
        fn = self.sources.unbound_parameter(node, env)
        if fn is None:
            return
        key = ("callers", id(fn), node.id, env.depth)  # a parameter is read at every use of it
        passed = self.m.facts_memo.get(key)
        if passed is None:
            if not self.m.enter(fn):
                return
            passed = Facts()
            try:
                for _, bound in self.sources.callers(fn, node.id, env):
                    found = self.facts(bound.node, bound.env)
                    add_new(passed.calls, found.calls, index=passed.index("calls"))
                    for call, span in found.called_at.items():
                        passed.called_at.setdefault(call, span)
            finally:
                self.m.leave(fn)
            self.m.facts_memo[key] = passed
        add_new(acc.calls, passed.calls, index=acc.index("calls"))
        for call, span in passed.called_at.items():
            acc.called_at.setdefault(call, span)

    def unpacked_facts(self, call: ast.expr, position: int, env: Env, acc: Facts, node: ast.expr) -> Facts:
        """``content`` of ``content, mime = fetch(url)`` (``node``): the facts of the item the
        function ``call`` calls returns there, not of all it returns. A list item (messages built
        for an API) is not read: its parts are sent each in its own place."""
        for item, item_env, target in self.callees.items_returned_by(call, position, env):
            reader = target.owner.flow if target.owner is not None else self
            if reader.is_list(item, item_env) is True or not self.m.enter(target.fn):
                continue
            try:
                found = reader.facts(item, item_env)
            finally:
                self.m.leave(target.fn)
            acc.merge(self.m.adopt_facts(found, self.m.span(node)) if target.owner is not None else found)
        return acc

    def facts_of(self, nodes: list[ast.expr], env: Env) -> Facts:
        inner = Facts()
        for node in nodes:
            self.facts(node, env, inner)
        return inner

    def call_facts(self, call: ast.Call, env: Env, acc: Facts) -> None:
        func = call.func
        qualified = self.m.qualified(func)
        method = func.attr if isinstance(func, ast.Attribute) else None
        arguments = [*call.args, *(k.value for k in call.keywords)]
        acc.calls.extend(clock_format(call))
        if qualified in MEASURES or method in MEASURING_METHODS or qualified in LOCATION_CALLS:
            # `len(documents)`, `page.count("x")`: a number about the value, not its text (and `Path(name)`
            # a location). What it reads is neither content nor a collection of the prompt; its clock calls are.
            inner = self.facts_of([func.value, *arguments] if isinstance(func, ast.Attribute) else arguments, env)
            acc.calls.extend((qualified or method or "", *inner.calls))
            for inner_call, span in inner.called_at.items():  # `int(time.time())`: where the clock is read
                acc.called_at.setdefault(inner_call, span)
            acc.sources.extend(s for s in inner.sources if s.kind not in _CONTENT)
            if qualified not in DROPS_NAMES and method not in MEASURING_METHODS:
                acc.names.extend(inner.names)
            return
        text = template_text(self.m, self.scopes, func, env)
        if text is not None:  # the template's text: the program's own instructions, wherever it was read from
            acc.merge(without_untrusted(self.facts(text, env)))
        elif qualified:
            acc.calls.append(qualified)
            acc.called_at.setdefault(qualified, self.m.span(call))
            if qualified in PICKS and call.args:
                acc.sources.extend(self.picked(call, qualified, env))
            if isinstance(func, ast.Attribute):
                receiver = self.m.dotted(func.value)
                if receiver and self.m.is_variable(receiver):
                    acc.names.append(receiver)
                    self.merge_binding(func.value, env, acc)
        else:
            self.facts(func, env, acc)
        if qualified in SERIALIZERS or qualified in YAML_DUMPERS:
            assert qualified is not None
            source = self.serialization.source(call, qualified, env)
            if source is not None:
                acc.sources.append(source)
        target = self.callees.function_for(call, env, foreign=True)
        if target is not None and self.m.enter(target.fn):
            reader = target.owner.flow if target.owner is not None else self
            returned = Facts()
            try:
                for value in target.returns:  # every return: any of them may be what reaches the prompt
                    reader.facts(value, target.env, returned)
            finally:
                self.m.leave(target.fn)
            acc.merge(self.m.adopt_facts(returned, self.m.span(call)) if target.owner is not None else returned)
            # The return value's facts say which arguments reach the result (its parameters are bound to
            # them): an argument it only measures (`word_count(page)`) or uses otherwise (a file name made
            # with `uuid4()` that it reads) brings it no name, call, content, cut or answer.
            inner = self.facts_of(arguments, env)
            acc.sources.extend(s for s in inner.sources if s.kind not in _CONTENT)
            acc.variable_length = acc.variable_length or inner.variable_length
            return
        if encodes(call, (qualified or method or "").rsplit(".", 1)[-1]):
            inner = self.facts_of(arguments, env)  # base64 text, an image part: no longer text to label
            acc.calls.extend(inner.calls)
            acc.names.extend(inner.names)
            acc.sources.extend(s for s in inner.sources if s.kind is not SourceKind.UNTRUSTED)
            return
        bodiless = abstract_callee(self, call, env)
        if hands_a_system_prompt(call) or overridden_to_send(self, call, env, bodiless):
            return  # it asks a model: its answer is no copy of what it was shown
        # The project's method with no body of its own (`await self._achat_completion(messages)`, its
        # overrides not read) gives what a subclass computes: no cut or untrusted text of its arguments.
        # Another module's prompt constant, filled here: its fields are reported where it is written,
        # with these arguments' facts and beside its own labels, not again here.
        dropped = _CONTENT if bodiless is not None else (SourceKind.UNTRUSTED,) \
            if filled_elsewhere(self.m, self.scopes, func, env) else None
        if dropped is not None:
            inner = self.facts_of(arguments, env)
            inner.sources[:] = [s for s in inner.sources if s.kind not in dropped]
            acc.merge(inner)
            return
        for arg in arguments:
            if _read_by(arg, call, qualified):
                # The call opens or reads the file the argument names, or looks up its key: what it returns is
                # not the name, so a random file name (`f"{uuid4().hex}.wav"`) or key does not reach the text.
                inner = self.facts_of([arg], env)
                inner.calls.clear()
                acc.merge(inner)
            else:  # what an unknown call gives is not the answer a model gave to its arguments
                before = len(acc.sources)
                self.facts(arg, env, acc)
                acc.sources[before:] = [s for s in acc.sources[before:] if s.kind is not SourceKind.MODEL_OUTPUT]

    # ---- shapes: text or list ----------------------------------------------------------------------

    def returned_kind(self, call: ast.Call, env: Env) -> bool | None:
        """What a function the code shows returns (``fetch(url)`` returning ``resp.text``): a
        string or a collection when every return agrees, else unknown."""
        target = self.callees.function_for(call, env, foreign=True)
        if target is None or not target.returns or not self.m.enter(target.fn):
            return None
        reader = target.owner.flow if target.owner is not None else self
        try:
            kinds = {reader.is_list(value, target.env) for value in target.returns}
        finally:
            self.m.leave(target.fn)
        return kinds.pop() if len(kinds) == 1 else None

    def is_list(self, node: ast.expr, env: Env) -> bool | None:
        """False for a string, True for a list (or other collection), None when unknown. An
        unknown value is a string unless its name says it is a collection (``docs``)."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return False
        if isinstance(node, (ast.List, ast.Tuple, ast.ListComp, ast.Set, ast.SetComp, ast.Dict, ast.DictComp)):
            return True
        if isinstance(node, ast.BinOp):
            if self.strings.text(node, env) is not None:
                return False
            return self.is_list(node.left, env)
        if isinstance(node, ast.Await):
            return self.is_list(node.value, env)
        position = unpacked_position(node)
        if position is not None and isinstance(node, ast.Subscript):
            kinds = {(target.owner.flow if target.owner is not None else self).is_list(item, item_env)
                     for item, item_env, target in self.callees.returned_items(node, position, env)}
            return kinds.pop() if len(kinds) == 1 else None
        if isinstance(node, ast.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in ("list", "sorted", "tuple", "reversed", "re.findall", "re.split", "glob.glob"):
                return True
            if qualified in ("str", "repr", "json.dumps", "textwrap.dedent", "html.escape", "markupsafe.escape"):
                return False
            if isinstance(node.func, ast.Attribute):
                method = node.func.attr
                if method in ("split", "splitlines", "readlines", "items", "keys", "values", "rsplit", "findall"):
                    return True
                if method in KEEP_TEXT or method in MAKE_TEXT or method in READ_TEXT:
                    return False
            if self.strings.text(node, env) is not None:
                return False
            return self.returned_kind(node, env)
        if isinstance(node, _NAMED):
            if isinstance(node, ast.Name):
                annotation = self.callees.param_annotation(node.id, env)
                if annotation is not None:
                    plain = annotation.replace(" ", "")
                    if re.match(r"(typing\.)?(str|Optional\[str\]|str\|None)$", plain):
                        return False
                    if re.match(r"(typing\.)?([lL]ist|[sS]equence|[tT]uple|Iterable|[sS]et)\b", plain):
                        return True
            if isinstance(node, ast.Attribute) and node.attr in TEXT_ATTRIBUTES:
                return False
            if isinstance(node, (ast.Name, ast.Attribute)):
                binding = self.scopes.resolve(node, env)
                kind = None if binding is None else self.m.follow(binding.value, bound_list, binding, self.is_list)
                if kind is not None:
                    return kind
            name = (self.m.dotted(node) or "").rsplit(".", 1)[-1].lower()
            if name and any(fnmatchcase(name, p) for p in STRING_NAMES):
                return False
            if name and (any(fnmatchcase(name, p) for p in LIST_NAMES)
                         or (name.endswith("s") and not name.endswith(("ss", "us", "is")))):
                return True  # docs, results, messages: a plural names a collection
            return False
        return None

    # ---- literal values, dicts and lists -------------------------------------------------------------

    def literal(self, node: ast.expr | None, env: Env) -> tuple[bool, object]:
        """``(True, value)`` for an expression whose value is a JSON-like literal; ``(False, None)``."""
        if node is None or env.depth > MAX_DEPTH or not self.m.step():
            return False, None
        if isinstance(node, ast.Constant):
            constant = node.value
            if isinstance(constant, str):
                return True, clean(constant)
            if constant is None or isinstance(constant, (bool, int, float)):
                return True, constant
            return False, None
        if isinstance(node, (ast.JoinedStr, ast.BinOp)):
            if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.Add):
                return False, None
            found = self.strings.text(node, env)
            if found is None or any(p.slot for p in found):
                return False, None
            return True, "".join(p.text for p in found)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            ok, value = self.literal(node.operand, env)
            return (True, -value) if ok and isinstance(value, (int, float)) else (False, None)
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env, foreign=True)
            if binding is None or binding.extras:
                return False, None
            reader = binding.owner.flow if binding.owner is not None else self
            return self.m.follow(binding.value, reader.literal, binding.value, binding.env, otherwise=(False, None))
        if isinstance(node, (ast.List, ast.Tuple)):
            if any(isinstance(element, ast.Starred) for element in node.elts):
                return False, None
            return literal_list(node.elts, env, self.literal)
        if isinstance(node, ast.Dict) or (isinstance(node, ast.Call) and self.m.qualified(node.func) == "dict"):
            return literal_dict(self.containers.dict_entries(node, env), self.literal)
        return False, None

    def picked(self, call: ast.Call, qualified: str, env: Env) -> list[Source]:
        """`random.choice(OPENINGS)` of a list or tuple of texts the code writes: one of them."""
        ok, value = self.literal(call.args[0], env)
        if not ok or not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            return []
        return [Source(SourceKind.PICKED, qualified, self.m.span(call), why=str(len(set(value))))]

    def literal_str(self, node: ast.expr | None, env: Env) -> str | None:
        ok, value = self.literal(node, env)
        return value if ok and isinstance(value, str) else None



def without_untrusted(facts: Facts) -> Facts:
    """The facts with their third-party content taken out (what is left: names, calls, cuts)."""
    return replace(facts, sources=[s for s in facts.sources if s.kind is not SourceKind.UNTRUSTED])


def _read_by(arg: ast.expr, call: ast.Call, qualified: str | None) -> bool:
    """Whether ``call`` reads what ``arg`` names rather than passing its text on: a file it opens, or
    the key it looks up (`found.get(key, [])`: the key says where to look, what comes back is what
    was stored there)."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "get" and call.args and arg is call.args[0]:
        return True
    return _names_file(arg) and not (qualified or "").startswith(_PATH_HELPERS)


def _names_file(node: ast.expr) -> bool:
    """A value that locates a file: a variable named as a path (``audio_path``, ``self.file``),
    or a file opened from one (``open(path)``)."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in _OPENS or (isinstance(func, ast.Attribute) and ast.unparse(func) in _OPENS)
    last = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return _FILE_NAME.search(last.lower()) is not None


def _facts_added(flow: Flow, binding: Binding, extra: Assign, acc: Facts) -> None:
    """The facts of what ``extra`` adds to ``binding``'s value, into ``acc``; its third-party content
    with the fence or tag the additions around it put it in (``block += read(path)`` after a piece
    that opens a fence and before one that closes it). A content part that holds no text
    (``parts.append(attachment_part(upload))``) adds none."""
    assert extra.value is not None
    if extra.kind in ("append", "insert") and built_part_without_text(flow.callees, flow.scopes, extra.value,
                                                                      binding.extras_env):
        return
    before = len(acc.sources)
    flow.facts(extra.value, binding.extras_env, acc)
    acc.sources[before:] = [wrapped_by_adds(s, binding, extra) or s for s in acc.sources[before:]]


def joined(m: Unit, source: Source, name: ast.Name, value: ast.expr) -> Source:
    """Third-party content with the place it is pasted among other text as a step of its flow,
    when ``name`` is given it so (``prompt = f"{piped}\\n\\n{prompt}"``)."""
    if source.kind is not SourceKind.UNTRUSTED or not _joins_text(value):
        return source
    step = Evidence(EvidenceKind.FLOW, f"joined with other text into `{name.id}`", m.span(value))
    return replace(source, flow=(*source.flow, step))


def _joins_text(value: ast.expr) -> bool:
    """Whether a value puts text together: an f-string or a sum, or a choice of them."""
    if isinstance(value, ast.IfExp):
        return _joins_text(value.body) or _joins_text(value.orelse)
    return isinstance(value, ast.JoinedStr) or (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add))


def abstract_callee(part: Component, call: ast.Call, env: Env
                    ) -> tuple[Analyzer | None, FunctionNode, Scope, bool] | None:
    """The method of the project with no body of its own (``abstract``) that ``call`` calls."""
    found = part.callees.callee(call.func, env, foreign=True)
    return found if found is not None and found[3] and abstract(found[1]) else None


def overridden_to_send(part: Component, call: ast.Call, env: Env,
                       found: tuple[Analyzer | None, FunctionNode, Scope, bool] | None = None) -> bool:
    """Whether ``call`` calls an abstract method that the project's subclasses override to send a
    request (``await self._achat_completion(messages)``): what it gives back is an answer."""
    found = found or abstract_callee(part, call, env)
    return found is not None and part.wrappers.override(found[0], found[2], found[1].name) is not None


def returns_record(flow: Flow, node: ast.expr, env: Env) -> bool:
    """A name given what a function the code shows returns, where every return is a tuple
    display (``return text, used, total``): a record of fixed fields, not a sequence of items."""
    binding = flow.scopes.resolve(node, env) if isinstance(node, ast.Name) else None
    value = binding.value if binding is not None and not binding.extras else None
    target = flow.callees.function_for(value, env, foreign=True) if isinstance(value, ast.Call) else None
    return target is not None and bool(target.returns) and all(
        isinstance(r, ast.Tuple) and len(r.elts) > 1 for r in target.returns)
