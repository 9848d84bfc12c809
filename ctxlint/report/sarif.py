"""SARIF 2.1.0 for code-scanning dashboards, with the catalogue's rule metadata."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ctxlint import __version__
from ctxlint.catalogue import Rule
from ctxlint.report import DEFAULT_OPTIONS, ReportOptions, rule_counts
from ctxlint.report.json_report import evidence_dict
from ctxlint.results import LintResult

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT_KEY = "ctxlintFingerprint/v1"
_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _rule(rule: Rule) -> dict:
    docs = rule.docs
    markdown = (
        f"{docs['what'].strip()}\n\n**Why it matters.** {docs['why'].strip()}\n\n"
        f"**Example**\n\n```\n{docs['example'].rstrip()}\n```\n\n"
        f"**Use instead**\n\n```\n{docs['instead'].rstrip()}\n```\n"
    )
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": docs["what"].strip()},
        "help": {"text": f"{docs['what'].strip()} {docs['why'].strip()}", "markdown": markdown},
        "defaultConfiguration": {"level": _LEVEL[rule.severity.value], "enabled": not rule.preview},
        "properties": {"tags": [rule.family, *(["preview"] if rule.preview else [])],
                       **({"precision": rule.precision} if rule.precision else {})},
    }


def _region(span) -> dict:
    region = {"startLine": span.line, "startColumn": span.column,
              "endLine": span.end_line, "endColumn": max(span.end_column, 1)}
    if span.cell is not None:  # a notebook: the lines count from the top of this cell
        region["properties"] = {"cell": span.cell}
    return region


def _uri(path: str) -> str:
    return quote(Path(path).as_posix())


def render(result: LintResult, catalogue: dict[str, Rule], options: ReportOptions = DEFAULT_OPTIONS) -> str:
    codes = sorted(catalogue)
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for f in result.findings:
        location = {"artifactLocation": {"uri": _uri(f.span.path), "uriBaseId": "SRCROOT"},
                    "region": _region(f.span)}
        logical = [{"name": f"cell {f.span.cell}", "kind": "module"}] if f.span.cell is not None else []
        item = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _LEVEL[f.severity.value],
            "message": {"text": f.message},
            "locations": [{"physicalLocation": location, **({"logicalLocations": logical} if logical else {})}],
            "properties": {"confidence": f.confidence.value, "kind": f.kind or None, "scope": f.scope,
                           "evidence": [evidence_dict(step) for step in f.evidence]},
        }
        fingerprint = options.fingerprints.get(f)
        if fingerprint:
            # The baseline's fingerprint, so code scanning tracks a finding across unrelated edits.
            item["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint}
        related = [(step, step.span) for step in f.evidence if step.span is not None]
        if related:
            item["relatedLocations"] = [
                {"id": i, "message": {"text": f"{step.kind.value}: {step.text}"},
                 "physicalLocation": {"artifactLocation": {"uri": _uri(span.path), "uriBaseId": "SRCROOT"},
                                      "region": _region(span)}}
                for i, (step, span) in enumerate(related)]
        if f.fix:
            item["fixes"] = [{
                "description": {"text": f.fix.description},
                "artifactChanges": [{
                    "artifactLocation": location["artifactLocation"],
                    "replacements": [{"deletedRegion": _region(f.fix.span),
                                      "insertedContent": {"text": f.fix.replacement}}],
                }],
            }]
        results.append(item)
    log: dict[str, Any] = {
        "$schema": _SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ctxlint",
                "version": __version__,
                "rules": [_rule(catalogue[c]) for c in codes],
            }},
            "originalUriBaseIds": {"SRCROOT": {"uri": Path.cwd().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    if options.statistics:
        log["runs"][0]["properties"] = {"statistics": [
            {"code": row.code, "name": row.name, "count": row.count, "fixable": row.fixable}
            for row in rule_counts(result)]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
