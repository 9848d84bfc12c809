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
    given: list[tuple[ast.expr, ast.expr, Env]] = []  # where the name is given, the value, its env
    if entry is not None:
        given = [(entry[0], entry[0], entry[1])]
    elif any(spec.position is not None for spec in holder.arguments.get("named_model", ())):
        # `ModelFallbackMiddleware(*[m.id for m in FALLBACKS])`: each name the spread gives
        given = [(arg, node, node_env) for arg in call.args if isinstance(arg, ast.Starred)
                 for node, node_env in _spread_items(reserves, arg, env)]
    found = next(((at, name) for at, node, node_env in given if (name := _given_name(reserves, node, node_env))
                  and ":" in name and not any(fnmatchcase(name.lower(), glob) for glob in holder.limited_models)),
                 None)
    if found is None:
        return None  # a model object, a name that cannot be read, or one whose model sets a limit
    at, name = found
    short = reserves.m.short(call.func)
    return Request(
        path=reserves.m.path, anchor=reserves.m.span(at), model=name, declares_settings=True,
        settings_hint=f"{holder.limit_hint or 'an output limit'} on a chat model built for `{name}` and given "
                      f"to `{short}(...)` in place of its name",
        framework=holder.framework, in_method=in_method(env.scope), in_test=in_test(env.scope),
        reserve_kind=NAMED_MODEL,
        reserve_evidence=(Evidence(EvidenceKind.SOURCE, f"`{short}(...)` builds the model it is given by name "
                                   f"(`{name}`) with no settings", reserves.m.span(at)),))


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


def _given_name(reserves: Reserves, node: ast.expr, env: Env) -> str | None:
    """The model name a value given by name holds: a literal, or a constant (not a parameter's
    default, which a caller may replace with a model object); the fallback of a choice of names;
    a field of a record written with its name (``MODELS["nano"].id`` where ``MODELS = {"nano":
    ModelInfo(id="openai:gpt-4.1-nano", ...)}``)."""
    name = reserves.flow.literal_str(node, env)
    if name is None:
        name = default_name(reserves, node, env)
    if name is None and isinstance(node, ast.Attribute):
        record, record_env = _value_of(reserves, node.value, env)
        field = next((k.value for k in record.keywords if k.arg == node.attr), None) \
            if isinstance(record, ast.Call) else None
        name = reserves.flow.literal_str(field, record_env) if field is not None else None
    return name


def _value_of(reserves: Reserves, node: ast.expr, env: Env) -> tuple[ast.expr, Env]:
    """What a name holds, through an item of a dict literal taken by a key written there."""
    node, env = reserves.scopes.deref(node, env)
    if isinstance(node, ast.Subscript):
        key = reserves.flow.literal_str(node.slice, env)
        table, table_env = reserves.scopes.deref(node.value, env)
        if key is not None and isinstance(table, ast.Dict):
            value = next((v for k, v in zip(table.keys, table.values, strict=True)
                          if k is not None and reserves.flow.literal_str(k, table_env) == key), None)
            if value is not None:
                return reserves.scopes.deref(value, table_env)
    return node, env


def _spread_items(reserves: Reserves, starred: ast.Starred, env: Env) -> list[tuple[ast.expr, Env]]:
    """The values a spread gives, one per item: of a list or tuple written in the code, or of a
    comprehension that takes one field of each of its items (``*[m.id for m in FALLBACKS]``)."""
    value, value_env = reserves.scopes.deref(starred.value, env)
    field = None
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and not value.generators[0].ifs \
            and isinstance(value.generators[0].target, ast.Name) and isinstance(value.elt, ast.Attribute) \
            and isinstance(value.elt.value, ast.Name) and value.elt.value.id == value.generators[0].target.id:
        field = value.elt.attr
        value, value_env = reserves.scopes.deref(value.generators[0].iter, value_env)
    if not isinstance(value, (ast.List, ast.Tuple)):
        return []
    if field is None:
        return [(item, value_env) for item in value.elts]
    return [(ast.copy_location(ast.Attribute(value=item, attr=field, ctx=ast.Load()), item), value_env)
            for item in value.elts]

