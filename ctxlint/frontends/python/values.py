"""The front-end's internal values: scopes, assignments, bindings, message items; and the pieces
of text, facts and request builder it shares with the TypeScript front-end (``frontends/code/``).

None of these leave the package; what leaves is the shared model (requests, segments, slots).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from ctxlint.model import Source, Span

# The attribute that marks `call[i]` standing for the i-th name of `a, b = call(...)`: its value
# is the i-th item of the tuples the function returns (callees.returned_items).
UNPACKED = "_ctxlint_unpacked"


def unpacked_position(node: ast.AST) -> int | None:
    """The position of an unpacked name's item (``content`` of ``content, mime = fetch()``)."""
    position = getattr(node, UNPACKED, None)
    return position if isinstance(position, int) else None

T = TypeVar("T")


def agreed(found: list[T]) -> T | None:
    """The one answer every return of a function gives (a summary over its returns), or None
    when there is none or they differ."""
    return found[0] if found and found[0] is not None and all(f == found[0] for f in found) else None


if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer


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


def in_method(scope: Scope | None) -> bool:
    """Whether code in ``scope`` runs inside a method (directly or in a function nested in one)."""
    while scope is not None:
        if scope.kind == "function" and scope.cls is not None:
            return True
        scope = scope.parent
    return False


def own_class(name: str, scope: Scope) -> Scope | None:
    """The scope of the method's class when ``name`` in a method names its own object or class:
    ``self``, ``cls``, or the class by name (``Service.client = client``, a library module an
    optional import keeps on the class)."""
    cls = scope.cls
    if cls is not None and (name in ("self", "cls") or (isinstance(cls.node, ast.ClassDef) and cls.node.name == name)):
        return cls
    return None


@dataclass(eq=False)
class Assign:
    kind: str  # "=", "+=", "append", "extend", "insert", "shuffle"; on a dict's key "setitem", "setitem+="
    value: ast.expr | None  # the expression; None when unknowable (a loop target, an unpacking)
    end: tuple[int, int]  # where the binding takes effect
    loops: tuple[Loop, ...]
    scope: Scope  # where the name lives
    target: ast.expr | None = None
    where: Scope | None = None  # where the value is evaluated, when not ``scope`` (``self.X = ...``)
    # For a key set on one message of a list (itemsets.py): the message after it, by the dict and env
    made: dict[tuple[int, bool], tuple[ast.Dict, ast.Dict | None]] = field(default_factory=dict)

    @property
    def home(self) -> Scope:
        return self.where or self.scope


def looped_keys(key: ast.expr, loops: tuple[Loop, ...]) -> list[str]:
    """The keys a name stands for in ``params[key] = ...`` inside a loop over keys written out
    (``for key in ("temperature", "max_output_tokens"):``); empty for any other key."""
    for loop in reversed(loops):
        node = loop.node
        if isinstance(key, ast.Name) and isinstance(node, (ast.For, ast.AsyncFor)) \
                and isinstance(node.target, ast.Name) and node.target.id == key.id:
            items = node.iter.elts if isinstance(node.iter, (ast.Tuple, ast.List)) else []
            keys = [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            return keys if items and len(keys) == len(items) else []
    return []


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
    # Where the changes are made, when not where the value is: a function's additions to the
    # argument its caller gave a parameter (``prompt += f"{doc}\n"`` over the function's own loop).
    added_in: Env | None = None

    @property
    def extras_env(self) -> Env:
        return self.added_in if self.added_in is not None else self.env

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
    # An entry a loop appends to the list on every pass, where the list is read inside that same
    # loop (an agent's log of its steps, sent with each of its requests): what its slots say of it.
    log: Source | None = None
    # What repeats it, outermost first: the `for` loops around the statement that adds it, or the
    # comprehension that makes one per item (a tool per item of a collection: catalogues.py).
    repeats: tuple[ast.For | ast.AsyncFor | ast.comprehension, ...] = ()

    @property
    def said(self) -> tuple[Source, ...]:
        """What the slots of its text say of it: its sources (an item of a collection in no fixed
        order, `names = [rel(f) for f in files]` joined later), and the log it is an entry of."""
        return (*self.sources, *((self.log,) if self.log is not None else ()))
