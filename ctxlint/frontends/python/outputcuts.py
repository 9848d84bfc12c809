"""A cut of what an agent reads back after running code or fetching a page: a process's streams or
a page's raw text, by its name (``result.stdout[:2000]``), by the value its local name is given
(``output_text = "\\n".join(item["traceback"])``) or by the project function that builds it from
one (``ok, outputs = self.run_cell(cell)``); and an output of any other kind (``*output`` is also
an agent's own), which a tool, through the project's functions, may be seen to return."""

from __future__ import annotations

import ast
from dataclasses import replace

from ctxlint.frontends.python.knowledge import RAW_OUTPUT_NAMES, reads_output
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope, unpacked_position
from ctxlint.model import Evidence, EvidenceKind, Observation, Source

# Methods whose result is still the text they are given (a value built from a stream with them
# is that stream's text).
TEXT_METHODS = ("read", "read_text", "decode", "get_text", "strip", "format", "join", "replace", "dumps")


class OutputCuts(Component):
    def output_cut(self, node: ast.Subscript | ast.Call, source: Source, goes: str, env: Env,
                   fn: FunctionNode | None) -> Observation | None:
        """The observation of a cut (``node``, found as ``source``) of an output; None when what
        it cuts is not seen to be one."""
        subject = node.value if isinstance(node, ast.Subscript) else node
        if reads_output(subject):
            if reads_output(subject, RAW_OUTPUT_NAMES):
                return Observation("raw-output-cut", source.span, goes, source=replace(source, strong=True))
            stream = self.stream_value(subject, env)
            if stream is not None:  # `output_text = "\n".join(output["traceback"])` before the cut
                return Observation("raw-output-cut", source.span, goes, source=replace(source, strong=True, flow=(
                    *source.flow, Evidence(EvidenceKind.SOURCE, f"`{self.m.code(subject)}` is given "
                                           f"`{' '.join(self.m.code(stream).split())}`", self.m.span(stream)))))
            tool = self.reach.to_tool(node, fn)  # returned, through the project's functions, by a tool
            if tool is not None:
                return Observation("tool-result-cut", source.span, "its text reaches a prompt",
                                   source=replace(source, strong=True, flow=(*source.flow, *tool)))
            return Observation("output-cut", source.span, goes, source=replace(source, strong=True))
        returned = self.returned_stream(subject, env)
        if returned is not None:  # `success, outputs = self.run_cell(cell)`: a run's output, handed back
            return Observation("raw-output-cut", source.span, goes, source=replace(source, strong=True, flow=(
                *source.flow, returned)))
        return None

    def stream_value(self, node: ast.expr, env: Env) -> ast.expr | None:
        """A value an output's local name is given in its function that reads a process's
        streams or a page's raw text (``output["traceback"]``, ``result.stderr``): what a name
        alone does not say, where it comes from does."""
        if not isinstance(node, ast.Name) or env.scope.kind != "function":
            return None
        return next((r.value for r in env.scope.assigns.get(node.id, ())
                     if r.value is not None and reads_output(r.value, RAW_OUTPUT_NAMES)), None)

    def returned_stream(self, node: ast.expr, env: Env) -> Evidence | None:
        """Where a local name was given what a project function returns (``ok, outputs =
        self.run_cell(cell)``) and that function builds the value from a process's streams or a
        page's raw text (``output_text = "\\n".join(output["traceback"])``, then
        ``return ok, ",".join(parsed)`` after ``parsed.append(output_text)``): the output an agent
        reads back, whatever the name it is given on the way says."""
        if not isinstance(node, ast.Name) or env.scope.kind != "function":
            return None
        for record in env.scope.assigns.get(node.id, ()):
            value = record.value
            position = unpacked_position(value) if value is not None else None
            if isinstance(value, ast.Subscript) and position is not None:
                items = self.callees.returned_items(value, position, env)
            elif isinstance(value, (ast.Call, ast.Await)):
                call = value.value if isinstance(value, ast.Await) else value
                called = self.callees.function_for(call, env, foreign=True) if isinstance(call, ast.Call) else None
                items = [(r, called.env, called) for r in called.returns] if called is not None else []
            else:
                continue
            for item, item_env, called in items:
                unit = called.owner.unit if called.owner is not None else self.m
                stream = _built_from_stream(item, item_env.scope)
                if stream is not None:
                    return Evidence(EvidenceKind.SOURCE, f"`{node.id}` is returned by `{called.fn.name}`, which "
                                    f"builds it from `{' '.join(unit.code(stream).split())}`", unit.span(stream))
        return None


def _built_from_stream(value: ast.expr, scope: Scope, depth: int = 0) -> ast.expr | None:
    """The read of a process's streams or a page's raw text that ``value`` is built from, in its
    function: written in it, or given to a local name it reads (assigned, appended) up to two
    names away. A call other than a text method (``summarise(page_html)``) makes something else of it."""
    if any(isinstance(n, ast.Call) and not (isinstance(n.func, ast.Attribute) and n.func.attr in TEXT_METHODS)
           and not (isinstance(n.func, ast.Name) and n.func.id == "str") for n in ast.walk(value)):
        return None
    if reads_output(value, RAW_OUTPUT_NAMES):
        return value
    if depth >= 2:
        return None
    for name in {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}:
        for record in scope.assigns.get(name, ()):
            if record.value is not None and record.scope is scope and record.kind in ("=", "+=", "append", "extend"):
                found = _built_from_stream(record.value, scope, depth + 1)
                if found is not None:
                    return found
    return None
