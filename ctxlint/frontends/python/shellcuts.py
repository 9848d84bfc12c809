"""Shell commands that cut their own output: ``find {path} -type f | head -500``,
``grep -rn ... | head -{cap}``.

A command string the code runs (an f-string, or pieces added together) whose pipeline
ends in ``head`` or ``tail`` gives back only some lines of what the command prints. The cut is
silent when the function that runs it never looks at it again: its bound is read nowhere else in
the function (no ``len(lines) >= cap`` that could set a flag) and no text of the function speaks
of a cut. Such a cut is reported where its lines reach a model as a tool's result: the function is
registered as a tool, or it is a method of a class deriving from a project class that declares
it, and a tool of the project calls that method on an object of no class the code shows
(``sandbox.list_dir(path)`` in ``@tool def ls(...)``). The model takes the lines for the whole
output, and says that a file the cut dropped is not there (CTX205).

The same reader says whether the lines were in an order at all: ``find``, ``grep -r`` and ``rg``
print in the order the file system gives directory entries, so with no ``sort`` before the cut
that order decides which entries survive (CTX104).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.nodes import base_name, reads_of, walk
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.markers import cut_marker, mentions_cut
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.tools import Tools

COMMAND_CUT = "command-cut"
COMMAND_ORDER = "command-listing-order"
# The cheap test, on the module's text: a pipe into `head` or `tail` given a count.
PIPED_CUT = re.compile(r"\|\s*(?:head|tail)\s+(?:-n\s*|--lines=|-)(?:\d|\{)")
# A cut to fewer lines than this picks a line (`| head -1`), it does not shorten a listing.
_LEAST = 10
# What stands for an interpolated value in a command's text.
_HOLE = re.compile(r"\x00(\d+)\x00")
_STAGES = re.compile(r"(?<![|\\])\|(?!\|)")
# Commands that print a tree's entries in the order the file system gives them.
SHELL_WALKERS = ("find", "grep -r", "rg", "fd", "fdfind")


@dataclass(frozen=True)
class Command:
    node: ast.expr  # the whole command's text, as the code writes it
    text: str  # with each interpolated value a hole
    holes: tuple[ast.expr, ...]


@dataclass(frozen=True)
class PipedCut:
    producer: str  # the first command of the pipeline (`find`, `grep -r`)
    stage: str  # the cutting stage, as written (`head -{hard_limit}`)
    keeps: str  # "start" (head) or "end" (tail)
    bound: ast.expr | int
    sorted_before: bool


class ShellCuts(Component):
    def observe(self) -> list[Observation]:
        if not PIPED_CUT.search(self.m.text):
            return []
        found: list[Observation] = []
        for fn, scope in self.m.functions:
            for command in self.commands(fn):
                piped = self.piped_cut(command, Env(scope))
                if piped is None or not self.runs(command.node, fn) or not _returns_a_value(fn) \
                        or self.noted(piped, command, fn):
                    continue
                steps = self.reaches_model(fn, scope)
                if steps is None:
                    continue
                found.extend(self.observations(command, piped, steps))
        return found

    # ---- reading the command -----------------------------------------------------------------------

    def commands(self, fn: FunctionNode) -> Iterator[Command]:
        """The outermost string expressions of ``fn`` whose text pipes into a cut."""
        for node in walk(fn):
            if not isinstance(node, (ast.JoinedStr, ast.Constant, ast.BinOp)):
                continue
            parent = self.m.parents.get(id(node))
            if isinstance(parent, (ast.JoinedStr, ast.FormattedValue)) or (
                    isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add)):
                continue  # a piece of a larger text, read with it
            holes: list[ast.expr] = []
            text = _text(node, holes)
            if text is not None and PIPED_CUT.search(_HOLE.sub("{", text)):
                yield Command(node, text, tuple(holes))

    def piped_cut(self, command: Command, env: Env) -> PipedCut | None:
        """The first stage of the pipeline that keeps a count of lines, after a first command."""
        stages = [s.strip() for s in _STAGES.split(command.text)]
        first = re.split(r"&&|;", stages[0])[-1].split()
        if not first or len(stages) < 2:
            return None
        producer = first[0]
        if producer == "grep" and any(_recursive(w) for w in self.words(first[1:], command, env)):
            producer = "grep -r"
        for index, stage in enumerate(stages[1:], start=1):
            words = stage.split()
            if not words or words[0] not in ("head", "tail"):
                continue
            bound = _count(words[1:], command.holes)
            if bound is None or (isinstance(bound, int) and bound < _LEAST):
                return None
            sorted_before = any(s.split()[:1] == ["sort"] for s in stages[1:index]) or any(
                w == "sort" or w.startswith("--sort") for w in first[1:])  # `rg --sort path`
            shown = _HOLE.sub(lambda h: "{" + self.m.code(command.holes[int(h.group(1))]) + "}", stage)
            return PipedCut(producer, shown.split(";")[0].strip(), "start" if words[0] == "head" else "end",
                            bound, sorted_before)
        return None

    def words(self, words: list[str], command: Command, env: Env) -> Iterator[str]:
        """The words of a command, each hole read for the words it gives: a string, or
        ``" ".join(flags)`` of a list the function writes (``flags = ["-r", "-n"]``)."""
        for word in words:
            for hole in _HOLE.finditer(word):
                value = command.holes[int(hole.group(1))]
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "join" \
                        and value.args and isinstance(value.args[0], ast.Name):
                    binding = self.scopes.resolve(value.args[0], env)  # what the list holds where it is joined
                    value = binding.value if binding is not None else value
                yield from (n.value for n in ast.walk(value)
                            if isinstance(n, ast.Constant) and isinstance(n.value, str))
            yield _HOLE.sub("", word)

    def runs(self, node: ast.expr, fn: FunctionNode) -> bool:
        """Whether the command is handed to a call: in place, or through the local name it is given."""
        parent = self.m.parents.get(id(node))
        held: ast.AST = node
        while isinstance(parent, (ast.keyword, ast.List, ast.Tuple)):  # `["sh", "-c", script]`
            held, parent = parent, self.m.parents.get(id(parent))
        if isinstance(parent, ast.Call):
            return held is not parent.func
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name)):
            return False
        return any(self.handed(read) for read in reads_of(fn, parent.targets[0].id, parent))

    def handed(self, node: ast.expr) -> bool:
        """Whether ``node`` is (part of) an argument of a call, up to its statement."""
        child: ast.AST = node
        parent = self.m.parents.get(id(node))
        while parent is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, ast.Call) and child is not parent.func:
                return True
            child, parent = parent, self.m.parents.get(id(parent))
        return False

    def noted(self, piped: PipedCut, command: Command, fn: FunctionNode) -> bool:
        """Whether the function looks at its cut again: reads the bound elsewhere (a count it could
        compare the lines with), or writes a text that speaks of a cut."""
        inside = {id(n) for n in ast.walk(command.node)}
        if any(mentions_cut(word) or cut_marker(word) for word in _STAGES.split(command.text)[1:]
               if not word.strip().startswith(("head", "tail"))):
            return True
        names = {n.id for n in ast.walk(piped.bound) if isinstance(n, ast.Name)} \
            if isinstance(piped.bound, ast.expr) else set()
        for node in walk(fn):
            if id(node) in inside:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
                return True
            if isinstance(node, ast.Constant) and type(node.value) is int and node.value == piped.bound:
                return True
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and mentions_cut(node.value):
                return True
        return False

    # ---- where its lines go ------------------------------------------------------------------------

    def reaches_model(self, fn: FunctionNode, scope: Scope) -> tuple[Evidence, ...] | None:
        """The steps by which what ``fn`` returns becomes a tool's result; None when not seen to."""
        own = self.tool_step(self.tools, fn, scope)
        if own is not None:
            return (own,)
        cls = self.m.parents.get(id(fn))
        project, file = self.m.project, self.m.file
        if not isinstance(cls, ast.ClassDef) or project is None or file is None or fn.name.startswith("__"):
            return None
        declared = self.declaring_base(cls, fn.name)
        if declared is None:
            return None
        for owner, call, home, caller in calls_elsewhere(self.m, fn.name):
            func = call.func
            if not isinstance(func, ast.Attribute) or isinstance(func.value, ast.Name) \
                    and func.value.id in ("self", "cls"):
                continue
            tool = self.tool_step(owner.tools, caller, home)
            if tool is not None:
                return (Evidence(EvidenceKind.FLOW, f"`{cls.name}.{fn.name}` implements `{declared}.{fn.name}`, "
                                 f"which the tool `{caller.name}` calls", owner.unit.span(call)), tool)
        return None

    def declaring_base(self, cls: ast.ClassDef, method: str) -> str | None:
        """The project class ``cls`` derives from that declares ``method`` too (an abstract base):
        a caller holding the base calls this override."""
        project = self.m.project
        assert project is not None
        for path in project.method_definers(method):
            owner = self.m.analyzer if path == self.m.file else project.analyzer(path)
            if owner is None:
                continue
            for node in owner.unit.tree.body:
                if isinstance(node, ast.ClassDef) and node is not cls and any(
                        isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) and d.name == method
                        for d in node.body) and (node.name in {base_name(b) for b in cls.bases}
                             or cls.name in {name for _, name in project.subclasses(node.name)}):
                    return node.name
        return None

    @staticmethod
    def tool_step(tools: Tools, fn: FunctionNode, scope: Scope) -> Evidence | None:
        """The sink step where ``fn`` is registered as a tool whose description says nothing of a cut."""
        decorator = tools.registering_decorator(fn, scope)
        described = ast.get_docstring(fn) or ""
        if decorator is None or mentions_cut(described):
            return None
        return Evidence(EvidenceKind.SINK, f"the result of the tool `{fn.name}`, which the model reads as the whole "
                        "of it", tools.m.span(decorator))

    def observations(self, command: Command, piped: PipedCut, steps: tuple[Evidence, ...]) -> list[Observation]:
        span = self.m.span(command.node)
        detail = f"{piped.producer} ... | {piped.stage}"
        kept = piped.bound if isinstance(piped.bound, int) else None
        found = [Observation(COMMAND_CUT, span, "its lines reach a model as a tool's result", source=Source(
            SourceKind.TRUNCATION, detail, span, kept=kept, flow=steps,
            cut=Cut("lines", piped.keeps, COMMAND_CUT), strong=True))]
        if piped.producer in SHELL_WALKERS and not piped.sorted_before and piped.keeps == "start":
            step = Evidence(EvidenceKind.FLOW, f"its lines are cut with `{piped.stage}` before anything sorts them",
                            span)
            found.append(Observation(COMMAND_ORDER, span, "which entries survive the cut, and so the tool's result, "
                                     "changes with the file system (another machine, a file added)", source=Source(
                                         SourceKind.UNORDERED_ITERATION, piped.producer, span,
                                         flow=(step, *steps))))
        return found


def _text(node: ast.expr, holes: list[ast.expr]) -> str | None:
    """The text of a string expression, each interpolated value a hole (listed in ``holes``);
    None when it is not one."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif isinstance(value, ast.FormattedValue):
                parts.append(_hole(value.value, holes))
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left, holes), _text(node.right, holes)
        if left is None and right is None:
            return None
        return (left if left is not None else _hole(node.left, holes)) + \
            (right if right is not None else _hole(node.right, holes))
    return None


def _recursive(word: str) -> bool:
    """Whether a word of a ``grep`` command asks it to walk a tree (``-r``, ``-rn``, ``--recursive``)."""
    return word == "--recursive" or (word.startswith("-") and not word.startswith("--")
                                     and bool({"r", "R"} & set(word)))


def _hole(value: ast.expr, holes: list[ast.expr]) -> str:
    holes.append(value)
    return f"\x00{len(holes) - 1}\x00"


def _count(words: list[str], holes: tuple[ast.expr, ...]) -> ast.expr | int | None:
    """The number of lines ``head``/``tail`` is given: ``-500``, ``-n 500``, ``-n{cap}``, ``--lines=N``
    (a literal, or the value interpolated); None for bytes (``-c``), ``tail -n +N`` or no count."""
    joined = " ".join(words)
    match = re.match(r"(?:-n\s*|--lines=|-)(\d+|\x00\d+\x00)(?:\s|$)", joined)
    if match is None:
        return None
    given = match.group(1)
    hole = _HOLE.fullmatch(given)
    if hole is None:
        return int(given)
    value = holes[int(hole.group(1))]
    if isinstance(value, ast.Constant) and type(value.value) is int:
        return value.value
    return value


def _returns_a_value(fn: FunctionNode) -> bool:
    """Whether ``fn`` returns something other than constants (what the command printed)."""
    return any(isinstance(n, ast.Return) and n.value is not None and not _constant(n.value) for n in walk(fn))


def _constant(node: ast.expr) -> bool:
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_constant(e) for e in node.elts)
    return isinstance(node, ast.Constant)


def calls_elsewhere(m: Unit, name: str) -> Iterator[tuple[Analyzer, ast.Call, Scope, FunctionNode]]:
    """The calls of ``name`` made inside a function of another module of the project, not a test's:
    each with that module's analyzer, the call's scope and the calling function. Each module read
    becomes a dependency of this one."""
    project, file = m.project, m.file
    if project is None or file is None:
        return
    for path in project.callers(name):
        if path == file or in_tests(path, project.root):
            continue
        owner = project.analyzer(path)
        if owner is None:
            continue
        m.dependencies.add(owner.unit.path)
        for call, home in owner.unit.calls:
            if last_name(call.func) == name and isinstance(home.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield owner, call, home, home.node
