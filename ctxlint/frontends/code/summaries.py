"""Function summaries kept between files, the same whichever question was asked first.

A summary (what a function sends, whether it returns a cut of its parameter) is worked out by
reading the functions it calls, and kept with its module for the later files of the run that
import it. A kept answer must not depend on the order of the questions, or a file's findings
would depend on which files the same process happened to lint before it (a pre-commit run on one
file and a run on the whole tree would disagree, and so would two runs whose workers took the
files in another order). Two things make an answer depend on that order:

* a recursion: while a function's summary is worked out, a question about it again (through a
  function it calls that calls it back) is answered "nothing". An answer that relied on that is
  right for the question being worked out, and is not kept: asked from elsewhere, the same
  function is read again with nothing of its own unfinished;
* a bound reached part way (the module's step budget, or the project refusing to read one more
  module or look up one more name for this file): the answer may be cut short. It serves the
  rest of this file and is worked out again for the next one, which may be given more.

The open questions of every memo form one stack: a cycle may run through several modules.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

# For each question being worked out, outermost first: the lowest stack position of an open
# question its answer relied on being unfinished (its own position when none).
_OPEN: list[int] = []
# Which file is being linted (counted up by new_file): an answer cut short serves that file only.
_FILE = [0]


def new_file() -> None:
    """Another file is linted: the answers cut short for the last one are worked out again."""
    _FILE[0] += 1


class SummaryMemo(Generic[V]):
    """Answers to one kind of question about functions, by a key the caller chooses."""

    def __init__(self) -> None:
        self.kept: dict[Hashable, V | None] = {}
        self._open: dict[Hashable, int] = {}  # question -> its position in _OPEN
        self._this_file: dict[Hashable, tuple[int, V | None]] = {}  # answers cut short, with their file

    def get(self, key: Hashable, work: Callable[[], V | None], cut_short: Callable[[], bool]) -> V | None:
        """The answer for ``key``, worked out by ``work`` unless kept; ``cut_short`` says,
        after ``work``, whether a bound was reached for this file (then the answer, found or not,
        is kept for this file only)."""
        if key in self.kept:
            return self.kept[key]
        provisional = self._this_file.get(key)
        if provisional is not None and provisional[0] == _FILE[0]:
            return provisional[1]
        position = self._open.get(key)
        if position is not None:  # a recursion: nothing more through itself
            if _OPEN:
                _OPEN[-1] = min(_OPEN[-1], position)
            return None
        position = len(_OPEN)
        _OPEN.append(position)
        self._open[key] = position
        try:
            found = work()
        finally:
            del self._open[key]
            relied_on = _OPEN.pop()
            if _OPEN:
                _OPEN[-1] = min(_OPEN[-1], relied_on)
        if relied_on >= position:
            if cut_short():
                self._this_file[key] = (_FILE[0], found)
            else:
                self.kept[key] = found
        return found
