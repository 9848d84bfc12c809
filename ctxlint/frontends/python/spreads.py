"""What a ``**settings`` spread gives a call: its keys, when the code shows them, and whether
what it holds is only what a caller passes, empty by default.

``**self.generation_kwargs`` where ``self.generation_kwargs = dict(generation_kwargs or {})``
and ``generation_kwargs: dict | None = None``: the call sends no output limit unless the
object's caller gives one. So does ``**kwargs``, a method's own keyword parameter, when nothing
in the project calls the method by name with a limit keyword, and ``**self.config.extra``
where ``extra`` is a field of the project's settings class that defaults to ``{}``. Merges
(``a | b``), conditional spreads (``**({"temperature": t} if t else {})``) and dicts completed
later (``params.update(self.settings)``) are read key by key, as are the members of the object
that holds a limit (``config=GenerateContentConfig(**self.settings)``,
``inferenceConfig=payload["inferenceConfig"]`` of a body a method builds).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.callbacks import MAX_RETURNS, callback_spread, union
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.dispatch import limit_spread_in_bases
from ctxlint.frontends.python.flow import Entry, Region
from ctxlint.frontends.python.kwargs_uses import kept_to_spread, keyed_use, merged_whole, other_key_set, scalar_set
from ctxlint.frontends.python.nodes import (
    base_name,
    empty_literal,
    filled_when_none,
    filtered_source,
    none_written,
    or_empty,
    picked_from,
    sets_limit_key,
    walk,
)
from ctxlint.frontends.python.project import limit_callees
from ctxlint.frontends.python.typeddicts import typed_dict
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Binding, Env, Scope, agreed, unpacked_position
from ctxlint.model import Evidence, EvidenceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.callees import Callees

# The kind of evidence each way of being empty by default is reported under (rules/**/CTX201).
PARAMETER, KWARGS, FIELD = "empty-by-default", "kwargs-by-default", "field-by-default"
NONE = "none-by-default"  # the limit is given, from a parameter that is None unless a caller passes it
SUBCLASS = "subclass-by-default"
# How many subclasses of a class are read for what they set an attribute to.
MAX_SETTING_SUBCLASSES = 12

Step = tuple[str, Evidence]  # (kind, the step)
Spread = tuple[dict[str, Entry] | None, list[Step]]


class Spreads(Component):
    own_limit_callees: frozenset[str] | None = None  # limit_callees of this module, read once

    def entries(self, node: ast.expr, env: Env, depth: int = 0) -> Spread:
        """The keys a spread gives (None when unknown), and the steps that show parts of it
        hold only what a caller passes, empty by default."""
        found = self.containers.dict_entries(node, env)
        if found is not None or depth > 6:
            return found, []
        if isinstance(node, ast.IfExp) or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr)):
            # either branch, or both sides of a merge (the right one wins): the keys of both
            first, second = (node.body, node.orelse) if isinstance(node, ast.IfExp) else (node.left, node.right)
            left, left_steps = self.entries(first, env, depth + 1)
            right, right_steps = self.entries(second, env, depth + 1)
            if left is None or right is None:
                return None, []
            merged = {**right, **left} if isinstance(node, ast.IfExp) else {**left, **right}
            return merged, left_steps + right_steps
        if isinstance(node, ast.Dict):  # {"model": m, **(self.config.extra | kwargs)}: its spreads as above
            entries: dict[str, Entry] = {}
            steps: list[Step] = []
            for key_node, value in zip(node.keys, node.values, strict=True):
                if key_node is not None:
                    key = self.flow.literal_str(key_node, env)
                    if key is None:
                        return None, []
                    entries[key] = (value, env, Region.between(key_node, value))
                    continue
                inner, inner_steps = self.entries(value, env, depth + 1)
                if inner is None:
                    return None, []
                entries.update(inner)
                steps += inner_steps
            return entries, steps
        if (source := filtered_source(node)) is not None:  # `{k: v for k, v in raw.items() if v is not None}`
            return _set_only(self.entries(source, env, depth + 1))
        if (empty := empty_step(self, node, env)) is not None:
            return {}, [empty]
        if isinstance(node, ast.Name) and (given := callback_spread(self, node, env, depth)) is not None:
            return given  # `lambda settings: client.create(**settings)` handed to a helper that calls it
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.completed(node, env, depth)
        if isinstance(node, ast.Call):  # `params = self._params(prompt)`: what the function builds
            target = self.callees.function_for(node, env)
            if target is not None and 0 < len(target.returns) <= MAX_RETURNS:  # each return's keys
                built = union([self.m.follow(target.fn, self.entries, value, target.env, depth + 1)
                               for value in target.returns])
                if built is not None:
                    return built
            if target is None and typed_dict(self.m, self.callees, node, env):
                return {k.arg: (k.value, env, k) for k in node.keywords if k.arg is not None}, []
        if isinstance(node, ast.Subscript) and (position := unpacked_position(node)) is not None:
            # `params, extra_body = self._build(...)`: the item the function's one return gives
            items = self.callees.returned_items(node, position, env)
            if len(items) == 1:
                item, item_env, called = items[0]
                built = self.m.follow(called.fn, _spreads(self, called.owner).entries, item, item_env, depth + 1)
                if built is not None:
                    return built
        return None, []

    def members(self, node: ast.expr, env: Env) -> tuple[dict[str, Entry] | None, tuple[Step, ...]]:
        """The named members of a dict or of a settings object's constructor
        (``ModelSettings(max_tokens=...)``), and the spreads among them that hold only what a
        caller passes, empty by default (``options={"temperature": t, **self.options}``)."""
        entries = self.containers.dict_entries(node, env)
        if entries is not None:
            return entries, ()
        if isinstance(node, ast.Dict):
            spread, steps = self.entries(node, env)
            return spread, tuple(steps)
        if isinstance(node, ast.Name):  # `options=options` of `options = {"temperature": t, **self.extra}`
            binding = self.scopes.resolve(node, env)
            if binding is not None and (held := _held_members(self, binding)) is not None:
                return held
        # `options=self.options` of `config.get("options", {})`; a parameter handed on whole is
        # the caller's settings to give, not a dict left empty here
        if isinstance(node, ast.Attribute) or (isinstance(node, ast.Name) and node.id not in env.scope.params):
            empty = empty_step(self, node, env, spread="")
            if empty is not None:
                return {}, (empty,)
        if isinstance(node, ast.Subscript):  # payload["inferenceConfig"] of a body a function builds
            key = self.flow.literal_str(node.slice, env)
            outer = self.entries(node.value, env)[0] if key is not None else None
            if outer is None or key not in outer:
                return None, ()
            return self.members(outer[key][0], outer[key][1])
        found = self.calls.constructor(node, env, settled=True)
        if found is None:
            return None, ()
        call, call_env = found
        name = last_name(call.func)
        if not name or not name[:1].isupper():
            return None, ()  # what a method gives (`self.config.copy()`), not a settings class: unknown members
        given = self.args.of(call, call_env)
        return given.keywords, given.empty_by_default

    def completed(self, node: ast.Name | ast.Attribute, env: Env, depth: int) -> Spread:
        """A dict built with known keys and completed by ``update`` with such spreads."""
        binding = self.scopes.resolve(node, env)
        if binding is None or not self.m.enter(binding.value):
            return None, []
        try:
            found, steps = self.entries(binding.value, binding.env, depth + 1)
            for extra in binding.extras:
                if found is None:
                    return None, []
                if extra.kind == "update" and isinstance(extra.value, ast.Call) and not extra.value.keywords \
                        and len(extra.value.args) == 1:
                    more, more_steps = self.entries(extra.value.args[0], binding.env, depth + 1)
                    if more is None:
                        return None, []
                    found, steps = {**found, **more}, steps + more_steps
                else:
                    found = self.containers.changed_entries(found, extra, binding.env)
            return found, steps
        finally:
            self.m.leave(binding.value)

    def empty_by_default(self, node: ast.expr, env: Env, depth: int = 0) -> tuple[str, str] | None:
        """The parameter or field a dict comes from when it holds only what a caller passes there
        and is empty by default (``dict(settings or {})`` of ``settings: dict | None = None``),
        with the kind of evidence that shows it."""
        if depth > 6:
            return None
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                and self.m.qualified(node.func) in ("dict", "copy.copy", "copy.deepcopy"):
            return self.empty_by_default(node.args[0], env, depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy" \
                and not node.args:
            return self.empty_by_default(node.func.value, env, depth + 1)
        if (given := or_empty(node) or picked_from(node)) is not None:  # `params or {}`, `{k: v for k, v in ...}`
            return self.empty_by_default(given, env, depth + 1)
        if (got := _got_key(node)) is not None:  # `config.get("options", {})` of `config` empty by default
            held = self.empty_by_default(got[1], env, depth + 1)
            return (f'{held[0]}["{got[0]}"]', held[1]) if held is not None and held[1] == PARAMETER else None
        if isinstance(node, ast.Name) and env.scope.kind == "function" and node.id in env.scope.params \
                and env.bound(node.id) is None:
            fn = env.scope.node
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.kwarg is not None \
                    and fn.args.kwarg.arg == node.id:
                # A method reached through an object's interface: its callers are generic code
                # that passes no settings. A plain helper's callers may well pass the limit.
                called = called_as(fn, env.scope)
                return (called, KWARGS) if env.scope.cls is not None and kwargs_unset(self, fn, node.id, called) \
                    and not limit_spread_in_bases(self.callees, env.scope.cls, called) else None
            param = env.scope.params[node.id]
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and (sets_limit_key(fn, node.id) or filled_when_none(fn, node.id)):
                return None  # `settings["max_tokens"] = 4000`, `if settings is None: settings = defaults()`
            return (node.id, PARAMETER) if param.default is not None and empty_literal(param.default) else None
        if isinstance(node, ast.Subscript) and (position := unpacked_position(node)) is not None:
            # `kept, aliases = normalize(kwargs)`: the item every return of the function gives
            items = self.callees.returned_items(node, position, env)
            return agreed([_spreads(self, called.owner).empty_by_default(item, item_env, depth + 1)
                            for item, item_env, called in items])
        if isinstance(node, ast.Call):  # `self._clean(settings)` returning a copy of its parameter
            target = self.callees.function_for(node, env, foreign=True)
            if target is not None:
                spreads = _spreads(self, target.owner)
                return agreed([spreads.empty_by_default(value, target.env, depth + 1) for value in target.returns])
        if isinstance(node, ast.Name) and (bound := env.bound(node.id)) is not None:
            # a parameter of a function followed from a call: the argument the caller gives
            return _spreads(self, bound.owner).empty_by_default(bound.node, bound.env, depth + 1)
        if isinstance(node, ast.Attribute):
            field = self.empty_field(node, env)
            if field is not None:
                return field, FIELD
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None and all(other_key_set(extra) for extra in binding.extras):
                return self.empty_by_default(binding.value, binding.env, depth + 1)
            if binding is None and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self":
                inherited = self.callees.set_by_base(node.attr, env)
                if inherited is not None:
                    value, value_env, owner = inherited
                    return _spreads(self, owner).empty_by_default(value, value_env, depth + 1)
                name = self.set_by_subclasses(node.attr, env, depth + 1)
                return (name, SUBCLASS) if name is not None else None
        return None

    def set_by_subclasses(self, attr: str, env: Env, depth: int) -> str | None:
        """``self.attr`` that a base class reads and never sets, where every subclass of the
        project that sets it sets it empty by default (``self.settings = dict(settings or {})``):
        the parameter it comes from, or None."""
        scope: Scope | None = env.scope
        while scope is not None and scope.cls is None:
            scope = scope.parent
        cls = scope.cls if scope is not None else None
        project = self.m.project
        if project is None or cls is None or not isinstance(cls.node, ast.ClassDef):
            return None
        found = None
        for path, class_name in project.subclasses(cls.node.name)[:MAX_SETTING_SUBCLASSES]:
            analyzer = project.analyzer(path)
            entry = analyzer.unit.module_scope.functions.get(class_name) if analyzer is not None else None
            if entry is None or not isinstance(entry[0], ast.ClassDef):
                return None  # a subclass the analysis cannot read may set anything
            assert analyzer is not None
            for record in entry[1].assigns.get(attr, ()):
                if record.value is None:
                    return None
                empty = analyzer.spreads.empty_by_default(record.value, Env(record.where or record.scope), depth)
                if empty is None or empty[1] != PARAMETER:
                    return None
                found = found or empty[0]
        return found

    def kwargs_only_passed(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
        """Whether ``**name`` of ``fn`` is only passed on (spread, merged, or handed to a function
        that returns a copy of it), its keys at most read, tested or set to what is no limit."""
        parents = self.m.parents
        for node in walk(fn):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                parent = parents.get(id(node))
                passed = (isinstance(parent, ast.keyword) and parent.arg is None) or merged_whole(parent, node) or (
                    isinstance(parent, ast.Call) and node in parent.args and (scope := self.m.scope_of(parent))
                    is not None and self.copies_argument(parent, parent.args.index(node), Env(scope))) or (
                    isinstance(parent, ast.Assign) and kept_to_spread(self.m, parent, fn)) or (
                    keyed_use(self.m, parent, fn, name))
                if not passed:
                    return False  # read, changed or handed over whole: it may be given a limit
        return True

    def limit_spread_in(self, called: str, depth: int = 0) -> bool:
        """Whether a call of ``called`` in the module spreads a dict (``**kwargs``) that may hold an
        output limit: in a function that names one (``kwargs = {"max_tokens": 4096, **kwargs}``), or
        a dict holding what a library base class keeps on the object (``{**self.kwargs, **kwargs}``),
        directly or through the callers of a function that passes its own ``**kwargs`` on."""
        for call, scope in self.m.calls:
            # the method's own call, or one naming it for a helper to look up (dispatch.py)
            if (last_name(call.func) == called or any(isinstance(a, ast.Constant) and a.value == called
                                                      for a in call.args)) \
                    and any(k.arg is None for k in call.keywords):
                function = scope.node
                if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        or self.m.names_a_limit(function):
                    return True
                if depth < 3 and any(self.spread_may_hold_limit(k.value, Env(scope), function, depth)
                                     for k in call.keywords if k.arg is None):
                    return True
        return False

    def spread_may_hold_limit(self, value: ast.expr, env: Env, function: ast.FunctionDef | ast.AsyncFunctionDef,
                              depth: int) -> bool:
        """Whether a spread is the function's own ``**kwargs`` that its callers may fill with a limit,
        or a dict (through a local name) that spreads such a ``**kwargs`` or a library base's settings."""
        own = function.args.kwarg.arg if function.args.kwarg is not None else None
        binding = self.scopes.resolve(value, env) if isinstance(value, ast.Name) else None
        if binding is not None and not binding.extras and binding.owner is None:
            value, env = binding.value, binding.env
        spreads = [v for k, v in zip(value.keys, value.values, strict=True) if k is None] \
            if isinstance(value, ast.Dict) else [value]
        for spread in spreads:
            if isinstance(spread, ast.Name) and spread.id == own:
                called = called_as(function, env.scope)
                if self.limit_called(called) or self.limit_spread_in(called, depth + 1):
                    return True
            elif library_settings(self.m, spread, env):
                return True
        return False

    def limit_called(self, called: str) -> bool:
        """Whether the module or the project calls ``called`` with an output-limit keyword."""
        if self.own_limit_callees is None:
            self.own_limit_callees = limit_callees(self.m.text.encode("utf-8"))
        if called in self.own_limit_callees:
            return True
        project = self.m.project
        return project is not None and called in project.limit_callees()

    def none_by_default(self, node: ast.expr, env: Env, depth: int = 0) -> tuple[str, str] | None:
        """The constructor parameter an output limit's value comes from when it is None unless
        the object's caller passes it, and nothing in the project builds the class with a limit
        keyword (``max_tokens=self.max_tokens`` of ``max_tokens: int | None = None``): the
        parameter and the class. A function's own parameter is left to its callers (a wrapper:
        each call is judged where it is made, see wrappers.py)."""
        if depth > 6:
            return None
        if isinstance(node, ast.Name) and env.scope.kind == "function" and node.id in env.scope.params \
                and env.bound(node.id) is None:
            default = env.scope.params[node.id].default
            fn, cls = env.scope.node, env.scope.cls
            if not (isinstance(default, ast.Constant) and default.value is None) or cls is None \
                    or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name != "__init__":
                return None
            called = called_as(fn, env.scope)
            return None if self.limit_called(called) else (node.id, called)
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None and not binding.extras and binding.owner is None:
                return self.none_by_default(binding.value, binding.env, depth + 1)
        return None

    def copies_argument(self, call: ast.Call, position: int, env: Env) -> bool:
        """Whether the project function ``call`` calls reads its ``position``-th parameter only
        as the source of a copy (``kept = dict(kwargs)``) or by lookups, or sets a key of it that
        holds no limit to a plain value (kwargs_uses.scalar_set): a summary that lets a dict handed
        to it count as passed on, not given a limit there."""
        target = self.callees.function_for(call, env, foreign=True, returns=False)
        if target is None:
            return False
        fn = target.fn
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
        if params[:1] in (["self"], ["cls"]) and isinstance(call.func, ast.Attribute):
            params = params[1:]
        if position >= len(params):
            return False
        param = params[position]
        parents = (target.owner.unit if target.owner is not None else self.m).parents
        for node in walk(fn):
            if isinstance(node, ast.Name) and node.id == param:
                if not isinstance(node.ctx, ast.Load):
                    return False
                parent = parents.get(id(node))
                copied = isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords \
                    and isinstance(parent.func, ast.Name) and parent.func.id == "dict"
                looked_up = isinstance(parent, ast.Attribute) and parent.attr in _LOOKUPS
                tested = isinstance(parent, ast.Compare) and node in parent.comparators
                if not (copied or looked_up or tested or scalar_set(parents, parent, fn)):
                    return False
        return True

    def empty_field(self, node: ast.Attribute, env: Env) -> str | None:
        """``node.attr`` when ``node`` is an object of the project's own settings class built
        here without that field, which the class declares with an empty default
        (``extra: dict[str, Any] = {}``): ``self.config.extra`` of
        ``self.config = Settings(**kwargs)``."""
        built = self.calls.constructor(node.value, env)
        if built is None:
            return self.inherited_empty_field(node, env) or handed_empty_field(self.callees, node, env)
        if any(k.arg == node.attr for k in built[0].keywords):
            return None
        call, call_env = built
        func = call.func
        if isinstance(func, ast.Name) and call_env.scope.kind == "function" and func.id in call_env.scope.params:
            default = call_env.scope.params[func.id].default  # `config_class: type = Settings`
            func = default if isinstance(default, ast.Name) and call_env.bound(func.id) is None else func
        if not isinstance(func, ast.Name):
            return None
        value = field_default(self.callees, self.callees.class_named(func.id, call_env.scope, True), node.attr)
        return node.attr if value is not None and _empty_field(value) else None

    def inherited_empty_field(self, node: ast.Attribute, env: Env) -> str | None:
        """``node.attr`` of ``self.config`` that a base class of the project sets
        (``self.config = config_class(**kwargs)`` with ``config_class=Settings`` by default),
        when every settings class the object may be built with declares the field empty: the
        base's default, and the one the subclass hands ``super().__init__`` in its place."""
        held = node.value
        cls = env.scope.cls
        if not (isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name) and held.value.id == "self") \
                or cls is None or not isinstance(cls.node, ast.ClassDef) or cls.assigns.get(held.attr):
            return None
        for base in map(base_name, cls.node.bases):
            located = self.callees.class_named(base, cls.parent, True) if base is not None else None
            records = located[1].assigns.get(held.attr) if located is not None else None
            if not records or located is None:
                continue
            built = records[-1].value
            if len(records) > 1 or not isinstance(built, ast.Call) or not isinstance(built.func, ast.Name) \
                    or any(k.arg == node.attr for k in built.keywords):
                return None
            owner, home = located[0], records[-1].home
            base_callees = owner.callees if owner is not None else self.callees
            param = home.params.get(built.func.id) if home.kind == "function" else None
            default = param.default if param is not None else built.func
            found = base_callees.class_named(default.id, home, True) if isinstance(default, ast.Name) else None
            # a class found in the module that names it: (None, class) there, the owner's here
            classes = [(found[0] or owner, found[1]) if found is not None else None]
            if param is not None:  # the settings class a subclass builds its object with instead
                handed = self.handed_to_base(cls, built.func.id)
                if handed is None:
                    return None
                classes += handed
            empty = [field_default(self.callees, c, node.attr) for c in classes]
            return node.attr if all(v is not None and _empty_field(v) for v in empty) else None
        return None

    def handed_to_base(self, cls: Scope, param: str) -> list[tuple[Analyzer | None, Scope] | None] | None:
        """The classes a subclass's ``__init__`` passes its base's ``__init__`` as ``param``
        (``super().__init__(config_class=TextConfig, **kwargs)``, or its own parameter's
        default); None when it passes something the code does not name."""
        init = cls.functions.get("__init__")
        if init is None:
            return []
        fn, scope = init
        handed: list[tuple[Analyzer | None, Scope] | None] = []
        for call in walk(fn):
            if not (isinstance(call, ast.Call) and last_name(call.func) == "__init__"):
                continue
            value = next((k.value for k in call.keywords if k.arg == param), None)
            if isinstance(value, ast.Name) and value.id in scope.params:
                value = scope.params[value.id].default
            if value is None:
                continue
            if not isinstance(value, ast.Name):
                return None
            handed.append(self.callees.class_named(value.id, scope, True))
        return handed


# Methods that read a dict without handing it on.
_LOOKUPS = frozenset({"get", "items", "keys", "values", "copy"})


def called_as(fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> str:
    """The name code calls ``fn`` by: its class's for a constructor (``Model(max_tokens=...)``
    calls ``__init__``), its own otherwise."""
    cls = scope.cls
    return cls.node.name if fn.name == "__init__" and cls is not None and isinstance(cls.node, ast.ClassDef) \
        else fn.name


def _spreads(here: Spreads, owner: Analyzer | None) -> Spreads:
    """The component that reads code of ``owner``'s module (this one's when None)."""
    return owner.spreads if owner is not None else here


def _got_key(node: ast.expr) -> tuple[str, ast.expr] | None:
    """The key and the dict of ``settings.get("options", {})`` (or ``.get("options")``): a member
    read with an empty default."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and not node.keywords and 1 <= len(node.args) <= 2 and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)):
        return None
    return (node.args[0].value, node.func.value) if len(node.args) == 1 or empty_literal(node.args[1]) else None


def _set_only(spread: Spread) -> Spread:
    """The entries a filter of None values keeps: all but those written as None."""
    return (None if spread[0] is None else {k: e for k, e in spread[0].items() if not none_written(e[0])}), spread[1]


def _held_members(spreads: Spreads, binding: Binding) -> tuple[dict[str, Entry] | None, tuple[Step, ...]] | None:
    """The members of the dict a name holds, set once: a literal (``options = {"temperature": t,
    **self.extra}``), or what a function of the project builds (``options = self._options(hints)``);
    None when it holds neither."""
    if binding.extras:
        return None
    if isinstance(binding.value, ast.Dict):
        return _spreads(spreads, binding.owner).members(binding.value, binding.env)
    if isinstance(binding.value, ast.Call) and spreads.callees.function_for(binding.value, binding.env) is not None:
        spread, steps = _spreads(spreads, binding.owner).entries(binding.value, binding.env)
        if spread is not None:
            return spread, tuple(steps)
    return None


def empty_step(spreads: Spreads, node: ast.expr, env: Env, spread: str = "**") -> Step | None:
    """The step that shows a dict holds only what a caller passes, empty by default."""
    empty = spreads.empty_by_default(node, env)
    if empty is None:
        return None
    name, kind = empty
    what = (f"only the keywords a caller of `{name}` passes, none by default" if kind == KWARGS
            else f"only what each subclass that sets it is passed as `{name}`, empty by default"
            if kind == SUBCLASS else f"only what is passed as `{name}`, empty by default")
    m = spreads.m
    return kind, Evidence(EvidenceKind.FLOW, f"`{spread}{m.code(node)}` holds {what}", m.span(node))


def _empty_field(node: ast.expr) -> bool:
    """A field default that is empty: ``{}``, ``dict()``, or ``Field(default_factory=dict)``."""
    if empty_literal(node) and not isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.Call) and any(
        k.arg == "default_factory" and isinstance(k.value, ast.Name) and k.value.id == "dict" for k in node.keywords)


def library_settings(unit: Unit, node: ast.expr, env: Env) -> bool:
    """``self.kwargs`` in a class whose base is a library's class (a framework's model, whose
    constructor fills it with defaults, a limit among them) and which never replaces it
    with a value that drops what the base put there (``self.kwargs = {**self.kwargs, **kwargs}``
    keeps it)."""
    cls = env.scope.cls
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"
            and cls is not None and isinstance(cls.node, ast.ClassDef)):
        return False
    if not any(unit.catalogue.from_library(unit.qualified(base) or "") for base in cls.node.bases):
        return False
    replaced = (a.value for a in walk(cls.node) if isinstance(a, ast.Assign)
                and any(unit.dotted(t) == f"self.{node.attr}" for t in a.targets))
    return all(any(unit.dotted(n) == f"self.{node.attr}" for n in walk(value)) for value in replaced)


def field_default(callees: Callees, found: tuple[Analyzer | None, Scope] | None, name: str) -> ast.expr | None:
    """The default a class of the project (``found``, or a base class of it) declares for
    its field ``name`` (``model: str = "gpt-4.1"``), or None."""
    for _ in range(4):
        if found is None or not isinstance(found[1].node, ast.ClassDef):
            return None
        owner, cls = found
        cls_node = cls.node
        assert isinstance(cls_node, ast.ClassDef)
        for statement in cls_node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                    and statement.target.id == name:
                return statement.value
        base = next((b for b in map(base_name, cls_node.bases) if b is not None), None)
        if base is None:
            return None
        home = owner.callees if owner is not None else callees
        found = home.class_named(base, cls.parent, True)
        if found is not None and found[0] is None:
            found = (owner, found[1])
    return None


def handed_empty_field(callees: Callees, node: ast.Attribute, env: Env) -> str | None:
    """``node.attr`` of a parameter annotated with the project's settings class
    (``model_config: ModelConfig``), or of a ``self.`` attribute given one, which declares the
    field empty: the object is built by the caller, from what the user configures, and holds
    nothing there by default."""
    held = node.value
    parameter = isinstance(held, ast.Name) and env.scope.kind == "function" and held.id in env.scope.params \
        and env.bound(held.id) is None
    if not parameter and not (isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name)
                              and held.value.id == "self"):
        return None
    value = field_default(callees, callees.class_of(held, env, True), node.attr)
    return node.attr if value is not None and _empty_field(value) else None


def kwargs_unset(spreads: Spreads, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str, called: str) -> bool:
    """Whether ``**name`` of ``fn`` is only passed on (spread, merged, or handed to a function
    that returns a copy of it), and nothing in the module or the project calls ``fn`` by the
    name ``called`` with a limit keyword (a caller that gives it the limit)."""
    return spreads.kwargs_only_passed(fn, name) and not spreads.limit_called(called) \
        and not spreads.limit_spread_in(called)
