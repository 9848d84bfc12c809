"""What every subcommand shares: exit codes, usage errors, the project a run works in, and
writing a report."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxlint.project import Project
    from ctxlint.results import Notice

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
STDIN = "-"


class UsageError(Exception):
    """Anything the user must fix before ctxlint can run: exit code 2."""


def codes(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", action="append", default=[], metavar="FILE | KEY=VALUE",
                        help="use this pyproject.toml or ctxlint.toml for every file instead of the closest "
                             "one; or override one setting with a TOML assignment, e.g. "
                             "--config 'fail-level = \"error\"' (repeatable)")


def add_output_options(parser: argparse.ArgumentParser, formats: Sequence[str], help: str,
                       cache: str | None = None) -> None:
    """The options every subcommand takes alike, as ruff's do: ``--output-format`` (``--format``
    too), ``-o/--output-file`` and ``--no-cache``. ``cache`` says what --no-cache turns off (None:
    the subcommand keeps no cache)."""
    parser.add_argument("--output-format", "--format", dest="output_format", choices=formats, default=formats[0],
                        help=help)
    parser.add_argument("-o", "--output-file", "--output", dest="output_file", type=Path, metavar="FILE",
                        help="write the report to FILE instead of stdout")
    parser.add_argument("--no-cache", action="store_true",
                        help=cache or "accepted for scripts that pass it to every subcommand; this one keeps no cache")


def add_listing_options(parser: argparse.ArgumentParser) -> None:
    """The options of the commands that list what ctxlint knows (`rule`, `models`): the
    configuration, and the listing as text (the default) or json."""
    add_config_option(parser)
    add_output_options(parser, ("text", "json"), "text (the default) or json")


def write_listing(args: argparse.Namespace, as_text: Callable[..., str], as_json: Callable[..., str],
                  *values: object) -> int:
    """Write a listing of ``values`` in the format asked for; a listing always exits clean."""
    write_report((as_json if args.output_format == "json" else as_text)(*values), args.output_file)
    return EXIT_CLEAN


def load_project(args: argparse.Namespace, flags: Sequence[tuple[str, str, object]] = ()) -> Project:
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


def use_color(stream) -> bool:
    """Colour on a terminal; NO_COLOR (any value) turns it off, FORCE_COLOR turns it on."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream.isatty() and os.environ.get("TERM") != "dumb"


def report_internal_errors(errors) -> bool:
    """Print each file ctxlint failed on (a bug, never a finding); whether there were any."""
    sys.stdout.flush()
    for error in errors:
        print(f"ctxlint: internal error on {error.path}: {error.cause}. This is a bug in ctxlint, not "
              "in the file; the file was not checked. Please report it with the file "
              "(CTXLINT_DEBUG=1 shows the traceback).", file=sys.stderr)
    return bool(errors)


def write_report(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{output}: cannot write the report: {error.strerror or error}") from None


def common_directory(paths: list[str]) -> Path:
    """The deepest directory holding every path (order-independent)."""
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    common = Path(os.path.commonpath(absolute))
    return common if common.is_dir() or not common.exists() else common.parent


def show_files(files: Sequence[tuple[Path, object]] | Sequence[Path], notices: Sequence[tuple[Path, str]]) -> int:
    """``--show-files``: the files a run would read, one per line (relative to the working
    directory, sorted), and what was passed over on stderr."""
    from ctxlint.results import display_path

    for path, message in notices:
        print(f"{display_path(path)}: {message}", file=sys.stderr)
    paths = [entry[0] if isinstance(entry, tuple) else entry for entry in files]
    sys.stdout.write("".join(f"{display_path(path)}\n" for path in sorted(paths, key=display_path)))
    return EXIT_CLEAN


def unread_named(notices: Sequence[Notice], paths: Sequence[str]) -> list[Notice]:
    """The notices of files named on the command line (not found by walking a directory) that
    could not be read: a skip is not a pass."""
    from ctxlint.results import display_path

    named = {display_path(Path(os.path.abspath(p))) for p in paths if p != STDIN and not os.path.isdir(p)}
    return [n for n in notices if n.unread and n.path in named]


def report_unread(unread: Sequence[Notice]) -> bool:
    """Print each file that was named but not read, with the reason; whether there were any."""
    sys.stdout.flush()
    for notice in unread:
        print(f"ctxlint: error: {notice.path} was not read: {notice.message.removeprefix('skipped: ')}",
              file=sys.stderr)
    return bool(unread)


def wrap_width(output_file: Path | None) -> int:
    """The columns text findings wrap to: the terminal's (or ``COLUMNS``); 0, no wrapping, when
    they go to a pipe or a file, so each finding's first line stays whole for grep and editors."""
    if "COLUMNS" in os.environ or (output_file is None and sys.stdout.isatty()):
        return terminal_width(output_file)
    return 0


def terminal_width(output_file: Path | None) -> int:
    """The columns a report may use: the terminal's (or ``COLUMNS``) when it goes to stdout,
    else 100; never fewer than 60."""
    import shutil

    if output_file is not None and "COLUMNS" not in os.environ:
        return 100
    return max(60, shutil.get_terminal_size((100, 24)).columns)
