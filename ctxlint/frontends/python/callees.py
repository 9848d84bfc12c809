"""What a call reaches: the function or method it calls (in this module, in a class the code
shows and its bases, or in another module of the project), the class of the object it is made
on, and the function's parameters bound to the call's arguments. Names and what they hold come
from :mod:`scopes`, below it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.classattrs import class_annotation, declared_in, declared_in_bases, set_by_base
from ctxlint.frontends.python.knowledge import MAX_DEPTH
from ctxlint.frontends.python.nodes import base_name
from ctxlint.frontends.python.patches import replaced_stub
from ctxlint.frontends.python.receivers import receiver_binding
from ctxlint.frontends.python.runners import handed_call, handed_callee
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.starimports import imported_value
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Bound, Env, Scope, unpacked_position

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer


# How many subclasses of a class are read for the hook its base calls (subclass_hook): a base
# with more is a framework's, whose hooks say little of any one object.
MAX_HOOK_CLASSES = 12


class Callees(Component):
    unwrapping = False  # reading the wrapper of a decorator applied by hand

    def function_for(self, call: ast.Call, env: Env, foreign: bool = False, returns: bool = True) -> Called | None:
        """The function (or method) ``call`` calls, with its return values and the parameters
        bound to the call's arguments; None if the code does not show it (or, with ``returns``,
        if it returns nothing). A function of the module, a method of ``self``, of an object of a
        class the code shows or of a parameter annotated with one (found in the class or its
        bases), and with ``foreign``, a function or class another module of the project defines."""
        found = self.callee(call.func, env, foreign) if env.depth <= MAX_DEPTH else None
        if found is None and (handed := handed_call(self.m, call)) is not None:
            # `await asyncio.to_thread(parse, path)`: what the runner gives back is what `parse(path)` returns
            call, found = handed, handed_callee(self, handed.func, env, foreign)
        if found is None or returns and not found[2].returns:
            return None
        return self.called(call, env, found)

    def called(self, call: ast.Call, env: Env, found: tuple[Analyzer | None, FunctionNode, Scope, bool]) -> Called:
        """``function_for`` of what ``callee`` found (apart: a caller may test the function first)."""
        owner, fn, inner, _ = found
        return Called(fn, inner.returns, Env(inner, self.bind(call, env, found), env.depth + 1), owner)

    def returned_items(self, node: ast.Subscript, position: int, env: Env) -> list[tuple[ast.expr, Env, Called]]:
        """The ``position``-th item of each tuple the function ``node`` calls returns
        (``return page.text, mime``), in the env the function runs in; empty when the code does
        not show the function or a return is not a tuple that long."""
        return self.items_returned_by(node.value, position, env)

    def items_returned_by(self, call: ast.expr, position: int, env: Env,
                          outer: frozenset[int] = frozenset()) -> list[tuple[ast.expr, Env, Called]]:
        """``returned_items`` of a call; a return that hands over to another function the code
        shows (``return run_subprocess(command)``) gives that function's items, and one that calls
        a function it is already in (a retry: ``return self._run(command, tries + 1)``) adds none."""
        call = call.value if isinstance(call, ast.Await) else call
        target = self.function_for(call, env, foreign=True) if isinstance(call, ast.Call) else None
        if target is None or id(target.fn) in outer:  # a retry of a function being read: no items of its own
            return [] if target is None else [(call, env, target)]
        items: list[tuple[ast.expr, Env, Called]] = []
        for value in target.returns:
            if isinstance(value, ast.Tuple):
                if len(value.elts) <= position or any(isinstance(e, ast.Starred) for e in value.elts):
                    return []
                items.append((value.elts[position], target.env, target))
                continue
            reader = target.owner.callees if target.owner is not None else self
            handed = reader.items_returned_by(value, position, target.env, outer | {id(target.fn)})
            if not handed:
                return []
            items += [(item, item_env, called if called.owner is not None else replace(called, owner=target.owner))
                      for item, item_env, called in handed if item is not value]
        return items

    def bind(self, call: ast.Call, env: Env, found: tuple[Analyzer | None, FunctionNode, Scope, bool]
             ) -> tuple[Bound, ...]:
        """The parameters of the function ``found`` bound to ``call``'s arguments, the others to
        their defaults unless the call spreads more; ``**kwargs`` holds the keywords left over."""
        owner, fn, inner, method = found
        params = inner.positional[1:] if method and inner.positional[:1] in (["self"], ["cls"]) else inner.positional
        caller = self.m.analyzer if owner is not None else None
        bindings: list[Bound] = [*receiver_binding(call, env, caller, inner)] if params is not inner.positional else []
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        for name, value in zip(params, positional, strict=False):  # extra arguments or defaults
            bindings.append(Bound(name, value, env, caller))
        extra: list[ast.keyword] = []
        for keyword in call.keywords:
            if keyword.arg is not None and keyword.arg in inner.params:
                bindings.append(Bound(keyword.arg, keyword.value, env, caller))
            else:
                extra.append(keyword)
        kwargs = fn.args.kwarg
        if kwargs is not None and all(k.arg is not None for k in extra):
            # `def make(**kwargs)` called as `make(model=m, max_tokens=300)`: a dict of the rest,
            # its keys placed where the caller writes them (it lives as long as the binding).
            rest = ast.Dict([ast.copy_location(ast.Constant(k.arg), k) for k in extra], [k.value for k in extra])
            bindings.append(Bound(kwargs.arg, ast.copy_location(rest, call), env, caller))
        if len(positional) < len(call.args) or any(k.arg is None for k in call.keywords):
            return tuple(bindings)  # `make(**settings)`: the spread may give any of the others
        if fn.args.vararg is not None and len(positional) <= len(params):
            # `def ask(system, user, *turns)` called as `ask(s, u)`: `turns` is empty
            bindings.append(Bound(fn.args.vararg.arg, ast.copy_location(ast.Tuple([], ast.Load()), call), env, caller))
        given = {b.param for b in bindings}
        defaults = Env(inner.parent or (owner.unit if owner is not None else self.m).module_scope, (), env.depth + 1)
        for name, param in inner.params.items():
            if name not in given and param.default is not None:
                bindings.append(Bound(name, param.default, defaults))
        return tuple(bindings)

    def callee(self, func: ast.expr, env: Env, foreign: bool) -> tuple[Analyzer | None, FunctionNode, Scope,
                                                                          bool] | None:
        """``(owner, function, its scope, is a method)`` for the function an expression names."""
        found: tuple[ast.AST, Scope] | None = None
        owner: Analyzer | None = None
        method = False
        if isinstance(func, ast.Name):
            scope: Scope | None = env.scope
            while scope is not None and found is None:
                if scope.kind != "class" or scope is env.scope:
                    found = scope.functions.get(func.id)
                scope = scope.parent
            if found is None:
                found = self.decorated_by_hand(self.module_value(func.id), foreign)
            located = imported_value(self.m, func.id) if found is None and foreign else None
            if located is not None:
                owner, node = located
                found = owner.unit.module_scope.functions.get(getattr(node, "name", "")) \
                    or owner.callees.decorated_by_hand(node, foreign)
        elif isinstance(func, ast.Attribute):
            method = True
            cls = self.class_of(func.value, env, foreign)
            if cls is not None:
                owner, cls_scope = cls
                inherited = self.method_of(owner, cls_scope, func.attr, foreign)
                if inherited is not None and replaced_stub(func, inherited[1][0]) \
                        and (held := self.held_function(func, env, foreign)) is not None:
                    return held  # `self.run_sql = run_sql_postgres` replaces a stub `run_sql`
                if inherited is not None:
                    owner, found = inherited
                elif isinstance(func.value, ast.Name) and func.value.id == "self":
                    held = self.held_function(func, env, foreign)
                    return held if held is not None else self.subclass_hook(cls_scope, func.attr, foreign)
            elif foreign and isinstance(func.value, ast.Name) and func.value.id in self.m.imports:
                head = func.value.id  # helpers.fetch(...), where `import helpers`
                located = self.m.foreign(f"{self.m.imports[head]}.{func.attr}", self.m.import_levels.get(head, 0))
                if located is not None:
                    owner, node = located
                    found = owner.unit.module_scope.functions.get(getattr(node, "name", ""))
                    method = False
        if found is None or not isinstance(found[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        return owner, found[0], found[1], method

    def module_value(self, name: str) -> ast.expr | None:
        """The one value the module binds ``name`` to, if it binds it once."""
        records = self.m.module_scope.assigns.get(name) or []
        return records[0].value if len(records) == 1 and records[0].kind == "=" else None

    def decorated_by_hand(self, value: ast.AST | None, foreign: bool
                          ) -> tuple[ast.AST, Scope] | None:
        """``cut = run_with_timeout(cut_, timeout=20)``: a decorator applied by hand to a function
        of the module, given as the only positional argument of a project function that returns it
        or a function it defines. A call of ``cut`` runs ``cut_`` with the same parameters (a
        ``partial`` that binds a positional argument, or a class that keeps the function, is none)."""
        if self.unwrapping or not (isinstance(value, ast.Call) and len(value.args) == 1
                                   and isinstance(value.args[0], ast.Name)):
            return None
        module = self.m.module_scope
        wrapped = module.functions.get(value.args[0].id)
        self.unwrapping = True  # the wrapper is a function the code defines, not another wrapped one
        try:
            wrapper = self.callee(value.func, Env(module), foreign) if wrapped is not None else None
        finally:
            self.unwrapping = False
        if wrapper is None or not wrapper[2].positional:
            return None
        given, nested = wrapper[2].positional[0], set(wrapper[2].functions)
        if any(isinstance(r, ast.Name) and (r.id == given or r.id in nested) for r in wrapper[2].returns):
            return wrapped
        return None

    def aliases(self, fn: FunctionNode) -> list[str]:
        """The module's names for ``fn`` with a decorator applied by hand (``decorated_by_hand``)."""
        return [name for name, records in self.m.module_scope.assigns.items() if len(records) == 1
                and isinstance(records[0].value, ast.Call) and records[0].value.args
                and isinstance(records[0].value.args[0], ast.Name) and records[0].value.args[0].id == fn.name
                and (found := self.decorated_by_hand(records[0].value, True)) is not None and found[0] is fn]

    def subclass_hook(self, cls: Scope, name: str, foreign: bool
                      ) -> tuple[Analyzer | None, FunctionNode, Scope, bool] | None:
        """The method ``name`` a subclass of the project defines when its base calls
        ``self.name(...)`` but neither defines nor inherits it (a template method's hook,
        ``messages = self.make_messages(prompt)``): the object must be one of those subclasses,
        and the first of them, in path order, stands for all. Without ``foreign``, one of this
        module only."""
        for found in self.subclass_hooks(cls, name):
            if found[0] is None or foreign:
                return found
        return None

    def subclass_hooks(self, cls: Scope, name: str) -> list[tuple[Analyzer | None, FunctionNode, Scope, bool]]:
        """Each subclass's method ``name`` (``subclass_hook``), in path order, among the first
        ``MAX_HOOK_CLASSES`` subclasses; looked up once per class and name."""
        project = self.m.project
        if project is None or not isinstance(cls.node, ast.ClassDef):
            return []
        known = self.m.hook_memo.get((id(cls.node), name))
        if known is not None:
            return known[1]
        found: list[tuple[Analyzer | None, FunctionNode, Scope, bool]] = []
        self.m.hook_memo[(id(cls.node), name)] = (cls.node, found)  # the entry keeps the class alive for its id
        for path, class_name in project.subclasses(cls.node.name)[:MAX_HOOK_CLASSES]:
            analyzer = project.analyzer(path)
            entry = analyzer.unit.module_scope.functions.get(class_name) if analyzer is not None else None
            method = entry[1].functions.get(name) if entry is not None and isinstance(entry[0], ast.ClassDef) else None
            if analyzer is not None and method is not None \
                    and isinstance(method[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(((analyzer if analyzer.unit is not self.m else None), method[0], method[1], True))
        return found

    def held_function(self, func: ast.Attribute, env: Env, foreign: bool
                      ) -> tuple[Analyzer | None, FunctionNode, Scope, bool] | None:
        """The function a ``self.`` attribute holds when the class has no method of that name:
        the one assigned to it (``self._send = send``) or returned for it by a call
        (``self._send, self._send_async = make_senders(config)``, functions the maker defines
        inside it). Of several assignments the latest that shows a function counts: one after it
        that wraps the function in middleware (``self._send = with_retries(self._send)``)
        returns the same function, called through."""
        for binding in (self.scopes.resolve(func, env), *self.scopes.earlier_values(func, env)):
            if binding is None:
                continue
            value, value_env = binding.value, binding.env
            if isinstance(value, ast.Name):
                found = self.callee(value, value_env, foreign)
                if found is not None:
                    return found
                continue
            position = unpacked_position(value) if isinstance(value, ast.Subscript) else None
            if isinstance(value, ast.Subscript) and position is not None:  # `self._send, self._ask = make(...)`
                returned = self.items_returned_by(value.value, position, value_env)
            elif isinstance(value, ast.Call) and (target := self.function_for(value, value_env, True)) is not None:
                returned = [(item, target.env, target) for item in target.returns]  # `self._send = make(...)`
            else:
                continue
            for item, item_env, called in returned:
                made = item_env.scope.functions.get(item.id) if isinstance(item, ast.Name) else None
                if made is not None and isinstance(made[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
                    return called.owner, made[0], made[1], False
        return None

    def class_of(self, node: ast.expr, env: Env, foreign: bool, hops: int = 0) -> tuple[Analyzer | None, Scope] | None:
        """The class whose method ``node.method(...)`` calls: ``self``/``cls``, a class the code
        shows (``Fetcher.page``), the class of an object built from one (``Fetcher().page``),
        or the class a parameter is annotated with (``llm: BaseLLM``), through names and
        ``self`` attributes that hold it (``self.llm = llm``)."""
        if isinstance(node, ast.Name) and node.id in ("self", "cls"):
            method = _method_around(env.scope, node.id)
            if method is not None and method.cls is None and method.parent is self.m.module_scope:
                patched = self.m.patched_onto(getattr(method.node, "name", ""))  # `Bot.reply = _reply`
                return self.class_named(patched, self.m.module_scope, foreign) if patched is not None else None
            return (None, method.cls) if method is not None and method.cls is not None else None
        cls = env.scope.cls
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" \
                and not node.args and cls is not None and isinstance(cls.node, ast.ClassDef) and cls.node.bases:
            base = base_name(cls.node.bases[0])  # `super().handle(...)`: the method of the first base class
            return self.class_named(base, cls.parent, foreign) if base is not None else None
        called = isinstance(node, ast.Call)  # an object a call returns: a method's may be the one it is on
        made: ast.Call | None = node if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Call):
            node = node.func
        else:
            binding = self.scopes.resolve(node, env) if isinstance(node, (ast.Name, ast.Attribute)) else None
            fallback = _fallback_built(binding.value) if binding is not None else None
            if fallback is not None:  # `self.settings = settings or Settings()`: the class it falls back on
                assert binding is not None
                binding = replace(binding, value=fallback)
            called = binding is not None and isinstance(binding.value, ast.Call)
            factory = _default_factory(binding.value) if binding is not None else None
            if factory is not None:  # `runner: Runner = Field(default_factory=Runner)`: the object it builds
                assert binding is not None
                node, env = factory, binding.env
            elif binding is not None and isinstance(binding.value, ast.Call):
                made, node, env = binding.value, binding.value.func, binding.env
            elif binding is not None and isinstance(binding.value, ast.Name) and binding.owner is None and hops < 4:
                return self.class_of(binding.value, binding.env, foreign, hops + 1)
            elif isinstance(node, ast.Name) and env.scope.kind == "function" and node.id in env.scope.params \
                    and env.bound(node.id) is None:
                annotation = self.class_annotation(env.scope.params[node.id].annotation)
                if annotation is None:
                    return None
                node = annotation
            elif isinstance(node, ast.Attribute):  # `self.llm` of a class that declares `llm: Optional[BaseLlm] = None`
                declared = self.declared_class(node, env)
                if declared is None and binding is None and isinstance(node.value, ast.Name) \
                        and node.value.id == "self" and env.scope.cls is not None:
                    based = declared_in_bases(self, node.attr, env.scope.cls, foreign)
                    if based is not None:  # `llm`, a property or field of a mixin the class inherits
                        return based
                inherited = self.set_by_base(node.attr, env) if declared is None and isinstance(node.value, ast.Name) \
                    and node.value.id == "self" else None
                if inherited is not None and hops < 4:  # `self.model = model`, set by a base class
                    value, value_env, owner = inherited
                    return (owner.callees if owner is not None else self).class_of(value, value_env, foreign, hops + 1)
                node = declared or node
        if called and isinstance(node, ast.Attribute) and hops < 8:
            return self.fluent_class(node, env, foreign, hops)
        if not isinstance(node, ast.Name):
            return None
        found = self.class_named(node.id, env.scope, foreign)
        return found if found is not None or made is None else returned_class(self, made, env, foreign)

    def fluent_class(self, method: ast.Attribute, env: Env, foreign: bool, hops: int
                     ) -> tuple[Analyzer | None, Scope] | None:
        """The class of ``obj.method(...)`` when the method returns the object it is called on
        (``return self``, a builder's chained calls): the class of ``obj``."""
        cls = self.class_of(method.value, env, foreign, hops + 1)
        found = self.method_of(cls[0], cls[1], method.attr, foreign) if cls is not None else None
        if found is None or not isinstance(found[1][0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        returns = found[1][1].returns
        fluent = bool(returns) and all(isinstance(r, ast.Name) and r.id == "self" for r in returns)
        return cls if fluent else None

    def set_by_base(self, attr: str, env: Env) -> tuple[ast.expr, Env, Analyzer | None] | None:
        """What a base class of the project sets ``self.attr`` to, when the class itself never
        sets it (``self.model_params = model_params or {}`` in the base's ``__init__``): the value,
        the env it is read in, and the module that reads it. None when a class on the way gives
        the parameters it is set from a value of its own before handing them on
        (``if settings is None: settings = Defaults().as_dict()``). Looked up once per class and
        name."""
        key = (id(env.scope.cls), attr)
        known = self.m.base_set_memo.get(key)
        if known is None:
            # the entry keeps the class alive for its id
            known = self.m.base_set_memo[key] = (env.scope.cls, set_by_base(self, attr, env.scope.cls))
        return known[1]

    def class_named(self, name: str, scope: Scope | None, foreign: bool) -> tuple[Analyzer | None, Scope] | None:
        """The class ``name`` is where ``scope`` reads it: defined around it, or imported from a
        module of the project."""
        while scope is not None:
            found = scope.functions.get(name)
            if found is not None:
                return (None, found[1]) if isinstance(found[0], ast.ClassDef) else None
            scope = scope.parent
        located = imported_value(self.m, name) if foreign else None
        if located is not None:
            owner, cls = located
            # the class, or the class bound to a name there too (`Config = Settings`)
            defined = cls.name if isinstance(cls, ast.ClassDef) else cls.id if isinstance(cls, ast.Name) else None
            entry = owner.unit.module_scope.functions.get(defined) if defined is not None else None
            return (owner, entry[1]) if entry is not None and isinstance(entry[0], ast.ClassDef) else None
        return None

    def declared_class(self, node: ast.expr, env: Env) -> ast.Name | None:
        """The class the enclosing class's body annotates a ``self.`` attribute with, when the
        code assigns it no object of its own (a field set by whoever builds the object)."""
        cls = env.scope.cls
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
                and cls is not None):
            return None
        return declared_in(cls, node.attr)

    class_annotation = staticmethod(class_annotation)

    def method_of(self, owner: Analyzer | None, cls: Scope, name: str, foreign: bool, depth: int = 0
                  ) -> tuple[Analyzer | None, tuple[ast.AST, Scope]] | None:
        """The method ``name`` of a class, defined in it or inherited from a base class the
        project defines (looked up in the module that defines each class)."""
        found = cls.functions.get(name)
        if found is not None:
            return owner, found
        if depth >= 4 or not isinstance(cls.node, ast.ClassDef):
            return None
        home_unit = owner.unit if owner is not None else self.m
        patched = home_unit.patched(cls.node.name, name)  # `Bot.reply = _reply` in its module
        if patched is not None and (found := home_unit.module_scope.functions.get(patched)) is not None:
            return owner, found
        home = owner.callees if owner is not None else self
        for base in map(base_name, cls.node.bases):
            if base is None:
                continue
            located = home.class_named(base, cls.parent, foreign)
            if located is None:
                continue
            base_owner = located[0] if located[0] is not None else owner
            inherited = home.method_of(base_owner, located[1], name, foreign, depth + 1)
            if inherited is not None:
                return inherited
        return None

    def remembered_callee(self, call: ast.Call, env: Env) -> tuple[object, ...] | None:
        """The function ``call`` runs (``callee`` of another module too), asked once per call and
        environment for the whole module."""
        key = (id(call), env.key)
        if key not in self.m.callee_memo:
            self.m.callee_memo[key] = self.callee(call.func, env, foreign=True)
        return self.m.callee_memo[key]

    def param_annotation(self, name: str, env: Env) -> str | None:
        scope = env.scope
        if scope.kind == "function" and name in scope.params and env.bound(name) is None:
            annotation = scope.params[name].annotation
            if annotation is not None:
                return self.m.code(annotation)
        return None


def _fallback_built(value: ast.expr) -> ast.Call | None:
    """The object ``given or Settings()`` falls back on building (a class's name, capitalised):
    what is given in its place is taken for one of the same class."""
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) and isinstance(value.values[-1], ast.Call):
        built = value.values[-1]
        return built if isinstance(built.func, ast.Name) and built.func.id[:1].isupper() else None
    return None


def _default_factory(value: ast.expr) -> ast.Name | None:
    """The class a field declaration builds its default with (``Field(default_factory=Runner)``,
    dataclasses' ``field(default_factory=Runner)``), when it names one."""
    if not (isinstance(value, ast.Call) and last_name(value.func) in ("Field", "field")):
        return None
    factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
    return factory if isinstance(factory, ast.Name) and factory.id[:1].isupper() else None


@dataclass(frozen=True)
class Called:
    """A function a call reaches: its definition, its return values, the env its body runs in
    (parameters bound to the call's arguments) and the module it is in, when another one."""

    fn: FunctionNode
    returns: list[ast.expr]
    env: Env
    owner: Analyzer | None = None


def returned_class(callees: Callees, call: ast.Call, env: Env, foreign: bool) -> tuple[Analyzer | None, Scope] | None:
    """The class a function of the project declares it returns (``def get_settings(...) ->
    Settings``), for the object a call of it gives."""
    found = callees.callee(call.func, env, foreign)
    if found is None or not isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    owner, fn, inner, _ = found
    annotation = callees.class_annotation(fn.returns)
    reader = owner.callees if owner is not None else callees
    home = inner.parent
    cls = reader.class_named(annotation.id, home, foreign) if annotation is not None and home is not None else None
    if cls is None or cls[0] is not None or owner is None:
        return cls
    return owner, cls[1]


def _method_around(scope: Scope | None, name: str) -> Scope | None:
    """The method whose ``self`` (or ``cls``) a function reads: its own, or, for a function nested
    in a method that takes no such parameter (a closure), the enclosing method's."""
    while scope is not None and scope.kind == "function":
        if scope.cls is not None or name in scope.params:
            return scope
        scope = scope.parent
    return None


def item_call(callees: Callees, node: ast.Subscript, env: Env) -> tuple[ast.expr, int, Env] | None:
    """The call whose returned tuples ``node`` takes an item of, the item's position and the
    call's env: an unpacked name's (``content`` of ``content, mime = fetch(url)``) or an
    indexed result's (``indexed_result``); None for any other subscript."""
    position = unpacked_position(node)
    return (node.value, position, env) if position is not None else indexed_result(callees, node, env)


def indexed_result(callees: Callees, node: ast.Subscript, env: Env) -> tuple[ast.Call, int, Env] | None:
    """``got[0]`` where ``got = self._run(cmd)`` and every return of ``_run`` is a tuple: the
    item at that position, read as ``status, out = self._run(cmd)`` reads it (a status parsed
    with int() is no text, whatever else the tuple holds); None for any other subscript."""
    index = node.slice
    if not (isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0
            and isinstance(node.value, ast.Name)):
        return None
    binding = callees.scopes.resolve(node.value, env)
    if binding is None or binding.extras or binding.owner is not None or not isinstance(binding.value, ast.Call) \
            or not callees.items_returned_by(binding.value, index.value, binding.env):
        return None
    return binding.value, index.value, binding.env
