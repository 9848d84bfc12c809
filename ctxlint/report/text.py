"""Human output: one `path:line:col: CODE message` line per finding, then a summary.

A fixable finding is marked `[*]` after its code. On a terminal the output is coloured; the
caller decides (NO_COLOR and FORCE_COLOR are honoured in the CLI).
"""

from __future__ import annotations

from ctxlint.catalogue import Rule
from ctxlint.model import Span
from ctxlint.report import DEFAULT_OPTIONS, ReportOptions, rule_counts
from ctxlint.results import LintResult

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_SEVERITY = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
_FIXABLE = "\033[36m"


def render(result: LintResult, catalogue: dict[str, Rule], options: ReportOptions = DEFAULT_OPTIONS) -> str:
    if options.statistics:
        return statistics(result, options) + ("" if options.quiet else summary(result, options) + "\n")
    lines = []
    for f in result.findings:
        # One finding per line, whatever a message (or a user's `advice` option) contains.
        message = " ".join(f.message.split())
        marker = "[*] " if f.fix else ""
        if options.color:
            where = location(f.span).removeprefix(f.span.path)
            code = f"{_SEVERITY[f.severity.value]}{f.code}{_RESET}"
            marker = f"{_FIXABLE}{marker}{_RESET}" if marker else ""
            lines.append(f"{_BOLD}{f.span.path}{_RESET}{_DIM}{where}:{_RESET} {code} {marker}{message}")
        else:
            lines.append(f"{location(f.span)}: {f.code} {marker}{message}")
    if not options.quiet:
        lines.append(summary(result, options))
    return "".join(line + "\n" for line in lines)


def location(span: Span) -> str:
    """``path:line:col``, or ruff's ``path:cell N:line:col`` in a notebook."""
    cell = f"cell {span.cell}:" if span.cell is not None else ""
    return f"{span.path}:{cell}{span.line}:{span.column}"


def summary(result: LintResult, options: ReportOptions = DEFAULT_OPTIONS) -> str:
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''}"
    hidden = ""
    if result.baselined:
        hidden = f" {result.baselined} finding{'s' if result.baselined != 1 else ''} in the baseline not shown."
    skipped = result.skipped
    if not result.findings:
        text = f"All checks passed ({files} checked{f', {skipped} skipped' if skipped else ''}).{hidden}"
        return f"{_BOLD}{text}{_RESET}" if options.color else text
    by_severity = {sev: sum(1 for f in result.findings if f.severity.value == sev)
                   for sev in ("error", "warning", "info")}
    parts = ", ".join(f"{n} {sev}{'s' if n != 1 and sev != 'info' else ''}"
                      for sev, n in by_severity.items() if n)
    count = len(result.findings)
    fixable = sum(1 for f in result.findings if f.fix)
    tail = f"; {fixable} fixable with --fix" if fixable else ""
    if skipped:
        tail += f"; {skipped} file{'s' if skipped != 1 else ''} skipped"
    text = f"Found {count} finding{'s' if count != 1 else ''} ({parts}) in {files}{tail}.{hidden}"
    return f"{_BOLD}{text}{_RESET}" if options.color else text


def statistics(result: LintResult, options: ReportOptions = DEFAULT_OPTIONS) -> str:
    """Counts per rule, most frequent first (`--statistics`); `[*]` marks rules with fixes."""
    rows = []
    for row in rule_counts(result):
        marker = "[*] " if row.fixable else ""
        code = f"{_SEVERITY['error']}{row.code}{_RESET}" if options.color else row.code
        rows.append(f"{row.count:>5}  {code}  {marker}{row.name}\n")
    return "".join(rows)
