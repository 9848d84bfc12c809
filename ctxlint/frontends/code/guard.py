"""The cycle guard both code front-ends follow names and calls under."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, overload

T = TypeVar("T")
U = TypeVar("U")


class CycleGuard:
    """The values being followed now. A value met again while it is being followed is a cycle
    (``a = a + b``, a recursive function): it is not followed a second time. A subclass sets
    ``active`` and says what identifies a value (``guard_key``)."""

    active: set[Any]
    consumed: set[int]  # values some request already includes

    @staticmethod
    def guard_key(node: Any) -> Any:
        return id(node)

    def enter(self, node: Any) -> bool:
        """Mark ``node`` as followed; False when it already is (a cycle)."""
        key = self.guard_key(node)
        if key in self.active:
            return False
        self.active.add(key)
        return True

    def leave(self, node: Any) -> None:
        self.active.discard(self.guard_key(node))

    @overload
    def follow(self, node: Any, read: Callable[..., T], *args: Any) -> T | None: ...

    @overload
    def follow(self, node: Any, read: Callable[..., T], *args: Any, otherwise: U) -> T | U: ...

    def follow(self, node: Any, read: Callable[..., Any], *args: Any, otherwise: Any = None) -> Any:
        """``read(*args)`` with ``node`` followed meanwhile, or ``otherwise`` when it already is:
        the one shape of "resolve a name, enter it, read it, leave it"."""
        if not self.enter(node):
            return otherwise
        try:
            return read(*args)
        finally:
            self.leave(node)

    def follow_apart(self, node: Any, read: Callable[..., T], *args: Any,
                     merge: bool) -> tuple[T, set[int]] | None:
        """``follow``, with what the reading consumes collected apart, to be kept with a memo of
        its result: (the result, what it consumed), or None in a cycle. ``merge`` adds what it
        consumed to what the reading around it consumed, whatever happens."""
        if not self.enter(node):
            return None
        outer, self.consumed = self.consumed, set()
        try:
            found = read(*args)
        finally:
            self.leave(node)
            consumed, self.consumed = self.consumed, outer
            if merge:
                outer |= consumed
        return found, consumed

    def follow_binding(self, binding: Bound, read: Callable[..., T], *args: Any) -> T | None:
        """``read(value, env, *args)`` of what a name is bound to, or None in a cycle."""
        return self.follow(binding.value, read, binding.value, binding.env, *args)


class Change(Protocol):
    @property
    def kind(self) -> str: ...  # "=", "+=", "append", "update", ...


class Bound(Protocol):
    """A name's binding in either front-end: the value, where it is evaluated, what changes it after."""

    @property
    def value(self) -> Any: ...

    @property
    def env(self) -> Any: ...

    @property
    def extras(self) -> Sequence[Change]: ...


def bound_list(binding: Bound, is_list: Callable[[Any, Any], bool | None]) -> bool | None:
    """Whether a name holds a list: what its value says, else True when items are added to it later."""
    kind = is_list(binding.value, binding.env)
    if kind is None and any(e.kind in ("append", "extend", "insert") for e in binding.extras):
        return True
    return kind
