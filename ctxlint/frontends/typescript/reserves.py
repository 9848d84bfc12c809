"""What a call's options say of its output limit beyond what can be read as a literal: options
whose only unread parts are spreads of what a caller passes beyond the named options (the rest
of a destructured options parameter, or a field the constructor sets to one), which holds no
limit unless every caller remembers to pass one (the Python front-end's ``reserves.py`` reads
``**kwargs`` the same way)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.syntax import enclosing
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env
from ctxlint.providers import LIMIT_KEYS


@dataclass(eq=False)
class Reserves:
    m: Module
    names: Names

    def caller_rest(self, options: Node, env: Env) -> Node | None:
        """The spread whose rest of a caller's options is the only part of ``options`` that cannot
        be read, or None when some other part is unknown (or there is no such spread)."""
        found: list[Node] = []
        if not self._known_but(options, env, found, 0) or not found:
            return None
        return found[0]

    def settings_rest(self, settings: Node, env: Env) -> Node | None:
        """The caller's rest that an object of settings named in the options (``config`` of
        ``{model, contents, config}``) is completed with (``Object.assign(config,
        this.extraParams)``), when every other part of it is read and no key set on it is a limit."""
        node = self.m.unwrap(settings)
        if node is None or node.type not in ("identifier", "shorthand_property_identifier"):
            return None
        binding = self.names.resolve(node, env)
        found: list[Node] = []
        if binding is None or binding.part is not None \
                or not self._mutations_known(self.m.code(node), node, binding.env, found, 0) \
                or not self._known_but(binding.value, binding.env, found, 1):
            return None
        return found[0] if found else None

    def mutations_known(self, options: Node, env: Env) -> bool:
        """Whether an options object passed by name is not changed out of sight before the call
        (a key set one by one that is an output limit, ``Object.assign`` of what cannot be read)."""
        node = self.m.unwrap(options)
        if node.type not in ("identifier", "shorthand_property_identifier"):  # `{..., config}` names one too
            return True
        found: list[Node] = []
        return self._mutations_known(self.m.code(node), node, env, found, 0) and not found

    def _known_but(self, node: Node, env: Env, found: list[Node], depth: int) -> bool:
        """Whether every part of the object ``node`` is read, or is a caller's rest (into ``found``)."""
        node = self.m.unwrap(node)
        if depth > 4 or node is None:
            return False
        if node.type == "identifier":
            binding = self.names.resolve(node, env)
            if binding is None or binding.extras or binding.part is not None:
                return False
            if not self._mutations_known(self.m.code(node), node, binding.env, found, depth):
                return False
            return self._known_but(binding.value, binding.env, found, depth + 1)
        if node.type != "object":
            return False
        for child in node.named_children:
            if child.type == "pair":
                if self.m.key_text(self.m.field(child, "key")) is None:
                    return False
            elif child.type == "spread_element":
                inner = child.named_children[0] if child.named_children else None
                if inner is None or not self._spread_known(inner, env, found, depth):
                    return False
            elif child.type not in ("shorthand_property_identifier", "method_definition", "comment"):
                return False
        return True

    def _spread_known(self, node: Node, env: Env, found: list[Node], depth: int) -> bool:
        node = self.m.unwrap(node)
        if node.type == "binary_expression" and self.m.code(self.m.field(node, "operator") or node) == "&&":
            right = self.m.field(node, "right")  # `...(cond && { key })`
            return right is not None and self._spread_known(right, env, found, depth)
        if node.type == "ternary_expression":
            branches = [self.m.field(node, "consequence"), self.m.field(node, "alternative")]
            return all(b is not None and self._spread_known(b, env, found, depth) for b in branches)
        if self.rest_of_caller(node, env):
            found.append(node)
            return True
        return self._known_but(node, env, found, depth + 1)

    def _mutations_known(self, name: str, use: Node, env: Env, found: list[Node], depth: int) -> bool:
        """Whether what the function does to the object ``name`` before ``use`` is known: keys set
        one by one (none an output limit) and ``Object.assign`` of known parts or a caller's rest."""
        body = env.scope.node
        for node in _walk(body, use.start_byte):
            if node.type == "assignment_expression":
                left = self.m.field(node, "left")
                if left is not None and left.type in ("member_expression", "subscript_expression") and \
                        self.m.code(self.m.field(left, "object") or left) == name:
                    key = self.names.property_key(left)
                    if key is None or key in LIMIT_KEYS:
                        return False
            elif node.type == "call_expression" and self.m.code(self.m.field(node, "function") or node) == \
                    "Object.assign":
                args = self.m.args(node)
                if args and self.m.code(args[0]) == name and not all(
                        self._spread_known(a, env, found, depth) and not self._names_limit(a) for a in args[1:]):
                    return False
        return True

    def _names_limit(self, node: Node) -> bool:
        """Whether an object literal merged in sets an output limit (``{maxOutputTokens: 800}``):
        the options are then completed with one the literal read of them does not see."""
        node = self.m.unwrap(node)
        return node is not None and node.type == "object" and any(
            self.m.key_text(self.m.field(child, "key")) in LIMIT_KEYS if child.type == "pair"
            else self.m.code(child) in LIMIT_KEYS for child in node.named_children)

    def rest_of_caller(self, node: Node, env: Env) -> bool:
        """``rest`` of ``const { a, b, ...rest } = options`` (or of a parameter pattern) where
        ``options`` is the function's parameter; ``this.rest`` when the constructor sets the field
        to such a rest."""
        node = self.m.unwrap(node)
        if node.type == "identifier":
            function = enclosing(node)
            return function is not None and self._rest_in(function, self.m.code(node))
        if node.type == "member_expression":
            obj, prop = self.m.field(node, "object"), self.m.field(node, "property")
            if obj is None or prop is None or obj.type != "this":
                return False
            constructor = self._constructor(node)
            if constructor is None:
                return False
            for assignment in _walk(constructor, constructor.end_byte):
                if assignment.type != "assignment_expression":
                    continue
                left, right = self.m.field(assignment, "left"), self.m.field(assignment, "right")
                if left is not None and right is not None and self.m.code(left) == f"this.{self.m.code(prop)}" \
                        and right.type == "identifier":
                    return self._rest_in(constructor, self.m.code(right))
        return False

    def limit_left_out(self, options: Node, env: Env) -> Node | None:
        """The name a limit key of a caller's settings is destructured into and never read
        (``const { maxOutputTokens, ...rest } = request.config``) by the function that builds the
        options (``body`` of ``const body = toBody(request)``, spread or passed as they are) or by
        the one that sends them: the limit the caller gives is taken out and dropped."""
        node = self.m.unwrap(options)
        candidates = [c.named_children[0] for c in node.named_children
                      if c.type == "spread_element" and c.named_children] if node.type == "object" else [node]
        functions = [env.scope.node]
        for candidate in candidates:
            built, built_env = self.names.deref(candidate, env)
            target = self.names.function_for(built, built_env) if built.type == "call_expression" else None
            if target is not None:
                functions.append(target[0])
        for function in functions:
            if function.type not in FUNCTIONS:
                continue
            for pattern in _walk(function, function.end_byte):
                if pattern.type != "object_pattern" or not self._from_parameter(pattern, function) \
                        or not any(c.type == "rest_pattern" for c in pattern.named_children):
                    continue
                for child in pattern.named_children:
                    name = child if child.type == "shorthand_property_identifier_pattern" else None
                    if name is not None and self.m.code(name) in LIMIT_KEYS and not self._limit_named(function, name):
                        return name
        return None

    def _limit_named(self, function: Node, name: Node) -> bool:
        """Whether ``function`` names an output limit anywhere but at ``name``: the variable read,
        or a limit set by another key (``max_tokens: options.maxOutputTokens``)."""
        return any(n.type in _NAMES and n.start_byte != name.start_byte and self.m.code(n) in LIMIT_KEYS
                   for n in _walk(function, function.end_byte, into_functions=True))

    def _from_parameter(self, pattern: Node, function: Node) -> bool:
        """Whether an object pattern takes apart one of ``function``'s parameters (or a member
        of one: ``request.config ?? {}``)."""
        holder = pattern.parent
        if holder is not None and holder.type in ("required_parameter", "optional_parameter"):
            return True
        params = self.m.field(function, "parameters")
        names = {self.m.code(p) for p in _identifiers(params)} if params is not None else set()
        value = self.m.unwrap(self.m.field(holder, "value")) if holder is not None \
            and holder.type == "variable_declarator" else None
        while value is not None and value.type == "binary_expression":  # `options ?? {}`
            value = self.m.unwrap(self.m.field(value, "left"))
        while value is not None and value.type == "member_expression":  # `request.config`
            value = self.m.unwrap(self.m.field(value, "object"))
        return value is not None and value.type == "identifier" and (
            self.m.code(value) in names or self._from_request_body(self.m.code(value), function, names))

    def _from_request_body(self, name: str, function: Node, params: Collection[str]) -> bool:
        """Whether ``name`` is taken from the JSON body of the request a handler is given
        (``const { messages, config } = await req.json()``): what its caller, the browser, sends."""
        for declarator in _walk(function, function.end_byte):
            if declarator.type != "variable_declarator":
                continue
            pattern, value = self.m.field(declarator, "name"), self.m.unwrap(self.m.field(declarator, "value"))
            if pattern is None or pattern.type != "object_pattern" or not any(
                    c.type == "shorthand_property_identifier_pattern" and self.m.code(c) == name
                    for c in pattern.named_children):
                continue
            if value is not None and value.type == "await_expression" and value.named_children:
                value = self.m.unwrap(value.named_children[0])
            called = self.m.field(value, "function") if value is not None and value.type == "call_expression" \
                else None
            if called is not None and called.type == "member_expression" and not self.m.args(value) \
                    and self.m.code(self.m.field(called, "property") or called) == "json" \
                    and self.m.code(self.m.field(called, "object") or called) in params:
                return True
        return False

    def limit_withheld(self, key: str, value: Node) -> tuple[str, str] | None:
        """The limit's key ``key`` given no limit where it is written: ``null`` or ``undefined``, or
        a choice between one of them and a number by the model or provider (``model === "gpt-4o" ?
        4096 : null``), which sends none to every other model: the kind, and what it says. A name
        is not followed (a field undefined by default may be set only when given)."""
        node = self.m.unwrap(value)
        if _absent(self.m, node):
            return "given-none", f"`{key}` is given `{self.m.code(node)}`, which sends no limit"
        if node is None or node.type != "ternary_expression":
            return None
        test, kept, other = (self.m.unwrap(self.m.field(node, f))
                             for f in ("condition", "consequence", "alternative"))
        if test is None or not _compares_with_text(self.m, test):
            return None
        if _absent(self.m, other) and not _absent(self.m, kept):
            return "set-for-some", f"`{key}` is set only when `{self.m.code(test)}`"
        if _absent(self.m, kept) and not _absent(self.m, other):
            return "set-for-some", f"`{key}` is set only when not `{self.m.code(test)}`"
        return None

    def spread_for_some(self, key: str, pair: Node) -> tuple[str, str] | None:
        """The limit's key given by a spread on a choice of models or providers in one case only
        (``...(model === "gpt-4o" ? { maxOutputTokens: 4096 } : {})``, ``...(provider === "anthropic"
        && { maxTokens: 4096 })``): every other model is sent none."""
        found = self.m.given_on.get(pair.id)
        if found is None or not _compares_with_text(self.m, found[0]):
            return None
        return "set-for-some", f"`{key}` is set only when {'' if found[1] else 'not '}`{self.m.code(found[0])}`"

    def unset_by_default(self, value: Node) -> Node | None:
        """The constructor's parameter (or option destructured from one) that the field a limit is
        read from (``maxOutputTokens: this.maxOutputTokens``) is set to, when it has no default
        and the class gives the field none and sets it nowhere else: the limit is undefined, and
        the request has none, unless every caller passes it."""
        node = self.m.unwrap(value)
        if node.type != "member_expression":
            return None
        obj, prop = self.m.field(node, "object"), self.m.field(node, "property")
        constructor = self._constructor(node) if obj is not None and obj.type == "this" else None
        if constructor is None or prop is None or constructor.parent is None:
            return None
        field = f"this.{self.m.code(prop)}"
        assigned = [a for a in _walk(constructor.parent, constructor.parent.end_byte, into_functions=True)
                    if a.type in ("assignment_expression", "augmented_assignment_expression")
                    and self.m.code(self.m.field(a, "left") or a) == field]
        declared = [d for d in constructor.parent.named_children if d.type == "public_field_definition"
                    and self.m.code(self.m.field(d, "name") or d) == self.m.code(prop)]
        if len(assigned) != 1 or self.m.field(assigned[0], "left") is None or any(
                self.m.field(d, "value") is not None for d in declared):
            return None
        right = self.m.unwrap(self.m.field(assigned[0], "right"))
        if right is None or right.type != "identifier" or self._built_with(constructor.parent.parent,
                                                                           self.m.code(right)):
            return None
        return self._without_default(constructor, self.m.code(right))

    def _built_with(self, cls: Node | None, option: str) -> bool:
        """Whether the module builds the class with the option (``new Judge({maxOutputTokens: 800})``)."""
        name = self.m.field(cls, "name") if cls is not None else None
        if name is None:
            return True  # a class expression: who builds it is not known
        return any(n.type == "new_expression" and self.m.code(self.m.field(n, "constructor") or n) == self.m.code(name)
                   and option in self.m.code(n) for n in _walk(self.m.root, self.m.root.end_byte, into_functions=True))

    def _without_default(self, function: Node, name: str) -> Node | None:
        """Where ``function`` takes ``name`` with no default: an optional parameter, or a key
        destructured from a parameter (``const { maxOutputTokens, ...rest } = options``)."""
        params = self.m.field(function, "parameters")
        for param in params.named_children if params is not None else ():
            pattern = self.m.field(param, "pattern")
            if param.type == "optional_parameter" and pattern is not None and self.m.code(pattern) == name \
                    and self.m.field(param, "value") is None:
                return pattern
        for pattern in _walk(function, function.end_byte):
            if pattern.type == "object_pattern" and self._from_parameter(pattern, function):
                for child in pattern.named_children:
                    if child.type == "shorthand_property_identifier_pattern" and self.m.code(child) == name:
                        return child
        return None

    def _constructor(self, node: Node) -> Node | None:
        body = enclosing(node, ("class_body",))
        if body is None:
            return None
        return next((c for c in body.named_children if c.type == "method_definition"
                     and self.m.code(self.m.field(c, "name") or c) == "constructor"), None)

    def _rest_in(self, function: Node, name: str) -> bool:
        for node in _walk(function, function.end_byte):
            if node.type != "rest_pattern" or node.parent is None or node.parent.type != "object_pattern":
                continue
            if not any(c.type == "identifier" and self.m.code(c) == name for c in node.named_children):
                continue
            holder = node.parent.parent
            if holder is not None and holder.type in ("required_parameter", "optional_parameter",
                                                      "variable_declarator"):
                return self._from_parameter(node.parent, function)
        return False


# The nodes that can name an output limit: a variable, a property, a key, a string's text.
_NAMES = ("identifier", "property_identifier", "shorthand_property_identifier", "string_fragment")


def _walk(root: Node, before: int, into_functions: bool = False):
    """The nodes of ``root`` that start before ``before``, not inside nested functions unless
    asked."""
    stack = list(reversed(root.named_children))
    while stack:
        node = stack.pop()
        if node.start_byte >= before:
            continue
        yield node
        if into_functions or (node.type not in FUNCTIONS and node.type != "class_declaration"):
            stack.extend(reversed(node.named_children))


def _identifiers(params: Node) -> list[Node]:
    found = []
    for param in params.named_children:
        pattern = param.child_by_field_name("pattern") or param
        if pattern.type == "assignment_pattern":
            pattern = pattern.child_by_field_name("left") or pattern
        if pattern.type == "identifier":
            found.append(pattern)
    return found





def _absent(m: Module, node: Node | None) -> bool:
    """``null`` or ``undefined``: a key written with no value the API reads."""
    return node is not None and (node.type in ("null", "undefined") or (node.type == "identifier"
                                                                         and m.code(node) == "undefined"))


def _compares_with_text(m: Module, test: Node) -> bool:
    """Whether a condition compares a value with a string written there (``model === "gpt-4o"``,
    ``model.startsWith("o1")``, ``name.includes("claude")``): a choice of models or providers."""
    stack = [test]
    while stack:
        node = stack.pop()
        if node.type == "binary_expression" and any(m.code(c) in ("===", "==") for c in node.children) \
                and any(c.type == "string" for c in node.named_children):
            return True
        if node.type == "call_expression":
            callee = m.field(node, "function")
            args = m.args(node)
            if callee is not None and callee.type == "member_expression" and m.code(
                    m.field(callee, "property")) in ("startsWith", "endsWith", "includes") \
                    and args and args[0].type == "string":
                return True
        stack.extend(node.named_children)
    return False
