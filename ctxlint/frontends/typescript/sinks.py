"""Call sites of the catalogue's sinks become requests: the options object read where the
provider's API shape puts the tools, system text, messages, input, model and output limit."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from ctxlint.frameworks.typescript import TsSink
from ctxlint.frontends.media import media_answer
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.layers import Layers
from ctxlint.frontends.typescript.messages import Messages
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.own_server import own_server_base
from ctxlint.frontends.typescript.posted import Posts
from ctxlint.frontends.typescript.reserves import Reserves
from ctxlint.frontends.typescript.strings import Strings
from ctxlint.frontends.typescript.tools import Tools
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.unsent import overridden_everywhere
from ctxlint.frontends.typescript.values import Env, RequestBuilder, Scope
from ctxlint.model import Evidence, EvidenceKind, OutputLimit, Request, Role, ToolDef
from ctxlint.providers import LIMIT_KEYS


@dataclass(eq=False)
class Sinks:
    """Builds the request of each call site."""

    m: Module
    names: Names
    strings: Strings
    messages: Messages
    tools: Tools
    reserves: Reserves
    layers: Layers
    posts: Posts

    def call_site_requests(self) -> list[Request]:
        # First the calls that send a request: what one returns is the model's answer wherever
        # the module reads it (a request built from an earlier answer is built in the same loop).
        posted = {}
        for call, scope in self.m.calls:
            env = Env(scope)
            if self.m.sink_of(call) or self.factory_sink(call, env) or self.layers.summaries(call, env)[1] \
                    or self.layers.asks_a_model(call, env):
                self.m.answers.add(call.id)
            elif (post := self.posts.request(call, env)) is not None:  # `fetch(url, {body})` of a chat request
                posted[call.id] = post
                self.m.answers.add(call.id)
        requests = []
        for call, scope in self.m.calls:
            sink = self.m.sink_of(call) or self.factory_sink(call, Env(scope))
            if call.id in posted:
                sink, body, body_env = posted[call.id]
                request = self.call_request(call, sink, Env(scope), (body, body_env))
                requests.extend([request] if request is not None else [])
            elif sink is None:
                requests.extend(self.layers.requests(call, Env(scope)))
            elif (request := self.call_request(call, sink, Env(scope))) is not None:
                requests.append(request)
        return requests

    def factory_sink(self, call: Node, env: Env) -> TsSink | None:
        """The sink a method call is when its receiver is built by one of a sink's ``factories``
        (``ai.generate(...)`` where ``const ai = genkit({...})``, here or in a module this one
        imports it from)."""
        if call.type != "call_expression" or not self.m.ts.factory_methods:
            return None
        callee = self.m.unwrap(self.m.field(call, "function"))
        if callee is None or callee.type != "member_expression":
            return None
        chain = self.m.chain(callee)
        receiver = self.m.unwrap(self.m.field(callee, "object"))
        if len(chain) != 2 or chain[-1] not in self.m.ts.factory_methods or receiver.type != "identifier":
            return None
        typed = self.parameter_type(receiver, env)
        if typed is not None:  # `ai: Genkit`, a parameter given the instance
            imported = self.m.imports.get(typed, "")
            return next((sink for sink in self.m.ts.sinks if typed in sink.types and imported.startswith(sink.modules)
                         and any(m[-1] == chain[-1] for m in sink.methods)), None)
        built, module = self.names.deref(receiver, env)[0], self.m
        if built.type != "call_expression":
            found = self.names.imported_constant(chain[0])
            if found is None:
                return None
            module, built = found[0].m, found[0].m.unwrap(found[1])
        factory = module.unwrap(module.field(built, "function")) if built.type == "call_expression" else None
        if factory is None or factory.type != "identifier":
            return None
        name = module.code(factory)
        imported = module.imports.get(name, "")
        return next((sink for sink in self.m.ts.sinks if name in sink.factories and imported.startswith(sink.modules)
                     and any(m[-1] == chain[-1] for m in sink.methods)), None)

    def settings_given_elsewhere(self, call: Node, env: Env, key: str) -> Node | None:
        """A parameter of the function ``call`` is made in that another call there is given as its
        settings (``config: judgeConfig``), when ``call`` is given none: the caller's settings,
        and any limit in them, are left out of this request."""
        function = env.scope.node
        if env.scope.kind != "function":
            return None
        stack = list(function.named_children)
        while stack:
            node = stack.pop()
            if node.type == "pair" and self.m.key_text(self.m.field(node, "key")) == key:
                value = self.m.unwrap(self.m.field(node, "value"))
                if value is not None and value.type == "identifier" and self.m.code(value) in env.scope.params \
                        and not (call.start_byte <= node.start_byte < call.end_byte):
                    return value
            stack.extend(node.named_children)
        return None

    def parameter_type(self, name: Node, env: Env) -> str | None:
        """The type a parameter ``name`` is declared with (``Genkit`` of ``ai: Genkit``), when the
        name is one of the enclosing functions' parameters and not assigned there."""
        scope: Scope | None = env.scope
        text = self.m.code(name)
        while scope is not None:
            if text in scope.assigns:
                return None
            if text in scope.params:
                annotation = scope.params[text].lstrip(":").strip()
                return annotation or None
            scope = scope.parent
        return None

    def call_request(self, call: Node, sink: TsSink, env: Env, body: tuple[Node, Env] | None = None) -> Request | None:
        """The request a call sends: its options (or ``body``, the chat request it posts) read."""
        if env.scope.kind == "function" and overridden_everywhere(self.layers.classes, env.scope.node):
            return None  # a base class's method every subclass replaces: never sent
        args = self.m.args(call)
        at = len(sink.positional) or (1 if sink.after_id else 0)
        options, oenv = body if body is not None else (args[at] if len(args) > at else None, env)
        opaque = [False]
        shape = sink.shape
        if options is not None and shape.bare_prompt and len(args) == 1 and shape.input \
                and self.m.unwrap(options).type in ("string", "template_string"):
            # `ai.generate("Greet the user.")`: the prompt alone, so no settings and no limit
            keywords: dict | None = {shape.input[0]: (options, env, options)}
            options = None
        else:
            keywords = self.names.entries(options, oenv, opaque) if options is not None else None
        if keywords is None:
            keywords, opaque = {}, [True]
        elif options is not None and not self.reserves.mutations_known(options, oenv):
            opaque = [True]  # `request.max_tokens = n` or `Object.assign(request, more)` after the literal
        if sink.positional and body is None:
            # `client.getChatCompletions(deployment, messages, options)`: the first arguments are
            # keys of the request; with no options after them, the request has no more.
            leading = {key: (arg, env, arg) for key, arg in zip(sink.positional, args, strict=False)
                       if arg.type != "spread_element"}
            keywords = {**leading, **keywords}
            opaque = [False] if options is None and len(args) == len(leading) else opaque
        if not shape.request_keys & set(keywords) and not opaque[0]:
            return None
        builder = RequestBuilder()
        tools: list[ToolDef] = []
        if shape.tools in keywords:
            node, kenv, _ = keywords[shape.tools]
            tools.extend(self.tools.tool_map(node, kenv, builder) if shape.tools_by_name
                         else self.tools.tool_list(node, kenv, builder))
        for key in shape.system:
            if key in keywords:
                node, kenv, _ = keywords[key]
                builder.next_message(self.m.span(node))
                self.messages.content(node, kenv, builder, Role.SYSTEM, None)
        for key in shape.messages:
            if key in keywords:
                node, kenv, _ = keywords[key]
                self.messages.messages(node, kenv, builder)
        for key in shape.input:
            if key in keywords:
                node, kenv, _ = keywords[key]
                found = self.strings.text(node, kenv)
                if found is not None or self.names.items(node, kenv) is None:
                    builder.next_message()
                    builder.add(self.strings.or_slot(found, node, kenv), Role.USER)
                else:
                    self.messages.messages(node, kenv, builder)
        model = self.model_name(keywords["model"][0], keywords["model"][1]) if "model" in keywords else None
        provider = (self.model_provider(keywords["model"][0], keywords["model"][1], sink) if "model" in keywords
                    else None)
        if provider == "mock":
            return None  # a mock model in a test or demo: nothing is sent
        limit = None
        settings = keywords
        held = None
        if shape.settings:  # genkit's `config: {maxOutputTokens}`
            held = keywords.get(shape.settings.rstrip("."))
            inner = self.names.entries(held[0], held[1], opaque) if held is not None else None
            if held is not None and (inner is None or not self.reserves.mutations_known(held[0], held[1])):
                opaque[0] = True  # `config: settings` built out of sight (or completed later) may hold the limit
            settings = inner if inner is not None else {}
        unset = field = withheld_at = None
        withheld: tuple[str, str] | None = None
        for key in shape.limit_keys:
            if key in settings:
                node, kenv, pair = settings[key]
                unset = self.reserves.unset_by_default(node)
                if unset is not None:  # `maxOutputTokens: this.maxOutputTokens`, undefined unless given
                    field = node
                    break
                withheld = self.reserves.limit_withheld(key, node) or self.reserves.spread_for_some(key, pair)
                if withheld is not None:  # `max_tokens: null`, or a number for some models only
                    withheld_at = pair
                    break
                ok, value = self.strings.literal(node, kenv)
                number = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
                limit = OutputLimit(key, number, self.m.span(pair))
                break
        capped = self.posts.capped_by(call) if body is not None and limit is None else None
        if capped is not None:  # posted to a provider that fills in a limit of its own
            limit = OutputLimit(f"{shape.limit_keys[0]} ({capped.described()})", None, self.m.span(call))
            unset = withheld_at = None
        if limit is None and sink.built_by and not opaque[0]:
            built = self.settings_of_builder(call, env, sink)
            if built is None:
                opaque[0] = True  # a model built out of sight (or with settings it cannot read) may set one
            elif isinstance(built, OutputLimit):
                limit = built
        if limit is None and provider in sink.limited_providers:
            limit = OutputLimit(f"{shape.limit_keys[0]} (the SDK's default: the model's maximum)", None,
                                self.m.span(call))
        relay = own_server_base(self.m, self.names, call, env) if limit is None else None
        if relay is not None:  # a page's client of its own server: the server sets what the provider gets
            limit = OutputLimit(f"{shape.limit_keys[0]} (the app's own server's, at {self.m.code(relay)})", None,
                                self.m.span(relay))
        rest = self.reserves.caller_rest(options, oenv) if limit is None and opaque[0] and options is not None else None
        if rest is None and limit is None and opaque[0] and held is not None:
            rest = self.reserves.settings_rest(held[0], held[1])  # `Object.assign(config, this.extraParams)`
        left_out = self.reserves.limit_left_out(options, oenv) if limit is None and options is not None else None
        given = self.settings_given_elsewhere(call, env, shape.settings.rstrip(".")) \
            if limit is None and shape.settings and held is None and not opaque[0] else None
        # `max_completion_tokens` given to the Responses API, whose limit is `max_output_tokens`
        misnamed = next((key for key in keywords if key in LIMIT_KEYS and key not in shape.limit_keys
                         and (shape.older is None or key != shape.older[1])), None) \
            if limit is None and not shape.settings else None
        # An image asked for: no text answer for a token limit to bound.
        media = self.asks_for_media(keywords) or self.asks_for_media(settings)
        # Why the request has no limit, the first that applies: (kind, evidence kind, where, what it says).
        def code(at: Node | None) -> str:
            return self.m.code(at) if at is not None else ""
        withheld_kind, withheld_says = withheld or ("given-none", "")
        why = [
            (withheld_kind, EvidenceKind.SOURCE, withheld_at, withheld_says),
            ("misnamed-key", EvidenceKind.SOURCE, keywords[misnamed][2] if misnamed is not None else None,
             f"`{misnamed}` is not a setting of this API, whose limit is `{shape.limit_keys[0]}`"),
            ("settings-dropped", EvidenceKind.SOURCE, given,
             f"`{code(given)}`, the settings this function is given, is passed to another request and not to this one"),
            ("none-by-default", EvidenceKind.FLOW, unset,
             f"`{code(field)}` is undefined unless the caller passes `{code(unset)}`, which has no default"),
            ("removed", EvidenceKind.SOURCE, left_out,
             f"`{code(left_out)}` is taken out of the caller's settings and never read"),
            ("caller-rest", EvidenceKind.SOURCE, rest,
             f"`{code(rest)}` holds only what a caller passes beyond the options it names"),
        ]
        evidence: tuple[Evidence, ...]
        kind, evidence = next(((k, (Evidence(ek, says, self.m.span(at)),)) for k, ek, at, says in why
                               if at is not None), ("", ()))
        if not kind and limit is None and held is not None and not opaque[0]:  # `generationConfig: {temperature}`
            evidence = (Evidence(EvidenceKind.SOURCE, f"`{shape.settings.rstrip('.')}` is given with no "
                                                      f"`{shape.limit_keys[0]}`", self.m.span(held[2])),)
        elif not kind and limit is None and body is not None and not opaque[0]:
            evidence = self.written_body(body[0], body[1])
        return Request(path=self.m.path, anchor=self.m.span(call), segments=tuple(builder.segments), tools=tuple(tools),
                       model=model, output_limit=limit, declares_settings=(not opaque[0] or limit is not None or
                       bool(kind)) and not media, settings_hint=shape.hint(":"), breakpoints=tuple(builder.breakpoints),
                       reserve_kind=kind, reserve_evidence=evidence)

    def written_body(self, body: Node, env: Env) -> tuple[Evidence, ...]:
        """Where a posted body the code names is written (``const requestPayload = {...}``), many
        lines above the call that posts it: the place the limit is added."""
        body = self.m.unwrap(body)
        written = self.names.deref(body, env)[0] if body.type == "identifier" else None
        if written is None or written.type != "object":
            return ()
        return (Evidence(EvidenceKind.FLOW, f"the posted body `{self.m.code(body)}` is written here with no output "
                                            "limit", self.m.span(written)),)

    def asks_for_media(self, entries: dict) -> bool:
        """Whether a request's options ask for a media answer (``modalities: ["image", "text"]``
        of a chat completion, Gemini's ``responseModalities: ["IMAGE"]``: media.media_answer)."""
        for key in ("modalities", "responseModalities"):
            if key in entries:
                ok, value = self.strings.literal(entries[key][0], entries[key][1])
                if ok and media_answer(value):
                    return True
        return False

    def settings_of_builder(self, call: Node, env: Env, sink: TsSink) -> OutputLimit | bool | None:
        """The limit the object ``call`` is made on was built with (``getGenerativeModel({model,
        generationConfig: {maxOutputTokens: 800}})``), False when it was built here with none, None
        when its building cannot be read."""
        callee = self.m.unwrap(self.m.field(call, "function"))
        receiver = self.m.unwrap(self.m.field(callee, "object")) if callee is not None \
            and callee.type == "member_expression" else None
        if receiver is None:
            return None
        built, built_env = self.names.deref(receiver, env)
        function = self.m.unwrap(self.m.field(built, "function")) if built.type == "call_expression" else None
        chain = self.m.chain(function) if function is not None and function.type == "member_expression" else []
        if not chain or chain[-1] not in sink.built_by:
            return None
        args = self.m.args(built)
        opaque = [False]
        options = self.names.entries(args[0], built_env, opaque) if args else {}
        holder = options.get(sink.shape.settings.rstrip(".")) if options is not None else None
        settings = self.names.entries(holder[0], holder[1], opaque) if holder is not None else {}
        if options is None or settings is None or opaque[0]:
            return None
        key = next((k for k in sink.shape.limit_keys if k in settings), None)
        if key is None:
            return False
        ok, value = self.strings.literal(settings[key][0], settings[key][1])
        number = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
        return OutputLimit(key, number, self.m.span(settings[key][2]))

    def model_provider(self, node: Node, env: Env, sink: TsSink) -> str | None:
        """The word of the sink's ``limited_providers`` that names the provider a model is made by
        (`anthropic("claude-…")`, `vertexAnthropic(…)`, `createAnthropic(…)(…)`), ``mock`` for a
        mock model, else None."""
        node, env = self.names.deref(node, env)
        if node.type == "new_expression":
            constructor = self.m.field(node, "constructor")
            mock = constructor is not None and any(fnmatchcase(self.m.code(constructor), p) for p in sink.mock_models)
            return "mock" if mock else None
        if node.type != "call_expression":
            return None
        callee = self.m.field(node, "function")
        while callee is not None and callee.type == "call_expression":  # createAnthropic({...})("claude-…")
            callee = self.m.field(callee, "function")
        if callee is None:
            return None
        chain = self.m.chain(callee)
        root = chain[0] if chain else self.m.code(callee)
        module = self.m.imports.get(root, "")
        return next((word for word in sink.limited_providers
                     if word in module.split(".")[0] or (not module and word in root.lower())), None)

    def model_name(self, node: Node, env: Env) -> str | None:
        """``"gpt-4o"``, ``openai("gpt-4o")``, ``anthropic("claude-…")`` or ``"openai/gpt-4o"``."""
        node, env = self.names.deref(node, env)
        text = self.strings.literal_str(node, env)
        if text is None and node.type == "call_expression":
            args = self.m.args(node)
            text = self.strings.literal_str(args[0], env) if args else None
        if text and "/" in text and not text.startswith("/"):
            text = text.split("/", 1)[1]  # the AI gateway's "provider/model"
        return text
