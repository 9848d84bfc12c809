"""Steps by which a value followed far into a prompt (cutreach.py) goes on, beyond the function
calls and names cutreach follows itself: a loop over it that keeps its items in a list or adds them
to text (``for turn in turns: kept.append(turn)``), lists of it put end to end (``sum(turns, [])``),
and an object of a class of the project called itself (``self.write_outline(notes=turns)``), followed
into its ``__call__``, or the ``forward`` a DSPy module runs when called. Each keeps the order of the
value's items, which is what the order passes (orderprompts.py) follow it for."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.hashedtext import object_class
from ctxlint.frontends.python.nodes import mentions, walk
from ctxlint.frontends.python.values import Bound, Env, Scope
from ctxlint.model import Evidence, EvidenceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.cutreach import CutReach, Steps
    from ctxlint.frontends.python.scopes import FunctionNode

_ADDS = ("append", "extend")
_IN_ORDER = ("enumerate", "list", "tuple", "reversed")


def concatenated(call: ast.Call, node: ast.expr) -> bool:
    """``sum(parts, [])`` (or ``""``): the items of ``node`` put end to end, in its order."""
    return isinstance(call.func, ast.Name) and call.func.id == "sum" and len(call.args) == 2 \
        and call.args[0] is node and (isinstance(start := call.args[1], ast.List) and not start.elts
                                      or isinstance(start, ast.Constant) and start.value == "")


def walked_in_order(call: ast.Call, node: ast.expr) -> bool:
    """``enumerate(items)``, ``list(items)``: the items of ``node`` walked or copied in their order."""
    return isinstance(call.func, ast.Name) and call.func.id in _IN_ORDER and bool(call.args) and call.args[0] is node


def object_called(call: ast.Call) -> bool:
    """An object kept in an attribute of ``self`` called itself (``self.write_outline(...)``), not a
    method of a client (``self.client.messages.create``), whose request the checks of messages read."""
    return isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
        and call.func.value.id == "self"


def kept_by_loop(reach: CutReach, loop: ast.For | ast.AsyncFor, fn: FunctionNode, hops: int, seen: set[int]
                 ) -> Steps | None:
    """A loop over the value whose body adds each item, or text built from it, to a name started
    before the loop (``kept.append(turn)``, ``text += f"- {turn}"``): that name holds the items in
    the value's order after the loop, followed from there. A name the loop starts again is not."""
    items = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
    restarted = {t.id for n in walk(loop) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    added: list[str] = []
    for node in walk(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ADDS \
                and isinstance(node.func.value, ast.Name) and node.args and mentions(node.args[0], items):
            added.append(node.func.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
                and mentions(node.value, items):
            added.append(node.target.id)
    for name in dict.fromkeys(added):
        if name in restarted or name in items:
            continue
        found = reach.through_name(name, loop, fn, hops, seen)
        if found is not None:
            return (Evidence(EvidenceKind.FLOW, f"its items are added to `{name}` in the loop at line {loop.lineno}",
                             reach.m.span(loop.iter)), *found)
    return None


def into_called_object(reach: CutReach, call: ast.Call, node: ast.expr, scope: Scope, hops: int, seen: set[int]
                       ) -> Steps | None:
    """``self.write_outline(topic=t, notes=turns)``, where ``self.write_outline`` is an object that asks
    a model when called (a DSPy predictor), or an object of a class of the project: followed into its
    ``__call__``, or the ``forward`` of a class derived from a DSPy module, as the parameter the value
    is given to."""
    if not object_called(call):
        return None
    if reach.sinks.is_sink(call, Env(scope)):  # `self.predict(notes=text)`, a DSPy predictor: it asks the model
        return (Evidence(EvidenceKind.SINK, f"sent to the model by `{reach.m.code(call.func)}(...)`",
                         reach.m.span(call)),)
    found = object_class(reach.m, call.func, Env(scope))
    if found is None or not isinstance(cls := found[1].node, ast.ClassDef) or found[0].analyzer is None:
        return None
    method = next((s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and s.name in ("__call__", "forward")), None)
    if method is None or method.name == "forward" and not any("Module" in ast.unparse(b) for b in cls.bases):
        return None
    positional = [a.arg for a in (*method.args.posonlyargs, *method.args.args)][1:]
    keyword = reach.m.parents.get(id(node))
    if isinstance(keyword, ast.keyword):
        param = keyword.arg if keyword.arg in {*positional, *(a.arg for a in method.args.kwonlyargs)} else None
    else:
        index = call.args.index(node) if node in call.args else len(positional)
        param = positional[index] if index < len(positional) else None
    if param is None:
        return None
    inner = found[0].analyzer.cut_reach.through_parameter(method, param, hops + 1, seen)
    if inner is None:
        return None
    return (Evidence(EvidenceKind.FLOW, f"passed to `{cls.name}.{method.name}` as `{param}`", reach.m.span(call)),
            *inner)



def gathered_keywords(fn: FunctionNode, bindings: tuple[Bound, ...], node: ast.expr, parent: ast.AST | None
                      ) -> str | None:
    """The ``**kwargs`` parameter of ``fn`` that holds ``node``, a keyword's value no other parameter
    takes (``chat.call(elements=names)`` with ``def call(self, **rendering)``; the call binds it into
    the dict of the rest), or the mapping a call spreads (``chat.call(**configs)``): the function
    reads it as a whole (``template.format(**rendering)``), so the value goes where ``kwargs`` goes."""
    kwargs = fn.args.kwarg
    if kwargs is None or not isinstance(parent, ast.keyword) or parent.value is not node:
        return None
    if parent.arg is None:
        return kwargs.arg  # `call(**configs)`: the entries no named parameter takes are in `kwargs`
    held = next((b.node for b in bindings if b.param == kwargs.arg), None)
    return kwargs.arg if isinstance(held, ast.Dict) and any(v is node for v in held.values) else None
