"""Where a collection in no fixed order loses its order: the place a finding points at, where
``sorted(...)`` goes (a copy into a list, a listing, the function of another module that returns
it), followed back from where the order is read; and the small facts about values the walk
and ordering.py share (an empty list, a copy, a cut, a return with nothing in it)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ctxlint.frontends.python.ifarms import other_arms
from ctxlint.frontends.python.knowledge import COMPLETIONS, LISTINGS, UNSTABLE
from ctxlint.frontends.python.sortedwalk import walk_sorted
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Binding, Env, unpacked_position
from ctxlint.model import Evidence, EvidenceKind, Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.callees import Called
    from ctxlint.frontends.python.ordering import Ordering

# Calls that walk the items of their first argument in its order.
KEEP_ORDER = ("enumerate", "reversed")
# The views of a dict, which walk its keys in the order they were first set.
DICT_VIEWS = ("items", "values", "keys")
# How many steps ``origin`` takes back to where an order is lost: copies, calls, the parameters a
# caller fills, a list filled in a loop, each a step (`hits, _ = self.gather(q)` to `unique(hits)` to
# the loop over `shelves` to `picker.pick` of another module to its `list(set(named))`).
_ORIGIN_HOPS = 8


class OrderOrigins(Component):
    """The part of ``Ordering`` (ordering.py, which derives from it) that says where an order is lost."""

    # What `Ordering` gives, read here.
    def unordered(self, node: ast.expr, env: Env) -> str | None:
        raise NotImplementedError

    def bound_unordered(self, node: ast.Name | ast.Attribute, binding: Binding) -> str | None:
        raise NotImplementedError

    def inherited(self, node: ast.Attribute, env: Env) -> tuple[Ordering, ast.expr, Env] | None:
        raise NotImplementedError

    def helper_call(self, node: ast.expr) -> bool:
        raise NotImplementedError

    def listing_call(self, node: ast.expr, env: Env) -> ast.Call | None:
        raise NotImplementedError

    def returned_items(self, call: ast.expr, position: int, env: Env) -> list[tuple[ast.expr, Env, Called]]:
        raise NotImplementedError

    def yield_loops(self, call: ast.Call, env: Env) -> tuple[Called, list[ast.expr]] | None:
        raise NotImplementedError

    def unpacked_step(self, node: ast.expr, env: Env) -> tuple[Evidence, ...]:
        """The step by which a name takes its collection from an item of the tuples a function
        returns (``shelves, _ = picker.pick(q)``, also in one arm of an ``if``), for the evidence
        to go from where the order is read to the function that gives it."""
        if not isinstance(node, ast.Name):
            return ()
        binding = self.scopes.resolve(node, env)
        if binding is not None and self.bound_unordered(node, binding) is None:
            binding = next((arm for arm in other_arms(self, node, binding)
                            if self.bound_unordered(node, arm) is not None), None)
        position = unpacked_position(binding.value) if binding is not None else None
        if binding is None or position is None or not isinstance(binding.value, ast.Subscript):
            return ()
        call = binding.value.value
        written = self.m.code(call)
        if "\n" in written or len(written) > 80:
            written = f"{self.m.code(call.func)}(...)" if isinstance(call, ast.Call) else "the call"
        return (Evidence(EvidenceKind.FLOW, f"`{self.m.code(node)}` is item {position + 1} of what `{written}` returns",
                         self.m.span(call)),)

    def filled_from(self, binding: Binding, depth: int = 0, name: str | None = None) -> ast.expr | None:
        """The directory listing a loop around an addition to a list started empty walks
        (``for path in glob.glob(p): found.append(...)``: ``glob.glob(p)``) or that an addition
        copies in (``files.extend([join(d, f) for f in os.listdir(d)])``), as ``accumulated_unordered``
        finds it. Other collections keep the place where the list is used, as reported before, but
        for one whose order is lost elsewhere (a copy ``list(set(...))``, what a function of another
        module returns: ``for shelf in shelves``, ``shelves, _ = picker.pick(q)``), where ``origin`` finds it."""
        for added, loop, detail in self.additions(binding, name):
            if loop is None:
                if detail in LISTINGS:
                    return added
            elif detail in LISTINGS and not walk_sorted(loop) or detail is not None and detail not in LISTINGS \
                    and self.origin(added, binding.env, depth + 1) != self.m.span(added):
                return added
        return None

    def additions(self, binding: Binding, name: str | None = None
                  ) -> Iterator[tuple[ast.expr, ast.For | ast.AsyncFor | None, str | None]]:
        """Where the items added to a list (``append``, ``extend``, ``+=``, ``insert``) come from,
        in order, each with what it is in no fixed order by (``unordered``, asked when reached):
        the collection an ``extend`` or ``+=`` copies in (a helper's call aside: its list is
        reported where the helper fills it), with no loop; the collection each loop around an
        addition walks, with the loop. For a dict started empty (``name``), the loops around each
        key it is given and each dict copied in (``keyed_additions``)."""
        if name is not None and empty_dict(binding.value):
            for added, around in self.keyed_additions(name, binding):
                if around is not None or not self.helper_call(added):
                    yield added, around, self.unordered(added, binding.env)
            return
        for extra in binding.extras:
            if extra.kind not in ("append", "extend", "+=", "insert"):
                continue
            if extra.kind in ("extend", "+=") and extra.value is not None and not self.helper_call(extra.value):
                yield extra.value, None, self.unordered(extra.value, binding.env)
            for loop in extra.loops[binding.loops:]:
                if isinstance(loop.node, (ast.For, ast.AsyncFor)):
                    yield loop.node.iter, loop.node, self.unordered(loop.node.iter, binding.env)

    def keyed_additions(self, name: str, binding: Binding
                        ) -> Iterator[tuple[ast.expr, ast.For | ast.AsyncFor | None]]:
        """What, after ``name = {}``, the function adds keys to the dict from: each loop around a key
        set that is no constant (``for root, _, files in os.walk(d): ... found[path] = handle.read()``),
        and a dict copied in by ``found.update(more)`` (with the loops around it): a dict keeps its keys
        in the order they are first set, so in the order these loops walk."""
        scope = binding.env.scope.node
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return  # a dict of the module's top level that functions fill: globalfills.py
        start = self.m.end(binding.value)
        for node in ast.walk(scope):
            if not isinstance(node, ast.stmt) or (node.lineno, node.col_offset) < start:
                continue
            if isinstance(node, ast.Expr) and isinstance(call := node.value, ast.Call) \
                    and isinstance(call.func, ast.Attribute) and call.func.attr == "update" \
                    and isinstance(call.func.value, ast.Name) and call.func.value.id == name and len(call.args) == 1:
                yield call.args[0], None
            elif not any(isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                         and target.value.id == name and not isinstance(target.slice, (ast.Constant, ast.Slice))
                         for target in (node.targets if isinstance(node, ast.Assign) else ())):
                continue
            parent = self.m.parents.get(id(node))
            while parent is not None and parent is not scope:
                if isinstance(parent, (ast.For, ast.AsyncFor)) and (parent.lineno, parent.col_offset) >= start:
                    yield parent.iter, parent
                parent = self.m.parents.get(id(parent))

    def listed_by(self, collection: ast.expr, env: Env, finished: bool = False) -> Span | None:
        """For a list filled in a loop over a listing (``for root, _, files in os.walk(d): ...
        found.append(...)``), the listing the loop walks: where ``sorted(...)`` goes; for one
        extended with a listing (``if found := root.glob(p): files.extend(found)``), that listing;
        ``finished``: also the ``as_completed(...)`` a loop that fills it walks."""
        binding = self.scopes.resolve(collection, env) if isinstance(collection, ast.Name) else None
        if binding is None or binding.owner is not None:
            return None
        if isinstance(collection, ast.Name) and empty_dict(binding.value):
            # a dict filled in a loop over a listing (`found[path] = text`) or copied one (`found.update(more)`)
            added = self.filled_from(binding, 0, collection.id)
            return self.origin(added, binding.env) if added is not None else None
        for extra in binding.extras:
            if extra.kind == "extend" and extra.value is not None and (added := self.listing_call(
                    extra.value, binding.env)) is not None:
                return self.m.span(added)
            for loop in extra.loops[binding.loops:]:
                if isinstance(loop.node, (ast.For, ast.AsyncFor)) \
                        and self.unordered(loop.node.iter, binding.env) in (
                            UNSTABLE | COMPLETIONS if finished else UNSTABLE):
                    return self.m.span(loop.node.iter)
        return None

    def origin(self, node: ast.expr, env: Env, depth: int = 0) -> Span:
        """Where the order of a collection is lost: the copy into a list (``unique =
        list(set(names))``) that a name holds, not each later use of the name, so that both the
        request and the place it is joined report it once, where ``sorted(...)`` goes. A name
        that holds the set itself is reported where it is used."""
        inner: ast.expr | None = None
        if isinstance(node, ast.Call) and self.m.qualified(node.func) in ("list", "tuple", *KEEP_ORDER) \
                and len(node.args) == 1:
            inner = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            inner = node.value  # a batch (`files[:16]`): where the collection it is cut from is used
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            inner = next((g.iter for g in node.generators if self.unordered(g.iter, env) is not None),
                         node.generators[0].iter)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DICT_VIEWS \
                and not node.args:
            inner = node.func.value  # `found.items()`: where the dict takes its keys' order
        elif isinstance(node, ast.IfExp):
            inner = node.body if self.unordered(node.body, env) is not None else node.orelse
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # `first + rest`: the part in no order
            inner = node.left if self.unordered(node.left, env) is not None else node.right
        elif isinstance(node, ast.Name):
            binding = self.scopes.resolve(node, env)
            passed = env.bound(node.id) if binding is None and depth <= _ORIGIN_HOPS else None
            if passed is not None and passed.owner is not None:  # a parameter a caller of another module fills
                return passed.owner.flow.origin(passed.node, passed.env, depth + 1)
            if binding is not None and depth <= _ORIGIN_HOPS and self.bound_unordered(node, binding) is None:
                # the arm of an `if` that gives the name a collection in no fixed order (`bound_unordered`)
                binding = next((arm for arm in other_arms(self, node, binding)
                                if self.bound_unordered(node, arm) is not None), binding)
            if binding is not None and binding.owner is None and not binding.extras and copied(binding.value, self):
                inner, env = binding.value, binding.env
            elif binding is not None and binding.owner is None and not binding.extras \
                    and isinstance(binding.value, ast.Call) and depth <= _ORIGIN_HOPS:
                returned = self.foreign_origin(binding.value, binding.env, depth)
                if returned is not None:
                    return returned
            elif binding is not None and binding.owner is None and not binding.extras and depth <= _ORIGIN_HOPS \
                    and (position := unpacked_position(binding.value)) is not None:
                returned = self.unpacked_origin(binding.value, position, binding.env, depth)
                if returned is not None:
                    return returned
            elif binding is not None and binding.owner is None and started_empty(binding.value) \
                    and depth <= _ORIGIN_HOPS:
                # a list (or a dict) filled in a loop over a directory listing: where the loop takes its order
                walked_over = self.filled_from(binding, depth, node.id)
                if walked_over is not None:
                    return self.origin(walked_over, binding.env, depth + 1)
        elif isinstance(node, ast.Attribute) and depth <= _ORIGIN_HOPS and self.scopes.resolve(node, env) is None \
                and (inherited := self.inherited(node, env)) is not None \
                and inherited[0].unordered(inherited[1], inherited[2]) is not None:
            return inherited[0].origin(inherited[1], inherited[2], depth + 1)  # where the base class sets it
        elif isinstance(node, ast.Call) and depth <= _ORIGIN_HOPS:
            # a generator's items: where its loop takes them (where `sorted(...)` goes)
            loops = self.yield_loops(node, env)
            if loops is not None and len(loops[1]) == 1 and self.unordered(loops[1][0], loops[0].env) is not None:
                return self.origin(loops[1][0], loops[0].env, depth + 1)
            returned = self.foreign_origin(node, env, depth)
            if returned is not None:
                return returned
        if inner is None or depth > _ORIGIN_HOPS or self.unordered(inner, env) is None:
            return self.m.span(node)
        return self.origin(inner, env, depth + 1)

    def foreign_origin(self, call: ast.Call, env: Env, depth: int) -> Span | None:
        """Where a function of another module of the project that ``call`` calls loses the order
        of the one collection it returns (``return list(found)[:most]``): the finding's evidence
        points there, where ``sorted(...)`` goes."""
        target = self.callees.function_for(call, env, foreign=True) if self.m.project is not None else None
        given = [value for value in target.returns if not nothing(value)] if target is not None else []
        if target is None or target.owner is None or len(given) != 1:
            return None
        reader, value = target.owner.flow, uncut(given[0])
        if reader.unordered(value, target.env) is None:
            return None
        return reader.origin(value, target.env, depth + 1)

    def unpacked_origin(self, node: ast.expr, position: int, env: Env, depth: int) -> Span | None:
        """``foreign_origin`` for one name of ``names, used = route(q)``: where the function loses
        the order of the item it returns there (of this module too: no finding said otherwise before)."""
        assert isinstance(node, ast.Subscript)
        items = self.returned_items(node.value, position, env)
        if len(items) != 1:
            return None
        item, item_env, target = items[0]
        reader = target.owner.flow if target.owner is not None else self
        value = uncut(item)
        return reader.origin(value, item_env, depth + 1) if reader.unordered(value, item_env) is not None else None


def empty_list(value: ast.expr) -> bool:
    return (isinstance(value, ast.List) and not value.elts) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list"
        and not value.args and not value.keywords)


def empty_dict(value: ast.expr) -> bool:
    return (isinstance(value, ast.Dict) and not value.keys) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"
        and not value.args and not value.keywords)


def started_empty(value: ast.expr) -> bool:
    """A list or a dict started empty: filled in loops, it holds its items in the order they are
    added (a dict keeps its keys in the order they are first set)."""
    return empty_list(value) or empty_dict(value)


def copied(value: ast.expr, ordering: Component) -> bool:
    """Whether ``value`` copies a collection into a sequence (``list(...)``, a comprehension, a slice,
    lists put end to end)."""
    return isinstance(value, (ast.ListComp, ast.GeneratorExp)) \
        or isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) \
        or isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) or (
        isinstance(value, ast.Call) and ordering.m.qualified(value.func) in ("list", "tuple") and len(value.args) == 1)


def uncut(value: ast.expr) -> ast.expr:
    """The collection a slice of it (``list(found)[:most]``) keeps the first items of, in its order."""
    return value.value if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) else value


def nothing(value: ast.expr) -> bool:
    """An empty collection or ``None`` (``return []``, ``return set()``): a return with no items."""
    if isinstance(value, ast.Constant):
        return value.value is None
    if isinstance(value, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return not (value.elts if not isinstance(value, ast.Dict) else value.keys)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and not value.args \
        and not value.keywords and value.func.id in ("list", "tuple", "set", "frozenset", "dict")
