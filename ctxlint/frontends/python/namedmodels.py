"""A model given by name to an agent or runtime that builds it itself, with no settings
(`create_agent(model="openai:gpt-4o")`, the catalogue's `named_model` argument): reported at the
name, for a model whose class sets no limit of its own."""

from __future__ import annotations

import ast
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from ctxlint.frameworks import Holder
from ctxlint.frontends.python.sinks import in_method, in_test
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, Request

if TYPE_CHECKING:
    from ctxlint.frontends.python.reserves import Reserves

# The kind of evidence of such a model (rules/**/CTX201).
NAMED_MODEL = "named-model"


def named_model(reserves: Reserves, call: ast.Call, env: Env, holder: Holder) -> Request | None:
    """A model given by name to an agent or runtime that builds it with no settings
    (`create_agent(model="openai:gpt-4o")`), for a name whose model sets no limit of its own:
    reported at the name, where a model object built with a limit could be given instead."""
    entry = next((e for e in (reserves.args.find(spec, call, env) for spec in holder.arguments.get("named_model", ()))
                  if e is not None), None)
    # a literal, or a constant: not a parameter's default, which a caller may replace with a model object
    name = reserves.flow.literal_str(entry[0], entry[1]) if entry is not None else None
    if entry is not None and name is None:
        name = default_name(reserves, entry[0], entry[1])
    if entry is None or name is None or ":" not in name \
            or any(fnmatchcase(name.lower(), glob) for glob in holder.limited_models):
        return None  # a model object, a name that cannot be read, or one whose model sets a limit
    short = reserves.m.short(call.func)
    return Request(
        path=reserves.m.path, anchor=reserves.m.span(entry[0]), model=name, declares_settings=True,
        settings_hint=f"{holder.limit_hint or 'an output limit'} on a chat model built for `{name}` and given "
                      f"to `{short}(...)` in place of its name",
        framework=holder.framework, in_method=in_method(env.scope), in_test=in_test(env.scope),
        reserve_kind=NAMED_MODEL,
        reserve_evidence=(Evidence(EvidenceKind.SOURCE, f"`{short}(...)` builds the model it is given by name "
                                   f"(`{name}`) with no settings", reserves.m.span(entry[0])),))


def default_name(reserves: Reserves, node: ast.expr, env: Env) -> str | None:
    """The name a choice of names falls back on, when every choice is a name (a string, never a
    model object): ``os.environ.get("AGENT_MODEL") or task.get("model", "openai:gpt-4o")`` is the
    environment's name, else the task's, else ``openai:gpt-4o``."""
    node, env = reserves.scopes.deref(node, env)
    if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)):
        return None
    last = None
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            last = value.value
            continue
        if not isinstance(value, ast.Call) or value.keywords:
            return None
        qualified = reserves.m.qualified(value.func)
        if qualified in ("os.getenv", "os.environ.get") and len(value.args) == 1:
            continue  # a name from the environment
        default = value.args[1] if len(value.args) == 2 and isinstance(value.func, ast.Attribute) \
            and value.func.attr == "get" else None  # `os.getenv(name, default)`, `config.get(key, default)`
        if not (isinstance(default, ast.Constant) and isinstance(default.value, str)):
            return None
        last = default.value
    return last

