"""Where a request's output limit is, or would be: the default a project function's signature
gives it, a value that is None unless a caller gives it, and the place the code writes what the
limit belongs in without it (``payload = {"model": ..., "messages": ...}`` many lines above the
``session.post(url, json=payload)`` that sends it), which is where a user adds it."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frameworks import Sink
from ctxlint.frontends.python.arguments import Arguments, CallArgs
from ctxlint.frontends.python.flow import Entry
from ctxlint.frontends.python.keyedlimits import keyed_from_empty, taken_from_kwargs
from ctxlint.frontends.python.nonefields import FIELD_NONE, none_field
from ctxlint.frontends.python.spreads import KWARGS, NONE
from ctxlint.frontends.python.unit import Positioned
from ctxlint.frontends.python.unsetcallers import NONE_BY_CALLERS, left_to_default, unset_by_callers
from ctxlint.frontends.python.unsetvalues import unset_value
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, OutputLimit
from ctxlint.providers import TOKEN_LIMIT_NAMES

if TYPE_CHECKING:
    from ctxlint.frontends.python.scopes import Scopes
    from ctxlint.frontends.python.sinks import Sinks


def own_default_limit(sinks: Sinks, call: ast.Call, env: Env) -> OutputLimit | None:
    """The limit a call known by its shape alone sends when it is a function the project
    defines whose signature gives one by default (its own `create_chat_completion(...,
    max_tokens=4000)`, named like llama.cpp's method): the call leaves it to that default."""
    target = sinks.callees.function_for(call, env, foreign=True, returns=False)
    if target is None:
        return None
    for name, param in target.env.scope.params.items():
        if name in TOKEN_LIMIT_NAMES and isinstance(param.default, ast.Constant) \
                and type(param.default.value) is int:
            return OutputLimit(f"{name} (the default of `{target.fn.name}`)", param.default.value,
                               sinks.m.span(call))
    return None


def unset_limit(sinks: Sinks, entry: Entry) -> tuple[str, tuple[Evidence, ...]] | None:
    """The kind and the steps that show it, when a limit's value is a parameter that is None
    unless a caller gives it: an object's constructor parameter (`max_tokens=self.max_tokens`), a
    factory's parameter one call leaves to its default, a method's that no call fills, a key of a
    method's own ``**kwargs`` no call gives; or a value passed on from one None unless someone
    outside the code sets it (a web request's parameter, a setting: unsetvalues.py); or, of a field
    of the project's own class None by default that it never sets, ``FIELD_NONE`` and the field's
    defaults (nonefields.py)."""
    said = _unset_parameter(sinks, entry)
    if said is not None:
        return said[0], (Evidence(EvidenceKind.FLOW, said[1], sinks.m.span(said[2])),)
    node, env = entry[0], entry[1]
    if isinstance(node, ast.Attribute) and (defaults := none_field(sinks.m, node, env)) is not None:
        return FIELD_NONE, defaults  # a field of the project's own class: its constructions say more
    steps = unset_value(sinks.m, node, env)
    return (NONE, steps) if steps else None


def _unset_parameter(sinks: Sinks, entry: Entry) -> tuple[str, str, Positioned] | None:
    node, env, code = entry[0], entry[1], sinks.m.code(entry[0])
    if (unset := sinks.spreads.none_by_default(node, env)) is not None:
        return NONE, f"`{code}` is None unless a caller of `{unset[1]}` passes `{unset[0]}`, and none does", entry[2]
    if (defaulted := left_to_default(node, env)) is not None:  # `make_model(name)` of `max_tokens=None`
        return NONE, (f"`{defaulted[0]}` of `{defaulted[1]}` is None by default, and the call that builds "
                      "this object does not pass it"), entry[2]
    if (taken := taken_from_kwargs(sinks.spreads, node, env)) is not None:  # `kwargs.pop("max_tokens", None)`
        return KWARGS, (f"`{sinks.m.code(taken[3])}` holds only what a caller of `{taken[2]}` passes, none by "
                        "default"), taken[3]
    if (keyed := keyed_from_empty(sinks.spreads, node, env)) is not None:  # `hints["max_tokens"]` of `hints={}`
        return keyed[1], f"`{code}` is read from what is passed as `{keyed[0]}`, empty by default", entry[2]
    if (by_callers := unset_by_callers(sinks.m, node, env)) is not None:
        return NONE_BY_CALLERS, (f"`{by_callers[0]}` is None unless a call of `{by_callers[1]}` passes it, "
                                 f"and none of the {by_callers[2]} calls in the project that lead to it does"), entry[2]
    return None


def written_without(args: Arguments, sink: Sink, call: ast.Call, env: Env, given: CallArgs) -> Evidence | None:
    """Where the function writes, as a dict of its own, what the request's limit belongs in and
    leaves it out: the settings a limit's key is looked for in (Gemini's ``gen_config = {...}``
    posted as ``generationConfig``), else the body the call posts (``payload = {...}`` given as
    ``json=payload``), else the dict spread as its keywords (``**params``). The request is sent at
    the call; its settings are written there, often many lines above, and that is where the
    limit is added."""
    for spec in sink.arguments.get("limit", ()):
        if spec.key and not spec.json and spec.method is None and not any("." in k for k in spec.key):
            holder = args.find(replace(spec, key=()), call, env, given)
            found = written_dict(args.scopes, holder[0], holder[1]) if holder is not None else None
            if found is not None:
                return Evidence(EvidenceKind.FLOW, f"`{found[0]}` is written here with no `{spec.key[0]}`",
                                args.m.span(found[1]))
    bodies = [given.posted] if given.posted is not None else \
        [entry for spec in sink.payload if (entry := args.find(spec, call, env)) is not None]
    bodies += [(k.value, env, k) for k in call.keywords if k.arg is None]
    for body in bodies[:1] if sink.payload else bodies:
        if (found := written_dict(args.scopes, body[0], body[1])) is not None:
            what = f"the posted body `{found[0]}` is" if sink.payload else f"the request's keywords `{found[0]}` are"
            return Evidence(EvidenceKind.FLOW, f"{what} written here with no output limit",
                            args.m.span(found[1]))
    return None


def written_dict(scopes: Scopes, node: ast.expr, env: Env, enclosing: bool = False) -> tuple[str, ast.expr] | None:
    """The name and the dict of a name the function itself binds to a dict it writes
    (``payload = {...}``, ``params = dict(...)``); with ``enclosing``, a scope around it (the
    module's ``BODY = {...}``) counts too."""
    if not isinstance(node, ast.Name):
        return None
    binding = scopes.resolve(node, env)
    if binding is None or binding.owner is not None or binding.env.scope is not env.scope and not enclosing:
        return None
    value = binding.value
    if isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                       and value.func.id == "dict"):
        return node.id, value
    return None
