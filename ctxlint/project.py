"""One run over a project: the configuration of every path, and a catalogue and a Linter per
configuration.

Configuration is hierarchical (see :mod:`ctxlint.config`), so one run may use several. Each is
loaded and validated, rule codes and options included, the first time a path needs it, during
discovery: a broken configuration stops the run before any file is linted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ctxlint.catalogue import Rule, load_catalogue
from ctxlint.checks import option_types
from ctxlint.config import Layer, Resolver, Settings, validate_rules
from ctxlint.discover import Scope, collect
from ctxlint.engine import Linter


class Project:
    def __init__(self, cwd: Path, explicit: Path | None = None, overrides: Sequence[Layer] = ()) -> None:
        self._catalogues: dict[tuple[Path, ...], dict[str, Rule]] = {}
        self._linters: dict[int, Linter] = {}
        self._scopes: dict[int, Scope] = {}
        self.resolver = Resolver(cwd, explicit, overrides, check=self._validate)

    def catalogue(self, settings: Settings) -> dict[str, Rule]:
        """The built-in rules plus the settings' rule packs (CatalogueError when one is broken)."""
        key = tuple(settings.rule_packs)
        if key not in self._catalogues:
            self._catalogues[key] = load_catalogue(list(key), option_types())
        return self._catalogues[key]

    def _validate(self, settings: Settings) -> None:
        validate_rules(settings, self.catalogue(settings))

    def settings_for(self, path: Path) -> Settings:
        """The settings of a file (by its directory) or of a directory."""
        absolute = Path(os.path.abspath(path))
        return self.resolver.for_path(absolute)

    def linter(self, settings: Settings) -> Linter:
        linter = self._linters.get(id(settings))
        if linter is None:
            linter = self._linters[id(settings)] = Linter(settings, self.catalogue(settings))
        return linter

    def scope(self, directory: Path) -> Scope:
        settings = self.resolver.for_directory(directory)
        scope = self._scopes.get(id(settings))
        if scope is None:
            scope = self._scopes[id(settings)] = Scope(
                settings.root.resolve(), tuple(settings.all_globs()), tuple(settings.exclude))
        return scope

    def files(self, paths: Sequence[str | os.PathLike[str]],
              notices: list[tuple[Path, str]] | None = None) -> list[tuple[Path, Settings]]:
        """The files to lint under ``paths``, each with the settings of the directory it is in."""
        return [(path, self.resolver.for_directory(path.parent)) for path in collect(paths, self.scope, notices)]

    def merged_catalogue(self) -> dict[str, Rule]:
        """Every rule as configured in the run's settings (the first configuration wins), for
        reports that list rule metadata (SARIF)."""
        merged: dict[str, Rule] = {}
        for linter in [*self._linters.values(), self.linter(self.resolver.default)]:
            for code, rule in linter.catalogue.items():
                merged.setdefault(code, rule)
        return merged
