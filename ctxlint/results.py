"""What a run gives back besides findings, and how it names files: plain data that the engine
fills and the commands and reporters read, with no knowledge of how it was computed."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from ctxlint.model import Finding


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not a finding (a skipped file). ``unread`` marks a
    file that could not be read at all (too large, binary, unreadable, not a regular file): named
    on the command line, it fails the run, since a skip is not a pass."""

    path: str
    message: str
    unread: bool = False

    @classmethod
    def of(cls, path: Path, message: str) -> Notice:
        """A discovery notice: every one it gives is about a file it could not read."""
        return cls(display_path(path), message, unread=message.startswith("skipped"))


@dataclass(frozen=True)
class InternalError:
    """A ctxlint bug met on one file: not a finding, so no suppression or fail level hides it."""

    path: str
    cause: str  # one line: the exception's type and message

    @classmethod
    def from_exception(cls, path: str, error: BaseException) -> InternalError:
        text = " ".join(str(error).split())
        if len(text) > 200:
            text = text[:199] + "…"
        return cls(path, f"{type(error).__name__}: {text}" if text else type(error).__name__)


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    files_checked: int = 0
    baselined: int = 0  # findings left out because the baseline holds them
    # Results computed (not served from the cache) in this run: (cache key, display path, entry).
    fresh: list[tuple[str, str, dict]] = field(default_factory=list)
    errors: list[InternalError] = field(default_factory=list)

    @property
    def skipped(self) -> int:
        """Files the run passed over (unread, or skipped by their front-end), for the summary."""
        return len({n.path for n in self.notices if n.message.startswith("skipped")})

    def add(self, other: LintResult) -> None:
        self.findings += other.findings
        self.notices += other.notices
        self.files_checked += other.files_checked
        self.fresh += other.fresh
        self.errors += other.errors


def display_path(path: Path | str) -> str:
    """How results name a file: relative to the working directory."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute.startswith(cwd) and absolute[len(cwd):len(cwd) + 1] == os.sep:
        return absolute[len(cwd) + 1:]  # the common case, without relpath's splitting of both
    head, name = os.path.split(absolute)
    try:
        directory = _relative_directory(head, cwd)
    except ValueError:  # another drive on Windows
        return str(path)
    return os.path.join(directory, name) if directory != "." else name


@functools.lru_cache(maxsize=4096)
def _relative_directory(directory: str, cwd: str) -> str:
    return os.path.relpath(directory, cwd)


def relative_path(path: Path, resolved_root: Path) -> str:
    """The path that configuration globs match: relative to the (resolved) root, or the file's
    name when it lies outside it."""
    real = _resolved(os.path.abspath(path))
    root = os.fspath(resolved_root)
    if real.startswith(root) and real[len(root):len(root) + 1] == os.sep:
        return real[len(root) + 1:].replace(os.sep, "/")
    return "." if real == root else Path(path).name


def _resolved(path: str) -> str:
    """``os.path.realpath`` of an absolute path, resolving each directory once per run: a file
    that is not itself a link is its real directory plus its name."""
    if os.path.islink(path):
        return os.path.realpath(path)
    head, name = os.path.split(path)
    return os.path.join(_real_directory(head), name) if name else _real_directory(head)


def real_directory(directory: Path) -> Path:
    """``directory.resolve()``, each directory resolved once per run: the project root every
    file of a run is read against (resolving costs a system call per part of the path)."""
    return Path(_real_directory(os.path.abspath(directory)))


@functools.lru_cache(maxsize=4096)
def _real_directory(directory: str) -> str:
    return os.path.realpath(directory)
