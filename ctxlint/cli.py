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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint import __version__

if TYPE_CHECKING:
    from ctxlint.project import Project

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
OUTPUT_FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")
COST_FORMATS = ("table", "json", "markdown", "html")
BUDGET_FORMATS = ("text", "json", "markdown")
STDIN = "-"


class UsageError(Exception):
    """Anything the user must fix before ctxlint can run: exit code 2."""


def _codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", action="append", default=[], metavar="FILE | KEY=VALUE",
                        help="use this pyproject.toml or ctxlint.toml for every file instead of the closest "
                             "one; or override one setting with a TOML assignment, e.g. "
                             "--config 'fail-level = \"error\"' (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxlint",
        description="Lint the context LLM applications send: prompt templates, requests and tool schemas.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"ctxlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="report findings in prompt files", description=(
        "Report findings in prompt templates, request files and tool schemas. Exit 0 when clean, "
        "1 with findings, 2 on usage or configuration errors."))
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files or directories (default: .); `-` reads standard input")
    check.add_argument("--select", type=_codes, metavar="CODES",
                       help="only these rules: codes, prefixes (CTX1) or names, comma-separated")
    check.add_argument("--extend-select", type=_codes, action="extend", default=[], metavar="CODES",
                       help="also these rules, on top of the configured selection")
    check.add_argument("--ignore", type=_codes, action="extend", default=[], metavar="CODES",
                       help="skip these rules (added to the configured ignore list)")
    _add_config_option(check)
    check.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text")
    check.add_argument("-o", "--output-file", type=Path, metavar="FILE", help="write the report to FILE")
    check.add_argument("--fail-level", choices=("error", "warning", "info"),
                       help="lowest severity that makes the exit code 1 (default: warning)")
    check.add_argument("--confidence", choices=("high", "medium", "low"),
                       help="least confidence a finding needs to be reported (default: medium; low adds "
                            "findings whose only evidence is a variable's name)")
    check.add_argument("--preview", action="store_true", default=None,
                       help="also run preview rules (below the precision bar of the default set)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--statistics", action="store_true", help="show counts per rule instead of findings")
    check.add_argument("-q", "--quiet", action="store_true",
                       help="print the findings and nothing else (no summary, no notices)")
    check.add_argument("--fix", action="store_true", help="apply the available fixes, then report what is left")
    check.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff without writing; exit 1 if there are any")
    check.add_argument("--stdin-filename", metavar="NAME",
                       help="lint standard input as if it were the file NAME (its format and configuration)")
    check.add_argument("--show-settings", action="store_true",
                       help="print the settings that apply to PATH (one file or directory) and exit")
    check.add_argument("--write-baseline", type=Path, metavar="FILE",
                       help="record today's findings in FILE (exit 0); "
                            "later runs with --baseline FILE report only new ones")
    check.add_argument("--baseline", type=Path, metavar="FILE",
                       help="leave out findings recorded in FILE by --write-baseline")
    check.add_argument("--changed-since", metavar="GIT_REF",
                       help="report only findings on lines changed since this git revision (working tree included)")
    check.add_argument("--no-cache", action="store_true",
                       help="neither read nor write the result cache (.ctxlint_cache/)")

    cost = commands.add_parser("cost", help="token and price report per file, request and tool; a budget gate",
                               description=(
        "Count what each request sends before any variable content: tokens per request and per tool, "
        "model, share of the window, what prompt caching saves where it applies, and the price of "
        "1,000 calls (input first, output apart). With --model A,B, price the same requests on each "
        "model side by side. With --compare, report what changed against a git revision. Exit 1 when "
        "a limit is crossed "
        "(--max-increase, [tool.ctxlint.cost] in the config), 2 on usage, git or configuration errors."))
    cost.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories (default: .)")
    _add_config_option(cost)
    cost.add_argument("--format", choices=COST_FORMATS, default="table",
                      help="table (terminal), json, markdown (a pull-request comment) or html (one page with a chart)")
    cost.add_argument("--output", "--output-file", "-o", type=Path, metavar="FILE",
                      help="write the report to FILE instead of stdout")
    cost.add_argument("--compare", metavar="GIT_REF",
                      help="also read PATHS at this git revision (without touching the working tree) "
                           "and report the changes")
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
    _add_config_option(budget)

    rule = commands.add_parser("rule", help="explain a rule, or list the catalogue")
    rule.add_argument("code", nargs="?", metavar="CODE", help="a rule code or name; omit to list all rules")
    _add_config_option(rule)
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
    except SystemExit:
        raise
    except BaseException as error:  # a bug: one clear line, and the details on request
        if os.environ.get("CTXLINT_DEBUG"):
            raise
        print(f"ctxlint: internal error: {type(error).__name__}: {error} "
              "(set CTXLINT_DEBUG=1 for a traceback, and please report it)", file=sys.stderr)
        return EXIT_ERROR


def _project(args: argparse.Namespace, flags: Sequence[tuple[str, str, object]] = ()) -> Project:
    """The run's project: the explicit config file, and every override (``--config KEY=VALUE``,
    then options such as ``--select``) as layers over each configuration."""
    from ctxlint.catalogue import CatalogueError
    from ctxlint.config import ConfigError, flag_layer, override_layer
    from ctxlint.project import Project

    explicit: Path | None = None
    overrides = []
    try:
        for value in args.config:
            if "=" in value and not Path(value).is_file():
                overrides.append(override_layer(value))
            elif not Path(value).is_file():
                raise UsageError(f"{value}: config file not found")
            elif explicit is not None:
                raise UsageError(f"--config {value}: only one configuration file can be given "
                                 f"({explicit} already is); override single keys with --config KEY=VALUE")
            else:
                explicit = Path(value)
        overrides += [flag_layer(option, key, value) for option, key, value in flags if value]
        return Project(Path.cwd(), explicit, overrides)
    except (ConfigError, CatalogueError) as error:
        raise UsageError(str(error)) from None


def _check_flags(args: argparse.Namespace) -> list[tuple[str, str, object]]:
    return [
        ("--select", "select", args.select),
        ("--extend-select", "extend-select", args.extend_select),
        ("--ignore", "extend-ignore", args.ignore),
        ("--confidence", "confidence", args.confidence),
        ("--preview", "preview", args.preview),
    ]


def _use_color(stream) -> bool:
    """Colour on a terminal; NO_COLOR (any value) turns it off, FORCE_COLOR turns it on."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty() and os.environ.get("TERM") != "dumb"


def run_check(args: argparse.Namespace) -> int:
    from ctxlint.catalogue import CatalogueError, SelectionError
    from ctxlint.config import ConfigError
    from ctxlint.discover import DiscoveryError
    from ctxlint.engine import lint_all
    from ctxlint.model import Severity
    from ctxlint.report import ReportOptions, reporter
    from ctxlint.report.text import statistics
    from ctxlint.results import Notice

    paths = args.paths or ([STDIN] if args.stdin_filename else ["."])
    reading_stdin = STDIN in paths
    if reading_stdin and len(paths) > 1:
        raise UsageError("`-` (standard input) cannot be combined with other paths")
    project = _project(args, _check_flags(args))
    if args.show_settings:
        return _show_settings(project, paths, args.stdin_filename)
    found: list[tuple[Path, str]] = []
    cache = None if args.no_cache or reading_stdin else _cache(project)
    try:
        known = _read_baseline(args.baseline) if args.baseline else None
        changes = _changes(args.changed_since) if args.changed_since else None
        if reading_stdin:
            result, stdin_settings = _lint_stdin(project, args)
            settings_by_path = {result_path: stdin_settings for result_path in _paths_of(result)}
        else:
            files = project.files(paths, found)
            if changes is not None:  # files nobody touched cannot have a finding on a changed line
                files = [(path, settings) for path, settings in files if os.path.realpath(path) in changes]
            work = [(path, project.linter(settings)) for path, settings in files]
            result = lint_all(work, cache=cache)
            settings_by_path = {_display(path): settings for path, settings in files}
    except (DiscoveryError, SelectionError, ConfigError, CatalogueError) as error:
        raise UsageError(str(error)) from None
    result.notices += [Notice(_display(path), message) for path, message in found]
    result.notices.sort(key=lambda n: n.path)

    if reading_stdin and (args.fix or args.diff):
        return _fix_stdin(result, args)
    if args.diff:
        code = _show_diff(result)
        return EXIT_ERROR if _internal_errors(result.errors) else code
    if args.fix and _apply_fixes(result):
        work = [(Path(path), project.linter(settings)) for path, settings in settings_by_path.items()]
        fixed = lint_all([(p, linter) for p, linter in work if p.exists()], cache=cache)
        fixed.notices = result.notices
        result = fixed  # report what the fixes left
    if cache is not None:
        cache.save()

    fingerprints = {}
    if args.baseline or args.write_baseline or args.output_format in ("sarif", "gitlab"):
        fingerprinter = _fingerprinter(args)
        fingerprints = fingerprinter.fingerprints(result.findings)
    if args.write_baseline:
        code = _write_baseline(args, fingerprints, fingerprinter)
        return EXIT_ERROR if _internal_errors(result.errors) else code
    if changes is not None:
        from ctxlint.changes import touches

        result.findings = [f for f in result.findings if touches(changes, f.span.path, f.span.line, f.span.end_line)]
    if known is not None:
        kept = [f for f in result.findings if fingerprints[f] not in known]
        result.baselined = len(result.findings) - len(kept)
        result.findings = kept

    if not args.quiet:
        for notice in result.notices:
            print(f"{notice.path}: {notice.message}", file=sys.stderr)
        if result.files_checked == 0 and changes is None:
            print("ctxlint: warning: no file was linted: the paths given hold no file of a format ctxlint "
                  "reads (see `include` and `exclude`)", file=sys.stderr)

    out = sys.stdout if args.output_file is None else None
    options = ReportOptions(color=out is not None and args.output_format == "text" and _use_color(out),
                            statistics=args.statistics, quiet=args.quiet, fingerprints=fingerprints)
    catalogue = project.merged_catalogue()
    text = reporter(args.output_format)(result, catalogue, options)
    _write(text, args.output_file)
    if args.statistics and args.output_format in ("github", "gitlab", "junit") and not args.quiet:
        # These formats have no place for counts: they go to the log.
        sys.stderr.write(statistics(result))

    if _internal_errors(result.errors):
        return EXIT_ERROR  # whatever --exit-zero says: a file was not checked

    def fails(finding) -> bool:
        settings = settings_by_path.get(finding.span.path)
        level = args.fail_level or (settings.fail_level if settings else project.resolver.default.fail_level)
        return finding.severity.rank >= Severity(level).rank

    failing = any(fails(f) for f in result.findings)
    return EXIT_FINDINGS if failing and not args.exit_zero else EXIT_CLEAN


def _internal_errors(errors) -> bool:
    """Print each file ctxlint failed on (a bug, never a finding); whether there were any."""
    sys.stdout.flush()
    for error in errors:
        print(f"ctxlint: internal error on {error.path}: {error.cause}. This is a bug in ctxlint, not "
              "in the file; the file was not checked. Please report it with the file "
              "(CTXLINT_DEBUG=1 shows the traceback).", file=sys.stderr)
    return bool(errors)


def _cache(project):
    """The result cache: CTXLINT_CACHE_DIR, else .ctxlint_cache/ where the working directory's
    configuration is (or in the working directory)."""
    from ctxlint.cache import DIRECTORY, ENVIRONMENT, ResultCache

    configured = os.environ.get(ENVIRONMENT)
    return ResultCache(Path(configured) if configured else project.resolver.default.root / DIRECTORY)


def _read_baseline(path: Path) -> frozenset[str]:
    from ctxlint.baseline import BaselineError, read

    try:
        return read(path)
    except BaselineError as error:
        raise UsageError(str(error)) from None


def _changes(ref: str):
    """The lines changed since ``ref`` (imported only when asked: git and the cost module)."""
    from ctxlint.changes import changed_lines
    from ctxlint.git import GitError

    try:
        return changed_lines(ref, Path.cwd())
    except GitError as error:
        raise UsageError(str(error)) from None


def _fingerprinter(args: argparse.Namespace):
    from ctxlint.baseline import Fingerprinter, project_root

    sources = {}
    if getattr(args, "stdin_data", None) is not None:
        sources[args.stdin_filename] = args.stdin_data.decode("utf-8", errors="replace")
    return Fingerprinter(project_root(Path.cwd()), sources)


def _write_baseline(args: argparse.Namespace, fingerprints, fingerprinter) -> int:
    """`--write-baseline FILE`: record today's findings; later runs with `--baseline FILE` report
    only new ones. Nothing else is printed: the file is the result."""
    from ctxlint.baseline import BaselineError, write

    try:
        write(args.write_baseline, fingerprints, fingerprinter)
    except BaselineError as error:
        raise UsageError(str(error)) from None
    if not args.quiet:
        count = len(fingerprints)
        print(f"Wrote {count} finding{'s' if count != 1 else ''} to {args.write_baseline}.", file=sys.stderr)
    return EXIT_CLEAN


def _paths_of(result) -> set[str]:
    return {f.span.path for f in result.findings}


def _display(path: Path) -> str:
    from ctxlint.results import display_path

    return display_path(path)


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{output}: cannot write the report: {error.strerror or error}") from None


def _lint_stdin(project, args: argparse.Namespace):
    """Lint standard input as the file ``--stdin-filename`` (format, configuration, ignores)."""
    from ctxlint import frontends
    from ctxlint.results import LintResult, relative_path

    name = args.stdin_filename
    if name is None:
        raise UsageError("reading standard input (`-`) needs --stdin-filename NAME: the name says its "
                         "format (a .j2 template, a .prompty file, ...) and which configuration applies")
    where = Path(os.path.abspath(name))
    settings = project.settings_for(where.parent)
    linter = project.linter(settings)
    relpath = relative_path(where, settings.root.resolve())
    fmt = frontends.format_for(relpath, settings)
    result = LintResult()
    data = sys.stdin.buffer.read()
    if fmt is not None:
        result.files_checked = 1
        result.findings = sorted(linter.lint_bytes(data, name, relpath, fmt),
                                 key=lambda f: (f.span.line, f.span.column, f.code))
    args.stdin_data = data
    return result, settings


def _fix_stdin(result, args: argparse.Namespace) -> int:
    """`--fix` or `--diff` on standard input: the fixed text (or the diff) goes to stdout, the
    findings left to stderr."""
    import difflib

    from ctxlint.fix import Unfixable, plan_text

    original = args.stdin_data.decode("utf-8", errors="surrogateescape")
    try:
        planned = plan_text(Path(args.stdin_filename), original, result.findings)
    except Unfixable as reason:
        print(f"{args.stdin_filename}: {reason}", file=sys.stderr)
        planned = None
    fixed = planned.fixed if planned is not None else original
    if args.diff:
        name = Path(args.stdin_filename).as_posix()
        sys.stdout.writelines(difflib.unified_diff(original.splitlines(keepends=True), fixed.splitlines(keepends=True),
                                                   fromfile=f"a/{name}", tofile=f"b/{name}"))
        return EXIT_FINDINGS if fixed != original else EXIT_CLEAN
    sys.stdout.write(fixed)
    left = [f for f in result.findings if planned is None or f.fix is None]
    for f in left:
        print(f"{f.span.path}:{f.span.line}:{f.span.column}: {f.code} {' '.join(f.message.split())}", file=sys.stderr)
    return EXIT_FINDINGS if left and not args.exit_zero else EXIT_CLEAN


def _show_settings(project, paths: list[str], stdin_filename: str | None) -> int:
    """`check --show-settings PATH`: the configuration files, the root and every resolved key."""
    from ctxlint import frontends
    from ctxlint.config import dump_toml, settings_table
    from ctxlint.results import relative_path

    target = stdin_filename if paths == [STDIN] else (paths[0] if len(paths) == 1 else None)
    if target is None:
        raise UsageError("--show-settings takes one path: the file or directory whose settings to print")
    where = Path(os.path.abspath(target))
    if not where.exists() and target != stdin_filename:
        raise UsageError(f"{target}: no such file or directory")
    settings = project.settings_for(where)
    linter = project.linter(settings)
    lines = [f"# Settings for {target}"]
    if settings.sources:
        extended = settings.sources[1:]
        chain = " (extends " + ", ".join(str(p) for p in extended) + ")" if extended else ""
        lines.append(f"# configuration: {settings.sources[0]}{chain}")
    else:
        lines.append("# configuration: none found; the defaults")
    lines.append(f"# globs are relative to: {settings.root}")
    if not where.is_dir():
        fmt = frontends.format_for(relative_path(where, settings.root.resolve()), settings)
        lines.append(f"# format: {fmt or 'none (this file is not linted)'}")
    lines.append(f"# rules run: {', '.join(rule.code for rule in linter.rules) or 'none'}")
    table = settings_table(settings)
    # Rules as they run: every option and severity the configuration changed, with its full value.
    defaults = project.catalogue(settings)
    table["rules"] = {}
    for code, rule in linter.catalogue.items():
        changed = {key: value for key, value in rule.options.items() if defaults[code].options.get(key) != value}
        if rule.severity != defaults[code].severity:
            changed = {"severity": rule.severity.value, **changed}
        if changed:
            table["rules"][code] = changed
    sys.stdout.write("\n".join(lines) + "\n\n" + dump_toml(table) + "\n")
    return EXIT_CLEAN


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
    project = _project(args, [("--include-set-aside", "cost", {"include-set-aside": True}
                               if args.include_set_aside else None)])
    what_if = list(dict.fromkeys(args.model or ()))
    if args.model is not None and not what_if:
        raise UsageError("--model needs at least one model name, e.g. --model gpt-4o,claude-sonnet-4-5")
    found: list[tuple[Path, str]] = []
    try:
        # One report, one configuration: the one that applies where the paths meet.
        settings = project.settings_for(_common_directory(args.paths))
        linter = project.linter(settings)
        files = discover(args.paths, settings.root, settings.all_globs(), settings.exclude, found)
        report = build_report(linter, files, args.paths, args.compare, increase, what_if=what_if)
    except (SelectionError, CatalogueError, ConfigError, DiscoveryError, GitError) as error:
        raise UsageError(str(error)) from None
    notices = sorted([*report.notices, *(Notice(_display(p), m) for p, m in found)], key=lambda n: n.path)
    for notice in notices:
        print(f"{notice.path}: {notice.message}", file=sys.stderr)
    # One module per format (ctxlint/report/cost_table.py ...), imported only when asked for.
    text = importlib.import_module(f"ctxlint.report.cost_{args.format}").render(report)
    _write(text, args.output)
    if args.output is not None:
        # The report went to a file: the reasons for exit 1 still belong in the log.
        for violation in report.violations:
            where = f"{violation.path}:{violation.line}: " if violation.path else ""
            print(f"{where}{violation.message}", file=sys.stderr)
    if _internal_errors(linter.parse_errors):
        return EXIT_ERROR
    return EXIT_FINDINGS if report.violations else EXIT_CLEAN


def run_budget(args: argparse.Namespace) -> int:
    from ctxlint.budget.command import BudgetError, run
    from ctxlint.catalogue import CatalogueError
    from ctxlint.config import ConfigError

    project = _project(args)
    try:
        settings = project.settings_for(args.prompt)
        catalogue = project.catalogue(settings)
        text, failed = run(args, settings, catalogue)
    except (BudgetError, ConfigError, CatalogueError) as error:
        raise UsageError(str(error)) from None
    _write(text, args.output)
    return EXIT_FINDINGS if failed else EXIT_CLEAN


def _common_directory(paths: list[str]) -> Path:
    """The deepest directory holding every path (order-independent)."""
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    common = Path(os.path.commonpath(absolute))
    return common if common.is_dir() or not common.exists() else common.parent


def run_rule(args: argparse.Namespace) -> int:
    from ctxlint.catalogue import CatalogueError, find_rule
    from ctxlint.report.rules import describe, listing

    project = _project(args)
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


if __name__ == "__main__":
    sys.exit(main())
