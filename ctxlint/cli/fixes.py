"""`ctxlint check --fix` and `--diff`, on files and on standard input."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxlint.cli.common import EXIT_CLEAN, EXIT_FINDINGS


def fix_stdin(result, args: argparse.Namespace) -> int:
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


def show_diff(result) -> int:
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


def apply_fixes(result) -> bool:
    from ctxlint.fix import write_atomic

    plans = _fix_plans(result)
    for planned in plans:
        write_atomic(planned.path, planned.fixed)
    fixes = sum(p.applied for p in plans)
    if plans:
        print(f"Fixed {fixes} finding{'s' if fixes != 1 else ''} in {len(plans)} "
              f"file{'s' if len(plans) != 1 else ''}.", file=sys.stderr)
    return bool(plans)
