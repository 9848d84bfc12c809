"""GitHub Actions workflow commands: findings become annotations on the pull request."""

from __future__ import annotations

from ctxlint.catalogue import Rule
from ctxlint.report import DEFAULT_OPTIONS, ReportOptions
from ctxlint.results import LintResult

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: LintResult, catalogue: dict[str, Rule], options: ReportOptions = DEFAULT_OPTIONS) -> str:
    lines = []
    for f in result.findings:
        s = f.span
        if s.cell is not None:
            # GitHub places annotations by lines of the raw file; a notebook's are JSON, so the
            # annotation goes on the file and the message says the cell.
            props = f"file={_property(s.path)},title={_property(f.code + ' ' + f.name)}"
            message = f"cell {s.cell}, line {s.line}, column {s.column}: {f.message}"
        else:
            props = (f"file={_property(s.path)},line={s.line},col={s.column},"
                     f"endLine={s.end_line},endColumn={s.end_column},title={_property(f.code + ' ' + f.name)}")
            message = f.message
        lines.append(f"::{_LEVEL[f.severity.value]} {props}::{_data(message)}")
    return "".join(line + "\n" for line in lines)
