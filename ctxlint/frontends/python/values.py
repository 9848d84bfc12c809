"""The front-end's internal values: pieces of text, scopes, assignments, bindings, message items.

None of these leave the package; what leaves is the shared model (requests, segments, slots).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from ctxlint.model import Breakpoint, Role, Segment, Slot, Source, Span, ToolDef

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer

T = TypeVar("T")


@dataclass
class Piece:
    """Part of a string value: static text (``slot is None``) or a slot, with its span."""

    text: str
    span: Span
    slot: Slot | None = None
    loop: str | None = None


@dataclass
class Loop:
    node: ast.For | ast.AsyncFor | ast.While
    text: str


@dataclass(frozen=True)
class Param:
    """A function parameter: its annotation and default, if written."""

    name: str
    annotation: ast.expr | None
    default: ast.expr | None


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "class", "function"
    node: ast.AST
    parent: Scope | None = None
    cls: Scope | None = None  # for a method: its class's scope
    assigns: dict[str, list[Assign]] = field(default_factory=dict)
    params: dict[str, Param] = field(default_factory=dict)
    positional: list[str] = field(default_factory=list)  # positional parameter names in order
    functions: dict[str, tuple[ast.AST, Scope]] = field(default_factory=dict)  # functions and classes
    returns: list[ast.expr] = field(default_factory=list)
    tool_results: dict[str, Span] = field(default_factory=dict)  # names sent as a tool's result


@dataclass(eq=False)
class Assign:
    kind: str  # "=", "+=", "append", "extend", "insert", "shuffle"
    value: ast.expr | None  # the expression; None when unknowable (a loop target, an unpacking)
    end: tuple[int, int]  # where the binding takes effect
    loops: tuple[Loop, ...]
    scope: Scope  # where the name lives
    target: ast.expr | None = None
    where: Scope | None = None  # where the value is evaluated, when not ``scope`` (``self.X = ...``)

    @property
    def home(self) -> Scope:
        return self.where or self.scope


@dataclass(frozen=True)
class Bound:
    """A parameter bound to the argument a call gives it: the argument is evaluated in the
    caller's env, by the caller's module when that is another one (``owner``)."""

    param: str
    node: ast.expr
    env: Env
    owner: Analyzer | None = None


@dataclass(frozen=True)
class Env:
    scope: Scope
    bindings: tuple[Bound, ...] = ()
    depth: int = 0

    @property
    def key(self) -> tuple[object, ...]:
        """What a lookup in this env depends on, by identity (memo keys; computed once)."""
        known = self.__dict__.get("_key")
        if known is None:
            known = self.__dict__["_key"] = (id(self.scope), tuple(map(id, self.bindings)), self.depth)
        return known

    def bound(self, name: str) -> Bound | None:
        for bound in self.bindings:
            if bound.param == name:
                return bound
        return None


@dataclass
class Binding:
    """What a name holds at a point: its last plain assignment and the changes after it."""

    value: ast.expr
    env: Env
    extras: list[Assign]
    loops: int = 0  # loops around the base assignment (an extra inside more loops repeats)
    owner: Analyzer | None = None  # the module that holds the value, when it is another one

    def loop_of(self, extra: Assign) -> Loop | None:
        return extra.loops[-1] if len(extra.loops) > self.loops else None


@dataclass
class Item:
    """An element of a list value (a message, a tool): a node, or a run of unknown length."""

    node: ast.expr
    env: Env
    loop: str | None = None
    variable: bool = False
    sources: tuple[Source, ...] = ()


class KeyIndex:
    """The keys of a list that only grows, brought up to date as it grows (see ``add_new``)."""

    __slots__ = ("keys", "indexed")

    def __init__(self) -> None:
        self.keys: set[Hashable] = set()
        self.indexed = 0  # how many of the list's items are in ``keys``


def add_new(into: list[T], items: Iterable[T], key: Callable[[T], Hashable] = lambda item: item,
            index: KeyIndex | None = None) -> None:
    """Append the items whose key is in neither ``into`` nor earlier in ``items``.

    A value merged from thousands of parts adds to the same list thousands of times: given the
    list's own ``index``, each call costs the items it adds (and those appended since the last
    call), not the length of the list, which would make the whole merge quadratic."""
    index = index if index is not None else KeyIndex()
    known = index.keys
    known.update(key(item) for item in into[index.indexed:])
    for item in items:
        item_key = key(item)
        if item_key not in known:
            known.add(item_key)
            into.append(item)
    index.indexed = len(into)


def source_key(source: Source) -> Hashable:
    return source.kind, source.span


@dataclass
class Facts:
    names: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    variable_length: bool = False
    once: list[str] = field(default_factory=list)  # calls reached through module-level values: run at load
    indexes: dict[str, KeyIndex] = field(default_factory=dict, repr=False, compare=False)

    def index(self, name: str) -> KeyIndex:
        """The key index of the list ``name`` (its lists only grow)."""
        found = self.indexes.get(name)
        if found is None:
            found = self.indexes[name] = KeyIndex()
        return found


class Builder:
    """Collects one request's segments and cache breakpoints in provider order."""

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.breakpoints: list[Breakpoint] = []
        self.tools: list[ToolDef] = []
        self.unseen: list[str] = []  # parts sent from values the code does not show (see Request.unseen)
        self.message_index = -1

    def next_message(self) -> None:
        self.message_index += 1

    def add(self, pieces: list[Piece], role: Role, loop: str | None = None) -> None:
        for piece in pieces:
            slot = piece.slot
            where = piece.loop or loop
            if slot is None and not piece.text:
                continue
            if slot is not None and where and not slot.variable_length:
                slot = replace(slot, variable_length=True)
            self.segments.append(Segment(role, piece.span, piece.text, slot, max(self.message_index, 0), where))

    def system(self, pieces: list[Piece], role: Role) -> None:
        """One message of ``pieces`` in ``role``."""
        self.next_message()
        self.add(pieces, role)
