"""`ctxlint rule`: explain a rule, or list the catalogue."""

from __future__ import annotations

import argparse
import sys

from ctxlint.cli.common import EXIT_CLEAN, UsageError, add_config_option, load_project


def add_parser(commands) -> None:
    rule = commands.add_parser("rule", help="explain a rule, or list the catalogue")
    rule.add_argument("code", nargs="?", metavar="CODE", help="a rule code or name; omit to list all rules")
    add_config_option(rule)


def run(args: argparse.Namespace) -> int:
    from ctxlint.catalogue import CatalogueError, find_rule
    from ctxlint.report.rules import describe, listing

    project = load_project(args)
    try:
        catalogue = project.catalogue(project.resolver.default)
    except CatalogueError as error:
        raise UsageError(str(error)) from None
    if args.code is None:
        sys.stdout.write(listing(catalogue))
        return EXIT_CLEAN
    rule = find_rule(catalogue, args.code.strip())
    if rule is None:
        raise UsageError(f"unknown rule `{args.code}` (run `ctxlint rule` for the catalogue)")
    sys.stdout.write(describe(rule))
    return EXIT_CLEAN
