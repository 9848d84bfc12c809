"""A text put into a prompt only while it is short enough, and left out whole otherwise, with
nothing in its place::

    error_section = ""
    if len(error) < 200_000:
        error_section = f"<errors>\\n{error}\\n</errors>"
    prompt = PROMPT.format(errors=error_section)

A long text is the one the task most needs (the failing build's log, the large diff), and it is
the one dropped: the prompt reads as if there were none, and the model answers from the rest.
An ``else`` that says what was left out (or cuts the text instead) is the fix, and is left alone;
so is a gate that does not decide what a prompt reads.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.literals import number_value
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Component
from ctxlint.model import Cut, Observation, Source, SourceKind

GATED_DROP = "gated-drop"
# A size below this keeps out a label or a line, not content a model reads.
_LEAST = 500
_BUDGET_WORDS = ("max", "limit", "budget", "size", "char", "length", "len")
_GATE = re.compile(r"\b(?:el)?if\s+(?:len\(|[\w.]+\s*>=?\s*len\()")


class GatedDrops(Component):
    def observe(self) -> list[Observation]:
        found: list[Observation] = []
        if _GATE.search(self.m.text) is None:
            return found  # the cheap test: no `if len(x) < ...` or `if n > len(x)` in the module
        for fn, scope in self.m.functions:
            if fn.name.startswith("test"):
                continue
            for node in own_nodes(fn):
                if not isinstance(node, ast.If) or node.orelse:
                    continue
                gate = self.gate(node.test)
                if gate is None:
                    continue
                gated, kept = gate
                for statement in node.body:
                    observation = self.dropped(statement, gated, kept, node, fn, scope.assigns)
                    if observation is not None:
                        found.append(observation)
                        break
        return found

    def gate(self, test: ast.expr) -> tuple[str, int | None] | None:
        """``len(x) < limit`` (or ``limit > len(x)``, ``<=``): the text tested, by its dotted
        name, and the most characters it may have, where the bound is a content's size (500
        characters or more, or a name that says a size)."""
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return None
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Gt, ast.GtE)):
            left, right = right, left
        elif not isinstance(op, (ast.Lt, ast.LtE)):
            return None
        if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
                and len(left.args) == 1):
            return None
        name = self.m.dotted(left.args[0])
        if name is None:
            return None
        bound = self.bound(right)
        if bound is not None:
            return (name, int(bound)) if bound >= _LEAST else None
        last = (self.m.dotted(right) or "").rsplit(".", 1)[-1].lower()
        return (name, None) if last and any(w in last for w in _BUDGET_WORDS) else None

    def bound(self, node: ast.expr) -> float | None:
        """A number written in place or held by a module constant given it once."""
        found = number_value(node)
        if found is None and isinstance(node, ast.Name):
            records = self.m.module_scope.assigns.get(node.id, ())
            if len(records) == 1 and records[0].kind == "=" and records[0].value is not None:
                found = number_value(records[0].value)
        return found

    def dropped(self, statement: ast.stmt, gated: str, kept: int | None, gate: ast.If,
                fn: ast.FunctionDef | ast.AsyncFunctionDef, assigns: dict) -> Observation | None:
        """``section = f"...{text}..."`` in the gate's body, where ``section`` is given ``""``
        before the gate and nothing else, and its value reaches a prompt."""
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            return None
        target = statement.targets[0].id
        if not any(self.m.dotted(n) == gated for n in walk(statement.value)
                   if isinstance(n, (ast.Name, ast.Attribute))):
            return None
        records = assigns.get(target, ())
        empty = [r for r in records if r.kind == "=" and isinstance(r.value, ast.Constant) and r.value.value == ""
                 and r.end <= self.m.start(gate)]
        if len(empty) != 1 or len(records) != 2:
            return None  # the section given something else too: a note, a cut text, a fallback
        steps = self.reach.into_prompt(statement.value, fn)
        if steps is None:
            return None
        span = self.m.span(gate.test)
        return Observation(GATED_DROP, span, "its text reaches a prompt", source=Source(
            SourceKind.TRUNCATION, " ".join(self.m.code(gate.test).split()), span, kept=kept, flow=steps,
            cut=Cut("characters", "none", GATED_DROP), strong=True))
