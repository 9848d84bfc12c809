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

from ctxlint.frontends.python.cutsites import CutSites
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, Observation, Source, SourceKind

# Keywords that hand a call the schema of the model's answer.
_SCHEMA_KEYWORDS = re.compile(r"(.*_)?schema(_.*)?|response_format|response_model|output_type|text_format")
_STR_KEYED = re.compile(r"(typing\.)?(Dict|dict|Mapping|MutableMapping)\[\s*str\s*,")
_MAX_HOPS = 6


class SchemaChoices(Component):
    cut_sites: CutSites

    def observe(self) -> list[Observation]:
        found: list[Observation] = []
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
        if isinstance(node, ast.Subscript) and (self.m.qualified(node.value) or "").endswith("Literal") \
                and isinstance(node.slice, ast.Call):
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

    def statement_of(self, node: ast.AST) -> ast.AST | None:
        parent = self.m.parents.get(id(node))
        while parent is not None and not isinstance(parent, ast.stmt):
            parent = self.m.parents.get(id(parent))
        return parent

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
        shown = _copy_of(collection) or collection  # the set's name rather than the copy around it
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
        for _ in range(_MAX_HOPS):
            inner = _copy_of(node)
            if inner is not None and isinstance(inner, (ast.Name, ast.Attribute)):
                binding = self.scopes.resolve(inner, env)
                if binding is not None and binding.owner is None and _copy_of(binding.value) is not None:
                    node, env = binding.value, binding.env
                    continue
            return node
        return node

    def string_items(self, node: ast.expr, env: Env) -> bool:
        """Whether the set behind ``node`` is shown to hold strings."""
        for _ in range(_MAX_HOPS):
            inner = _copy_of(node)
            if inner is not None:
                node = inner
                continue
            if isinstance(node, (ast.Name, ast.Attribute)):
                binding = self.scopes.resolve(node, env)
                if binding is None or binding.owner is not None:
                    return False
                value = binding.value
                if isinstance(node, ast.Name) and isinstance(value, ast.Call) and _is_set_call(value, self) \
                        and not value.args:
                    return self.added_strings(node.id, binding.env)
                node, env = binding.value, binding.env
                continue
            break
        if isinstance(node, ast.Set):
            return all(self.text_item(e, env, ()) for e in node.elts)
        if isinstance(node, ast.SetComp):
            return self.text_item(node.elt, env, node.generators)
        if _is_set_call(node, self) and isinstance(node, ast.Call) and len(node.args) == 1:
            arg = node.args[0]
            if isinstance(arg, (ast.ListComp, ast.GeneratorExp)):
                return self.text_item(arg.elt, env, arg.generators)
            if isinstance(arg, (ast.List, ast.Tuple)):
                return bool(arg.elts) and all(self.text_item(e, env, ()) for e in arg.elts)
        return False

    def added_strings(self, name: str, env: Env) -> bool:
        """Whether every ``name.add(item)`` of the function adds a string."""
        fn = env.scope.node
        added = [node.args[0] for node in own_nodes(fn) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Attribute) and node.func.attr == "add"
                 and isinstance(node.func.value, ast.Name) and node.func.value.id == name and len(node.args) == 1]
        return bool(added) and all(self.text_item(item, env, ()) for item in added)

    def text_item(self, item: ast.expr, env: Env, generators: list[ast.comprehension] | tuple[()]) -> bool:
        """Whether ``item`` is a string: a literal, an f-string, ``str(...)``, a value its
        function checks with ``isinstance(item, str)``, or a key of a dict keyed by strings."""
        if isinstance(item, ast.Constant):
            return isinstance(item.value, str)
        if isinstance(item, ast.JoinedStr):
            return True
        if isinstance(item, ast.Call) and self.m.qualified(item.func) == "str":
            return True
        if isinstance(item, ast.Name):
            for comp in generators:
                if self.dict_key_of(item.id, comp, env):
                    return True
        return self.checked_str(item, env)

    def dict_key_of(self, name: str, comp: ast.comprehension, env: Env) -> bool:
        """``for name in d`` / ``d.keys()`` / ``for name, _ in d.items()`` over a dict keyed by strings."""
        target, source = comp.target, comp.iter
        if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name) \
                and target.elts[0].id == name and isinstance(source, ast.Call) \
                and isinstance(source.func, ast.Attribute) and source.func.attr == "items":
            return self.str_keyed(source.func.value, env)
        if isinstance(target, ast.Name) and target.id == name:
            if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "keys":
                source = source.func.value
            return self.str_keyed(source, env)
        return False

    def str_keyed(self, node: ast.expr, env: Env) -> bool:
        for _ in range(_MAX_HOPS):
            if isinstance(node, ast.Dict):
                return bool(node.keys) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                               for k in node.keys)
            if not isinstance(node, (ast.Name, ast.Attribute)):
                return False
            binding = self.scopes.resolve(node, env)
            if binding is None:
                annotation = self.callees.param_annotation(node.id, env) if isinstance(node, ast.Name) else None
                return annotation is not None and bool(_STR_KEYED.match(annotation))
            if binding.owner is not None:
                return False
            node, env = binding.value, binding.env
        return False

    def checked_str(self, item: ast.expr, env: Env) -> bool:
        """Whether the function ``item`` is in tests ``isinstance(item, str)``."""
        written = self.m.code(item)
        return any(isinstance(node, ast.Call) and self.m.qualified(node.func) == "isinstance"
                   and len(node.args) == 2 and isinstance(node.args[1], ast.Name) and node.args[1].id == "str"
                   and self.m.code(node.args[0]) == written for node in own_nodes(env.scope.node))


def _copy_of(node: ast.expr) -> ast.expr | None:
    """The collection ``list(x)`` / ``tuple(x)`` copies."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") \
            and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    return None


def _is_set_call(node: ast.expr, part: Component) -> bool:
    return isinstance(node, ast.Call) and part.m.qualified(node.func) in ("set", "frozenset")
