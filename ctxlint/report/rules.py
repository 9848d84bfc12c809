"""Rule documentation for `ctxlint rule`, straight from the rule files."""

from __future__ import annotations

import json
import textwrap

from ctxlint.catalogue import Rule

_SECTIONS = (("what", "What it does"), ("why", "Why it matters"), ("example", "Example"),
             ("instead", "Use instead"), ("options", "Options"))


def listing(catalogue: dict[str, Rule]) -> str:
    width = max(len(r.name) for r in catalogue.values())
    rows = [f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {'(preview) ' if r.preview else ''}{r.summary}"
            for r in sorted(catalogue.values(), key=lambda r: r.code)]
    return "\n".join(rows) + "\n"


def describe(rule: Rule) -> str:
    fix = ", fixable" if rule.fixable else ""
    out = [f"{rule.code} {rule.name} ({rule.family}, {rule.severity.value}{fix})", "", rule.summary, ""]
    if rule.preview:
        out += ["Preview: off by default; run it with --preview or by selecting it by code or name.", ""]
    if rule.precision:
        out += [f"Measured precision: {rule.precision}", ""]
    for key, title in _SECTIONS:
        out.append(title)
        text = rule.docs[key].rstrip()
        if key in ("what", "why"):  # prose, folded in the YAML: wrap it for the terminal
            text = textwrap.fill(" ".join(text.split()), width=88)
        out.append(textwrap.indent(text, "    "))
        out.append("")
    if rule.evidence:
        out.append("Evidence and confidence (what a finding rests on; low is shown with --confidence low)")
        width = max(len(kind) for kind in rule.evidence)
        for kind, spec in rule.evidence.items():
            measured = f" [{spec.measured}]" if spec.measured else ""
            out.append(f"    {kind:<{width}}  {spec.confidence.value:<6}  {spec.says}{measured}")
        out.append("")
    if rule.options:
        out.append("Defaults")
        for key, value in rule.options.items():
            out.append(f"    {key} = {value!r}")
        out.append("")
    return "\n".join(out)


def evidence_table(catalogue: dict[str, Rule]) -> str:
    """Every kind of evidence of the rules, one line each: the rule, the kind, the confidence a
    finding on it carries, how it measured on the corpus, and what it is."""
    rows = [(r.code, kind, spec.confidence.value, spec.measured or "-", spec.says)
            for r in sorted(catalogue.values(), key=lambda r: r.code) for kind, spec in r.evidence.items()]
    if not rows:
        return "No rule reports kinds of evidence.\n"
    head = ("rule", "kind", "confidence", "measured", "what the finding rests on")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(4)]
    return "".join("  ".join(f"{cell:<{width}}" for cell, width in zip(row[:4], widths, strict=True)) + "  "
                   + row[4] + "\n" for row in [head, *rows])


def evidence_json(catalogue: dict[str, Rule]) -> str:
    return json.dumps([{"code": r.code, "kind": kind, "confidence": spec.confidence.value,
                        "measured": spec.measured or None, "says": spec.says}
                       for r in sorted(catalogue.values(), key=lambda r: r.code)
                       for kind, spec in r.evidence.items()], indent=2, ensure_ascii=False) + "\n"


def rule_dict(rule: Rule, full: bool = False) -> dict:
    """A rule as `ctxlint rule --output-format json` gives it; ``full`` adds its docs and options."""
    out: dict = {"code": rule.code, "name": rule.name, "family": rule.family, "severity": rule.severity.value,
                 "preview": rule.preview, "fixable": rule.fixable, "summary": rule.summary,
                 "precision": rule.precision or None}
    if full:
        out.update(docs={key: rule.docs[key] for key, _ in _SECTIONS}, options=rule.options)
    return out


def listing_json(catalogue: dict[str, Rule]) -> str:
    return json.dumps([rule_dict(r) for r in sorted(catalogue.values(), key=lambda r: r.code)], indent=2) + "\n"


def describe_json(rule: Rule) -> str:
    return json.dumps(rule_dict(rule, full=True), indent=2, ensure_ascii=False) + "\n"
