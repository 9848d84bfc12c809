"""Data flow: the facts of a value (names it reads, calls it makes, where its content comes from),
literal values, dict entries, list items, and the iteration order of collections."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

import libcst as cst

from ctxlint.frontends.python.knowledge import (
    DROPS_NAMES,
    HTTP_CONTENT_ATTRS,
    ITERATING,
    LIST_NAMES,
    MAX_DEPTH,
    MEASURES,
    MEASURING_METHODS,
    ORDER_FREE,
    PATH_METHODS,
    SERIALIZERS,
    SET_METHODS,
    STRING_NAMES,
    UNORDERED_CALLS,
    YAML_DUMPERS,
)
from ctxlint.frontends.python.literals import cut_marker
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Facts, Item
from ctxlint.model import Source, SourceKind


class Flow(Component):
    def facts(self, node, env: Env, acc: Facts | None = None) -> Facts:
        """Names read, calls made and serialisation sources of an expression, through the
        module's names and functions."""
        acc = acc if acc is not None else Facts()
        if env.depth > MAX_DEPTH:
            return acc
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Await)):
            for source in (self.sources.untrusted(node, env), self.sources.truncation(node, env)):
                if source is not None:
                    acc.sources.append(source)
        elif isinstance(node, (cst.BinaryOperation, cst.FormattedString)):
            self.mark_cuts(node, env)
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
            dotted = self.m.dotted(node)
            if dotted is not None:
                if self.m.is_variable(dotted):
                    acc.names.append(dotted)
                    self.merge_binding(node, env, acc)
                return acc
            if isinstance(node, cst.Attribute):
                return self.facts(node.value, env, acc)
        if isinstance(node, cst.Call):
            self.call_facts(node, env, acc)
            return acc
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            acc.variable_length = True
        if isinstance(node, cst.Lambda):
            return acc
        for child in node.children:
            if isinstance(child, cst.BaseExpression) or isinstance(child, (
                cst.Element, cst.StarredElement, cst.DictElement, cst.StarredDictElement, cst.CompFor, cst.CompIf,
                cst.SubscriptElement, cst.Index, cst.Slice, cst.FormattedStringExpression, cst.Arg,
                cst.ComparisonTarget,
            )):
                self.facts(child, env, acc)
        return acc

    def merge_binding(self, node, env: Env, acc: Facts) -> None:
        binding = self.scopes.resolve(node, env)
        if binding is None or not self.m.enter(binding.value):
            return
        try:
            inner = self.facts(binding.value, binding.env)
            for extra in binding.extras:
                if extra.kind != "shuffle" and extra.value is not None:
                    self.facts(extra.value, binding.env, inner)
                if binding.loop_of(extra) is not None:
                    inner.variable_length = True
            acc.calls.extend(inner.calls)
            acc.sources.extend(inner.sources)
            acc.names.extend(inner.names)
            acc.variable_length = acc.variable_length or inner.variable_length
        finally:
            self.m.leave(binding.value)

    def call_facts(self, call, env: Env, acc: Facts) -> None:
        func = call.func
        qualified = self.m.qualified(func)
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if qualified in MEASURES or method in MEASURING_METHODS:
            # `len(documents)`, `page.count("x")`: a number about the value, not its text. What
            # it reads is neither content nor a collection of the prompt; its clock calls are.
            inner = Facts()
            if method is not None:
                self.facts(func.value, env, inner)
            for arg in call.args:
                self.facts(arg.value, env, inner)
            acc.calls.append(qualified or method)
            acc.calls.extend(inner.calls)
            acc.sources.extend(s for s in inner.sources if s.kind not in (SourceKind.UNTRUSTED, SourceKind.TRUNCATION))
            if qualified not in DROPS_NAMES and method not in MEASURING_METHODS:
                acc.names.extend(inner.names)
            return
        if qualified:
            acc.calls.append(qualified)
            if isinstance(func, cst.Attribute):
                receiver = self.m.dotted(func.value)
                if receiver and self.m.is_variable(receiver):
                    acc.names.append(receiver)
                    self.merge_binding(func.value, env, acc)
        else:
            self.facts(func, env, acc)
        if qualified in SERIALIZERS or qualified in YAML_DUMPERS:
            source = self.sources.serialization_source(call, qualified, env)
            if source is not None:
                acc.sources.append(source)
        target = self.scopes.function_for(call, env)
        if target is not None and self.m.enter(target[0]):
            try:
                self.facts(target[1], target[2], acc)
            finally:
                self.m.leave(target[0])
            # The return value's facts say which arguments reach the result (its parameters are
            # bound to them): an argument the function only measures (`word_count(page)`) brings
            # it no name, content or cut; what the argument calls still runs.
            inner = Facts()
            for arg in call.args:
                self.facts(arg.value, env, inner)
            acc.calls.extend(inner.calls)
            acc.sources.extend(s for s in inner.sources if s.kind not in (SourceKind.UNTRUSTED, SourceKind.TRUNCATION))
            acc.variable_length = acc.variable_length or inner.variable_length
            return
        for arg in call.args:
            self.facts(arg.value, env, acc)

    def is_list(self, node, env: Env) -> bool | None:
        """False for a string, True for a list (or other collection), None when unknown. An
        unknown value is a string unless its name says it is a collection (``docs``)."""
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return False
        if isinstance(node, (cst.List, cst.Tuple, cst.ListComp, cst.Set, cst.SetComp, cst.Dict, cst.DictComp)):
            return True
        if isinstance(node, cst.BinaryOperation):
            if self.strings.text(node, env) is not None:
                return False
            return self.is_list(node.left, env)
        if isinstance(node, cst.Await):
            return self.is_list(node.expression, env)
        if isinstance(node, cst.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in ("list", "sorted", "tuple", "reversed", "re.findall", "re.split", "glob.glob"):
                return True
            if qualified in ("str", "repr", "json.dumps", "textwrap.dedent", "html.escape", "markupsafe.escape"):
                return False
            if isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                if method in ("split", "splitlines", "readlines", "items", "keys", "values", "rsplit", "findall"):
                    return True
                if method in ("strip", "lstrip", "rstrip", "read", "read_text", "join", "format", "decode", "lower",
                              "upper", "replace", "get_text", "text", "get_payload", "get_content", "as_string"):
                    return False
            return None if self.strings.text(node, env) is None else False
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
            if isinstance(node, cst.Name):
                annotation = self.scopes.param_annotation(node.value, env)
                if annotation is not None:
                    plain = annotation.replace(" ", "")
                    if re.match(r"(typing\.)?(str|Optional\[str\]|str\|None)$", plain):
                        return False
                    if re.match(r"(typing\.)?([lL]ist|[sS]equence|[tT]uple|Iterable|[sS]et)\b", plain):
                        return True
            if isinstance(node, cst.Attribute) and node.attr.value in HTTP_CONTENT_ATTRS | {"page_content"}:
                return False
            if isinstance(node, (cst.Name, cst.Attribute)):
                binding = self.scopes.resolve(node, env)
                if binding is not None and self.m.enter(binding.value):
                    try:
                        kind = self.is_list(binding.value, binding.env)
                    finally:
                        self.m.leave(binding.value)
                    if kind is not None:
                        return kind
                    if any(e.kind in ("append", "extend", "insert") for e in binding.extras):
                        return True
            name = (self.m.dotted(node) or "").rsplit(".", 1)[-1].lower()
            if name and any(fnmatchcase(name, p) for p in STRING_NAMES):
                return False
            if name and (any(fnmatchcase(name, p) for p in LIST_NAMES)
                         or (name.endswith("s") and not name.endswith(("ss", "us", "is")))):
                return True  # docs, results, messages: a plural names a collection
            return False
        return None

    def mark_cuts(self, node, env: Env) -> None:
        """Cuts followed by a marker inside the same value (``text[:500] + "…"``,
        ``f"{text[:500]}… [truncated]"``) are not silent."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left = node.left
            while isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Add):
                left = left.right
            if isinstance(left, cst.Subscript) and isinstance(left.slice[0].slice, cst.Slice):
                following = self.strings.text(node.right, env)
                if following and following[0].slot is None and cut_marker(following[0].text):
                    self.m.marked.add(id(left))
        elif isinstance(node, cst.FormattedString):
            parts = list(node.parts)
            for part, after in zip(parts, parts[1:]):
                if (isinstance(part, cst.FormattedStringExpression) and isinstance(part.expression, cst.Subscript)
                        and isinstance(after, cst.FormattedStringText) and cut_marker(after.value)):
                    self.m.marked.add(id(part.expression))

    def unordered(self, node, env: Env) -> str | None:
        """What makes the value of ``node`` a collection in no fixed order, or None."""
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, (cst.Set, cst.SetComp)):
            return "set"
        if isinstance(node, cst.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in UNORDERED_CALLS:
                return UNORDERED_CALLS[qualified]
            if qualified in ("list", "tuple") and len(node.args) == 1:
                return self.unordered(node.args[0].value, env)
            if isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                if method in PATH_METHODS and not qualified.startswith(("glob.", "fnmatch.")):
                    return PATH_METHODS[method]
                if method in SET_METHODS:
                    return "set" if self.unordered(node.func.value, env) else None
            return None
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return self.unordered(node.for_in.iter, env)
        if isinstance(node, cst.BinaryOperation) and isinstance(
            node.operator, (cst.BitOr, cst.BitAnd, cst.Subtract, cst.BitXor)
        ):
            return self.unordered(node.left, env) or self.unordered(node.right, env)
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is None:
                annotation = self.scopes.param_annotation(node.value, env) if isinstance(node, cst.Name) else None
                if annotation is not None and re.match(r"(typing\.)?([sS]et|frozenset|FrozenSet|AbstractSet)\b",
                                                       annotation):
                    return "set"
                return None
            if any(e.kind == "shuffle" for e in binding.extras):
                return "random.shuffle"
            if not self.m.enter(binding.value):
                return None
            try:
                return self.unordered(binding.value, binding.env)
            finally:
                self.m.leave(binding.value)
        return None

    def unordered_source(self, node, env: Env) -> tuple[Source, ...]:
        detail = self.unordered(node, env)
        return () if detail is None else (Source(SourceKind.UNORDERED_ITERATION, detail, self.m.span(node)),)

    def iteration_sources(self, node, env: Env) -> list[Source]:
        """Where a collection in no fixed order is rendered or iterated into this value."""
        found = list(self.unordered_source(node, env))
        if not found:
            self._iteration_walk(node, env, found)
        return found

    def _iteration_walk(self, node, env: Env, found: list[Source]) -> None:
        if env.depth > MAX_DEPTH or isinstance(node, cst.Lambda):
            return
        if isinstance(node, cst.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in ORDER_FREE:
                return
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
            if method == "join" or qualified in ITERATING or qualified in SERIALIZERS:
                for arg in node.args[:1]:
                    found.extend(self.unordered_source(arg.value, env))
        elif isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp)):
            comp = node.for_in
            while comp is not None:
                found.extend(self.unordered_source(comp.iter, env))
                comp = comp.inner_for_in
        elif isinstance(node, cst.StarredElement):
            found.extend(self.unordered_source(node.value, env))
        elif isinstance(node, cst.FormattedStringExpression):
            found.extend(self.unordered_source(node.expression, env))
        elif isinstance(node, cst.Name):
            binding = self.scopes.resolve(node, env)
            if binding is not None and self.m.enter(binding.value):
                try:
                    self._iteration_walk(binding.value, binding.env, found)
                    for extra in binding.extras:
                        if extra.kind in ("+=", "append", "extend") and extra.value is not None:
                            self._iteration_walk(extra.value, binding.env, found)
                            loop = binding.loop_of(extra)
                            if loop is not None:
                                found.extend(self.strings.loop_sources(loop, binding.env))
                finally:
                    self.m.leave(binding.value)
            return
        for child in node.children:
            if isinstance(child, cst.CSTNode):
                self._iteration_walk(child, env, found)

    def literal(self, node, env: Env):
        """``(True, value)`` for an expression whose value is a JSON-like literal; ``(False, None)``."""
        if env.depth > MAX_DEPTH:
            return False, None
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.BinaryOperation)):
            if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.Add):
                return False, None
            found = self.strings.text(node, env)
            if found is None or any(p.slot for p in found):
                return False, None
            return True, "".join(p.text for p in found)
        if isinstance(node, (cst.Integer, cst.Float)):
            return True, node.evaluated_value
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            ok, value = self.literal(node.expression, env)
            return (True, -value) if ok and isinstance(value, (int, float)) else (False, None)
        if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
            return True, {"True": True, "False": False, "None": None}[node.value]
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is None or binding.extras or not self.m.enter(binding.value):
                return False, None
            try:
                return self.literal(binding.value, binding.env)
            finally:
                self.m.leave(binding.value)
        if isinstance(node, (cst.List, cst.Tuple)):
            values = []
            for element in node.elements:
                if not isinstance(element, cst.Element):
                    return False, None
                ok, value = self.literal(element.value, env)
                if not ok:
                    return False, None
                values.append(value)
            return True, values
        if isinstance(node, cst.Dict) or (isinstance(node, cst.Call) and self.m.qualified(node.func) == "dict"):
            entries = self.dict_entries(node, env)
            if entries is None:
                return False, None
            result = {}
            for key, (value_node, value_env, _) in entries.items():
                ok, value = self.literal(value_node, value_env)
                if not ok:
                    return False, None
                result[key] = value
            return True, result
        return False, None

    def literal_str(self, node, env: Env) -> str | None:
        ok, value = self.literal(node, env)
        return value if ok and isinstance(value, str) else None

    def dict_entries(self, node, env: Env) -> dict[str, tuple[object, Env, object]] | None:
        """String-keyed entries of a dict literal or ``dict(...)`` call, through names:
        key -> (value node, its env, the element that sets it)."""
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is None or binding.extras or not self.m.enter(binding.value):
                return None
            try:
                return self.dict_entries(binding.value, binding.env)
            finally:
                self.m.leave(binding.value)
        entries: dict[str, tuple[object, Env, object]] = {}
        if isinstance(node, cst.Dict):
            for element in node.elements:
                if isinstance(element, cst.StarredDictElement):
                    inner = self.dict_entries(element.value, env)
                    if inner is None:
                        return None
                    entries.update(inner)
                    continue
                key = self.literal_str(element.key, env)
                if key is None:
                    return None
                entries[key] = (element.value, env, element)
            return entries
        if isinstance(node, cst.Call) and self.m.qualified(node.func) == "dict":
            for arg in node.args:
                if arg.keyword is not None:
                    entries[arg.keyword.value] = (arg.value, env, arg)
                elif arg.star in ("**", ""):
                    inner = self.dict_entries(arg.value, env)
                    if inner is None:
                        return None
                    entries.update(inner)
                else:
                    return None
            return entries
        return None

    def items(self, node, env: Env, loop: str | None = None) -> list[Item] | None:
        """The elements of a list-valued expression in order; None if it is not one we can read."""
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, (cst.List, cst.Tuple)):
            self.m.consumed.add(id(node))
            items = []
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    inner = self.items(element.value, env, loop)
                    items.extend(inner if inner is not None else [
                        Item(element.value, env, loop, True, self.unordered_source(element.value, env))])
                else:
                    items.append(Item(element.value, env, loop))
            return items
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)) and node.for_in.inner_for_in is None:
            # One element per item of the iterable: a message or tool repeated in a loop.
            iterable = node.for_in.iter
            return [Item(node.elt, env, self.m.code(iterable), False, self.unordered_source(iterable, env))]
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left, right = self.items(node.left, env, loop), self.items(node.right, env, loop)
            if left is None and right is None:
                return None
            return (left if left is not None else [Item(node.left, env, loop, True)]) + (
                right if right is not None else [Item(node.right, env, loop, True)]
            )
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is None or not self.m.enter(binding.value):
                return None
            try:
                items = self.items(binding.value, binding.env, loop)
                if items is None:
                    return None
                for extra in binding.extras:
                    inner = binding.loop_of(extra)
                    where = inner.text if inner is not None else loop
                    sources = self.strings.loop_sources(inner, binding.env) if inner is not None else ()
                    if extra.kind in ("append", "insert"):
                        item = Item(extra.value, binding.env, where, bool(sources), sources)
                        items.insert(0, item) if extra.kind == "insert" else items.append(item)
                    elif extra.kind in ("extend", "+="):
                        more = self.items(extra.value, binding.env, where)
                        items.extend(more if more is not None else [Item(extra.value, binding.env, where, True)])
                    elif extra.kind == "shuffle":
                        return None
                self.m.consumed.add(id(binding.value))
                return items
            finally:
                self.m.leave(binding.value)
        if isinstance(node, cst.Call):
            if self.m.qualified(node.func) in ("list", "tuple") and len(node.args) == 1:
                return self.items(node.args[0].value, env, loop)
            target = self.scopes.function_for(node, env)
            if target is not None and self.m.enter(target[0]):
                try:
                    found = self.items(target[1], target[2], loop)
                finally:
                    self.m.leave(target[0])
                if found is not None:
                    self.m.consumed.add(id(target[1]))
                return found
        return None
