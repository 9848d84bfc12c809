"""Call sites: the calls the framework catalogue names as sinks become requests.

A sink's arguments say where each part of the request is: system text, messages, user input,
tools, the output limit and the model, at the call or on the object it is called on (a chat
model built with ``max_tokens=``, an agent built with its instructions and tools, a template
piped into a model). Parts are added in provider order: tools, system, messages.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import cast

from ctxlint.frameworks import Arg, Holder, Sink, TemplateKind
from ctxlint.frontends.code.pieces import Builder, Piece
from ctxlint.frontends.media import media_answer
from ctxlint.frontends.python.arguments import Arguments, CallArgs
from ctxlint.frontends.python.calls import UNKNOWN, last_name
from ctxlint.frontends.python.limitfields import FIELD_DROPPED, dropped_limit_field
from ctxlint.frontends.python.limitplaces import own_default_limit, unset_limit, written_without
from ctxlint.frontends.python.messages import Variables
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.nonefields import FIELD_NONE, defaulted_field
from ctxlint.frontends.python.paramdefaults import fallback_literal
from ctxlint.frontends.python.replacedholders import holder_written_without
from ctxlint.frontends.python.spreads import FIELD, KWARGS, NONE, PARAMETER, SUBCLASS, Step
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.unsetbranches import unreached
from ctxlint.frontends.python.unsetcallers import NONE_BY_CALLERS
from ctxlint.frontends.python.values import Env, Scope, in_method
from ctxlint.model import Evidence, EvidenceKind, OutputLimit, Request, Role, Span, ToolDef
from ctxlint.providers import answers_in_text, gemini_body

# The kind of evidence of a chat request posted as an HTTP body (rules/**/CTX201).
HTTP_PAYLOAD = "http-payload"
# ... and of a call of a sink's shape on a client the project builds (or a library the catalogue
# does not know builds): `self._module.Client().models.generate_content(...)`.
SHAPED_CLIENT = "shaped-client"
# ... and of a request whose settings had a limit the code then takes out (`params.pop("max_tokens")`).
REMOVED = "removed"
# ... and of one whose limit is set only in a branch for some models (`if provider == "anthropic":`).
SET_FOR_SOME = "set-for-some"
GIVEN_NONE = "given-none"  # the limit's key is given None: no limit is sent
# ... and of a call of a method a project class adds to an SDK class it subclasses, taking that
# class's request arguments (`AGeneration(Generation)` adding `acall`).
TWIN_METHOD = "twin-method"
# ... and of a call that sends a fixed number as its limit in a function that takes a limit
# parameter and never reads it: the caller's limit is never sent.
IGNORED = "ignored"


@dataclass
class Parts:
    """What a request is made of, gathered from the call and the objects it uses."""

    builder: Builder = field(default_factory=Builder)
    tools: list[ToolDef] = field(default_factory=list)
    model: str | None = None
    limit: OutputLimit | None = None
    limit_visible: bool = False  # the code shows where the limit is (or would be) set
    limit_elsewhere: bool = False  # a model object the code does not show may set it
    hint: str = ""
    default: int | None = None
    built_without: Evidence | None = None  # the chat model or agent built with no limit, when one is
    by_default: tuple[Step, ...] = ()  # spreads a caller may fill, empty by default
    dropped: tuple[str, Span] | None = None  # a limit the code that builds the model accepts
    # the limit taken out (`params.pop("max_tokens")`) or set for some models only, with its kind
    removed: tuple[str, Evidence] | None = None
    # the limit taken from one field of an object, another of its limit fields dropped: both steps
    field_dropped: tuple[Evidence, ...] = ()
    # the settings object the limit belongs in (`config=config`), where the function builds it
    settings_built: Evidence | None = None


class Sinks(Component):
    def __init__(self, unit: Unit) -> None:
        super().__init__(unit)
        self.twins: dict[int, Evidence] = {}  # the calls of twin methods, with what makes each one

    def call_site_requests(self) -> list[Request]:
        requests = []
        for call, scope in self.m.calls:
            matched = self.match(call, env := Env(scope)) if self.may_be_sink(call) else None  # (an Env only for those)
            if matched is not None:
                self.m.sink_calls.add(id(call))
                request = self.request(call, env, *matched)
                twin = self.twins.get(id(call))
                if request is not None and twin is not None and request.declares_settings \
                        and request.output_limit is None and not request.reserve_kind:
                    request = replace(request, reserve_kind=TWIN_METHOD, reserve_evidence=(twin,))
                if request is not None:
                    requests.append(request)
        return requests

    def match(self, call: ast.Call, env: Env) -> tuple[Sink, bool] | None:
        """The sink ``call`` is, and whether its type is known (not only its shape)."""
        path = self.calls.path(call.func, env)
        for sink in self.m.catalogue.sink_calls.match(path):
            assert isinstance(sink, Sink)
            return sink, True
        # A shape (`*.models.generate_content`) names a request whatever the receiver is when the
        # code does not show it, or shows it built by the project or by a library the catalogue
        # does not know (`self._module.Client()` of a module imported by name); a path from a
        # catalogue library that matched none of its calls is not a request.
        if path.startswith(UNKNOWN) or not self.m.catalogue.from_library(path):
            for sink in self.m.catalogue.sink_shapes.match(path):
                assert isinstance(sink, Sink)
                return sink, False
            return None
        twin = self.calls.twin(call, env, path)
        if twin is None:
            return None
        self.twins[id(call)] = twin[1]
        return twin[0], True

    def may_be_sink(self, call: ast.Call) -> bool:
        """The cheap test: a sink's name, or an object called directly (``qa(question=...)``
        where ``qa = dspy.Predict(...)``) when the catalogue has such sinks."""
        func = call.func
        if last_name(func) in self.m.sink_names or isinstance(func, ast.Attribute) and func.attr in self.m.twin_methods:
            return True
        if isinstance(func, ast.Name) and func.id in self.m.imports:  # `completion as llm_completion`
            return self.m.imports[func.id].rsplit(".", 1)[-1] in self.m.sink_names
        if not self.m.instance_sinks:
            return False
        if isinstance(func, ast.Attribute):  # self.respond(...) where self.respond = dspy.Predict(...)
            return isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")
        return isinstance(func, ast.Name) and func.id not in self.m.imports

    def is_sink(self, call: ast.Call, env: Env) -> bool:
        """Whether ``call`` sends a request (its result is the model's own answer)."""
        return self.may_be_sink(call) and self.match(call, env) is not None

    def posts_chat_request(self, call: ast.Call, env: Env) -> bool:
        """Whether ``call`` posts a body with a chat request's keys to a model over HTTP
        (``requests.post(url, json={"model": ..., "messages": [...]})``): its response is the answer."""
        found = self.match(call, env) if self.may_be_sink(call) else None
        return found is not None and bool(found[0].payload) and \
            self.args.payload(call, env, found[0].payload) is not None

    # ---- a request from a sink ---------------------------------------------------------------------

    def request(self, call: ast.Call, env: Env, sink: Sink, typed: bool, body: CallArgs | None = None
                ) -> Request | None:
        """The request ``call`` sends; ``body`` is the posted body when a caller gives it (a
        helper that posts its parameter)."""
        if unreached(self.m, call, env, self.flow.literal_str):
            return None  # in a branch only a value no call gives takes (`if version == "0.28":`)
        given = body if body is not None else self.args.payload(call, env, sink.payload) if sink.payload \
            else self.args.of(call, env)
        if given is None or any(key in given.keywords for key in sink.rejects):
            return None  # a keyword the SDK does not take: the call raises and sends nothing
        if not typed and sink.requires and not given.opaque and not any(k in given.keywords for k in sink.requires):
            return None  # `x.messages.create(...)` of something that is not an LLM client
        holders = []
        unseen_holder = False  # the receiver is a configured object (a chat model) built out of sight
        if isinstance(call.func, ast.Attribute):
            owner = self.calls.holder(call.func.value, env)
            if owner is not None:
                holders.append(owner)
            else:
                # `for name, llm in self.models: llm.ainvoke(...)`: sent with each model of the list
                holders.extend(self.calls.looped_holders(call.func.value, env))
                unseen_holder = not holders and self.reserves.configured_type(call.func.value, env)
        for spec in sink.arguments.get("agent", ()):
            entry = self.args.find(spec, call, env, given)
            if entry is None:
                continue
            items = self.containers.items(entry[0], entry[1]) if isinstance(entry[0], (ast.List, ast.Tuple)) else None
            for node, node_env in [(i.node, i.env) for i in items] if items is not None else [entry[:2]]:
                agent = self.calls.holder(node, node_env)
                if agent is not None:
                    holders.append(agent)
        parts = Parts(hint=posted_hint(sink, given), default=sink.default_limit)
        for _, holder_call, holder_env in holders:
            if self.calls.reader(holder_call) is not None:
                continue  # built in another module: its own reading reports it
            self.m.consumed.add(id(holder_call))
            if sent_from(env.scope, holder_env.scope) or built_to_return(holder_call, holder_env.scope):
                for sent in (holder_call, *returned_beside(self.m, holder_call, holder_env.scope)):
                    spans = self.m.sent_holders.setdefault(id(sent), [])
                    if self.m.span(call) not in spans:  # a call read again (a wrapper's summary) is one place
                        spans.append(self.m.span(call))
        self.add_tools(sink.arguments, call, env, given, parts)
        for holder, holder_call, holder_env in holders:
            self.calls.sinks_of(holder_call).add_tools(holder.arguments, holder_call, holder_env, None, parts)
        for holder, holder_call, holder_env in holders:
            self.calls.sinks_of(holder_call).add_system(holder.arguments, holder_call, holder_env, None, parts)
        self.add_system(sink.arguments, call, env, given, parts)
        own = [t for t in self.m.catalogue.templates.match(self.calls.path(call.func, env))
               if isinstance(t, TemplateKind)]
        if own:  # the call renders a template itself (`kernel.invoke_prompt(prompt, arguments=...)`)
            found = next((self.args.find(s, call, env, given) for s in sink.arguments.get("variables", ())), None)
            self.m.consumed.add(id(call))
            self.messages.template(call, env, own[0], parts.builder, self.messages.variables(found) or Variables())
        else:
            template = self.messages.template_of(call.func.value, env) if isinstance(call.func, ast.Attribute) \
                else None
            self.add_messages(sink.arguments, call, env, given, parts, template)
        self.settings(sink.arguments, call, env, given, parts)
        limit_specs = sink.arguments.get("limit", ())
        hidden = bool(limit_specs) and self.args.limit_out_of_sight(limit_specs, call, env, given)
        defaults = given.empty_by_default + self.args.limit_defaults(limit_specs, call, env, given)
        if defaults and parts.limit is None and not given.opaque:
            parts.by_default += defaults
        if sink.arguments.get("limit"):
            opaque = given.opaque and (parts.limit is not None or holder_written_without(
                self.m, limit_specs, call, given.keywords) is None)
            parts.limit_visible = parts.limit_visible or not (opaque or hidden)
        if given.opaque and parts.limit is None and parts.removed is None and limit_specs:
            only_some = self.reserves.set_for_some_in_spread(
                call, env, tuple(k for spec in limit_specs if not spec.key for k in spec.keywords))
            if only_some is not None:
                parts.removed, parts.limit_visible = (SET_FOR_SOME, only_some), True
        for holder, holder_call, holder_env in holders:
            reader = self.calls.sinks_of(holder_call)
            reader.holder_settings(holder, holder_call, holder_env, parts, named=reader is not self)
        parts.limit_elsewhere = parts.limit_elsewhere or unseen_holder
        if (hidden or parts.limit_elsewhere) and parts.limit is None:
            parts.limit_visible = False  # settings given at the call override the object's
        if parts.limit is None and any(self.calls.sinks_of(c).reserves.built_without_limit(c, Env(e.scope), h)
                                       for h, c, e in holders):
            parts.limit_visible = False  # reported where the model is built (holder_requests)
        if parts.limit is None and not typed:
            parts.limit = own_default_limit(self, call, env)
        defaulted = parts.limit is None and parts.default is not None
        if defaulted:
            key = next((a.keywords[0] for a in sink.arguments.get("limit", ()) if a.keywords), "max_tokens")
            parts.limit = OutputLimit(f"{key} (the default)", parts.default, self.m.span(call))
        declares = not sink.no_limit and (parts.limit is not None or parts.limit_visible and not sink.media_too) \
            and answers_in_text(parts.model or "") and not asks_for_no_text(env.scope)
        reserve_kind, reserve_evidence = "", cast(tuple[Evidence, ...], ())
        if declares and parts.limit is not None and parts.field_dropped:
            reserve_kind, reserve_evidence = FIELD_DROPPED, parts.field_dropped
        if declares and parts.limit is not None and parts.limit.value is not None and not defaulted:
            ignored = self.reserves.unread_limit_parameter(env.scope)
            if ignored is not None:
                reserve_kind = IGNORED
                reserve_evidence = (
                    Evidence(EvidenceKind.SOURCE, f"`{ignored[0]}` is accepted here and never read", ignored[1]),
                    Evidence(EvidenceKind.FLOW,
                             f"the call sends `{parts.limit.key.split(' (', 1)[0]}: {parts.limit.value}` instead",
                             parts.limit.span))
        if declares and parts.limit is None:
            # passed on, None by default
            passed_unset = any(kind in (NONE, NONE_BY_CALLERS, FIELD_NONE) for kind, _ in parts.by_default)
            dropped = None if passed_unset or parts.removed else self.reserves.accepted_limit(env.scope) \
                or parts.dropped
            if parts.removed is not None:
                reserve_kind, reserve_evidence = parts.removed[0], (parts.removed[1],)
            if dropped is not None:
                reserve_kind = "dropped"
                reserve_evidence = (Evidence(EvidenceKind.SOURCE, f"`{dropped[0]}` is accepted here and never "
                                             "passed on to the call", dropped[1]),)
            if parts.built_without is not None:
                reserve_evidence += (parts.built_without,)
            if sink.limit_required and any(kind == KWARGS for kind, _ in parts.by_default):
                declares = False  # the API rejects a call without one: every caller that succeeds passes it
            elif parts.by_default:
                kinds = {kind for kind, _ in parts.by_default}
                reserve_kind = reserve_kind or next(
                    k for k in (KWARGS, FIELD, SUBCLASS, PARAMETER, NONE, NONE_BY_CALLERS, FIELD_NONE) if k in kinds)
                reserve_evidence += tuple(step for _, step in parts.by_default)
            reserve_kind = reserve_kind or (HTTP_PAYLOAD if sink.payload else "")
            if not reserve_kind and not typed and not self.calls.path(call.func, env).startswith(UNKNOWN):
                reserve_kind = SHAPED_CLIENT
            if not reserve_kind and parts.settings_built is not None:
                reserve_evidence += (parts.settings_built,)
            # where the settings are written, unless the steps name where a default belongs (a field's)
            written = written_without(self.args, sink, call, env, given) \
                if reserve_kind != FIELD_NONE and parts.settings_built is None else None
            if written is not None:
                reserve_evidence += (written,)
        return Request(
            path=self.m.path,
            anchor=self.m.span(call),
            segments=tuple(parts.builder.segments),
            tools=tuple(parts.tools),
            model=parts.model,
            output_limit=parts.limit,
            declares_settings=declares,
            settings_hint=parts.hint,
            breakpoints=tuple(parts.builder.breakpoints),
            roles_marked=sink.roles_marked,
            framework=sink.framework,
            provider=sink.provider,
            in_method=in_method(env.scope),
            in_test=in_test(env.scope),
            reserve_kind=reserve_kind,
            reserve_evidence=reserve_evidence,
            api=sink.api,
            unseen=tuple(dict.fromkeys(parts.builder.unseen)),
            catalogue=tuple(parts.builder.catalogue),
            unread_tools=tuple(parts.builder.unread),
            accumulated=parts.builder.accumulated,
        )

    def add_tools(self, arguments: dict[str, tuple[Arg, ...]], call: ast.Call, env: Env, given: CallArgs | None,
                  parts: Parts) -> None:
        for spec in arguments.get("tools", ()):
            entry = self.args.find(spec, call, env, given)
            if entry is not None:
                legacy = spec.keywords == ("functions",)
                parts.tools.extend(self.tools.tool_list(entry[0], entry[1], parts.builder, legacy=legacy))

    def add_system(self, arguments: dict[str, tuple[Arg, ...]], call: ast.Call, env: Env, given: CallArgs | None,
                   parts: Parts) -> None:
        self.add_text("system", Role.SYSTEM, arguments, call, env, given, parts)

    def add_text(self, role_name: str, role: Role, arguments: dict[str, tuple[Arg, ...]], call: ast.Call, env: Env,
                 given: CallArgs | None, parts: Parts) -> None:
        """Every argument given for ``role_name``, as one message in ``role`` (a CrewAI agent's
        role, goal and backstory are one system prompt)."""
        first = True
        for spec in arguments.get(role_name, ()):
            entries = self.args.find_all(spec, call, env, given)
            for entry in entries:
                if first:
                    parts.builder.next_message()
                    first = False
                elif spec.keywords == ("*",):
                    # a DSPy module's input fields: each is rendered as a section of its own, never
                    # run into the value before it on one line
                    parts.builder.add([Piece("\n\n", self.m.span(entry[0]))], role)
                self.messages.content(entry[0], entry[1], parts.builder, role, None)

    def add_messages(self, arguments: dict[str, tuple[Arg, ...]], call: ast.Call, env: Env, given: CallArgs,
                     parts: Parts, template: tuple | None) -> None:
        builder = parts.builder
        used: set[int] = set()  # an argument two roles may name (`complete(prompt)`, `chat(messages)`) is read once
        for role in ("history", "messages", "input", "prompt"):
            for spec in arguments.get(role, ()):
                entry = self.args.find(spec, call, env, given) if spec.keywords != ("*",) else (call, env, call)
                if entry is None or (spec.keywords == ("*",) and not given.keywords) or id(entry[0]) in used:
                    continue
                used.add(id(entry[0]))
                node, node_env, _ = entry
                variables: Variables | None = None
                if template is not None:
                    variables = self.messages.variables(entry)
                if template is not None and variables is not None:
                    kind, template_call, template_env = template
                    self.m.consumed.add(id(template_call))
                    self.messages.template(template_call, template_env, kind, builder, variables)
                elif spec.keywords == ("*",):
                    self.add_text(role, Role.USER, {role: (spec,)}, call, env, given, parts)
                elif role in ("input", "prompt") and self.strings.text(node, node_env) is not None:
                    builder.next_message()
                    builder.add(self.strings.pieces(node, node_env), Role.USER)
                elif role == "prompt" and self.prompt_template(node, node_env, builder):
                    pass
                else:
                    self.messages.message_list(node, node_env, builder)
                break

    def prompt_template(self, node: ast.expr, env: Env, builder: Builder) -> bool:
        found = self.messages.template_of(node, env)
        if found is None:
            return False
        kind, call, call_env = found
        self.m.consumed.add(id(call))
        self.messages.template(call, call_env, kind, builder, None)
        return True

    def settings(self, arguments: dict[str, tuple[Arg, ...]], call: ast.Call, env: Env, given: CallArgs | None,
                 parts: Parts) -> None:
        if parts.model is None:
            for spec in arguments.get("model", ()):
                entry = self.args.find(spec, call, env, given)
                if entry is not None:
                    parts.model = self.flow.literal_str(entry[0], entry[1]) \
                        or fallback_literal(self.scopes, self.flow, entry[0], entry[1])
                    break
        if parts.limit is None:
            for spec in limit_specs(self.args, arguments.get("limit", ()), call, env, given):
                entry = self.args.find(spec, call, env, given)
                removed = self.reserves.taken_out(entry) if entry is not None else None
                if removed is not None:  # taken out, unless another of its keywords is set in its place
                    others = (self.args.find(Arg((k,), None, spec.key, spec.json), call, env, given)
                              for k in spec.keywords)
                    entry = next((e for e in others if e is not None and self.reserves.taken_out(e) is None), None)
                    if entry is None:  # ... or another spec's keyword (`max_completion_tokens`)
                        parts.removed, parts.limit_visible = removed, True
                        continue
                if entry is not None:
                    said = unset_limit(self, entry)
                    if said is not None:  # None unless a caller gives it, or left to its default
                        parts.limit_visible = True
                        parts.by_default += tuple((said[0], step) for step in said[1])
                        if said[0] == FIELD_NONE:  # `request.max_tokens` of a field None by default, never set
                            parts.hint = f"a default for {defaulted_field(said[1])}"
                        break
                    ok, value = self.flow.literal(entry[0], entry[1])
                    key = given_key(self.args, spec, call, env, given) if spec.key \
                        else spec.keywords[0] if spec.keywords else "max_tokens"
                    withheld = self.reserves.limit_withheld(key, entry) if not ok or value is None else None
                    if withheld is not None:  # `max_tokens=None`, or `4096 if model == "gpt-4o" else None`
                        parts.removed, parts.limit_visible = withheld, True
                        break
                    number = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
                    parts.limit = OutputLimit(key, number, self.m.span(entry[2]))
                    dropped = dropped_limit_field(self.m, entry[0])
                    if dropped is not None:
                        parts.field_dropped = (dropped, Evidence(
                            EvidenceKind.FLOW, f"only `{self.m.code(entry[0])}` is sent, as `{key}`", parts.limit.span))
                    break
        if parts.limit is None:  # the settings object it belongs in, built here: set on it after, or not
            found = self.args.settings_built(arguments.get("limit", ()), call, env, given)
            if isinstance(found, OutputLimit):
                parts.limit = found
            else:
                parts.settings_built = found

    def holder_settings(self, holder: Holder, call: ast.Call, env: Env, parts: Parts, named: bool = False) -> None:
        """The limit and model an object was built with (``ChatAnthropic(max_tokens=...)``); with
        ``named``, the hint names the module it is built in (another than the request's)."""
        had = parts.limit
        self.settings(holder.arguments, call, env, None, parts)
        if holder.arguments.get("limit") and limit_configurable(call, holder):
            parts.limit_elsewhere = True  # each call gives it (``with_config``)
        elif holder.arguments.get("limit"):
            given = self.args.of(call, env)
            parts.limit_visible = parts.limit_visible or not given.opaque
            if had is None and parts.limit is None:
                where = self.m.span(call)
                parts.hint = (f"{holder.limit_hint or 'an output limit'} on `{self.m.short(call.func)}(...)` "
                              f"({f'{self.m.display_path()} ' if named else ''}line {where.line})")
                parts.built_without = Evidence(EvidenceKind.SOURCE, f"`{self.m.short(call.func)}(...)` is built "
                                               "without an output limit", where)
                parts.dropped = self.reserves.accepted_limit(env.scope)  # a factory that takes a limit and drops it
        if parts.default is None:
            parts.default = holder.default_limit
        if holder.model_carries_limit and parts.limit is None:
            # `Agent(model)` with a model object built elsewhere (a parameter, `ctx.model`): its
            # own settings may hold the limit. A model given by name carries none.
            model = next((e for e in (self.args.find(s, call, env) for s in holder.arguments.get("model", ()))
                          if e is not None), None)
            parts.limit_elsewhere = model is not None and not self.model_name(model[0], model[1])

    def model_name(self, node: ast.expr, env: Env) -> bool:
        """Whether a model argument is a name (``"openai:gpt-4o"``, an f-string, an environment
        variable, a parameter that takes a string or has one as its default), not an object."""
        node, env = self.scopes.deref(node, env)
        if self.flow.literal_str(node, env) is not None or isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.Subscript):  # os.environ["MODEL"]
            return self.m.qualified(node.value) == "os.environ"
        if isinstance(node, ast.Call):
            return self.m.qualified(node.func) in ("os.getenv", "os.environ.get", "str")
        if isinstance(node, ast.Name) and env.scope.kind == "function" and node.id in env.scope.params:
            param = env.scope.params[node.id]
            default = param.default
            annotation = self.m.code(param.annotation) if param.annotation is not None else ""
            return (isinstance(default, ast.Constant) and isinstance(default.value, str)) or annotation == "str"
        return False

    def holder_parts(self, holder: Holder, call: ast.Call, env: Env) -> Parts:
        """What an object built by a framework constructor sends on its own (an agent's
        instructions and tools)."""
        parts = Parts(hint=holder.limit_hint, default=holder.default_limit)
        self.add_tools(holder.arguments, call, env, None, parts)
        self.add_system(holder.arguments, call, env, None, parts)
        for spec in holder.arguments.get("messages", ()):
            entry = self.args.find(spec, call, env)
            if entry is not None:
                self.messages.message_list(entry[0], entry[1], parts.builder)
        self.add_text("input", Role.USER, holder.arguments, call, env, None, parts)
        self.settings(holder.arguments, call, env, None, parts)
        return parts


def limit_specs(args: Arguments, specs: tuple[Arg, ...], call: ast.Call, env: Env, given: CallArgs | None
                ) -> tuple[Arg, ...]:
    """The places a request's limit is looked for, less a session's settings (``{method: create,
    keyword: config}``) where the call is given settings of its own under that keyword: a chat's
    ``send_message(msg, config=...)`` sends the call's config instead of the one the chat was
    created with."""
    own = {k for spec in specs if spec.method is None and spec.key
           and args.find(replace(spec, key=()), call, env, given) is not None for k in spec.keywords}
    return tuple(spec for spec in specs if spec.method is None or not own & set(spec.keywords))


def given_key(args: Arguments, spec: Arg, call: ast.Call, env: Env, given: CallArgs | None) -> str:
    """Which of a spec's keys the call gives (`max_length` of `input={...}`), for the message:
    the first present, in the order ``find`` reads them."""
    holder = args.find(replace(spec, key=()), call, env, given)
    members = args.members(holder[0], holder[1]) if holder is not None else None
    return next((key for key in spec.key if members and key in members), spec.key[-1])


def returned_beside(unit: Unit, call: ast.Call, built: Scope) -> list[ast.Call]:
    """The other chat models a factory of the module returns in its other branches, when it
    returns ``call`` (``if lmstudio: return ChatOpenAI(...)`` ... ``return ChatOllama(...)``): its
    callers send a request with whichever it builds (the receiver is followed to one)."""
    if not built_to_return(call, built):
        return []
    return [other for other, scope, _ in unit.holder_calls if scope is built and other is not call
            and built_to_return(other, scope)]


def posted_hint(sink: Sink, given: CallArgs) -> str:
    """Where a request's limit goes: Gemini's posted body keeps it in its ``generationConfig``."""
    if sink.payload and gemini_body(given.keywords):
        return "`maxOutputTokens` in the posted body's `generationConfig`"
    return sink.limit_hint


def built_to_return(call: ast.Call, built: Scope) -> bool:
    """Whether ``call`` is what a function of the module returns (``def default_model(): return
    Model(...)``): a factory, whose object is sent wherever its callers send it."""
    return built.kind == "function" and any(value is call for value in built.returns)


def sent_from(scope: Scope, built: Scope) -> bool:
    """Whether a request sent in ``scope`` uses an object built in ``built`` where the code shows
    both: the same function (or one nested in it), the module, or another method of its class."""
    current: Scope | None = scope
    while current is not None:
        if current is built or (current.kind == "function" and current.cls is not None
                                and current.cls is built.cls):
            return True
        current = current.parent
    return False


def asks_for_no_text(scope: Scope | None) -> bool:
    """Whether the code in ``scope`` asks a model for something other than text, which takes no
    output-token limit: it is a function or class named for embeddings (``embed_query``,
    ``BedrockEmbedding``: vectors, even through Bedrock's ``invoke_model``, which also serves text
    models), or its function asks for a media answer (``response_modalities=["IMAGE"]``, a chat
    completion's ``modalities=["image", "text"]``: media.media_answer)."""
    function = None
    while scope is not None:
        if scope.kind in ("function", "class") and "embed" in getattr(scope.node, "name", "").lower():
            return True
        if function is None and scope.kind == "function":
            function = scope.node
        scope = scope.parent
    return function is not None and any(
        isinstance(node, ast.keyword) and node.arg in ("response_modalities", "modalities")
        and isinstance(node.value, ast.List) and media_answer([_modality(e) for e in node.value.elts])
        for node in walk(function))  # any one: the fast walk's order does not matter


def _modality(node: ast.expr) -> str | None:
    """A modality as written: ``"image"``, or the member ``types.Modality.IMAGE`` names."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return node.attr if isinstance(node, ast.Attribute) else None


def in_test(scope: Scope | None) -> bool:
    """Whether ``scope`` is in a test: a function named ``test*`` or a class named ``Test*``,
    as pytest collects them."""
    while scope is not None:
        name = getattr(scope.node, "name", "")
        if scope.kind == "function" and (name == "test" or name.startswith("test_")):
            return True
        if scope.kind == "class" and name.startswith("Test") and (name[4:5] in ("", "_") or name[4:5].isupper()):
            return True  # TestCheckout, not Testimonials
        scope = scope.parent
    return False

def limit_configurable(call: ast.Call, holder: Holder) -> bool:
    """Whether the model is built with its output limit left to be set at run time: LangChain's
    ``init_chat_model(configurable_fields=("model", "max_tokens"))`` (or ``"any"``) takes the
    limit from each call's ``with_config``, out of sight of the place it is built."""
    limit_keys = {k for a in holder.arguments.get("limit", ()) for k in a.keywords}
    for keyword in call.keywords:
        if keyword.arg != "configurable_fields":
            continue
        value = keyword.value
        if isinstance(value, ast.Constant):
            return value.value == "any"
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
            return any(isinstance(e, ast.Constant) and e.value in limit_keys for e in value.elts)
        return True  # a configurable set the code does not show may name the limit
    return False
