"""A method named by a string and called through ``getattr`` on ``self``; a function handed to a
helper that calls it.

A base class may run the method a subclass overrides through a helper that takes its name
(``self._execute("_raw_gen", decorators, model=model, **kwargs)``, where ``_execute`` does
``method = getattr(self, method_name)`` and calls it with its ``*args, **kwargs``). Such a call is
read as the call of the named method it makes: ``self._raw_gen(model=model, **kwargs)``, with
what the helper passes on, so a function summary follows it to the method (or the override of a
subclass) that sends the request.

A helper may be given the SDK's function itself, and call it (``self._with_retry(
self.client.chat.completions.create, params)``, where ``_with_retry`` does ``return
create(**params)``): such a call is read as the call the helper makes, with the caller's
arguments in place of the helper's parameters (``self.client.chat.completions.create(**params)``).
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.callees import Callees
from ctxlint.frontends.python.nodes import base_name, walk
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env, Scope


def named_call(unit: Unit, callees: Callees, call: ast.Call, env: Env) -> ast.Call | None:
    """The call of the method ``call`` names by a string for a helper of ``self`` to look up and
    call; None unless the helper gets that attribute of ``self`` by the parameter the string is
    given to and passes on its ``*args``/``**kwargs``, and the class has a method of that name."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
        return None
    named = [(i, a.value) for i, a in enumerate(call.args)
             if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.isidentifier()]
    if len(named) != 1 or any(isinstance(a, ast.Starred) for a in call.args[:named[0][0]]):
        return None
    found = callees.callee(func, env, foreign=True)
    if found is None or not found[3]:
        return None
    helper, helper_scope = found[1], found[2]
    params = [a.arg for a in (*helper.args.posonlyargs, *helper.args.args)][1:]  # after `self`
    index, name = named[0]
    if index >= len(params) or not _calls_attribute(helper, params[index]):
        return None
    method = ast.copy_location(ast.Attribute(ast.Name("self", ast.Load()), name, ast.Load()), func)
    if callees.callee(method, env, foreign=True) is None:
        return None
    args = call.args[len(params):]  # what the helper's `*args` takes
    keywords = [k for k in call.keywords if k.arg is None or k.arg not in helper_scope.params]
    made = ast.copy_location(ast.Call(method, args, keywords), call)
    unit.probes.append(made)
    return made


def _calls_attribute(helper: FunctionNode, param: str) -> bool:
    """Whether ``helper`` gets ``getattr(self, param)`` and passes on its ``*args`` or ``**kwargs``
    (the arguments the method it looks up is called with)."""
    rest = {a.arg for a in (helper.args.vararg, helper.args.kwarg) if a is not None}
    looked_up = passed = False
    for node in walk(helper):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2 \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == "self" \
                and isinstance(node.args[1], ast.Name) and node.args[1].id == param:
            looked_up = True
        spread = [k.value for k in node.keywords if k.arg is None] + \
            [a.value for a in node.args if isinstance(a, ast.Starred)]
        passed = passed or any(isinstance(v, ast.Name) and v.id in rest for v in spread)
    return looked_up and passed


def limit_spread_in_bases(callees: Callees, cls: Scope, called: str) -> bool:
    """Whether the module of a base class of the project that ``cls`` extends spreads a dict that may
    hold a limit into a call of ``called`` (a base that runs the method by its name,
    ``self._run("_raw_gen", **kwargs)``, for the override to send)."""
    if not isinstance(cls.node, ast.ClassDef):
        return False
    for base in map(base_name, cls.node.bases):
        located = callees.class_named(base, cls.parent, True) if base is not None else None
        if located is not None and located[0] is not None and located[0].spreads.limit_spread_in(called):
            return True
    return False


def called_parameter(unit: Unit, callees: Callees, call: ast.Call, env: Env) -> ast.Call | None:
    """The call ``call``'s callee makes of the function it is given as an argument, with the
    caller's arguments in place of the callee's parameters; None unless the callee is a function of
    the project that calls that parameter with nothing but its parameters (``create(**params)``)."""
    passed = [a for a in call.args if isinstance(a, ast.Attribute) and unit.sink_names.named(a.attr)]
    if len(passed) != 1 or any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
        return None
    found = callees.callee(call.func, env, foreign=True)
    if found is None:
        return None
    _, helper, _, method = found
    params = [a.arg for a in (*helper.args.posonlyargs, *helper.args.args)][1 if method else 0:]
    given = dict(zip(params, call.args, strict=False))
    param = next((name for name, value in given.items() if value is passed[0]), None)
    inner = next((node for node in walk(helper) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == param), None)
    if inner is None:
        return None
    args: list[ast.expr] = []
    for arg in inner.args:
        value = arg.value if isinstance(arg, ast.Starred) else arg
        if not (isinstance(value, ast.Name) and value.id in given):
            return None
        args.append(ast.copy_location(ast.Starred(given[value.id], ast.Load()), arg)
                    if isinstance(arg, ast.Starred) else given[value.id])
    keywords = []
    for keyword in inner.keywords:
        if not (isinstance(keyword.value, ast.Name) and keyword.value.id in given):
            return None
        keywords.append(ast.copy_location(ast.keyword(keyword.arg, given[keyword.value.id]), keyword))
    made = ast.copy_location(ast.Call(passed[0], args, keywords), call)
    unit.probes.append(made)
    return made
