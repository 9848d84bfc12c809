"""The allowed values of a response schema taken from a set of strings.

``Literal[tuple(options)]`` or ``schema[...]["enum"] = list(names)``, with ``options`` a set of
strings: the schema lists its choices in the set's order, which changes with each process's hash
seed, so the schema sent with every request (and any prompt text rendered from it) differs
between the workers of one service. Reported only when both ends are shown: the set's items are
strings (ints hash to themselves, so a set of them keeps one order), and the schema is passed to
a call as a schema (``schema_cls=``, ``response_format=``, ``json_schema=``) in the module.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.stringsets import MAX_HOPS, StringSets, copy_of
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, Observation, Source, SourceKind

# Keywords that hand a call the schema of the model's answer.
_SCHEMA_KEYWORDS = re.compile(r"(.*_)?schema(_.*)?|response_format|response_model|output_type|text_format")


class SchemaChoices(StringSets):

    def observe(self) -> list[Observation]:
        found: list[Observation] = []
        if "Literal" not in self.m.text and "enum" not in self.m.text:
            return found  # neither shape of a schema's choices is written in the module
        for node, scope, _fn in self.cut_sites.scoped_nodes():
            site = self.choices_site(node)
            if site is None:
                continue
            collection, holder = site
            observed = self.observed(collection, holder, Env(scope))
            if observed is not None and all(o.span != observed.span for o in found):
                found.append(observed)
        return found

    def choices_site(self, node: ast.AST) -> tuple[ast.expr, ast.expr] | None:
        """The collection that gives a schema its allowed values, and the expression that holds
        the schema afterwards: ``Literal[tuple(x)]`` inside ``model = create_model(...)``, or
        ``schema[...]["enum"] = x``."""
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Call) \
                and (self.m.qualified(node.value) or "").endswith("Literal"):
            statement = self.statement_of(node)
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                return node.slice, statement.targets[0]
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                    and target.slice.value == "enum":
                root: ast.expr = target
                while isinstance(root, ast.Subscript):
                    root = root.value
                collection = node.value
                if isinstance(collection, ast.BinOp) and isinstance(collection.op, ast.Add):
                    collection = collection.left  # `list(names) + ["User"]`: the set's part
                return collection, root
        return None

    def observed(self, collection: ast.expr, holder: ast.expr, env: Env) -> Observation | None:
        detail = self.flow.unordered(collection, env)
        if detail not in ("set", "frozenset") or not self.string_items(collection, env):
            return None
        sent = self.sent_as_schema(holder)
        if sent is None:
            return None
        origin = self.copied_at(collection, env)
        schema = self.m.code(holder)
        passed_as, value = sent
        shown = copy_of(collection) or collection  # the set's name rather than the copy around it
        steps = (Evidence(EvidenceKind.FLOW, f"`{self.m.code(shown)}` gives the allowed values of `{schema}`",
                          self.m.span(collection)),
                 Evidence(EvidenceKind.FLOW, f"`{schema}` is passed as `{passed_as}`", self.m.span(value)))
        source = Source(SourceKind.UNORDERED_ITERATION, "set", self.m.span(origin), flow=steps)
        goes = (f"the schema `{schema}` passed as `{passed_as}` (line {value.lineno}) lists its choices "
                "in a different order in each process")
        return Observation("schema-choices", self.m.span(origin), goes, source=source)

    def sent_as_schema(self, holder: ast.expr) -> tuple[str, ast.expr] | None:
        """Where the module passes the schema ``holder`` names as a schema: a call's keyword
        (``schema_cls=self.schema``) or a dict entry (``{"schema": self.schema}``), with its name."""
        name = self.m.dotted(holder)
        if name is None:
            return None
        for node in ast.walk(self.m.tree):
            if isinstance(node, ast.keyword) and node.arg is not None and _SCHEMA_KEYWORDS.fullmatch(node.arg) \
                    and self.m.dotted(node.value) == name:
                return node.arg, node.value
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str) \
                            and _SCHEMA_KEYWORDS.fullmatch(key.value) and self.m.dotted(value) == name:
                        return key.value, value
        return None

    def copied_at(self, node: ast.expr, env: Env) -> ast.expr:
        """Where the set is copied into a list a name keeps (``self.options = list(seen)``),
        which is where ``sorted(...)`` goes; else the collection itself."""
        for _ in range(MAX_HOPS):
            inner = copy_of(node)
            if inner is not None and isinstance(inner, (ast.Name, ast.Attribute)):
                binding = self.scopes.resolve(inner, env)
                if binding is not None and binding.owner is None and copy_of(binding.value) is not None:
                    node, env = binding.value, binding.env
                    continue
            return node
        return node

