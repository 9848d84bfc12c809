"""The index of a module, built in one walk of its syntax tree: imports, scopes and the assignments
made in each (``=``, ``+=``, ``push``, destructuring, loop variables), functions and their
parameters, request handlers, calls, arrays and objects, and tool results sent back to a model."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from ctxlint.frontends.code.assigns import owner
from ctxlint.frontends.typescript.estimates import Estimates
from ctxlint.frontends.typescript.knowledge import FUNCTIONS, LOOP_CALLBACKS, MAX_DEPTH, Node
from ctxlint.frontends.typescript.patterns import awaited_items, destructured, pattern_names, placed
from ctxlint.frontends.typescript.project import SUFFIXES
from ctxlint.frontends.typescript.syntax import named_children
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import ITEM, Assign, Function, Loop, Scope, TooDeep


@dataclass(eq=False)
class Scopes:
    """Indexes the module; below every reading of values."""

    m: Module
    estimates: Estimates

    def index(self, node: Node, scope: Scope, loops: tuple[Loop, ...], depth: int, function: str | None) -> None:
        if depth > MAX_DEPTH:
            raise TooDeep(node)
        handler = _INDEX_HANDLERS.get(node.type)
        if handler is not None and handler(self, node, scope, loops, depth, function):
            return  # the handler indexed the children itself
        # Most nodes (names, keys, string parts): only their children matter. A cursor hands them over
        # one at a time (a broken module can be one node with a million children).
        for child in named_children(node):
            self.index(child, scope, loops, depth + 1, function)

    # Each `_index_KIND` records what a node of that kind means, and returns True when it has indexed
    # the node's children itself (`_INDEX_HANDLERS`, after the class, maps kinds to them).

    def _index_function(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        self.index_function(node, scope, loops, depth, None)
        return True

    def _index_import(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        self.index_import(node)
        return True

    def _index_for_in(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        right = self.m.field(node, "right")
        if right is not None:
            self.index(right, scope, loops, depth + 1, function)
        left = self.m.field(node, "left")
        operator = self.m.field(node, "operator")
        if right is not None and left is not None and left.type == "identifier" and (
                operator is not None and self.m.code(operator) == "of"):
            self.record(self.m.code(left), Assign("=", right, node.start_byte, loops, scope, left, key=ITEM))
        else:
            self.unknowable(left, scope, node, loops)
        body = self.m.field(node, "body")
        if body is not None:
            loop = Loop(node, self.m.code(right) if right is not None else "")
            self.index(body, scope, (*loops, loop), depth + 1, function)
        return True

    def _index_loop(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        condition = self.m.field(node, "condition")
        loop = Loop(node, "while " + (self.m.code(condition) if condition is not None else "..."))
        for child in named_children(node):
            inner = (*loops, loop) if child.type.endswith("statement") or child.type == "statement_block" else loops
            self.index(child, scope, inner, depth + 1, function)
        return True

    def _index_declarator(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        handled = self.index_declarator(node, scope, loops, depth)
        if handled is None:
            return False
        for child in named_children(node):  # a function bound to a name: indexed with its name already
            if child.id != handled.id:
                self.index(child, scope, loops, depth + 1, function)
        return True

    def _index_assignment(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        left, right = self.m.field(node, "left"), self.m.field(node, "right")
        if left is not None and right is not None:
            if left.type == "identifier":
                name = self.m.code(left)
                self.record(name, Assign("=", right, node.end_byte, loops, owner(name, scope), left))
            self.estimates.estimate_context(self.m.dotted(left), right)
        return False

    def _index_augmented(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        left, right = self.m.field(node, "left"), self.m.field(node, "right")
        operator = self.m.field(node, "operator")
        if left is not None and right is not None and left.type == "identifier" and (
                operator is None or self.m.code(operator) == "+="):
            name = self.m.code(left)
            self.record(name, Assign("+=", right, node.end_byte, loops, owner(name, scope), left))
        return False

    def _index_return(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        value = next((c for c in node.named_children if c.type != "comment"), None)
        if value is not None and scope.kind == "function":
            scope.returns.append(value)
            if function and "token" in function.lower() and not self.estimates.only_tallied(function):
                self.estimates.estimates_in(value)
        return False

    def _index_call(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        self.m.calls.append((node, scope))
        self.mutation(node, scope, loops)
        return node.type == "call_expression" and self.index_callbacks(node, scope, loops, depth, function)

    def _index_array(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        self.m.arrays.append((node, scope))
        return False

    def _index_object(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        self.m.objects.append((node, scope))
        self.tool_result_message(node, scope)
        return False

    def _index_pair(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        key = self.m.field(node, "key")
        if key is not None and "token" in self.m.code(key).lower():
            value = self.m.field(node, "value")
            if value is not None:
                self.estimates.estimates_in(value)
        return False

    def _index_comparison(self, node: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        operator = self.m.field(node, "operator")
        if operator is not None and self.m.code(operator) in ("<", ">", "<=", ">=", "===", "=="):
            left, right = self.m.field(node, "left"), self.m.field(node, "right")
            if any("token" in self.m.code(side).lower() for side in (left, right) if side is not None):
                for side in (left, right):
                    if side is not None:
                        self.estimates.estimates_in(side)
        return False

    def index_import(self, node: Node) -> None:
        source = self.m.field(node, "source")
        module = self.m.string_value(source) if source is not None else None
        if module is None:
            return
        self.imported(module)
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            return
        for part in clause.named_children:
            if part.type == "identifier":
                self.m.imports[self.m.code(part)] = whole_module(module)
            elif part.type == "namespace_import":
                name = next((c for c in part.named_children if c.type == "identifier"), None)
                if name is not None:
                    self.m.imports[self.m.code(name)] = module
                    self.m.namespaces.add(self.m.code(name))
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type != "import_specifier":
                        continue
                    name, alias = self.m.field(spec, "name"), self.m.field(spec, "alias")
                    if name is not None:
                        self.m.imports[self.m.code(alias or name)] = f"{module}.{self.m.code(name)}"

    def imported(self, module: str) -> None:
        self.m.llm = self.m.llm or self.m.ts.imports(module, self.m.ts.llm_imports)
        self.m.mcp = self.m.mcp or self.m.ts.imports(module, self.m.ts.server_imports)

    def index_function(self, node: Node, scope: Scope, loops, depth: int, name: str | None) -> None:
        inner = Scope("function", node, scope)
        params = self.m.field(node, "parameters")
        if params is None:
            single = self.m.field(node, "parameter")  # `x => ...`
            if single is not None:
                inner.params[self.m.code(single)] = ""
                inner.positional.append(self.m.code(single))
        else:
            for param in params.named_children:
                self.parameter(param, inner)
        own = self.m.field(node, "name")
        title = name or (self.m.code(own) if own is not None else None)
        function = Function(node, inner)
        if title:
            scope.functions[title] = function
        self.m.functions.append(function)
        inner.handler = self.is_handler(node, inner, title)
        body = self.m.field(node, "body")
        if body is None:
            return
        if body.type != "statement_block":
            inner.returns.append(body)  # an arrow function's expression body
        self.index(body, inner, (), depth + 1, title)

    def parameter(self, param: Node, scope: Scope) -> None:
        kind = param.type
        annotation = ""
        pattern = param
        if kind in ("required_parameter", "optional_parameter"):
            pattern = self.m.field(param, "pattern") or param
            type_node = self.m.field(param, "type")
            annotation = self.m.code(type_node).lstrip(": ") if type_node is not None else ""
        if pattern.type == "assignment_pattern":
            pattern = self.m.field(pattern, "left") or pattern
        if pattern.type == "identifier":
            scope.params[self.m.code(pattern)] = annotation
            scope.positional.append(self.m.code(pattern))
            return
        scope.positional.append("")  # a destructured or rest parameter: its position still counts
        for name in pattern_names(self.m, pattern):
            scope.params[name] = ""

    def is_handler(self, node: Node, scope: Scope, name: str | None) -> bool:
        """A function that receives an HTTP request: Next.js route handlers (`export async
        function POST(req)`), Express-style `(req, res) => ...`, or a parameter typed as a request."""
        types = self.m.ts.request_types
        if types is not None and any(types.search(t) for t in scope.params.values() if t):
            return True
        if name in self.m.ts.source("requests", "handlers") and scope.positional:
            return True
        return tuple(scope.positional[:2]) in self.m.ts.source("requests", "parameters")

    def index_declarator(self, node: Node, scope: Scope, loops, depth: int) -> Node | None:
        """Record a declaration; returns the function it binds, once indexed, or None."""
        name, value = self.m.field(node, "name"), self.m.field(node, "value")
        if name is None:
            return None
        if value is None:
            if name.type == "identifier":
                self.record(self.m.code(name), Assign("=", None, node.end_byte, loops, scope, name))
            return None
        bare = self.m.unwrap(value)
        if bare.type == "await_expression":
            bare = self.m.unwrap(bare.named_children[0]) if bare.named_children else bare
        # `require("openai")`, or `await import("ai")`: the module, bound to a name
        if bare.type == "call_expression" and self.m.code(self.m.field(bare, "function") or bare) in ("require",
                                                                                                       "import"):
            module = next((self.m.string_value(a) for a in self.m.args(bare) if a.type == "string"), None)
            if module is not None:
                self.imported(module)
                if name.type == "identifier":
                    self.m.imports[self.m.code(name)] = whole_module(module)
                else:
                    for local in pattern_names(self.m, name):
                        self.m.imports[local] = f"{module}.{local}"
                return None
        if name.type == "object_pattern":
            for key, local in destructured(self.m, name):
                self.record(local, Assign("=", value, node.end_byte, loops, scope, name, key=key))
            return None
        items = awaited_items(self.m, bare) if name.type == "array_pattern" else None
        if items is not None:  # `const [a, b] = await Promise.all([pa, pb])`: each name its own item
            for element, item in zip(name.named_children, items, strict=False):
                if element.type == "identifier" and item.type != "spread_element":
                    self.record(self.m.code(element), Assign("=", item, node.end_byte, loops, scope, element))
                else:
                    self.unknowable(element, scope, node, loops)
            return None
        if name.type == "array_pattern" and bare.type == "call_expression":
            # `const [body, notes] = split(report)`: each name the item of that place in what the call returns
            for index, element in placed(name):
                if element.type == "identifier":
                    self.record(self.m.code(element), Assign("=", value, node.end_byte, loops, scope, element,
                                                             key=f"[{index}]"))
                else:
                    self.unknowable(element, scope, node, loops)
            return None
        if name.type != "identifier":
            self.unknowable(name, scope, node, loops)
            return None
        title = self.m.code(name)
        self.record(title, Assign("=", value, node.end_byte, loops, scope, name))
        self.estimates.estimate_context(title, value)
        if bare.type in ("arrow_function", "function_expression", "function"):
            self.index_function(bare, scope, loops, depth + 1, title)
            return bare
        return None

    def record(self, name: str, assign: Assign) -> None:
        assign.scope.assigns.setdefault(name, []).append(assign)

    def unknowable(self, target: Node | None, scope: Scope, statement: Node, loops) -> None:
        if target is None:
            return
        if target.type in ("lexical_declaration", "variable_declaration"):
            for declarator in target.named_children:
                self.unknowable(self.m.field(declarator, "name"), scope, statement, loops)
            return
        for name in pattern_names(self.m, target):
            self.record(name, Assign("=", None, statement.start_byte, loops, scope, target))

    def mutation(self, call: Node, scope: Scope, loops) -> None:
        function = self.m.field(call, "function")
        if function is None or function.type != "member_expression":
            return
        receiver, prop = self.m.field(function, "object"), self.m.field(function, "property")
        if receiver is None or prop is None or receiver.type != "identifier":
            return
        method = self.m.code(prop)
        if method not in ("push", "unshift"):
            return
        name = self.m.code(receiver)
        home = owner(name, scope)
        for arg in self.m.args(call):
            if arg.type == "spread_element":
                inner = arg.named_children[0] if arg.named_children else arg
                self.record(name, Assign("extend", inner, call.end_byte, loops, home, receiver))
            else:
                self.record(name, Assign("append" if method == "push" else "insert", arg, call.end_byte, loops,
                                          home, receiver))

    def index_callbacks(self, call: Node, scope: Scope, loops, depth: int, function: str | None) -> bool:
        """``items.map(item => ...)``: the callback runs once per item, a loop over ``items``."""
        callee = self.m.field(call, "function")
        if callee is None or callee.type != "member_expression":
            return False
        prop = self.m.field(callee, "property")
        if prop is None or self.m.code(prop) not in LOOP_CALLBACKS:
            return False
        receiver = self.m.field(callee, "object")
        if receiver is None:
            return False
        self.index(callee, scope, loops, depth + 1, function)
        loop = Loop(call, self.m.code(receiver))
        for arg in self.m.args(call):
            if arg.type in FUNCTIONS:
                inner = Scope("function", arg, scope)
                params = self.m.field(arg, "parameters")
                single = self.m.field(arg, "parameter")
                for param in ([single] if single is not None else params.named_children if params is not None else []):
                    self.parameter(param, inner)
                item = inner.positional[0] if inner.positional else ""
                if item and self.m.code(prop) != "reduce":  # the callback's first parameter is an item
                    self.record(item, Assign("=", receiver, arg.start_byte, (), inner, arg, key=ITEM))
                self.m.functions.append(Function(arg, inner))
                self.m.callback_scopes[arg.id] = inner
                body = self.m.field(arg, "body")
                if body is not None:
                    if body.type != "statement_block":
                        inner.returns.append(body)
                    self.index(body, inner, (*loops, loop), depth + 1, function)
            else:
                self.index(arg, scope, loops, depth + 1, function)
        return True

    def tool_result_message(self, node: Node, scope: Scope) -> None:
        """``{role: "tool", content: result}``: ``result`` holds what a tool returned."""
        entries = self.m.raw_pairs(node)
        kind = entries.get("role") or entries.get("type")
        kind_text = self.m.string_value(kind) if kind is not None else None
        key = {"tool": "content", "function": "content", "tool_result": "content",
               "function_call_output": "output"}.get(kind_text or "")
        value = entries.get(key) if key else None
        if value is not None:
            value = self.m.unwrap(value)
            if value.type == "call_expression" and self.m.args(value):
                value = self.m.args(value)[0]  # JSON.stringify(result), String(result)
            if value.type in ("identifier", "shorthand_property_identifier"):
                scope.tool_results.setdefault(self.m.code(value), self.m.span(value))


# What `Scopes.index` records for each kind of node; it passes through every other kind.
_INDEX_HANDLERS: dict[str, Callable[[Scopes, Node, Scope, tuple[Loop, ...], int, str | None], bool]] = {
    **dict.fromkeys(FUNCTIONS, Scopes._index_function),
    "import_statement": Scopes._index_import,
    "for_in_statement": Scopes._index_for_in,
    **dict.fromkeys(("for_statement", "while_statement", "do_statement"), Scopes._index_loop),
    "variable_declarator": Scopes._index_declarator,
    "assignment_expression": Scopes._index_assignment,
    "augmented_assignment_expression": Scopes._index_augmented,
    "return_statement": Scopes._index_return,
    **dict.fromkeys(("call_expression", "new_expression"), Scopes._index_call),
    "array": Scopes._index_array,
    "object": Scopes._index_object,
    "pair": Scopes._index_pair,
    "binary_expression": Scopes._index_comparison,
}


def whole_module(module: str) -> str:
    """How a module imported whole is recorded: a sibling's path without its script suffix
    (``require("./provider.js")`` is ``./provider``), since a dot in the last part of the path
    names an export (``./provider.Provider``), and the project finds the file with or without it."""
    stem, suffix = os.path.splitext(module)
    return stem if module.startswith(".") and suffix in SUFFIXES else module
