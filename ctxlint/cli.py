"""The command line: `ctxlint check`, `ctxlint cost`, `ctxlint budget`, `ctxlint rule`.

Exit codes: 0 no finding at or above the fail level, 1 findings, 2 usage, configuration or
internal error. Errors go to stderr as one line; a traceback is a bug (set CTXLINT_DEBUG=1 to
see one).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from ctxlint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
OUTPUT_FORMATS = ("text", "json", "sarif", "github")
COST_FORMATS = ("table", "json", "markdown", "html")
BUDGET_FORMATS = ("text", "json", "markdown")


class UsageError(Exception):
    """Anything the user must fix before ctxlint can run: exit code 2."""


def _codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxlint",
        description="Lint the context LLM applications send: prompt templates, requests and tool schemas.",
    )
    parser.add_argument("--version", action="version", version=f"ctxlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="report findings in prompt files", description=(
        "Report findings in prompt templates, request files and tool schemas. Exit 0 when clean, "
        "1 with findings, 2 on usage or configuration errors."))
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories (default: .)")
    check.add_argument("--select", type=_codes, action="extend", metavar="CODES",
                       help="only these rules: codes, prefixes (CTX1) or names, comma-separated")
    check.add_argument("--ignore", type=_codes, action="extend", default=[], metavar="CODES",
                       help="skip these rules (added to the configured ignore list)")
    check.add_argument("--config", type=Path, metavar="FILE",
                       help="use this pyproject.toml or ctxlint.toml instead of searching for one")
    check.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text")
    check.add_argument("--fail-level", choices=("error", "warning", "info"),
                       help="lowest severity that makes the exit code 1 (default: warning)")
    check.add_argument("--confidence", choices=("high", "medium", "low"),
                       help="least confidence a finding needs to be reported (default: medium; low adds "
                            "findings whose only evidence is a variable's name)")
    check.add_argument("--preview", action="store_true", default=None,
                       help="also run preview rules (below the precision bar of the default set)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--statistics", action="store_true", help="show counts per rule instead of findings")
    check.add_argument("--fix", action="store_true", help="apply the available fixes, then report what is left")
    check.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff without writing; exit 1 if there are any")

    cost = commands.add_parser("cost", help="token and price report per file, request and tool; a budget gate",
                               description=(
        "Count what each request sends before any variable content: tokens per request and per tool, "
        "model, share of the window, what prompt caching saves where it applies, and the price of "
        "1,000 calls (input first, output apart). With --model A,B, price the same requests on each "
        "model side by side. With --compare, report what changed against a git revision. Exit 1 when "
        "a limit is crossed "
        "(--max-increase, [tool.ctxlint.cost] in the config), 2 on usage, git or configuration errors."))
    cost.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories (default: .)")
    cost.add_argument("--config", type=Path, metavar="FILE",
                      help="use this pyproject.toml or ctxlint.toml instead of searching for one")
    cost.add_argument("--format", choices=COST_FORMATS, default="table",
                      help="table (terminal), json, markdown (a pull-request comment) or html (one page with a chart)")
    cost.add_argument("--output", "-o", type=Path, metavar="FILE", help="write the report to FILE instead of stdout")
    cost.add_argument("--compare", metavar="GIT_REF",
                      help="also read PATHS at this git revision (without touching the working tree) and report the changes")
    cost.add_argument("--max-increase", metavar="N|N%",
                      help="with --compare: exit 1 when the input tokens of all requests grow by more than N "
                           "tokens or N percent of the baseline")
    cost.add_argument("--model", type=_codes, metavar="MODELS",
                      help="price every request on these models instead of its own, side by side "
                           "(comma-separated, e.g. gpt-4o,claude-sonnet-4-5,gemini-2.5-pro)")
    cost.add_argument("--include-set-aside", action="store_true", default=None,
                      help="count test data, fixtures and templates that are not prompts in the totals")

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
    budget.add_argument("--format", choices=BUDGET_FORMATS, default="text",
                        help="text (terminal), json, or markdown (a pull-request comment)")
    budget.add_argument("--output", "-o", type=Path, metavar="FILE", help="write the report to FILE instead of stdout")
    budget.add_argument("--config", type=Path, metavar="FILE",
                        help="use this pyproject.toml or ctxlint.toml instead of searching for one")

    rule = commands.add_parser("rule", help="explain a rule, or list the catalogue")
    rule.add_argument("code", nargs="?", metavar="CODE", help="a rule code or name; omit to list all rules")
    rule.add_argument("--config", type=Path, metavar="FILE", help="include rule packs from this config")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        if args.command == "check":
            return run_check(args)
        if args.command == "cost":
            return run_cost(args)
        if args.command == "budget":
            return run_budget(args)
        return run_rule(args)
    except UsageError as error:
        print(f"ctxlint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug: one clear line, and the details on request
        if os.environ.get("CTXLINT_DEBUG"):
            raise
        print(f"ctxlint: internal error: {type(error).__name__}: {error} "
              "(set CTXLINT_DEBUG=1 for a traceback, and please report it)", file=sys.stderr)
        return EXIT_ERROR


def _settings_and_catalogue(config: Path | None, paths: list[str]):
    from ctxlint.catalogue import CatalogueError, load_catalogue
    from ctxlint.config import ConfigError, find_config, load_settings

    if config is not None and not config.is_file():
        raise UsageError(f"{config}: config file not found")
    start = Path(paths[0]) if paths else Path.cwd()
    path = config or find_config(start.resolve() if start.exists() else Path.cwd())
    try:
        settings = load_settings(path, root=path.parent if path else Path.cwd())
        catalogue = load_catalogue(settings.rule_packs)
    except (ConfigError, CatalogueError) as error:
        raise UsageError(str(error)) from None
    return settings, catalogue


def run_check(args: argparse.Namespace) -> int:
    from ctxlint.catalogue import CatalogueError
    from ctxlint.discover import DiscoveryError, discover
    from ctxlint.engine import Linter, SelectionError
    from ctxlint.report import reporter
    from ctxlint.report.text import statistics, summary

    settings, catalogue = _settings_and_catalogue(args.config, args.paths)
    if args.confidence:
        settings.confidence = args.confidence
    if args.preview:
        settings.preview = True
    try:
        linter = Linter(settings, catalogue, select=args.select, ignore=args.ignore)
        files = discover(args.paths, settings.root, settings.all_globs(), settings.exclude)
    except (SelectionError, CatalogueError, DiscoveryError) as error:
        raise UsageError(str(error)) from None
    result = linter.lint_files(files)
    if args.diff:
        return _show_diff(result)
    if args.fix and _apply_fixes(result):
        result = linter.lint_files(files)  # report what the fixes left
    for notice in result.notices:
        print(f"{notice.path}: {notice.message}", file=sys.stderr)
    if args.statistics:
        sys.stdout.write(statistics(result) + summary(result) + "\n")
    else:
        sys.stdout.write(reporter(args.output_format)(result, linter.catalogue))
    from ctxlint.model import Severity

    threshold = Severity(args.fail_level or settings.fail_level).rank
    failing = any(f.severity.rank >= threshold for f in result.findings)
    return EXIT_FINDINGS if failing and not args.exit_zero else EXIT_CLEAN


def _fix_plans(result):
    """One plan per file that has fixes; files that must not be rewritten get a notice."""
    from ctxlint.fix import Unfixable, plan

    by_path: dict[str, list] = {}
    for finding in result.findings:
        by_path.setdefault(finding.span.path, []).append(finding)
    plans = []
    for path, findings in sorted(by_path.items()):
        try:
            planned = plan(Path(path), findings)
        except Unfixable as reason:
            if any(f.fix for f in findings):
                print(f"{path}: {reason}", file=sys.stderr)
            continue
        if planned is not None and planned.fixed != planned.original:
            plans.append(planned)
    return plans


def _show_diff(result) -> int:
    import difflib

    plans = _fix_plans(result)
    for planned in plans:
        sys.stdout.writelines(difflib.unified_diff(
            planned.original.splitlines(keepends=True), planned.fixed.splitlines(keepends=True),
            fromfile=f"a/{planned.path.as_posix()}", tofile=f"b/{planned.path.as_posix()}"))
    fixes = sum(p.applied for p in plans)
    print(f"{fixes} fix{'es' if fixes != 1 else ''} in {len(plans)} file{'s' if len(plans) != 1 else ''} "
          "would be applied (nothing was written).", file=sys.stderr)
    return EXIT_FINDINGS if plans else EXIT_CLEAN


def _apply_fixes(result) -> bool:
    from ctxlint.fix import write_atomic

    plans = _fix_plans(result)
    for planned in plans:
        write_atomic(planned.path, planned.fixed)
    fixes = sum(p.applied for p in plans)
    if plans:
        print(f"Fixed {fixes} finding{'s' if fixes != 1 else ''} in {len(plans)} "
              f"file{'s' if len(plans) != 1 else ''}.", file=sys.stderr)
    return bool(plans)


def run_cost(args: argparse.Namespace) -> int:
    from ctxlint.catalogue import CatalogueError
    from ctxlint.cost import GitError, Increase, build_report
    from ctxlint.discover import DiscoveryError, discover
    from ctxlint.engine import Linter, SelectionError

    increase = None
    if args.max_increase is not None:
        if args.compare is None:
            raise UsageError("--max-increase needs --compare GIT_REF: the increase is measured against that revision")
        try:
            increase = Increase.parse(args.max_increase)
        except ValueError as error:
            raise UsageError(str(error)) from None
    settings, catalogue = _settings_and_catalogue(args.config, args.paths)
    if args.include_set_aside:
        settings.include_set_aside = True
    what_if = list(dict.fromkeys(args.model or ()))
    if args.model is not None and not what_if:
        raise UsageError("--model needs at least one model name, e.g. --model gpt-4o,claude-sonnet-4-5")
    try:
        linter = Linter(settings, catalogue)
        files = discover(args.paths, settings.root, settings.all_globs(), settings.exclude)
        report = build_report(linter, files, args.paths, args.compare, increase, what_if=what_if)
    except (SelectionError, CatalogueError, DiscoveryError, GitError) as error:
        raise UsageError(str(error)) from None
    for notice in report.notices:
        print(f"{notice.path}: {notice.message}", file=sys.stderr)
    # One module per format (ctxlint/report/cost_table.py ...), imported only when asked for.
    text = importlib.import_module(f"ctxlint.report.cost_{args.format}").render(report)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"{args.output}: cannot write the report: {error.strerror or error}") from None
        # The report went to a file: the reasons for exit 1 still belong in the log.
        for violation in report.violations:
            where = f"{violation.path}:{violation.line}: " if violation.path else ""
            print(f"{where}{violation.message}", file=sys.stderr)
    return EXIT_FINDINGS if report.violations else EXIT_CLEAN


def run_budget(args: argparse.Namespace) -> int:
    from ctxlint.budget.command import BudgetError, run

    settings, catalogue = _settings_and_catalogue(args.config, [str(args.prompt)])
    try:
        text, failed = run(args, settings, catalogue)
    except BudgetError as error:
        raise UsageError(str(error)) from None
    _write(text, args.output)
    return EXIT_FINDINGS if failed else EXIT_CLEAN


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{output}: cannot write the report: {error.strerror or error}") from None


def run_rule(args: argparse.Namespace) -> int:
    from ctxlint.report.rules import describe, listing

    _, catalogue = _settings_and_catalogue(args.config, [])
    if args.code is None:
        sys.stdout.write(listing(catalogue))
        return EXIT_CLEAN
    key = args.code.strip()
    rule = catalogue.get(key.upper()) or next((r for r in catalogue.values() if r.name == key), None)
    if rule is None:
        raise UsageError(f"unknown rule `{args.code}` (run `ctxlint rule` for the catalogue)")
    sys.stdout.write(describe(rule))
    return EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
