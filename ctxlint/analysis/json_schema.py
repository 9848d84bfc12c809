"""What makes a tool's parameter schema invalid, read as JSON Schema reads it.

Composition counts: a property named in ``required`` may be defined by the schema itself, by an
``allOf``/``anyOf``/``oneOf`` branch (or ``if``/``then``/``else``), through a local ``$ref``
(``#/$defs/Name``), or, for a branch, by the schema around it (``oneOf: [{required: [a]},
{required: [b]}]`` next to ``properties``), since all of them describe the same object. A root
that is an object only through composition (``allOf`` of objects, a ``$ref`` to one) is not
reported as lacking ``type: object``, and a schema of annotations only (``$schema``, ``title``)
is an empty schema. Each problem is one actionable sentence.
"""

from __future__ import annotations

from collections.abc import Mapping

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
_MAX_DEPTH = 64
# Type names from programming languages, and the JSON Schema type they mean.
_TYPE_FIXES = {"int": "integer", "long": "integer", "str": "string", "text": "string", "float": "number",
               "double": "number", "decimal": "number", "bool": "boolean", "dict": "object", "map": "object",
               "list": "array", "tuple": "array", "none": "null"}
# Keywords that describe a schema without constraining it: a schema of these only accepts anything.
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default", "$defs",
                          "definitions"})
_BRANCHES = ("allOf", "anyOf", "oneOf")
# Subschemas applied to the same object as the schema around them (besides the branches).
_APPLIED = ("if", "then", "else", "not")


def schema_problems(schema: object, path: str, gemini: bool = False) -> list[str]:
    """What makes a tool's parameter schema invalid, each as one actionable sentence. With
    ``gemini``, Gemini's own schema types (``OBJECT``, ``STRING``: its ``Schema`` enum) count too."""
    if not isinstance(schema, Mapping):
        return [f"`{path}` must be a JSON Schema object with `type: object`, not "
                f"{_kind(schema)}; the request is rejected. Write "
                "`{type: object, properties: {...}}`."]
    if not schema.keys() - _ANNOTATIONS:
        return []  # no constraint: a tool without parameters
    problems: list[str] = []
    walker = _Walker(schema, problems, gemini)
    if not walker.is_object(schema, 0):
        top_type = schema.get("type")
        shown = "no `type`" if top_type is None else f"`type: {_short(top_type)}`"
        problems.append(f"`{path}` has {shown}; tool parameters must be `type: object` with the "
                        "arguments under `properties`, or the request is rejected.")
    walker.walk(schema, path, frozenset(), 0, top=True)
    return problems


def _resolve(node: Mapping, root: Mapping) -> Mapping | None:
    """The schema a local ``$ref`` (``#/$defs/Name``, ``#/properties/x``) points to."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    target: object = root
    for part in ref[1:].split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        target = target.get(part) if isinstance(target, Mapping) else None
    return target if isinstance(target, Mapping) else None


class _Walker:
    """Walks one root schema, resolving its local references."""

    def __init__(self, root: Mapping, problems: list[str], gemini: bool = False) -> None:
        self.root = root
        self.problems = problems
        self.gemini = gemini
        # Answers by schema: references can make a shared schema reachable along many paths.
        self.objects: dict[int, bool] = {}
        self.names: dict[int, tuple[frozenset[str], bool]] = {}

    def is_object(self, node: Mapping, depth: int) -> bool:
        """Whether every instance the schema accepts is an object: ``type: object``, or a
        composition whose branches make it one."""
        if depth > _MAX_DEPTH or id(node) in self.objects:
            return self.objects.get(id(node), True)  # too deep, or a cycle: not reported
        self.objects[id(node)] = True
        kind = node.get("type")
        if kind is not None:
            found = kind == "object" or (self.gemini and kind == "OBJECT")
        elif (target := _resolve(node, self.root)) is not None:
            found = self.is_object(target, depth + 1)
        else:
            branches = node.get("allOf")
            found = isinstance(branches, list) and any(
                isinstance(b, Mapping) and self.is_object(b, depth + 1) for b in branches)
            for keyword in ("anyOf", "oneOf"):
                variants = node.get(keyword)
                found = found or (isinstance(variants, list) and bool(variants) and all(
                    isinstance(v, Mapping) and self.is_object(v, depth + 1) for v in variants))
        self.objects[id(node)] = found
        return found

    def defined(self, node: Mapping, depth: int, seen: frozenset[int] = frozenset()) -> tuple[frozenset[str], bool]:
        """The property names the schema and its composition define, and whether it accepts
        names it does not list (``patternProperties``, a schema under ``additionalProperties``)."""
        if id(node) in self.names:
            return self.names[id(node)]
        if depth > _MAX_DEPTH or id(node) in seen:
            return frozenset(), True  # too deep, or a cycle: any name may be defined
        seen = seen | {id(node)}
        properties = node.get("properties")
        names = set(properties) if isinstance(properties, Mapping) else set()
        open_ = isinstance(node.get("patternProperties"), Mapping) or isinstance(node.get("additionalProperties"),
                                                                                  Mapping)
        related = [node.get(k) for k in _APPLIED]
        for keyword in _BRANCHES:
            variants = node.get(keyword)
            if isinstance(variants, list):
                related.extend(variants)
        related.append(_resolve(node, self.root))
        for other in related:
            if isinstance(other, Mapping):
                more, more_open = self.defined(other, depth + 1, seen)
                names |= more
                open_ = open_ or more_open
        found = self.names[id(node)] = (frozenset(names), open_)
        return found

    def walk(self, node: Mapping, path: str, outer: frozenset[str], depth: int, top: bool = False,
             outer_open: bool = False) -> None:
        """Check ``node``; ``outer`` are the names the schemas it is composed with define."""
        if depth > _MAX_DEPTH:
            return
        kind = node.get("type")
        if kind is not None and not top:
            kinds = kind if isinstance(kind, list) else [kind]
            bad = [k for k in kinds if not isinstance(k, str) or (
                k not in JSON_TYPES and not (self.gemini and k.lower() in JSON_TYPES and k.isupper()))]
            if bad or not kinds:
                hint = _TYPE_FIXES.get(bad[0]) if bad and isinstance(bad[0], str) else None
                use = f"Use `{hint}`." if hint else f"Use one of {', '.join(JSON_TYPES)}."
                self.problems.append(f"`{path}.type` is `{_short(kind)}`, not a JSON Schema type, so the schema "
                                     f"is rejected. {use}")
        properties = node.get("properties")
        if properties is not None and not isinstance(properties, Mapping):
            self.problems.append(f"`{path}.properties` is {_kind(properties)}; it must map each argument name to "
                                 "its schema. Write `properties: {name: {type: string}}`.")
        own, open_ = self.defined(node, depth)
        known, open_ = own | outer, open_ or outer_open
        self.required(node.get("required"), path, known, open_)
        if isinstance(properties, Mapping):
            for name, sub in properties.items():
                where = f"{path}.properties.{name}"
                if isinstance(sub, Mapping):
                    self.walk(sub, where, frozenset(), depth + 1)
                elif not isinstance(sub, bool):
                    self.problems.append(f"`{where}` is {_kind(sub)}; a property must be a schema object "
                                         "such as `{type: string, description: ...}`.")
        for keyword in ("items", "additionalProperties"):
            sub = node.get(keyword)
            if isinstance(sub, Mapping):
                self.walk(sub, f"{path}.{keyword}", frozenset(), depth + 1)
        for keyword in ("$defs", "definitions"):
            defs = node.get(keyword)
            if isinstance(defs, Mapping):
                for name, sub in defs.items():
                    if isinstance(sub, Mapping):
                        self.walk(sub, f"{path}.{keyword}.{name}", frozenset(), depth + 1)
        # A branch describes the same object as the schema around it: it may require what that defines.
        for keyword in _BRANCHES:
            variants = node.get(keyword)
            if isinstance(variants, list):
                for index, variant in enumerate(variants):
                    if isinstance(variant, Mapping):
                        self.walk(variant, f"{path}.{keyword}[{index}]", known, depth + 1, outer_open=open_)
        for keyword in _APPLIED:
            sub = node.get(keyword)
            if isinstance(sub, Mapping):
                self.walk(sub, f"{path}.{keyword}", known, depth + 1, outer_open=open_)

    def required(self, required: object, path: str, known: frozenset[str], open_: bool) -> None:
        if required is None:
            return
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            self.problems.append(f"`{path}.required` must be a list of property names, not {_kind(required)}.")
            return
        missing = [r for r in required if r not in known]
        if missing and not open_:
            names = ", ".join(f"`{m}`" for m in missing)
            self.problems.append(f"`{path}.required` lists {names}, not defined in `{path}.properties`; the "
                                 "model is told to send an argument it knows nothing about, and strict mode "
                                 "rejects the schema. Define it or remove it from `required`.")


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"the string `{_short(value)}`"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    return "an object"


def _short(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
