"""`ctxlint cost`: the token and price report, the what-if audit and the pull-request gate."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from ctxlint.cli.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    UsageError,
    add_config_option,
    add_output_options,
    codes,
    common_directory,
    load_project,
    report_internal_errors,
    report_unread,
    show_files,
    terminal_width,
    unread_named,
    write_report,
)

COST_FORMATS = ("table", "json", "markdown", "html")


def add_parser(commands) -> None:
    cost = commands.add_parser("cost", help="token and price report per file, request and tool; a budget gate",
                               description=(
        "Count what each request sends before any variable content: tokens per request and per tool, "
        "model, share of the window, what prompt caching saves where it applies, and the price of "
        "1,000 calls (input first, output apart). With --model A,B, price the same requests on each "
        "model side by side. With --compare, report what changed against a git revision. Exit 1 when "
        "a limit is crossed "
        "(--max-increase, [tool.ctxlint.cost] in the config), 2 on usage, git or configuration errors."))
    cost.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories (default: .)")
    add_config_option(cost)
    add_output_options(cost, COST_FORMATS, "table (terminal), json, markdown (a pull-request comment) or html "
                                           "(one page with a chart)")
    cost.add_argument("--compare", metavar="GIT_REF",
                      help="also read PATHS at this git revision (without touching the working tree) "
                           "and report the changes")
    cost.add_argument("--max-increase", metavar="N|N%",
                      help="with --compare: exit 1 when the input tokens of all requests grow by more than N "
                           "tokens or N percent of the baseline")
    cost.add_argument("--model", type=codes, metavar="MODELS",
                      help="price every request on these models instead of its own, side by side "
                           "(comma-separated, e.g. gpt-4o,claude-sonnet-4-5,gemini-2.5-pro)")
    cost.add_argument("--include-set-aside", action="store_true", default=None,
                      help="count test data, fixtures and templates that are not prompts in the totals")
    cost.add_argument("--show-files", action="store_true",
                      help="print the files that would be priced, one per line, and exit")


def run(args: argparse.Namespace) -> int:
    from ctxlint.catalogue import CatalogueError, SelectionError
    from ctxlint.config import ConfigError
    from ctxlint.cost import Increase, build_report
    from ctxlint.discover import DiscoveryError, discover
    from ctxlint.git import GitError
    from ctxlint.results import Notice

    increase = None
    if args.max_increase is not None:
        if args.compare is None:
            raise UsageError("--max-increase needs --compare GIT_REF: the increase is measured against that revision")
        try:
            increase = Increase.parse(args.max_increase)
        except ValueError as error:
            raise UsageError(str(error)) from None
    project = load_project(args, [("--include-set-aside", "cost", {"include-set-aside": True}
                               if args.include_set_aside else None)])
    what_if = list(dict.fromkeys(args.model or ()))
    if args.model is not None and not what_if:
        raise UsageError("--model needs at least one model name, e.g. --model gpt-4o,claude-sonnet-4-5")
    found: list[tuple[Path, str]] = []
    try:
        # One report, one configuration: the one that applies where the paths meet.
        settings = project.settings_for(common_directory(args.paths))
        linter = project.linter(settings)
        files = discover(args.paths, settings.root, settings.all_globs(), settings.exclude, found)
        if args.show_files:
            return show_files(files, found + project.resolver.notices)
        report = build_report(linter, files, args.paths, args.compare, increase, what_if=what_if)
    except (SelectionError, CatalogueError, ConfigError, DiscoveryError, GitError) as error:
        raise UsageError(str(error)) from None
    found += project.resolver.notices
    notices = sorted([*report.notices, *(Notice.of(p, m) for p, m in found)], key=lambda n: n.path)
    # A file named on the command line that was not read, or any file that cannot be read, is an
    # error: the report would price less than the change sends.
    named = unread_named(notices, args.paths)
    unread = [n for n in notices if n in named or n.unread and "cannot read" in n.message]
    for notice in notices:
        if notice not in unread:
            print(f"{notice.path}: {notice.message}", file=sys.stderr)
    # One module per format (ctxlint/report/cost_table.py ...), imported only when asked for.
    module = importlib.import_module(f"ctxlint.report.cost_{args.output_format}")
    # The table fits the terminal (COLUMNS wins); in a file or a pipe, 100 columns.
    text = module.render(report, terminal_width(args.output_file)) if args.output_format == "table" \
        else module.render(report)
    write_report(text, args.output_file)
    if args.output_file is not None:
        # The report went to a file: the reasons for exit 1 still belong in the log.
        for violation in report.violations:
            where = f"{violation.path}:{violation.line}: " if violation.path else ""
            print(f"{where}{violation.message}", file=sys.stderr)
    if report_internal_errors(linter.parse_errors) | report_unread(unread):
        return EXIT_ERROR
    return EXIT_FINDINGS if report.violations else EXIT_CLEAN
