"""Human output: one `path:line:col: CODE message` line per finding, then a summary."""

from __future__ import annotations

from collections import Counter

from ctxlint.catalogue import Rule
from ctxlint.engine import LintResult
from ctxlint.model import Span


def render(result: LintResult, catalogue: dict[str, Rule]) -> str:
    # One finding per line, whatever a message (or a user's `advice` option) contains.
    lines = [f"{location(f.span)}: {f.code} {' '.join(f.message.split())}" for f in result.findings]
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def location(span: Span) -> str:
    """``path:line:col``, or ruff's ``path:cell N:line:col`` in a notebook."""
    cell = f"cell {span.cell}:" if span.cell is not None else ""
    return f"{span.path}:{cell}{span.line}:{span.column}"


def summary(result: LintResult) -> str:
    files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''}"
    if not result.findings:
        return f"All checks passed ({files} checked)."
    by_severity = Counter(f.severity.value for f in result.findings)
    parts = ", ".join(f"{n} {sev}{'s' if n != 1 and sev != 'info' else ''}"
                      for sev in ("error", "warning", "info") if (n := by_severity[sev]))
    count = len(result.findings)
    fixable = sum(1 for f in result.findings if f.fix)
    tail = f"; {fixable} fixable with --fix" if fixable else ""
    return f"Found {count} finding{'s' if count != 1 else ''} ({parts}) in {files}{tail}."


def statistics(result: LintResult) -> str:
    """Counts per rule, most frequent first (`--statistics`)."""
    counts = Counter((f.code, f.name) for f in result.findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    return "".join(f"{n:>5}  {code}  {name}\n" for (code, name), n in rows)
