"""Call paths: what a call calls, as the framework catalogue names it.

The path of ``client.chat.completions.create`` where ``client = OpenAI()`` is
``openai.OpenAI().chat.completions.create``: the receiver is followed through names, ``self``
attributes, parameter annotations and the module's own functions to the call that made it, and
``()`` marks an instance. A receiver the code does not show is ``?``. In a LangChain pipe
(``prompt | llm``) the path is that of the chat model in it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frameworks import Holder, Sink
from ctxlint.frontends.python.knowledge import BUILTINS
from ctxlint.frontends.python.literals import flatten_union
from ctxlint.frontends.python.nodes import forward_reference, generic_alias, walk
from ctxlint.frontends.python.scopes import other_branches
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Binding, Env, Scope, own_class, unpacked_position
from ctxlint.model import Evidence, EvidenceKind
from ctxlint.providers import LIMIT_KEYS, LIMIT_NAMES

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.sinks import Sinks

UNKNOWN = "?"
# How many names, attributes and calls one path may follow.
_MAX_PATH = 24
# The attributes a settings object holds its output limit in, as code sets them after building it.
LIMIT_ATTRIBUTES = frozenset((*LIMIT_NAMES, *LIMIT_KEYS))


def last_name(func: ast.expr) -> str | None:
    """The name a call is made by: ``create`` in ``x.y.create(...)``, ``completion`` in ``completion(...)``."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


# What a class's methods append, by the code of the list: the value appended and the method's scope.
Appends = dict[str, list[tuple[ast.expr, Scope]]]


class Calls(Component):
    def __init__(self, unit: Unit) -> None:
        super().__init__(unit)
        self._appended: dict[int, tuple[Scope, Appends]] = {}

    def path(self, node: ast.expr, env: Env, depth: int = 0) -> str:
        """The call path of an expression (a callee, a receiver, a value)."""
        if depth:
            return self._path(node, env, depth)
        # A call site's callee is asked for by the sink match, the request and the sources: each
        # callee in each env (and under the same cycle guard) is followed once (the entry keeps
        # both alive for their ids).
        key = (id(node), env.key, self.m.following())
        entry = self.m.node_paths.get(key)
        if entry is None:
            entry = self.m.node_paths[key] = (node, env, self._path(node, env, depth))
        return entry[2]

    def _path(self, node: ast.expr, env: Env, depth: int) -> str:
        if depth > _MAX_PATH or not self.m.step():
            return UNKNOWN
        if isinstance(node, ast.Await):
            return self.path(node.value, env, depth + 1)
        if isinstance(node, ast.Call):
            imported = self.imported_module(node, env)
            if imported is not None:
                return imported
            target = self.callees.function_for(node, env, foreign=True)
            if target is not None and self.m.enter(target.fn):
                reader = target.owner.calls if target.owner is not None else self
                try:  # what a function the code shows returns (`make_client()`)
                    for value in target.returns:
                        found = reader.path(value, target.env, depth + 1)
                        if found != UNKNOWN:
                            return found
                finally:
                    self.m.leave(target.fn)
            return self.path(node.func, env, depth + 1) + "()"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            # A pipe: its path is that of the chat model (or agent) in it.
            for part in flatten_union(node):
                if self.holder(part, env) is not None:
                    return self.path(part, env, depth + 1)
            return UNKNOWN
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and own_class(node.value.id, env.scope) is not None:
                binding = self.scopes.resolve(node, env)
                own = None if binding is None else self.m.follow_binding(binding, self.path, depth + 1)
                # `if llm is None: self.llm = Model(...) else: self.llm = llm`: the caller's
                # object is unknown, the default one is the first branch's.
                for earlier in self.scopes.earlier_values(node, env) if own is None or own.startswith(UNKNOWN) else ():
                    default = self.m.follow_binding(earlier, self.path, depth + 1)
                    if default is not None and not default.startswith(UNKNOWN):
                        return default
                return UNKNOWN + "." + node.attr if own is None else own
            return self.path(node.value, env, depth + 1) + "." + node.attr
        if isinstance(node, ast.Name):
            return self.name_path(node, env, depth)
        if isinstance(node, ast.IfExp):  # `Model(name=llm) if isinstance(llm, str) else llm`: the side built here
            # (not a name's: `lm if lm is not None else settings.lm` is an object given from outside)
            return next((found for side in (node.body, node.orelse) if isinstance(side, ast.Call)
                         and not (found := self.path(side, env, depth + 1)).startswith(UNKNOWN)), UNKNOWN)
        if isinstance(node, ast.Subscript):  # request.files["doc"]: an item of the object
            # but `Agent[Deps, str](...)` builds an `Agent`
            return self.path(node.value, env, depth + 1) + ("" if generic_alias(node) else ".__getitem__()")
        return UNKNOWN

    def twin(self, call: ast.Call, env: Env, path: str) -> tuple[Sink, Evidence] | None:
        """The sink a method is the twin of: a method a project class adds to the library class it
        subclasses (``AGeneration(Generation)`` adding ``acall``), taking the request's arguments
        of that class's sink (``model``, ``messages`` or the prompt) and a ``**kwargs`` the rest
        of them (the output limit among them) may come in."""
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in self.m.twin_methods or "." not in path:
            return None
        located = self.receiver_class(func.value, env)
        if located is None:
            return None
        cls_name, scope = located
        defined = scope.functions.get(func.attr)
        method = defined[0] if defined is not None else None
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.args.kwarg is None \
                or self.m.names_a_limit(method):
            return None  # it may set one itself
        params = {a.arg for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)}
        base = path.rsplit(".", 1)[0]
        for pattern, sink in ((p, s) for p, listed in self.m.catalogue.sink_calls.exact.items() for s in listed):
            named = pattern[len(base) + 1:] if pattern.startswith(base + ".") else ""
            if not named.isidentifier() or not isinstance(sink, Sink):
                continue
            model = {k for a in sink.arguments.get("model", ()) for k in a.keywords}
            text = {k for role in ("messages", "input") for a in sink.arguments.get(role, ()) for k in a.keywords}
            if model & params and text & params:
                says = (f"`{cls_name}.{func.attr}`, a method the project adds to `{base.rstrip('()')}` that takes "
                        f"the arguments of its `{named}`, is given no output limit")
                return sink, Evidence(EvidenceKind.SINK, says, self.m.span(method))
        return None

    def receiver_class(self, node: ast.expr, env: Env) -> tuple[str, Scope] | None:
        """The project class a receiver is, or is an instance of (``self.client`` where
        ``self.client = AGeneration`` or ``AGeneration()``)."""
        binding = self.scopes.resolve(node, env, foreign=True) if isinstance(node, (ast.Name, ast.Attribute)) \
            else None
        if binding is None:
            return None
        value = binding.value.func if isinstance(binding.value, ast.Call) else binding.value
        if not isinstance(value, ast.Name) or binding.owner is not None:
            return None
        located = self.callees.class_named(value.id, binding.env.scope, foreign=False)
        return (value.id, located[1]) if located is not None else None

    def imported_module(self, call: ast.Call, env: Env) -> str | None:
        """The module ``importlib.import_module("ollama")`` (or ``__import__``) imports by name,
        when the code shows the name (a literal, or a parameter a caller gives one)."""
        if not call.args or self.m.qualified(call.func) not in ("importlib.import_module", "__import__"):
            return None
        name = self.flow.literal_str(call.args[0], env)
        return name if name and all(part.isidentifier() for part in name.split(".")) else None

    def name_path(self, node: ast.Name, env: Env, depth: int) -> str:
        if node.id in self.m.imports and node.id not in self.m.from_imports:
            return self.m.imports[node.id]  # a module: `openai`, `np`
        binding = self.scopes.resolve(node, env, foreign=True)
        if binding is not None:
            # A client made once (`client = OpenAI()`) is the receiver of every call site: its
            # path is followed once per binding.
            key = ("path", *self.m.binding_key(binding))
            found = self.m.path_memo.get(key)
            if found is None:
                reader = binding.owner.calls if binding.owner is not None else self
                found = self.m.follow_binding(binding, reader.path, depth + 1)
                if found is None:
                    return UNKNOWN
                self.m.path_memo[key] = found
            if not found.startswith(UNKNOWN):
                return found
            if (beside := _beside_none(self, node, binding, depth)) is not None:
                return beside  # `try: model = Model(...) except ...: model = None`
        annotation = self.annotation(node.id, env)  # what the parameter says it takes, whatever the caller gave
        if annotation is not None:
            return self.annotation_path(annotation)
        inherited = self.inherited_path(node.id, env, depth)
        if inherited is not None:
            return inherited
        method = self.m.parents.get(id(node))  # only a receiver of a method call is looked for in a loop's list
        called = isinstance(method, ast.Attribute) and isinstance(self.m.parents.get(id(method)), ast.Call)
        looped = self.looped_holders(node, env) if binding is None and called else []
        if looped:  # `for llm in self.models`: each element is a chat model the code builds
            _, built, built_env = looped[0]
            return self.path(built, built_env, depth + 1)
        if node.id in self.m.imports:
            return self.m.imports[node.id]  # an object imported from a library: `from openai import OpenAI`
        return node.id if self.defined(node.id, env) or node.id in BUILTINS else UNKNOWN

    def inherited_path(self, name: str, env: Env, depth: int) -> str | None:
        """A project class that subclasses a library's class and keeps its constructor
        (``class GeminiModel(GenerativeModel)`` adding a method), or one whose ``__init__`` only
        hands what it is given to the base's (``super().__init__(base_url=base_url, **kwargs)``)
        in a class that names no output limit: built, it is the library's object, with the
        settings its callers give. None for any other name."""
        located = self.callees.class_named(name, env.scope, foreign=True)
        if located is None:
            return None
        owner, cls = located
        node = cls.node
        if not isinstance(node, ast.ClassDef) or cls.parent is None:
            return None
        reader = owner.calls if owner is not None else self
        init = cls.functions.get("__init__")
        if init is not None and not (passes_to_base(init[0]) and not reader.m.names_a_limit(node)):
            return None
        # The first base a library defines (a mixin may come after it); but one the catalogue names
        # (a message class, a chat model) before one reached through a project base that only passes
        # its arguments on (`class HumanMessage(OwnDocument, LCHumanMessage)`, OwnDocument a
        # llama_index Document).
        found_bases = [reader.path(base, Env(cls.parent), depth + 1) for base in node.bases]
        library = [found for found in found_bases if self.m.catalogue.from_library(found)]
        catalogue = self.m.catalogue
        named = [found for found in library if len(library) > 1 and any(
            entries.match(found) for entries in (catalogue.messages, catalogue.holders, catalogue.templates))]
        return next(iter(named or library), None)

    def annotation(self, name: str, env: Env) -> ast.expr | None:
        scope = env.scope
        if scope.kind == "function" and name in scope.params:
            return scope.params[name].annotation
        return None

    def annotation_path(self, annotation: ast.expr) -> str:
        """An instance of the annotated type: ``client: OpenAI`` -> ``openai.OpenAI()``."""
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            parsed = forward_reference(annotation)
            if parsed is None:
                return UNKNOWN
            annotation = parsed
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            for side in (annotation.left, annotation.right):
                if not (isinstance(side, ast.Constant) and side.value is None):
                    return self.annotation_path(side)
        if isinstance(annotation, ast.Subscript) and (self.m.qualified(annotation.value) or "").rsplit(".", 1)[-1] in (
                "Optional", "Union", "Annotated"):
            inner = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else annotation.slice
            return self.annotation_path(inner)
        qualified = self.m.qualified(annotation)
        return qualified + "()" if qualified else UNKNOWN

    def defined(self, name: str, env: Env) -> bool:
        scope: Scope | None = env.scope
        while scope is not None:
            if name in scope.functions:
                return True
            scope = scope.parent
        return False

    # ---- objects built by framework constructors -------------------------------------------------

    def constructor(self, node: ast.expr, env: Env, branches: bool = True, settled: bool = False,
                    elsewhere: list[tuple[Analyzer, ast.expr, Env]] | None = None) -> tuple[ast.Call, Env] | None:
        """The call that built the object ``node`` names (through names, ``self`` attributes,
        the module's own functions and methods called on it, such as ``.bind_tools(...)``).
        A ``self`` attribute whose last assignment shows no such call is the object an earlier
        one builds, when one does: the default of ``if llm is None: self.llm = Model(...)
        else: self.llm = llm`` (with ``branches``, once along the path). With ``settled``, None
        when a function on the way sets a limit on a name the object is held in
        (``config.max_output_tokens = limit`` after it is built): its constructor is not all it holds.
        With ``elsewhere``, a function of another module of the project the path reaches
        (``settings.get_llm()``) ends it there, its module and the value it returns added to the list."""
        for _ in range(_MAX_PATH):
            if isinstance(node, ast.Await):
                node = node.value
                continue
            if isinstance(node, ast.IfExp) and branches:  # `Model(name=llm) if isinstance(llm, str) else llm`
                return next((found for side in (node.body, node.orelse)
                             if (found := self.constructor(side, env, False, settled, elsewhere)) is not None), None)
            if isinstance(node, ast.Call):
                target = self.callees.function_for(node, env)
                if target is not None:
                    node, env = target.returns[-1], target.env
                    continue
                if elsewhere is not None:
                    target = self.callees.function_for(node, env, foreign=True)
                    if target is not None and target.owner is not None:
                        elsewhere.append((target.owner, target.returns[-1], target.env))
                        return None
                return node, env
            if isinstance(node, ast.Subscript) and (position := unpacked_position(node)) is not None:
                # `contents, config = self._build(request)`: the item the module's function returns
                items = self.callees.returned_items(node, position, env)
                if not items or any(called.owner is not None for _, _, called in items):
                    return None
                node, env = items[-1][0], items[-1][1]
                continue
            binding = self.scopes.resolve(node, env) if isinstance(node, (ast.Name, ast.Attribute)) else None
            if binding is None:
                return None
            if settled and isinstance(node, ast.Name) and binding.env.scope.kind == "function" \
                    and limit_attribute_set(binding.env.scope.node, node.id):
                return None
            earlier = self.scopes.earlier_values(node, env) if branches else []
            if branches and not earlier and isinstance(node, ast.Name) and binding.owner is None:
                # `if isinstance(llm, str): model = Model(name=llm) else: model = llm`: the
                # object the other branch builds, as for a `self.` attribute above
                earlier = [Binding(value, binding.env, [])
                           for value in other_branches(node, binding, self.m.parents)]
            if earlier:
                for candidate in (binding, *earlier):
                    found = self.constructor(candidate.value, candidate.env, False, settled, elsewhere)
                    if found is not None:
                        return found
                return None
            node, env = binding.value, binding.env
        return None

    def holder(self, node: ast.expr, env: Env) -> tuple[Holder, ast.Call, Env] | None:
        """The framework object (a chat model, an agent) ``node`` is, with the call that built it."""
        catalogue = self.m.catalogue
        resolved, resolved_env = self.scopes.deref(node, env)
        if isinstance(resolved, ast.BinOp) and isinstance(resolved.op, ast.BitOr):  # prompt | llm | parser
            for part in flatten_union(resolved):
                found_part = self.holder(part, resolved_env)
                if found_part is not None:
                    return found_part
            return None
        seen = 0
        elsewhere: list[tuple[Analyzer, ast.expr, Env]] = []
        found = self.constructor(node, env, elsewhere=elsewhere)
        if found is None and elsewhere:
            return self.built_elsewhere(*elsewhere[0])
        while found is not None and seen < _MAX_PATH:
            call, call_env = found
            seen += 1
            for holder in catalogue.holders.match(self.path(call.func, call_env)):
                assert isinstance(holder, Holder)
                return holder, call, call_env
            # `ChatOpenAI(...).bind_tools(tools)`: a method of the object gives the object back.
            if not isinstance(call.func, ast.Attribute):
                return None
            found = self.constructor(call.func.value, call_env)
        return None

    def built_elsewhere(self, owner: Analyzer, value: ast.expr, env: Env) -> tuple[Holder, ast.Call, Env] | None:
        """The framework object a function of another module returns (``def get_llm(self): return
        LiteLLMModel(...)``), read by that module's analyzer, which is kept as the reader of the
        call that builds it (``reader``)."""
        held = owner.calls.holder(value, env)
        if held is not None:  # built a module further on (a package's wrapper): the module that builds it reads it
            self.m.holder_readers[id(held[1])] = owner.calls.reader(held[1]) or owner
        return held

    def reader(self, built: ast.Call) -> Analyzer | None:
        """The analyzer of the other module a framework object's constructor call is in, if it is
        in one (``built_elsewhere``)."""
        return self.m.holder_readers.get(id(built))

    def sinks_of(self, built: ast.Call) -> Sinks:
        """The sinks that read a framework object's constructor call: those of the module it is in."""
        reader = self.reader(built)
        return reader.sinks if reader is not None else self.sinks

    def receiver_calls(self, func: ast.expr, env: Env) -> list[tuple[ast.Call, Env]]:
        """The calls along a method's receiver (``llm.bind_tools(t).invoke`` ->
        ``bind_tools(t)``), following names to what they hold."""
        found: list[tuple[ast.Call, Env]] = []
        node: ast.expr | None = func.value if isinstance(func, ast.Attribute) else None
        for _ in range(_MAX_PATH):
            if node is None:
                break
            if isinstance(node, ast.Call):
                found.append((node, env))
                node = node.func.value if isinstance(node.func, ast.Attribute) else None
                continue
            if isinstance(node, ast.Attribute) and not (isinstance(node.value, ast.Name)
                                                        and node.value.id in ("self", "cls")):
                node = node.value
                continue
            binding = self.scopes.resolve(node, env) if isinstance(node, (ast.Name, ast.Attribute)) else None
            if binding is None:
                break
            node, env = binding.value, binding.env
        return found

    def looped_holders(self, node: ast.expr, env: Env) -> list[tuple[Holder, ast.Call, Env]]:
        """The chat models a loop variable takes in turn, when a request is sent with it: ``llm``
        of ``for name, llm in enumerate(self.models)`` (through methods that give the model back,
        ``llm.with_structured_output(S)``), read from the elements of the list the loop walks --
        its literal and, for a list kept on ``self``, what the class's methods append to it."""
        for _ in range(_MAX_PATH):
            if isinstance(node, ast.Await):
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                node = node.func.value
            elif isinstance(node, ast.Name) and (binding := self.scopes.resolve(node, env)) is not None:
                node, env = binding.value, binding.env
            else:
                break
        target = self.scopes.unknowable_target(node, env) if isinstance(node, ast.Name) else None
        walked = self._walked(target) if target is not None else None
        if walked is None:
            return []
        iterable, position = walked
        found = []
        for element, element_env in self._list_elements(iterable, env):
            part: ast.expr | None = element
            for index in position:
                part = part.elts[index] if isinstance(part, ast.Tuple) and index < len(part.elts) else None
            held = self.holder(part, element_env) if part is not None else None
            if held is not None:
                found.append(held)
        return found

    def _walked(self, target: ast.expr) -> tuple[ast.expr, tuple[int, ...]] | None:
        """The iterable a loop target is taken from, with where in each element the target sits
        (``(1,)`` for ``llm`` of ``for name, llm in pairs``); ``enumerate(...)`` is looked through."""
        position: list[int] = []
        node: ast.AST = target
        while isinstance(parent := self.m.parents.get(id(node)), ast.Tuple):
            position.insert(0, parent.elts.index(node))  # type: ignore[arg-type]
            node = parent
        loop = self.m.parents.get(id(node))
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or loop.target is not node:
            return None
        iterable = loop.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
                and len(iterable.args) == 1 and not iterable.keywords:
            if not position or position[0] != 1:
                return None
            iterable, position = iterable.args[0], position[1:]
        return iterable, tuple(position)

    def _list_elements(self, iterable: ast.expr, env: Env) -> list[tuple[ast.expr, Env]]:
        items = self.containers.items(iterable, env)
        found = [(item.node, item.env) for item in items or () if not item.variable]
        cls = own_class(iterable.value.id, env.scope) if isinstance(iterable, ast.Attribute) \
            and isinstance(iterable.value, ast.Name) else None
        if cls is None:
            return found
        assert isinstance(iterable, ast.Attribute)
        appended = class_appends(self.m, self._appended, cls).get(f"self.{iterable.attr}", ())
        found += [(value, Env(method_scope)) for value, method_scope in appended]
        return found


def class_appends(m: Unit, memo: dict[int, tuple[Scope, Appends]], cls: Scope) -> Appends:
    """What the methods of a class append (``x.append(value)``), by the code of the list, in the
    order of its methods and of a walk of each: listed once per class (asked again for each loop
    over one of its lists, it was a walk of every method each time)."""
    kept = memo.get(id(cls))
    if kept is not None and kept[0] is cls:  # the scope is kept with it: its id is not reused
        return kept[1]
    appends: Appends = {}
    for method, method_scope in cls.functions.values():
        for call in ast.walk(method):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                    and len(call.args) == 1:
                appends.setdefault(m.code(call.func.value), []).append((call.args[0], method_scope))
    memo[id(cls)] = (cls, appends)
    return appends


def passes_to_base(init: ast.AST) -> bool:
    """Whether a constructor builds its object with the base class's constructor, handing it
    nothing it cannot see but its own ``**kwargs`` (``super().__init__(model=model, **kwargs)``;
    ``super().__init__(**config.options)`` may bring any setting)."""
    if not isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    known: bool | None = getattr(init, _PASSES_TO_BASE, None)  # asked for each construction of the class
    if known is None:
        own = init.args.kwarg.arg if init.args.kwarg is not None else None
        calls = [node for node in walk(init) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and node.func.attr == "__init__"]
        known = bool(calls) and all(isinstance(k.value, ast.Name) and k.value.id == own
                                    for call in calls for k in call.keywords if k.arg is None)
        setattr(init, _PASSES_TO_BASE, known)
    return known


# The attribute a constructor's node keeps that answer in (no field of any node type has this name).
_PASSES_TO_BASE = "_ctxlint_passes_to_base"


def limit_attribute_set(function: ast.AST, name: str) -> bool:
    """Whether ``function`` sets an output limit as an attribute of ``name``
    (``config.max_output_tokens = limit``). The names are listed once per function (asked at
    every step a settings object is followed back through)."""
    named = getattr(function, _LIMIT_SETTERS, None)
    if named is None:
        found: set[str] = set()
        for node in walk(function):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            found.update(target.value.id for target in targets if isinstance(target, ast.Attribute)
                         and isinstance(target.value, ast.Name) and target.attr in LIMIT_ATTRIBUTES)
        named = frozenset(found)
        setattr(function, _LIMIT_SETTERS, named)
    return name in named


# The attribute a function node keeps those names in (no field of any node type has this name).
_LIMIT_SETTERS = "_ctxlint_limit_setters"


def _beside_none(calls: Calls, node: ast.Name, binding: Binding, depth: int) -> str | None:
    """The path of what a name holds in the other branches when its last value is None (``try:
    model = Model(...) except ...: model = None``): a method is called on the object, never on None."""
    if binding.owner is not None or not (isinstance(binding.value, ast.Constant) and binding.value.value is None):
        return None
    for value in other_branches(node, binding, calls.m.parents):
        if not (found := calls.path(value, binding.env, depth + 1)).startswith(UNKNOWN):
            return found
    return None
