"""``--output-format concise``: one ``path:line:col: CODE message`` line per finding, then a
summary (the full text report without the source lines)."""

from __future__ import annotations

from ctxlint.catalogue import Rule
from ctxlint.report import DEFAULT_OPTIONS, ReportOptions
from ctxlint.report.text import header, statistics, summary
from ctxlint.results import LintResult


def render(result: LintResult, catalogue: dict[str, Rule], options: ReportOptions = DEFAULT_OPTIONS) -> str:
    if options.statistics:
        return statistics(result, options) + ("" if options.quiet else summary(result, options) + "\n")
    lines = [header(f, options) for f in result.findings]
    if not options.quiet:
        lines.append(summary(result, options))
    return "".join(line + "\n" for line in lines)
