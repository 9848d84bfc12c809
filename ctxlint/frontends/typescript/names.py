"""What a name, a property or a call refers to: the assignment visible where it is read (through
scopes, loops and the arguments bound to a function's parameters), the entries of an object
literal, the items of an array, the module's own function a call runs, and constants imported
from other modules of the tree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxlint.frontends.code.assigns import seen_at
from ctxlint.frontends.typescript.knowledge import MAX_IMPORT_DEPTH, MAX_RESOLVE, TIMELINE_FROM, Node
from ctxlint.frontends.typescript.patterns import at_place, object_fills, placed
from ctxlint.frontends.typescript.syntax import enclosing
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Assign, Binding, Env, Function, Item, Scope, Timeline
from ctxlint.providers import LIMIT_KEYS

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.analyzer import Analyzer


@dataclass(eq=False)
class Names:
    """Resolves names; below the reading of text, sources and slots."""

    m: Module

    def binding(self, name: str, env: Env, at: int | None) -> Binding | None:
        bound = env.bound(name)
        if bound is not None:
            return Binding(bound[0], bound[1], [], bound[0])
        scope: Scope | None = env.scope
        first = True
        while scope is not None:
            records = scope.assigns.get(name)
            if records:
                if len(records) > TIMELINE_FROM:
                    visible, index = self.timeline(records).before(at if first else None, self.carried)
                else:
                    visible, index = seen_at(records, at, first, self.carried)
                if index is not None:
                    base = visible[index]
                    if base.value is None:
                        return None
                    benv = Env(base.scope, env.bindings if base.scope is env.scope else (), env.depth + 1)
                    if base.key is not None:
                        found = self.array_items(base.value, benv) if at_place(base.key) else \
                            self.entries(base.value, benv)
                        if found is not None and base.key in found:
                            value, venv, _ = found[base.key]
                            return Binding(value, venv, visible[index + 1 :], base.target, len(base.loops))
                        if at_place(base.key):
                            return None  # an item of what no function of the module is seen to return
                        return Binding(base.value, benv, [], base.target, len(base.loops), part=base.key)
                    return Binding(base.value, benv, visible[index + 1 :], base.target, len(base.loops))
                if first and scope.kind == "function" and any(r.kind == "=" for r in records):
                    return None
            if name in scope.params:
                return None
            first = False
            scope = scope.parent
        return None

    def timeline(self, records: list[Assign]) -> Timeline:
        """The records of a name assigned many times in one scope, indexed once (see Timeline)."""
        found = self.m.timelines.get(id(records))
        if found is None or found.records is not records:
            found = self.m.timelines[id(records)] = Timeline(records)
        return found

    def carried(self, record: Assign, at: int) -> bool:
        return any(loop.node.start_byte <= at <= loop.node.end_byte for loop in record.loops)

    def resolve(self, node: Node, env: Env) -> Binding | None:
        if env.depth > MAX_RESOLVE:
            return None
        node = self.m.unwrap(node)
        if node.type in ("identifier", "shorthand_property_identifier"):
            return self.binding(self.m.code(node), env, node.start_byte)
        if node.type in ("member_expression", "subscript_expression"):
            # `PROMPTS.system`, `CONFIG["model"]`: a property of an object literal of the module.
            if self.m.too_long(node):
                return None
            obj = self.m.field(node, "object")
            key = self.property_key(node)
            if obj is None or key is None:
                return None
            found = self.entries(obj, env)
            if found is not None and key in found:
                value, venv, pair = found[key]
                return Binding(value, venv, [], pair)
            getter = self.own_getter(node) if self.m.unwrap(obj).type == "this" else None
            if getter is not None and getter.scope.returns:
                # `this.options` read through the class's `get options() { return {...}; }`
                return Binding(getter.scope.returns[-1], Env(getter.scope, (), env.depth + 1), [], node)
        return None

    def property_key(self, node: Node) -> str | None:
        if node.type == "member_expression":
            prop = self.m.field(node, "property")
            return self.m.code(prop) if prop is not None else None
        index = self.m.field(node, "index")
        return self.m.string_value(index) if index is not None else None

    def deref(self, node: Node, env: Env) -> tuple[Node, Env]:
        for _ in range(10):
            binding = self.resolve(node, env)
            if binding is None or binding.extras or binding.part is not None:
                break
            node, env = binding.value, binding.env
        return self.m.unwrap(node), env

    def function_for(self, call: Node, env: Env) -> tuple[Node, Node, Env] | None:
        """The module's own function that ``call`` calls, its last return and its parameters bound."""
        if env.depth > MAX_RESOLVE or call.type != "call_expression":
            return None
        callee = self.m.unwrap(self.m.field(call, "function"))
        if callee is not None and callee.type == "member_expression":
            found = self.own_method(callee)
        elif callee is not None and callee.type == "identifier":
            name = self.m.code(callee)
            scope: Scope | None = env.scope
            found = None
            while scope is not None and found is None:
                found = scope.functions.get(name)
                scope = scope.parent
        else:
            return None
        if found is None or not found.scope.returns:
            return None
        inner = found.scope
        args = self.m.args(call)
        bindings = tuple((param, arg, env) for param, arg in zip(inner.positional, args, strict=False)
                         if param and arg.type != "spread_element")
        # `build({ title, context })` for `function build({ title, context })`: the literal's values
        bindings += tuple((local, value, env) for local, value in object_fills(self.m, found.node, args))
        return found.node, inner.returns[-1], Env(inner, bindings, env.depth + 1)

    def own_method(self, callee: Node, getter: bool = False) -> Function | None:
        """The method of the class around a call that ``this.name(...)`` or ``this.#name(...)`` runs
        (a helper the class keeps to itself, such as one that formats the documents of a prompt); with
        ``getter``, the getter ``this.name`` reads (``get options() { ... }``)."""
        receiver, prop = self.m.unwrap(self.m.field(callee, "object")), self.m.field(callee, "property")
        body = enclosing(callee, ("class_body",)) if receiver is not None and receiver.type == "this" else None
        if body is None or prop is None:
            return None
        name = self.m.code(prop)
        method = next((c for c in body.named_children if c.type == "method_definition"
                       and (own := self.m.field(c, "name")) is not None and self.m.code(own) == name
                       and any(k.type == "get" for k in c.children) == getter), None)
        if method is None:
            return None
        return self.m.function_of(method)

    def own_getter(self, read: Node) -> Function | None:
        """The getter of the class around ``this.name`` that the read runs, when the class defines one."""
        return self.own_method(read, getter=True)

    def project_function(self, call: Node, scope: Scope | None) -> tuple[Analyzer | None, Function] | None:
        """The function a call by plain name runs, and the analyzer of its module (None: this one):
        the module's own, in the scopes around the call, or one a relative import names."""
        callee = self.m.unwrap(self.m.field(call, "function")) if call.type == "call_expression" else None
        if callee is None or callee.type != "identifier":
            return None
        name = self.m.code(callee)
        while scope is not None:
            if name in scope.functions:
                return None, scope.functions[name]
            scope = scope.parent
        imported = self.imported_name(name)
        function = imported[0].m.module_scope.functions.get(imported[1]) if imported is not None else None
        return None if imported is None or function is None else (imported[0], function)

    def imported_constant(self, name: str) -> tuple[Analyzer, Node, Env] | None:
        """``import { SYSTEM_PROMPT } from "./prompts"``: the constant in the sibling module, read
        by that module's own analyzer (its spans point into it). Only relative imports are
        followed, two modules deep, each file once per run; the file becomes a dependency."""
        found = self.imported_name(name)
        if found is None:
            return None
        sibling, exported = found
        records = sibling.m.module_scope.assigns.get(exported) or []
        bases = [r for r in records if r.kind == "=" and r.value is not None and r.key is None]
        if not bases or len(records) != len([r for r in records if r.kind == "="]):
            return None
        return sibling, bases[-1].value, Env(sibling.m.module_scope, (), MAX_RESOLVE // 2)

    def imported_function(self, name: str) -> tuple[Analyzer, Node, Env] | None:
        """``import { systemPrompt } from "./prompts"``, called: the last return of that module's
        function, read by its own analyzer as ``imported_constant`` reads a constant. Its parameters
        stay unbound (slots): the arguments are this module's nodes, which its analyzer cannot read."""
        found = self.imported_name(name)
        if found is None:
            return None
        sibling, exported = found
        function = sibling.m.module_scope.functions.get(exported)
        if function is None or not function.scope.returns:
            return None
        return sibling, function.scope.returns[-1], Env(function.scope, (), MAX_RESOLVE // 2)

    def imported_name(self, name: str) -> tuple[Analyzer, str] | None:
        """The sibling module a name is imported from by a relative import (or a tsconfig alias),
        and its exported name."""
        source = self.m.imports.get(name, "")
        module, _, exported = source.rpartition(".") if "." in source.lstrip(".").lstrip("/") else ("", "", "")
        if not self.m.project.is_local(self.m.path, module) or self.m.generation >= MAX_IMPORT_DEPTH:
            return None
        sibling = self.m.project.module(self.m.path, module, self.m.generation + 1)
        return None if sibling is None else (sibling, exported)

    def imported_module(self, name: str, deeper: int = 0) -> Analyzer | None:
        """The module of the tree a name is imported from whole (``import docs from "./docs"``,
        ``import * as button from "./button"``), read as ``imported_constant`` reads one;
        ``deeper`` imports further than that, for a leaf only its literal constants are read from."""
        source = self.m.imports.get(name, "")
        if not self.m.project.is_local(self.m.path, source) or "." in source.rsplit("/", 1)[-1] \
                or self.m.generation >= MAX_IMPORT_DEPTH + deeper:
            return None
        return self.m.project.module(self.m.path, source, self.m.generation + 1)

    def written_items(self, node: Node, env: Env) -> list[tuple[Analyzer | None, Node, Env]] | None:
        """The items of an array the project writes, in this module or as the default export of
        a module it imports (``export default [button, card]``), each with the module that holds
        it (None: this one); None when the array is not written out item by item."""
        node = self.m.unwrap(node)
        if node.type == "identifier":
            binding = self.resolve(node, env)
            if binding is not None:
                if binding.extras or binding.part is not None:
                    return None
                return self.m.follow(binding.value, self.written_items, binding.value, binding.env)
            name = self.m.code(node)
            module = self.imported_module(name) if name not in self.m.namespaces else None
            exported = next((e for e in module.m.root.named_children if e.type == "export_statement"
                             and any(c.type == "default" for c in e.children)), None) if module is not None else None
            value = module.m.field(exported, "value") if module is not None and exported is not None else None
            if module is None or value is None:
                return None
            found = module.names.written_items(value, Env(module.m.module_scope, (), MAX_RESOLVE // 2))
            return None if found is None else [(owner or module, item, item_env) for owner, item, item_env in found]
        if node.type != "array":
            return None
        items = [e for e in node.named_children if e.type != "comment"]
        return None if any(e.type == "spread_element" for e in items) else [(None, e, env) for e in items]

    def entries(self, node: Node, env: Env, opaque: list[bool] | None = None) -> dict | None:
        """Keyed entries of an object literal, through names: key -> (value, env, pair)."""
        if env.depth > MAX_RESOLVE:
            return None
        node = self.m.unwrap(node)
        if node.type in ("identifier", "member_expression", "subscript_expression", "shorthand_property_identifier"):
            binding = self.resolve(node, env)
            if binding is None or binding.extras or binding.part is not None:
                return None
            return self.m.follow_binding(binding, self.entries, opaque)
        if node.type == "call_expression":  # `getPrompt(query).system`: what the module's function returns
            target = self.function_for(node, env)
            return self.m.follow(target[0], self.entries, target[1], target[2], opaque) if target is not None \
                else None
        if node.type != "object":
            return None
        found: dict[str, tuple[Node, Env, Node]] = {}
        for child in node.named_children:
            if child.type == "pair":
                key = self.m.key_text(self.m.field(child, "key"))
                value = self.m.field(child, "value")
                if key is None or value is None:
                    if opaque is not None:
                        opaque[0] = True
                    continue
                found[key] = (value, env, child)
            elif child.type == "shorthand_property_identifier":
                found[self.m.code(child)] = (child, env, child)
            elif child.type == "method_definition":
                name = self.m.field(child, "name")
                if name is not None:
                    found[self.m.code(name)] = (child, env, child)
            elif child.type == "spread_element":
                inner = self.spread_entries(child.named_children[0], env, opaque) if child.named_children else None
                if inner is None:
                    if opaque is not None:
                        opaque[0] = True
                else:
                    found.update(inner)
        return found

    def array_items(self, node: Node, env: Env) -> dict | None:
        """The items of an array literal by place, ``"[0]"`` -> (value, env, item), up to the first
        spread; through names, ``await`` and what the module's own function called returns
        (``return [body, notes]``)."""
        if env.depth > MAX_RESOLVE:
            return None
        node = self.m.unwrap(node)
        if node.type == "await_expression" and node.named_children:
            return self.array_items(node.named_children[0], env)
        if node.type == "identifier":
            binding = self.resolve(node, env)
            if binding is None or binding.extras or binding.part is not None:
                return None
            return self.m.follow_binding(binding, self.array_items)
        if node.type == "call_expression":
            target = self.function_for(node, env)
            return self.m.follow(target[0], self.array_items, target[1], target[2]) if target is not None else None
        if node.type != "array":
            return None
        found: dict[str, tuple[Node, Env, Node]] = {}
        for index, item in placed(node):
            if item.type == "spread_element":
                break
            found[f"[{index}]"] = (item, env, item)
        return found

    def spread_entries(self, node: Node, env: Env, opaque: list[bool] | None) -> dict | None:
        """The entries a spread may add: those of the object spread, or, for one spread on a
        condition (``...(cond && { options })``, ``...(cond ? a : b)``), of each object it may be."""
        node = self.m.unwrap(node)
        if node.type == "binary_expression" and self.m.code(self.m.field(node, "operator") or node) == "&&":
            right, test = self.m.field(node, "right"), self.m.field(node, "left")
            inner = self.spread_entries(right, env, opaque) if right is not None else None
            for entry in (inner or {}).values() if test is not None else ():
                self.m.given_on.setdefault(entry[2].id, (test, True))
            return inner
        if node.type == "ternary_expression":
            found: dict = {}
            arms = []
            for branch in (self.m.field(node, "consequence"), self.m.field(node, "alternative")):
                inner = self.spread_entries(branch, env, opaque) if branch is not None else None
                if inner is None:
                    return None
                arms.append(inner)
                found.update(inner)
            test = self.m.field(node, "condition")
            for holds, (arm, other) in ((True, arms), (False, arms[::-1])):
                for key, entry in arm.items() if test is not None else ():
                    # given in this case only (a limit: no limit of any name in the other case)
                    if key not in other and not (key in LIMIT_KEYS and any(k in LIMIT_KEYS for k in other)):
                        self.m.given_on.setdefault(entry[2].id, (test, holds))
            return found
        return self.entries(node, env, opaque)

    def items(self, node: Node, env: Env, loop: str | None = None) -> list[Item] | None:
        if env.depth > MAX_RESOLVE:
            return None
        node = self.m.unwrap(node)
        if node.type == "array":
            self.m.consumed.add(node.id)
            items = []
            for element in node.named_children:
                if element.type == "comment":
                    continue
                if element.type == "spread_element":
                    inner_node = element.named_children[0] if element.named_children else element
                    inner = self.items(inner_node, env, loop)
                    items.extend(inner if inner is not None else [Item(inner_node, env, loop, True)])
                else:
                    items.append(Item(element, env, loop))
            return items
        if node.type in ("identifier", "member_expression", "shorthand_property_identifier"):
            binding = self.resolve(node, env)
            if binding is None or binding.part is not None or not self.m.enter(binding.value):
                return None
            try:
                bound = self.items(binding.value, binding.env, loop)
                if bound is None:
                    return None
                items = bound
                for extra in binding.extras:
                    inner_loop = binding.loop_of(extra)
                    where = inner_loop.text if inner_loop is not None else loop
                    if extra.kind in ("append", "insert") and extra.value is not None:
                        grows = (inner_loop, extra.value) if extra.kind == "append" and inner_loop is not None \
                            and _within(node, inner_loop.node) else None
                        item = Item(extra.value, binding.env, where, grows=grows)
                        items.insert(0, item) if extra.kind == "insert" else items.append(item)
                    elif extra.kind == "extend" and extra.value is not None:
                        more = self.items(extra.value, binding.env, where)
                        items.extend(more if more is not None else [Item(extra.value, binding.env, where, True)])
                self.m.consumed.add(binding.value.id)
                return items
            finally:
                self.m.leave(binding.value)
        if node.type == "call_expression":
            callee = self.m.unwrap(self.m.field(node, "function"))
            if callee is not None and callee.type == "member_expression":
                method = self.m.code(self.m.field(callee, "property"))
                receiver = self.m.field(callee, "object")
                args = self.m.args(node)
                if method == "concat":
                    joined = self.items(receiver, env, loop)
                    if joined is None:
                        return None
                    for arg in args:
                        added = self.items(arg, env, loop)
                        joined.extend(added if added is not None else [Item(arg, env, loop, True)])
                    return joined
                if method in ("map", "flatMap") and args and args[0].type in ("arrow_function", "function_expression"):
                    body = self.m.field(args[0], "body")
                    callback = self.m.callback_scopes.get(args[0].id)
                    if body is not None and body.type != "statement_block" and callback is not None:
                        return [Item(body, Env(callback, env.bindings, env.depth + 1), self.m.code(receiver))]
            target = self.function_for(node, env)
            if target is None:
                return None
            found = self.m.follow(target[0], self.items, target[1], target[2], loop)
            if found is not None:
                self.m.consumed.add(target[1].id)
            return found
        return None


def _within(node: Node, outer: Node) -> bool:
    """Whether ``node`` lies inside ``outer`` (both of one module)."""
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte
