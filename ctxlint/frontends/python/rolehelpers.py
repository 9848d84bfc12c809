"""A message a project's own helper builds: ``messages.append(self._user_msg(text))``.

A client class of the project often keeps the shape of a chat message in small methods
(``def _user_msg(self, msg): return {"role": "user", "content": msg}``), or declares them on an
abstract base and lets each provider's subclass give the dict its API takes
(``def system_message(self, message): return {"role": "system", "content": message}``). A call of
such a helper is read as the message it returns, written where the call is: its role the one the
helper states, its content the argument the call gives the helper's parameter (so a wrapper that
hands its own parameter to the helper has a hole its callers fill, wrappers.py).

A helper is one only when every return of it states the same role in a message dict (a dict with
a literal ``role`` and a content key, or a call of another such helper); an abstract method is one
when every override the project's subclasses give is. A helper that returns anything else, or
whose overrides disagree on the role, is left to be read as text.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.callees import Callees
from ctxlint.frontends.python.containers import restated
from ctxlint.frontends.python.nodes import abstract
from ctxlint.frontends.python.values import Env
from ctxlint.model import Role
from ctxlint.providers import ROLE_NAMES

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.scopes import FunctionNode
    from ctxlint.frontends.python.values import Scope

Found = tuple["Analyzer | None", "FunctionNode", "Scope", bool]

# How many helpers deep a return that calls another helper is followed (`_user_msg` returning
# `self._user_msg_with_imgs(msg, images)`).
_MAX_NESTED = 2
_CONTENT_KEYS = ("content", "parts")


def helper_message(callees: Callees, call: ast.Call, env: Env) -> ast.Dict | None:
    """The message dict a call of a role helper stands for, written at ``call`` with the call's
    arguments in place of the helper's parameters; None unless ``call`` calls one."""
    found = callees.callee(call.func, env, foreign=True)
    if found is None:
        return None
    _, fn, scope, method = found
    helpers = [found]
    if method and abstract(fn) and scope.parent is not None:
        helpers = callees.subclass_hooks(scope.parent, fn.name)  # the overrides of an abstract method
    role: Role | None = None
    message: ast.Dict | None = None
    for helper in helpers:
        reader = helper[0].callees if helper[0] is not None else callees
        stated = _stated(reader, helper, 0)
        if stated is None and len(helpers) > 1 and _hands_back(helper):
            continue  # a provider that takes the bare text and gives the role its own way
        if stated is None or role not in (None, stated[0]):
            return None
        role = stated[0]
        if message is None and stated[1] is not None:
            given = {b.param: b.node for b in callees.bind(call, env, helper) if b.env is env}
            message = restated(stated[1], given, call)
    return message if role is not None else None


def _stated(callees: Callees, found: Found, depth: int) -> tuple[Role, ast.Dict | None] | None:
    """The role every return of ``found`` states, with the first returned dict whose values are
    parameters, literals or attributes of the object (the one a call can be written as)."""
    scope = found[2]
    if not scope.returns or not callees.m.step():
        return None
    role: Role | None = None
    plain: ast.Dict | None = None
    for value in scope.returns:
        if isinstance(value, ast.Name):  # `message = {...}` then `return message`, nothing added
            binding = callees.scopes.resolve(value, Env(scope))
            value = binding.value if binding is not None and not binding.extras else value
        stated: tuple[Role, ast.Dict | None] | None = None
        if isinstance(value, ast.Dict):
            written = _message_role(value)
            stated = (written, value) if written is not None else None
        elif isinstance(value, ast.Call) and depth < _MAX_NESTED:
            inner = callees.callee(value.func, Env(scope), foreign=True)
            reader = inner[0].callees if inner is not None and inner[0] is not None else callees
            deeper = _stated(reader, inner, depth + 1) if inner is not None else None
            stated = (deeper[0], None) if deeper is not None else None  # its role; its dict is written there
        if stated is None or role not in (None, stated[0]):
            return None
        role = stated[0]
        # a dry run of `restated`, each parameter standing for whatever a call gives it
        if plain is None and stated[1] is not None \
                and restated(stated[1], dict.fromkeys(scope.params, stated[1]), stated[1]) is not None:
            plain = stated[1]
    return (role, plain) if role is not None else None


def _hands_back(found: Found) -> bool:
    """Whether every return of a method is one of its parameters, unchanged."""
    scope = found[2]
    return bool(scope.returns) and all(isinstance(r, ast.Name) and r.id in scope.params for r in scope.returns)


def _message_role(node: ast.Dict) -> Role | None:
    """The role a message dict states as a literal, when it also has a content key."""
    keys = {k.value: v for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    role = keys.get("role")
    if not (isinstance(role, ast.Constant) and isinstance(role.value, str) and role.value.lower() in ROLE_NAMES
            and any(k in keys for k in _CONTENT_KEYS)):
        return None
    named = ROLE_NAMES[role.value.lower()]  # `human` is the user's, `model` the assistant's
    return Role.SYSTEM if named is Role.DEVELOPER else named  # the developer role takes the system's place
