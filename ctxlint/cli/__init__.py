"""The command line: `ctxlint check`, `cost`, `budget`, `rule` and `models`.

Exit codes: 0 no finding at or above the fail level, 1 findings, 2 usage, configuration or
internal error. Errors go to stderr as one line; a traceback is a bug (set CTXLINT_DEBUG=1 to
see one). Each subcommand is one module with its options (``add_parser``) and its run.
"""

from __future__ import annotations

import argparse
import os
import sys

from ctxlint import __version__
from ctxlint.cli import budget, check, cost, models, rule
from ctxlint.cli.common import EXIT_ERROR, UsageError

COMMANDS = {"check": check, "cost": cost, "budget": budget, "rule": rule, "models": models}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxlint",
        description="Lint the context LLM applications send: prompt templates, requests and tool schemas.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"ctxlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        return COMMANDS[args.command].run(args)
    except UsageError as error:
        print(f"ctxlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except SystemExit:
        raise
    except BaseException as error:  # a bug: one clear line, and the details on request
        if os.environ.get("CTXLINT_DEBUG"):
            raise
        print(f"ctxlint: internal error: {type(error).__name__}: {error} "
              "(set CTXLINT_DEBUG=1 for a traceback, and please report it)", file=sys.stderr)
        return EXIT_ERROR

