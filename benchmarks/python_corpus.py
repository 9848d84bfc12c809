"""The Python front-end on the development corpus: its speed, and the requests it finds per framework.

    python benchmarks/python_corpus.py SNAPSHOTS [--repo NAME ...] [--slowest N]

SNAPSHOTS is the folder `corpus.py extract` wrote (benchmarks/corpus.yaml lists the repositories).
Every Python file `ctxlint check` would lint in a snapshot is linted in this one process, on one
core, without the cache, as `ctxlint check --confidence low --preview` does (each snapshot as a
run of its own: what the last one kept is freed before it is timed); for each file the
script times the front-end (prefilter, parse, analysis) and the rules on its result, in CPU time
of this process (on a shared machine, wall time measures the other processes too). It prints:

  - speed: Python bytes per second of the whole run (files the prefilter or the generated-code
    test skip count: skipping them cheaply is part of the speed), the slowest files, and the
    process's peak resident memory;
  - per framework of the catalogue: the sinks recognised (call sites that send a request), the
    findings at them that a plain `ctxlint check` reports, and their precision against the
    verdicts in benchmarks/judged/ (a finding is at a sink when it is on the call's lines or on
    a line of the text or tools the call sends).

Targets (issue 9): at least 500 KB/s per core, no file over 2 s, peak memory under 300 MB.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from corpus import load_verdicts, pins  # noqa: E402

from ctxlint import frontends  # noqa: E402
from ctxlint.catalogue import load_catalogue  # noqa: E402
from ctxlint.config import Settings  # noqa: E402
from ctxlint.discover import discover  # noqa: E402
from ctxlint.engine import Linter  # noqa: E402
from ctxlint.frontends.python import project as python_project  # noqa: E402
from ctxlint.model import Confidence, Finding, ParsedFile  # noqa: E402

TARGET_RATE = 500_000  # bytes per second per core
TARGET_FILE = 2.0  # seconds
TARGET_MEMORY = 300  # MB


def covered_lines(parsed: ParsedFile) -> dict[tuple[str, int], str]:
    """(path, line) -> framework, for every line a sink's request stands on."""
    lines: dict[tuple[str, int], str] = {}
    for request in parsed.requests:
        if request.framework is None:
            continue
        spans = [request.anchor, *(s.span for s in request.segments), *(t.span for t in request.tools
                                                                         if t.span is not None)]
        for span in spans:
            for line in range(span.line, (span.end_line or span.line) + 1):
                lines.setdefault((span.path, line), request.framework)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshots", type=Path)
    parser.add_argument("--repo", action="append", default=[], help="only this repository (owner/name), repeatable")
    parser.add_argument("--slowest", type=int, default=8, help="how many of the slowest files to list")
    options = parser.parse_args(argv)

    catalogue = load_catalogue()
    verdicts = load_verdicts()
    selected = [p for p in pins() if not options.repo or p.repo in options.repo or p.folder in options.repo]
    total_bytes = files = skipped = generated = 0
    front_time = rules_time = 0.0
    timings: list[tuple[float, int, str]] = []
    sinks: Counter[str] = Counter()
    # framework -> [findings reported by default, judged, judged true]
    scored: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    start_dir = Path.cwd()
    for pin in selected:
        snapshot = (options.snapshots / pin.folder).resolve()
        if not snapshot.is_dir():
            print(f"{pin.repo}: no snapshot at {snapshot}", file=sys.stderr)
            continue
        # Each repository is timed as its own run would be: the modules the last one kept are let
        # go and collected here, not by the first full collection in this one (2 to 3 s, billed to
        # whichever of its files it fell on; a run of `ctxlint check` lints one project).
        python_project._PROJECTS.clear()
        gc.collect()
        settings = Settings(root=snapshot, confidence="low", preview=True)
        linter = Linter(settings, catalogue)
        paths = [p for p in discover([snapshot], snapshot, settings.all_globs(), settings.exclude)
                 if frontends.format_for(p.relative_to(snapshot).as_posix(), settings) == "python"]
        os.chdir(snapshot)  # paths in findings are relative to the snapshot, as in the verdicts
        try:
            for path in paths:
                relpath = path.relative_to(snapshot).as_posix()
                data = path.read_bytes()
                if len(data) > settings.max_file_bytes or b"\0" in data[:8192]:
                    continue  # `ctxlint check` reads neither
                text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
                text = text.replace("\r\n", "\n").replace("\r", "\n")
                began = time.process_time()
                parsed = frontends.parse("python", text, relpath, linter.parse_context(relpath))
                parsed_at = time.process_time()
                found: list[Finding] = linter._run(parsed, text, relpath, "python")
                ended = time.process_time()
                linter.notices.clear()
                files += 1
                total_bytes += len(data)
                front_time += parsed_at - began
                rules_time += ended - parsed_at
                timings.append((ended - began, len(data), f"{pin.folder}/{relpath}"))
                if not parsed.requests and not parsed.errors:
                    skipped += 1
                generated += any(n.startswith("skipped: generated code") for n in parsed.notices)
                sinks.update(r.framework for r in parsed.requests if r.framework is not None)
                lines = covered_lines(parsed)
                for finding in found:
                    framework = lines.get((finding.span.path, finding.span.line))
                    rule = catalogue.get(finding.code)
                    default = (finding.confidence.rank >= Confidence.MEDIUM.rank and rule is not None
                               and not rule.preview)
                    if framework is None or not default:
                        continue
                    row = scored[framework]
                    row[0] += 1
                    verdict = verdicts.get((pin.repo, finding.span.path, finding.span.line, finding.code))
                    if verdict is not None:
                        row[1] += 1
                        row[2] += verdict["verdict"] == "true"
        finally:
            os.chdir(start_dir)

    elapsed = front_time + rules_time
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux
    rate = total_bytes / elapsed if elapsed else 0.0
    print(f"Python files: {files:,} ({total_bytes / 1e6:.1f} MB) in {len(selected)} repositories; "
          f"{skipped:,} gave no request ({generated:,} skipped as generated code)")
    print(f"time: front-end {front_time:.1f} s, rules {rules_time:.1f} s, total {elapsed:.1f} s")
    print(f"speed: {rate / 1000:,.0f} KB/s on one core (target {TARGET_RATE // 1000} KB/s)")
    slow = sorted(timings, reverse=True)
    over = [t for t in slow if t[0] > TARGET_FILE]
    print(f"slowest file: {slow[0][0]:.2f} s; files over {TARGET_FILE:.0f} s: {len(over)}" if slow else "no files")
    for seconds, size, name in slow[: options.slowest]:
        print(f"  {seconds:6.2f} s {size / 1000:8.0f} KB  {name}")
    print(f"peak memory (resident): {peak:.0f} MB (target under {TARGET_MEMORY} MB)")

    print("\nSinks recognised per framework, and the findings at them a plain `ctxlint check` reports")
    print(f"  {'framework':<16} {'sinks':>6} {'findings':>9} {'judged':>7} {'true':>5} {'precision':>10}")
    for framework in sorted(set(sinks) | set(scored), key=lambda f: (-sinks[f], f)):
        reported, judged, true = scored[framework]
        precision = f"{true / judged:.0%}" if judged else "-"
        print(f"  {framework:<16} {sinks[framework]:>6} {reported:>9} {judged:>7} {true:>5} {precision:>10}")
    totals = [sum(r[i] for r in scored.values()) for i in range(3)]
    precision = f"{totals[2] / totals[1]:.0%}" if totals[1] else "-"
    print(f"  {'all':<16} {sum(sinks.values()):>6} {totals[0]:>9} {totals[1]:>7} {totals[2]:>5} {precision:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
