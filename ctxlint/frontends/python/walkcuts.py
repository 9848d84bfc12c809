"""A walk of a folder cut on a count: a loop over a listing (``os.walk``, ``Path.rglob``,
``glob.glob``, ``os.listdir``; not sorted) that adds to a list and leaves the loop once the list
holds a bound's worth (``if len(matches) >= max_results: return matches, True``, or ``break``), in a
function that gives the list back.

The file system lists a folder's entries in the order it keeps them, not by name nor relevance, and
that order decides which entries the bound lets through: another machine, a fresh checkout or one
file added changes which the caller gets. It is the loop form of ``find ... | head -500``, and is
reported where shellcuts.py reports that (CTX104): where the list reaches a model as a tool's result,
the function being a tool, or a method that a project class declares and a tool calls on an object of
no class the code shows (``sandbox.glob(path)``), or a function a method of another module of the
project calls and whose result it returns (``matches, cut = find_matches(root, ...)`` in the
sandbox's ``glob``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.frontends.python.knowledge import LISTINGS
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.prefilter import cuts_a_walk
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.shellcuts import calls_elsewhere
from ctxlint.frontends.python.sortedwalk import walk_sorted
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Observation, Source, SourceKind, Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.shellcuts import ShellCuts

WALK_ORDER = "walk-cut-order"  # the kind of evidence (rules/cache/CTX104)
# A bound below this picks an entry or two (the first match), it does not cut a listing.
_LEAST = 10


@dataclass(frozen=True)
class WalkCut:
    loop: ast.For | ast.AsyncFor  # the loop over the listing
    detail: str  # the listing (`os.walk`)
    test: ast.If  # `if len(matches) >= max_results:`
    name: str  # the list the loop fills
    walk: ast.expr  # the listing itself: the loop's, or the one a generator of the module loops over


class WalkCuts(Component):
    shell: ShellCuts  # how a function's result is seen to become a tool's result (set by the analyzer)
    # The loops found cut, where each takes its entries: the same order seen reaching the tool's result
    # through the list the loop fills (`listing-reaches-prompt`) is this claim again.
    iterated: list[Span]

    def observe(self) -> list[Observation]:
        self.iterated = []
        if not cuts_a_walk(self.m.text):
            return []
        found: list[Observation] = []
        for fn, scope in self.m.functions:
            if fn.name.startswith("test"):
                continue
            steps: tuple[Evidence, ...] | None = None
            for cut in self.left_walks(fn, scope):
                steps = steps or self.reaches_model(fn, scope)  # asked once per function that cuts a walk
                if steps is None:
                    break
                span = self.m.span(cut.walk)
                self.iterated.append(self.m.span(cut.loop.iter))
                step = Evidence(EvidenceKind.FLOW, f"the loop leaves once `{cut.name}` holds "
                                f"`{self.m.code(_bound(cut.test))}` entries (line {cut.test.lineno}), before "
                                "anything sorts them", self.m.span(cut.test))
                found.append(Observation(WALK_ORDER, span, "which entries survive the cut, and so the tool's "
                                         "result, changes with the file system (another machine, a file added)",
                                         source=Source(SourceKind.UNORDERED_ITERATION, cut.detail, span,
                                                       flow=(step, *steps))))
                break  # one finding per function: the outer walk decides the rest
        return found

    def left_walks(self, fn: FunctionNode, scope: Scope) -> Iterator[WalkCut]:
        """The loops of ``fn`` over a listing left early on a count of a list they fill, which ``fn``
        returns (alone or as an item of a tuple)."""
        env = Env(scope)
        returned = _returned_names(fn)
        for loop in own_nodes(fn):
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                continue
            detail = self.flow.unordered(loop.iter, env)
            if detail not in LISTINGS or detail == "os.walk" and walk_sorted(loop):
                continue
            filled = _appended(loop)
            for test in walk(loop):
                if not isinstance(test, ast.If) or not _leaves(test):
                    continue
                name = _counted(test.test)
                if name is None or name not in filled or name not in returned:
                    continue
                bound = _bound(test)
                if isinstance(bound, ast.Constant) and (type(bound.value) is not int or bound.value < _LEAST):
                    continue
                yield WalkCut(loop, detail, test, name, self.walked(loop.iter, env))
                break

    def walked(self, iterated: ast.expr, env: Env) -> ast.expr:
        """Where the listing a loop iterates is made: for a generator of the module
        (``for path in candidates():``), the walk its ``yield``s loop over, where ``sorted`` goes."""
        if isinstance(iterated, ast.Call) and (found := self.flow.yield_loops(iterated, env)) is not None:
            called, walks = found
            return next((w for w in walks if self.flow.unordered(w, called.env) in LISTINGS), iterated)
        return iterated

    def calls_this(self, owner: Analyzer, call: ast.Call, home: Scope, fn: FunctionNode) -> bool:
        """Whether ``call``, in another module, calls ``fn`` of this one: the function it reaches, or,
        where that is not read, the name its import gives (``from agent.walking import find_named``)."""
        target = owner.callees.function_for(call, Env(home), foreign=True, returns=False)
        if target is not None:
            return target.owner is not None and target.owner.unit.file == self.m.file \
                and target.fn.lineno == fn.lineno
        project, file = self.m.project, self.m.file
        qualified = owner.unit.qualified(call.func) or ""
        if project is None or file is None or "." not in qualified.strip("."):
            return False
        module, name = qualified.rsplit(".", 1)
        # whole names only: `walking` is not the end of `agent.sidewalking`
        return name == fn.name and f".{_module_name(file, project.root)}".endswith(f".{module.lstrip('.')}")

    def reaches_model(self, fn: FunctionNode, scope: Scope) -> tuple[Evidence, ...] | None:
        """The steps by which what ``fn`` returns becomes a tool's result: ``fn`` itself, or a method of
        another module of the project that calls it and returns a value (one call up)."""
        own = self.shell.reaches_model(fn, scope)
        if own is not None:
            return own
        if self.m.parents.get(id(fn)) is not self.m.tree:
            return None
        for owner, call, home, caller in calls_elsewhere(self.m, fn.name):
            if not any(isinstance(n, ast.Return) and n.value is not None for n in own_nodes(caller)):
                continue
            if not self.calls_this(owner, call, home, fn):
                continue  # the call is not of this function (another module's of the same name)
            steps = owner.walk_cuts.shell.reaches_model(caller, home)
            if steps is not None:
                return (Evidence(EvidenceKind.FLOW, f"`{caller.name}` returns what `{fn.name}` gives",
                                 owner.unit.span(call)), *steps)
        return None


def _module_name(file: Path, root: Path) -> str:
    """The dotted name of the module at ``file`` under ``root`` (``agent/walking.py``: ``agent.walking``)."""
    relative = file.relative_to(root) if file.is_relative_to(root) else file
    return ".".join(relative.with_suffix("").parts)


def _returned_names(fn: FunctionNode) -> set[str]:
    """The names ``fn`` returns, alone or as an item of a tuple (``return matches, truncated``)."""
    found: set[str] = set()
    for node in walk(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            items = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            found.update(item.id for item in items if isinstance(item, ast.Name))
    return found


def _appended(loop: ast.For | ast.AsyncFor) -> set[str]:
    """The names of the lists the loop adds to (``matches.append(...)``)."""
    return {node.func.value.id for node in walk(loop) if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend")
            and isinstance(node.func.value, ast.Name)}


def _leaves(test: ast.If) -> bool:
    """Whether the body of ``test`` leaves the loop: a ``return`` or a ``break``."""
    return any(isinstance(node, (ast.Return, ast.Break)) for node in test.body)


def _counted(test: ast.expr) -> str | None:
    """The list ``len(name) >= bound`` (``>``, ``==``) counts."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.GtE, ast.Gt, ast.Eq))):
        return None
    left = test.left
    if isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len" \
            and len(left.args) == 1 and isinstance(left.args[0], ast.Name):
        return left.args[0].id
    return None


def _bound(test: ast.If) -> ast.expr:
    assert isinstance(test.test, ast.Compare)
    return test.test.comparators[0]
