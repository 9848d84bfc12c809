"""`ctxlint rule`: explain a rule, or list the catalogue."""

from __future__ import annotations

import argparse

from ctxlint.cli.common import UsageError, add_listing_options, load_project, write_listing


def add_parser(commands) -> None:
    rule = commands.add_parser("rule", help="explain a rule, or list the catalogue")
    rule.add_argument("code", nargs="?", metavar="CODE", help="a rule code or name; omit to list all rules")
    rule.add_argument("--evidence", action="store_true",
                      help="list the kinds of evidence of every rule (or of CODE): confidence, measured precision")
    add_listing_options(rule)


def run(args: argparse.Namespace) -> int:
    from ctxlint.catalogue import CatalogueError, find_rule
    from ctxlint.report.rules import describe, describe_json, evidence_json, evidence_table, listing, listing_json

    project = load_project(args)
    try:
        catalogue = project.catalogue(project.resolver.default)
    except CatalogueError as error:
        raise UsageError(str(error)) from None
    if args.evidence:
        chosen = catalogue if args.code is None else {r.code: r for r in [find_rule(catalogue, args.code.strip())] if r}
        if not chosen:
            raise UsageError(f"unknown rule `{args.code}` (run `ctxlint rule` for the catalogue)")
        return write_listing(args, evidence_table, evidence_json, chosen)
    if args.code is None:
        return write_listing(args, listing, listing_json, catalogue)
    rule = find_rule(catalogue, args.code.strip())
    if rule is None:
        raise UsageError(f"unknown rule `{args.code}` (run `ctxlint rule` for the catalogue)")
    return write_listing(args, describe, describe_json, rule)
