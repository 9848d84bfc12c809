"""JUnit XML, which most CI systems show as a test report: one test suite per file with
findings, one failed test case per finding (its type is the severity; its text carries the
location, the message, the confidence and the evidence). A clean run is one passing test case,
so the report is never empty.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import groupby

from ctxlint.catalogue import Rule
from ctxlint.model import Finding
from ctxlint.report import DEFAULT_OPTIONS, ReportOptions
from ctxlint.results import LintResult

# Characters XML 1.0 cannot hold, even escaped; a message quoting a file could contain them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _details(finding: Finding) -> str:
    span = finding.span
    lines = [f"{span.path}:{span.line}:{span.column}: {finding.code} {finding.message}",
             f"confidence: {finding.confidence.value}"]
    for step in finding.evidence:
        where = f" at {step.span.path}:{step.span.line}:{step.span.column}" if step.span else ""
        lines.append(f"{step.kind.value}: {step.text}{where}")
    if finding.fix:
        lines.append(f"fixable with --fix: {finding.fix.description}")
    return _clean("\n".join(lines))


def render(result: LintResult, catalogue: dict[str, Rule], options: ReportOptions = DEFAULT_OPTIONS) -> str:
    total = len(result.findings)
    suites = ET.Element("testsuites", name="ctxlint", tests=str(max(total, 1)), failures=str(total))
    if not result.findings:
        suite = ET.SubElement(suites, "testsuite", name="ctxlint", tests="1", failures="0")
        files = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''}"
        ET.SubElement(suite, "testcase", name=f"ctxlint check ({files})", classname="ctxlint")
    for path, group in groupby(result.findings, key=lambda f: f.span.path):
        findings = list(group)
        suite = ET.SubElement(suites, "testsuite", name=_clean(path), tests=str(len(findings)),
                              failures=str(len(findings)))
        for f in findings:
            case = ET.SubElement(suite, "testcase", name=f"{f.code} {f.name} at {f.span.line}:{f.span.column}",
                                 classname=_clean(path), file=_clean(path), line=str(f.span.line))
            failure = ET.SubElement(case, "failure", type=f.severity.value,
                                    message=_clean(" ".join(f.message.split())))
            failure.text = _details(f)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
