"""What the parser makes of a template: expressions, nodes with their offsets, and its errors."""

from __future__ import annotations

from dataclasses import dataclass

from ctxlint.frontends import OffsetError

MAX_SUBEXPRESSION_DEPTH = 64


class HandlebarsError(OffsetError):
    """A template that does not parse; ``offset`` locates the error in the template text."""


# --- expressions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ref:
    """A path: ``original`` as written (``../user.name``), ``name`` as a dotted path
    (``user.name``; ``@index`` for data variables; ``this`` for the current context)."""

    original: str
    name: str
    data: bool = False


@dataclass(frozen=True, slots=True)
class Literal:
    original: str
    value: object  # str, int, float, bool or None


@dataclass(frozen=True, slots=True)
class Call:
    """``head params… key=value…``: a helper call, or a plain path when there are no arguments.

    ``sub`` marks a parenthesised sub-expression, which Handlebars always treats as a call.
    """

    head: Ref | Literal | Call
    params: tuple[Ref | Literal | Call, ...] = ()
    hash: tuple[tuple[str, Ref | Literal | Call], ...] = ()
    text: str = ""
    sub: bool = False

    @property
    def helper(self) -> str | None:
        """The name of the helper or path at the head (``each``, ``role``, ``user.name``)."""
        return self.head.name if isinstance(self.head, Ref) else None

    @property
    def has_arguments(self) -> bool:
        return bool(self.params or self.hash)


Expr = Ref | Literal | Call


# --- nodes -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Text:
    start: int
    end: int
    value: str  # always source[start:end]


@dataclass(frozen=True, slots=True)
class Mustache:
    start: int
    end: int
    call: Call
    escaped: bool = True  # False for {{{triple}}} and {{& name}}


@dataclass(frozen=True, slots=True)
class Partial:
    start: int
    end: int
    call: Call  # head: the partial's name


@dataclass(frozen=True, slots=True)
class Open:
    """``{{#helper …}}`` (kind ``#``), ``{{^name}}`` (``^``), ``{{#> partial}}`` (``#>``) or
    ``{{#*inline "name"}}`` (``#*``)."""

    start: int
    end: int
    kind: str
    call: Call
    block_params: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        head = self.call.head
        return head.original if isinstance(head, (Ref, Literal)) else self.call.text


@dataclass(frozen=True, slots=True)
class Else:
    start: int
    end: int
    call: Call | None = None  # {{else if x}}: the chained helper call


@dataclass(frozen=True, slots=True)
class Close:
    start: int
    end: int
    name: str


Node = Text | Mustache | Partial | Open | Else | Close
