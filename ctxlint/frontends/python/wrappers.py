"""Function summaries: the project's own functions that send a request are sinks too.

Real code reaches a model through its own wrappers (``self.llm.chat(messages)`` where ``chat``
calls ``client.chat.completions.create``). A function whose body makes a sink call of the
catalogue, directly or through another such function, is summarised once, in its own module,
as the request it sends with *holes* where its parameters go (CodeQL's flow summaries): a
parameter passed as the message list, or interpolated into a message's text, and the parameter
(or ``**kwargs``) its output limit comes from. A call of it -- a function of the module, a
method of the class it is called on or of a base class, the override a subclass of the project
gives an abstract method, or a function of another module of the project -- becomes a request
of the caller: the summary with each hole filled by the caller's argument, read where the caller
writes it. The caller's prompt text, with its facts, is then checked as what is sent; a limit
the wrapper takes from its caller and is not given is the caller's finding. A hole the call leaves
out whose default is None or empty (``format_msgs=None``) sends nothing there.

A wrapper that passes its ``**kwargs`` on takes its holes by keyword: a local it takes out of
them (``messages = kwargs.pop("messages")``) is filled by the caller's ``messages=``, and a dict it
builds in place around them (``{**base_args, **kwargs}``) is read part by part. The function it
calls may be one a ``self.`` attribute holds (``self._send_async``, a nested function a maker
returned; callees.held_function).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frameworks import Sink
from ctxlint.frontends.code.pieces import Builder, Piece
from ctxlint.frontends.python.callerunits import position_of
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.dispatch import called_parameter, named_call
from ctxlint.frontends.python.kwargs_uses import limit_only_in_text, limit_only_renamed
from ctxlint.frontends.python.nodes import abstract, none_written, walk
from ctxlint.frontends.python.nonefields import FIELD_NONE, defaulted_field
from ctxlint.frontends.python.owncode import users_settings
from ctxlint.frontends.python.paramdefaults import empty_by_default, falls_back
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.sendsummary import Summary, param_hole
from ctxlint.frontends.python.spreadparams import callers_dict_none
from ctxlint.frontends.python.spreads import FIELD, KWARGS, PARAMETER, SUBCLASS
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Bound, Env, Scope, in_method
from ctxlint.model import Evidence, EvidenceKind, OutputLimit, Request, SourceKind
from ctxlint.providers import LIMIT_KEYWORDS

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer

# The kinds of evidence of a call that leaves unset the limit a wrapper takes from its caller: by a
# parameter, or by the `**kwargs` that is its only way to a limit (rules/**/CTX201).
WRAPPER_CALL, KWARGS_UNSET = "wrapper-call", "kwargs-unset"
# ... and with the rest of its settings from a field the user configures, empty by default.
SETTINGS_UNSET = "settings-unset"
# How many wrappers deep a summary is built (a service calling a client class calling the SDK
# is two); a function beyond that sends nothing as far as its callers are concerned.
MAX_WRAPPING = 4


class Wrappers(Component):
    def __init__(self, unit: Unit) -> None:
        super().__init__(unit)
        # The evidence of each call taken for a method of a base class by the method's name alone
        # (basemethods.py), by id of the call.
        self.taken_by_name: dict[int, Evidence] = {}

    def requests(self) -> list[Request]:
        """One request for each call of a project function that sends one."""
        self.taken_by_name.clear()
        found = []
        for call, env, target, reader, summary in self.wrapped_calls(self.m.calls, MAX_WRAPPING):
            request = self.apply(summary, reader, call, env, target)
            named = self.taken_by_name.get(id(call))
            if request is not None and named is not None:
                request = replace(request, reserve_evidence=(*request.reserve_evidence, named))
            found.append(request)
        return [request for request in found if request is not None]

    def wrapped_calls(self, calls: Iterable[tuple[ast.Call, Scope]], depth: int) -> Iterator[
            tuple[ast.Call, Env, tuple[Analyzer | None, FunctionNode, Scope, bool], Analyzer, Summary]]:
        """The calls among ``calls`` of project functions that send a request (looked for ``depth``
        calls deep): each with its function, the analyzer that reads it and what it sends."""
        for call, scope in calls:
            if id(call) in self.m.sink_calls or last_name(call.func) is None:
                continue
            env = Env(scope)
            target = self.callee(call, env)
            if target is None:
                continue
            owner, fn, fn_scope, _ = target
            reader = owner if owner is not None else self.m.analyzer
            summary = reader.wrappers.summary(fn, fn_scope, depth)
            if summary is not None:
                yield call, env, target, reader, summary

    # ---- at the call site ----------------------------------------------------------------------------

    def apply(self, summary: Summary, reader: Analyzer, call: ast.Call, env: Env,
              target: tuple[Analyzer | None, FunctionNode, Scope, bool]) -> Request | None:
        """The summary's request with its holes filled by ``call``'s arguments."""
        given = {b.param: b for b in self.callees.bind(call, env, target) if b.env is env}
        if summary.posted is not None:
            return self.posted(summary, reader, call, env, given)
        builder = Builder()
        inner = summary.request
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        handed = keywords.get("messages") if summary.kwargs is not None and not inner.segments else None
        if handed is not None:  # `**kwargs` passed on to the model: the caller's `messages=` is the list sent
            self.messages.message_list(handed, env, builder)
        params = summary.params
        if summary.kwargs is not None:  # `messages = kwargs.pop("messages")`: a hole the caller fills by keyword
            for local, key in _taken_from(summary.function, summary.kwargs).items():
                if key in keywords and local not in given:
                    given[local] = Bound(local, keywords[key], env)
                    params += (local,)
            for passed in summary.passed_on:
                if passed in keywords and passed not in given:
                    given[passed] = Bound(passed, keywords[passed], env)
        for index in sorted({s.message_index for s in inner.segments}):
            segments = [s for s in inner.segments if s.message_index == index]
            hole = param_hole(segments[0], params) if len(segments) == 1 else None
            # the list the wrapper sends, or a list given where it takes a text or a list
            if hole is not None and hole in given and segments[0].slot is not None and segments[0].loop is None \
                    and (segments[0].slot.variable_length
                         or self.containers.items(given[hole].node, env) is not None) \
                    and not self.given_text(given[hole].node, env):
                self.messages.message_list(given[hole].node, env, builder)
                continue
            if hole is not None and hole in given and self.given_text(given[hole].node, env) \
                    and any(param_hole(s, params) == hole and s.slot is not None and not s.slot.variable_length
                            for s in inner.segments if s.message_index != index):
                continue  # `else: message.extend(msg)`, given a text: the wrapper's branch for a text sends it
            builder.next_message()
            for segment in segments:
                if _runs_no_time(segment.loop, summary.function, given):
                    continue  # `for turn in turns:` over a `*turns` this call gives nothing
                name = param_hole(segment, params)
                if name is not None and name not in given and empty_by_default(summary.function, name):
                    continue  # `format_msgs=None` left out by this caller: the wrapper sends nothing there
                if name is not None and name in given:
                    pieces = self.strings.pieces(given[name].node, env)
                    if segment.span.path != self.m.path:
                        # the caller's text goes through the wrapper's own: where the wrapper puts it
                        placed = Evidence(EvidenceKind.FLOW, f"put into the message by `{summary.function.name}` "
                                                             f"({segment.span.path}, line {segment.span.line})",
                                          segment.span)
                        pieces = [_placed(piece, placed) for piece in pieces]
                    builder.add(pieces, segment.role, segment.loop)
                else:
                    builder.segments.append(replace(segment, message_index=max(builder.message_index, 0)))
        limit, reserve_kind, evidence = self.limit(summary, reader, call, env, given)
        home = (summary.sender or reader).unit
        inner_name = summary.sender_name
        through = f" through `{inner_name}`" if inner_name not in (None, summary.function.name) else ""
        sent_by = Evidence(EvidenceKind.FLOW, f"sent by `{summary.function.name}`{through} ({home.path}, line "
                                              f"{summary.sink_call.lineno})", home.span(summary.sink_call))
        return replace(
            inner, path=self.m.path, anchor=self.m.span(call), segments=tuple(builder.segments),
            output_limit=limit,
            # What the wrapper sends whatever its caller does is its own call site's finding.
            declares_settings=(inner.declares_settings or summary.limit_from_kwargs)
            and (limit is not None or reserve_kind in (WRAPPER_CALL, KWARGS_UNSET, SETTINGS_UNSET, FIELD_NONE)),
            in_method=in_method(env.scope), reserve_kind=reserve_kind,
            settings_hint=(f"`{summary.limit_param or summary.limit_key}=` in this call of `{summary.function.name}`"
                           if reserve_kind in (WRAPPER_CALL, KWARGS_UNSET, SETTINGS_UNSET)
                           else f"a default for {defaulted_field(evidence)}" if reserve_kind == FIELD_NONE
                           else inner.settings_hint),
            reserve_evidence=(*evidence, *((summary.handed_on,) if summary.handed_on is not None else ()), sent_by,
                              *((summary.body,) if summary.body is not None else ())),
            messages=(), api=None)

    def given_text(self, node: ast.expr, env: Env) -> bool:
        """Whether a call gives text where the wrapper takes a text or a list (``if isinstance(msg,
        str): ... else: message.extend(msg)``): one message of that text, not a list of turns."""
        return self.containers.items(node, env) is None and self.strings.text(node, env) is not None

    def posted(self, summary: Summary, reader: Analyzer, call: ast.Call, env: Env, given: dict) -> Request | None:
        """The request a caller's dict makes, posted by the helper as its body."""
        assert summary.posted is not None
        param, sink = summary.posted
        bound = given.get(param)
        # a body handed on in the helper's `**kwargs` is the caller's keyword of that name (`json=`)
        node = bound.node if bound is not None else next((k.value for k in call.keywords if k.arg == param), None)
        body = self.args.body(node, env) if node is not None else None
        request = self.sinks.request(call, env, sink, True, body) if body is not None else None
        if request is None:
            return None
        sent_by = Evidence(EvidenceKind.FLOW, f"posted by `{summary.function.name}` ({reader.unit.path}, line "
                                              f"{summary.sink_call.lineno})", reader.unit.span(summary.sink_call))
        return replace(request, reserve_evidence=(*request.reserve_evidence, sent_by))

    def limit(self, summary: Summary, reader: Analyzer, call: ast.Call, env: Env, given: dict
              ) -> tuple[OutputLimit | None, str, tuple[Evidence, ...]]:
        """The output limit of the call: the wrapper's own, or what the caller gives the
        parameter it comes from; with the kind of evidence when the caller leaves it unset."""
        inner = summary.request.output_limit
        key = summary.limit_key
        if summary.limit_param is not None:
            bound = given.get(summary.limit_param)
            if bound is not None:
                ok, value = self.flow.literal(bound.node, env)
                if not (ok and value is None):
                    number = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
                    return OutputLimit(key, number, self.m.span(bound.node)), "", ()
            elif summary.limit_default is not None and not none_written(summary.limit_default):
                return inner, "", ()
            return None, WRAPPER_CALL, (Evidence(
                EvidenceKind.FLOW, f"`{summary.function.name}` takes its limit from `{summary.limit_param}`, "
                                   "which this call leaves unset", self.m.span(call)),)
        if summary.kwargs is not None and inner is None:
            home = (summary.sender or reader).unit
            if summary.request.reserve_kind == KWARGS and id(summary.sink_call) in home.parents:
                return None, "", ()  # reported once, where the wrapper sends it
            # sent through a helper handed the SDK's function (`create(**params)`, a call made up for
            # the summary): the wrapper's module reports no request there, the calls that reach it do
            keywords = [k for k in call.keywords if k.arg is not None and k.arg not in summary.params]
            spreads = [k.value for k in call.keywords if k.arg is None]
            own = env.scope.node.args.kwarg if isinstance(env.scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                else None
            if len(spreads) == 1 and not any(k.arg in LIMIT_KEYWORDS for k in keywords):
                steps = callers_dict_none(self.m, self.scopes, spreads[0], env, _holds_no_limit)
                if steps:  # a dict of settings every caller fills with a limit None by default
                    return None, FIELD_NONE, steps
                if steps is not None and summary.limit_from_kwargs and summary.settings is not None:
                    spreader = getattr(env.scope.node, "name", "the function")
                    given_none = Evidence(EvidenceKind.FLOW, f"`{spreader}` spreads into the call the settings its "
                                          "callers give it, which hold no limit, and the call gives none besides",
                                          self.m.span(call))
                    return None, SETTINGS_UNSET, (given_none, summary.settings)
            # the caller's own `**kwargs`, passed on: its callers are the ones to give a limit, or not
            if any(own is not None and _names(spread, own.arg) or users_settings(self.m, spread, env)
                   for spread in spreads) or not all(self.holds_no_limit(spread, env) for spread in spreads):
                return None, "", ()  # `**options` the caller (or the class's user) gives may hold the limit
            hit = next((k for k in keywords if k.arg == key or k.arg in LIMIT_KEYWORDS), None)
            if hit is not None:
                ok, value = self.flow.literal(hit.value, env)
                number = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
                return OutputLimit(hit.arg or key, number, self.m.span(hit)), "", ()
            unset = Evidence(EvidenceKind.FLOW, f"`{summary.function.name}` passes its `**{summary.kwargs}` on to the "
                                                "call, and this call gives no limit in it", self.m.span(call))
            if summary.limit_from_kwargs and summary.settings is not None:
                return None, SETTINGS_UNSET, (unset, summary.settings)
            return None, KWARGS_UNSET if summary.limit_from_kwargs else WRAPPER_CALL, (unset,)
        return inner, "", ()

    def callee(self, call: ast.Call, env: Env) -> tuple[Analyzer | None, FunctionNode, Scope, bool] | None:
        """``callees.callee``, with an abstract method replaced by the first override of a
        subclass of the project that sends a request."""
        found = self.callees.callee(call.func, env, foreign=True)
        if found is None:
            by_name = self.m.analyzer.base_methods.callee(call, env)
            if by_name is None:
                return None
            found, self.taken_by_name[id(call)] = by_name
        owner, fn, scope, method = found
        if method and abstract(fn):
            override = self.override(owner, scope, fn.name)
            if override is not None:
                return (*override, method)
        return found

    def override(self, owner: Analyzer | None, scope: Scope, name: str
                 ) -> tuple[Analyzer | None, FunctionNode, Scope] | None:
        """The override of ``name`` a subclass of the project gives that sends a request: the first
        one that sets a limit of its own when as many do as do not (the subclass the object is may
        well be that one), else the first one that sets none (most subclasses the object may be
        send no limit). Of those, one whose request shows its messages comes before one that builds
        them where the code cannot follow (a spread of a base's helper in another module): both send
        what they are given, and only the first says what."""
        project = self.m.project
        cls = scope.parent
        if project is None or cls is None or not isinstance(cls.node, ast.ClassDef):
            return None
        limited: list[tuple[bool, tuple[Analyzer | None, FunctionNode, Scope]]] = []
        unlimited: list[tuple[bool, tuple[Analyzer | None, FunctionNode, Scope]]] = []
        for path, class_name in project.subclasses(cls.node.name):
            analyzer = project.analyzer(path)
            if analyzer is None:
                continue
            entry = analyzer.unit.module_scope.functions.get(class_name)
            if entry is None or not isinstance(entry[0], ast.ClassDef):
                continue
            method = entry[1].functions.get(name)
            if method is None or not isinstance(method[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            summary = analyzer.wrappers.summary(method[0], method[1], MAX_WRAPPING)
            if summary is None:
                continue
            found = (analyzer if analyzer.unit is not self.m else None), method[0], method[1]
            shown = bool(summary.request.segments)
            (limited if summary.request.output_limit is not None else unlimited).append((not shown, found))
        chosen = limited if limited and len(limited) >= len(unlimited) else unlimited
        return min(chosen, key=lambda entry: entry[0])[1] if chosen else None  # the first that shows them

    # ---- in the function's own module ------------------------------------------------------------------

    def summary(self, fn: FunctionNode, scope: Scope, depth: int) -> Summary | None:
        """What ``fn`` sends (its first sink call, or the first call of a function that sends
        one, looked for ``depth`` calls deep), worked out once per depth and kept with the module:
        an answer worked out deeper is not reused for a shallower question, or what a file is told
        would depend on what another file linted before it asked (code/summaries.py)."""
        return self.m.summaries.get((id(fn), depth), lambda: self._summary(fn, scope, depth),
                                    self.m.cut_short)

    def _summary(self, fn: FunctionNode, scope: Scope, depth: int) -> Summary | None:
        calls = self.m.calls_in(scope)
        sends = self.m.summaries.get((id(fn), "sends"), lambda: self._sends(fn, scope, calls), self.m.cut_short)
        if sends is not None or depth <= 1:
            return sends
        # methods named by a string come last, and are looked up only when no plain call sends
        named = ((made, call_scope) for call, call_scope in calls
                 if isinstance(call.func, ast.Attribute) and call.args
                 and (made := named_call(self.m, self.callees, call, Env(call_scope))) is not None)
        # Of the calls that send, the first whose message takes a parameter of the function (a REPL
        # that sends the text it is given, where an earlier branch sends the last answer again).
        sending = list(itertools.islice(((found, request) for found in self.wrapped_calls(
            itertools.chain(calls, named), depth - 1) if (request := self.apply(
                found[4], found[3], found[0], found[1], found[2])) is not None), _MAX_SENDING))
        sending.sort(key=lambda entry: not any(param_hole(s, _params(fn)) for s in entry[1].segments))
        for (call, env, _, reader, inner), request in sending[:1]:
            keywords = self.opened_keywords(call, env)
            kwargs = _kwargs(fn, keywords)
            passed_on = _passed_on(call, inner.params) if kwargs is not None else ()
            handed_on = Evidence(EvidenceKind.FLOW, f"`{fn.name}` passes its `**{kwargs}` on to "
                                                    f"`{inner.function.name}`", self.m.span(call)) \
                if kwargs is not None else None
            return replace(inner, function=fn, request=request, params=_params(fn) + passed_on, passed_on=passed_on,
                           handed_on=handed_on,
                           sender_name=inner.sender_name or inner.function.name,
                           limit_param=_param_named(fn, inner, call), kwargs=kwargs,
                           sender=inner.sender or (reader if reader is not self.m.analyzer else None),
                           limit_from_kwargs=inner.limit_from_kwargs
                           and self.passes_kwargs_only(fn, keywords, kwargs, env))
        return None

    def _sends(self, fn: FunctionNode, scope: Scope, calls: list[tuple[ast.Call, Scope]]) -> Summary | None:
        """What ``fn``'s own first sink call sends (or the body it posts of a parameter): the part of
        its summary that is the same at every depth, worked out once and kept as the summaries are."""
        # the SDK's function handed to a helper that calls it, read as the call it makes
        handed = ((made, call_scope) for call, call_scope in calls
                  if call.args and (made := called_parameter(self.m, self.callees, call, Env(call_scope))) is not None)
        for call, call_scope in itertools.chain(calls, handed):
            if not self.sinks.may_be_sink(call):
                continue
            env = Env(call_scope)
            matched = self.sinks.match(call, env)
            if matched is None:
                continue
            request = self.sinks.request(call, env, *matched)
            if request is not None:
                return self._summarise(fn, scope, call, env, matched, request)
            posted = self.args.posted_parameter(call, env, matched[0]) if matched[0].payload else None
            if posted is not None:
                empty = Request(self.m.path, self.m.span(call))
                return Summary(fn, empty, _params(fn), "max_tokens", None, None, None, call, (posted, matched[0]))
        return None

    def _summarise(self, fn: FunctionNode, scope: Scope, call: ast.Call, env: Env, matched: tuple[Sink, bool],
                   request: Request) -> Summary:
        sink, typed = matched
        limit_param = default = None
        key = "max_tokens"
        for spec in sink.arguments.get("limit", ()):
            key = spec.key[0] if spec.key else spec.keywords[0] if spec.keywords else key
            entry = self.args.find(spec, call, env)
            if entry is not None and isinstance(entry[0], ast.Name) and entry[0].id in scope.params:
                if not falls_back(fn, entry[0].id, call):
                    limit_param, default = entry[0].id, scope.params[entry[0].id].default
                break
        keywords = self.opened_keywords(call, env)
        kwargs = _kwargs(fn, keywords)
        bare = self.without_kwargs(fn, call, keywords, env, sink, typed, request, kwargs) \
            if limit_param is None else None
        return Summary(fn, request, _params(fn), key, limit_param, default, kwargs, call,
                       body=self.body(call, env) if bare is not None else None,
                       limit_from_kwargs=bare is not None,
                       settings=bare.reserve_evidence[0] if bare is not None and bare.reserve_kind == FIELD
                       and bare.reserve_evidence else None)

    def body(self, call: ast.Call, env: Env) -> Evidence | None:
        """Where the dict spread into the sink call as its keywords is built (``request_params =
        {"model": model, "messages": messages, **kwargs}``), when the function builds it."""
        spread = next((k.value for k in call.keywords if k.arg is None), None)
        if not isinstance(spread, ast.Name):
            return None
        binding = self.scopes.resolve(spread, env)
        if binding is None or binding.owner is not None or not isinstance(binding.value, ast.Dict):
            return None
        return Evidence(EvidenceKind.FLOW, f"the request's keywords are built as `{spread.id}` (line "
                                           f"{binding.value.lineno}), with no limit of their own",
                        self.m.span(binding.value))

    def without_kwargs(self, fn: FunctionNode, call: ast.Call, keywords: list[ast.keyword], env: Env,
                       sink: Sink, typed: bool, request: Request, kwargs: str | None) -> Request | None:
        """The request the sink call ``call`` makes without ``fn``'s own ``**kwargs``, when that
        is its only way to a limit: a request that declares none (None otherwise)."""
        # None by default and sent by a call of the module's own: reported there, not at its callers
        reported = request.declares_settings and (request.reserve_kind != KWARGS or id(call) in self.m.parents)
        if request.output_limit is not None or reported or not self.passes_kwargs_only(fn, keywords, kwargs, env):
            return None
        rest = [k for k in keywords if not (k.arg is None and _names(k.value, kwargs))]
        probe = ast.copy_location(ast.Call(call.func, call.args, rest), call)
        self.m.probes.append(probe)
        bare = self.sinks.request(probe, env, sink, typed)
        # settings empty by default beside it (`**config.call_args`) leave the request without one too
        return bare if bare is not None and bare.declares_settings and bare.output_limit is None \
            and bare.reserve_kind in ("", PARAMETER, FIELD, SUBCLASS) else None

    def passes_kwargs_only(self, fn: FunctionNode, keywords: list[ast.keyword], kwargs: str | None,
                           env: Env) -> bool:
        """Whether a call given ``keywords`` spreads ``fn``'s ``**kwargs`` and otherwise only dicts
        the code shows, with no limit keyword, from a function that names no limit and only
        passes its ``**kwargs`` on."""
        if kwargs is None or (self.m.names_a_limit(fn) and not limit_only_renamed(self.m, fn, kwargs)
                              and not limit_only_in_text(self.m, fn)) \
                or any(k.arg in LIMIT_KEYWORDS for k in keywords):
            return False
        others = [k.value for k in keywords if k.arg is None and not _names(k.value, kwargs)]
        return all(self.holds_no_limit(value, env) for value in others) and self.spreads.kwargs_only_passed(fn, kwargs)

    def holds_no_limit(self, node: ast.expr, env: Env, depth: int = 0) -> bool:
        """Whether a dict spread into the call holds no output limit as the code shows it: its
        keys are known and none is a limit, or it is a dict built in place of such parts and
        of settings that are empty by default (``{"model": m, **config.call_args}``)."""
        entries = self.spreads.entries(node, env)[0]
        if entries is not None:
            return not any(key in LIMIT_KEYWORDS for key in entries)
        if depth < 3 and isinstance(node, ast.Name) and (binding := self.scopes.resolve(node, env)) is not None \
                and isinstance(binding.value, ast.Dict) and not binding.extras:
            node, env = binding.value, binding.env
        if isinstance(node, ast.Dict) and depth < 3:
            return all((v is not None and self.holds_no_limit(v, env, depth + 1)) if k is None else
                       isinstance(k, ast.Constant) and k.value not in LIMIT_KEYWORDS
                       for k, v in zip(node.keys, node.values, strict=True))
        return self.spreads.empty_by_default(node, env) is not None

    def opened_keywords(self, call: ast.Call, env: Env) -> list[ast.keyword]:
        """``call``'s keywords, each spread of a dict the function builds in place opened into its
        items (``**new_args`` of ``new_args = {**base_args, **kwargs}``, keys set on it after
        included): what the call is given, key by key or spread by spread."""
        opened: list[ast.keyword] = []
        for keyword in call.keywords:
            binding = self.scopes.resolve(keyword.value, env) \
                if keyword.arg is None and isinstance(keyword.value, ast.Name) else None
            if binding is None or binding.env.scope is not env.scope or not isinstance(binding.value, ast.Dict) \
                    or any(extra.kind != "setitem" for extra in binding.extras):
                opened.append(keyword)
                continue
            built = binding.value
            items = [*zip(built.keys, built.values, strict=True),
                     *((getattr(extra.target, "slice", None), extra.value) for extra in binding.extras)]
            for key, value in items:
                name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
                if value is None or (key is not None and name is None):
                    return call.keywords  # a key the code computes: read as written
                opened.append(ast.copy_location(ast.keyword(name, value), value))
        return opened


# How many of a function's sending calls are read for one that takes its parameters.
_MAX_SENDING = 4


def _params(fn: FunctionNode) -> tuple[str, ...]:
    args = fn.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return tuple(n for n in names if n not in ("self", "cls"))


def _kwargs(fn: FunctionNode, keywords: list[ast.keyword]) -> str | None:
    """The ``**kwargs`` parameter of ``fn`` when a call given ``keywords`` spreads it."""
    kwarg = fn.args.kwarg
    if kwarg is None:
        return None
    return kwarg.arg if any(k.arg is None and _names(k.value, kwarg.arg) for k in keywords) else None


def _placed(piece: Piece, step: Evidence) -> Piece:
    """``piece`` with ``step`` on the way of each third-party source of its value."""
    slot = piece.slot
    if slot is None or not any(s.kind is SourceKind.UNTRUSTED for s in slot.sources):
        return piece
    sources = tuple(replace(s, flow=(*s.flow, step)) if s.kind is SourceKind.UNTRUSTED else s for s in slot.sources)
    return replace(piece, slot=replace(slot, sources=sources))


def _passed_on(call: ast.Call, params: tuple[str, ...]) -> tuple[str, ...]:
    """The holes ``params`` of the function ``call`` calls that its arguments do not name: a call
    that spreads the caller's ``**kwargs`` fills them from it."""
    positional = sum(1 for a in call.args if not isinstance(a, ast.Starred))
    if positional < len(call.args):
        return ()  # a `*args` spread: which parameter each position fills is unknown
    named = {k.arg for k in call.keywords}
    return tuple(p for p in params[positional:] if p not in named)


def _taken_from(fn: FunctionNode, kwargs: str) -> dict[str, str]:
    """The locals ``fn`` takes out of its ``**kwargs`` by key (``messages = kwargs.pop("messages")``,
    ``kwargs["messages"]``, ``kwargs.get("messages")``): local name -> key."""
    taken: dict[str, str] = {}
    for node in walk(fn):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0] if len(node.targets) == 1 else None
        if not isinstance(target, ast.Name):
            continue
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("pop", "get") \
                and _names(value.func.value, kwargs) and value.args:
            key = value.args[0]
        elif isinstance(value, ast.Subscript) and _names(value.value, kwargs):
            key = value.slice
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            taken.setdefault(target.id, key.value)
    return taken


def _holds_no_limit(unit: Unit, node: ast.expr, env: Env) -> bool:
    """``Wrappers.holds_no_limit`` read in the module of ``unit``."""
    return unit.analyzer.wrappers.holds_no_limit(node, env)


def _names(node: ast.expr, name: str | None) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _param_named(fn: FunctionNode, inner: Summary, call: ast.Call) -> str | None:
    """The parameter of ``fn`` that ``call`` passes on as the inner wrapper's limit parameter, by
    keyword or in its place (``send_request(llm, messages, max_tokens)``)."""
    if inner.limit_param is None:
        return None
    passed = next((k.value for k in call.keywords if k.arg == inner.limit_param), None)
    position = position_of(inner.function, inner.limit_param)
    if passed is None and position is not None and position < len(call.args) \
            and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        passed = call.args[position]
    if isinstance(passed, ast.Name) and passed.id in _params(fn):
        return passed.id
    return None


def _runs_no_time(loop: str | None, function: FunctionNode, given: dict[str, Bound]) -> bool:
    """Whether ``loop`` (a loop's text) is over the wrapper's ``*args``, which the call binds to nothing."""
    vararg = function.args.vararg
    bound = given.get(vararg.arg) if vararg is not None and loop == vararg.arg else None
    return bound is not None and isinstance(bound.node, ast.Tuple) and not bound.node.elts
