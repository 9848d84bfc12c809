"""GitLab Code Quality report: a JSON list of issues in the Code Climate shape that GitLab reads
from a job's `artifacts:reports:codequality` and shows in merge requests.

Each issue needs a fingerprint unique within the report: it is the finding's stable fingerprint
(the one the baseline and SARIF use), so GitLab sees the same issue across unrelated edits.
Confidence and evidence go into `content.body` (Markdown) and `other_locations`, which the Code
Climate spec defines and GitLab passes over.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ctxlint.catalogue import Rule
from ctxlint.model import Finding, Span
from ctxlint.report import DEFAULT_OPTIONS, ReportOptions
from ctxlint.results import LintResult

_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def _positions(span: Span) -> dict:
    return {"begin": {"line": span.line, "column": span.column},
            "end": {"line": span.end_line, "column": span.end_column}}


def _body(finding: Finding) -> str:
    lines = [f"Confidence: {finding.confidence.value}."]
    for step in finding.evidence:
        where = f" ({step.span.path}:{step.span.line})" if step.span else ""
        lines.append(f"- {step.kind.value}: {step.text}{where}")
    if finding.fix:
        lines.append(f"Fixable with `ctxlint check --fix`: {finding.fix.description}")
    return "\n".join(lines)


def render(result: LintResult, catalogue: dict[str, Rule], options: ReportOptions = DEFAULT_OPTIONS) -> str:
    issues = []
    for f in result.findings:
        fingerprint = options.fingerprints.get(f) or hashlib.sha256(
            f"{f.code}\0{f.span.path}\0{f.span.line}\0{f.span.column}\0{f.message}".encode()).hexdigest()
        issue: dict[str, Any] = {
            "description": f"{f.code} {' '.join(f.message.split())}",
            "check_name": f"{f.code} {f.name}",
            "fingerprint": fingerprint,
            "severity": _SEVERITY[f.severity.value],
            "location": {"path": f.span.path, "positions": _positions(f.span)},
            "content": {"body": _body(f)},
        }
        others = [{"path": step.span.path, "positions": _positions(step.span)}
                  for step in f.evidence if step.span is not None]
        if others:
            issue["other_locations"] = others
        issues.append(issue)
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
