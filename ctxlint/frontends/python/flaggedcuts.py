"""A result cut without the flag or the marker that the module's other cuts carry.

A module of tools whose results say when they were cut (``return {"entries": entries,
"truncated": len(entries) >= limit}``) has shown how its results tell the model that a list is
partial. A public function of the same module that stops filling its list at a count (``if
len(entries) >= limit: break``) and returns it in a dict with no such key gives the model a cut
list it has every reason to take for complete: the other results of the module would have said so.

The module's own convention is the evidence: without a function that flags its cut, a count is
read as the usual bound of a listing and is not reported.

The same holds within one function for text: where it marks a cut (``text[:limit] + "..."``) and
returns another cut to the same bound bare (``return content[:limit]``, a fallback branch), the
second reads as whole to whoever the first would have told.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Unit
from ctxlint.markers import cut_marker
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

UNFLAGGED_CUT = "unflagged-cut"
UNMARKED_BRANCH = "unmarked-branch"
# A head cut with a marker added to it, as written (`text[:limit] + "..."`, `text[:n] + " [truncated]"`).
MARKED_CUT = re.compile(r"\[\s*:\s*[\w.]+\s*\]\s*\+\s*[fr]?[\"'](?:\.\.\.|\u2026|\s*[\[(])")
# A count below this keeps an example or two, not a listing.
_LEAST = 10
_FLAG_WORD = re.compile("truncat", re.IGNORECASE)


def unflagged_cuts(unit: Unit) -> list[Observation]:
    if _FLAG_WORD.search(unit.text) is None:  # no result of the module can say it was cut
        return []
    functions = [fn for fn, _ in unit.functions]
    flags = {id(fn): key for fn in functions if (key := _flag_key(fn)) is not None}
    if not flags:
        return []
    flagging = next(fn for fn in functions if id(fn) in flags)
    flag = flags[id(flagging)]
    found = []
    for fn in functions:
        if id(fn) in flags or fn.name.startswith(("_", "test")):
            continue
        for loop, test, built in _count_stops(fn, unit):
            returned = _returned_in_dict(fn, built)
            if returned is None:
                continue
            header = " ".join(f"for {unit.code(loop.target)} in {unit.code(loop.iter)}".split())
            steps = (Evidence(EvidenceKind.FLOW, f"`{unit.code(test)}` ends the loop", unit.span(test)),
                     Evidence(EvidenceKind.FLOW, f"`{fn.name}` returns `{built}` with no flag of the cut",
                              unit.span(returned)),
                     Evidence(EvidenceKind.FLOW, f"`{flagging.name}` of the same module flags its own cut "
                              f"(`\"{flag.value!s}\"`)", unit.span(flag)))
            source = Source(SourceKind.TRUNCATION, header, unit.span(test), cut=Cut("items", "start", UNFLAGGED_CUT),
                            flow=steps, strong=True)
            found.append(Observation(UNFLAGGED_CUT, unit.span(test), "no flag says the list was cut", source=source))
    return found


def _flag_key(fn: FunctionNode) -> ast.Constant | None:
    """The key of a returned dict that says the result was cut (``"truncated": ...``)."""
    for node in own_nodes(fn):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            for key in node.value.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and "truncat" in key.value.lower():
                    return key
    return None


def _count_stops(fn: FunctionNode, unit: Unit) -> list[tuple[ast.For | ast.AsyncFor, ast.Compare, str]]:
    """``for entry in ...: if len(entries) >= limit: break ... entries.append(...)``: a loop that
    stops once the list it fills holds a number of items (a parameter, a name, or at least ten)."""
    found = []
    for loop in own_nodes(fn):
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        appended = {n.func.value.id for n in ast.walk(loop) if isinstance(n, ast.Call) and isinstance(
            n.func, ast.Attribute) and n.func.attr == "append" and isinstance(n.func.value, ast.Name)}
        for statement in loop.body:
            if not (isinstance(statement, ast.If) and any(isinstance(s, ast.Break) for s in statement.body)):
                continue
            test = statement.test
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.GtE, ast.Gt))
                    and isinstance(test.left, ast.Call) and unit.code(test.left.func) == "len"
                    and len(test.left.args) == 1 and isinstance(test.left.args[0], ast.Name)):
                continue
            built, bound = test.left.args[0].id, test.comparators[0]
            if built in appended and not (isinstance(bound, ast.Constant) and isinstance(bound.value, int)
                                          and bound.value < _LEAST):
                found.append((loop, test, built))
    return found


def _returned_in_dict(fn: FunctionNode, built: str) -> ast.expr | None:
    """The value of a returned dict that holds the list (``{"files": entries[:limit]}``)."""
    for node in own_nodes(fn):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            for value in node.value.values:
                inner = value.value if isinstance(value, ast.Subscript) else value
                if isinstance(inner, ast.Name) and inner.id == built:
                    return value
    return None


def unmarked_branches(unit: Unit) -> list[Observation]:
    """``return content[:limit]`` in a function that elsewhere marks a cut to the same bound
    (``extracted[:limit] + "..."``): the one path that returns the text cut with nothing after it."""
    if MARKED_CUT.search(unit.text) is None:  # no cut of the module is marked: nothing to tell a bare one by
        return []
    found = []
    for fn, _ in unit.functions:
        if fn.name.startswith("test"):
            continue
        marked: dict[str, ast.BinOp] = {}
        bare: list[tuple[ast.Subscript, str]] = []
        for node in own_nodes(fn):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and marks_cut(node.right):
                bound = head_bound(node.left)
                if bound is not None:
                    marked.setdefault(bound, node)
            elif isinstance(node, ast.Return) and node.value is not None:
                bound = head_bound(node.value)
                if bound is not None:
                    assert isinstance(node.value, ast.Subscript)
                    bare.append((node.value, bound))
        for cut, bound in bare:
            mark = marked.get(bound)
            if mark is None:
                continue
            span = unit.span(cut)
            step = Evidence(EvidenceKind.FLOW, f"`{' '.join(unit.code(mark).split())}` marks a cut to the same bound "
                            f"in `{fn.name}`", unit.span(mark))
            source = Source(SourceKind.TRUNCATION, unit.code(cut), span, cut=Cut("characters", "start", "slice"),
                            flow=(step,), strong=True)
            found.append(Observation(UNMARKED_BRANCH, span, "returned with no marker", source=source))
    return found


def head_bound(node: ast.expr) -> str | None:
    """The bound of ``text[:bound]`` (a name, an attribute or a number of at least 20), as written."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.lower is None
            and node.slice.step is None and node.slice.upper is not None):
        return None
    upper = node.slice.upper
    if isinstance(upper, ast.Constant):
        return str(upper.value) if isinstance(upper.value, int) and upper.value >= 20 else None
    return ast.unparse(upper) if isinstance(upper, (ast.Name, ast.Attribute)) else None


def marks_cut(node: ast.expr) -> bool:
    """A string that marks a cut where it follows one (``"..."``, ``"… [truncated]"``)."""
    first = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else node
    return isinstance(first, ast.Constant) and isinstance(first.value, str) and cut_marker(first.value)
