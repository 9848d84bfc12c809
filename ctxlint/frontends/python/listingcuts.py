"""A directory listing cut to its first entries and written into a prompt
(``"Files in the folder: " + ", ".join(os.listdir()[:100])``).

A listing comes in the order the file system gives it (or sorted by name): its first entries are
not the most relevant, only the first. Cut to a count with nothing after it, it reads as the whole
folder, and the model answers that a file the cut dropped is not there.

Such a cut is reported where its entries are followed into a prompt through the project's functions
(kept in names, joined into text, written into a value named for a prompt).
"""

from __future__ import annotations

import ast

from ctxlint.frontends.python.knowledge import LISTINGS, PATH_METHODS, UNORDERED_CALLS
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Cut, Observation, Source, SourceKind

# The listings whose items are a folder's entries (`os.walk` gives a tuple per folder).
_ENTRIES = LISTINGS - {"os.walk"}
# Calls that keep every entry of what they are given (in another order, or as a list).
_WHOLE = frozenset({"list", "sorted"})
# A cut to fewer entries than this shows an example or two, not the folder.
_LEAST = 10
LISTING_CUT = "listing-cut"


class ListingCuts(Component):
    def observe(self) -> list[Observation]:
        found = []
        for call, fn, scope in self.m.function_calls():  # indexed once: no walk of the module of its own
            if not self.lists_a_folder(call):
                continue
            for cut in self.cuts_of(call, fn):
                bounds = self.cuts.bounds(cut, Env(scope), least=_LEAST)
                if bounds is None or bounds[0] != "start":
                    continue
                steps = self.reach.into_prompt(cut, fn)
                if steps is None:
                    continue
                span = self.m.span(cut)
                found.append(Observation(LISTING_CUT, span, "its entries reach a prompt", source=Source(
                    SourceKind.TRUNCATION, " ".join(self.m.code(cut).split()), span, kept=bounds[2], flow=steps,
                    cut=Cut("entries", "start", LISTING_CUT), strong=True)))
        return found

    def lists_a_folder(self, call: ast.Call) -> bool:
        qualified = self.m.qualified(call.func) or ""
        if UNORDERED_CALLS.get(qualified) in _ENTRIES:
            return True
        return isinstance(call.func, ast.Attribute) and PATH_METHODS.get(call.func.attr) in _ENTRIES \
            and not qualified.startswith("glob.")

    def cuts_of(self, call: ast.Call, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Subscript]:
        """The slices of the listing: of the call itself (through ``list``/``sorted``), or of the
        local name it is given (``entries = os.listdir(folder)`` then ``entries[:100]``)."""
        node: ast.expr = call
        parent = self.m.parents.get(id(node))
        while isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _WHOLE \
                and parent.args and parent.args[0] is node:
            node, parent = parent, self.m.parents.get(id(parent))
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Slice):
            return [parent]
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            name = parent.targets[0].id
            return [n for n in walk(fn) if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)
                    and isinstance(n.value, ast.Name) and n.value.id == name and n.lineno > parent.lineno]
        return []
