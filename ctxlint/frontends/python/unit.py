"""One module under analysis (its syntax tree, source positions, imports, scopes and what the
analysis has seen so far) and the base of the components that analyse it."""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections import deque
from collections.abc import Iterator
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ctxlint.frameworks import Catalogue, Holder, TemplateKind
from ctxlint.frontends.code.guard import CycleGuard
from ctxlint.frontends.code.pieces import Facts, Piece
from ctxlint.frontends.code.summaries import SummaryMemo
from ctxlint.frontends.code.words import qualify
from ctxlint.frontends.python.callindex import CallIndex
from ctxlint.frontends.python.knowledge import NOT_VARIABLES
from ctxlint.frontends.python.literals import Located, StrToken
from ctxlint.frontends.python.nodes import chain, children
from ctxlint.frontends.python.patches import PatchIndex
from ctxlint.frontends.python.starimports import imported
from ctxlint.frontends.python.values import Binding, Env, Scope
from ctxlint.model import Cut, Evidence, Fix, Observation, Slot, Source, SourceKind, Span
from ctxlint.providers import LIMIT_NAMES

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.arguments import Arguments
    from ctxlint.frontends.python.callees import Callees
    from ctxlint.frontends.python.calls import Calls
    from ctxlint.frontends.python.containers import Containers
    from ctxlint.frontends.python.cutreach import CutReach
    from ctxlint.frontends.python.cuts import Cuts
    from ctxlint.frontends.python.cutsites import CutSites
    from ctxlint.frontends.python.estimates import Estimates
    from ctxlint.frontends.python.flow import Entry, Flow
    from ctxlint.frontends.python.messages import Messages
    from ctxlint.frontends.python.project import Project
    from ctxlint.frontends.python.reserves import Reserves
    from ctxlint.frontends.python.scopes import Scopes
    from ctxlint.frontends.python.sendsummary import Summary
    from ctxlint.frontends.python.serialization import Serialization
    from ctxlint.frontends.python.sinks import Sinks
    from ctxlint.frontends.python.sources import Sources
    from ctxlint.frontends.python.spreads import Spreads
    from ctxlint.frontends.python.standalone import Standalone
    from ctxlint.frontends.python.strings import Strings
    from ctxlint.frontends.python.tools import Tools
    from ctxlint.frontends.python.wrappers import Wrappers


# How many steps of following values (a name to its value, a call to its function) one module
# may take: enough for any real module, and a bound for generated shapes that multiply them.
MIN_STEPS = 100_000
STEPS_PER_CHARACTER = 2
# How many names one file may look up in other modules of the project.
MAX_LOOKUPS = 2_000


class Positioned(Protocol):
    """A node ``ast`` gives a position: an expression, a statement, an argument (read-only
    here, so that frozen stand-ins such as ``flow.Region`` qualify)."""

    @property
    def lineno(self) -> int: ...
    @property
    def col_offset(self) -> int: ...
    @property
    def end_lineno(self) -> int | None: ...
    @property
    def end_col_offset(self) -> int | None: ...


class Unit(CallIndex, PatchIndex, CycleGuard):
    """The module being analysed and the state the components share."""

    def __init__(self, tree: ast.Module, text: str, path: str, catalogue: Catalogue, project: Project | None = None,
                 file: Path | None = None) -> None:
        self.tree = tree
        self.catalogue = catalogue
        self.project = project
        self.file = file  # where the module is, when the project around it is known
        self.analyzer: Analyzer  # set by the analyser that owns this unit
        self.import_levels: dict[str, int] = {}  # names bound by relative imports: how many dots
        self.dependencies: set[str] = set()  # other modules of the project this result read
        # The last names of sink calls (`create`, `invoke`): a call named otherwise is no sink.
        self.sink_names = catalogue.sink_names
        # Whether some sink is an object called directly (a DSPy module: `qa(question=...)`).
        self.instance_sinks = any(p.endswith("()") for p in catalogue.sink_calls.exact) or any(
            p.endswith("()") for group in catalogue.sink_calls.by_last.values() for p, _ in group) or any(
            p.endswith("()") for p, _ in catalogue.sink_calls.wild)
        self.prompt_decorator_names = catalogue.prompt_decorators.last_names()
        self.holder_calls: list[tuple[ast.Call, Scope, Holder]] = []
        self.template_calls: list[tuple[ast.Call, Scope, TemplateKind]] = []
        self.text = text
        self.path = path
        self.lines = text.split("\n")
        self.line_starts = [0]
        for line in self.lines[:-1]:
            self.line_starts.append(self.line_starts[-1] + len(line) + 1)
        self._ascii: dict[int, bool] = {}
        self.imports: dict[str, str] = {}
        self.from_imports: set[str] = set()  # names bound by `from x import y` (objects, maybe)
        self.module_scope = Scope("module", tree)
        self.calls: list[tuple[ast.Call, Scope]] = []
        self.functions: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, Scope]] = []
        self.classes: list[tuple[ast.ClassDef, Scope]] = []  # with the scope they are defined in
        self.class_scopes: dict[int, Scope] = {}  # each class's own scope, by the id of its node
        self.lists: list[tuple[ast.List, Scope]] = []
        self.dicts: list[tuple[ast.Dict, Scope]] = []
        self.format_receivers: set[str] = set()
        self.observations: list[Observation] = []
        self.observed: set[Span] = set()
        self.active: set[int] = set()  # nodes being followed now (a guard against cycles)
        self.consumed: set[int] = set()  # values some request already includes
        # Chat models built here that a request of the same function or class is sent with, and
        # where those requests are sent (sinks.py)
        self.sent_holders: dict[int, list[Span]] = {}
        # The analyzers of the other modules that build chat models a request here is sent with
        # (a settings class's `get_llm()`), by the id of the constructor call (calls.py)
        self.holder_readers: dict[int, Analyzer] = {}
        self.fixes: dict[int, Fix] = {}
        self.codes: dict[int, str] = {}
        self._names_limit: dict[int, bool] = {}
        self.tokens: dict[int, list[StrToken] | None] = {}
        self.mcp = False  # the module imports an MCP library
        self.llm = False  # the module imports an LLM library
        self.marked: set[int] = set()  # cuts followed by a marker in the same expression
        self._parents: dict[int, ast.AST] | None = None
        self._strings: list[tuple[ast.Constant, str]] | None = None
        # Values already followed (text, facts) by binding, and the bound on all following.
        self.text_memo: dict[tuple[object, ...], tuple[list[Piece] | None, set[int]]] = {}
        self.facts_memo: dict[tuple[object, ...], Facts] = {}
        self.source_memo: dict[tuple[object, ...], Source | None] = {}
        self.answer_memo: dict[int, bool] = {}  # whether each function of the module gives back an answer
        # `from x import *` of the module, in order (module, dots), and what each name read was found to be
        self.star_imports: list[tuple[str, int]] = []
        self.star_memo: dict[str, tuple[str, int] | None] = {}
        # Callee paths and dict literals read, by node, env and the values being followed.
        self.node_paths: dict[tuple[int, tuple[object, ...], frozenset[int]], tuple[ast.AST, Env, str]] = {}
        self.dict_memo: dict[tuple[int, tuple[object, ...], frozenset[int]],
                             tuple[ast.AST, Env, dict[str, Entry] | None]] = {}
        self.iteration_memo: dict[tuple[object, ...], list[Source]] = {}
        self.yield_memo: dict[int, list[ast.expr] | None] = {}  # what a generator's yields loop over (ordering.py)
        self.sorted_memo: dict[int, set[str]] = {}  # names a scope sorts in place, `found.sort()` (ordering.py)
        self.order_memo: dict[tuple[object, ...], str | None] = {}  # what makes a binding unordered (ordering.py)
        self.path_memo: dict[tuple[object, ...], str] = {}
        self.callee_memo: dict[tuple[object, ...], tuple[object, ...] | None] = {}  # functions calls reach (cuts.py)
        # the subclasses' methods a base's `self.hook(...)` may be, by class and name (callees.subclass_hooks)
        self.hook_memo: dict[tuple[int, str], tuple[ast.AST, list[Any]]] = {}
        # what a base class sets `self.attr` to, by class and name (callees.set_by_base)
        self.base_set_memo: dict[tuple[int, str], tuple[object, Any]] = {}
        # the calls of a function, by parameter (sources.py)
        self.callers_memo: dict[tuple[int, str, int, bool, int], list] = {}
        self.unreadable_lists: set[tuple[object, ...]] = set()  # bindings with no items we can read
        # a prompt constant's value -> the role of the message the code that fills it sends it in
        self.format_roles: dict[int, tuple[str, Span]] = {}
        # Names looked up, by node and env: (the node, the env, what it holds there).
        self.resolved: dict[tuple[object, ...], tuple[ast.AST, Env, Binding | None]] = {}
        self.steps = 0
        self.max_steps = MIN_STEPS + STEPS_PER_CHARACTER * len(text)
        self.exhausted = False
        # What each function's body sends (wrappers.py), by the function's id and the depth asked:
        # it depends on the project's code alone, so it is kept while the module is (the function
        # keeps its id).
        self.summaries: SummaryMemo[Summary] = SummaryMemo()
        # The tag each function wraps a parameter in, escaped (envelopes.py), by function, parameter and depth.
        self.envelopes: SummaryMemo[str] = SummaryMemo()
        self.sink_calls: set[int] = set()  # the calls that are sinks of the catalogue themselves
        # Calls made up to read a request without one of its arguments (wrappers.py): kept, so their
        # ids in the analysis's tables stay theirs.
        self.probes: list[ast.Call] = []
        self.handed_calls: dict[int, ast.Call | None] = {}  # what a thread runner calls, by its call (runners.py)
        self.class_limits: dict[int, tuple[str, Span] | None] = {}  # a limit each class reads (sinks.py)
        self.inner_prompts: dict[str, tuple[str, Span]] | None = None  # see inner_prompts.py
        # The fields of objects the module sends as a request's limit, with the function that does (limitfields.py).
        self.limit_fields_sent: list[tuple[ast.Attribute, ast.FunctionDef | ast.AsyncFunctionDef]] | None = None

    @cached_property
    def twin_methods(self) -> frozenset[str]:
        """The names of the methods the module's classes add to a library's class they subclass
        (``class AGeneration(Generation)`` adding ``acall``): the cheap test of a twin sink."""
        names: set[str] = set()
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef) and any(
                    self.catalogue.from_library(self.imports.get(_root(base), "")) for base in node.bases):
                names.update(f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)))
        return frozenset(names)

    def names_a_limit(self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
        """Whether a function's or a class's text names an output limit (it may set or pass one on)."""
        known = self._names_limit.get(id(fn))  # asked for a class at each construction of it
        if known is None:
            known = self._names_limit[id(fn)] = any(map(self.code(fn).__contains__, LIMIT_NAMES))
        return known

    # ---- positions ------------------------------------------------------------------------------------

    def column(self, line: int, byte_column: int) -> int:
        """The 0-based code-point column of a UTF-8 byte offset on a 1-based line (``ast``
        counts bytes; spans count code points)."""
        ascii_line = self._ascii.get(line)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if ascii_line is None:
            ascii_line = self._ascii[line] = text.isascii()
        if ascii_line:
            return byte_column
        return len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))

    def offset(self, line: int, byte_column: int) -> int:
        """The offset in the module's text of a position as ``ast`` gives it."""
        return self.line_starts[line - 1] + self.column(line, byte_column)

    def locate(self, offset: int) -> tuple[int, int]:
        """1-based line and column of an offset in the module's text."""
        index = bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def span(self, node: Positioned) -> Span:
        line, end_line = node.lineno, node.end_lineno or node.lineno
        return Span(self.path, line, self.column(line, node.col_offset) + 1,
                    end_line, self.column(end_line, node.end_col_offset or 0) + 1)

    def name_span(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Span:
        """Where a function's or class's name is written (``ast`` locates the keyword)."""
        line = self.lines[node.lineno - 1]
        start = self.column(node.lineno, node.col_offset)
        match = re.compile(r"(?:async\s+)?(?:def|class)\s+").match(line, start)
        column = match.end() if match else start
        return Span(self.path, node.lineno, column + 1, node.lineno, column + 1 + len(node.name))

    def offsets(self, node: Positioned) -> tuple[int, int]:
        """Where ``node`` starts and ends in the module's text."""
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0))

    @staticmethod
    def start(node: Positioned) -> tuple[int, int]:
        """Where ``node`` starts, as ``ast`` counts it: for ordering, never for display."""
        return node.lineno, node.col_offset

    @staticmethod
    def end(node: Positioned) -> tuple[int, int]:
        return node.end_lineno or node.lineno, node.end_col_offset or 0

    def code(self, node: Positioned) -> str:
        """The source of an expression (``ast`` spans leave out the parentheses around it)."""
        cached = self.codes.get(id(node))
        if cached is None:
            start, end = self.offsets(node)
            cached = self.codes[id(node)] = self.text[start:end].strip()
        return cached

    def string_tokens(self, node: ast.Constant | ast.JoinedStr) -> list[StrToken] | None:
        """The string literal tokens an (implicitly concatenated) string node is written as."""
        from ctxlint.frontends.python.literals import scan_tokens

        key = id(node)
        if key not in self.tokens:
            start, end = self.offsets(node)
            self.tokens[key] = scan_tokens(self.text, start, end)
        return self.tokens[key]

    def located(self, token: StrToken) -> Located:
        return Located(self.path, token, self.locate)

    @property
    def parents(self) -> dict[int, ast.AST]:
        """Each node's parent, by the node's id (built the first time a part asks)."""
        if self._parents is None:
            parents: dict[int, ast.AST] = {}
            stack: list[ast.AST] = [self.tree]
            while stack:
                node = stack.pop()
                below = children(node)
                for child in below:
                    parents[id(child)] = node
                stack.extend(reversed(below))
            self._parents = parents
        return self._parents

    @property
    def strings(self) -> list[tuple[ast.Constant, str]]:
        """The module's string constants and their text, breadth first (the order ``ast.walk``
        gives), found once for every template that looks for its name among them."""
        if self._strings is None:
            self._strings = []
            queue: deque[ast.AST] = deque([self.tree])
            while queue:
                node = queue.popleft()
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    self._strings.append((node, node.value))
                queue.extend(children(node))
        return self._strings

    # ---- names ----------------------------------------------------------------------------------------

    def dotted(self, node: ast.AST | None) -> str | None:
        """``a.b.c`` for names and attribute chains (``a["key"]`` reads as ``a.key``)."""
        parts: list[str] = []
        while True:
            if isinstance(node, ast.Name):
                parts.append(node.id)
                return ".".join(reversed(parts))
            if isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            elif (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                  and isinstance(node.slice.value, str) and node.slice.value.isidentifier()):
                parts.append(node.slice.value)
                node = node.value
            else:
                return None

    def qualified(self, node: ast.AST | None) -> str | None:
        """The dotted name of ``node`` with its first part resolved through the imports."""
        return qualify(self.dotted(node), self.imports)

    chain = staticmethod(chain)

    def is_variable(self, dotted: str) -> bool:
        """Whether a dotted name reads data: not a module (``datetime``), not ``self`` alone. An
        attribute of an object imported by name (``from flask import request``: ``request.id``)
        is data."""
        head = dotted.split(".")[0]
        if head in self.imports:
            return "." in dotted and head in self.from_imports
        return head not in NOT_VARIABLES or ("." in dotted and head in ("self", "cls"))

    # ---- other modules of the project ------------------------------------------------------------

    def display_path(self) -> str:
        """The module's path as a message names it: from the project's root when it is known."""
        project, file = self.project, self.file
        if project is not None and file is not None and file.is_relative_to(project.root):
            return file.relative_to(project.root).as_posix()
        return self.path

    def foreign(self, qualified: str, level: int = 0) -> tuple[Analyzer, ast.AST] | None:
        """The module of the project that defines ``qualified`` (``app.prompts.SYSTEM``), and
        the value, function or class it binds to the name there."""
        project, file = self.project, self.file
        if project is None or file is None:
            return None
        module, _, name = qualified.rpartition(".")
        if not name:
            return None
        path = project.module_file(module, file, level) if module or level else None
        owner = project.analyzer(path) if path is not None else None
        if owner is None or owner.unit is self:
            return None  # not a module of the project (both answers are kept): no lookup there
        project.lookups += 1  # past MAX_LOOKUPS the count says that some were refused
        if project.lookups > MAX_LOOKUPS:
            return None
        self.dependencies.add(owner.unit.path)
        unit = owner.unit
        records = unit.module_scope.assigns.get(name) or []
        values = [r.value for r in records if r.kind == "=" and r.value is not None]
        if values and len(records) == len(values):
            return owner, values[-1]
        defined = unit.module_scope.functions.get(name)
        if defined is not None:
            return owner, defined[0]
        bound = imported(unit, name)
        if bound is not None:  # a re-export: `from .core import SYSTEM` in a package
            found = unit.foreign(*bound)
            if found is not None:
                self.dependencies.add(found[0].unit.path)
                self.dependencies |= found[0].unit.dependencies
            return found
        return None

    def forget(self) -> None:
        """Drop what following values remembered (another file is linted next)."""
        for memo in (self.answer_memo, self.star_memo, self.text_memo, self.facts_memo, self.source_memo,
                     self.node_paths, self.dict_memo, self.iteration_memo, self.yield_memo, self.sorted_memo,
                     self.order_memo, self.path_memo, self.callee_memo, self.hook_memo, self.base_set_memo,
                     self.callers_memo, self.unreadable_lists, self.format_roles, self.resolved, self.active):
            memo.clear()
        self.consumed = set()
        self.steps = 0
        self.exhausted = False

    def modules_held(self) -> list[Analyzer]:
        """The other modules this one's lasting results refer to (kept from one file to the next)."""
        held = list(self.holder_readers.values())
        return held + [summary.sender for summary in self.summaries.kept.values()
                       if summary is not None and summary.sender is not None]

    def close(self) -> None:
        """Break the module's cycles (scopes and their parents, assignments and their scopes, this
        unit and its analyser) so that reference counting frees it (see ``Analyzer.close``)."""
        scopes = [self.module_scope, *self.class_scopes.values()]
        while scopes:
            scope = scopes.pop()
            scopes.extend(inner for _, inner in scope.functions.values())
            scope.parent = scope.cls = None
            scope.functions.clear()
            scope.assigns.clear()
        vars(self).clear()

    def adopt_pieces(self, pieces: list[Piece], use: Span) -> list[Piece]:
        """Text another module gives, placed where this module uses it: every piece spans the
        use, and what data flow found there keeps its origin as a located step."""
        return [Piece(p.text, use, self.adopt_slot(p.slot, use), p.loop) for p in pieces]

    def adopt_slot(self, slot: Slot | None, use: Span) -> Slot | None:
        if slot is None or all(s.span.path == self.path for s in slot.sources):
            return slot
        return replace(slot, sources=tuple(self.adopt_source(s, use) for s in slot.sources))

    def adopt_source(self, source: Source, use: Span) -> Source:
        if source.span.path == self.path:
            return source
        where = source.span
        step = Evidence.adopted_from(where, source.strong)
        content = tuple(replace(s, span=use) for s in source.content)
        # What makes an order unstable is named by its detail (`set`, `os.listdir`): the step says where.
        detail = source.detail if source.kind is SourceKind.UNORDERED_ITERATION else \
            f"{source.detail} in {where.path}:{where.line}"
        return replace(source, detail=detail, span=use, fix=None, content=content, flow=(step, *source.flow))

    def adopt_facts(self, facts: Facts, use: Span) -> Facts:
        return facts.adopted([self.adopt_source(s, use) for s in facts.sources])

    def short(self, func: ast.expr) -> str:
        """A call's name for a message: ``session.call_tool`` (its last two parts)."""
        return ".".join(self.chain(func)[-2:]) or self.code(func)

    # ---- bounds, cycles and scopes ---------------------------------------------------------------------

    def cut_short(self) -> bool:
        """Whether what was followed for this file may have stopped short: the module's step budget
        is spent, or the project refused to read one more module or look up one more name for it.
        An answer worked out since is not kept for the next file (code/summaries.py), which may be
        given what this one was refused."""
        project = self.project
        return self.exhausted or (project is not None and (project.refused or project.lookups > MAX_LOOKUPS))

    def step(self, cost: int = 1) -> bool:
        """Count ``cost`` steps of following values; False once the module's budget is spent."""
        self.steps += cost
        if self.steps > self.max_steps:
            self.exhausted = True
            return False
        return True

    @staticmethod
    def binding_key(binding: Binding) -> tuple[object, ...]:
        """What a followed value depends on: the expression, where it is evaluated, the
        arguments bound to that scope's parameters and the changes made after it."""
        return (id(binding.value), *(
            (id(env.scope), tuple((b.param, id(b.node), id(b.env)) for b in env.bindings))
            for env in (binding.env, binding.extras_env)), tuple(id(e) for e in binding.extras))

    def following(self) -> frozenset[int]:
        """The values being followed now: what a result found under the cycle guard depends on."""
        return frozenset(self.active)

    def class_scope(self, cls: ast.ClassDef) -> Scope | None:
        return self.class_scopes.get(id(cls))

    def all_scopes(self) -> Iterator[Scope]:
        stack = deque([self.module_scope])
        seen = set()
        while stack:
            scope = stack.popleft()
            if id(scope) in seen:
                continue
            seen.add(id(scope))
            yield scope
            stack.extend(inner for _, inner in scope.functions.values())


class Component:
    """A part of the analysis of one module; the parts call each other through these attributes,
    which the analyser sets once every part exists."""

    scopes: Scopes
    callees: Callees
    strings: Strings
    flow: Flow
    containers: Containers
    sources: Sources
    serialization: Serialization
    calls: Calls
    cuts: Cuts
    messages: Messages
    args: Arguments
    sinks: Sinks
    standalone: Standalone
    tools: Tools
    estimates: Estimates
    wrappers: Wrappers
    spreads: Spreads
    reserves: Reserves
    cut_sites: CutSites  # where the module cuts its text
    reach: CutReach  # whether a cut reaches a prompt

    def __init__(self, unit: Unit) -> None:
        self.m = unit

    @staticmethod
    def messages_dropped(kind: str, span: Span, code: str, steps: tuple[Evidence, ...], detail: str,
                         history: bool = False) -> Observation:
        """The observation that what the conversation must keep (its system prompt, the task, the
        user's requests) is among the messages ``code`` removes from the front: ``steps`` say how."""
        source = Source(SourceKind.TRUNCATION, code, span, cut=Cut("messages", "end", kind, history=history),
                        flow=steps, strong=True)
        return Observation(kind, span, detail, source=source)


def _root(node: ast.expr) -> str:
    """The name an attribute chain starts at (``dashscope`` of ``dashscope.Generation``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""
