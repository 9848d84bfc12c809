"""Names and scopes: what the module binds where (assignments, parameters, functions, classes,
imports), and what a name holds at a point of the code.

Resolution is flow-sensitive within a scope: a name read at a point holds its last plain
assignment before that point, with the changes written after it (``+=``, ``append``) that
reach it, including changes later in a loop around both (an agent appending tool results to
the message list it sends on the next pass).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxlint.frontends.code.assigns import owner, seen_at
from ctxlint.frontends.python.itemsets import item_key_assign
from ctxlint.frontends.python.knowledge import MAX_DEPTH, token_name
from ctxlint.frontends.python.literals import string_value
from ctxlint.frontends.python.nodes import LEAVES, children, never_true
from ctxlint.frontends.python.starimports import imported
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import (
    UNPACKED,
    Assign,
    Binding,
    Env,
    Loop,
    Param,
    Scope,
    looped_keys,
    own_class,
)
from ctxlint.providers import LIMIT_NAMES

if TYPE_CHECKING:
    pass

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
Loops = tuple[Loop, ...]


class Scopes(Component):
    # ---- indexing ----------------------------------------------------------------------------------

    def index_module(self) -> None:
        self.index_body(self.m.tree.body, self.m.module_scope, (), None)
        _supply_imports(self)

    def index_body(self, statements: list[ast.stmt], scope: Scope, loops: Loops, function: str | None) -> None:
        for statement in statements:
            self.index(statement, scope, loops, function)

    def index(self, node: ast.AST, scope: Scope, loops: Loops, function: str | None) -> None:
        handler = _HANDLERS.get(type(node))
        if handler is not None and handler(self, node, scope, loops, function):
            return
        for child in children(node):
            if type(child) not in LEAVES:  # a name or a constant: nothing in it to index
                self.index(child, scope, loops, function)

    def _function(self, node: FunctionNode, scope: Scope, loops: Loops, function: str | None) -> bool:
        for decorator in node.decorator_list:
            self.index(decorator, scope, loops, function)
        inner = Scope("function", node, scope, cls=scope if scope.kind == "class" else None)
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for arg, default in zip(positional, defaults, strict=True):
            inner.params[arg.arg] = Param(arg.arg, arg.annotation, default)
            inner.positional.append(arg.arg)
        for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            inner.params[arg.arg] = Param(arg.arg, arg.annotation, default)
        for star in (args.vararg, args.kwarg):
            if star is not None:
                inner.params[star.arg] = Param(star.arg, star.annotation, None)
        for default in (*args.defaults, *args.kw_defaults):
            if default is not None:
                self.index(default, scope, loops, function)
        scope.functions[node.name] = (node, inner)
        self.m.functions.append((node, inner))
        self.index_body(node.body, inner, (), node.name)
        return True

    def _class(self, node: ast.ClassDef, scope: Scope, loops: Loops, function: str | None) -> bool:
        inner = Scope("class", node, scope)
        scope.functions.setdefault(node.name, (node, inner))
        self.m.class_scopes[id(node)] = inner
        self.m.classes.append((node, scope))
        for part in (*node.decorator_list, *node.bases, *node.keywords):
            self.index(part, scope, loops, function)
        self.index_body(node.body, inner, (), function)
        return True

    def _for(self, node: ast.For | ast.AsyncFor, scope: Scope, loops: Loops, function: str | None) -> bool:
        self.index(node.iter, scope, loops, function)
        self.unknowable(node.target, scope, node, loops)
        self.index_body(node.body, scope, (*loops, Loop(node, self.m.code(node.iter))), function)
        self.index_body(node.orelse, scope, loops, function)
        return True

    def _if(self, node: ast.If, scope: Scope, loops: Loops, function: str | None) -> bool:
        if not never_true(node.test):
            return False
        self.index_body(node.orelse, scope, loops, function)  # `if False:` parks code: it binds nothing
        return True

    def _while(self, node: ast.While, scope: Scope, loops: Loops, function: str | None) -> bool:
        self.index(node.test, scope, loops, function)
        self.index_body(node.body, scope, (*loops, Loop(node, "while " + self.m.code(node.test))), function)
        self.index_body(node.orelse, scope, loops, function)
        return True

    def _with(self, node: ast.With | ast.AsyncWith, scope: Scope, loops: Loops, function: str | None) -> bool:
        # `with open(p) as f`, `async with httpx.AsyncClient() as client`: the target holds what
        # the context manager gives, which for files, clients and responses is the object
        # itself; it is bound where the item ends, so the body sees it.
        for item in node.items:
            self.index(item.context_expr, scope, loops, function)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, item.context_expr, scope, item.context_expr, loops)
        self.index_body(node.body, scope, loops, function)
        return True

    def _assign(self, node: ast.Assign, scope: Scope, loops: Loops, function: str | None) -> bool:
        for target in node.targets:
            self.assign(target, node.value, scope, node, loops)
        self.estimates.estimate_context([self.m.dotted(t) for t in node.targets], node.value)
        return False

    def _ann_assign(self, node: ast.AnnAssign, scope: Scope, loops: Loops, function: str | None) -> bool:
        if node.value is not None:
            self.assign(node.target, node.value, scope, node, loops)
            self.estimates.estimate_context([self.m.dotted(node.target)], node.value)
        return False

    def _aug_assign(self, node: ast.AugAssign, scope: Scope, loops: Loops, function: str | None) -> bool:
        target = node.target
        if isinstance(target, ast.Name) and isinstance(node.op, ast.Add):
            self.record(target.id, Assign("+=", node.value, self.m.end(node), loops, scope, target))
        elif isinstance(node.op, ast.Add) and isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and isinstance(string_value(target.slice), str):
            # system["content"] += context: text added to a key of a dict built before (containers.changed_entries)
            name = target.value.id
            home = owner(name, scope)
            self.record(name, Assign("setitem+=", node.value, self.m.end(node), loops, home, target,
                                     where=scope if home is not scope else None))
        elif (keyed := item_key_assign(target, node.value, self.m.end(node), loops, scope, node.op)) is not None:
            self.record(*keyed)  # messages[-1]["content"] += note (itemsets.py)
        self.estimates.estimate_context([self.m.dotted(node.target)], node.value)
        return False

    def _named_expr(self, node: ast.NamedExpr, scope: Scope, loops: Loops, function: str | None) -> bool:
        # `if found := path.glob(pattern): files.extend(found)`: the name holds the value from here on
        self.index(node.value, scope, loops, function)
        self.assign(node.target, node.value, scope, node, loops)
        return True

    def _return(self, node: ast.Return, scope: Scope, loops: Loops, function: str | None) -> bool:
        if scope.kind == "function" and node.value is not None:
            scope.returns.append(node.value)
            if token_name(function):
                self.estimates.token_return(function, node.value, scope)
        return False

    def _import(self, node: ast.Import, scope: Scope, loops: Loops, function: str | None) -> bool:
        for alias in node.names:
            name = alias.name
            if alias.asname is not None:
                self.m.imports[alias.asname] = name
            else:
                self.m.imports[name.split(".")[0]] = name.split(".")[0]
            self.imported(name)
        return True

    def _import_from(self, node: ast.ImportFrom, scope: Scope, loops: Loops, function: str | None) -> bool:
        base = node.module or ""
        if base and not node.level:
            self.imported(base)
        for alias in node.names:
            if alias.name == "*":
                if scope is self.m.module_scope:
                    self.m.star_imports.append((base, node.level))
                continue
            bound = alias.asname or alias.name
            imported = f"{base}.{alias.name}" if base else alias.name
            self.m.imports[bound] = self.m.catalogue.exports.get(imported, imported)
            self.m.from_imports.add(bound)
            if node.level:
                self.m.import_levels[bound] = node.level
        return True

    def _call(self, node: ast.Call, scope: Scope, loops: Loops, function: str | None) -> bool:
        self.m.calls.append((node, scope))
        self.mutation(node, scope, loops)
        for keyword in node.keywords:
            if keyword.arg is not None and token_name(keyword.arg):
                self.estimates.estimates_in(keyword.value)
        return False

    def _compare(self, node: ast.Compare, scope: Scope, loops: Loops, function: str | None) -> bool:
        self.estimates.estimate_comparison(node)
        return False

    def _subscript(self, node: ast.Subscript, scope: Scope, loops: Loops, function: str | None) -> bool:
        cuts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for cut in cuts:
            if isinstance(cut, ast.Slice):
                for bound in (cut.lower, cut.upper):
                    if bound is not None:
                        self.estimates.scaled_tokens(bound)
        return False

    def _list(self, node: ast.List, scope: Scope, loops: Loops, function: str | None) -> bool:
        self.m.lists.append((node, scope))
        return False

    def _dict(self, node: ast.Dict, scope: Scope, loops: Loops, function: str | None) -> bool:
        self.m.dicts.append((node, scope))
        self.sources.tool_result_message(node, scope)
        for key, value in zip(node.keys, node.values, strict=True):
            if token_name(string_value(key)):
                self.estimates.estimates_in(value)
        return False

    # ---- what the index records --------------------------------------------------------------------

    def imported(self, module: str) -> None:
        parts = module.split(".")
        self.m.mcp = self.m.mcp or parts[0] in ("mcp", "fastmcp")
        libraries = self.m.catalogue.llm_imports
        self.m.llm = self.m.llm or parts[0] in libraries or ".".join(parts[:2]) in libraries

    def record(self, name: str, assign: Assign) -> None:
        assign.scope.assigns.setdefault(name, []).append(assign)

    def assign(self, target: ast.expr, value: ast.expr, scope: Scope, statement: ast.stmt | ast.expr,
               loops: Loops) -> None:
        end = self.m.end(statement)
        if isinstance(target, ast.Name):
            self.record(target.id, Assign("=", value, end, loops, scope, target))
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and (
                cls := own_class(target.value.id, scope)) is not None:
            self.record(target.attr, Assign("=", value, end, (), cls, target, where=scope))
        elif (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
              and (isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)
                   or looped_keys(target.slice, loops))):
            # params["max_tokens"] = 500: a key set on a dict built before (read by dict_entries),
            # or each key of a loop over keys written out (`for key in ("top_p", ...): params[key] = ...`)
            name = target.value.id
            home = owner(name, scope)
            where = scope if home is not scope else None
            self.record(name, Assign("setitem", value, end, loops, home, target, where=where))
        elif (keyed := item_key_assign(target, value, end, loops, scope)) is not None:
            self.record(*keyed)  # messages[0]["content"] = text: a key of one message (itemsets.py)
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            if values is not None and len(values) == len(target.elts) and not any(
                isinstance(e, ast.Starred) for e in (*values, *target.elts)
            ):
                for t, v in zip(target.elts, values, strict=True):
                    self.assign(t, v, scope, statement, loops)
            elif isinstance(value, (ast.Call, ast.Await)) and not any(isinstance(e, ast.Starred) for e in target.elts):
                # `content, mime = self.fetch(url)`: each name holds an item of what the call returns
                for position, element in enumerate(target.elts):
                    item = ast.copy_location(ast.Subscript(value, ast.copy_location(ast.Constant(position), value),
                                                           ast.Load()), value)
                    setattr(item, UNPACKED, position)  # read through the function's returned tuples
                    self.assign(element, item, scope, statement, loops)
            else:
                self.unknowable(target, scope, statement, loops)

    def unknowable(self, target: ast.expr, scope: Scope, statement: ast.stmt | ast.expr, loops: Loops) -> None:
        """Names bound to values we cannot know: loop targets, unpacking."""
        if isinstance(target, ast.Name):
            self.record(target.id, Assign("=", None, self.m.start(statement), loops, scope, target))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.unknowable(element, scope, statement, loops)
        elif isinstance(target, ast.Starred):
            self.unknowable(target.value, scope, statement, loops)

    def mutation(self, call: ast.Call, scope: Scope, loops: Loops) -> None:
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name, method = func.value.id, func.attr
            if method in ("append", "extend", "insert") and call.args and not call.keywords:
                kind = method
                first = call.args[0]
                if kind == "insert" and not (len(call.args) == 2 and isinstance(first, ast.Constant)
                                             and first.value == 0 and not isinstance(first.value, bool)):
                    kind = "append"
                home = owner(name, scope)
                self.record(name, Assign(kind, call.args[-1], self.m.end(call), loops, home, func.value,
                                         where=scope if home is not scope else None))
            elif method in ("format", "format_map"):
                self.m.format_receivers.add(name)
            elif method in ("update", "setdefault"):  # settings.update(max_tokens=...): keys added to a dict
                home = owner(name, scope)
                self.record(name, Assign(method, call, self.m.end(call), loops, home, func.value,
                                         where=scope if home is not scope else None))
            elif method == "pop" and call.args and string_value(call.args[0]) in LIMIT_NAMES:
                # params.pop("max_tokens"): a limit taken out of a request's settings
                home = owner(name, scope)
                self.record(name, Assign("pop", call, self.m.end(call), loops, home, func.value,
                                         where=scope if home is not scope else None))
            elif method in self.m.catalogue.appenders and call.args:
                # history.add_user_message(text): a message added to the receiver (Semantic Kernel)
                home = owner(name, scope)
                self.record(name, Assign("append", call, self.m.end(call), loops, home, func.value,
                                         where=scope if home is not scope else None))
        if isinstance(func, ast.Attribute) and func.attr in ("format", "format_map") and isinstance(
                func.value, ast.Attribute):
            self.m.format_receivers.add(func.value.attr)
        if self.m.qualified(func) == "random.shuffle" and call.args and isinstance(call.args[0], ast.Name):
            target = call.args[0]
            home = owner(target.id, scope)
            self.record(target.id, Assign("shuffle", call, self.m.end(call), loops, home, target,
                                          where=scope if home is not scope else None))

    # ---- resolution --------------------------------------------------------------------------------

    def binding(self, name: str, env: Env, at: tuple[int, int] | None, foreign: bool = False) -> Binding | None:
        """What ``name`` holds at ``at`` in ``env``; None when unknowable (a parameter, a loop
        target), or held by another module and ``foreign`` is not asked for."""
        bound = env.bound(name)
        if bound is not None and not _rebound(self, name, env, at):
            if bound.owner is not None and not foreign:
                return None
            return Binding(bound.node, bound.env, _parameter_additions(self, name, env, at), owner=bound.owner,
                           added_in=env)
        scope: Scope | None = env.scope
        first = True
        while scope is not None:
            if scope.kind == "class" and not first:
                scope = scope.parent
                continue
            records = scope.assigns.get(name)
            if records:
                # Each record is looked at: a name assigned thousands of times in one scope
                # (generated code, `PROMPT += PROMPT`) spends the module's budget, not minutes.
                if not self.m.step(len(records)):
                    return None
                visible, index = seen_at(records, at, first, self.carried)
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
        bound_by = imported(self.m, name) if foreign else None
        return self.import_binding(*bound_by) if bound_by is not None else None

    def unknowable_target(self, node: ast.Name, env: Env) -> ast.expr | None:
        """The target a local name was last bound at when that binding is one ``binding`` cannot
        know (a loop target, an unpacking), for a part that reads what the statement gives it."""
        records = env.scope.assigns.get(node.id)
        if not records or env.bound(node.id) is not None or not self.m.step(len(records)):
            return None
        visible, index = seen_at(records, self.m.start(node), True, self.carried)
        return visible[index].target if index is not None and visible[index].value is None else None

    def import_binding(self, qualified: str, level: int = 0) -> Binding | None:
        """The value a module of the project gives a name (``from app.prompts import SYSTEM``)."""
        found = self.m.foreign(qualified, level)
        if found is None:
            return None
        owner, node = found
        if not isinstance(node, ast.expr):
            return None
        return Binding(node, Env(owner.unit.module_scope), [], owner=owner)

    def carried(self, record: Assign, at: tuple[int, int]) -> bool:
        """Whether a change written after ``at`` reaches it on the next pass of a loop around
        both (``messages.append(tool_result)`` after the call that sends ``messages``)."""
        return any(self.m.start(loop.node) <= at <= self.m.end(loop.node) for loop in record.loops)

    def resolve(self, node: ast.AST, env: Env, foreign: bool = False) -> Binding | None:
        """What a name or ``self.``/``cls.`` attribute holds; with ``foreign``, also a value
        another module of the project gives it (``binding.owner`` says which)."""
        if env.depth > MAX_DEPTH:
            return None
        # Every part of the analysis asks what the names of a call site hold (its text, facts,
        # sources, call path): each name in each env is looked up once.
        # The entry keeps the node and env alive, so that their ids in the key stay theirs.
        key = (id(node), env.key, foreign)
        entry = self.m.resolved.get(key)
        if entry is None:
            entry = self.m.resolved[key] = (node, env, self._resolve(node, env, foreign))
        return entry[2]

    def _resolve(self, node: ast.AST, env: Env, foreign: bool) -> Binding | None:
        if isinstance(node, ast.Name):
            return self.binding(node.id, env, self.m.start(node), foreign)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            cls = own_class(node.value.id, env.scope)
            if cls is not None:
                records = cls.assigns.get(node.attr) or []
                bases = [i for i, r in enumerate(records) if r.kind == "=" and r.value is not None]
                if bases:
                    base = records[bases[-1]]
                    assert base.value is not None
                    return Binding(base.value, Env(base.home, (), env.depth + 1), records[bases[-1] + 1 :])
            elif foreign and node.value.id in self.m.imports:
                head = node.value.id  # prompts.SYSTEM, where `from app import prompts`
                return self.import_binding(f"{self.m.imports[head]}.{node.attr}", self.m.import_levels.get(head, 0))
        return None

    def earlier_values(self, node: ast.expr, env: Env) -> list[Binding]:
        """The plain assignments of a ``self.`` attribute before the last one, latest first:
        the other branches of ``if given is None: self.llm = Model(...) else: self.llm = given``."""
        cls = own_class(node.value.id, env.scope) if isinstance(node, ast.Attribute) and isinstance(
            node.value, ast.Name) else None
        if cls is None:
            return []
        assert isinstance(node, ast.Attribute)
        records = cls.assigns.get(node.attr) or []
        bases = [i for i, r in enumerate(records) if r.kind == "=" and r.value is not None]
        found = []
        for i in reversed(bases[:-1]):
            value = records[i].value
            assert value is not None
            found.append(Binding(value, Env(records[i].home, (), env.depth + 1), records[i + 1:]))
        return found

    def deref(self, node: ast.expr, env: Env) -> tuple[ast.expr, Env]:
        """Follow names to the literal they hold (when nothing changed it since)."""
        seen = 0
        while seen < 10:
            binding = self.resolve(node, env)
            if binding is None or binding.extras:
                return node, env
            node, env = binding.value, binding.env
            seen += 1
        return node, env


# No handler for a lambda: its body is indexed where it is written, so a request in a lambda a retry
# helper runs is read there (callbacks.py reads what the helper passes its parameters).
_HANDLERS: dict[type, Callable[..., bool]] = {
    ast.FunctionDef: Scopes._function,
    ast.AsyncFunctionDef: Scopes._function,
    ast.If: Scopes._if,
    ast.ClassDef: Scopes._class,
    ast.For: Scopes._for,
    ast.AsyncFor: Scopes._for,
    ast.While: Scopes._while,
    ast.With: Scopes._with,
    ast.AsyncWith: Scopes._with,
    ast.Assign: Scopes._assign,
    ast.AnnAssign: Scopes._ann_assign,
    ast.AugAssign: Scopes._aug_assign,
    ast.NamedExpr: Scopes._named_expr,
    ast.Return: Scopes._return,
    ast.Import: Scopes._import,
    ast.ImportFrom: Scopes._import_from,
    ast.Call: Scopes._call,
    ast.Compare: Scopes._compare,
    ast.Subscript: Scopes._subscript,
    ast.List: Scopes._list,
    ast.Dict: Scopes._dict,
}


def stored_by_key(function: ast.AST, name: str) -> list[ast.expr]:
    """The values a function stores in its dict ``name`` under keys it computes (``pages[url] =
    text``): scopes record only literal keys, which name settings, not the items of a collection."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    return [statement.value for statement in ast.walk(function) if isinstance(statement, ast.Assign)
            for target in statement.targets if isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name) and target.value.id == name
            and not isinstance(target.slice, ast.Constant)]


def shared_branches(read: ast.AST, value: ast.AST, parents: dict[int, ast.AST]) -> frozenset[int]:
    """The ``if`` and ``try`` statements around both a read and the value it resolves to: their
    other branches cannot reach the read."""
    return frozenset(t for t, _ in branches(read, parents)) & frozenset(t for t, _ in branches(value, parents))


def other_branches(read: ast.Name, binding: Binding, parents: dict[int, ast.AST],
                   shared: frozenset[int] | None = None) -> list[ast.expr]:
    """The values the name read is given on the other side of an ``if`` than ``binding.value`` (its
    last assignment, which is all a later read sees of it): what the name holds when that branch
    ran. ``shared``: the statements around both (shared_branches), where the caller has them."""
    value = binding.value
    shared = shared_branches(read, value, parents) if shared is None else shared
    sides = {test: side for test, side in branches(value, parents) if test not in shared}
    if not sides:
        return []
    records = binding.env.scope.assigns.get(read.id, [])
    given = [r.value for r in records if r.kind == "=" and r.value is not None and r.value is not value]
    found = [v for v in given if apart(sides, v, parents)]
    # An `if` with no `else` gives the name its value only when its test holds; otherwise the read
    # sees what the name held before the `if` (`text = out["text"]`, then `if failed: text = "..."`).
    for statement in _ifs_without_else(value, parents, shared):
        found += sorted((v for v in given if v.lineno < statement.lineno and v not in found),
                        key=lambda v: v.lineno, reverse=True)
    return found[:MAX_BRANCHES]


def _ifs_without_else(node: ast.AST, parents: dict[int, ast.AST], shared: frozenset[int]) -> list[ast.If]:
    """The ``if`` statements with no ``else`` whose body holds ``node`` (innermost first), other
    than those around the read too (``shared``)."""
    found = []
    child, current = node, parents.get(id(node))
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if isinstance(current, ast.If) and not current.orelse and id(current) not in shared \
                and any(child is n for n in current.body):
            found.append(current)
        child, current = current, parents.get(id(current))
    return found


def branches(node: ast.AST, parents: dict[int, ast.AST], tries: bool = True) -> list[tuple[int, int]]:
    """The ``if`` and ``try`` statements around ``node`` in its function, each with the branch
    ``node`` is in: an ``if``'s body (0) or else (1); a ``try``'s body or else (0) or a handler (1, 2 ...).
    Without ``tries``, the ``if`` statements alone."""
    found = []
    child, current = node, parents.get(id(node))
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if isinstance(current, ast.If) and child is not current.test:
            found.append((id(current), 0 if any(child is n for n in current.body) else 1))
        elif tries and isinstance(current, ast.Try) and not any(child is n for n in current.finalbody):
            handler = next((i for i, h in enumerate(current.handlers, 1) if h is child), 0)
            found.append((id(current), handler))
        child, current = current, parents.get(id(current))
    return found


def apart(sides: dict[int, int], node: ast.AST, parents: dict[int, ast.AST], tries: bool = True) -> bool:
    """Whether ``node`` sits in another branch than ``sides`` (``dict(branches(...))`` of another
    node) of one statement around both: only one of the two runs."""
    return any(sides.get(test, side) != side for test, side in branches(node, parents, tries))


# The other branches' values of a name read for its sources, at most.
MAX_BRANCHES = 4


def _supply_imports(scopes: Scopes) -> None:
    """An LLM library the module calls by its module name (``litellm.completion(...)``) without
    importing or binding it: a host that runs the module supplies its imports (a function
    registry that imports what the function declares, a plugin loader), so the name is the library."""
    unit = scopes.m
    libraries = unit.catalogue.llm_imports
    for call, scope in unit.calls:
        root = call.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if root is call.func or not isinstance(root, ast.Name) or root.id in unit.imports \
                or root.id not in libraries or _bound(root.id, scope):
            continue
        unit.imports[root.id] = root.id
        scopes.imported(root.id)


def _bound(name: str, scope: Scope | None) -> bool:
    """Whether ``name`` is assigned, a parameter or a definition in ``scope`` or a scope around it."""
    while scope is not None:
        if name in scope.assigns or name in scope.params or name in scope.functions:
            return True
        scope = scope.parent
    return False


def _rebound(scopes: Scopes, name: str, env: Env, at: tuple[int, int] | None) -> bool:
    """Whether the function binds its parameter ``name`` again before ``at``
    (``prompt = self.add_docs(prompt, docs)``): from there on the name holds that value, not
    the caller's argument."""
    records = env.scope.assigns.get(name) if at is not None and env.scope.kind == "function" \
        and name in env.scope.params else None
    if not records or not scopes.m.step(len(records)):
        return False
    return seen_at(records, at, True, scopes.carried)[1] is not None


def _parameter_additions(scopes: Scopes, name: str, env: Env, at: tuple[int, int] | None) -> list[Assign]:
    """What the function adds to a parameter before ``at`` (``prompt += f"{doc}\n"`` in a
    helper that returns the prompt it was given): the caller's argument, then these. Nothing
    when the function binds the name again."""
    records = env.scope.assigns.get(name) if env.scope.kind == "function" and name in env.scope.params else None
    if not records or not scopes.m.step(len(records)):
        return []
    visible, index = seen_at(records, at, True, scopes.carried)
    return visible if index is None and all(r.kind == "+=" for r in visible) else []
