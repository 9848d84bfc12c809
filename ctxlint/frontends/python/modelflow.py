"""A pydantic-ai model asked directly for an answer (``await model.request(messages,
model_settings=None, model_request_parameters=...)``) sends only the settings the model was built
with. When the function is given its model, the model is followed back through the project:
to each call of the function, the value passed, the factories that return it (across modules,
through wrappers such as ``InstrumentedModel(model)``), down to the places the models are built.
A model built there with no ``settings=`` gives this request no output limit."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.sinks import in_method, in_test
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Request

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer

# The kind of evidence of such a request (rules/**/CTX201).
UNSET_MODEL = "unset-model"
PYDANTIC_MODELS = "pydantic_ai.models"
# How many returns, assignments and wrappers one model is followed through.
MAX_HOPS = 8
# How many places a model is built without settings a finding names.
MAX_SHOWN = 6

Built = tuple["Analyzer | None", ast.Call, bool]  # (module, the call that builds a model, with settings)


class ModelFlow(Component):
    def requests(self) -> list[Request]:
        """Direct requests of a pydantic-ai model a function is given, with ``model_settings=None``,
        where a model the project builds with no settings reaches the function."""
        found = []
        for call, scope in self.m.calls:
            receiver = call.func.value if isinstance(call.func, ast.Attribute) \
                and call.func.attr in ("request", "request_stream") else None
            settings = _settings_argument(call)
            if not (isinstance(receiver, ast.Name) and isinstance(settings, ast.Constant) and settings.value is None
                    and scope.kind == "function" and receiver.id in scope.params
                    and self.calls.path(receiver, Env(scope)).startswith(PYDANTIC_MODELS)):
                continue
            unset = list({id(b[1]): b for b in self.given_models(scope, receiver.id) if not b[2]}.values())
            if not unset:
                continue
            steps = tuple(Evidence(EvidenceKind.FLOW, f"`{_short(b[1])}(...)` is built with no `settings=` and "
                                   f"reaches `{receiver.id}`", _unit(self, b[0]).span(b[1]))
                          for b in unset[:MAX_SHOWN])
            said = (f"`model_settings=None` sends only the settings `{receiver.id}` was built with, and "
                    f"{len(unset)} place(s) that build the models the project passes as `{receiver.id}` give none")
            found.append(Request(
                path=self.m.path, anchor=self.m.span(call), declares_settings=True, framework="pydantic-ai",
                settings_hint="`model_settings=ModelSettings(max_tokens=...)`",
                in_method=in_method(scope), in_test=in_test(scope), reserve_kind=UNSET_MODEL,
                reserve_evidence=(Evidence(EvidenceKind.SOURCE, said, self.m.span(settings)), *steps)))
        return found

    def given_models(self, scope: Scope, param: str) -> list[Built]:
        """The models the project's calls of the function of ``scope`` pass as ``param``, followed
        back to where they are built."""
        fn = scope.node
        name = getattr(fn, "name", "")
        project, file = self.m.project, self.m.file
        if project is None or file is None or scope.parent is None or scope.parent.kind != "module" or not name:
            return []
        position = scope.positional.index(param) if param in scope.positional else None
        found: list[Built] = []
        for path in project.callers(name):
            owner = None if path == file else project.analyzer(path)
            if owner is None and path != file:
                continue
            unit = owner.unit if owner is not None else self.m
            for call, where in unit.calls:
                if last_name(call.func) != name or not self.calls_this(owner, call, where, scope):
                    continue
                value = next((k.value for k in call.keywords if k.arg == param), None)
                if value is None and position is not None and position < len(call.args):
                    value = call.args[position]
                if value is not None:
                    found += self.built(owner, value, where, 0)
        return found

    def calls_this(self, owner: Analyzer | None, call: ast.Call, where: Scope, scope: Scope) -> bool:
        """Whether ``call`` (in ``where`` of ``owner``) calls the function of ``scope``, not another
        of the same name."""
        part = owner if owner is not None else self
        called = part.callees.function_for(call, Env(where), foreign=True, returns=False)
        if called is None:
            return False
        module = called.owner.unit.file if called.owner is not None else _unit(self, owner).file
        fn = scope.node
        return module == self.m.file and (called.fn.name, called.fn.lineno) == (getattr(fn, "name", ""),
                                                                                 getattr(fn, "lineno", 0))

    def built(self, owner: Analyzer | None, node: ast.expr, scope: Scope, hops: int) -> list[Built]:
        """Where the model ``node`` (in ``scope`` of ``owner``, None for this module) is built:
        through names assigned in the function, factories of the project it calls, a project's
        wrapper built around it (its first argument) and ``cast(...)``."""
        if hops > MAX_HOPS:
            return []
        node = node.value if isinstance(node, ast.Await) else node
        if isinstance(node, ast.Name):
            holder: Scope | None = scope  # the function, or one around it (a closure reads its name)
            while holder is not None and holder.kind != "class" and node.id not in holder.assigns:
                holder = holder.parent
            if holder is None or holder.kind == "class":  # a method does not see its class body's names
                return []
            return [b for r in holder.assigns.get(node.id, []) if r.kind == "=" and r.value is not None
                    for b in self.built(owner, r.value, holder, hops + 1)]
        if not isinstance(node, ast.Call):
            return []
        part = owner if owner is not None else self
        env = Env(scope)
        if part.calls.path(node.func, env).startswith(PYDANTIC_MODELS + "."):
            return [(owner, node, any(k.arg in ("settings", None) for k in node.keywords))]
        short = _short(node)
        if short == "cast" and len(node.args) == 2:
            return self.built(owner, node.args[1], scope, hops + 1)
        called = part.callees.function_for(node, env, foreign=True)
        if called is not None:
            inner = called.owner if called.owner is not None else owner
            return [b for value in called.returns for b in self.built(inner, value, called.env.scope, hops + 1)]
        if short[:1].isupper() and node.args and part.callees.class_of(node, env, True) is not None:
            return self.built(owner, node.args[0], scope, hops + 1)  # a wrapper class of the project
        return []


def _settings_argument(call: ast.Call) -> ast.expr | None:
    """What ``model.request(messages, model_settings, parameters)`` is given as its settings."""
    keyword = next((k.value for k in call.keywords if k.arg == "model_settings"), None)
    return keyword if keyword is not None else call.args[1] if len(call.args) > 1 else None


def _short(call: ast.Call) -> str:
    return last_name(call.func) or ""


def _unit(flow: ModelFlow, owner: Analyzer | None) -> Unit:
    return owner.unit if owner is not None else flow.m
