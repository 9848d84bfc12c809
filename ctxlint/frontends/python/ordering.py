"""Iteration order: whether a value is a collection in no fixed order (a set, a directory
listing, a shuffled list), and where one is iterated or rendered into a prompt's text."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from ctxlint.frontends.code.pieces import KeyIndex, add_new, source_key
from ctxlint.frontends.python.callees import Called
from ctxlint.frontends.python.hashedtext import declared_set
from ctxlint.frontends.python.ifarms import other_arms
from ctxlint.frontends.python.knowledge import (
    ITERATING,
    LISTINGS,
    MAX_DEPTH,
    ORDER_FREE,
    PATH_METHODS,
    SERIALIZERS,
    SET_METHODS,
    UNORDERED_CALLS,
)
from ctxlint.frontends.python.nodes import children
from ctxlint.frontends.python.orderorigins import DICT_VIEWS, KEEP_ORDER, OrderOrigins, nothing, started_empty, uncut
from ctxlint.frontends.python.queryrows import rows_of
from ctxlint.frontends.python.sortedwalk import walk_sorted
from ctxlint.frontends.python.values import Binding, Env, agreed, unpacked_position
from ctxlint.frontends.python.yieldloops import yielded_from
from ctxlint.model import Evidence, EvidenceKind, Source, SourceKind

COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
PASSED_BY = "by the call at line"  # how the step of a caller that passes a collection in no fixed order ends
# The calls of a function read for the order they pass a parameter in: "every call" fills it so is
# a claim about all of them, and a plugin module often has a dozen entry points handing one helper
# their listings (each a place of the finding, where `sorted(...)` goes)
_ORDER_CALLERS = 16
# ... of each of their arguments, in step (`zip(files, notes)`), and of the one after the function
# they apply (`map(read, files)`, `filter(wanted, files)`).
_IN_STEP = ("zip", "itertools.zip_longest")
_APPLIED = ("map", "filter", "itertools.filterfalse")
_SET_ANNOTATION = re.compile(r"(typing\.)?([sS]et|frozenset|FrozenSet|AbstractSet)\b")


class Ordering(OrderOrigins):
    def unordered(self, node: ast.expr, env: Env) -> str | None:
        """What makes the value of ``node`` a collection in no fixed order, or None."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, (ast.Set, ast.SetComp)):
            return "set"
        if isinstance(node, ast.Await):
            return self.unordered(node.value, env)
        if isinstance(node, ast.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in UNORDERED_CALLS:
                return UNORDERED_CALLS[qualified]
            if qualified in ("list", "tuple") and len(node.args) == 1 or qualified in KEEP_ORDER and node.args:
                return self.unordered(node.args[0], env)  # `enumerate(files)` walks them in their order
            if qualified in _IN_STEP or qualified in _APPLIED and len(node.args) == 2:
                given = node.args if qualified in _IN_STEP else node.args[1:]
                return next((d for a in given if not isinstance(a, ast.Starred)
                             and (d := self.unordered(a, env)) is not None), None)
            if isinstance(node.func, ast.Attribute):
                method = node.func.attr
                if method in PATH_METHODS and not qualified.startswith(("glob.", "fnmatch.")):
                    return PATH_METHODS[method]
                if method in SET_METHODS:
                    return "set" if self.unordered(node.func.value, env) else None
                if method in DICT_VIEWS and not node.args and (kept := self.unordered(node.func.value, env)):
                    return kept  # `found.items()` of a dict filled in a loop over a listing: its keys' order
            return rows_of(self, node, env) or self.returned_unordered(node, env) \
                or self.yielded_unordered(node, env)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            # `[f for p in patterns for f in glob.glob(p)]`: any loop of it may give the items their order
            return next((d for g in node.generators if (d := self.unordered(g.iter, env)) is not None), None)
        if isinstance(node, ast.IfExp):  # `[...] if defaults else [... for n in set(names)]`: either arm may run
            return self.unordered(node.body, env) or self.unordered(node.orelse, env)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            # `files[:16]`, `files[16:]`: a batch keeps the order of what it is cut from, which also
            # decides the items it holds
            return self.unordered(node.value, env)
        if isinstance(node, ast.Subscript) and (position := unpacked_position(node)) is not None:
            return self.unpacked_unordered(node.value, position, env)  # `names, used = route(q)`
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor, ast.Add)):
            # (`+`: lists joined end to end, `glob(a) + glob(b)`, keep each one's order)
            return self.unordered(node.left, env) or self.unordered(node.right, env)
        if isinstance(node, (ast.Name, ast.Attribute)):
            if isinstance(node, ast.Name) and node.id in self.sorted_in_place(env.scope.node):
                return None  # `files.sort()`: the function puts it in order before it is read
            binding = self.scopes.resolve(node, env)
            if binding is None and isinstance(node, ast.Name) and (bound := env.bound(node.id)) is not None \
                    and bound.owner is not None:
                # a parameter a caller of another module fills (`dedupe(found)`): what it passes, read there
                binding = self.scopes.resolve(node, env, foreign=True)
            if binding is None:
                if isinstance(node, ast.Name) and _shuffled_before(node, env):
                    return "random.shuffle"  # `random.shuffle(info_list)` of a parameter, before it is read
                annotation = self.callees.param_annotation(node.id, env) if isinstance(node, ast.Name) else None
                if annotation is not None and _SET_ANNOTATION.match(annotation):
                    return "set"
                if isinstance(node, ast.Name):
                    return self.passed_unordered(node, env)
                # `context.state.glossary`, a field its object's class declares as a set
                return self.set_by_base(node, env) or ("set" if declared_set(self.m, node, env) else None)
            found = self.bound_unordered(node, binding)
            if found is None and isinstance(node, ast.Name):
                # `if routed: names, _ = route(q)` then `else: names = everything`: either arm may run
                found = next((d for arm in other_arms(self, node, binding)
                              if (d := self.bound_unordered(node, arm)) is not None), None)
            return found
        return None

    def bound_unordered(self, node: ast.Name | ast.Attribute, binding: Binding) -> str | None:
        """``unordered`` of what one assignment gives a name, with the changes made after it.
        Each binding is read once per file: a module whose functions hand one value on through
        many others (a rewriter's visitors) reaches the same bindings along many paths."""
        key = (node.id if isinstance(node, ast.Name) else None, *self.m.binding_key(binding))
        if key not in self.m.order_memo:
            self.m.order_memo[key] = self._bound_unordered(node, binding)
        return self.m.order_memo[key]

    def _bound_unordered(self, node: ast.Name | ast.Attribute, binding: Binding) -> str | None:
        if any(e.kind == "shuffle" for e in binding.extras):
            return "random.shuffle"
        if isinstance(node, ast.Name) and started_empty(binding.value):
            return self.accumulated_unordered(node.id, binding)
        # a parameter bound to what a caller of another module passes is read in that module
        return self.m.follow_binding(binding, (binding.owner.flow if binding.owner is not None else self).unordered)

    def set_by_base(self, node: ast.Attribute, env: Env) -> str | None:
        """``self.examples`` that the class never sets and a base class of the project does
        (``self.examples = load_examples(folder)`` in the base's method, in another module): what
        that value is in no fixed order by, read where the base class is."""
        inherited = self.inherited(node, env)
        return inherited[0].unordered(inherited[1], inherited[2]) if inherited is not None else None

    def inherited(self, node: ast.Attribute, env: Env) -> tuple[Ordering, ast.expr, Env] | None:
        """The value a base class of the project gives ``self.attr``, with the module that reads it."""
        if not isinstance(node.value, ast.Name) or node.value.id != "self":
            return None
        found = self.callees.set_by_base(node.attr, env)
        if found is None:
            return None
        value, value_env, owner = found
        return (owner.flow if owner is not None else self), value, \
            Env(value_env.scope, value_env.bindings, env.depth + 1)

    def accumulated_unordered(self, name: str, binding: Binding) -> str | None:
        """A list built empty and filled in loops: what the items are added in no fixed order by,
        when a loop around an addition walks a collection in no fixed order (``for root, _, files
        in os.walk(d): for f in files: found.append(f)``) and the function never sorts the list."""
        if binding.owner is not None or not self.m.enter(binding.value):
            return None
        try:
            for _, loop, detail in self.additions(binding, name):
                if loop is not None and detail == "os.walk" and walk_sorted(loop):
                    continue  # `dirs.sort()` and `sorted(files)`: the walk's order is the names'
                if detail is not None:  # `files.extend([join(d, f) for f in os.listdir(d)])` or a loop's
                    return None if name in self.sorted_in_place(binding.env.scope.node) else detail
            return None
        finally:
            self.m.leave(binding.value)

    def listing_call(self, node: ast.expr, env: Env) -> ast.Call | None:
        """The directory listing a value is (``root.glob(p)``), or a name assigned one holds."""
        if isinstance(node, ast.Name) and (binding := self.scopes.resolve(node, env)) is not None \
                and binding.owner is None and not binding.extras:
            node, env = binding.value, binding.env
        return node if isinstance(node, ast.Call) and self.unordered(node, env) in LISTINGS else None

    def helper_call(self, node: ast.expr) -> bool:
        """A call of a function (the project's own, or one unknown) rather than a listing, a set or a copy."""
        if not isinstance(node, ast.Call):
            return False
        qualified = self.m.qualified(node.func) or ""
        return qualified not in UNORDERED_CALLS and qualified not in ("list", "tuple") and not (
            isinstance(node.func, ast.Attribute) and node.func.attr in (*PATH_METHODS, *SET_METHODS))

    def passed_unordered(self, node: ast.Name, env: Env) -> str | None:
        """For a parameter no call binds here: what every call of its function the module shows
        passes in no fixed order (``self.images(self.paths)``, ``self.paths`` a set), or None."""
        fn = self.sources.unbound_parameter(node, env)
        if fn is None or not self.m.enter(fn):
            return None
        try:
            passed = self.sources.callers(fn, node.id, env, constructors=True, most=_ORDER_CALLERS)
            return agreed([self.unordered(bound.node, bound.env) for _, bound in passed])
        finally:
            self.m.leave(fn)

    def returned_unordered(self, call: ast.Call, env: Env) -> str | None:
        """A summary of the function ``call`` calls: what every value it returns is in no fixed
        order by (``return set(names)``, ``return list(found)[:5]``), or None when one return is
        ordered or the function is not shown. A function of another module of the project is read
        there (``urls = pick_urls(text)``, ``pick_urls`` returning a list of a set)."""
        target = self.callees.function_for(call, env, foreign=self.m.project is not None)
        if target is None:
            return None
        reader = target.owner.flow if target.owner is not None else self
        if not reader.m.enter(target.fn):
            return None
        try:
            # `return list(found)[:most]`: the first items, in the same order (a cut seen where it is
            # made is reported as one: ordersites.py)
            # an early `return []` (`None`, `set()`) gives nothing whose order could change: the other returns decide
            given = [value for value in target.returns if not nothing(value)]
            return agreed([reader.unordered(uncut(value), target.env) for value in given])
        finally:
            reader.m.leave(target.fn)

    def unpacked_unordered(self, call: ast.expr, position: int, env: Env) -> str | None:
        """``returned_unordered`` for one name of ``names, used = route(q)``: what the item at
        ``position`` of every tuple the function returns is in no fixed order by
        (``return list(set(picked)), used``), read in the function's own module."""
        found = []
        for item, item_env, target in self.returned_items(call, position, env):
            reader = target.owner.flow if target.owner is not None else self
            if not reader.m.enter(target.fn):
                return None
            try:
                found.append(reader.unordered(uncut(item), item_env))
            finally:
                reader.m.leave(target.fn)
        return agreed(found)

    def returned_items(self, call: ast.expr, position: int, env: Env) -> list[tuple[ast.expr, Env, Called]]:
        """The items at ``position`` of the tuples the function ``call`` calls returns, but for
        those with nothing in them (``return [], 0``); none where one is not shown."""
        items = self.callees.items_returned_by(call, position, env)
        if any(item is call for item, _, _ in items):
            return []  # a call handed over to that the code does not show
        return [(item, item_env, target) for item, item_env, target in items if not nothing(item)]

    def sorted_in_place(self, scope_node: ast.AST) -> set[str]:
        """The names whose lists the code of a scope sorts in place (``found.sort()``)."""
        found = self.m.sorted_memo.get(id(scope_node))
        if found is None:
            found = self.m.sorted_memo[id(scope_node)] = {
                node.func.value.id for node in own_nodes(scope_node)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sort"
                and isinstance(node.func.value, ast.Name)}
        return found

    def yielded_unordered(self, call: ast.Call, env: Env) -> str | None:
        """A summary of a generator of the module's own that ``call`` calls: what its items are
        in no fixed order by, when every ``yield`` sits in a loop over a collection in no fixed
        order (``for name in list(self.names): yield name, read(name)``), or None."""
        loops = self.yield_loops(call, env)
        if loops is None:
            return None
        target, iterables = loops
        if not self.m.enter(target.fn):
            return None
        try:
            return agreed([self.unordered(iterable, target.env) for iterable in iterables])
        finally:
            self.m.leave(target.fn)

    def yield_loops(self, call: ast.Call, env: Env) -> tuple[Called, list[ast.expr]] | None:
        """The function ``call`` calls, when it is a generator of this module, and the collection
        each of its ``yield``s loops over (the innermost loop around it); None when a ``yield``
        is outside every loop."""
        # `function_for`, its arguments bound only for a generator that loops: most calls are not
        found = self.callees.callee(call.func, env, False) if env.depth <= MAX_DEPTH else None
        if found is None or found[0] is not None:
            return None
        fn = found[1]
        key = id(fn)
        if key not in self.m.yield_memo:
            self.m.yield_memo[key] = yielded_from(fn, own_nodes(fn), self.m.parents)
        iterables = self.m.yield_memo[key]
        return (self.callees.called(call, env, found), iterables) if iterables else None

    def unordered_source(self, node: ast.expr, env: Env) -> tuple[Source, ...]:
        detail = self.unordered(node, env)
        if detail is None:
            return ()
        passed = self.passed_by(node, env)
        return (Source(SourceKind.UNORDERED_ITERATION, detail, self.origin(node, env),
                       flow=(*self.unpacked_step(walked(node, self), env), *passed), from_caller=bool(passed)),)

    def passed_by(self, node: ast.expr, env: Env, depth: int = 0) -> tuple[Evidence, ...]:
        """For a parameter in no fixed order by what its callers pass (``passed_unordered``),
        the calls that pass it, as steps of the evidence; also for a batch, a copy or a walk of
        one, directly or through a local name (``batch = files[:16]``, ``[rel(f) for f in batch]``)."""
        node = walked(node, self)
        # `self.topics`, set from a parameter of `__init__`: the constructions of the class that fill it
        binding = self.scopes.resolve(node, env) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if binding is not None and binding.owner is None and not binding.extras and depth < 4:
            return self.passed_by(binding.value, binding.env, depth + 1)
        if not isinstance(node, ast.Name) or binding is not None \
                or _SET_ANNOTATION.match(self.callees.param_annotation(node.id, env) or ""):
            return ()
        fn = self.sources.unbound_parameter(node, env)
        return () if fn is None else self.callers_passing(fn, node.id, env)

    def callers_passing(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, param: str, env: Env
                        ) -> tuple[Evidence, ...]:
        """The calls of ``fn`` that fill ``param`` with a collection in no fixed order, each step
        placed where the caller's collection takes its order (where ``sorted(...)`` goes there)."""
        return tuple(Evidence(EvidenceKind.FLOW, f"`{self.m.code(bound.node)}` is passed as `{param}` {PASSED_BY} "
                              f"{call.lineno}", self.origin(bound.node, bound.env))
                     for call, bound in self.sources.callers(fn, param, env, constructors=True, most=_ORDER_CALLERS)
                     if self.unordered(bound.node, bound.env) is not None)

    def iteration_sources(self, node: ast.expr, env: Env) -> list[Source]:
        """Where a collection in no fixed order is rendered or iterated into this value."""
        found = list(self.unordered_source(node, env))
        if not found:
            self._iteration_walk(node, env, found, KeyIndex())
        return found

    def _iteration_walk(self, node: ast.AST, env: Env, found: list[Source], index: KeyIndex) -> None:
        """Add to ``found`` where ``node`` iterates a collection in no fixed order; ``index`` is
        ``found``'s (see ``add_new``)."""
        if env.depth > MAX_DEPTH or isinstance(node, ast.Lambda) or not self.m.step():
            return
        if isinstance(node, ast.Call):
            qualified = self.m.qualified(node.func) or ""
            if qualified in ORDER_FREE:
                return
            method = node.func.attr if isinstance(node.func, ast.Attribute) else None
            if method == "join" or qualified in ITERATING or qualified in SERIALIZERS:
                for arg in node.args[:1]:
                    found.extend(self.unordered_source(arg, env))
            elif self.unordered(node, env) is None:  # a collection it returns is reported where it is iterated
                found.extend(self.returned_iteration(node, env))
        elif isinstance(node, COMPREHENSIONS):
            for comp in node.generators:
                found.extend(self.unordered_source(comp.iter, env))
        elif isinstance(node, ast.Starred):
            found.extend(self.unordered_source(node.value, env))
        elif isinstance(node, ast.FormattedValue):
            found.extend(self.unordered_source(node.value, env))
        elif isinstance(node, ast.Name):
            binding = self.scopes.resolve(node, env)
            if binding is None:
                return
            # Remembered per binding, each source once: a name built from itself many times
            # over (`PROMPT = PROMPT + PROMPT`) is walked once, not 2**n times.
            key = self.m.binding_key(binding)
            inner = self.m.iteration_memo.get(key)
            if inner is None and self.m.enter(binding.value):
                inner = []
                try:
                    inner_index = KeyIndex()
                    for held in (binding, *other_arms(self, node, binding)):
                        self._iteration_walk(held.value, held.env, inner, inner_index)
                        for extra in held.extras:
                            if extra.kind in ("+=", "append", "extend") and extra.value is not None:
                                self._iteration_walk(extra.value, held.env, inner, inner_index)
                                inner.extend(self.strings.added_sources(held, extra))
                finally:
                    self.m.leave(binding.value)
                unique_sources: list[Source] = []
                add_new(unique_sources, inner, key=source_key)
                inner = self.m.iteration_memo[key] = unique_sources
            if inner:
                add_new(found, inner, key=source_key, index=index)
            return
        for child in children(node):
            self._iteration_walk(child, env, found, index)

    def returned_iteration(self, call: ast.Call, env: Env) -> list[Source]:
        """A summary of the module's own function ``call`` calls: where the values it returns
        iterate a collection in no fixed order (``for path in self.paths: text += read(path)``,
        then ``return text``), each with the call as a step. Only the module's own, as for
        ``returned_unordered``."""
        target = self.callees.function_for(call, env)
        if target is None or target.owner is not None or not self.m.enter(target.fn):
            return []
        inner: list[Source] = []
        try:
            sorted_names = self.sorted_in_place(target.fn)
            for value in target.returns:
                if not (isinstance(value, ast.Name) and value.id in sorted_names):  # `found.sort()` fixed it
                    self._iteration_walk(value, target.env, inner, KeyIndex())
        finally:
            self.m.leave(target.fn)
        written = self.m.code(call)
        if "\n" in written or len(written) > 80:  # a call spread over lines: its name says enough
            written = f"{self.m.code(call.func)}(...)"
        step = Evidence(EvidenceKind.FLOW, f"`{written}` returns text built from it", self.m.span(call))
        return [replace(source, flow=(*source.flow, step), returned=True) for source in inner]


def listings_walked(ordering: Ordering, loop: ast.For | ast.AsyncFor, fn: ast.AST, env: Env) -> list[ast.Call]:
    """The directory listings a loop walks: its own, or those its function gives the name it
    walks before it (``paths = glob.glob(...)`` in each arm of an ``if``, ``files.extend([... for
    name in os.listdir(d)])``), where ``sorted(...)`` goes."""
    if isinstance(loop.iter, ast.Call) and ordering.unordered(loop.iter, env) in LISTINGS:
        return [loop.iter]
    if not isinstance(loop.iter, ast.Name):
        return []
    before = [node for node in own_nodes(fn) if getattr(node, "lineno", loop.lineno) < loop.lineno]

    def given(name: str) -> list[ast.expr]:
        """What the function gives ``name`` before the loop: assigned, or added with ``extend``."""
        values = [node.value for node in before if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)]
        return values + [arg for node in before if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                         and node.func.attr in ("extend", "append") and isinstance(node.func.value, ast.Name)
                         and node.func.value.id == name for arg in node.args]

    filled = given(loop.iter.id)
    # one step further back: `names = os.listdir(d)`, then `files.extend([... for n in names])`
    filled += [value for given_value in list(filled) for name in ast.walk(given_value)
               if isinstance(name, ast.Name) and name.id != loop.iter.id for value in given(name.id)]
    found = {id(call): call for value in filled for call in ast.walk(value) if isinstance(call, ast.Call)
             and isinstance(call.func, (ast.Name, ast.Attribute)) and ordering.unordered(call, env) in LISTINGS}
    return sorted(found.values(), key=lambda c: (c.lineno, c.col_offset))


def own_nodes(fn: ast.AST) -> tuple[ast.AST, ...]:
    """The nodes of a function's body, without those of the functions and lambdas nested in it.
    Listed once per function and kept on its node: a dozen passes read each function's own nodes."""
    known: tuple[ast.AST, ...] | None = getattr(fn, _OWN, None)
    if known is not None:
        return known
    found: list[ast.AST] = []
    pending = list(children(fn))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        found.append(node)
        pending.extend(children(node))
    known = tuple(found)
    setattr(fn, _OWN, known)
    return known


def _shuffled_before(node: ast.Name, env: Env) -> bool:
    """Whether the function shuffles the list a name it is given holds (``random.shuffle(items)``,
    recorded beside its assignments) before ``node`` reads it: what the caller passes, in whatever
    order, is read in a random one."""
    return env.scope.kind == "function" and node.id in env.scope.params and any(
        a.kind == "shuffle" and a.end <= (node.lineno, node.col_offset) for a in env.scope.assigns.get(node.id, ()))


_OWN = "_ctxlint_own_nodes"  # the attribute a function's own nodes are kept in


def walked(node: ast.expr, ordering: Ordering) -> ast.expr:
    """The collection whose order ``node`` takes as it is: a batch of it (``files[:16]``), a copy
    or a walk of it (``list(files)``, ``enumerate(files)``, ``[rel(f) for f in files]``)."""
    for _ in range(MAX_DEPTH):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            node = node.value
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            node = node.generators[0].iter
        elif isinstance(node, ast.Call) and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred) \
                and ordering.m.qualified(node.func) in ("list", "tuple", *KEEP_ORDER):
            node = node.args[0]
        else:
            break
    return node
