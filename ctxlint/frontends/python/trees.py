"""One parse per module per run: the tree a linted file was parsed into serves the other files
that import it, and the tree of a module read for an import serves its own lint.

Without it, a module was parsed twice in a run over a whole project: once when another module's
analysis followed a value into it (``analyzer.load_module``), once as a linted file
(``parse_file``); on microsoft/graphrag about 45% of the Python parses were such second parses.
A tree is shared only for the same text, and only a tree that parsed: the problems a parse
reports name the path they were asked for. What the passes derive from a tree and keep on its
nodes (children, a function's own nodes) depends on the tree alone, so it is shared with it.
The trees are kept for the last modules parsed, bounded by their text (per process: forked
workers each keep their own).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import TYPE_CHECKING

from ctxlint.frontends.python.prefilter import Checked, precheck

if TYPE_CHECKING:
    from pathlib import Path

# The text of the modules whose trees are kept. A tree takes roughly 20 to 40 times its text in
# memory: a few megabytes of text keep a run's peak within what the kept analyses take already.
MAX_SHARED_CHARS = 3_000_000


class Trees:
    """The trees of the last modules parsed in a run, by file."""

    def __init__(self) -> None:
        self.kept: OrderedDict[Path, tuple[str, Checked]] = OrderedDict()  # file -> (its text as read, parse)
        self.chars = 0

    def parsed(self, file: Path, text: str, display: str) -> Checked:
        """``precheck(text, display, check_depth=False)``, the module's tree parsed once for every
        asker of the same text; the caller bounds its depth (``too_deep``)."""
        kept = self.kept.get(file)
        if kept is not None and kept[0] == text:
            self.kept.move_to_end(file)
            return kept[1]
        checked = precheck(text, display, check_depth=False)
        if kept is not None:
            self.chars -= len(self.kept.pop(file)[0])
        if checked.tree is not None and len(text) <= MAX_SHARED_CHARS:
            self.kept[file] = (text, checked)
            self.chars += len(text)
            while self.chars > MAX_SHARED_CHARS:
                self.chars -= len(self.kept.popitem(last=False)[1][0])
        return checked


def display_path(path: Path) -> str:
    """The name a module read for an import is reported under: its path from the working folder."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
