"""Collections a prompt is built from: the entries of a dict and the items of a list, read from
literals, from what the code adds to them later (``append``, ``extend``, ``update``, ``d[k] = v``),
from the values names hold and, for the values a template is filled with, from the dict a
function of the module returns. The facts and literal values of each element come from :mod:`flow`.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.flow import MAX_ITEMS, Entry, Region
from ctxlint.frontends.python.itemsets import ADDED, SET, changed_item
from ctxlint.frontends.python.knowledge import MAX_DEPTH
from ctxlint.frontends.python.literals import keyed_fields
from ctxlint.frontends.python.nodes import filtered_source, left_before, none_written, walk
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Assign, Bound, Env, Item, looped_keys
from ctxlint.model import Source, SourceKind


class Containers(Component):
    def dict_entries(self, node: ast.expr, env: Env, returned: bool = False) -> dict[str, Entry] | None:
        """String-keyed entries of a dict literal or ``dict(...)`` call, through names:
        key -> (value node, its env, the place that sets it). With ``returned`` (the values a
        template is filled with), also the dict a function of the module returns."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is None and isinstance(node, ast.Name) and (bound := env.bound(node.id)) is not None \
                    and isinstance(bound.node, ast.Dict) and not bound.node.keys:
                return {}  # `**kwargs` a call of another module leaves empty: nothing of that module's to read
            if binding is None or not self.m.enter(binding.value):
                return None
            try:
                found = self.dict_entries(binding.value, binding.env, returned)
                for extra in binding.extras:  # keys set after it was built
                    found = self.changed_entries(found, extra, binding.env)
                return found
            finally:
                self.m.leave(binding.value)
        if isinstance(node, ast.Dict):
            # A message dict is read by the test for a message and again for its content: each
            # literal in each env (and under the same cycle guard) is read once (the entry keeps
            # both alive for their ids).
            key = (id(node), env.key, self.m.following())
            memo = self.m.dict_memo.get(key)
            if memo is None:
                memo = self.m.dict_memo[key] = (node, env, self.dict_literal(node, env))
            return None if memo[2] is None else dict(memo[2])
        if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Name, ast.Attribute)):
            # `params["options"]` of a dict we can read: that entry's dict
            member = self.flow.literal_str(node.slice, env)
            outer = self.dict_entries(node.value, env) if member is not None else None
            entry = outer.get(member) if outer is not None and member is not None else None
            return self.dict_entries(entry[0], entry[1]) if entry is not None else None
        if (source := filtered_source(node)) is not None:
            # `{k: v for k, v in params.items() if v is not None}`: the entries not written as None
            kept = self.dict_entries(source, env, returned)
            return None if kept is None else {k: e for k, e in kept.items() if not none_written(e[0])}
        entries: dict[str, Entry] = {}
        if isinstance(node, ast.Call) and self.m.qualified(node.func) == "dict":
            for arg in node.args:
                inner = self.dict_entries(arg, env) if not isinstance(arg, ast.Starred) else None
                if inner is None:
                    return None
                entries.update(inner)
            for keyword in node.keywords:
                if keyword.arg is not None:
                    entries[keyword.arg] = (keyword.value, env, keyword)
                else:
                    inner = self.dict_entries(keyword.value, env)
                    if inner is None:
                        return None
                    entries.update(inner)
            return entries
        if isinstance(node, ast.Call) and self.m.qualified(node.func) == "next":
            return self.selected_message(node, env)
        if returned and isinstance(node, ast.Call):
            # `PROMPT.format(**self._build_inputs(state))`: the entries of the one dict a function
            # of the module returns, in the env it runs in (its parameters bound to this call).
            # Only for a template's values: a message a helper returns is read by messages.py.
            target = self.callees.function_for(node, env)
            if target is None or len(target.returns) != 1 or not self.m.enter(target.fn):
                return None
            try:
                return self.dict_entries(target.returns[0], target.env, returned)
            finally:
                self.m.leave(target.fn)
        return None

    def selected_message(self, call: ast.Call, env: Env) -> dict[str, Entry] | None:
        """The message ``next(m for m in messages if m["role"] == "system")`` picks by its role (or
        the default given, a message dict of that role): its role is the one the test names, its
        content what the list holds (the element, a value we cannot read)."""
        generator = call.args[0] if call.args and not call.keywords and len(call.args) <= 2 else None
        if not (isinstance(generator, ast.GeneratorExp) and len(generator.generators) == 1
                and isinstance(generator.elt, ast.Name) and len(generator.generators[0].ifs) == 1):
            return None
        role = _role_tested(generator.generators[0].ifs[0], generator.elt.id)
        if role is None:
            return None
        if len(call.args) == 2:
            default = self.dict_entries(call.args[1], env)
            given = default.get("role") if default is not None else None
            if given is None or self.flow.literal_str(given[0], given[1]) != role.value:
                return None  # a default of another role (or none we can read): which one is sent is unknown
        return {"role": (role, env, role), "content": (generator.elt, env, generator.elt)}

    def entries_at(self, name: str, env: Env, at: tuple[int, int]) -> dict[str, Entry] | None:
        """The entries of the dict ``name`` holds at ``at``, with the keys set on it before."""
        binding = self.scopes.binding(name, env, at)
        if binding is None or not self.m.enter(binding.value):
            return None
        try:
            found = self.dict_entries(binding.value, binding.env)
            for extra in binding.extras:
                found = self.changed_entries(found, extra, binding.env)
            return found
        finally:
            self.m.leave(binding.value)

    def dict_literal(self, node: ast.Dict, env: Env) -> dict[str, Entry] | None:
        entries: dict[str, Entry] = {}
        for key_node, value in zip(node.keys, node.values, strict=True):
            if key_node is None:  # {**defaults, ...}
                inner = self.dict_entries(value, env)
                if inner is None:
                    return None
                entries.update(inner)
                continue
            key = self.flow.literal_str(key_node, env)
            if key is None:
                return None
            entries[key] = (value, env, Region.between(key_node, value))
        return entries

    def visible_entries(self, node: ast.expr, env: Env) -> dict[str, Entry]:
        """The keys a dict written in the code gives although a spread in it cannot be read
        (``{"max_output_tokens": n, **kwargs}``): a caller may add keys or replace these, but
        these are set. Through a local name and the changes made to it after (``pop``)."""
        use = node
        binding = self.scopes.resolve(node, env) if isinstance(node, ast.Name) else None
        if binding is not None:
            node, env = binding.value, binding.env
        # A dict read from elsewhere (`data = await request.json()`) gives the keys the code sets
        # in it after (`data["max_tokens"] = n`), and takes out (`data.pop("max_tokens")`).
        if not isinstance(node, ast.Dict) and (binding is None or not binding.extras):
            return {}
        written: dict[str, Entry] = {}
        for key_node, value in zip(node.keys, node.values, strict=True) if isinstance(node, ast.Dict) else ():
            key = self.flow.literal_str(key_node, env) if key_node is not None else None
            if key is not None and key_node is not None:
                written[key] = (value, env, Region.between(key_node, value))
        found: dict[str, Entry] | None = written
        for extra in binding.extras if binding is not None else ():
            if extra.target is None or not left_before(extra.target, use, self.m.parents):  # a branch that returns
                found = self.changed_entries(found, extra, env)
        return found or {}

    def changed_entries(self, entries: dict[str, Entry] | None, extra: Assign, env: Env) -> dict[str, Entry] | None:
        """A dict's entries after ``params["key"] = value``, ``params.update(...)`` or
        ``params.setdefault(...)``; None when the change is not one we can read."""
        if entries is None or extra.value is None:
            return None
        entries = dict(entries)
        if extra.kind == "setitem" and isinstance(extra.target, ast.Subscript):
            key = self.flow.literal_str(extra.target.slice, env)
            keys = [key] if key is not None else looped_keys(extra.target.slice, extra.loops)
            if not keys:
                return None
            entries.update(dict.fromkeys(keys, (extra.value, env, extra.target)))
            return entries
        if extra.kind == "setitem+=" and isinstance(extra.target, ast.Subscript):
            # system["content"] += context: the text before, then what is added, read as one sum
            key = self.flow.literal_str(extra.target.slice, env)
            before = entries.get(key) if key is not None else None
            if key is None or before is None or before[1].key != env.key:
                return None
            added = ast.copy_location(ast.BinOp(before[0], ast.Add(), extra.value), extra.value)
            entries[key] = (added, env, before[2])
            return entries
        if extra.kind == "pop" and isinstance(extra.value, ast.Call):
            # the limit taken out (when its branch runs): the entry is the removal (reserves.removal)
            key = self.flow.literal_str(extra.value.args[0], env)
            if key is None:
                return None
            if key in entries:
                entries[key] = (extra.value, env, extra.value)
            return entries
        if extra.kind in ("update", "setdefault") and isinstance(extra.value, ast.Call):
            call = extra.value
            if extra.kind == "setdefault":
                key = self.flow.literal_str(call.args[0], env) if call.args else None
                if key is None:
                    return None
                if key not in entries and len(call.args) > 1:
                    entries[key] = (call.args[1], env, call)
                return entries
            for arg in call.args:
                more = self.dict_entries(arg, env)
                if more is None:
                    return None
                entries.update(more)
            for keyword in call.keywords:
                if keyword.arg is None:
                    return None
                entries[keyword.arg] = (keyword.value, env, keyword)
            return entries
        return None

    def items(self, node: ast.expr, env: Env, loop: str | None = None) -> list[Item] | None:
        """The elements of a list-valued expression in order; None if it is not one we can read
        or it has more than ``MAX_ITEMS``."""
        found = self._items(node, env, loop)
        return None if found is not None and len(found) > MAX_ITEMS else found

    def _items(self, node: ast.expr, env: Env, loop: str | None) -> list[Item] | None:
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, (ast.List, ast.Tuple)):
            self.m.consumed.add(id(node))
            items = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    inner = self.items(element.value, env, loop)
                    items.extend(inner if inner is not None else [
                        Item(element.value, env, loop, True, self.flow.unordered_source(element.value, env))])
                else:
                    items.append(Item(element, env, loop))
            return items
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
            iterable = node.generators[0].iter
            if _filters(node):  # `[p for p in parts if p]`: the items of `parts` that pass, in their order
                return self.items(iterable, env, loop)
            # One element per item of the iterable: a message or tool repeated in a loop.
            return [Item(node.elt, env, self.m.code(iterable), False, self.flow.unordered_source(iterable, env),
                         repeats=(node.generators[0],))]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.items(node.left, env, loop), self.items(node.right, env, loop)
            if left is None and right is None:
                return None
            return (left if left is not None else [Item(node.left, env, loop, True)]) + (
                right if right is not None else [Item(node.right, env, loop, True)]
            )
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.bound_items(node, env, loop)
        if isinstance(node, ast.Call):
            if self.m.qualified(node.func) in ("list", "tuple") and len(node.args) == 1:
                return self.items(node.args[0], env, loop)
            if isinstance(node.func, ast.Attribute):
                built = self.built_messages(node, env, loop)
                if built is not None:
                    return built
            target = self.callees.function_for(node, env)
            if target is None:
                return self.hook_items(node, env, loop)
            given = _given_back(target.returns, target.env)
            if given is not None:  # `return messages` on one path: the list as the caller gave it
                return self.items(given.node, given.env, loop)
            if self.m.enter(target.fn):
                value = target.returns[-1]
                try:
                    found = self.items(value, target.env, loop)
                finally:
                    self.m.leave(target.fn)
                if found is not None:
                    self.m.consumed.add(id(value))
                return found
        return None

    def hook_items(self, call: ast.Call, env: Env, loop: str | None) -> list[Item] | None:
        """The messages a template method's hook returns when a subclass in another module
        defines it (``messages = self.make_messages(prompt)``, callees.subclass_hook): the first
        such hook that returns a list of message dicts written out (or a name holding one that
        nothing adds to), read here as that list with each of the hook's parameters replaced by
        the argument this call gives it. A value that is neither a literal, a parameter nor an
        attribute of the object leaves it unread."""
        func = call.func
        cls = env.scope.cls
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
                and cls is not None):
            return None
        for found in self.callees.subclass_hooks(cls, func.attr):
            owner, _, scope, _ = found
            returned = scope.returns[0] if owner is not None and len(scope.returns) == 1 else None
            if isinstance(returned, ast.Name):  # `messages = [...]` then `return messages`, nothing added
                binding = owner.scopes.resolve(returned, Env(scope)) if owner is not None else None
                returned = binding.value if binding is not None and not binding.extras else None
            if not isinstance(returned, ast.List):
                continue
            given = {b.param: b.node for b in self.callees.bind(call, env, found) if b.env is env}
            items = [restated(element, given, call) for element in returned.elts]
            if all(item is not None for item in items):
                return [Item(item, env, loop) for item in items if item is not None]
        return None

    def built_messages(self, call: ast.Call, env: Env, loop: str | None) -> list[Item] | None:
        """The messages a builder object of the project holds when ``call`` returns the list it
        keeps (``return self._messages``): one for each method called on the object since it
        was made (``MessagesBuilder().add_system(prompt).add_user(question).build()``, and on the
        name that holds it) that adds a message of a fixed role to that list, its content the
        argument the call gives the method's parameter."""
        target = self.callees.function_for(call, env, foreign=True)
        kept = target.returns[0] if target is not None and len(target.returns) == 1 else None
        if not (isinstance(kept, ast.Attribute) and isinstance(kept.value, ast.Name) and kept.value.id == "self"):
            return None
        assert isinstance(call.func, ast.Attribute)
        chain: list[tuple[ast.Call, Env]] = []
        receiver, receiver_env = call.func.value, env
        for _ in range(MAX_ITEMS):
            if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
                chain.append((receiver, receiver_env))
                receiver = receiver.func.value
                continue
            binding = self.scopes.resolve(receiver, receiver_env) if isinstance(receiver, ast.Name) else None
            if binding is None:
                break
            # methods called on the name since (`builder.add_user_message(...)`, the ones the scopes record)
            chain += [(extra.value, binding.env) for extra in reversed(binding.extras)
                      if isinstance(extra.value, ast.Call) and isinstance(extra.value.func, ast.Attribute)
                      and extra.value.func.value is extra.target]
            receiver, receiver_env = binding.value, binding.env
        if not (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and chain):
            return None  # not an object the code makes here
        items: list[Item] = []
        for added, added_env in reversed(chain):
            method = self.callees.function_for(added, added_env, foreign=True, returns=False)
            if method is None:
                return None
            message = _added_message(method.fn, kept, {b.param: b for b in method.env.bindings if b.env is added_env},
                                     added)
            if message is not None:  # a method that adds nothing (`with_model(...)`) sets something else
                items.append(Item(message, added_env, loop))
        return items or None

    def bound_items(self, node: ast.Name | ast.Attribute, env: Env, loop: str | None) -> list[Item] | None:
        binding = self.scopes.resolve(node, env)
        if binding is None or self.m.binding_key(binding) in self.m.unreadable_lists or not self.m.enter(
                binding.value):
            return None
        try:
            items = self._items(binding.value, binding.env, loop)
            if items is None and isinstance(binding.value, ast.Call) and any(
                    isinstance(e.value, ast.Call) and isinstance(e.value.func, ast.Attribute)
                    and e.value.func.attr in self.m.catalogue.appenders for e in binding.extras):
                # history = ChatHistory(); history.add_user_message(...): the messages added to it
                items = [Item(binding.value, binding.env, loop, True)] if binding.value.args or binding.value.keywords \
                    else []
            if items is None:  # remembered: `M = M + M` forty times would ask 2**40 times
                self.m.unreadable_lists.add(self.m.binding_key(binding))
                return None
            for extra in binding.extras:
                if extra.value is None:
                    continue
                inner = binding.loop_of(extra)
                where = inner.text if inner is not None else loop
                sources = self.strings.added_sources(binding, extra)
                if extra.kind in ("append", "insert"):
                    # a message dict added in a loop stays a message (its role kept), its slots given the order
                    variable = bool(sources) and not _message_dict(extra.value)
                    log = Source(SourceKind.LOG_ENTRY, f"the loop `{inner.text}` (line {inner.node.lineno})",
                                 self.m.span(extra.value)) \
                        if extra.kind == "append" and inner is not None and binding.owner is None \
                        and _within(node, inner.node) else None
                    repeats = tuple(loop.node for loop in extra.loops[binding.loops:]
                                    if isinstance(loop.node, (ast.For, ast.AsyncFor)))
                    item = Item(extra.value, binding.extras_env, where, variable, sources, log, repeats)
                    if extra.kind == "insert":
                        items.insert(0, item)
                    else:
                        items.append(item)
                elif extra.kind in ("extend", "+="):
                    more = self.items(extra.value, binding.extras_env, where)
                    items.extend(more if more is not None else [Item(extra.value, binding.extras_env, where, True)])
                elif extra.kind == "shuffle":
                    return None
                elif extra.kind in (SET, ADDED):
                    changed_item(items, binding, extra)
            if len(items) > MAX_ITEMS:
                self.m.unreadable_lists.add(self.m.binding_key(binding))
                return None
            self.m.consumed.add(id(binding.value))
            return items
        finally:
            self.m.leave(binding.value)


def _within(node: ast.expr, outer: ast.stmt) -> bool:
    """Whether ``node`` lies inside ``outer`` (both of one module)."""
    end = (outer.end_lineno or outer.lineno, outer.end_col_offset or 0)
    return (outer.lineno, outer.col_offset) <= (node.lineno, node.col_offset) and \
        (node.end_lineno or node.lineno, node.end_col_offset or 0) <= end


def _role_tested(test: ast.expr, name: str) -> ast.Constant | None:
    """The role literal a test compares the ``role`` of message ``name`` with (``m["role"] ==
    "system"``, ``m.get("role") == "system"``), located at the literal; None for any other test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return None
    sides = (test.left, test.comparators[0])
    literal = next((side for side in sides if isinstance(side, ast.Constant) and isinstance(side.value, str)), None)
    read = next((side for side in sides if side is not literal), None)
    if literal is None or read is None:
        return None
    if isinstance(read, ast.Subscript):
        target, key = read.value, read.slice
    elif isinstance(read, ast.Call) and isinstance(read.func, ast.Attribute) and read.func.attr == "get" and read.args:
        target, key = read.func.value, read.args[0]
    else:
        return None
    if isinstance(target, ast.Name) and target.id == name and isinstance(key, ast.Constant) and key.value == "role":
        return literal
    return None


def _message_dict(node: ast.expr) -> bool:
    """A dict written out with a `role` key: one chat message."""
    return isinstance(node, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "role" for k in node.keys)


def _added_message(method: ast.FunctionDef | ast.AsyncFunctionDef, kept: ast.Attribute,
                   given: dict[str, Bound], at: ast.Call) -> ast.Dict | None:
    """The message a builder's method adds to the list it keeps (``self._messages.append({"role":
    "user", "content": content})``, or a typed dict built by keywords), as a message dict placed
    at the caller's call ``at``: its fixed role, and the argument the caller gives the parameter
    its content is."""
    for node in walk(method):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute)
                and node.func.attr == "append" and ast.dump(node.func.value) == ast.dump(kept)):
            continue
        added = node.args[0]
        fields = keyed_fields(added)
        role, content = fields.get("role"), fields.get("content")
        if isinstance(role, ast.Constant) and isinstance(role.value, str) and isinstance(content, ast.Name) \
                and content.id in given:
            parts: list[ast.expr | None] = [ast.copy_location(ast.Constant(text), at) for text in ("role", "content")]
            value = ast.copy_location(ast.Constant(role.value), at)
            return ast.copy_location(ast.Dict(parts, [value, given[content.id].node]), at)
        return None
    return None


def restated(element: ast.expr, given: dict[str, ast.expr], call: ast.AST) -> ast.Dict | None:
    """A message dict of another module's hook written at ``call``: its string keys and literal
    values, each parameter the hook reads as the argument ``given`` for it, and an attribute of
    the object (``self.role.text``) as the same attribute of the object the call is made on."""
    if not isinstance(element, ast.Dict):
        return None
    keys: list[ast.expr | None] = []
    values: list[ast.expr] = []
    for key, value in zip(element.keys, element.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None
        keys.append(ast.copy_location(ast.Constant(key.value), call))
        if isinstance(value, ast.Constant):
            values.append(ast.copy_location(ast.Constant(value.value), call))
        elif isinstance(value, ast.Name) and value.id in given:
            values.append(given[value.id])
        elif (held := _of_self(value, call)) is not None:
            values.append(held)
        else:
            return None
    return ast.copy_location(ast.Dict(keys, values), call)


def _of_self(value: ast.expr, call: ast.AST) -> ast.expr | None:
    """``self.role.text`` written again at ``call``; None for anything but attributes of ``self``."""
    if isinstance(value, ast.Attribute):
        inner = _of_self(value.value, call)
        return ast.copy_location(ast.Attribute(inner, value.attr, ast.Load()), call) if inner is not None else None
    if isinstance(value, ast.Name) and value.id == "self":
        return ast.copy_location(ast.Name("self", ast.Load()), call)
    return None


def _filters(node: ast.ListComp | ast.GeneratorExp) -> bool:
    """A comprehension that only filters: each element is the item itself, kept when it passes
    its conditions (an empty string left out of a prompt's parts before they are joined)."""
    generator = node.generators[0]
    return bool(generator.ifs) and not generator.is_async and isinstance(node.elt, ast.Name) \
        and isinstance(generator.target, ast.Name) and node.elt.id == generator.target.id


def _given_back(returns: list[ast.expr], env: Env) -> Bound | None:
    """The argument a function returns unchanged on one of its paths (``if compress_type is None:
    return messages``, a compression step off by default), when it never rebinds that parameter:
    what its other paths make of the list (a cut of each message) is the function's own to report,
    where it is written."""
    for value in returns:
        bound = env.bound(value.id) if isinstance(value, ast.Name) else None
        if bound is not None and bound.param in env.scope.params and not env.scope.assigns.get(bound.param):
            return bound
    return None
