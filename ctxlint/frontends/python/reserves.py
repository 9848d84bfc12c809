"""What the code says about a request's output limit beyond the call itself: a limit the code
accepts and never passes on (a ``max_tokens`` parameter, ``self.config.max_token``), a chat
model built with none (reported where it is built), a receiver of a configured type built out
of sight (whose own settings may hold the limit)."""

from __future__ import annotations

import ast
from typing import cast

from ctxlint.frameworks import Holder
from ctxlint.frontends.python.calls import UNKNOWN
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.sinks import Parts, in_method, in_test, limit_configurable
from ctxlint.frontends.python.spreads import KWARGS
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Request, Span

# Names a function parameter or an object's attribute takes when it holds an output limit.
LIMIT_NAMES = ("max_tokens", "max_output_tokens", "max_completion_tokens", "max_new_tokens", "num_predict",
               "max_tokens_to_sample", "max_length")


def _all_args(node: ast.AST) -> list[ast.arg]:
    args = getattr(node, "args", None)
    if not isinstance(args, ast.arguments):
        return []
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


class Reserves(Component):
    def accepted_limit(self, scope: Scope) -> tuple[str, Span] | None:
        """A parameter of the enclosing function, or an attribute its class sets, named like an
        output limit (``max_tokens``, ``self.max_output_tokens``): the code accepts a limit, so
        a call without one drops it."""
        current: Scope | None = scope
        while current is not None and current.kind == "function":
            for name, _param in current.params.items():
                if name in LIMIT_NAMES:
                    node = next((a for a in _all_args(current.node) if a.arg == name), None)
                    return name, self.m.span(node if node is not None else cast(ast.stmt, current.node))
            cls = current.cls
            if cls is not None:
                for name in LIMIT_NAMES:
                    records = cls.assigns.get(name)
                    if records and records[0].target is not None:
                        return f"self.{name}", self.m.span(records[0].target)
                read = self.limit_read(cls.node)
                if read is not None:
                    return read
            current = current.parent
        return None

    def limit_read(self, cls: ast.AST) -> tuple[str, Span] | None:
        """A limit the object's configuration holds and a method of the class reads
        (``self.config.max_token``): the class has one to send. Looked for once per class."""
        key = id(cls)
        if key not in self.m.class_limits:
            found = None
            for node in walk(cls):
                if isinstance(node, ast.Attribute) and node.attr in LIMIT_NAMES + ("max_token",) \
                        and isinstance(node.ctx, ast.Load):
                    dotted = self.m.dotted(node)
                    if dotted and dotted.startswith("self."):
                        found = (dotted, self.m.span(node))
                        break
            self.m.class_limits[key] = found
        return self.m.class_limits[key]

    def holder_requests(self) -> list[Request]:
        """Chat models built with no output limit, reported where they are built: every request
        they send has none, wherever it is sent from (a chain, an agent, another module)."""
        found = []
        for call, scope, holder in self.m.holder_calls:
            env = Env(scope)
            if not self.built_without_limit(call, env, holder):
                continue
            parts = Parts(hint=holder.limit_hint)
            self.sinks.settings(holder.arguments, call, env, None, parts)
            # `ChatOpenAI(model=model, **kwargs)` in a factory: empty unless its caller fills it
            passed_on = tuple(step for kind, step in self.sinks.arguments(call, env).empty_by_default if kind == KWARGS)
            found.append(Request(
                path=self.m.path, anchor=self.m.span(call), model=parts.model, declares_settings=True,
                settings_hint=f"{holder.limit_hint or 'an output limit'} on `{self.m.short(call.func)}(...)`",
                framework=holder.framework, in_method=in_method(scope), in_test=in_test(scope),
                reserve_kind=KWARGS if passed_on else "built-without",
                reserve_evidence=(*passed_on, Evidence(EvidenceKind.SOURCE, f"`{self.m.short(call.func)}(...)` is "
                                                       "built without an output limit", self.m.span(call)))))
        return found

    def built_without_limit(self, call: ast.Call, env: Env, holder: Holder) -> bool:
        """Whether ``call`` builds a chat model that sends no output limit: one whose framework
        sets none by default, built with every argument visible and no limit among them."""
        if holder.standalone or holder.default_limit is not None or holder.model_carries_limit \
                or not holder.arguments.get("limit"):
            return False
        given = self.sinks.arguments(call, env)
        if given.opaque or limit_configurable(call, holder):
            return False
        parts = Parts()
        self.sinks.settings(holder.arguments, call, env, None, parts)
        return parts.limit is None

    def configured_type(self, receiver: ast.expr, env: Env) -> bool:
        """Whether ``receiver`` is of a type the catalogue builds with an output limit (a chat
        model, a generator) although the code does not show it being built: a parameter or an
        attribute given from outside, whose own settings may hold the limit."""
        path = self.calls.path(receiver, env)
        if path.startswith(UNKNOWN) or not path.endswith("()"):
            return False
        return any(isinstance(h, Holder) and h.arguments.get("limit")
                   for h in self.m.catalogue.holders.match(path[:-2]))

