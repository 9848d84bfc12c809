"""Which assignment of a name is seen where, the same in Python and in TypeScript: each
front-end records a scope's assignments in source order (its own ``Scope`` and ``Assign``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol, Self, TypeVar


class Record(Protocol):
    @property
    def kind(self) -> str: ...  # "=" binds a value; the others ("+=", ".append") change it

    @property
    def end(self) -> Any: ...  # where the assignment ends, in the front-end's positions


class Scoped(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def parent(self) -> Self | None: ...

    @property
    def assigns(self) -> Mapping[str, object]: ...

    @property
    def params(self) -> Mapping[str, object]: ...


R = TypeVar("R", bound=Record)
P = TypeVar("P")
S = TypeVar("S", bound=Scoped)


def seen_at(records: list[R], at: P | None, first: bool,
            carried: Callable[[R, P], bool]) -> tuple[list[R], int | None]:
    """The records of a name seen at ``at`` (all of them in an enclosing scope, ``first`` being
    False, or where ``at`` is unknown): those written before it, and changes written after it
    that a loop around both carries back; with the index of the last that binds a value."""
    seen = [r for r in records if not first or at is None or r.end <= at
            or (r.kind != "=" and carried(r, at))]
    return seen, max((i for i, r in enumerate(seen) if r.kind == "="), default=None)


def prompt_assignments(scopes: Iterable[Any],
                       prompt_name: Callable[[str], bool]) -> Iterator[tuple[str, Any, list[Any]]]:
    """Each name named for a prompt (``SYSTEM_PROMPT``, by the front-end's ``prompt_name``) that
    a scope binds to a value: the name, its last plain assignment and the records after that one."""
    for scope in scopes:
        for name, records in scope.assigns.items():
            bases = [i for i, r in enumerate(records) if r.kind == "=" and r.value is not None]
            if bases and prompt_name(name):
                yield name, records[bases[-1]], records[bases[-1] + 1 :]


def owner(name: str, scope: S) -> S:
    """The scope a mutated name lives in (``TOOLS.append`` in a function changes the module's);
    a class body is not a scope its methods see."""
    current: S | None = scope
    while current is not None:
        if name in current.assigns or name in current.params:
            return current
        current = current.parent
        while current is not None and current.kind == "class":
            current = current.parent
    return scope
