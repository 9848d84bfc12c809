"""Reporters: findings as text, JSON, SARIF or GitHub workflow commands."""

from __future__ import annotations

from collections.abc import Callable

from ctxlint.catalogue import Rule
from ctxlint.engine import LintResult

Reporter = Callable[[LintResult, dict[str, Rule]], str]


def reporter(name: str) -> Reporter:
    if name == "text":
        from ctxlint.report.text import render
    elif name == "json":
        from ctxlint.report.json_report import render
    elif name == "sarif":
        from ctxlint.report.sarif import render
    elif name == "github":
        from ctxlint.report.github import render
    else:
        raise ValueError(f"unknown output format {name!r}")
    return render
