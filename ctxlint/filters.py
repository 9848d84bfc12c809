"""What a run lets through: every filter between the findings the checks make and the ones a
user sees, and the exit code they decide.

Two kinds, in one place:

- :class:`Selection`, per configuration: the rules that run (``select``, ``extend-select``,
  ``ignore``, preview rules), the rules a file's ``per-file-ignores`` turn off, test and example code
  (whose findings are low confidence) and the least confidence reported. The engine asks it as it
  lints each file, because suppressions must see every finding before the confidence floor.
- :class:`RunFilters`, per run of ``ctxlint check``: the files and lines a change touched
  (``--changed-since``), the findings a baseline already holds, and the fail level that decides
  the exit code (with ``--exit-zero``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.catalogue import Rule, resolve
from ctxlint.config import Settings
from ctxlint.discover import glob_any, glob_match
from ctxlint.model import Confidence, Evidence, EvidenceKind, Finding, NamedFunction, Severity, Span

if TYPE_CHECKING:
    from ctxlint.changes import Changes
    from ctxlint.results import LintResult


class Selection:
    """The rules one configuration runs, and where and how sure their findings must be.

    ``select`` and ``ignore`` are for callers that pick rules themselves (the rule-example
    tests, benchmarks); the command line passes its options as settings layers instead.
    Unknown rule selectors raise SelectionError.
    """

    def __init__(self, settings: Settings, catalogue: Mapping[str, Rule], select: list[str] | None = None,
                 ignore: Sequence[str] = ()):
        self.settings = settings
        preview = settings.preview
        if select is not None:
            chosen = resolve(select, catalogue, "--select", preview=preview)
        else:
            chosen = resolve(settings.select, catalogue, "select", preview=preview)
            chosen |= resolve(settings.extend_select, catalogue, "extend-select", preview=preview)
        chosen -= resolve(settings.ignore, catalogue, "ignore")
        chosen -= resolve(list(ignore), catalogue, "--ignore")
        self.codes = frozenset(chosen)
        self.per_file_ignores = [
            (glob, resolve(codes, catalogue, f"per-file-ignores.{glob}"))
            for glob, codes in settings.per_file_ignores.items()
        ]
        floor = Confidence(settings.confidence).rank
        self.shown = frozenset(c for c in Confidence if c.rank >= floor)

    def ignored_in(self, relpath: str) -> set[str]:
        """The codes ``per-file-ignores`` turn off for the file at ``relpath``."""
        skipped: set[str] = set()
        for glob, codes in self.per_file_ignores:
            if glob_match(glob, relpath):
                skipped |= codes
        return skipped

    def scope(self, relpath: str, program: bool = False) -> str:
        """Where ``relpath`` is: "test" or "example" code, or "code". A file the user's `formats`
        globs name is code whatever its folder: a team that points ctxlint at its tool snapshots
        wants them judged; so is a ``program`` (a script of its own, not a test) kept in a test
        folder under a name that is no test's."""
        settings = self.settings
        for scope, globs in (("test", settings.test_paths), ("example", settings.example_paths)):
            if glob_any(globs, relpath):
                if any(glob_any(g, relpath) for g in settings.formats.values()):
                    return "code"
                if scope == "test" and program and _program_of_its_own(relpath, globs):
                    return "code"
                return "code" if scope == "example" and self.shipped(relpath) else scope
        return "code"

    def shipped(self, relpath: str) -> bool:
        """Whether packaging that is not itself an example's (a ``pyproject.toml``, ``setup.cfg``
        or ``package.json`` of the file's folder or one above it) installs the file for users."""
        from ctxlint.packaging import shipped  # here: only a file in an example folder asks

        parts = relpath.split("/")[:-1]
        for depth in range(len(parts), -1, -1):
            folder = "/".join(parts[:depth])
            if folder and glob_any(self.settings.example_paths, folder):
                continue  # `examples/bot/pyproject.toml` packages an example
            if glob_any(shipped(self.settings.root / folder), "/".join(relpath.split("/")[depth:])):
                return True
        return False

    def reported(self, finding: Finding) -> bool:
        """Whether the finding is sure enough to report (``confidence``)."""
        return finding.confidence in self.shown


# The words of a test double's name (`agent_utils_mock.py`, `fake_llm.py`): a program of the tests.
_DOUBLE_WORDS = ("mock", "fake", "stub", "fixture", "dummy")


def _program_of_its_own(relpath: str, globs: list[str]) -> bool:
    """Whether a program (a script of its own) at ``relpath``, in a test folder, is one: a plain
    ``test``/``tests`` folder of a package holds it (not the project's top-level test tree, whose
    scripts are its evals and CI helpers; no ``mocks``, ``fixtures``...), and its name is no
    test's nor a test double's."""
    *folders, name = relpath.split("/")
    return bool(folders) and not glob_any(globs, folders[0]) and not glob_any(globs, name) \
        and not any(w in name.lower() for w in _DOUBLE_WORDS) \
        and all(folder in ("test", "tests") or not glob_any(globs, folder) for folder in folders)


@dataclass
class RunFilters:
    """The filters of one ``ctxlint check`` run that the command line and the repository decide.

    ``changes``: the lines changed since ``--changed-since`` (None: every line counts).
    ``known``: the fingerprints of a baseline (None: no baseline). ``fail_level``: ``--fail-level``
    (None: each file's configuration decides).
    """

    changes: Changes | None = None
    known: frozenset[str] | None = None
    fail_level: str | None = None
    exit_zero: bool = False

    def files(self, files: Iterable[tuple[Path, Settings]]) -> list[tuple[Path, Settings]]:
        """The files worth linting: with changed lines, only those a change touched (no
        finding can be on a changed line of a file nobody touched)."""
        if self.changes is None:
            return list(files)
        return [(path, settings) for path, settings in files if os.path.realpath(path) in self.changes]

    def apply(self, result: LintResult, fingerprint: Callable[[Finding], str]) -> None:
        """Keep the findings on changed lines that the baseline does not hold; counts what the
        baseline left out in ``result.baselined``."""
        if self.changes is not None:
            from ctxlint.changes import touches

            changes = self.changes
            result.findings = [f for f in result.findings
                               if touches(changes, f.span.path, f.span.line, f.span.end_line)]
        if self.known is not None:
            kept = [f for f in result.findings if fingerprint(f) not in self.known]
            result.baselined = len(result.findings) - len(kept)
            result.findings = kept

    def failing(self, findings: Iterable[Finding], level_of: Callable[[Finding], str]) -> bool:
        """Whether the findings fail the run: one at or above its fail level (``--fail-level``,
        else ``level_of``, its file's configuration), unless ``--exit-zero``."""
        if self.exit_zero:
            return False
        return any(f.severity.rank >= Severity(self.fail_level or level_of(f)).rank for f in findings)


def uncalled(findings: list[Finding], files: Mapping[str, tuple[Path, Path, Selection]]) -> list[Finding]:
    """The findings with those in a function nothing calls made low confidence, with that said,
    and the confidence floor of their file's configuration applied again. ``files`` gives, for a
    finding's path, the file, its configuration's root and selection. A function reached only by
    a call of its name (``Finding.function``) whose name no other line of the repository writes,
    comments aside, never runs: a request or a cut in it reaches no model. Nor does one named only
    in the bodies of its module's functions that nothing else names either (its readers)."""
    asking = [f for f in findings if f.function is not None and f.span.path in files]
    if not asking:
        return findings
    from ctxlint.references import names_at, project_top, unwritten  # here: a clean run asks nothing

    tops: dict[str, Path] = {}  # a finding's path -> the top of its repository
    # The names asked in each repository: a function with no readers by its name; a function and its
    # readers as a group, each name tagged with the group (``_asked``), since the readers' bodies are
    # left out only for that group's names.
    asked: dict[Path, list[tuple[str, str, int]]] = {}
    # A question's modules, when every function asked about by that name is at the top of one (a
    # group's names are asked apart: their homes are that group's module only).
    homes: dict[str, frozenset[Path] | None] = {}
    groups: dict[str, frozenset[str]] = {}  # a question's group: the function asked about and its readers
    for finding in asking:
        function = finding.function
        assert function is not None
        path, root, _ = files[finding.span.path]
        top = tops.setdefault(finding.span.path, project_top(root.resolve()))
        group = (function, *function.readers)
        # the lines of the function and of its readers: a name written there is reached only through them
        lines = [line for f in group for line in range(f.line, f.end_line + 1)] if function.readers else [function.line]
        if function.by_hand is not None:
            lines.extend(range(function.by_hand[0], function.by_hand[1] + 1))
        resolved = path.resolve()  # once: a function with readers asks about each of their lines
        for named in group:
            question = _asked(named, finding)
            asked.setdefault(top, []).extend((question, str(resolved), line) for line in lines)
            known = homes.get(question, frozenset())
            homes[question] = known | {resolved} if named.top_level and known is not None else None
            groups[question] = frozenset(f.name for f in group)
        within = function.within
        if within is not None:  # a method: its class's name, written nowhere else, makes no object
            asked[top].append((within.name, str(resolved), within.line))
            known = homes.get(within.name, frozenset())
            homes[within.name] = known | {resolved} if known is not None else None
            groups.setdefault(within.name, frozenset({within.name}))
    tied = {name: found for name, found in homes.items() if found}
    never = {top: unwritten(top, names_at(places), tied, groups) for top, places in asked.items()}
    kept = []
    for finding in findings:
        function = finding.function
        if function is not None and finding.span.path in tops:
            selection = files[finding.span.path][2]
            unwritten_here = never[tops[finding.span.path]]
            if {_asked(f, finding) for f in (function, *function.readers)} <= unwritten_here:
                finding = replace(finding, confidence=Confidence.LOW, evidence=(*finding.evidence, _unread(finding)))
                if not selection.reported(finding):
                    continue
            elif function.within is not None and function.within.name in unwritten_here:
                finding = replace(finding, confidence=Confidence.LOW, evidence=(*finding.evidence, _unmade(finding)))
                if not selection.reported(finding):
                    continue
        kept.append(finding)
    return kept


def _asked(named: NamedFunction, finding: Finding) -> str:
    """The question about ``named`` that ``finding`` asks: its name, tagged with the function the
    finding is in and where, when that function has readers (see ``references.word``)."""
    function = finding.function
    assert function is not None
    if not function.readers:
        return named.name
    return f"{named.name}\0{finding.span.path}:{function.name}:{function.line}"


def _unmade(finding: Finding) -> Evidence:
    """What the run found of the class whose method a finding is in: nothing names it, so nothing makes one."""
    function = finding.function
    assert function is not None and function.within is not None
    said = f"nothing in the project names `{function.within.name}`, so no object of it calls `{function.name}`"
    return Evidence(EvidenceKind.FLOW, said, Span.point(finding.span.path, function.within.line), strong=False)


def _unread(finding: Finding) -> Evidence:
    """What the run found of the function a finding is in: nothing calls it, or nothing but its readers."""
    function = finding.function
    assert function is not None
    verb = "reads" if function.constant else "calls"
    said = f"nothing in the project {verb} `{function.name}`"
    if function.readers:
        names = ", ".join(f"`{r.name}`" for r in function.readers)
        said += f" but {names}, which nothing else calls"
    if function.by_hand is not None:
        said += f" outside its module's `__main__` block (line {function.by_hand[0]}), which runs only by hand"
    return Evidence(EvidenceKind.FLOW, said, Span.point(finding.span.path, function.line), strong=False)
