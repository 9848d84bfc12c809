"""How a function uses its ``**kwargs`` when it only passes them on: keys read or set one by one,
the whole dict kept in an attribute the class only spreads. What :mod:`spreads` counts as passed
on, so that the call the keywords reach sends only what the caller gives."""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Assign
from ctxlint.providers import LIMIT_KEYWORDS, LIMIT_NAMES


def keyed_use(m: Unit, parent: ast.AST | None, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether a ``**kwargs`` dict is used by one key written there, in a function that names
    no output limit: ``kwargs.get("config")``, or ``kwargs["config"] = config`` where each
    value ``config`` is given is the caller's own or a settings object built here (no helper
    out of sight that may put a limit in it)."""
    if m.names_a_limit(fn) and not limit_only_renamed(m, fn, name):
        return False
    if isinstance(parent, ast.Subscript) and renamed_limit(m, parent, name):
        return True
    if isinstance(parent, ast.Subscript):
        stored = m.parents.get(id(parent))
        value = stored.value if isinstance(stored, ast.Assign) else None
        if isinstance(parent.ctx, ast.Load) or isinstance(value, ast.Constant):
            # `kwargs["n"]` read, `kwargs["temperature"] = 1e-8` set to a number written here
            return isinstance(parent.slice, ast.Constant)
        return isinstance(parent.ctx, ast.Store) and isinstance(parent.slice, ast.Constant) \
            and isinstance(value, ast.Name) and all(
                callers_or_built(m, a.value, fn, name) for a in walk(fn) if isinstance(a, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == value.id for t in a.targets))
    return looked_up(m, parent)


def looked_up(m: Unit, parent: ast.AST | None) -> bool:
    """``kwargs.get("key")``, ``kwargs.pop("key", None)``, ``"key" in kwargs``: one key of the
    dict read, taken out or tested."""
    if isinstance(parent, ast.Compare):
        return len(parent.ops) == 1 and isinstance(parent.ops[0], (ast.In, ast.NotIn)) \
            and isinstance(parent.left, ast.Constant)
    call = m.parents.get(id(parent))
    return isinstance(parent, ast.Attribute) and parent.attr in ("get", "pop") and isinstance(call, ast.Call) \
        and bool(call.args) and isinstance(call.args[0], ast.Constant)


def callers_or_built(m: Unit, value: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``value`` is what the caller gave (``kwargs.get("config")``) or a settings class
    built here from named keywords and the caller's own settings (``Config(**params)`` where
    ``params = self._extract(config)``), or either (``kwargs.get("config") or Config()``)."""
    if isinstance(value, ast.BoolOp):
        return all(callers_or_built(m, v, fn, name) for v in value.values)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and isinstance(value.func.value, ast.Name) and value.func.value.id == name:
        return looked_up(m, value.func)
    if not (isinstance(value, ast.Call) and (last_name(value.func) or "")[:1].isupper()):
        return False
    for keyword in value.keywords:
        spread = keyword.value if keyword.arg is None else None
        if spread is not None and not (isinstance(spread, ast.Name) and all(
                isinstance(a.value, ast.Call) and a.value.args and isinstance(a.value.args[0], ast.Name)
                for a in walk(fn) if isinstance(a, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == spread.id for t in a.targets))):
            return False
    return True


def kept_to_spread(m: Unit, assign: ast.Assign, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a constructor keeps its ``**kwargs`` whole in an attribute (``self.model_args =
    kwargs``) that its class sets nowhere else and reads only as ``**self.model_args``, in a call
    or a dict it builds (``options = {"temperature": t, **self.extra_options}``): the keywords are
    passed on to each request as they were given."""
    target = assign.targets[0] if len(assign.targets) == 1 else None
    cls = m.parents.get(id(fn))
    if fn.name != "__init__" or not isinstance(cls, ast.ClassDef) or not (
            isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
        return False
    for node in walk(cls):
        if isinstance(node, ast.Attribute) and node.attr == target.attr and node is not target \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            parent = m.parents.get(id(node))
            spread = (isinstance(parent, ast.keyword) and parent.arg is None) or (
                isinstance(parent, ast.Dict) and any(k is None and v is node for k, v in zip(parent.keys, parent.values,
                                                                                             strict=True)))
            if not (isinstance(node.ctx, ast.Load) and spread):
                return False
    return True


def limit_only_renamed(m: Unit, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether the only output limit ``fn`` names is one of its ``**name`` moved to another key
    (``kwargs["max_completion_tokens"] = kwargs.pop("max_tokens")``, after ``if "max_tokens" in
    kwargs``): what the caller gives is passed on under the name the API takes, and nothing more."""
    renamed = False
    for node in walk(fn):
        mentioned = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else \
            node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else \
            node.arg if isinstance(node, (ast.keyword, ast.arg)) else None
        if mentioned not in LIMIT_NAMES:
            continue
        parent = m.parents.get(id(node))
        if isinstance(parent, ast.Compare) and looked_up(m, parent):
            continue  # `"max_tokens" in kwargs`
        if isinstance(parent, ast.Subscript) and renamed_limit(m, parent, name):
            renamed = True  # the key it is moved to
            continue
        store = m.parents.get(id(parent)) if isinstance(parent, ast.Call) else None
        if isinstance(store, ast.Assign) and len(store.targets) == 1 and isinstance(store.targets[0], ast.Subscript) \
                and renamed_limit(m, store.targets[0], name):
            continue  # the key it is taken from
        return False
    return renamed


def limit_only_in_text(m: Unit, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether every output-limit name ``fn`` writes is a parameter given only to a text's
    ``.format`` (``prompt.format(max_length=max_length)``): a length the prompt asks for in words,
    which no request is sent with."""
    found = False
    for node in walk(fn):
        mentioned = node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, (ast.keyword, ast.arg)) \
            else node.attr if isinstance(node, ast.Attribute) else \
            node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
        if mentioned not in LIMIT_NAMES:
            continue
        found = True
        if isinstance(node, ast.arg):
            continue  # the parameter itself
        parent = m.parents.get(id(node))
        keyword = parent if isinstance(node, ast.Name) and isinstance(parent, ast.keyword) else node
        call = m.parents.get(id(keyword)) if isinstance(keyword, ast.keyword) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "format"):
            return False
    return found


def renamed_limit(m: Unit, subscript: ast.Subscript, name: str) -> bool:
    """``name["max_completion_tokens"] = name.pop("max_tokens")``: a limit moved to another key."""
    assign = m.parents.get(id(subscript))
    if not (isinstance(subscript.ctx, ast.Store) and isinstance(assign, ast.Assign) and len(assign.targets) == 1
            and isinstance(subscript.value, ast.Name) and subscript.value.id == name
            and isinstance(subscript.slice, ast.Constant) and subscript.slice.value in LIMIT_NAMES):
        return False
    value = assign.value
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("pop", "get") \
        and isinstance(value.func.value, ast.Name) and value.func.value.id == name and len(value.args) == 1 \
        and isinstance(value.args[0], ast.Constant) and value.args[0].value in LIMIT_NAMES


# Keys whose value may be a dict of settings that holds a limit (`config`, `generation_kwargs`,
# `options`, `extra_body`): a value set there is not a plain one.
_HOLDER_KEY = re.compile(r"(?:config|settings|kwargs|options|args|arguments|body|params|input)$", re.IGNORECASE)


def scalar_set(parents: dict[int, ast.AST], parent: ast.AST | None, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``settings["reasoning_effort"] = effort`` where ``effort`` is a constant or is read from a field
    of the same name (``getattr(self.capabilities, "reasoning_effort", None)``): a key that is no limit
    and holds no settings, set to a plain value, which puts no limit in the dict."""
    assign = parents.get(id(parent))
    if not (isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Store) and isinstance(assign, ast.Assign)
            and isinstance(parent.slice, ast.Constant) and isinstance(parent.slice.value, str)):
        return False
    key = parent.slice.value
    if key in LIMIT_NAMES or _HOLDER_KEY.search(key):
        return False
    value = assign.value
    if isinstance(value, ast.Constant):
        return True
    if not isinstance(value, ast.Name):
        return False
    sources = [a.value for a in walk(fn) if isinstance(a, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == value.id for t in a.targets)]
    return bool(sources) and all(_field_named(source, key) for source in sources)


def _field_named(node: ast.expr, key: str) -> bool:
    """``obj.key`` or ``getattr(obj, "key"[, default])``."""
    if isinstance(node, ast.Attribute):
        return node.attr == key
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
        and len(node.args) in (2, 3) and isinstance(node.args[1], ast.Constant) and node.args[1].value == key


def merged_whole(parent: ast.AST | None, node: ast.expr) -> bool:
    """Whether ``node`` is merged whole into another dict: spread into a dict display (a request
    body, ``{"model": m, **kwargs}``), or by ``|`` or ``params.update(kwargs)``."""
    if isinstance(parent, ast.Dict):
        return any(k is None and v is node for k, v in zip(parent.keys, parent.values, strict=True))
    if isinstance(parent, ast.BinOp):
        return isinstance(parent.op, ast.BitOr)
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "update" \
        and parent.args == [node] and not parent.keywords


def other_key_set(extra: Assign) -> bool:
    """A change that sets a key written out that is no output limit (``params["stream"] = True``):
    the dict holds a limit after it only if it did before."""
    key = getattr(extra.target, "slice", None)
    return extra.kind == "setitem" and isinstance(key, ast.Constant) and isinstance(key.value, str) \
        and key.value not in LIMIT_KEYWORDS
