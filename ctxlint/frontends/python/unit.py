"""One module under analysis (its syntax tree, positions, imports, scopes and what the analysis
has seen so far) and the base of the components that analyse it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ctxlint.frontends.locate import line_locator
from ctxlint.frontends.python.knowledge import NOT_VARIABLES
from ctxlint.frontends.python.literals import Located, string_value
from ctxlint.frontends.python.values import Scope
from ctxlint.model import Fix, Observation, Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.estimates import Estimates
    from ctxlint.frontends.python.flow import Flow
    from ctxlint.frontends.python.scopes import Scopes
    from ctxlint.frontends.python.sinks import Sinks
    from ctxlint.frontends.python.sources import Sources
    from ctxlint.frontends.python.strings import Strings
    from ctxlint.frontends.python.tools import Tools


class Unit:
    """The module being analysed and the state the components share."""

    def __init__(self, module: cst.Module, path: str) -> None:
        self.module = module
        self.path = path
        self.positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.imports: dict[str, str] = {}
        self.from_imports: set[str] = set()  # names bound by `from x import y` (objects, maybe)
        self.module_scope = Scope("module", module)
        self.calls: list[tuple[cst.Call, Scope]] = []
        self.functions: list[tuple[cst.FunctionDef, Scope]] = []
        self.lists: list[tuple[cst.List, Scope]] = []
        self.dicts: list[tuple[cst.Dict, Scope]] = []
        self.format_receivers: set[str] = set()
        self.observations: list[Observation] = []
        self.observed: set[Span] = set()
        self.active: set[int] = set()  # nodes being followed now (a guard against cycles)
        self.consumed: set[int] = set()  # values some request already includes
        self.fixes: dict[int, Fix] = {}
        self.codes: dict[int, str] = {}
        self.source: str | None = None
        self.line_starts: list[int] = []
        self.mcp = False  # the module imports an MCP library
        self.llm = False  # the module imports an LLM library
        self.marked: set[int] = set()  # cuts followed by a marker in the same expression

    def span(self, node) -> Span:
        r = self.positions[node]
        return Span(self.path, r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)

    def start(self, node) -> tuple[int, int]:
        r = self.positions[node].start
        return r.line, r.column

    def end(self, node) -> tuple[int, int]:
        r = self.positions[node].end
        return r.line, r.column

    def code(self, node) -> str:
        """The source of an expression, without the parentheses around it (spans exclude them)."""
        # Rendering a node walks its whole subtree, and the same nodes are asked for repeatedly.
        cached = self.codes.get(id(node))
        if cached is None:
            bare = node
            if getattr(node, "lpar", None) and not (isinstance(node, cst.Tuple) and not node.elements):
                bare = node.with_changes(lpar=[], rpar=[])
            cached = self.codes[id(node)] = self.module.code_for_node(bare).strip()
        return cached

    def dotted(self, node) -> str | None:
        """``a.b.c`` for names and attribute chains (``a["key"]`` reads as ``a.key``)."""
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr.value}" if base else None
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                key = string_value(index.value)
                base = self.dotted(node.value)
                if base and isinstance(key, str) and key.isidentifier():
                    return f"{base}.{key}"
        return None

    def qualified(self, node) -> str | None:
        """The dotted name of ``node`` with its first part resolved through the imports."""
        dotted = self.dotted(node)
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            return self.imports[head] + ("." + rest if rest else "")
        return dotted

    def chain(self, node) -> list[str]:
        """Attribute names from the root down, whatever the root is
        (``OpenAI().chat.completions.create`` -> ``[chat, completions, create]``)."""
        names = []
        while isinstance(node, cst.Attribute):
            names.append(node.attr.value)
            node = node.value
        if isinstance(node, cst.Name):
            names.append(node.value)
        return names[::-1]

    def is_variable(self, dotted: str) -> bool:
        """Whether a dotted name reads data: not a module (``datetime``), not ``self`` alone. An
        attribute of an object imported by name (``from flask import request``: ``request.id``)
        is data."""
        head = dotted.split(".")[0]
        if head in self.imports:
            return "." in dotted and head in self.from_imports
        return head not in NOT_VARIABLES or ("." in dotted and head in ("self", "cls"))

    def enter(self, node) -> bool:
        """Guard against cycles (``a = a + b``, recursive functions)."""
        if id(node) in self.active:
            return False
        self.active.add(id(node))
        return True

    def leave(self, node) -> None:
        self.active.discard(id(node))

    def located(self, part) -> Located:
        line, column = self.start(part)
        return Located(self.path, part, line_locator(part.value, line, column + 1))

    def short(self, func) -> str:
        """A call's name for a message: ``session.call_tool`` (its last two parts)."""
        return ".".join(self.chain(func)[-2:]) or self.code(func)

    def all_scopes(self) -> Iterator[Scope]:
        stack = [self.module_scope]
        seen = set()
        while stack:
            scope = stack.pop(0)
            if id(scope) in seen:
                continue
            seen.add(id(scope))
            yield scope
            stack.extend(inner for _, inner in scope.functions.values())


class Component:
    """A part of the analysis of one module; the parts call each other through these attributes,
    which the analyser sets once every part exists."""

    scopes: Scopes
    strings: Strings
    flow: Flow
    sources: Sources
    sinks: Sinks
    tools: Tools
    estimates: Estimates

    def __init__(self, unit: Unit) -> None:
        self.m = unit
