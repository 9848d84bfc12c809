"""What a ``**settings`` spread gives a call: its keys, when the code shows them, and whether
what it holds is only what a caller passes, empty by default.

``**self.generation_kwargs`` where ``self.generation_kwargs = dict(generation_kwargs or {})``
and ``generation_kwargs: dict | None = None``: the call sends no output limit unless the
object's caller gives one. Conditional spreads (``**({"temperature": t} if t else {})``) and
dicts completed later (``params.update(self.settings)``) are read key by key.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.flow import Entry
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind

Spread = tuple[dict[str, Entry] | None, list[Evidence]]


class Spreads(Component):
    def entries(self, node: ast.expr, env: Env, depth: int = 0) -> Spread:
        """The keys a spread gives (None when unknown), and the steps that show parts of it
        hold only what a caller passes, empty by default."""
        found = self.flow.dict_entries(node, env)
        if found is not None or depth > 6:
            return found, []
        if isinstance(node, ast.IfExp):  # either branch: the keys of both
            left, left_steps = self.entries(node.body, env, depth + 1)
            right, right_steps = self.entries(node.orelse, env, depth + 1)
            if left is None or right is None:
                return None, []
            return {**right, **left}, left_steps + right_steps
        empty = self.empty_by_default(node, env)
        if empty is not None:
            return {}, [Evidence(EvidenceKind.FLOW, f"`**{self.m.code(node)}` holds only what is passed as "
                                                    f"`{empty}`, empty by default", self.m.span(node))]
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.completed(node, env, depth)
        if isinstance(node, ast.Call):  # `params = self._params(prompt)`: what the function builds
            target = self.scopes.function_for(node, env)
            if target is not None and len(target.returns) == 1 and self.m.enter(target.fn):
                try:
                    return self.entries(target.returns[0], target.env, depth + 1)
                finally:
                    self.m.leave(target.fn)
        return None, []

    def completed(self, node: ast.Name | ast.Attribute, env: Env, depth: int) -> Spread:
        """A dict built with known keys and completed by ``update`` with such spreads."""
        binding = self.scopes.resolve(node, env)
        if binding is None or not self.m.enter(binding.value):
            return None, []
        try:
            found, steps = self.entries(binding.value, binding.env, depth + 1)
            for extra in binding.extras:
                if found is None:
                    return None, []
                if extra.kind == "update" and isinstance(extra.value, ast.Call) and not extra.value.keywords \
                        and len(extra.value.args) == 1:
                    more, more_steps = self.entries(extra.value.args[0], binding.env, depth + 1)
                    if more is None:
                        return None, []
                    found, steps = {**found, **more}, steps + more_steps
                else:
                    found = self.flow.changed_entries(found, extra, binding.env)
            return found, steps
        finally:
            self.m.leave(binding.value)

    def empty_by_default(self, node: ast.expr, env: Env, depth: int = 0) -> str | None:
        """The parameter a dict comes from when it holds only what a caller passes there and is
        empty by default (``dict(settings or {})`` of ``settings: dict | None = None``)."""
        if depth > 6:
            return None
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                and self.m.qualified(node.func) in ("dict", "copy.copy", "copy.deepcopy"):
            return self.empty_by_default(node.args[0], env, depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy" \
                and not node.args:
            return self.empty_by_default(node.func.value, env, depth + 1)
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2 \
                and _empty(node.values[1]):
            return self.empty_by_default(node.values[0], env, depth + 1)
        if isinstance(node, ast.Name) and env.scope.kind == "function" and node.id in env.scope.params \
                and env.bound(node.id) is None:
            param = env.scope.params[node.id]
            return node.id if param.default is not None and _empty(param.default) else None
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None and not binding.extras:
                return self.empty_by_default(binding.value, binding.env, depth + 1)
        return None



def _empty(node: ast.expr) -> bool:
    """``None``, ``{}`` or ``dict()``."""
    return (isinstance(node, ast.Constant) and node.value is None) or (isinstance(node, ast.Dict) and not node.keys) \
        or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"
            and not node.args and not node.keywords)
