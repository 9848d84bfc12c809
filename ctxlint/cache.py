"""The result cache: each file's findings, kept in `.ctxlint_cache/` between runs.

An entry is valid while everything its findings were computed from is unchanged: the file's
bytes, the content of every file its front-end declared reading (see :mod:`ctxlint.dependencies`),
the resolved settings and rules of its configuration, the working directory (paths in findings
are relative to it) and ctxlint itself (its version and the size and modification time of each
of its own files, so an edited checkout never serves stale results). Keys are content hashes,
not modification times: a checkout, a rebase or `touch` does not invalidate anything.

The cache is JSON, never pickle: a repository could ship a crafted cache directory, and reading
it must not run code. Findings are encoded generically from the model's dataclasses, so a new
field travels without changes here; only model classes are ever rebuilt. The directory holds a
`CACHEDIR.TAG` (backup tools skip it) and a `.gitignore` of `*` (git does too).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxlint import __version__, model

if TYPE_CHECKING:
    from ctxlint.engine import Linter

DIRECTORY = ".ctxlint_cache"
ENVIRONMENT = "CTXLINT_CACHE_DIR"
_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by ctxlint.\n"
        "# For information about cache directory tags, see https://bford.info/cachedir/\n")
# A table (or a whole ctxlint version's folder) nobody used for a week is removed.
_STALE_SECONDS = 7 * 24 * 3600
# The model classes an entry may rebuild, by name: nothing else is ever constructed.
_CLASSES: dict[str, type] = {
    cls.__name__: cls for cls in vars(model).values()
    if isinstance(cls, type) and cls.__module__ == model.__name__
    and (dataclasses.is_dataclass(cls) or issubclass(cls, Enum))
}


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return _digest(handle.read())
    except OSError:
        return None


def code_version() -> str:
    """ctxlint's version and the identity of its own files (package, rule and framework catalogues)."""
    from ctxlint.catalogue import builtin_rules_dir
    from ctxlint.frameworks import builtin_frameworks_dir

    parts = [__version__]
    for base in sorted({Path(__file__).resolve().parent, builtin_rules_dir().resolve(),
                        builtin_frameworks_dir().resolve()}):
        for path in sorted(base.rglob("*")):
            if path.suffix in (".py", ".yaml"):
                status = path.stat()
                parts.append(f"{path.relative_to(base)}:{status.st_size}:{status.st_mtime_ns}")
    return _digest("\n".join(parts).encode())


def encode(value: Any) -> Any:
    """A model value as JSON data: dataclasses and enums tagged with their class name."""
    if isinstance(value, Enum):
        return {"$enum": type(value).__name__, "value": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"$class": type(value).__name__, **fields}
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    return value


def _rebuild(data: dict[str, Any]) -> Any:
    """One JSON object as :func:`encode` wrote it, its members already rebuilt: a model value
    when tagged (ValueError when the tag or fields are not a model class's), else the dict. As
    ``json.loads``'s object hook it rebuilds a whole table while it is parsed."""
    if "$enum" in data:
        return _class(data["$enum"])(data["value"])
    if "$class" not in data:
        return data
    cls = _class(data.pop("$class"))
    try:
        return cls(**{k: tuple(_tuples(v)) if isinstance(v, list) else v for k, v in data.items()})
    except TypeError as error:
        raise ValueError(str(error)) from None


def _tuples(values: list[Any]) -> Any:
    return (tuple(_tuples(v)) if isinstance(v, list) else v for v in values)


def _class(name: object) -> Any:
    cls = _CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"not a model class: {name!r}")
    return cls


class ResultCache:
    """Entries by configuration (one JSON file each), loaded on first use, saved by :meth:`save`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.version = code_version()
        self._tables: dict[str, dict[str, Any]] = {}
        self._changed: set[str] = set()
        self._keys: dict[int, str] = {}

    def key(self, linter: Linter) -> str:
        """What a configuration's results depend on: its settings, its rules, the working directory."""
        key = self._keys.get(id(linter))
        if key is None:
            from ctxlint.config import settings_table

            settings = linter.settings
            rules = {code: [r.name, r.severity.value, r.check, r.options]
                     for code, r in sorted(linter.catalogue.items())}
            state = {"cwd": os.getcwd(), "root": str(settings.root.resolve()), "rules": rules,
                     "selected": [r.code for r in linter.rules], "settings": settings_table(settings)}
            key = self._keys[id(linter)] = _digest(json.dumps(state, sort_keys=True, default=str).encode())
        return key

    def _table(self, key: str) -> dict[str, Any]:
        """A configuration's entries, their findings rebuilt as the JSON is parsed (a table that
        is not what ctxlint wrote is empty: the run is cold)."""
        table = self._tables.get(key)
        if table is None:
            try:
                table = json.loads((self.directory / self.version / f"{key}.json").read_text(encoding="utf-8"),
                                   object_hook=_rebuild)
                if not isinstance(table, dict):
                    table = {}
            except (OSError, ValueError, TypeError, RecursionError):
                table = {}
            self._tables[key] = table
        return table

    def lookup(self, linter: Linter, display: str, data: bytes) -> list[model.Finding] | None:
        """The cached findings of a file, if nothing they depend on has changed."""
        entry = self._table(self.key(linter)).get(display)
        if not isinstance(entry, dict) or entry.get("content") != _digest(data):
            return None
        dependencies = entry.get("dependencies")
        if not isinstance(dependencies, dict) or any(file_digest(p) != d for p, d in dependencies.items()):
            return None
        findings = entry.get("findings")
        if not isinstance(findings, (list, tuple)) or not all(isinstance(f, model.Finding) for f in findings):
            return None
        return list(findings)

    @staticmethod
    def entry(data: bytes, dependencies: Iterable[str], findings: list[model.Finding]) -> dict[str, Any]:
        return {"content": _digest(data), "dependencies": {p: file_digest(p) for p in sorted(dependencies)},
                "findings": [encode(f) for f in findings]}

    def store(self, key: str, display: str, entry: dict[str, Any]) -> None:
        self._table(key)[display] = entry
        self._changed.add(key)

    def save(self) -> None:
        """Write the changed tables (atomically); remove other versions' and stale tables. A
        cache that cannot be written is no error: the next run is simply cold."""
        if not self._changed:
            return
        try:
            self._prepare()
            folder = self.directory / self.version
            for key in self._changed:
                handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    # Entries read from disk hold rebuilt findings: encoded again, tags and all.
                    json.dump(encode(self._tables[key]), out, separators=(",", ":"))
                os.replace(temporary, folder / f"{key}.json")
            self._changed.clear()
        except OSError:
            pass

    def _prepare(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        tag = self.directory / "CACHEDIR.TAG"
        if not tag.exists():
            tag.write_text(_TAG, encoding="utf-8")
            (self.directory / ".gitignore").write_text("# Created by ctxlint.\n*\n", encoding="utf-8")
        (self.directory / self.version).mkdir(exist_ok=True)
        stale = time.time() - _STALE_SECONDS
        for child in self.directory.iterdir():
            if not child.is_dir() or child.is_symlink() or child.name == self.version:
                continue
            if child.stat().st_mtime < stale:
                shutil.rmtree(child, ignore_errors=True)
        for table in (self.directory / self.version).glob("*.json"):
            if table.stat().st_mtime < stale:
                table.unlink(missing_ok=True)
