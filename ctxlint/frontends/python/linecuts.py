"""Text whose every line is cut to a length and joined again (``"\\n".join(line[:100] for line in
text.splitlines())``): each long line loses its end with nothing in its place. A cut of one line
to a short width is a label or a log line; a cut of every line of a text a prompt is made of drops
the end of each signature, statement or row the model reads, and it cannot tell which.

Such a cut is reported where its text is followed into a prompt through the project's functions
(returned to callers here or in other modules, kept in names, written into a chat message).
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.unit import Component
from ctxlint.model import Cut, Observation, Source, SourceKind

_SPLITS = ("splitlines", "split")


class LineCuts(Component):
    def observe(self) -> list[Observation]:
        found = []
        for call, fn, _ in self.m.function_calls():  # indexed once: no walk of the module of its own
            if not isinstance(call.func, ast.Attribute) or call.func.attr != "join":
                continue
            width = line_cut(call)
            steps = self.reach.reach_far(call, fn) if width is not None else None
            if steps is None:
                continue
            detail = " ".join(self.m.code(call).split())
            found.append(Observation("line-cut", self.m.span(call), "its text reaches a prompt", source=Source(
                SourceKind.TRUNCATION, detail, self.m.span(call), kept=width, flow=steps,
                cut=Cut("characters", "start", "line-cut"))))
        return found


def line_cut(call: ast.Call) -> int | None:
    """The width ``sep.join([line[:n] for line in text.splitlines()])`` cuts each line to (a literal
    number); None when the call is not such a join, or a line is marked where it is cut
    (``line[:n] + "…"``, ``line if len(line) <= n else ...``: the item is then no bare slice)."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], (ast.ListComp, ast.GeneratorExp)):
        return None
    comp = call.args[0]
    if len(comp.generators) != 1 or comp.generators[0].ifs:
        return None
    loop = comp.generators[0]
    item, lines = comp.elt, loop.iter
    if not (isinstance(loop.target, ast.Name) and isinstance(lines, ast.Call) and isinstance(lines.func, ast.Attribute)
            and lines.func.attr in _SPLITS):
        return None
    if lines.func.attr == "split" and not (len(lines.args) == 1 and isinstance(lines.args[0], ast.Constant)
                                           and lines.args[0].value == "\n"):
        return None  # words, or fields of a row
    if not (isinstance(item, ast.Subscript) and isinstance(item.value, ast.Name) and item.value.id == loop.target.id
            and isinstance(item.slice, ast.Slice) and item.slice.lower is None and item.slice.step is None):
        return None
    width = item.slice.upper
    if not (isinstance(width, ast.Constant) and type(width.value) is int and width.value > 0):
        return None
    return width.value
