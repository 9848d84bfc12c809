"""A request sent with a chat model the project's own factory builds, by a function that holds an
output limit and does not give it to the factory (``def answer(..., max_tokens=4000)`` calling
``Provider.from_provider(name, **settings).llm.ainvoke(...)`` with no limit in ``settings``).

The factory builds LangChain chat models from what its caller gives it and sets no limit of its
own, so the request gets only what the call of the factory carries: the limit the function
holds is dropped on the way. The object the factory returns may wrap the model
(``cls(llm)``); the request is known by its method (``ainvoke``) on what the factory returned."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frameworks import Holder
from ctxlint.frontends.python.callees import Called
from ctxlint.frontends.python.knowledge import RUNNABLE_CALLS
from ctxlint.frontends.python.sinks import in_method, in_test
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Request
from ctxlint.providers import LIMIT_NAMES

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer

# The kind of evidence of such a request (rules/**/CTX201).
FACTORY_DROPPED = "factory-dropped"


class FactoryDrops(Component):
    def requests(self) -> list[Request]:
        found = []
        for call, scope in self.m.calls:
            func = call.func
            if not (isinstance(func, ast.Attribute) and func.attr in RUNNABLE_CALLS) or id(call) in self.m.sink_calls \
                    or scope.kind != "function":
                continue
            env = Env(scope)
            held = self.reserves.accepted_limit(scope)
            factory = self.factory_without_limit(func, env) if held is not None else None
            if held is None or factory is None:
                continue
            factory_call, built = factory
            found.append(factory_request(self.m, call, scope, built, factory_call, FACTORY_DROPPED, (
                Evidence(EvidenceKind.SOURCE, f"`{held[0]}` is held here", held[1]),
                Evidence(EvidenceKind.FLOW, f"`{self.m.short(factory_call.func)}(...)`, which builds the chat "
                         "model from what it is given and sets no limit of its own, is given none",
                         self.m.span(factory_call)))))
        return found

    def factory_without_limit(self, func: ast.Attribute, env: Env) -> tuple[ast.Call, Holder] | None:
        """The call along the request's receiver of a project function that builds chat models
        of the catalogue from what it is given and names no limit itself, when the call gives it
        none (every keyword seen, none a limit); with the kind of model it builds."""
        for inner, inner_env in self.calls.receiver_calls(func, env):
            target = self.callees.function_for(inner, inner_env, foreign=True)
            if target is None:
                continue
            built = _builds_chat_models(target, self.m.analyzer if target.owner is None else target.owner)
            if built is None:
                return None
            given = self.args.of(inner, inner_env)
            if given.opaque or any(k in LIMIT_NAMES for k in given.keywords):
                return None
            return inner, built
        return None


def _builds_chat_models(target: Called, owner: Analyzer | None) -> Holder | None:
    """The chat model a function of the project builds from its ``**`` parameter, in every place
    it builds one (`ChatOpenAI(**kwargs)`), when the function names no output limit: the models
    get only what its caller gives."""
    fn = target.fn
    kwarg = fn.args.kwarg
    if owner is None or kwarg is None or owner.unit.names_a_limit(fn):
        return None
    unit = owner.unit
    found = None
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        scope = unit.scope_of(node)
        if scope is None:
            continue
        holder = next((h for h in unit.catalogue.holders.match(owner.calls.path(node.func, Env(scope)))
                       if isinstance(h, Holder)), None)
        if holder is None or holder.standalone or not holder.arguments.get("limit"):
            continue
        if not any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwarg.arg for k in node.keywords):
            return None  # a model built from settings of its own may carry a limit
        if holder.default_limit is None:  # ChatAnthropic sends a limit of its own
            found = found or holder
    return found


def factory_request(m: Unit, at: ast.Call, scope: Scope, holder: Holder, factory_call: ast.Call, kind: str,
                    evidence: tuple[Evidence, ...]) -> Request:
    """The request sent at ``at`` with a chat model a project factory builds (``factory_call``),
    whose limit is to be set in what the factory is given."""
    return Request(path=m.path, anchor=m.span(at), declares_settings=True, framework=holder.framework,
                   settings_hint=f"{holder.limit_hint or 'an output limit'} in what `{m.short(factory_call.func)}"
                                 "(...)` is given",
                   in_method=in_method(scope), in_test=in_test(scope), reserve_kind=kind, reserve_evidence=evidence)
