"""A collection in no fixed order handed to a function of the module: where its order goes there.

A copy passed to a call, by keyword too, whether or not its result is kept
(``return await self._compose(terms=list(state.terms))``), is followed into the parameter it
fills, to the call that asks a model there. A set handed whole to a function that loops over the
parameter and builds what it returns from the loop (``[... for r in await self._render(responses=chosen)]``)
gives back its results in the set's order; a function that only tests membership with it does not.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.stringsets import copy_of
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.orderprompts import OrderPrompts


def asked_in_callee(part: OrderPrompts, call: ast.Call, shown: ast.expr, steps: list[Evidence]
                    ) -> ast.expr | ast.stmt | None:
    """A call that asks a model, or a chat message, in the function of the module that ``call``
    hands the copy ``shown`` to (``self._answer(terms=list(terms))``), built from the parameter
    it fills, a call or two down; the step into it is added to ``steps``."""
    name = part.m.dotted(copy_of(shown) or shown)
    callee, params = part.filled(call, {name}) if name is not None else (None, set())
    if callee is None or not params:
        return None
    listed = ", ".join(f"`{p}`" for p in sorted(params))
    step = [Evidence(EvidenceKind.FLOW, f"passed to `{callee.name}` as {listed}", part.m.span(call))]
    asked = part.asked_with(callee, params, step, 1)
    if asked is not None:
        steps.extend(step)
    return asked


def made_at(part: OrderPrompts, shown: ast.expr, collection: ast.expr, env: Env, through: ast.Call | None
            ) -> list[Evidence]:
    """For a collection a name holds, handed whole to a call (``self._render(responses=chosen)``): the
    step where the function makes it (a set, a listing), which the finding is reported after."""
    if through is None or shown is not collection or not isinstance(shown, ast.Name):
        return []
    binding = part.scopes.resolve(shown, env)
    if binding is None or binding.owner is not None:
        return []
    return [Evidence(EvidenceKind.FLOW, f"`{shown.id}` is made at line {binding.value.lineno}",
                     part.m.span(binding.value))]


def walks_into_result(part: OrderPrompts, call: ast.Call, node: ast.expr) -> bool:
    """Whether the function of the module ``call`` calls loops over the parameter ``node`` fills
    and builds what it returns from the loop (``tasks = [self.render(r) for r in responses]``,
    ``return await gather(*tasks)``): what it gives back comes in the order of ``node``."""
    name = part.m.dotted(node)
    callee, params = part.filled(call, {name}) if name is not None else (None, set())
    if callee is None:
        return False
    walked = {p for p in params if any(isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension))
                                       and isinstance(n.iter, ast.Name) and n.iter.id == p
                                       for n in ast.walk(callee))}
    return bool(walked) and part.returns_any(callee, part.spread(callee, walked))
