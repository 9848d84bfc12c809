"""Human output, as ruff's full output: each finding's ``path:line:col: CODE message`` line, the
source line with a caret under the span, and where the evidence's other end is ("source:
`requests.get(...).text` (line 10)"); then a summary. ``concise`` keeps one line per finding.

A fixable finding is marked `[*]` after its code. Lines wrap to the report's width; on a terminal
the output is coloured (the caller decides: NO_COLOR and FORCE_COLOR are honoured in the CLI).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from ctxlint.catalogue import Rule
from ctxlint.model import Finding, Span
from ctxlint.report import DEFAULT_OPTIONS, ReportOptions, rule_counts
from ctxlint.results import LintResult

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_SEVERITY = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
_FIXABLE = "\033[36m"
_MAX_EVIDENCE = 3  # located steps shown under a finding; the JSON and SARIF reports carry all


def render(result: LintResult, catalogue: dict[str, Rule], options: ReportOptions = DEFAULT_OPTIONS) -> str:
    if options.statistics:
        return statistics(result, options) + ("" if options.quiet else summary(result, options) + "\n")
    sources = _Sources(options.sources)
    blocks = ["\n".join(_finding(f, sources, options)) + "\n" for f in result.findings]
    text = "\n".join(blocks)
    if not options.quiet:
        width = max(options.width, 40) if options.width else 0
        text += ("\n" if blocks else "") + "\n".join(_wrap(summary(result, options), width, "", options.color)) + "\n"
    return text


def header(f: Finding, options: ReportOptions) -> str:
    """``path:line:col: CODE [*] message`` (one line, whatever the message contains)."""
    message = " ".join(f.message.split())
    marker = "[*] " if f.fix else ""
    if not options.color:
        return f"{location(f.span)}: {f.code} {marker}{message}"
    where = location(f.span).removeprefix(f.span.path)
    code = f"{_SEVERITY[f.severity.value]}{f.code}{_RESET}"
    marker = f"{_FIXABLE}{marker}{_RESET}" if marker else ""
    return f"{_BOLD}{f.span.path}{_RESET}{_DIM}{where}:{_RESET} {code} {marker}{message}"


def _finding(f: Finding, sources: _Sources, options: ReportOptions) -> list[str]:
    width = max(options.width, 40) if options.width else 0
    lines = _wrap(header(f, options), width, "    ", options.color)
    line = sources.line(f.span)
    steps = [step for step in f.evidence if step.span is not None and _elsewhere(step.span, f.span)]
    if line is None and not steps:
        return lines
    gutter = len(str(f.span.line))
    bar = _dim(" " * gutter + " |", options)
    lines.append(bar)
    if line is not None:
        shown, start, length = _excerpt(line, f.span, width - gutter - 3 if width else 0)
        lines.append(_dim(f"{f.span.line} |", options) + f" {shown}".rstrip())
        label = f" {f.code}"
        if width:  # the carets fit the width too, and the code after them when there is room
            room = width - gutter - 3
            length = max(1, min(length, room - start))
            label = label if start + length + len(label) <= room else ""
        carets = "^" * length + label
        if options.color:
            carets = f"{_SEVERITY[f.severity.value]}{carets}{_RESET}"
        lines.append(bar + " " + " " * start + carets)
        lines.append(bar)
    for step in steps[:_MAX_EVIDENCE]:
        assert step.span is not None
        where = f"line {step.span.line}" if step.span.path == f.span.path and step.span.cell == f.span.cell \
            else location(step.span)
        lines += _wrap(f"{' ' * gutter} = {step.kind.value}: {' '.join(step.text.split())} ({where})",
                       width, " " * (gutter + 3), False)
    if len(steps) > _MAX_EVIDENCE:
        lines.append(f"{' ' * gutter} = and {len(steps) - _MAX_EVIDENCE} more (--output-format json lists them)")
    return lines


def _elsewhere(span: Span, of: Span) -> bool:
    """Whether an evidence step is at another place than the finding: its other end."""
    return (span.path, span.cell, span.line) != (of.path, of.cell, of.line)


def _excerpt(line: str, span: Span, room: int) -> tuple[str, int, int]:
    """The source line as shown (tabs expanded, cut around the span when longer than a ``room``
    that is not 0), the caret's offset in it and the number of carets."""
    text = line.expandtabs(4)
    start = len(line[: span.column - 1].expandtabs(4))
    end = len(line[: span.end_column - 1].expandtabs(4)) if span.end_line == span.line else len(text)
    length = max(1, min(end, len(text)) - start)
    if not room or len(text) <= room:
        return text, start, length
    # A window of ``room`` columns from a third of it before the span; "…" stands for what is cut.
    cut = max(0, min(start - room // 3, len(text) - room))
    end = cut + room if cut + room >= len(text) else cut + room - 1
    shown = ("…" + text[cut + 1 : end] if cut else text[:end]) + ("…" if end < len(text) else "")
    offset = start - cut
    return shown, offset, max(1, min(length, len(shown) - offset - (end < len(text))))


def _wrap(text: str, width: int, indent: str, color: bool) -> list[str]:
    if not width or color or len(text) <= width:  # escape codes would count as columns
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def _dim(text: str, options: ReportOptions) -> str:
    return f"{_DIM}{text}{_RESET}" if options.color else text


class _Sources:
    """The lines of the files findings point into, read once each; None where a file cannot be
    read now (gone, or a notebook, whose lines count from the top of a cell)."""

    def __init__(self, texts: dict[str, str]):
        self._lines = {path: text.splitlines() for path, text in texts.items()}

    def line(self, span: Span) -> str | None:
        if span.cell is not None:
            return None
        if span.path not in self._lines:
            try:
                text = Path(span.path).read_text(encoding="utf-8", errors="replace")
            except (OSError, ValueError):
                text = ""
            self._lines[span.path] = text.splitlines()
        lines = self._lines[span.path]
        return lines[span.line - 1] if 1 <= span.line <= len(lines) else None


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
