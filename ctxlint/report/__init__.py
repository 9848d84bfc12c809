"""Reporters: findings as text (full, or concise: one line each), JSON, SARIF, GitHub workflow
commands, GitLab Code Quality or JUnit XML. Each is imported only when asked for."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ctxlint.catalogue import Rule
from ctxlint.model import Finding
from ctxlint.results import LintResult

FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab", "junit")
_MODULES = {"json": "json_report"}


@dataclass(frozen=True)
class ReportOptions:
    """How to render: colour (text on a terminal), a statistics view, fingerprints per finding."""

    color: bool = False
    statistics: bool = False
    quiet: bool = False  # findings only: no summary line
    # Stable identities of findings (see ctxlint.baseline), for formats that carry one.
    fingerprints: dict[Finding, str] = field(default_factory=dict)
    width: int = 0  # columns the text report wraps to; 0: no wrapping
    # Texts of files the full text report cannot read from disk (standard input), by path.
    sources: dict[str, str] = field(default_factory=dict)


DEFAULT_OPTIONS = ReportOptions()
Reporter = Callable[[LintResult, dict[str, Rule], ReportOptions], str]


def reporter(name: str) -> Reporter:
    if name not in FORMATS:
        raise ValueError(f"unknown output format {name!r}")
    module = importlib.import_module(f"ctxlint.report.{_MODULES.get(name, name)}")
    render: Reporter = module.render
    return render


@dataclass(frozen=True)
class RuleCount:
    code: str
    name: str
    count: int
    fixable: int


def rule_counts(result: LintResult) -> list[RuleCount]:
    """Findings per rule, most frequent first (`--statistics`)."""
    counts = Counter((f.code, f.name) for f in result.findings)
    fixable = Counter(f.code for f in result.findings if f.fix)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    return [RuleCount(code, name, n, fixable[code]) for (code, name), n in rows]
