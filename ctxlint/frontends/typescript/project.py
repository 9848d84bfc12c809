"""The other modules of the linted tree a module imports constants from (``import { SYSTEM_PROMPT }
from "./prompts"``): found from the import's path, read and indexed once per linted module (an
import cycle reads each file once), shared by the analyses of that module and of those it reads."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxlint.frontends.typescript.aliases import AliasTable
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.syntax import GRAMMARS, Text, parse

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.analyzer import Analyzer

MAX_BYTES = 500_000  # a larger module is not read for its constants
SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")


class Project:
    def __init__(self, read: Callable[[Project, Node, Text, str, int], Analyzer | None], root: str = "") -> None:
        self.read = read  # indexes a module's syntax tree (the analyzer gives it, so this module stays below it)
        self.modules: dict[str, Analyzer | None] = {}  # by path; None: could not be read
        # The linted tree's root, for a module named relative to it but linted from elsewhere.
        self.root = root
        self.aliases = AliasTable(root)

    def is_local(self, importer: str, module: str) -> bool:
        """Whether ``module`` names a file of the project: a relative path, or one of its aliases."""
        return module.startswith(("./", "../")) or bool(self._aliased(importer, module))

    def module(self, importer: str, module: str, generation: int) -> Analyzer | None:
        """The module ``importer`` imports as ``module`` (a relative path or an alias the project's
        tsconfig declares), indexed, or None."""
        if not module.startswith(("./", "../")):
            return next((found for target in self._aliased(importer, module)
                         if (found := self._read("", target, generation)) is not None), None)
        found = self._read(os.path.dirname(importer), module, generation)
        if found is None and self.root and not os.path.isabs(importer):
            found = self._read(os.path.join(self.root, os.path.dirname(importer)), module, generation)
        return found

    def read_file(self, path: str) -> Analyzer | None:
        """A module of the tree found by its path (a scan of the tree, not an import), indexed;
        it reads its own imports as a module the linted one imports directly does."""
        return self._read("", path, 1)

    def _aliased(self, importer: str, module: str) -> list[str]:
        """The files an alias names, relative when the importer's path is (spans keep its form)."""
        found = self.aliases.resolve(importer, module)
        if not found and self.root and not os.path.isabs(importer):
            found = self.aliases.resolve(os.path.join(self.root, importer), module)
        return found if os.path.isabs(importer) else [os.path.relpath(target) for target in found]

    def _read(self, folder: str, module: str, generation: int) -> Analyzer | None:
        base = os.path.normpath(os.path.join(folder, module))
        stem, suffix = os.path.splitext(base)
        # A declaration file (`index.d.ts`) holds only types: it is read when no module is there.
        if suffix in (".js", ".mjs", ".cjs", ".jsx"):
            candidates = [stem + s for s in (".ts", ".tsx", ".mts", ".cts")] + [base, stem + ".d.ts"]
        elif suffix in SUFFIXES:
            candidates = [base]
        else:
            candidates = [base + s for s in SUFFIXES] + [base + ".d.ts"]
            candidates += [os.path.join(base, "index" + s) for s in (*SUFFIXES, ".d.ts")]
        target = next((c for c in candidates if os.path.isfile(c)), None)
        if target is None:
            return None
        if target in self.modules:
            return self.modules[target]
        self.modules[target] = None  # an import cycle reads each file once
        try:
            if os.path.getsize(target) > MAX_BYTES:
                return None
            with open(target, "rb") as handle:
                text = handle.read().decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
        except (OSError, UnicodeDecodeError):
            return None
        grammar = GRAMMARS.get(os.path.splitext(target)[1], "typescript")
        source = Text(text, target)
        root = parse(grammar, source.data)
        if root is None or root.has_error:
            return None
        analyzer = self.read(self, root, source, grammar, generation)
        self.modules[target] = analyzer
        return analyzer

    def read_paths(self) -> list[str]:
        """The modules read, in the order they were first imported."""
        return [path for path, analyzer in self.modules.items() if analyzer is not None]
