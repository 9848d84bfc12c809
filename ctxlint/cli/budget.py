"""`ctxlint budget`: simulate a prompt's context budget and read back its key fields."""

from __future__ import annotations

import argparse
from pathlib import Path

from ctxlint.cli.common import (
    EXIT_CLEAN,
    EXIT_FINDINGS,
    UsageError,
    add_config_option,
    add_output_options,
    load_project,
    write_report,
)

BUDGET_FORMATS = ("text", "json", "markdown")


def add_parser(commands) -> None:
    budget = commands.add_parser("budget", help="simulate a prompt's context budget and read back its key fields",
                                 description=(
        "Fill a prompt with its fixtures, allocate each budget (reserve, pinned segments, minimums, the "
        "rest by priority), apply each segment's policy, and read back the declared key fields. Exit 1 "
        "when a key field is lost or a budget cannot hold the pinned content, 2 on usage errors."))
    budget.add_argument("prompt", type=Path, metavar="PROMPT", help="a prompt, request or template file")
    budget.add_argument("--budget", dest="budgets", metavar="N[,N...]",
                        help="budgets to simulate, in tokens of input plus output (default: the declared min-budget)")
    budget.add_argument("--fixtures", type=Path, metavar="FILE",
                        help="YAML or JSON sample content per segment (default: PROMPT's NAME.fixtures.yaml)")
    budget.add_argument("--size", action="append", default=[], metavar="SEGMENT=TOKENS",
                        help="fill a segment without a fixture to this many tokens (repeatable)")
    budget.add_argument("--naive", action="store_true",
                        help="fill in request order and cut at the edge, with no reserve, for comparison")
    add_output_options(budget, BUDGET_FORMATS, "text (terminal), json, or markdown (a pull-request comment)")
    add_config_option(budget)


def run(args: argparse.Namespace) -> int:
    from ctxlint.budget.command import BudgetError, run
    from ctxlint.catalogue import CatalogueError
    from ctxlint.config import ConfigError

    project = load_project(args)
    try:
        settings = project.settings_for(args.prompt)
        catalogue = project.catalogue(settings)
        text, failed = run(args, settings, catalogue)
    except (BudgetError, ConfigError, CatalogueError) as error:
        raise UsageError(str(error)) from None
    write_report(text, args.output_file)
    return EXIT_FINDINGS if failed else EXIT_CLEAN
