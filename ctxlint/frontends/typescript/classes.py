"""The project's own classes, as far as types written in the code show them: the type an
expression is declared with, the declaration a type name stands for in this module or one it
imports, the subclasses of the tree that implement a method, and the places that construct them.

TypeScript code reaches a model through its own classes (``input.llm.generateObject({...})`` on
an ``llm: BaseLLM<any>`` whose subclasses call the SDK): what the call sends is decided by those
subclasses, in modules the calling one never imports. Types are read as written, never inferred
beyond what this reads: a parameter's or a property's annotation, an object literal given a
declared type (``const widget: Widget = { execute: async (input) => ... }`` types ``input`` by
``Widget``'s ``execute``), a name or field bound to ``new C(...)`` or to what a function declares
it returns, an instance imported from the tree, and ``this`` of the enclosing class. An interface
is followed to the classes that implement it as a class is to those that extend it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ctxlint.discover import DEFAULT_TEST_PATHS, SKIP_DIRS, glob_any
from ctxlint.frontends.typescript.knowledge import MAX_RESOLVE, Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.project import MAX_BYTES, SUFFIXES
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, Scope

CLASSES = ("class_declaration", "abstract_class_declaration", "class")
_DECLARATIONS = (*CLASSES, "interface_declaration", "type_alias_declaration")
# What a name bound once may hold whose type the code declares: an object built, or what a call returns.
_BUILT = ("new_expression", "call_expression", "await_expression")
MAX_HOPS = 6  # property accesses and imports a type is followed through
MAX_SUBCLASS_DEPTH = 4


@dataclass(eq=False)
class Classes:
    """Types and classes of one module. What it answers about another module (a declaration, a
    subclass) comes with that module's own ``Classes``, since the nodes are that module's."""

    m: Module
    names: Names
    _declared: dict[str, Node] | None = None
    _default: str | None = None

    def declarations(self) -> dict[str, Node]:
        """The module's top-level classes, interfaces and type aliases, by name."""
        if self._declared is None:
            self._declared = {}
            for node in self.m.root.named_children:
                inner = self.m.field(node, "declaration") if node.type == "export_statement" else node
                if inner is not None and inner.type in _DECLARATIONS:
                    name = self.m.field(inner, "name")
                    if name is not None:
                        self._declared[self.m.code(name)] = inner
                if node.type == "expression_statement" and (exported := _commonjs_export(self.m, node)):
                    self._default = exported  # `module.exports = Provider`
                if node.type == "export_statement" and any(c.type == "default" for c in node.children):
                    value = self.m.field(node, "value")
                    if value is not None and value.type == "identifier":
                        self._default = self.m.code(value)
                    elif inner is not None and (name := self.m.field(inner, "name")) is not None:
                        self._default = self.m.code(name)
        return self._declared

    def default_export(self) -> str | None:
        """The name the module exports as its default (``export default BaseLLM``)."""
        self.declarations()
        return self._default

    def declared(self, name: str, hops: int = 0) -> tuple[Classes, Node] | None:
        """The declaration ``name`` stands for here: the module's own, or one it imports from a
        module of the tree (by name, or as that module's default export)."""
        if hops > MAX_HOPS or not name.isidentifier():
            return None
        own = self.declarations().get(name)
        if own is not None:
            return self, own
        found = self.imported(name)
        return found[0].declared(found[1], hops + 1) if found is not None else None

    def imported(self, name: str) -> tuple[Classes, str] | None:
        """The module of the tree ``name`` is imported from, and its name there: imported by name,
        or as that module's default export (``import BaseLLM from "./llm"``)."""
        source = self.m.imports.get(name)
        if source is None or name in self.m.namespaces:
            return None
        if "." not in source.rsplit("/", 1)[-1]:
            module = self.names.imported_module(name, deeper=1)
            exported = module.classes.default_export() if module is not None else None
            return (module.classes, exported) if module is not None and exported else None
        found = self.names.imported_name(name)
        return (found[0].classes, found[1]) if found is not None else None

    def named_type(self, annotation: str, hops: int = 0) -> tuple[Classes, Node] | None:
        """The declaration of a type written ``Name``, ``Name<Args>`` or ``Promise<Name>``."""
        text = annotation.strip().lstrip(":").strip()
        name = text.split("<", 1)[0].strip()
        if name == "Promise" and text.endswith(">"):  # what an async function gives, awaited
            return self.named_type(text[len(name) + 1:-1], hops + 1)
        return self.declared(name, hops) if name.isidentifier() else None

    def expression_type(self, node: Node, env: Env, hops: int = 0) -> tuple[Classes, Node] | None:
        """The declaration of the type ``node`` is declared with, as written in the code."""
        node = self.m.unwrap(node)
        if node is None or hops > MAX_HOPS:
            return None
        if node.type == "identifier":
            return self._name_type(self.m.code(node), env, hops)
        if node.type == "await_expression" and node.named_children:
            return self.expression_type(node.named_children[0], env, hops + 1)
        if node.type == "new_expression":
            constructor = self.m.field(node, "constructor")
            return self.declared(self.m.code(constructor), hops + 1) \
                if constructor is not None and constructor.type == "identifier" else None
        if node.type == "call_expression":
            return self._returned_type(node, env, hops + 1)
        if node.type == "this":  # `this.complete(...)`: a method of the enclosing class
            enclosing = self._enclosing_class(node)
            return (self, enclosing) if enclosing is not None else None
        if node.type != "member_expression":
            return None
        base, prop = self.m.unwrap(self.m.field(node, "object")), self.m.field(node, "property")
        if base is None or prop is None:
            return None
        owner_decl = self.expression_type(base, env, hops + 1)  # `this.llm`: a field of the enclosing class
        if owner_decl is None:
            return None
        owner, declaration = owner_decl
        annotation = owner.property_annotation(declaration, self.m.code(prop))
        return owner.named_type(annotation, hops + 1) if annotation else None

    def _name_type(self, name: str, env: Env, hops: int) -> tuple[Classes, Node] | None:
        scope: Scope | None = env.scope
        while scope is not None:
            if name in scope.assigns:
                records = scope.assigns[name]
                built = records[0].value if len(records) == 1 else None
                return self.expression_type(built, Env(scope), hops + 1) \
                    if built is not None and self.m.unwrap(built).type in _BUILT else None
            if name in scope.params:
                annotation = scope.params[name]
                if annotation:
                    return self.named_type(annotation, hops + 1)
                return self._contextual(scope, name, hops)
            scope = scope.parent
        found = self.names.imported_constant(name)  # `import { llm } from "./models"`
        return found[0].classes.expression_type(found[1], found[2], hops + 1) \
            if found is not None and found[1].type in _BUILT else None

    def _returned_type(self, call: Node, env: Env, hops: int) -> tuple[Classes, Node] | None:
        """The declaration of the type a called function or method declares it returns
        (``function loadModel(key: string): BaseLLM``, ``loadChatModel(): Promise<BaseLLM<any>>``)."""
        callee = self.m.unwrap(self.m.field(call, "function"))
        if callee is None:
            return None
        if callee.type == "identifier":
            name = self.m.code(callee)
            scope: Scope | None = env.scope
            while scope is not None and name not in scope.functions:
                scope = scope.parent
            if scope is not None:
                returned = self.m.field(scope.functions[name].node, "return_type")
                return self.named_type(self.m.code(returned), hops + 1) if returned is not None else None
            found = self.names.imported_name(name)
            function = found[0].m.module_scope.functions.get(found[1]) if found is not None else None
            returned = found[0].m.field(function.node, "return_type") if found is not None and function else None
            return found[0].classes.named_type(found[0].m.code(returned), hops + 1) \
                if found is not None and returned is not None else None
        if callee.type != "member_expression" or (prop := self.m.field(callee, "property")) is None:
            return None
        typed = self.expression_type(self.m.field(callee, "object"), env, hops + 1)
        member = typed[0].member(typed[1], self.m.code(prop)) if typed is not None else None
        returned = typed[0].m.field(member, "return_type") if typed is not None and member is not None else None
        return typed[0].named_type(typed[0].m.code(returned), hops + 1) \
            if typed is not None and returned is not None else None

    def _contextual(self, scope: Scope, name: str, hops: int) -> tuple[Classes, Node] | None:
        """An unannotated parameter of a function written as a property of an object literal given
        a declared type (``const w: Widget = { execute: async (input) => ... }``): the type of that
        parameter in the declared property's function type."""
        function = scope.node
        pair = function.parent if function is not None else None
        if pair is None or pair.type != "pair" or name not in scope.positional:
            return None
        literal = pair.parent
        declarator = literal.parent if literal is not None and literal.type == "object" else None
        typed = self.m.field(declarator, "type") if declarator is not None and \
            declarator.type == "variable_declarator" else None
        key = self.m.key_text(self.m.field(pair, "key"))
        found = self.named_type(self.m.code(typed), hops + 1) if typed is not None else None
        if found is None or key is None:
            return None
        owner, declaration = found
        member = owner.member(declaration, key)
        signature = owner.m.field(member, "type") if member is not None else None
        function_type = owner._type_of(signature)
        if function_type is None or function_type.type != "function_type":
            return None
        params = owner.m.field(function_type, "parameters")
        listed = [p for p in params.named_children if p.type in ("required_parameter", "optional_parameter")] \
            if params is not None else []
        index = scope.positional.index(name)
        if index >= len(listed):
            return None
        annotation = owner.m.field(listed[index], "type")
        return owner.named_type(owner.m.code(annotation), hops + 1) if annotation is not None else None

    def _type_of(self, annotation: Node | None) -> Node | None:
        if annotation is None:
            return None
        return annotation.named_children[0] if annotation.type == "type_annotation" and \
            annotation.named_children else annotation

    def _enclosing_class(self, node: Node) -> Node | None:
        current = node.parent
        for _ in range(MAX_RESOLVE * 4):
            if current is None:
                return None
            if current.type in CLASSES:
                return current
            current = current.parent
        return None

    def member(self, declaration: Node, name: str) -> Node | None:
        """The property, field or method ``name`` of a class, interface or object type."""
        body = self.m.field(declaration, "body") if declaration.type != "type_alias_declaration" \
            else self.m.field(declaration, "value")
        if body is None:
            return None
        for child in body.named_children:
            if child.type in ("property_signature", "public_field_definition", "method_definition",
                              "abstract_method_signature", "method_signature"):
                own = self.m.field(child, "name")
                if own is not None and self.m.code(own) == name:
                    return child
        return None

    def property_annotation(self, declaration: Node, name: str) -> str | None:
        """The type a property is declared with, on the declaration or (a class's) in its
        constructor's parameter properties (``constructor(private llm: BaseLLM)``)."""
        member = self.member(declaration, name)
        annotation = self.m.field(member, "type") if member is not None and member.type in (
            "property_signature", "public_field_definition") else None
        if annotation is not None:
            return self.m.code(annotation)
        built = self.m.unwrap(self.m.field(member, "value")) if member is not None and \
            member.type == "public_field_definition" else None
        constructor = self.m.field(built, "constructor") if built is not None and built.type == "new_expression" \
            else None
        if constructor is not None and constructor.type == "identifier":  # `private llm = new OpenAILLM(...)`
            return self.m.code(constructor)
        if declaration.type in CLASSES:
            found = self.constructor_field(declaration, name)
            if found is not None:
                return found[1]
        return None

    def constructor_field(self, declaration: Node, name: str) -> tuple[int, str] | None:
        """The position and type of the constructor parameter a class keeps as field ``name``: a
        parameter property (``constructor(protected config: Config)``), or ``this.name = param``."""
        constructor = self.member(declaration, "constructor")
        params = self.m.field(constructor, "parameters") if constructor is not None else None
        if params is None:
            return None
        listed = [p for p in params.named_children if p.type in ("required_parameter", "optional_parameter")]
        for index, param in enumerate(listed):
            pattern = self.m.field(param, "pattern")
            if pattern is None or pattern.type != "identifier":
                continue
            typed = self.m.field(param, "type")
            annotation = self.m.code(typed) if typed is not None else ""
            own = self.m.code(pattern)
            kept = any(c.type == "accessibility_modifier" or c.type == "readonly" for c in param.children)
            if kept and own == name:
                return index, annotation
            body = self.m.field(constructor, "body")
            if body is not None and re.search(rf"\bthis\.{re.escape(name)}\s*=\s*{re.escape(own)}\s*;?\s*$",
                                              self.m.code(body), re.MULTILINE):
                return index, annotation
        return None

    def base_of(self, declaration: Node) -> tuple[Classes, Node] | None:
        """The class a class extends, when the tree declares it."""
        value = self._extended(declaration)
        return self.declared(self.m.code(value)) if value is not None and value.type == "identifier" else None

    def mixed_in(self, declaration: Node) -> list[tuple[Classes, Node]]:
        """The classes of the tree a class extends through a function that mixes them
        (``extends InheritMultiple([Provider, UnTooled])``, ``extends Mixin(Base, Other)``)."""
        value = self._extended(declaration)
        if value is None or value.type != "call_expression":
            return []
        arguments = self.m.args(value)
        names = [e for a in arguments for e in (a.named_children if a.type == "array" else (a,))]
        found = [self.declared(self.m.code(n)) for n in names if n.type == "identifier"]
        return [f for f in found if f is not None]

    def _extended(self, declaration: Node) -> Node | None:
        """What a class extends: TypeScript's grammar puts it in an ``extends_clause``,
        JavaScript's right under the heritage."""
        heritage = next((c for c in declaration.named_children if c.type == "class_heritage"), None)
        if heritage is None:
            return None
        clause = next((c for c in heritage.named_children if c.type == "extends_clause"), None)
        if clause is not None:
            return self.m.field(clause, "value")
        return next((c for c in heritage.named_children if c.type != "implements_clause"), None)

    def implemented(self, declaration: Node) -> list[tuple[Classes, Node]]:
        """The interfaces of the tree a class declares it implements."""
        heritage = next((c for c in declaration.named_children if c.type == "class_heritage"), None)
        clause = next((c for c in heritage.named_children if c.type == "implements_clause"), None) \
            if heritage is not None else None
        found = [self.named_type(self.m.code(t)) for t in clause.named_children] if clause is not None else []
        return [f for f in found if f is not None]

    def method(self, declaration: Node, name: str) -> tuple[Classes, Node, Node] | None:
        """A method with a body the class declares or inherits from a class of the tree, with the
        module and the class that declare it."""
        current: tuple[Classes, Node] | None = (self, declaration)
        for _ in range(MAX_SUBCLASS_DEPTH):
            if current is None:
                return None
            found = current[0].member(current[1], name)
            if found is not None and found.type == "method_definition" and current[0].m.field(found, "body"):
                return current[0], current[1], found
            if found is not None and found.type != "method_definition":
                return None  # declared here without a body: abstract, or a property holding a function
            current = current[0].base_of(current[1])
        return None

    def subclasses(self, declaration: Node, depth: int = 0) -> list[tuple[Classes, Node]]:
        """The classes of the linted tree that extend ``declaration`` (and theirs in turn), each
        shown to name this very class through its imports."""
        if depth >= MAX_SUBCLASS_DEPTH:
            return []
        found = []
        for classes, declared in self.direct_subclasses(declaration):
            found.append((classes, declared))
            found.extend(classes.subclasses(declared, depth + 1))
        return found

    def direct_subclasses(self, declaration: Node) -> list[tuple[Classes, Node]]:
        """The classes of the linted tree that name ``declaration`` itself as their base (or one
        of the classes they mix, or an interface they implement), through their imports."""
        name = self.m.field(declaration, "name")
        index = tree_index(self.m.project.root)
        if name is None or index is None:
            return []
        found = []
        for path, subclass in index.subclasses.get(self.m.code(name), []):
            module = self.m.project.read_file(path)
            if module is None or (declared := module.classes.declarations().get(subclass)) is None:
                continue
            named = [module.classes.base_of(declared), *module.classes.mixed_in(declared),
                     *module.classes.implemented(declared)]
            if any(base is not None and base[1].start_byte == declaration.start_byte
                   and self._tree_paths(base[0].m.path) & self._tree_paths(self.m.path) for base in named):
                found.append((module.classes, declared))
        return found

    def _tree_paths(self, path: str) -> set[str]:
        """Where a module's path may be: a relative one is taken from the working folder or, as
        the project's reads of imports take it too, from the tree's root."""
        root = self.m.project.root
        return {os.path.abspath(path), *((os.path.abspath(os.path.join(root, path)),)
                                         if root and not os.path.isabs(path) else ())}

    def constructions(self, class_name: str) -> list[tuple[Classes, Node]]:
        """The ``new ClassName(...)`` expressions of the linted tree (modules that write it)."""
        index = tree_index(self.m.project.root)
        found = []
        for path in index.constructed.get(class_name, []) if index is not None else []:
            module = self.m.project.read_file(path)
            if module is None:
                continue
            stack = [module.m.root]
            while stack:
                node = stack.pop()
                if node.type == "new_expression":
                    built = module.m.field(node, "constructor")
                    if built is not None and module.m.code(built) == class_name:
                        found.append((module.classes, node))
                stack.extend(node.named_children)
        return found


def _commonjs_export(m: Module, statement: Node) -> str | None:
    """The name a CommonJS module exports whole (``module.exports = Provider``)."""
    assignment = statement.named_children[0] if statement.named_children else None
    if assignment is None or assignment.type != "assignment_expression":
        return None
    left, right = m.field(assignment, "left"), m.field(assignment, "right")
    if left is None or right is None or m.code(left) != "module.exports" or right.type != "identifier":
        return None
    return m.code(right)


@dataclass
class TreeIndex:
    """Which files of the linted tree declare a class extending or implementing a name, and which
    construct a class."""

    subclasses: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    constructed: dict[str, list[str]] = field(default_factory=dict)
    called: dict[str, list[str]] = field(default_factory=dict)  # a method's name -> the files that call it
    rendered: dict[str, set[str]] = field(default_factory=dict)  # a type -> its fields a function joins into text
    imported: dict[str, list[str]] = field(default_factory=dict)  # a name -> the files that import it by name

    def used_elsewhere(self, name: str, path: str) -> bool:
        """Whether a module of the tree other than ``path`` imports ``name`` by name or calls a
        method of that name (`hv.estimateTokens(...)` after `import * as hv`)."""
        here = os.path.abspath(path)
        return any(os.path.abspath(other) != here
                   for other in (*self.imported.get(name, ()), *self.called.get(name, ())))


MAX_INDEXED = 20_000
# `class Name<T> extends Base<T> implements One, Two<U> {`: the names after `extends` and `implements`.
# Bounded, so that a file of `class A extends` with no brace costs a scan, not its square.
_HERITAGE = re.compile(rb"\bclass\s+([A-Za-z_$][\w$]*)(?:\s*<[^{]{0,300}?>)?\s+((?:extends|implements)\b[^{]{0,600})\{")
# The names a mixing function is given count too (`extends InheritMultiple([Provider, UnTooled])`).
_HERITAGE_NAME = re.compile(rb"(?:extends|implements|,|\(|\[)\s*([A-Za-z_$][\w$]*)")
_NEW = re.compile(rb"\bnew\s+([A-Za-z_$][\w$]*)\s*[(<]")
_CALLED = re.compile(rb"\.\s*([A-Za-z_$][\w$]*)\s*\(")  # `x.name(`, `this.#name(`: a method called by name
# `(items: ContextItem[]) => items.map((item) => item.content).join("\n\n")`: a function that gives
# back the text of a field of every item of a declared type, joined (rendered_parts.py).
_RENDERS = re.compile(rb"(\w+)\s*:\s*([A-Z][\w$]*)\[\]\s*\)[^{;=]{0,40}(?:\{\s*return\s+|=>\s*)\1\s*"
                      rb"\.map\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*\3\.(\w+)\s*\)\s*\.join\(")
# `import { a, b as c } from "./m"`, `const { a, b: c } = require("./m")`: the names a module imports.
_IMPORTED = re.compile(rb"\b(?:import(?:\s+type)?(?:\s+[A-Za-z_$][\w$]*\s*,)?|const|let|var)\s*"
                       rb"\{([^{}]{0,2000})\}\s*(?:from\b|=\s*require\s*\()")
_IMPORTED_NAME = re.compile(rb"(?:^|,)\s*(?:type\s+)?([A-Za-z_$][\w$]*)")
_INDEXES: dict[str, TreeIndex | None] = {}


def tree_index(root: str) -> TreeIndex | None:
    """The index of the tree under ``root``, made once per run by a text scan (no parsing); None
    when no tree was given (a file linted alone has no subclasses to find)."""
    if not root:
        return None
    key = os.path.abspath(root)  # a relative root names another tree from another folder
    if key not in _INDEXES:
        _INDEXES.clear()  # one tree per run
        _INDEXES[key] = _scan(root)
    return _INDEXES[key]


def _tree_files(root: str) -> Iterator[tuple[str, bytes]]:
    """The modules of the tree under ``root`` and their bytes, in a stable order. Tests are left out
    with what discovery never enters: a test's mock subclass sends no request, and would hide what
    the real ones send; a test's call passes made-up values."""
    read = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")
                         and not glob_any(DEFAULT_TEST_PATHS, d))
        for file in sorted(files):
            if read >= MAX_INDEXED:
                return
            if not file.endswith(SUFFIXES) or file.endswith(".d.ts") or glob_any(DEFAULT_TEST_PATHS, file):
                continue
            path = os.path.join(folder, file)
            try:
                if os.path.getsize(path) > MAX_BYTES:
                    continue
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            read += 1
            yield path, data


def _scan(root: str) -> TreeIndex:
    index = TreeIndex()
    for path, data in _tree_files(root):
        for called in {match.group(1) for match in _CALLED.finditer(data)}:
            index.called.setdefault(called.decode(), []).append(path)
        for match in _HERITAGE.finditer(data):
            heritage = match.group(2)
            for _ in range(3):  # type arguments, nested up to three deep
                heritage = re.sub(rb"<[^<>]*>", b"", heritage)
            for base in {b.group(1) for b in _HERITAGE_NAME.finditer(heritage)}:
                index.subclasses.setdefault(base.decode(), []).append((path, match.group(1).decode()))
        for name in {m.group(1) for m in _NEW.finditer(data)}:
            index.constructed.setdefault(name.decode(), []).append(path)
        for match in _IMPORTED.finditer(data):
            for name in {n.group(1) for n in _IMPORTED_NAME.finditer(match.group(1))}:
                index.imported.setdefault(name.decode(), []).append(path)
        for match in _RENDERS.finditer(data) if b".join(" in data else ():
            index.rendered.setdefault(match.group(2).decode(), set()).add(match.group(4).decode())
    return index
