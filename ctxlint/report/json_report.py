"""Machine output: a JSON list of findings (the documented, stable fields)."""

from __future__ import annotations

import json

from ctxlint.catalogue import Rule
from ctxlint.model import Evidence, Finding
from ctxlint.report import DEFAULT_OPTIONS, ReportOptions, rule_counts
from ctxlint.results import LintResult


def evidence_dict(step: Evidence) -> dict:
    span = step.span
    return {
        "kind": step.kind.value,
        "text": step.text,
        "strong": step.strong,
        "path": span.path if span else None,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "cell": span.cell if span else None,
    }


def as_dict(finding: Finding) -> dict:
    span = finding.span
    fix = None
    if finding.fix:
        fix = {
            "description": finding.fix.description,
            "line": finding.fix.span.line,
            "column": finding.fix.span.column,
            "end_line": finding.fix.span.end_line,
            "end_column": finding.fix.span.end_column,
            "replacement": finding.fix.replacement,
        }
    return {
        "code": finding.code,
        "name": finding.name,
        "severity": finding.severity.value,
        "path": span.path,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        "message": finding.message,
        "fix": fix,
        "confidence": finding.confidence.value,
        # The kind of evidence the finding rests on and where the code is (code, test, example).
        "kind": finding.kind or None,
        "scope": finding.scope,
        "evidence": [evidence_dict(step) for step in finding.evidence],
        # The notebook cell (1-based) that `line` and `column` count in; null outside notebooks.
        "cell": span.cell,
    }


def render(result: LintResult, catalogue: dict[str, Rule], options: ReportOptions = DEFAULT_OPTIONS) -> str:
    if options.statistics:
        data: list[dict] = [{"code": row.code, "name": row.name, "count": row.count, "fixable": row.fixable}
                            for row in rule_counts(result)]
    else:
        data = [as_dict(f) for f in result.findings]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
