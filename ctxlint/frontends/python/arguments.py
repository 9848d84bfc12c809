"""A call's arguments as the catalogue's argument specs name them.

``Arg`` specs say where a part of a request is given: a keyword, a position, a key of a dict
argument, a JSON-encoded body, or a call chained on the receiver (``.with_config(...)``). This
component finds the value each one points at, with what ``**`` spreads add, for the sinks and
for every component that reads a call through the catalogue.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from ctxlint.frameworks import Arg, Sink
from ctxlint.frontends.python.flow import Entry
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.nonefields import none_by_default
from ctxlint.frontends.python.spreads import Step
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, OutputLimit
from ctxlint.providers import NOT_TEXT_KEYS, chat_payload, not_text_endpoint

# The functions that hand back their second argument unchanged, retyped for a type checker.
_CASTS = frozenset({"cast", "typing.cast", "typing_extensions.cast"})


@dataclass
class CallArgs:
    """A call's arguments: positional ones (before any ``*args``), keywords (with what a
    ``**dict`` the code shows adds), and whether some are hidden (``*args``, ``**options``)."""

    positional: list[ast.expr]
    keywords: dict[str, Entry]
    opaque: bool
    # `**settings` spreads that hold only what a caller passes, empty by default (a parameter
    # defaulting to None or `{}`, kept as `self.settings = dict(settings or {})`): with no
    # other hidden argument, the call sends no limit unless its caller gives one. With the
    # kind of evidence of each (spreads.py).
    empty_by_default: tuple[Step, ...] = ()
    # the dict a caller gives a helper that posts it as its body (``self._post(request_body)``)
    posted: Entry | None = None



class Arguments(Component):
    def of(self, call: ast.Call, env: Env) -> CallArgs:
        positional = []
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                break
            positional.append(self.uncast(arg))
        opaque = len(positional) < len(call.args)
        keywords: dict[str, Entry] = {k.arg: (self.uncast(k.value), env, k) for k in call.keywords
                                      if k.arg is not None}
        defaults: list[Step] = []
        for keyword in call.keywords:
            if keyword.arg is None:
                value = self.uncast(keyword.value)
                entries, empty = self.spreads.entries(value, env)
                if entries is None:
                    opaque = True
                    for key, entry in self.containers.visible_entries(value, env).items():
                        keywords.setdefault(key, entry)
                else:
                    defaults += empty
                    for key, entry in entries.items():
                        keywords.setdefault(key, entry)
        return CallArgs(positional, keywords, opaque, tuple(defaults))

    def uncast(self, node: ast.expr) -> ast.expr:
        """The value of ``typing.cast(T, value)``, which only retypes it for a type checker
        (``config=cast(GenerateContentConfigDict, config)``): what is sent is the value."""
        while isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords \
                and self.m.qualified(node.func) in _CASTS:
            node = node.args[1]
        return node

    def find(self, arg: Arg, call: ast.Call, env: Env, given: CallArgs | None = None) -> Entry | None:
        """Where ``arg`` is given in ``call``: the value, its env, and the place that sets it."""
        if arg.method is not None:
            for inner, inner_env in self.calls.receiver_calls(call.func, env):
                if isinstance(inner.func, ast.Attribute) and inner.func.attr == arg.method:
                    return self.find(Arg(arg.keywords, arg.position, arg.key, arg.json), inner, inner_env)
            return None
        given = given if given is not None else self.of(call, env)
        entry: Entry | None = next((given.keywords[k] for k in arg.keywords if k in given.keywords), None)
        if entry is None and arg.position is not None and arg.position < len(given.positional):
            node = given.positional[arg.position]
            entry = (node, env, node)
        if entry is not None and arg.json:
            entry = self.json_value(entry)
        if entry is not None and any("." in k for k in arg.key):
            return self.along_paths(entry, arg.key)
        if entry is not None and arg.key:
            members = self.members(entry[0], entry[1])
            entry = next((members[k] for k in arg.key if members and k in members), None)
        return entry

    def along_paths(self, entry: Entry, paths: tuple[str, ...]) -> Entry | None:
        """The member the first of ``paths`` that the value holds names (``model_list[].
        litellm_params.max_tokens``: in every item of the list); the value itself when the code
        does not show some container on the way, which may hold it; None when none does."""
        unseen = False
        entry = self.default_settings(entry)
        for path in paths:
            found, hidden = self.along(entry, path.split("."))
            if found is not None:
                return found
            unseen = unseen or hidden
        return entry if unseen else None

    def default_settings(self, entry: Entry) -> Entry:
        """The settings the code falls back on when the user's own are unset (``config=self.
        llm_config or default_config(name)`` of a field None by default): what a request is sent
        with unless someone configures otherwise, so a limit it lacks is lacking by default."""
        node, env = self.scopes.deref(entry[0], entry[1])
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) \
                and all(none_by_default(self.m, value, env) for value in node.values[:-1]):
            return node.values[-1], env, entry[2]
        return entry

    def along(self, entry: Entry, steps: list[str]) -> tuple[Entry | None, bool]:
        """The member at the end of ``steps``, or None and whether a container on the way is one
        the code does not show."""
        members = self.containers.dict_entries(entry[0], entry[1], returned=True) \
            or self.members(entry[0], entry[1])
        name = steps[0].removesuffix("[]")
        if members is None or name not in members:
            return None, members is None
        member = members[name]
        if len(steps) == 1:
            return member, False
        if not steps[0].endswith("[]"):
            return self.along(member, steps[1:])
        items = self.containers.items(member[0], member[1])
        if not items or any(item.variable for item in items):
            return None, True
        found = [self.along((item.node, item.env, item.node), steps[1:]) for item in items]
        if any(f is None and not hidden for f, hidden in found):  # a deployment without it: requests routed there
            return None, False
        if any(f is None for f, _ in found):
            return None, True
        return found[0]

    def settings_built(self, specs: tuple[Arg, ...], call: ast.Call, env: Env,
                       given: CallArgs | None) -> OutputLimit | Evidence | None:
        """The settings object a limit belongs in, where the function builds it (``config =
        types.GenerateContentConfig(...)`` given as ``config=config``): the limit set on it
        afterwards (``config.max_output_tokens = 800``), or else the place to set it."""
        for spec in specs:
            holder = self.find(replace(spec, key=()), call, env, given) if spec.key and not spec.json else None
            if holder is None or not isinstance(holder[0], ast.Name):
                continue
            binding = self.scopes.resolve(holder[0], env)
            if binding is None or binding.owner is not None or not isinstance(binding.value, ast.Call):
                continue
            for node in ast.walk(env.scope.node):
                if isinstance(node, ast.Assign) and binding.value.lineno < node.lineno < call.lineno and any(
                        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                        and t.value.id == holder[0].id and t.attr in spec.key for t in node.targets):
                    ok, value = self.flow.literal(node.value, env)
                    number = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
                    return OutputLimit(spec.key[0], number, self.m.span(node))
            return Evidence(EvidenceKind.FLOW, f"`{holder[0].id}` is built here with no `{spec.key[0]}`",
                            self.m.span(binding.value))
        return None

    def body(self, node: ast.expr, env: Env) -> CallArgs | None:
        """The keys of a dict posted as a chat request's body, or None when it is not one."""
        keys, steps = self.spreads.entries(node, env)
        if keys is None or not chat_payload(keys):
            return None
        return CallArgs([], keys, False, tuple(steps), (node, env, node))

    def posted_parameter(self, call: ast.Call, env: Env, sink: Sink) -> str | None:
        """The parameter of the enclosing function that ``call`` posts as its whole body
        (``session.post(url, json=payload)`` in ``def _request_api(self, path, payload)``)."""
        for spec in sink.payload:
            entry = self.find(spec, call, env)
            if entry is not None and isinstance(entry[0], ast.Name) and entry[0].id in env.scope.params \
                    and env.bound(entry[0].id) is None and self.scopes.resolve(entry[0], env) is None:
                return entry[0].id
        # `requests.request(method, url, **kwargs)` in `def _make_request(self, endpoint, **kwargs)`: the
        # body is the `json=` its callers give, handed on whole
        fn = env.scope.node
        handed = fn.args.kwarg.arg if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            and fn.args.kwarg is not None else None
        if handed is not None and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == handed
                                      for k in call.keywords):
            return next((spec.keywords[0] for spec in sink.payload if spec.keywords and not spec.json
                         and not spec.key and spec.keywords[0] not in env.scope.params), None)
        return None

    def payload(self, call: ast.Call, env: Env, specs: tuple[Arg, ...]) -> CallArgs | None:
        """The keys of the body a call sends (``requests.post(url, json=payload)``) as its
        arguments, when the body is a chat request; None when it is not or cannot be read."""
        given = self.of(call, env)
        for spec in specs:
            entry = self.find(spec, call, env, given)
            if entry is None:
                continue
            keys, steps = self.spreads.entries(entry[0], entry[1])
            if keys is None or not (chat_payload(keys) or self.completion_endpoint(call, env, keys)) \
                    or not_text_endpoint(self.url_text(call, env)):
                return None
            return CallArgs([], keys, False, tuple(steps))
        return None

    def url_text(self, call: ast.Call, env: Env) -> str:
        """The static text of the URL a call posts to (its first argument or ``url=``), through
        the names it is built from: ``base + "/v1/images/generations"``, ``f"{root}/cachedContents"``."""
        url = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "url"), None)
        pieces: list[str] = []
        pending = [(url, env, 0)] if url is not None else []
        while pending:
            node, node_env, depth = pending.pop()
            node, node_env = self.scopes.deref(node, node_env)
            for part in ast.walk(node):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    pieces.append(part.value)
                elif isinstance(part, ast.Name) and part is not node and depth < 2:
                    pending.append((part, node_env, depth + 1))
        return " ".join(pieces)

    def completion_endpoint(self, call: ast.Call, env: Env, keys: dict[str, Entry]) -> bool:
        """Whether a body of messages alone, with no model (an endpoint that serves one), is
        posted to a chat completion API: the answer is read as one (``response["choices"]``).
        A body of messages posted to a service of the project's own is not a request of a model."""
        if "messages" not in keys or "model" in keys or NOT_TEXT_KEYS & set(keys) \
                or env.scope.kind != "function":
            return False
        return _read_as_completion(self.m.parents, call, env.scope.node)

    def limit_out_of_sight(self, specs: tuple[Arg, ...], call: ast.Call, env: Env, given: CallArgs) -> bool:
        """Whether the object that would hold the limit is given but cannot be read here
        (``inferenceConfig=self._config()``, ``model_settings=settings``): it may well set one."""
        for spec in specs:
            if not spec.key or spec.method is not None:
                continue
            entry = self.find(Arg(spec.keywords, spec.position), call, env, given)  # the container
            if entry is None:
                continue
            if spec.json:
                entry = self.json_value(entry)
                if entry is None:
                    return True
            if self.members(entry[0], entry[1]) is None:
                return True
        return False

    def json_value(self, entry: Entry) -> Entry | None:
        """``json.dumps(value)`` -> value (the body of a Bedrock ``invoke_model`` call)."""
        node, env = self.scopes.deref(entry[0], entry[1])
        if isinstance(node, ast.Call) and self.m.qualified(node.func) in ("json.dumps",) and node.args:
            return node.args[0], env, entry[2]
        return None

    def members(self, node: ast.expr, env: Env) -> dict[str, Entry] | None:
        """The named members of a dict or of a settings object's constructor
        (``ModelSettings(max_tokens=...)``)."""
        return self.spreads.members(node, env)[0]

    def limit_defaults(self, specs: tuple[Arg, ...], call: ast.Call, env: Env, given: CallArgs) -> tuple[Step, ...]:
        """The empty-by-default spreads of the object that would hold the limit (``config=`` built
        with ``**self.generation_kwargs``)."""
        for spec in specs:
            if not spec.key or spec.method is not None or spec.json:
                continue
            entry = self.find(Arg(spec.keywords, spec.position), call, env, given)
            if entry is not None:
                return self.spreads.members(entry[0], entry[1])[1]
        return ()

    def find_all(self, spec: Arg, call: ast.Call, env: Env, given: CallArgs | None) -> list[Entry]:
        """``find``, except that the keyword ``*`` stands for every keyword argument (a DSPy
        module's input fields)."""
        if spec.keywords != ("*",):
            entry = self.find(spec, call, env, given)
            return [] if entry is None else [entry]
        given = given if given is not None else self.of(call, env)
        return list(given.keywords.values())



def _read_as_completion(parents: dict[int, ast.AST], value: ast.AST, scope: ast.AST, hops: int = 0) -> bool:
    """Whether the function reads ``value`` (a response, a name it is kept in) as a chat completion:
    its ``choices``, taken straight (``requests.post(...).json()["choices"]``), from the name the
    response is kept in (``reply = requests.post(...)``, then ``reply.json()["choices"]``, the read
    after the retry loop that posts it), or from the name its decoded body is kept in in turn
    (``data = reply.json()``, then ``data["choices"]``)."""
    node, parent = _decoded(parents, value)
    if _choices(parents, parent, node):
        return True
    target = parent.targets[0] if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
    if not isinstance(target, ast.Name) or hops > 1:
        return False
    answer = target.id
    return any(isinstance(read, ast.Name) and read.id == answer and isinstance(read.ctx, ast.Load)
               and _read_as_completion(parents, read, scope, hops + 1) for read in walk(scope))


def _decoded(parents: dict[int, ast.AST], node: ast.AST) -> tuple[ast.AST, ast.AST | None]:
    """``node`` climbed through an await and a ``.json()`` of it (``(await client.post(...)).json()``),
    with the node above."""
    parent = parents.get(id(node))
    while True:
        if isinstance(parent, ast.Await):
            node, parent = parent, parents.get(id(parent))
        elif isinstance(parent, ast.Attribute) and parent.attr == "json" \
                and isinstance(caller := parents.get(id(parent)), ast.Call) and caller.func is parent:
            node, parent = caller, parents.get(id(caller))
        else:
            return node, parent


def _choices(parents: dict[int, ast.AST], read: ast.AST | None, value: ast.AST) -> bool:
    """Whether ``read`` takes the ``choices`` of ``value``, a chat completion's answers
    (``response["choices"]``, ``response.get("choices")``)."""
    if isinstance(read, ast.Subscript) and read.value is value:
        return isinstance(read.slice, ast.Constant) and read.slice.value == "choices"
    if isinstance(read, ast.Attribute) and read.value is value and read.attr == "get":
        call = parents.get(id(read))
        return isinstance(call, ast.Call) and call.func is read and bool(call.args) \
            and isinstance(call.args[0], ast.Constant) and call.args[0].value == "choices"
    return False
