"""A description a model reads, cut to a length where a tool or its schema is built.

``{"name": ..., "description": summary[:500], "parameters": {"type": "object", ...}}`` or a
property ``{"type": "string", "description": doc[:200]}``: the model picks a tool and fills its
arguments from these words, and a description cut mid-sentence reads as whole. The dict's shape
says where the text goes, whatever the module calls: a JSON Schema (its ``type`` a JSON type) or a
tool (a name, a description and a schema of its parameters).
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.knowledge import TOOL_SCHEMA_KEYS
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Cut, Observation, Source, SourceKind

_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object"})
# A cut to fewer characters than this fits a name or a label (a tool name is at most 64).
_LEAST = 100


class DescriptionCuts(Component):
    def description_cut(self, node: ast.Subscript, env: Env) -> Observation | None:
        """``text[:n]`` (n of at least 100, no marker after it) as the ``"description"`` of a dict
        literal shaped as a tool or a JSON Schema, in place or through the local name it is given."""
        parent = self.m.parents.get(id(node))
        value: ast.expr = node
        if isinstance(parent, ast.Assign):  # `description = description[:1024]`, read later
            parent, value = self.described_later(parent, env) or (None, node)
        if not isinstance(parent, ast.Dict) or value not in parent.values:
            return None
        key = parent.keys[parent.values.index(value)]
        if not (isinstance(key, ast.Constant) and key.value == "description"):
            return None
        bounds = self.cuts.bounds(node, env)
        if bounds is None:
            return None
        keeps, _, kept = bounds
        if keeps != "start" or kept is None or kept < _LEAST:
            return None
        what = self.described(parent, env)
        if what is None:
            return None
        source = Source(SourceKind.TRUNCATION, " ".join(self.m.code(node).split()), self.m.span(node), kept=kept,
                        cut=Cut("characters", "start", "description-cut"), strong=True)
        return Observation("description-cut", source.span, f"the description of {what} the model reads",
                           source=source)

    def described_later(self, statement: ast.Assign, env: Env) -> tuple[ast.Dict, ast.Name] | None:
        """The dict literal that later reads, as its ``"description"``, the local name a cut is
        given back to (``description = description[:1024]``, then ``{"description": description}``),
        when no statement of the function changes the name in between (a marker added, a fallback)."""
        if env.scope.kind != "function" or len(statement.targets) != 1 or \
                not isinstance(statement.targets[0], ast.Name):
            return None
        name = statement.targets[0].id
        cut_at = self.m.end(statement)
        if any(record.end > cut_at for record in env.scope.assigns.get(name, ())):
            return None  # given again after the cut: what the dict reads may not be the cut text
        for node in ast.walk(env.scope.node):
            if isinstance(node, ast.Dict) and self.m.start(node) > cut_at:
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "description" and \
                            isinstance(value, ast.Name) and value.id == name:
                        return node, value
        return None

    def described(self, entries: ast.Dict, env: Env) -> str | None:
        """What a dict literal with a description is: a tool (a name beside a schema of its
        parameters), a JSON Schema (its ``type`` a JSON type), or neither."""
        items = {k.value: v for k, v in zip(entries.keys, entries.values, strict=True)
                 if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        if "name" in items and any(k in TOOL_SCHEMA_KEYS or _schema(v) for k, v in items.items()):
            return "a tool"
        kind = items.get("type")
        if kind is not None and self.json_types(kind, env):
            return "a field of a JSON Schema"
        return None

    def json_types(self, node: ast.expr, env: Env, seen: frozenset[str] = frozenset()) -> bool:
        """Whether ``node`` is a JSON type by its value: ``"string"``, or a local name every value
        of which is one (``mapped = "integer" if kind in (...) else "string"``)."""
        if isinstance(node, ast.Name) and env.scope.kind == "function":
            if node.id in seen:
                return False  # `kind = kind if kind in (...) else "string"`: no type known
            values = [r.value for r in env.scope.assigns.get(node.id, ())]
            return bool(values) and all(v is not None and self.json_types(v, env, seen | {node.id}) for v in values)
        if isinstance(node, ast.IfExp):
            return self.json_types(node.body, env, seen) and self.json_types(node.orelse, env, seen)
        return isinstance(node, ast.Constant) and node.value in _JSON_TYPES


def _schema(node: ast.expr) -> bool:
    """A dict literal that is a JSON Schema of an object: ``{"type": "object", "properties": ...}``."""
    if not isinstance(node, ast.Dict):
        return False
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    return "properties" in keys
