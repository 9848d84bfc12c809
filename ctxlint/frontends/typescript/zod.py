"""zod schemas, read statically and converted to the JSON Schema the SDKs send.

The MCP TypeScript SDK and the AI SDK turn a zod schema into JSON Schema before the model sees
it (zod 4's ``z.toJSONSchema`` with ``io: "input"``, or ``zod-to-json-schema`` for zod 3). The
conversion here follows what those converters write for the common building blocks:

- ``z.object({...})`` -> ``type: object``, ``properties``, ``required`` (every key that is not
  ``.optional()``, ``.nullish()`` or ``.default(...)``), ``additionalProperties: false``;
- ``z.string()`` / ``z.number()`` / ``z.boolean()`` / ``z.null()`` / ``z.any()``, with
  ``.min``/``.max``/``.length``, ``.int()``, ``.email()``/``.url()``/``.uuid()``/``.datetime()``,
  ``.regex(...)``;
- ``z.enum([...])``, ``z.literal(v)``, ``z.array(x)`` (and ``x.array()``), ``z.union([...])`` /
  ``x.or(y)`` (``anyOf``), ``.nullable()``, ``z.record(k, v)``, ``z.tuple([...])``;
- ``.describe(text)`` and ``.meta({description})`` -> ``description``; ``.default(v)`` ->
  ``default``.

Anything else (a refinement, a custom type, a schema built at run time) is kept as ``{}`` or
left out, and the conversion is then marked approximate. Converters also differ in details
between versions (key order; ``$schema``, which names the JSON Schema draft and is left out
here as metadata rather than text the model reads), so a count from a zod schema is always
labelled an estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Node = Any

# Methods that change validation or the value after parsing, not the input schema.
_NEUTRAL = {"trim", "toLowerCase", "toUpperCase", "transform", "refine", "superRefine", "pipe", "brand",
            "readonly", "catch", "check", "overwrite", "strip", "nonempty_message"}
_FORMATS = {"email": "email", "url": "uri", "uuid": "uuid", "datetime": "date-time", "date": "date",
            "time": "time", "ipv4": "ipv4", "ipv6": "ipv6", "cuid": "cuid", "emoji": "emoji"}
_BASES = {"string": {"type": "string"}, "number": {"type": "number"}, "boolean": {"type": "boolean"},
          "null": {"type": "null"}, "any": {}, "unknown": {}, "bigint": {"type": "integer", "format": "int64"},
          "int": {"type": "integer"}, "date": {"type": "string", "format": "date-time"},
          "email": {"type": "string", "format": "email"}, "url": {"type": "string", "format": "uri"},
          "uuid": {"type": "string", "format": "uuid"}}
_EXACT_BASES = {"string", "number", "boolean", "null", "any", "unknown", "int", "email", "url", "uuid"}


@dataclass
class Conversion:
    """A converted schema, whether it is required in its parent object, and what was guessed."""

    schema: dict
    optional: bool = False
    approximate: list[str] = field(default_factory=list)


class ZodReader:
    """Reads zod expressions through the module's names (``resolve``) and literals (``literal``)."""

    def __init__(self, code: Callable[[Node], str], resolve: Callable[[Node, Any], tuple[Node, Any]],
                 literal: Callable[[Node, Any], tuple[bool, object]], entries: Callable[[Node, Any], dict | None],
                 is_zod: Callable[[str], bool]):
        self.code = code
        self.resolve = resolve
        self.literal = literal
        self.entries = entries
        self.is_zod = is_zod

    def looks_like_zod(self, node: Node, env) -> bool:
        """Whether ``node`` is a zod expression (``z.string()...``, a name bound to one)."""
        node, _ = self.resolve(node, env)
        _, root = _call_chain(node, self.code)
        return root is not None and self.is_zod(self.code(root))

    def object_schema(self, shape: Node, env, root: bool = True) -> Conversion:
        """``z.object(shape)`` for a raw shape ``{key: zodType}`` (MCP's ``inputSchema: {...}``)."""
        result = Conversion({})
        entries = self.entries(shape, env)
        if entries is None:
            result.schema = {"type": "object"}
            result.approximate.append(f"the shape `{_short(self.code(shape))}` is built at run time")
            return result
        properties: dict[str, object] = {}
        required: list[str] = []
        for key, (value, venv, _) in entries.items():
            converted = self.convert(value, venv)
            properties[key] = converted.schema
            result.approximate.extend(converted.approximate)
            if not converted.optional:
                required.append(key)
        schema: dict[str, object] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        result.schema = schema
        return result

    def convert(self, node: Node, env, depth: int = 0) -> Conversion:
        """The JSON Schema of a zod expression."""
        node, env = self.resolve(node, env)
        if depth > 40:
            return Conversion({}, approximate=["the schema nests too deeply to read"])
        calls, root = _call_chain(node, self.code)
        unreadable = Conversion({}, approximate=[f"`{_short(self.code(node))}` is not a zod schema ctxlint can read"])
        if root is None or not calls:
            return unreadable
        if self.is_zod(self.code(root)):
            base, *modifiers = calls
            result = self.base(base, env, depth)
        else:  # `Shared.optional()`: a schema defined elsewhere in the module, then modified
            target, target_env = self.resolve(root, env)
            if target is root:
                return unreadable
            result, modifiers = self.convert(target, target_env, depth + 1), calls
        for method, args in modifiers:
            self.modify(result, method, args, env, depth)
        return result

    def base(self, call: tuple[str, list[Node]], env, depth: int) -> Conversion:
        name, args = call
        if name in _BASES:
            schema = dict(_BASES[name])
            approximate = [] if name in _EXACT_BASES else [f"z.{name}()"]
            return Conversion(schema, approximate=approximate)
        if name in ("object", "strictObject", "looseObject") and args:
            converted = self.object_schema(args[0], env, root=False)
            if name == "looseObject":
                converted.schema.pop("additionalProperties", None)
            return converted
        if name == "array" and args:
            inner = self.convert(args[0], env, depth + 1)
            return Conversion({"type": "array", "items": inner.schema}, approximate=inner.approximate)
        if name == "enum" and args:
            ok, values = self.literal(args[0], env)
            if ok and isinstance(values, list):
                return Conversion({"type": "string", "enum": values})
            return Conversion({"type": "string"}, approximate=["z.enum() of values built at run time"])
        if name == "literal" and args:
            ok, value = self.literal(args[0], env)
            if ok:
                return Conversion({**_type_of(value), "const": value})
            return Conversion({}, approximate=["z.literal() of a value built at run time"])
        if name in ("union", "discriminatedUnion") and args:
            options = args[-1]
            items = [c for c in options.named_children if c.type != "comment"] if options.type == "array" else []
            members = [self.convert(item, env, depth + 1) for item in items]
            combinator = "anyOf" if name == "union" else "oneOf"
            return Conversion({combinator: [c.schema for c in members]},
                              approximate=[a for c in members for a in c.approximate])
        if name == "record" and args:
            inner = self.convert(args[-1], env, depth + 1)
            record: dict[str, object] = {"type": "object"}
            if len(args) > 1:
                record["propertyNames"] = self.convert(args[0], env, depth + 1).schema
            record["additionalProperties"] = inner.schema
            return Conversion(record, approximate=inner.approximate)
        if name == "tuple" and args and args[0].type == "array":
            members = [self.convert(item, env, depth + 1) for item in args[0].named_children]
            return Conversion({"type": "array", "prefixItems": [c.schema for c in members]},
                              approximate=["z.tuple()"] + [a for c in members for a in c.approximate])
        if name in ("optional", "nullable", "nullish") and args:
            converted = self.convert(args[0], env, depth + 1)
            self.modify(converted, name, [], env, depth)
            return converted
        return Conversion({}, approximate=[f"z.{name}()"])

    def modify(self, result: Conversion, method: str, args: list[Node], env, depth: int) -> None:
        schema = result.schema
        number = self.number(args[0], env) if args else None
        kind = schema.get("type")
        if method == "describe" and args:
            ok, text = self.literal(args[0], env)
            if ok and isinstance(text, str):
                schema["description"] = text
            else:
                schema["description"] = ""
                result.approximate.append("a description built at run time")
        elif method == "meta" and args:
            ok, meta = self.literal(args[0], env)
            if ok and isinstance(meta, dict):
                schema.update({k: v for k, v in meta.items() if k in ("description", "title", "examples")})
            else:
                result.approximate.append("metadata built at run time")
        elif method == "optional":
            result.optional = True
        elif method == "nullish":
            result.optional = True
            result.schema = {"anyOf": [schema, {"type": "null"}]}
        elif method == "nullable":
            result.schema = {"anyOf": [schema, {"type": "null"}]}
        elif method in ("default", "prefault"):
            result.optional = True
            ok, value = self.literal(args[0], env) if args else (False, None)
            if ok:
                schema["default"] = value
            else:
                result.approximate.append("a default computed at run time")
        elif method == "array":
            result.schema = {"type": "array", "items": schema}
        elif method == "or" and args:
            other = self.convert(args[0], env, depth + 1)
            result.schema = {"anyOf": [schema, other.schema]}
            result.approximate.extend(other.approximate)
        elif method == "int":
            schema["type"] = "integer"
        elif method in _FORMATS:
            schema["format"] = _FORMATS[method]
        elif method == "regex" and args:
            pattern = self.code(args[0])
            schema["pattern"] = pattern[1 : pattern.rfind("/")] if pattern.startswith("/") else pattern
        elif method in ("min", "max", "length", "gte", "lte", "gt", "lt", "nonempty", "positive",
                        "nonnegative", "negative", "nonpositive"):
            _bound(schema, kind, method, number)
        elif method in ("strict",):
            schema["additionalProperties"] = False
        elif method in ("passthrough", "loose"):
            schema.pop("additionalProperties", None)
        elif method not in _NEUTRAL:
            result.approximate.append(f".{method}()")

    def number(self, node: Node, env) -> float | None:
        ok, value = self.literal(node, env)
        return value if ok and isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _bound(schema: dict, kind: object, method: str, number: float | None) -> None:
    size = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems")}.get(str(kind))
    if method == "nonempty":
        schema[size[0] if size else "minLength"] = 1
        return
    if method in ("positive", "negative", "nonnegative", "nonpositive"):
        key = {"positive": "exclusiveMinimum", "negative": "exclusiveMaximum", "nonnegative": "minimum",
               "nonpositive": "maximum"}[method]
        schema[key] = 0
        return
    if number is None:
        return
    value = int(number) if float(number).is_integer() else number
    if size is not None:
        if method in ("min", "gte", "length"):
            schema[size[0]] = value
        if method in ("max", "lte", "length"):
            schema[size[1]] = value
        return
    bound = {"min": "minimum", "gte": "minimum", "max": "maximum", "lte": "maximum", "gt": "exclusiveMinimum",
             "lt": "exclusiveMaximum"}.get(method)
    if bound:
        schema[bound] = value


def _type_of(value: object) -> dict:
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if value is None:
        return {"type": "null"}
    return {}


def _call_chain(node: Node, code: Callable[[Node], str]) -> tuple[list[tuple[str, list[Node]]], Node | None]:
    """``z.string().min(2).describe("x")`` -> ([("string", []), ("min", [2]), ("describe", ["x"])], z):
    the method calls in order and what the first is called on (None when it is not a chain of
    method calls on a name). Names are read with ``code``: ``Node.text`` of a tree parsed from a
    reader calls the reader again, which copies 64 KB of the module each time."""
    calls: list[tuple[str, list[Node]]] = []
    while node is not None and node.type == "call_expression":
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or function.type != "member_expression":
            return [], None
        prop = function.child_by_field_name("property")
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
        calls.append((code(prop) if prop is not None else "", args))
        node = function.child_by_field_name("object")
    if node is None or node.type not in ("identifier", "member_expression"):
        return [], None
    return calls[::-1], node


def _short(code: str) -> str:
    code = " ".join(code.split())
    return code if len(code) <= 40 else code[:37] + "..."
