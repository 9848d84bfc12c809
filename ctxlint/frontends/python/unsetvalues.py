"""A limit's value that is None unless someone sets it, followed back from the request it is
sent with: what a followed call passes a parameter (``make_model(name, max_tokens=max_tokens)``),
a web endpoint's request parameter declared with no value (FastAPI's ``max_tokens: int | None =
Body(None)``: None unless a client sends one), a field of the project's settings declared None by
default and written by no code of the project (``Settings.model_settings.MAX_TOKENS`` of
``MAX_TOKENS: int | None = None``; settings read from the environment included, whose default is
what ships), and a name the function sets only to such values (``if max_tokens in [None, 0]:
max_tokens = Settings.model_settings.MAX_TOKENS``). Each step is evidence: the call that passes
the value on, and where it is declared with none."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import parameter_default, parameter_names, sets_name, walk
from ctxlint.frontends.python.nonefields import empty_setting, unset_setting
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env, own_class
from ctxlint.model import Evidence, EvidenceKind

Function = ast.FunctionDef | ast.AsyncFunctionDef
# How many names and calls the value may be followed through.
_MAX_DEPTH = 6
# The web framework's declarations of a request parameter, whose first argument is its default.
_REQUEST_PARAMETERS = frozenset({"Body", "Query", "Form", "Header"})
_WEB_FRAMEWORKS = ("fastapi", "starlette")
_DICT_VIEWS = frozenset({"items", "values", "keys"})


def unset_value(m: Unit, node: ast.expr, env: Env, depth: int = 0) -> tuple[Evidence, ...] | None:
    """The evidence that ``node`` holds None unless someone outside the code sets it (a client,
    the user's environment); None when it may hold a value."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Constant):
        return () if node.value is None else None
    if isinstance(node, ast.Attribute):
        found = unset_setting(m, node, env)
        return (found,) if found is not None else None
    if not isinstance(node, ast.Name):
        return None
    bound = env.bound(node.id)
    if bound is not None:
        fn = env.scope.node
        param = env.scope.params.get(node.id)
        if param is not None and bound.node is param.default:  # the call leaves it out
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or sets_name(fn, node.id):
                return None
            parent = env.scope.parent
            return unset_value(m, bound.node, Env(parent), depth + 1) if parent is not None else None
        owner = bound.owner.unit if bound.owner is not None else m
        further = unset_value(owner, bound.node, bound.env, depth + 1)
        if further is None:
            return None
        passed = Evidence(EvidenceKind.FLOW, f"`{owner.code(bound.node)}` is passed on here as `{node.id}`",
                          owner.span(_call_of(owner, bound.node)))
        return (passed, *further)
    holder = _holder_of(m, node, node.id)
    if holder is None:
        return _local_unset(m, node.id, env, depth)
    return _parameter_unset(m, holder, node.id, env, depth)


def _local_unset(m: Unit, name: str, env: Env, depth: int) -> tuple[Evidence, ...] | None:
    """Whether the local name ``name`` of a function (not a parameter) is set only to values that
    are unset in turn (``max_tokens = SETTINGS.chat_max_tokens`` in a helper that returns the
    request's keywords), each assignment a step."""
    scope = env.scope
    assigns = scope.assigns.get(name, [])
    if scope.kind != "function" or name in scope.params or not assigns \
            or any(isinstance(n, (ast.Nonlocal, ast.Global)) and name in n.names for n in walk(scope.node)):
        return None  # (a nested function may set it: `nonlocal max_tokens`)
    values: list[ast.expr | Evidence] = []
    for assign in assigns:
        if assign.kind != "=" or assign.value is None or not isinstance(assign.target, ast.Name):
            return None
        skipped = next((e for loop in assign.loops if (e := _over_empty_setting(m, loop.node, env)) is not None), None)
        # `for tag, conf in SETTINGS.chat_model_map.items(): max_tokens = ...`: set only once the user fills it
        values.append(skipped if skipped is not None else assign.value)
    return _all_unset(m, values, env, depth, ())


def _over_empty_setting(m: Unit, loop: ast.AST, env: Env) -> Evidence | None:
    """The evidence that a ``for`` loop runs over a field of the project's settings that is empty
    by default (``SETTINGS.chat_model_map``, its ``.items()``, ``.values()`` or ``.keys()``): what it
    sets is set only when the user configures the field."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    over = loop.iter
    if isinstance(over, ast.Call) and isinstance(over.func, ast.Attribute) and over.func.attr in _DICT_VIEWS \
            and not over.args and not over.keywords:
        over = over.func.value
    if isinstance(over, ast.Attribute) and isinstance(over.value, ast.Name) \
            and (cls := own_class(over.value.id, env.scope)) is not None:
        # `self.chat_model_map`, which the class sets (in each branch of `__init__`) only to such a field
        kept = cls.assigns.get(over.attr, [])
        settings = [empty_setting(m, a.value, Env(a.where or a.scope)) if a.kind == "=" and a.value is not None
                    else None for a in kept]
        return settings[0] if settings and all(found is not None for found in settings) else None
    return empty_setting(m, over, env)


def _parameter_unset(m: Unit, fn: Function, name: str, env: Env, depth: int) -> tuple[Evidence, ...] | None:
    """Whether the parameter ``name`` of ``fn`` (read where nothing passes it: a route handler,
    or a function whose calls are not followed here) is a request parameter declared with no
    value, and every value ``fn`` sets it to is unset too."""
    default = parameter_default(fn, name)
    declared = _requested(m, default) if default is not None else None
    unset = unset_value(m, declared, Env(env.scope.parent or m.module_scope), depth + 1) \
        if declared is not None and default is not None else None
    if unset is None or default is None:
        return None
    found: tuple[Evidence, ...] = (Evidence(
        EvidenceKind.SOURCE, f"`{name}` is a request parameter of `{fn.name}` that is None unless a client sends one",
        m.span(default)), *unset)
    values: list[ast.expr | Evidence] = []
    for node in walk(fn):
        if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith,
                             ast.NamedExpr)) and _targets(node, name):
            return None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if any(not isinstance(t, ast.Name) for t in node.targets):
                return None
            if not (isinstance(node.value, ast.Name) and node.value.id == name):
                values.append(node.value)
    return _all_unset(m, values, env, depth, found)


def _all_unset(m: Unit, values: list[ast.expr | Evidence], env: Env, depth: int,
               found: tuple[Evidence, ...]) -> tuple[Evidence, ...] | None:
    """``found`` with the steps that show each of the ``values`` a name is set to unset as well (a
    step already known stands for its value), or None when one of them may hold a limit."""
    for value in values:
        further = (value,) if isinstance(value, Evidence) else unset_value(m, value, env, depth + 1)
        if further is None:
            return None
        found += tuple(step for step in further if step not in found)
    return found


def _requested(m: Unit, default: ast.expr) -> ast.expr | None:
    """The value a web request's parameter is declared with (``Body(None, description=...)``,
    ``Query(default=settings.top_k)``): what it holds when a client sends none."""
    if not isinstance(default, ast.Call):
        return None
    func = default.func
    head = func.id if isinstance(func, ast.Name) else func.value.id \
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if head is None or name not in _REQUEST_PARAMETERS or not m.imports.get(head, "").startswith(_WEB_FRAMEWORKS):
        return None
    return next((k.value for k in default.keywords if k.arg == "default"), default.args[0] if default.args else None)


def _targets(node: ast.AST, name: str) -> bool:
    targets: list[ast.AST] = []
    if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
        targets.append(node.target)
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets.extend(i.optional_vars for i in node.items if i.optional_vars is not None)
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in walk(t))


def _holder_of(unit: Unit, node: ast.AST, name: str) -> Function | None:
    """The function whose parameter ``name`` is: the nearest enclosing one that names it (a
    closure's outer function, the inner ones only reading it or setting it as ``nonlocal``)."""
    parent = unit.parents.get(id(node))
    while parent is not None:
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if name in parameter_names(parent):
                return parent
            if sets_name(parent, name) and not any(isinstance(s, ast.Nonlocal) and name in s.names
                                                 for s in walk(parent)):
                return None
        parent = unit.parents.get(id(parent))
    return None


def _call_of(unit: Unit, node: ast.expr) -> ast.expr:
    """The call ``node`` is an argument of (where the value is passed on), else ``node``."""
    parent = unit.parents.get(id(node))
    if isinstance(parent, ast.keyword):
        parent = unit.parents.get(id(parent))
    return parent if isinstance(parent, ast.Call) else node
