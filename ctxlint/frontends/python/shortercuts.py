"""A cut of a parameter that every caller fills with text already cut shorter::

    summary = output[-1500:] if output else ""           # the caller's cut: reported there
    return self._feedback(stdout=summary)

    def _feedback(self, stdout):
        prompt = render(stdout=stdout[:3000])            # never cuts anything

The second cut keeps more than any value it can be given holds, so it never drops a character,
and a marker beside it would never be written. Only a function the module alone calls (a name
that starts with an underscore, or one no other module of the project calls) is read this way,
and only when every call is seen to pass a value whose length the code bounds: a slice to a
constant, a string constant, either branch of a conditional, or a local name every assignment
of which is one of those; one of them at least a slice (a literal alone, `caption("sales")` in a
demo, bounds nothing the callers send).
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import enclosing, parameter_names, walk
from ctxlint.frontends.python.unit import Unit

Function = ast.FunctionDef | ast.AsyncFunctionDef
# How many local assignments a value is followed through.
_HOPS = 3


def already_shorter(m: Unit, node: ast.AST, fn: Function | None, kept: int | None) -> bool:
    """Whether ``node`` (``param[:kept]`` or ``param[-kept:]``) cuts a parameter of ``fn`` that
    every call of ``fn`` in the module fills with text no longer than ``kept``."""
    if fn is None or kept is None or not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        return False
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    name = node.value.id
    if name not in parameter_names(fn):
        return False
    if any(isinstance(n, (ast.Assign, ast.AugAssign)) and any(isinstance(t, ast.Name) and t.id == name
                                                              for t in _targets(n)) for n in walk(fn)):
        return False  # the parameter is given another value before the cut may be
    if not _module_only(m, fn.name):
        return False
    method = bool(params) and params[0] in ("self", "cls")
    position = params.index(name) - method if name in params else None
    calls = [c for c, _ in m.calls if _calls(c.func, fn.name, method)]
    if not calls:
        return False
    for call in calls:
        given = next((k.value for k in call.keywords if k.arg == name), None)
        if given is None and position is not None and 0 <= position < len(call.args) \
                and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            given = call.args[position]
        if given is None:
            return False
        caller = enclosing(call, m.parents)
        longest = _longest(m, given, caller, _HOPS)
        if longest is None or longest > kept or not _sliced(m, given, caller):
            return False  # a literal alone (`caption("sales")` in a demo) bounds nothing the callers send
    return True


def _module_only(m: Unit, name: str) -> bool:
    """Whether only this module calls ``name``: a private name, or no other module calls it."""
    if name.startswith("_") and not name.startswith("__"):
        return True
    project = m.project
    return project is not None and all(str(p).endswith(m.path) for p in project.callers(name))


def _calls(func: ast.expr, name: str, method: bool) -> bool:
    if method:
        return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) \
            and func.value.id in ("self", "cls")
    return isinstance(func, ast.Name) and func.id == name


def _targets(node: ast.Assign | ast.AugAssign) -> list[ast.expr]:
    return list(node.targets) if isinstance(node, ast.Assign) else [node.target]


def _longest(m: Unit, value: ast.expr, where: ast.AST | None, hops: int) -> int | None:
    """The most characters ``value`` can hold, where the code bounds it; None where it does not."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return len(value.value)
    if isinstance(value, ast.IfExp):
        body, other = _longest(m, value.body, where, hops), _longest(m, value.orelse, where, hops)
        return None if body is None or other is None else max(body, other)
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and value.slice.step is None:
        lower, upper = value.slice.lower, value.slice.upper
        if lower is None and isinstance(upper, ast.Constant) and type(upper.value) is int and upper.value >= 0:
            return upper.value
        if upper is None and isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub) \
                and isinstance(lower.operand, ast.Constant) and type(lower.operand.value) is int:
            return lower.operand.value
        return None
    if isinstance(value, ast.Name) and where is not None and hops > 0:
        assigned = [n for n in walk(where) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                    and any(isinstance(t, ast.Name) and t.id == value.id
                            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        stores = [n for n in walk(where) if isinstance(n, ast.Name) and n.id == value.id
                  and isinstance(n.ctx, ast.Store)]
        params = {a.arg for a in ast.walk(where.args) if isinstance(a, ast.arg)} \
            if isinstance(where, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
        if not assigned or any(not isinstance(n, ast.Assign) for n in assigned) or len(stores) != len(assigned) \
                or value.id in params:
            return None  # bound in a loop, a `with`, a parameter, or unpacked: not bounded here
        sizes = [_longest(m, n.value, where, hops - 1) for n in assigned if isinstance(n, ast.Assign)]
        return None if any(s is None for s in sizes) else max(s for s in sizes if s is not None)
    return None


def _sliced(m: Unit, value: ast.expr, where: ast.AST | None) -> bool:
    """Whether the value is a slice, or holds one (a branch of it, or an assignment of the name)."""
    if isinstance(value, ast.Subscript):
        return True
    if isinstance(value, ast.IfExp):
        return _sliced(m, value.body, where) or _sliced(m, value.orelse, where)
    if isinstance(value, ast.Name) and where is not None:
        return any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)
                   and _sliced(m, n.value, None) for n in walk(where))
    return False
