"""Serialisation without sorted keys (``json.dumps(d)``, ``yaml.dump(d, sort_keys=False)``) and the
fix that sorts them, written in the call's own layout."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.knowledge import MAX_DEPTH, YAML_DUMPERS
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Fix, Source, SourceKind


class Serialization(Component):
    def source(self, call: ast.Call, qualified: str, env: Env) -> Source | None:
        keyword = next((k for k in call.keywords if k.arg == "sort_keys"), None)
        if keyword is not None and not (isinstance(keyword.value, ast.Constant) and keyword.value.value is False):
            return None  # sort_keys=True, or a value we cannot know
        if keyword is None and (qualified in YAML_DUMPERS or any(k.arg is None for k in call.keywords)):
            return None  # yaml.dump sorts keys unless told not to; `**options` may hold sort_keys
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        if not positional or not self.may_be_mapping(positional[0], env):
            return None
        order, why = self.key_order(positional[0], env)
        if order == FIXED:
            return None  # the same code inserts the same keys in the same order on every call
        # Strong: keys inserted in an order that certainly changes (a set's); weak: the order of
        # data received from outside, or one the code does not show.
        return Source(SourceKind.UNSORTED_SERIALIZATION, qualified, self.m.span(call),
                      self.sort_keys_fix(call, keyword), strong=order == VARIES and not why.startswith(RECEIVED),
                      why=why)

    def key_order(self, node: ast.expr, env: Env) -> tuple[str, str]:
        """Whether the keys of the value of ``node`` come in an order that can change between
        calls or processes (VARIES, and why), in the order fixed code inserts them (FIXED: a dict
        literal, a class's schema, a dict built from ordered data), or in an order the code does
        not show (UNKNOWN: a parameter, a value an unknown call returns)."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return UNKNOWN, ""
        if isinstance(node, ast.Await):
            return self.key_order(node.value, env)
        outside = self.sources.untrusted(node, env)
        if outside is not None:
            return VARIES, f"{RECEIVED} ({outside.detail}), in whatever order the sender writes them"
        if isinstance(node, ast.Dict):
            return _combined([self.key_order(v, env) for v in node.values], unknown_is_fixed=True)
        if isinstance(node, (ast.List, ast.Tuple)):
            return _combined([self.key_order(e, env) for e in node.elts if not isinstance(e, ast.Starred)],
                             unknown_is_fixed=False)
        if isinstance(node, (ast.DictComp, ast.ListComp, ast.GeneratorExp)):
            for generator in node.generators:
                unordered = self.flow.unordered(generator.iter, env)
                if unordered is not None:
                    return VARIES, f"its keys are inserted while iterating `{unordered}`, whose order changes"
            element = node.key if isinstance(node, ast.DictComp) else node.elt
            if isinstance(node, ast.DictComp) or isinstance(element, ast.Dict):
                return FIXED, ""  # each item built with keys the code writes, in the order of ordered data
            return UNKNOWN, ""
        if isinstance(node, ast.Subscript):
            return self.key_order(node.value, env)
        if isinstance(node, ast.Call):
            return self.call_key_order(node, env)
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is None or binding.value is None:
                return UNKNOWN, ""
            order = self.m.follow_binding(binding, self.key_order)
            if order is None:
                return UNKNOWN, ""
            filled = self.filled_unordered(node, binding.env) if isinstance(node, ast.Name) else None
            return (VARIES, f"its keys are inserted while iterating `{filled}`, whose order changes") \
                if filled else order
        return UNKNOWN, ""

    def call_key_order(self, call: ast.Call, env: Env) -> tuple[str, str]:
        qualified = self.m.qualified(call.func) or ""
        method = _method(call)
        if _class_schema(call) or method in ("model_dump", "dict", "_asdict") or qualified == "dataclasses.asdict":
            return FIXED, ""  # a class's fields, in the order they are declared
        if qualified in ("dict", "collections.OrderedDict") or method == "fromkeys":
            if not call.args:
                return FIXED, ""
            first = call.args[0]
            if isinstance(first, ast.Call) and (self.m.qualified(first.func) or "") == "zip" and first.args:
                first = first.args[0]
            unordered = self.flow.unordered(first, env)
            if unordered is not None:
                return VARIES, f"its keys are inserted while iterating `{unordered}`, whose order changes"
            return self.key_order(first, env)
        if method in ("get", "copy", "__getitem__", "setdefault"):
            assert isinstance(call.func, ast.Attribute)
            return self.key_order(call.func.value, env)
        target = self.callees.function_for(call, env)
        if target is None:
            return UNKNOWN, ""
        orders = self.m.follow(target.fn, lambda: [self.key_order(value, target.env) for value in target.returns])
        return (UNKNOWN, "") if orders is None else _combined(orders, unknown_is_fixed=False)

    def filled_unordered(self, node: ast.Name, env: Env) -> str | None:
        """What unordered collection a loop iterates while it sets keys of the dict ``node``
        names (``for tool in enabled: table[tool] = ...``, ``.update``), or None."""
        for loop in walk(env.scope.node):
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                continue
            for statement in loop.body:
                for inner in walk(statement):
                    sets = (isinstance(inner, ast.Subscript) and isinstance(inner.ctx, ast.Store)) or (
                        isinstance(inner, ast.Attribute) and inner.attr in ("update", "setdefault"))
                    if sets and isinstance(inner, (ast.Subscript, ast.Attribute)) and \
                            isinstance(inner.value, ast.Name) and inner.value.id == node.id:
                        return self.flow.unordered(loop.iter, env)
        return None

    def may_be_mapping(self, node: ast.expr, env: Env) -> bool:
        """False for values that certainly have no keys (text, numbers, lists of scalars)."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return True
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(
                node.value, (str, bytes, int, float)) and not isinstance(node.value, bool)):
            return False
        if isinstance(node, ast.Constant):
            return node.value not in (True, False, None)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return any(isinstance(e, ast.Starred) or self.may_be_mapping(e, env) for e in node.elts)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.comprehension_may_be_mapping(node, env)
        if isinstance(node, ast.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in ("str", "int", "float", "len", "repr", "bool", "sorted"):
                return False
            if qualified in ("list", "tuple", "set") and node.args and _keys_of(node.args[0]):
                return False  # list(schema.keys()): the names of the fields
            if _keys_of(node) or _class_schema(node):
                return False
            return not (isinstance(node.func, ast.Attribute) and node.func.attr in (
                "strip", "lower", "upper", "format", "join", "isoformat", "strftime", "read", "read_text",
            ))
        if isinstance(node, ast.Name) and self.enum_value(node, env):
            return False
        if isinstance(node, ast.Name):
            annotation = self.callees.param_annotation(node.id, env)
            if annotation is not None and annotation.replace(" ", "") in (
                "str", "int", "float", "bool", "list[str]", "List[str]", "str|None", "Optional[str]",
            ):
                return False
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None and not binding.extras:
                return self.m.follow(binding.value, self.may_be_mapping, binding.value, binding.env, otherwise=True)
        return True

    def enum_value(self, node: ast.Name, env: Env) -> bool:
        """A loop variable over a JSON Schema's ``enum`` (``json.dumps(v) for v in prop["enum"]``):
        enum values are text, numbers, booleans or null, which have no keys."""
        for loop in walk(env.scope.node):
            if isinstance(loop, (ast.For, ast.comprehension)) and isinstance(loop.target, ast.Name) and \
                    loop.target.id == node.id:
                name = (self.m.dotted(loop.iter) or "").rsplit(".", 1)[-1]
                return name == "enum"
        return False

    def comprehension_may_be_mapping(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, env: Env) -> bool:
        """``[k for k in fields.keys()]``, ``[name for name, _ in schema.items()]``: keys have
        no keys of their own; other elements are judged like any value."""
        element = node.elt
        if isinstance(element, ast.Name):
            for generator in node.generators:
                target = generator.target
                if isinstance(target, ast.Name) and target.id == element.id:
                    return not _keys_of(generator.iter)
                if (isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name)
                        and target.elts[0].id == element.id and _method(generator.iter) == "items"):
                    return False
            return True
        return self.may_be_mapping(element, env)

    def sort_keys_fix(self, call: ast.Call, keyword: ast.keyword | None) -> Fix:
        """Add ``sort_keys=True`` (or turn ``sort_keys=False`` into True) as a replacement of
        exactly the call's span, in the layout the call is written in: one argument per line
        with a trailing comma gets a line of its own."""
        if id(call) in self.m.fixes:
            return self.m.fixes[id(call)]
        text = self.m.text
        start, end = self.m.offsets(call)
        if keyword is not None:
            value_start, value_end = self.m.offsets(keyword.value)
            replacement = text[start:value_start] + "True" + text[value_end:end]
            description = "set sort_keys=True"
        else:
            description = "add sort_keys=True"
            given: list[ast.expr | ast.keyword] = sorted([*call.args, *call.keywords], key=self.m.offsets)
            last_end = self.m.offsets(given[-1])[1]
            closing = text.rindex(")", last_end, end)
            rest = text[last_end:closing]
            comma = rest.find(",")
            if comma >= 0 and "\n" in rest[comma:]:
                # One argument per line with a trailing comma: add a line in the same style.
                before_last = self.m.offsets(given[-1])[0]
                previous_end = self.m.offsets(given[-2])[1] if len(given) > 1 else self.m.offsets(call.func)[1]
                gap = text[previous_end:before_last]
                indent = gap.rsplit("\n", 1)[-1] if "\n" in gap else " "
                insert_at = last_end + comma + 1
                replacement = text[start:insert_at] + "\n" + indent + "sort_keys=True," + text[insert_at:end]
            else:
                tail = text[closing:end] if rest.strip() == "," else rest + text[closing:end]
                replacement = text[start:last_end] + ", sort_keys=True" + tail
        fix = Fix(description, self.m.span(call), replacement)
        self.m.fixes[id(call)] = fix
        return fix


VARIES, FIXED, UNKNOWN = "varies", "fixed", "unknown"
RECEIVED = "it is received from outside"


def _combined(orders: list[tuple[str, str]], unknown_is_fixed: bool) -> tuple[str, str]:
    """The key order of a value made of parts: it varies if one part's does; in a dict literal
    the keys the code writes are fixed, and a part whose order is unknown is taken as fixed
    (that is the caller's dict, judged where it is built) unless ``unknown_is_fixed`` is False."""
    varying = next((o for o in orders if o[0] == VARIES), None)
    if varying is not None:
        return varying
    if unknown_is_fixed or all(o[0] == FIXED for o in orders):
        return FIXED, ""
    return UNKNOWN, ""


def _method(node: ast.expr) -> str | None:
    """The method a call calls (``items`` in ``schema.items()``), or None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _keys_of(node: ast.expr) -> bool:
    """``mapping.keys()``: the keys of a mapping, which are text or numbers."""
    return _method(node) == "keys" and isinstance(node, ast.Call) and not node.args


# Methods that write the JSON schema of a class (pydantic's model_json_schema, schema, json_schema):
# the class's fields in the order they are declared, the same bytes on every call.
_SCHEMA_METHODS = ("model_json_schema", "schema", "json_schema")


def _class_schema(node: ast.Call) -> bool:
    """A JSON schema generated from a class (``Answer.model_json_schema()``,
    ``TypeAdapter(Answer).json_schema()``, a helper named ``*_json_schema(cls)``)."""
    name = _method(node) or (node.func.id if isinstance(node.func, ast.Name) else "")
    return name in _SCHEMA_METHODS or name.endswith("_json_schema")
