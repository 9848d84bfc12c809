"""Chat requests posted over HTTP with no SDK: ``fetch(url, {method: "POST", body:
JSON.stringify(payload)})``, ``axios.post(url, payload)`` (or on an instance ``axios.create``
built), ``got.post(url, {json: payload})``; the HTTP calls are the catalogue's ``posts``.

A posted body whose keys make it a chat request (``providers.chat_payload``, the test the Python
front-end applies to ``requests.post(url, json=body)``) makes the call a request of the API shape
the keys say (``providers.posted_shape``), read by ``Sinks`` as an SDK call's options are. The
body is followed through names, spreads and ``JSON.stringify``, and through one of the module's
functions that posts what it is given (``fetchChatResponse(url, body)`` called with the body):
the request is then the call that hands the body over.

A body posted to a path of the app's own (``fetch("/api/chat", ...)``: a relative URL) is not a
request of a model: the app's server route sends that, with its own settings, unless the route
forwards the body to the model (routes.py: a proxy route). An absolute URL,
a configured base (``process.env.OLLAMA_URL + "/api/chat"``) or a URL handed in is a provider's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ctxlint.endpoints import CappedEndpoint, capped_endpoint
from ctxlint.frameworks.typescript import TsPost, TsSink
from ctxlint.frontends.typescript.destinations import reached_urls
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.routes import forwarding_route
from ctxlint.frontends.typescript.syntax import enclosing, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, Function, Scope
from ctxlint.providers import LIMIT_KEYS, chat_payload, posted_shape

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.classes import Classes

FRAMEWORK = "http-clients"
# A posted body: the URL (None when the call gives none) and the body, each with its environment.
Post = tuple[Node | None, Env, Node, Env]
# Where a function posts a parameter as the body: its position, and the URL's (a parameter's
# position, or the URL it posts to with its environment, or None when the call gives none).
Relay = tuple[int, int | tuple[Node, Env] | None]


@dataclass(eq=False)
class Posts:
    """Which calls post a chat request, and its body."""

    m: Module
    names: Names
    # The module's classes, to find a posting method a class inherits (set by the analyzer).
    classes: Classes | None = None
    # A function of the module -> the positions of the parameters it posts as a body, each with
    # the position of the URL parameter (or the URL it posts to, with its environment).
    _relays: dict[int, list[Relay]] = field(default_factory=dict)
    # The module's posts, indexed once: by call, and by the scope they are made in.
    _posts: dict[int, Post] | None = None
    _by_scope: dict[int, list[Post]] = field(default_factory=dict)
    # Another module's posts, read once for the methods this module's classes inherit from it.
    _others: dict[int, Posts] = field(default_factory=dict)
    _scoped_calls: dict[int, list[tuple[Node, Scope]]] | None = None
    # The URL each posting call sends its body to, as ``request`` found it.
    _urls: dict[int, tuple[Node, Env]] = field(default_factory=dict)
    # A call handing its body to a function of another module that posts it to a URL of its own:
    # the provider that caps the answer itself which that URL names, read in that module.
    _remote_caps: dict[int, CappedEndpoint | None] = field(default_factory=dict)

    def index(self) -> dict[int, Post]:
        """The module's posts by call (none read in a module whose text makes no posting call)."""
        if self._posts is None:
            self._posts = {}
            posting = self.m.ts.posting
            if posting is not None and posting.search(self.m.src.text):
                for call, scope in self.m.calls:
                    found = self.posted(call, Env(scope)) if call.type == "call_expression" else None
                    if found is not None:
                        self._posts[call.id] = found
                        self._by_scope.setdefault(id(scope), []).append(found)
        return self._posts

    def request(self, call: Node, env: Env) -> tuple[TsSink, Node, Env] | None:
        """The sink ``call`` is when it posts a chat request, with the body it posts."""
        posts = self.index()
        if call.type != "call_expression":
            return None
        # with no posting call of its own, the module may still hand a body to one it inherits
        found = posts.get(call.id) or self.relayed(call, env, inherited_only=not posts)
        if found is None:
            return None
        url, url_env, body, body_env = found
        if url is not None:
            self._urls[call.id] = url, url_env
        if url is not None and self.own_route(url, url_env):
            # the app's own route sends the request: the body posted is its settings only where
            # the route forwards it to the model (a proxy route)
            routed = forwarding_route(self.m, self.names, url, url_env)
            if routed is None:
                return None
            body, body_env = self.serialised(body, body_env)
            return TsSink(FRAMEWORK, "post of a chat request", routed.shape), body, body_env
        body, body_env = self.serialised(body, body_env)
        keys = self.names.entries(body, body_env)
        if keys is None or not chat_payload(keys):
            return None
        return TsSink(FRAMEWORK, "post of a chat request", posted_shape(keys)), body, body_env

    def capped_by(self, call: Node) -> CappedEndpoint | None:
        """The provider that caps the answer itself (``ctxlint.endpoints``) which every absolute URL
        the call's request may be posted to names."""
        if call.id in self._remote_caps:
            return self._remote_caps[call.id]
        found = self._urls.get(call.id)
        return capped_endpoint(reached_urls(self.m, self.names, *found)) if found is not None else None

    def posted(self, call: Node, env: Env) -> Post | None:
        """The URL and body of a call of one of the catalogue's HTTP clients that posts one."""
        callee = self.m.callee(call)
        if callee is None:
            return None
        found = self.client_post(callee, env)
        if found is None:
            return None
        post, instance = found
        args = self.m.args(call)
        if len(args) <= post.argument:
            return None
        body, body_env = args[post.argument], env
        if post.key is not None:
            entries = self.names.entries(body, env)
            if entries is None or post.key not in entries:
                return None
            body, body_env, _ = entries[post.key]
        # An instance's path is under the base URL it was built with, not the app's own.
        return args[0] if post.argument > 0 and not instance else None, env, body, body_env

    def client_post(self, callee: Node, env: Env) -> tuple[TsPost, bool] | None:
        """The catalogue's post a callee is, and whether it is made on an instance a client built:
        ``fetch`` (global, imported from a fetch package, or the fetch function handed around by one
        of its names), or a posting method of a client."""
        ts = self.m.ts
        if callee.type == "identifier":
            name = self.m.code(callee)
            source = self.m.imports.get(name, "")
            module = source.split(".")[0]
            # a `fetch` a module of the tree exports (`import { fetch } from "@/app/utils/stream"`) is the
            # app's own wrapper of the platform's, called with its arguments
            own = bool(source) and self.m.project.is_local(self.m.path, source.rpartition(".")[0])
            return next(((p, False) for p in ts.posts if p.functions and name in ts.fetchers
                         and (not module or module in p.modules or own)), None)
        if callee.type != "member_expression":
            return None
        prop = self.m.field(callee, "property")
        name = self.m.code(prop) if prop is not None else ""
        if name in ts.fetchers:  # `this.fetch(url, init)`, `window.fetch(url, init)`
            return next(((p, False) for p in ts.posts if p.functions), None)
        receiver = self.m.unwrap(self.m.field(callee, "object"))
        if receiver is None:
            return None
        for post in ts.posts:
            if name in post.methods:
                if receiver.type == "identifier" and self._client_module(self.m, self.m.code(receiver), post):
                    return post, False
                if self.instance_of(receiver, env, post):
                    return post, True
        return None

    def instance_of(self, receiver: Node, env: Env, post: TsPost) -> bool:
        """Whether ``receiver`` is an instance one of the post's factories built (``axios.create(...)``,
        here, in the class's constructor, or in a module this one imports it from)."""
        module, built = self.m, self.names.deref(receiver, env)[0]
        if built.type == "member_expression" and self.m.unwrap(self.m.field(built, "object")).type == "this":
            built = self._field_value(built)
        elif built.type == "identifier":
            found = self.names.imported_constant(self.m.code(built))
            if found is not None:
                module, built = found[0].m, found[0].m.unwrap(found[1])
        if built is None or built.type != "call_expression":
            return False
        chain = module.chain(module.unwrap(module.field(built, "function")))
        return len(chain) == 2 and chain[1] in post.factories and self._client_module(module, chain[0], post)

    @staticmethod
    def _client_module(m: Module, name: str, post: TsPost) -> bool:
        imported = m.imports.get(name)
        return imported is not None and imported.split(".")[0] in post.clients

    def _field_value(self, member: Node) -> Node | None:
        """What the class around ``this.name`` sets the field to: its initialiser, or the one
        assignment ``this.name = value`` in the class (a client built in the constructor)."""
        body = enclosing(member, ("class_body",))
        prop = self.m.field(member, "property")
        if body is None or prop is None:
            return None
        name = self.m.code(prop)
        values = [self.m.field(c, "value") for c in body.named_children
                  if c.type == "public_field_definition" and self.m.code(self.m.field(c, "name") or c) == name]
        values += [self.m.field(n, "right") for n in walk(body) if n.type == "assignment_expression"
                   and self.m.code(self.m.field(n, "left") or n) == f"this.{name}"]
        values = [v for v in values if v is not None]
        return self.m.unwrap(values[0]) if len(values) == 1 else None

    def relayed(self, call: Node, env: Env, inherited_only: bool = False) -> Post | None:
        """The URL and body a call hands to one of the module's functions that posts them (with
        ``inherited_only``, only to a method the class inherits)."""
        callee = self.m.callee(call)
        function = None
        if callee is not None and callee.type == "identifier":
            relays = self.callee_relays(call, env.scope, imported_only=inherited_only)
            return self._relayed_by(call, env, relays) if relays else None
        if callee is not None and callee.type == "member_expression":
            function = None if inherited_only else self.names.own_method(callee)
            if function is None:  # `this.post(url, headers, body)` of a base class of the tree
                inherited = self.inherited_relays(callee)
                return self._relayed_by(call, env, inherited) if inherited is not None else None
        if function is None:
            return None
        return self._relayed_by(call, env, self.relays(function))

    def inherited_relays(self, callee: Node) -> list[Relay] | None:
        """Where ``this.name`` posts a parameter as the body, when the class around the call inherits
        ``name`` from a class of the tree (in another module, read there) that posts it."""
        receiver, prop = self.m.unwrap(self.m.field(callee, "object")), self.m.field(callee, "property")
        if receiver is None or receiver.type != "this" or prop is None or self.classes is None:
            return None  # (asked of every call: the class around it is looked for only for `this.name`)
        declaration = enclosing(callee, ("class_declaration", "abstract_class_declaration", "class"))
        if declaration is None:
            return None
        base = self.classes.base_of(declaration)
        found = base[0].method(base[1], self.m.code(prop)) if base is not None else None
        if found is None:
            return None
        classes, _, method = found
        function = classes.m.function_of(method)
        if function is None:
            return None
        posts = self if classes.m is self.m else self._others.setdefault(id(classes.m),
                                                                            Posts(classes.m, classes.names))
        posts.index()
        found_relays = posts.relays(function)
        # a URL the base posts to is of its module: only one the caller hands over is read here
        return [(at, url) for at, url in found_relays if isinstance(url, int)]

    def _relayed_by(self, call: Node, env: Env, relays: list[Relay]) \
            -> Post | None:
        args = self.m.args(call)
        for at, url in relays:
            if at >= len(args):
                continue
            if isinstance(url, int):  # the URL is the caller's too
                return (args[url] if url < len(args) else None), env, args[at], env
            url_node, url_env = url if url is not None else (None, env)
            return url_node, url_env, args[at], env
        return None

    def relays(self, function: Function) -> list[Relay]:
        """Where a function of the module posts a parameter as the body, and the URL it posts to."""
        known = self._relays.get(function.node.id)
        if known is not None:
            return known
        found: list[Relay] = []
        self._relays[function.node.id] = found
        scope = function.scope
        for url, url_env, body, body_env in self._by_scope.get(id(scope), ()):
            body = self.serialised(body, body_env)[0]
            at = self._parameter(body, scope)
            if at is None:
                continue
            place = self._parameter(url, scope) if url is not None else None
            found.append((at, place if place is not None else (url, url_env) if url is not None else None))
        # a call that hands a parameter on to a function that posts it (`chatApi(path, headers,
        # payload)` in `stream(path, payload, ...)`): the function relays it too
        for call, call_scope in self._calls_by_scope().get(id(scope), ()) if not found else ():
            handed = self._handed_on(call, call_scope, scope)
            if handed:
                found.extend(handed)
                break
        return found

    def _handed_on(self, call: Node, call_scope: Scope, scope: Scope) -> list[Relay]:
        """Where ``call`` hands a parameter of ``scope`` on to a function that posts it as the body."""
        relays = self.callee_relays(call, call_scope, imported_only=False)
        args = self.m.args(call)
        handed: list[Relay] = []
        for at, url in relays:
            param = self._parameter(args[at], scope) if at < len(args) else None
            if param is None:
                continue
            if isinstance(url, int):
                place = self._parameter(args[url], scope) if url < len(args) else None
                handed.append((param, place if place is not None else
                               (args[url], Env(call_scope)) if url < len(args) else None))
            else:
                handed.append((param, url))
        return handed

    def callee_relays(self, call: Node, scope: Scope, imported_only: bool) -> list[Relay]:
        """Where the function a call by plain name runs posts a parameter as the body: one of the
        module's (unless ``imported_only``), or one a module of the tree exports, read there. Of
        another module's, a URL the caller hands over is read here; one that module writes itself
        (``fetch("https://api.together.xyz/v1/chat/completions", {body: JSON.stringify(payload)})``
        in ``export async function TogetherAIStream(payload)``) is read there: the app's own route
        relays nothing, a provider's URL leaves the caller's request with no URL of its own."""
        name = self.m.code(self.m.callee(call))
        if not imported_only:
            around: Scope | None = scope
            while around is not None:
                if name in around.functions:
                    return self.relays(around.functions[name])
                around = around.parent
        # (asked of every call by plain name: the cheap tests first, and a module is read for an
        # imported function only when a chat body is handed to it)
        source = self.m.imports.get(name, "")
        module = source.rpartition(".")[0] if "." in source.lstrip("./") else ""  # as Names.imported_name splits it
        args = self.m.args(call)
        if not args or not module or not self.m.project.is_local(self.m.path, module) \
                or not self._chat_argument(args, Env(scope)):
            return []
        found = self.names.project_function(call, scope)
        owner, function = found if found is not None else (None, None)
        if owner is None or function is None:
            return []
        other = owner.sinks.posts
        other.index()
        relays: list[Relay] = []
        for at, url in other.relays(function):
            if isinstance(url, int) or url is None:
                relays.append((at, url))
            elif not other.own_route(*url):
                self._remote_caps[call.id] = capped_endpoint(reached_urls(other.m, other.names, *url))
                relays.append((at, None))
        return relays

    def _chat_argument(self, args: list[Node], env: Env) -> bool:
        """Whether an argument is a body with a chat request's keys."""
        for arg in args:
            body, body_env = self.serialised(arg, env)
            keys = self.names.entries(body, body_env)
            if keys is not None and chat_payload(keys):
                return True
        return False

    def _calls_by_scope(self) -> dict[int, list[tuple[Node, Scope]]]:
        if self._scoped_calls is None:
            self._scoped_calls = {}
            for call, scope in self.m.calls:
                if call.type == "call_expression":
                    self._scoped_calls.setdefault(id(scope), []).append((call, scope))
        return self._scoped_calls

    def _parameter(self, node: Node, scope: Scope) -> int | None:
        """The position of the parameter ``node`` is, or that an object spreads with keys of its
        own that set no output limit (``{...body, parallel_tool_calls: false}``)."""
        node = self.m.unwrap(node)
        if node.type == "object":
            members = [c for c in node.named_children if c.type != "comment"]
            spreads = [c for c in members if c.type == "spread_element" and c.named_children]
            if len(spreads) != 1 or any(c.type != "pair" or self.m.key_text(self.m.field(c, "key")) in LIMIT_KEYS
                                        for c in members if c is not spreads[0]):
                return None
            node = self.m.unwrap(spreads[0].named_children[0])
        if node.type != "identifier":
            return None
        name = self.m.code(node)
        if name not in scope.positional or name in scope.assigns:
            return None
        return scope.positional.index(name)

    def serialised(self, node: Node, env: Env) -> tuple[Node, Env]:
        """The value ``JSON.stringify(value)`` serialises (through a name it is kept in)."""
        found, found_env = self.names.deref(node, env)
        function = self.m.field(found, "function") if found.type == "call_expression" else None
        if function is not None and self.m.code(function) == "JSON.stringify":
            args = self.m.args(found)
            if args:
                return args[0], found_env
        return node, env

    def own_route(self, url: Node, env: Env) -> bool:
        """Whether the URL is a path of the app's own (``"/api/chat"``, `` `/api/${route}` ``)."""
        leading = self._leading(url, env, 0)
        return leading is not None and leading.startswith("/") and not leading.startswith("//")

    def _leading(self, node: Node, env: Env, depth: int) -> str | None:
        """The static text a URL starts with, as far as the module shows it."""
        if depth > 4:
            return None
        node, env = self.names.deref(node, env)
        if node.type == "string":
            return self.m.string_value(node)
        if node.type == "template_string":
            text = self.m.code(node)[1:]
            return text.split("${", 1)[0]
        if node.type == "binary_expression" and self.m.code(self.m.field(node, "operator") or node) == "+":
            left = self.m.field(node, "left")
            return self._leading(left, env, depth + 1) if left is not None else None
        callee = self.m.unwrap(self.m.field(node, "function")) if node.type == "call_expression" else None
        if callee is not None and callee.type == "member_expression" and self.m.code(self.m.field(callee, "property")
                                                                                     or callee) == "concat":
            # `"".concat("/", "v1/chat/completions")`, as a compiler writes a template literal
            head = self._leading(self.m.field(callee, "object"), env, depth + 1)
            args = self.m.args(node)
            return self._leading(args[0], env, depth + 1) if head == "" and args else head
        return None
