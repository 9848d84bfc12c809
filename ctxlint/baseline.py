"""Adopting ctxlint on a repository that already has findings: fingerprints and baselines.

A fingerprint names a finding in a way that survives unrelated edits: the rule's code, the file's
path (relative to the project root: the git work tree, or the working directory outside one) and
a hash of the normalised source of the finding's lines (whitespace runs collapsed, at most three
lines), never the line number. Identical findings on identical lines of one file are told apart
by their order (``…:1``, ``…:2``), as GitHub's own line hashes are.

``ctxlint check --write-baseline FILE`` records the fingerprints of today's findings;
``--baseline FILE`` then reports only findings whose fingerprint is not in it. SARIF carries the
same fingerprint in ``partialFingerprints`` and the GitLab report in ``fingerprint``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from ctxlint import __version__
from ctxlint.model import Finding

FORMAT = "ctxlint-baseline"
FORMAT_VERSION = 1
_CONTEXT_LINES = 3


class BaselineError(Exception):
    """A baseline file that cannot be read or is not one (exit 2)."""


def project_root(cwd: Path) -> Path:
    """The git work tree holding ``cwd``, else ``cwd``: fingerprints hold paths relative to it,
    so a baseline matches from any directory of the repository."""
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return cwd


class Fingerprinter:
    """Fingerprints of findings, reading each file's text once. ``sources`` holds text that is
    not on disk (standard input), by display path."""

    def __init__(self, root: Path, sources: Mapping[str, str] | None = None) -> None:
        self.root = root.resolve()
        self.sources = dict(sources or {})
        self._lines: dict[str, list[str]] = {}

    def _file_lines(self, path: str) -> list[str]:
        lines = self._lines.get(path)
        if lines is None:
            text = self.sources.get(path)
            if text is None:
                try:
                    text = Path(path).read_bytes().decode("utf-8", errors="replace")
                except OSError:
                    text = ""
            text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
            lines = self._lines[path] = text.split("\n")
        return lines

    def relative(self, path: str) -> str:
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            return absolute.as_posix()

    def context(self, finding: Finding) -> str:
        """The normalised text of the finding's lines."""
        span = finding.span
        lines = self._file_lines(span.path)[span.line - 1 : min(span.end_line, span.line + _CONTEXT_LINES - 1)]
        return "\n".join(" ".join(line.split()) for line in lines)

    def fingerprints(self, findings: Iterable[Finding]) -> dict[Finding, str]:
        """Each finding's fingerprint, numbered in source order among identical ones."""
        seen: Counter[str] = Counter()
        out: dict[Finding, str] = {}
        ordered = sorted(findings, key=lambda f: (f.span.path, f.span.line, f.span.column, f.code, f.message))
        for finding in ordered:
            key = "\0".join((finding.code, self.relative(finding.span.path), self.context(finding)))
            digest = hashlib.sha256(key.encode("utf-8", errors="surrogateescape")).hexdigest()[:20]
            seen[digest] += 1
            out[finding] = f"{digest}:{seen[digest]}"
        return out


def write(path: Path, fingerprints: Mapping[Finding, str], fingerprinter: Fingerprinter) -> None:
    """Record findings: the fingerprint is what matches; code, path, line, confidence and message
    are kept for people reading the file (and its diffs in review). Confidence is not part of the
    fingerprint, so a baseline holds across --confidence levels."""
    entries = sorted(
        ({"fingerprint": fp, "code": f.code, "path": fingerprinter.relative(f.span.path), "line": f.span.line,
          "confidence": f.confidence.value, "message": " ".join(f.message.split())}
         for f, fp in fingerprints.items()),
        key=lambda e: (e["path"], e["line"], e["code"], e["fingerprint"]),
    )
    data = {FORMAT: FORMAT_VERSION, "ctxlint": __version__, "findings": entries}
    try:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as error:
        raise BaselineError(f"{path}: cannot write the baseline: {error.strerror or error}") from None


def read(path: Path) -> frozenset[str]:
    """The fingerprints a baseline file records."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BaselineError(f"{path}: not a ctxlint baseline: {error}") from None
    if not isinstance(data, dict) or data.get(FORMAT) != FORMAT_VERSION or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a ctxlint baseline (version {FORMAT_VERSION}); "
                            "write one with --write-baseline")
    prints = [e.get("fingerprint") if isinstance(e, dict) else None for e in data["findings"]]
    if not all(isinstance(p, str) for p in prints):
        raise BaselineError(f"{path}: not a ctxlint baseline: an entry has no fingerprint")
    return frozenset(p for p in prints if isinstance(p, str))
