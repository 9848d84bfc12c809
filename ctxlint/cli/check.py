"""`ctxlint check`: report findings in prompt files, with a baseline, changed lines, fixes and
standard input."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ctxlint.cli.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    STDIN,
    UsageError,
    add_config_option,
    add_output_options,
    codes,
    load_project,
    report_internal_errors,
    report_unread,
    show_files,
    unread_named,
    use_color,
    wrap_width,
    write_report,
)
from ctxlint.cli.fixes import apply_fixes, fix_stdin, show_diff
from ctxlint.results import display_path

OUTPUT_FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab", "junit")
CONFIGURED = Path()  # --write-baseline without FILE: the configuration's baseline


def add_parser(commands) -> None:
    check = commands.add_parser("check", help="report findings in prompt files", description=(
        "Report findings in prompt templates, request files and tool schemas. Exit 0 when clean, "
        "1 with findings, 2 on usage or configuration errors."))
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files or directories (default: .); `-` reads standard input")
    check.add_argument("--select", type=codes, metavar="CODES",
                       help="only these rules: codes, prefixes (CTX1) or names, comma-separated")
    check.add_argument("--extend-select", type=codes, action="extend", default=[], metavar="CODES",
                       help="also these rules, on top of the configured selection")
    check.add_argument("--ignore", type=codes, action="extend", default=[], metavar="CODES",
                       help="skip these rules (added to the configured ignore list)")
    add_config_option(check)
    add_output_options(check, OUTPUT_FORMATS, "text (the default: each finding with its source line), concise "
                       "(one line per finding), json, sarif, github, gitlab or junit",
                       cache="neither read nor write the result cache (.ctxlint_cache/)")
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
    check.add_argument("--show-files", action="store_true",
                       help="print the files that would be linted, one per line, and exit")
    check.add_argument("--write-baseline", type=Path, nargs="?", const=CONFIGURED, metavar="FILE",
                       help="record today's findings in FILE (default: the configuration's `baseline`) and "
                            "exit 0; later runs with --baseline FILE or `baseline = FILE` report only new ones")
    check.add_argument("--baseline", type=Path, metavar="FILE",
                       help="leave out findings recorded in FILE by --write-baseline (default: the "
                            "configuration's `baseline`)")
    check.add_argument("--changed-since", metavar="GIT_REF",
                       help="report only findings on lines changed since this git revision (working tree included)")


def _check_flags(args: argparse.Namespace) -> list[tuple[str, str, object]]:
    return [
        ("--select", "select", args.select),
        ("--extend-select", "extend-select", args.extend_select),
        ("--ignore", "extend-ignore", args.ignore),
        ("--confidence", "confidence", args.confidence),
        ("--preview", "preview", args.preview),
    ]


def run(args: argparse.Namespace) -> int:
    from ctxlint.catalogue import CatalogueError, SelectionError
    from ctxlint.config import ConfigError
    from ctxlint.discover import DiscoveryError
    from ctxlint.engine import lint_all
    from ctxlint.filters import RunFilters
    from ctxlint.report import ReportOptions, reporter
    from ctxlint.report.text import statistics
    from ctxlint.results import Notice

    paths = args.paths or ([STDIN] if args.stdin_filename else ["."])
    reading_stdin = STDIN in paths
    if reading_stdin and len(paths) > 1:
        raise UsageError("`-` (standard input) cannot be combined with other paths")
    project = load_project(args, _check_flags(args))
    if args.show_settings:
        return _show_settings(project, paths, args.stdin_filename)
    found: list[tuple[Path, str]] = []
    cache = None if args.no_cache or reading_stdin else _cache(project)
    _baseline_paths(args, project.resolver.default.baseline)
    try:
        if args.show_files:
            return show_files(project.files(paths, found), found + project.resolver.notices)
        filters = RunFilters(changes=_changes(args.changed_since) if args.changed_since else None,
                             known=_read_baseline(args.baseline) if args.baseline else None,
                             fail_level=args.fail_level, exit_zero=args.exit_zero)
        if not args.quiet:
            _warn_unselected(args, project)
        if reading_stdin:
            result, stdin_settings = _lint_stdin(project, args)
            settings_by_path = {result_path: stdin_settings for result_path in _paths_of(result)}
        else:
            files = filters.files(project.files(paths, found))
            work = [(path, project.linter(settings)) for path, settings in files]
            result = lint_all(work, cache=cache)
            settings_by_path = {display_path(path): settings for path, settings in files}
    except (DiscoveryError, SelectionError, ConfigError, CatalogueError) as error:
        raise UsageError(str(error)) from None
    found += project.resolver.notices
    result.notices += [Notice.of(path, message) for path, message in found]
    result.notices.sort(key=lambda n: n.path)
    unread = unread_named(result.notices, paths)

    if reading_stdin and (args.fix or args.diff):
        return fix_stdin(result, args)
    if args.diff:
        code = show_diff(result)
        return EXIT_ERROR if report_internal_errors(result.errors) else code
    if args.fix and apply_fixes(result):
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
        return EXIT_ERROR if report_internal_errors(result.errors) else code
    filters.apply(result, fingerprints.__getitem__)

    if not args.quiet:
        for notice in result.notices:
            if notice not in unread:  # an error, said once below
                print(f"{notice.path}: {notice.message}", file=sys.stderr)
        if result.files_checked == 0 and filters.changes is None and not result.skipped:
            print("ctxlint: warning: no file was linted: the paths given hold no file of a format ctxlint "
                  "reads (see `include` and `exclude`)", file=sys.stderr)

    out = sys.stdout if args.output_file is None else None
    stdin = getattr(args, "stdin_data", None)
    options = ReportOptions(color=out is not None and args.output_format in ("text", "concise") and use_color(out),
                            statistics=args.statistics, quiet=args.quiet, fingerprints=fingerprints,
                            width=wrap_width(args.output_file),
                            sources={} if stdin is None else {args.stdin_filename: stdin.decode("utf-8", "replace")})
    catalogue = project.merged_catalogue()
    text = reporter(args.output_format)(result, catalogue, options)
    write_report(text, args.output_file)
    if args.statistics and args.output_format in ("github", "gitlab", "junit") and not args.quiet:
        # These formats have no place for counts: they go to the log.
        sys.stderr.write(statistics(result))

    if report_internal_errors(result.errors) | report_unread(unread):
        return EXIT_ERROR  # whatever --exit-zero says: a file was not checked

    def fail_level(finding) -> str:
        settings = settings_by_path.get(finding.span.path)
        return settings.fail_level if settings else project.resolver.default.fail_level

    return EXIT_FINDINGS if filters.failing(result.findings, fail_level) else EXIT_CLEAN


def _warn_unselected(args: argparse.Namespace, project) -> None:
    """A warning for each ``--select`` or ``--extend-select`` entry that names only rules that
    will not run: preview rules picked by a prefix without --preview, or rules an ignore drops."""
    from ctxlint.catalogue import resolve

    settings = project.resolver.default
    linter = project.linter(settings)
    for option, selectors in (("--select", args.select or []), ("--extend-select", args.extend_select)):
        for selector in selectors:
            named = resolve([selector], linter.catalogue, option)
            if not named or named & linter.selection.codes:
                continue
            if not resolve([selector], linter.catalogue, option, preview=settings.preview):
                why = "preview rules, which run with --preview or when selected by full code or name"
            else:
                why = "rules that `ignore` (or --ignore) turns off"
            print(f"ctxlint: warning: {option} {selector} names only {why}; nothing it names will run "
                  f"({', '.join(sorted(named))})", file=sys.stderr)


def _cache(project):
    """The result cache: CTXLINT_CACHE_DIR, else .ctxlint_cache/ at the project's root (the
    nearest directory above the working one with a configuration or a .git), so a run from a
    subfolder shares it instead of starting its own."""
    from ctxlint.cache import DIRECTORY, ENVIRONMENT, ResultCache
    from ctxlint.config import project_root

    configured = os.environ.get(ENVIRONMENT)
    return ResultCache(Path(configured) if configured else project_root(project.resolver.cwd) / DIRECTORY)


def _baseline_paths(args: argparse.Namespace, configured: Path | None) -> None:
    """The baseline to read (``--baseline``, else the configuration's, unless one is being
    written) and the one to write (``--write-baseline FILE``, or the configuration's)."""
    shown = Path(display_path(configured)) if configured is not None else None
    if args.write_baseline is CONFIGURED:
        if shown is None:
            raise UsageError("--write-baseline needs a FILE, or `baseline = \"FILE\"` in the configuration")
        args.write_baseline = shown
    if args.baseline is None and args.write_baseline is None:
        args.baseline = shown


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
