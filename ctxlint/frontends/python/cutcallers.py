"""The callers that go on with what a cutting helper gives back.

A project function that cuts the texts it is given to a budget (``input_clipping(inputs, history,
max_token_limit)``: the longest entry loses its tail until the whole fits) is written once and
called before many requests. Its cut is reported once, where it is written: that is where a
marker belongs, and a finding at each call would say the same thing a dozen times. The finding
names, as its evidence, each call whose caller goes on with what the helper returns (the cut
texts, unpacked into names the caller reads again), so a reader sees every prompt that loses
its end. A call whose result is thrown away (``_``, never read again) or only logged or measured
is not named; nor are calls in tests.
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.cutmarkers import LOGGING
from ctxlint.frontends.python.knowledge import MEASURES
from ctxlint.frontends.python.nodes import mentions
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env
from ctxlint.model import Cut, Evidence, EvidenceKind

# How many modules besides its own may call a helper for its calls to be looked for (a helper
# shared by a project's plugins is called from many; more is a name too common to resolve).
_MOST_MODULES = 20
# How many calls a finding names.
_MOST_PLACES = 24


class CutCallers(Component):
    def shortened_item(self, statement: ast.stmt, env: Env) -> tuple[ast.Name, Cut, ast.expr] | None:
        """``parts[i] = enc.decode(enc.encode(parts[i])[:n])`` in a loop run until the text fits: an
        item of the collection rewritten with a cut of itself (the longest entry loses its end). A
        slice of what is cut that drops a character or two (``[:-1]``, a broken character) is the
        same cut. Returned with the value that cuts, reported as this loop's cut alone."""
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return None
        assert isinstance(statement, ast.Assign)
        value = statement.value
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and value.slice.lower is None \
                and isinstance(value.slice.upper, ast.UnaryOp) and isinstance(value.slice.upper.operand, ast.Constant):
            value = value.value
        if id(value) in self.m.marked:
            return None
        found = self.cuts.find(value, env) if isinstance(value, (ast.Call, ast.Subscript)) else None
        if found is None:
            return None
        return target.value, found.cut, value

    def trimmed_text(self, statement: ast.stmt, test: ast.expr, env: Env) -> tuple[ast.Name, Cut, ast.expr] | None:
        """``query = query[:n]`` in a loop run until ``len(encode(conversation + query)) <= limit``: a
        text cut again and again while the whole it is measured in (the turns before it and itself)
        overflows. A text measured alone (``while len(query) > n``) is a cut made before the loop,
        retried, and reported there."""
        target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
        if not isinstance(target, ast.Name):
            return None
        assert isinstance(statement, ast.Assign)
        value = statement.value
        found = self.cuts.find(value, env) if isinstance(value, (ast.Call, ast.Subscript)) else None
        if found is None or id(value) in self.m.marked or not (
                isinstance(found.subject, ast.Name) and found.subject.id == target.id):
            return None
        return (target, found.cut, value) if _measured_with_more(test, target.id) else None

    def going_on(self, fn: FunctionNode | None, cut: str) -> tuple[Evidence, ...]:
        """A place for each call of ``fn`` whose caller reads again what ``fn`` returns of the
        collection ``cut`` (a local name the function cuts in place)."""
        if fn is None:
            return ()
        positions = _returned_positions(fn, cut)
        if not positions:
            return ()
        places: list[Evidence] = []
        for unit, call, home in self.reach.calls_of(fn, _MOST_MODULES):
            caller = home.node
            if not isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)) or caller is fn or not _goes_on(
                    unit, call, caller, positions):
                continue  # a recursive call hands on to the same callers
            places.append(Evidence(EvidenceKind.FLOW, f"`{caller.name}` goes on with the cut texts `{fn.name}` "
                                   "gives back", unit.span(call)))
            if len(places) >= _MOST_PLACES:
                break
        return tuple(places)


def _returned_positions(fn: FunctionNode, cut: str) -> set[int | None]:
    """Which items of what ``fn`` returns hold the collection ``cut`` or a value taken from it
    (``history = everything[1:]``): a position in a returned tuple, None for the whole value."""
    taken = {cut} | {name.id for node in own_nodes(fn) if isinstance(node, ast.Assign) and mentions(node.value, {cut})
                     for target in node.targets for name in ast.walk(target) if isinstance(name, ast.Name)}
    positions: set[int | None] = set()
    for node in own_nodes(fn):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        if isinstance(node.value, ast.Tuple):
            positions.update(i for i, item in enumerate(node.value.elts) if mentions(item, taken))
        elif mentions(node.value, taken):
            positions.add(None)
    return positions


def _goes_on(unit: Unit, call: ast.Call, caller: FunctionNode, positions: set[int | None]) -> bool:
    """Whether ``caller`` reads again an item of what ``call`` returns at one of ``positions``."""
    parent = unit.parents.get(id(call))
    if isinstance(parent, ast.Await):
        parent = unit.parents.get(id(parent))
    if isinstance(parent, ast.Return):
        return None in positions  # handed on whole to the caller's own callers
    if not isinstance(parent, ast.Assign) or len(parent.targets) != 1:
        return False
    target = parent.targets[0]
    if isinstance(target, ast.Tuple):
        items = [target.elts[i] for i in positions if i is not None and i < len(target.elts)]
        names = {item.id for item in items if isinstance(item, ast.Name)}
    else:
        names = {target.id} if isinstance(target, ast.Name) and None in positions else set()
    names.discard("_")
    return any(_read_on(unit, read) for read in own_nodes(caller) if isinstance(read, ast.Name)
               and read.id in names and isinstance(read.ctx, ast.Load) and read.lineno >= parent.lineno)


def _read_on(unit: Unit, read: ast.Name) -> bool:
    """A read that is neither a log line nor a measure (``len(history)``)."""
    parent = unit.parents.get(id(read))
    if isinstance(parent, ast.Call) and read is not parent.func:
        func = parent.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name not in LOGGING and (unit.qualified(func) or "") not in MEASURES
    return True



def _measured_with_more(test: ast.expr, name: str) -> bool:
    """Whether ``test`` measures ``name`` joined with other text (``conversation + query``, an
    f-string with both)."""
    for node in ast.walk(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts = [node.left, node.right]
        elif isinstance(node, ast.JoinedStr):
            parts = [v.value for v in node.values if isinstance(v, ast.FormattedValue)]
        else:
            continue
        if any(isinstance(p, ast.Name) and p.id == name for p in parts) and any(
                not (isinstance(p, ast.Name) and p.id == name) for p in parts):
            return True
    return False
