"""Names and scopes: what the module binds where (assignments, parameters, functions, imports),
and what a name holds at a point of the code."""

from __future__ import annotations

import libcst as cst

from ctxlint.frontends.python.knowledge import LLM_LIBRARIES, MAX_DEPTH, token_name
from ctxlint.frontends.python.literals import string_value
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Assign, Binding, Env, Loop, Scope


class Scopes(Component):
    def index(self, node, scope: Scope, loops: tuple[Loop, ...], function: str | None) -> None:
        if isinstance(node, cst.FunctionDef):
            self.index_function(node, scope, loops, function)
            return
        if isinstance(node, cst.ClassDef):
            inner = Scope("class", node, scope)
            scope.functions.setdefault(node.name.value, (node, inner))
            for part in (*node.decorators, *node.bases, *node.keywords):
                self.index(part, scope, loops, function)
            self.index(node.body, inner, (), function)
            return
        if isinstance(node, cst.For):
            self.index(node.iter, scope, loops, function)
            self.unknowable(node.target, scope, node, loops)
            self.index(node.body, scope, (*loops, Loop(node, self.m.code(node.iter))), function)
            if node.orelse is not None:
                self.index(node.orelse, scope, loops, function)
            return
        if isinstance(node, cst.While):
            self.index(node.test, scope, loops, function)
            self.index(node.body, scope, (*loops, Loop(node, "while " + self.m.code(node.test))), function)
            if node.orelse is not None:
                self.index(node.orelse, scope, loops, function)
            return
        if isinstance(node, cst.Lambda):
            return
        if isinstance(node, cst.With):
            # `with open(p) as f`, `async with httpx.AsyncClient() as client`: the target holds
            # what the context manager gives, which for files, clients and responses is the
            # object itself; it is bound where the item ends, so the body sees it.
            for item in node.items:
                self.index(item.item, scope, loops, function)
                if item.asname is not None:
                    self.assign(item.asname.name, item.item, scope, item, loops)
            self.index(node.body, scope, loops, function)
            return
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self.assign(target.target, node.value, scope, node, loops)
            self.estimates.estimate_context([self.m.dotted(t.target) for t in node.targets], node.value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.assign(node.target, node.value, scope, node, loops)
                self.estimates.estimate_context([self.m.dotted(node.target)], node.value)
        elif isinstance(node, cst.AugAssign):
            if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
                self.record(node.target.value, Assign("+=", node.value, self.m.end(node), loops, scope, node.target))
            self.estimates.estimate_context([self.m.dotted(node.target)], node.value)
        elif isinstance(node, cst.Return):
            if scope.kind == "function" and node.value is not None:
                scope.returns.append(node.value)
                if token_name(function):
                    self.estimates.estimates_in(node.value)
        elif isinstance(node, cst.Import):
            for alias in node.names:
                name = alias.evaluated_name
                if alias.asname is not None:
                    self.m.imports[alias.evaluated_alias] = name
                else:
                    self.m.imports[name.split(".")[0]] = name.split(".")[0]
                self.imported(name)
        elif isinstance(node, cst.ImportFrom):
            base = self.m.dotted(node.module) if node.module is not None else ""
            if base and not node.relative:
                self.imported(base)
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    name = alias.evaluated_name
                    self.m.imports[alias.evaluated_alias or name] = f"{base}.{name}" if base else name
                    self.m.from_imports.add(alias.evaluated_alias or name)
        elif isinstance(node, cst.Call):
            self.m.calls.append((node, scope))
            self.mutation(node, scope, loops)
            for arg in node.args:
                if arg.keyword is not None and token_name(arg.keyword.value):
                    self.estimates.estimates_in(arg.value)
        elif isinstance(node, cst.Comparison):
            self.estimates.estimate_comparison(node)
        elif isinstance(node, cst.DictElement):
            if isinstance(node.key, cst.SimpleString) and token_name(string_value(node.key)):
                self.estimates.estimates_in(node.value)
        elif isinstance(node, cst.Subscript):
            for element in node.slice:
                if isinstance(element.slice, cst.Slice):
                    for bound in (element.slice.lower, element.slice.upper):
                        if bound is not None:
                            self.estimates.scaled_tokens(bound)
        elif isinstance(node, cst.List):
            self.m.lists.append((node, scope))
        elif isinstance(node, cst.Dict):
            self.m.dicts.append((node, scope))
            self.sources.tool_result_message(node, scope)
        for child in node.children:
            self.index(child, scope, loops, function)

    def imported(self, module: str) -> None:
        parts = module.split(".")
        self.m.mcp = self.m.mcp or parts[0] in ("mcp", "fastmcp")
        self.m.llm = self.m.llm or parts[0] in LLM_LIBRARIES or ".".join(parts[:2]) in LLM_LIBRARIES

    def index_function(self, node, scope: Scope, loops, function) -> None:
        for decorator in node.decorators:
            self.index(decorator, scope, loops, function)
        inner = Scope("function", node, scope, cls=scope if scope.kind == "class" else None)
        params = node.params
        for group, positional in ((params.posonly_params, True), (params.params, True),
                                  (params.kwonly_params, False)):
            for param in group:
                inner.params[param.name.value] = param
                if positional:
                    inner.positional.append(param.name.value)
                if param.default is not None:
                    self.index(param.default, scope, loops, function)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                inner.params[star.name.value] = star
        scope.functions[node.name.value] = (node, inner)
        self.m.functions.append((node, inner))
        self.index(node.body, inner, (), node.name.value)

    def record(self, name: str, assign: Assign) -> None:
        assign.scope.assigns.setdefault(name, []).append(assign)

    def assign(self, target, value, scope: Scope, statement, loops) -> None:
        end = self.m.end(statement)
        if isinstance(target, cst.Name):
            self.record(target.value, Assign("=", value, end, loops, scope, target))
        elif (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
              and target.value.value == "self" and scope.cls is not None):
            self.record(target.attr.value, Assign("=", value, end, (), scope.cls, target, where=scope))
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
            if values is not None and len(values) == len(target.elements) and not any(
                isinstance(e, cst.StarredElement) for e in (*values, *target.elements)
            ):
                for t, v in zip(target.elements, values):
                    self.assign(t.value, v.value, scope, statement, loops)
            else:
                self.unknowable(target, scope, statement, loops)

    def unknowable(self, target, scope: Scope, statement, loops) -> None:
        """Names bound to values we cannot know: loop targets, unpacking."""
        if isinstance(target, cst.Name):
            self.record(target.value, Assign("=", None, self.m.start(statement), loops, scope, target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.unknowable(element.value, scope, statement, loops)
        elif isinstance(target, cst.StarredElement):
            self.unknowable(target.value, scope, statement, loops)

    def owner(self, name: str, scope: Scope) -> Scope:
        """The scope a mutated name lives in (``TOOLS.append`` in a function changes the module's)."""
        current = scope
        while current is not None:
            if name in current.assigns or name in current.params:
                return current
            current = current.parent
            while current is not None and current.kind == "class":
                current = current.parent
        return scope

    def mutation(self, call, scope: Scope, loops) -> None:
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            name, method = func.value.value, func.attr.value
            if method in ("append", "extend", "insert") and call.args:
                kind = method
                if kind == "insert" and not (len(call.args) == 2 and isinstance(call.args[0].value, cst.Integer)
                                             and call.args[0].value.value == "0"):
                    kind = "append"
                home = self.owner(name, scope)
                self.record(name, Assign(kind, call.args[-1].value, self.m.end(call), loops, home, func.value,
                                          where=scope if home is not scope else None))
            elif method in ("format", "format_map"):
                self.m.format_receivers.add(name)
        if (isinstance(func, cst.Attribute) and func.attr.value in ("format", "format_map")
                and isinstance(func.value, cst.Attribute)):
            self.m.format_receivers.add(func.value.attr.value)
        if self.m.qualified(func) == "random.shuffle" and call.args and isinstance(call.args[0].value, cst.Name):
            target = call.args[0].value
            home = self.owner(target.value, scope)
            self.record(target.value, Assign("shuffle", call, self.m.end(call), loops, home, target,
                                              where=scope if home is not scope else None))

    def binding(self, name: str, env: Env, at: tuple[int, int] | None) -> Binding | None:
        """What ``name`` holds at ``at`` in ``env``; None when unknowable (a parameter, a loop
        target, a name from another module)."""
        bound = env.bound(name)
        if bound is not None:
            return Binding(bound[0], bound[1], [])
        scope, first = env.scope, True
        while scope is not None:
            if scope.kind == "class" and not first:
                scope = scope.parent
                continue
            records = scope.assigns.get(name)
            if records:
                visible = [r for r in records if not first or at is None or r.end <= at
                           or (r.kind != "=" and self.carried(r, at))]
                index = max((i for i, r in enumerate(visible) if r.kind == "="), default=None)
                if index is not None:
                    base = visible[index]
                    if base.value is None:
                        return None
                    home = base.home
                    benv = Env(home, env.bindings if home is env.scope else (), env.depth + 1)
                    return Binding(base.value, benv, visible[index + 1 :], len(base.loops))
                if first and scope.kind == "function" and any(r.kind == "=" for r in records):
                    return None  # assigned later in the function: a local we cannot see yet
            if first and name in scope.params:
                return None
            first = False
            scope = scope.parent
        return None

    def carried(self, record: Assign, at: tuple[int, int]) -> bool:
        """Whether a change written after ``at`` reaches it on the next pass of a loop around
        both (``messages.append(tool_result)`` after the call that sends ``messages``)."""
        for loop in record.loops:
            r = self.m.positions[loop.node]
            if (r.start.line, r.start.column) <= at <= (r.end.line, r.end.column):
                return True
        return False

    def resolve(self, node, env: Env) -> Binding | None:
        if env.depth > MAX_DEPTH:
            return None
        if isinstance(node, cst.Name):
            return self.binding(node.value, env, self.m.start(node))
        if (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
                and node.value.value in ("self", "cls") and env.scope.cls is not None):
            records = env.scope.cls.assigns.get(node.attr.value) or []
            bases = [i for i, r in enumerate(records) if r.kind == "=" and r.value is not None]
            if bases:
                base = records[bases[-1]]
                return Binding(base.value, Env(base.home, (), env.depth + 1), records[bases[-1] + 1 :])
        return None

    def deref(self, node, env: Env):
        """Follow names to the literal they hold (when nothing changed it since)."""
        seen = 0
        while seen < 10:
            binding = self.resolve(node, env)
            if binding is None or binding.extras:
                return node, env
            node, env = binding.value, binding.env
            seen += 1
        return node, env

    def function_for(self, call, env: Env):
        """The module's own function (or ``self.`` method) that ``call`` calls, with its last
        return value and the parameters bound to the call's arguments; None if there is none."""
        if env.depth > MAX_DEPTH:
            return None
        func = call.func
        found = None
        method = False
        if isinstance(func, cst.Name):
            scope = env.scope
            while scope is not None and found is None:
                if scope.kind != "class" or scope is env.scope:
                    found = scope.functions.get(func.value)
                scope = scope.parent
        elif (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
              and func.value.value in ("self", "cls") and env.scope.cls is not None):
            found = env.scope.cls.functions.get(func.attr.value)
            method = True
        if found is None or not isinstance(found[0], cst.FunctionDef) or not found[1].returns:
            return None
        fn, scope = found
        params = scope.positional[1:] if method and scope.positional[:1] in (["self"], ["cls"]) else scope.positional
        bindings = []
        positional = [a.value for a in call.args if not a.keyword and not a.star]
        for name, value in zip(params, positional):
            bindings.append((name, value, env))
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in scope.params:
                bindings.append((arg.keyword.value, arg.value, env))
        given = {b[0] for b in bindings}
        defaults = Env(scope.parent or self.m.module_scope, (), env.depth + 1)
        for name, param in scope.params.items():
            if name not in given and param.default is not None:
                bindings.append((name, param.default, defaults))
        return fn, scope.returns[-1], Env(scope, tuple(bindings), env.depth + 1)

    def param_annotation(self, name: str, env: Env) -> str | None:
        scope = env.scope
        if scope.kind == "function" and name in scope.params and env.bound(name) is None:
            annotation = scope.params[name].annotation
            if annotation is not None:
                return self.m.code(annotation.annotation)
        return None
