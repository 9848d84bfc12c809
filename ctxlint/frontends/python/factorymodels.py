"""A chat model the project's own factory builds (``llm = get_chat_model(name, max_tokens=max_tokens)``
returning ``ChatOpenAI(**params)``) with a limit that is None unless someone outside the code sets
it (a web request's parameter declared with no value, a setting None by default: unsetvalues.py),
which the function gives, as its model, to an object of a framework the catalogue knows
(``LLMChain(llm=llm, prompt=prompt)``), or to a function of the project that does
(``SummaryAdapter.form_summary(llm=llm)`` building ``LLMChain(llm=llm, ...)``): the framework runs
its requests with the model's own settings, and so with no limit by default. Reported at the call
of the factory, where the limit is given; a model sent by the function itself is reported where
it is sent (sinks.py)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.factorydrops import factory_request
from ctxlint.frontends.python.knowledge import MODEL_KEYWORDS, RUNNABLE_CALLS
from ctxlint.frontends.python.limitplaces import unset_limit
from ctxlint.frontends.python.nodes import parameter_names, walk
from ctxlint.frontends.python.nonefields import FIELD_NONE
from ctxlint.frontends.python.reserves import result_kept
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Request

if TYPE_CHECKING:
    from ctxlint.frameworks import Holder
    from ctxlint.frontends.python.analyzer import Analyzer


class FactoryModels(Component):
    def requests(self) -> list[Request]:
        found = []
        for call, scope in self.m.calls:
            if scope.kind != "function" or id(call) in self.m.sink_calls \
                    or self.reserves.assigned(call, scope) is None:
                continue
            # what the model is read as, walked once; only a model given by keyword to a call can
            # be handed on, so the resolving below is skipped for every other assignment
            reads = self.reserves.holding(call, scope)[1:]
            if not any(isinstance(k := self.m.parents.get(id(r)), ast.keyword) and k.arg is not None for r in reads):
                continue
            env = Env(scope)
            if self.callees.function_for(call, env, foreign=True, returns=False) is None:
                continue  # not a function of the project
            held = self.calls.holder(call, env)
            if held is None or held[1] is call:
                continue
            holder, built, built_env = held
            steps = self._unset(holder, built, built_env)
            handed = self._handed(reads, scope) if steps is not None and not self._sent_here(reads) else None
            if steps is None or handed is None:
                continue
            kind, evidence = steps
            found.append(factory_request(self.m, call, scope, holder, call, kind, (*evidence, Evidence(
                EvidenceKind.SOURCE, f"`{self.m.short(built.func)}(...)` is built with that limit",
                self.calls.sinks_of(built).m.span(built)), handed)))
        return found

    def _unset(self, holder: Holder, built: ast.Call, env: Env) -> tuple[str, tuple[Evidence, ...]] | None:
        """The kind and steps that show the limit of the chat model ``built`` holds only what
        someone outside the code sets, None by default."""
        if holder.standalone or holder.default_limit is not None or holder.model_carries_limit \
                or holder.limit_per_call or not holder.arguments.get("limit") \
                or self.reserves.limited_model(built, env, holder):
            return None
        sinks = self.calls.sinks_of(built)
        entries = [entry for spec in holder.arguments["limit"]
                   if (entry := sinks.args.find(spec, built, env)) is not None]
        said = unset_limit(sinks, entries[0]) if len(entries) == 1 else None
        # a field of the project's own class None by default is judged where the model is sent
        # (sinks.settings), with the field's defaults as its hint
        return said if said is not None and said[0] != FIELD_NONE else None

    def _sent_here(self, reads: list[ast.expr]) -> bool:
        """Whether the function sends a request with the model it ``reads`` itself (``llm.invoke(...)``,
        a pipe ``prompt | llm``): that request is reported where it is sent."""
        for value in reads:
            parent = self.m.parents.get(id(value))
            if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.BitOr):
                return True
            if not isinstance(parent, ast.Attribute):
                continue
            method = self.m.parents.get(id(parent))
            if isinstance(method, ast.Call) and (id(method) in self.m.sink_calls or parent.attr in RUNNABLE_CALLS):
                return True
        return False

    def _handed(self, reads: list[ast.expr], scope: Scope) -> Evidence | None:
        """Where the model the function ``reads`` is given to a framework as its model, here or by
        the function of the project it is given to."""
        for value in reads:
            keyword = self.m.parents.get(id(value))
            use = self.m.parents.get(id(keyword))
            if not (isinstance(keyword, ast.keyword) and keyword.arg is not None and isinstance(use, ast.Call)):
                continue
            if keyword.arg in MODEL_KEYWORDS and self.reserves.framework_call(use) and result_kept(self.m, use):
                return Evidence(EvidenceKind.FLOW, f"given to `{self.m.short(use.func)}(...)` as `{keyword.arg}=`",
                                self.m.span(use))
            target = self.callees.function_for(use, Env(scope), foreign=True, returns=False)
            if target is not None and result_kept(self.m, use):
                inner = _hands_to_framework(target.owner or self.m.analyzer, target.fn, keyword.arg)
                if inner is not None:
                    return inner
        return None


def _hands_to_framework(owner: Analyzer, fn: ast.AST, param: str) -> Evidence | None:
    """Where the function ``fn`` gives its parameter ``param`` to a framework as its model
    (``LLMChain(llm=llm, prompt=prompt)``), keeping what it builds."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or param not in parameter_names(fn):
        return None
    unit = owner.unit
    for node in walk(fn):
        if not (isinstance(node, ast.keyword) and node.arg in MODEL_KEYWORDS and isinstance(node.value, ast.Name)
                and node.value.id == param):
            continue
        use = unit.parents.get(id(node))
        if isinstance(use, ast.Call) and owner.reserves.framework_call(use) and result_kept(unit, use):
            return Evidence(EvidenceKind.FLOW, f"given as `{param}=` to `{fn.name}(...)`, which gives it "
                            f"to `{unit.short(use.func)}(...)` as `{node.arg}=`", unit.span(use))
    return None
