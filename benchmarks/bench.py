"""Speed of ctxlint, measured side by side with plain parsing of the same files, in one run.

    python benchmarks/bench.py [--copies N] [--repeat R]

The corpus is every prompt file under examples/ and tests/data/, copied N times into a
temporary tree. For each run the script times:

  parse    the floor: reading each file, parsing it with the library its format is built on
           (jinja2's parser, yaml.safe_load, json.loads, CPython's ast for Python) and
           tokenising its text with tiktoken (o200k_base, the default encoding, loaded before
           the timing), nothing more, in one process;
  ctxlint  the engine over the same files: front-ends, every rule, suppressions; in one
           process, then split across every core as `ctxlint check` does for large audits;

and reports the ratio ctxlint / parse (in CPU time of this process for the two one-process
lines; the line on every core is wall time, its workers' CPU is not this process's), and the
`ctxlint cost` command next to `ctxlint check` on the whole corpus tree (both use every core,
check without its result cache; cost must stay within 1.2 times check; runs of the two commands
alternate, so drift in the machine's load reaches both). Then it times commands as users run
them, each the median of several runs with its peak memory:

  start-up   `ctxlint check` on one template with a finding that reports a token count (what a
             pre-commit run over a changed template costs; --no-cache, so nothing is served from
             the result cache) next to `python -c "import jinja2, yaml"`, the libraries any
             template linter loads; and the same run with the tokenizer loaded in full, as before
             the vocabulary index (CTXLINT_TOKENIZER_CACHE=off);
  cache      `ctxlint check` over the whole corpus with an empty result cache (cold), then again
             with the cache it left (warm).

`--commands-only` times only these commands. Commands run with bytecode caching on
(PYTHONDONTWRITEBYTECODE unset) after a warm-up run, as an installed ctxlint runs. Ratios are
what to compare between commits: the absolute numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# A template whose finding reports a token count, so the run needs the tokenizer.
TEMPLATE = "examples/support_bot/system.j2"

from ctxlint.catalogue import load_catalogue  # noqa: E402
from ctxlint.config import Settings  # noqa: E402
from ctxlint.discover import discover  # noqa: E402
from ctxlint.engine import Linter  # noqa: E402
from ctxlint.frontends import format_for  # noqa: E402
from ctxlint.tokens.encodings import get_encoding  # noqa: E402

if TYPE_CHECKING:
    import tiktoken


def build_corpus(target: Path, copies: int) -> list[Path]:
    sources = [p for base in ("examples", "tests/data") for p in sorted((ROOT / base).rglob("*")) if p.is_file()]
    for copy in range(copies):
        for source in sources:
            destination = target / f"copy{copy}" / source.relative_to(ROOT)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
    settings = Settings(root=target)
    files = discover([target], target, settings.all_globs(), settings.exclude)
    return [f for f in files if format_for(f.relative_to(target).as_posix(), settings)]


def plain_encoding() -> tiktoken.Encoding:
    """o200k_base, built from the same offline data as ctxlint's but not registered with it: the
    engine timed next to the floor loads its tokenizer as a run of its own would."""
    import tiktoken

    from ctxlint.tokens.encodings import encoding_spec, load_ranks

    spec = encoding_spec("o200k_base")
    return tiktoken.Encoding("o200k_base", pat_str=spec.pat_str, mergeable_ranks=load_ranks("o200k_base"),
                             special_tokens=spec.special_tokens)


def plain_parse(files: list[Path], root: Path, encoding: tiktoken.Encoding) -> None:
    """What parsing and tokenising alone cost: the underlying parser of each format and the
    tokenizer over each file's text, no analysis."""
    import ast

    import jinja2
    import yaml

    env = jinja2.Environment()
    settings = Settings(root=root)
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        encoding.encode_ordinary(text)
        fmt = format_for(path.relative_to(root).as_posix(), settings)
        try:
            if fmt == "jinja":
                env.parse(text)
            elif fmt in ("prompty", "dotprompt"):
                parts = text.split("---", 2)
                if len(parts) == 3:
                    yaml.safe_load(parts[1])
                    env.parse(parts[2])
            elif fmt == "structured":
                json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
            elif fmt == "python":
                ast.parse(text)
        except Exception:  # malformed test data: parsing it is still the work being timed
            pass


def lint(files: list[Path], root: Path, jobs: int | None = None) -> int:
    linter = Linter(Settings(root=root), load_catalogue())
    return len(linter.lint_files(files, jobs=jobs).findings)


def timed(function, *args, repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    runs = []
    for _ in range(repeat):
        start = clock()
        function(*args)
        runs.append(clock() - start)
    return statistics.median(runs)


# Runs a command and prints its wall time, CPU time and peak memory. A small process of its own
# spawns it, so the peak is the command's: a child forked from this script would count this
# script's pages. CPU time (user + system) is printed too: on a machine shared with other work it
# is the steadier measure, while wall time is what a user waits.
_MEASURE = """
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ, file_actions=[
    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
_, _, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


@dataclass(frozen=True)
class Timing:
    wall: float  # median seconds
    cpu: float  # median seconds of user + system time
    peak: float  # MB, the largest of the runs


def command_time(args: list[str], repeat: int, env: dict[str, str],
                 before: Callable[[], None] | None = None) -> Timing:
    """A command's median wall and CPU time and peak memory, after one warm-up run. ``before``
    runs ahead of every run (to empty a cache)."""
    walls: list[float] = []
    cpus: list[float] = []
    peaks: list[float] = []
    for attempt in range(repeat + 1):
        if before is not None:
            before()
        done = subprocess.run([sys.executable, "-c", _MEASURE, *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, check=True)
        wall, cpu, peak_kb = done.stdout.split()
        if attempt:  # the first run warms bytecode and the tokenizer index
            walls.append(float(wall))
            cpus.append(float(cpu))
            peaks.append(int(peak_kb) / 1024)
    return Timing(statistics.median(walls), statistics.median(cpus), max(peaks))


def check_and_cost(tree: Path, repeat: int) -> tuple[float, float]:
    """Median wall times of `ctxlint check` and `ctxlint cost` on ``tree``, run alternately."""
    checks: list[float] = []
    costs: list[float] = []
    for _ in range(repeat):
        for args, runs in ((["check", "--exit-zero", "--no-cache"], checks), (["cost", "--format", "json"], costs)):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "ctxlint.cli", *args, str(tree)], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            runs.append(time.perf_counter() - start)
    return statistics.median(checks), statistics.median(costs)


def time_engine(files: list[Path], root: Path, repeat: int) -> tuple[float, float, float, float, float]:
    """Median seconds of plain parsing and tokenising and of the engine in one process (CPU
    time), of the engine on every core, and of the `ctxlint check` and `ctxlint cost` commands
    over the corpus (wall time)."""
    lint(files[:5], root)  # warm imports, ...
    get_encoding("o200k_base")  # ... and the tokenizer the floor is given, so both sides are timed warm
    encoding = plain_encoding()
    plain_parse(files[:5], root, encoding)
    parse_time = timed(plain_parse, files, root, encoding, repeat=repeat, clock=time.process_time)
    serial_time = timed(lint, files, root, 1, repeat=repeat, clock=time.process_time)
    lint_time = timed(lint, files, root, repeat=repeat)
    check_time, cost_time = check_and_cost(root, repeat)
    return parse_time, serial_time, lint_time, check_time, cost_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--commands-only", action="store_true",
                        help="time only the commands (start-up, result cache), not the engine against parsing")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "corpus"
        files = build_corpus(root, args.copies)
        size = sum(f.stat().st_size for f in files)
        engine = None if args.commands_only else time_engine(files, root, args.repeat)

        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["CTXLINT_TOKENIZER_CACHE"] = str(Path(tmp) / "tokenizer")
        cache = Path(tmp) / "cache"
        env["CTXLINT_CACHE_DIR"] = str(cache)
        ctxlint = [sys.executable, "-m", "ctxlint", "check"]
        repeat = args.repeat * 3
        libraries = command_time([sys.executable, "-c", "import jinja2, yaml"], repeat, env)
        startup = [
            ("python -c pass", command_time([sys.executable, "-c", "pass"], repeat, env)),
            ('python -c "import jinja2, yaml"', libraries),
            ("ctxlint check one template", command_time([*ctxlint, "--no-cache", TEMPLATE], repeat, env)),
            ("  tokenizer loaded in full", command_time([*ctxlint, "--no-cache", TEMPLATE], repeat,
                                                        {**env, "CTXLINT_TOKENIZER_CACHE": "off"})),
            ("ctxlint check examples/", command_time([*ctxlint, "--no-cache", "examples"], repeat, env)),
        ]
        cold = command_time([*ctxlint, str(root)], args.repeat, env,
                            before=lambda: shutil.rmtree(cache, ignore_errors=True))
        warm = command_time([*ctxlint, str(root)], args.repeat, env)

    print(f"corpus: {len(files):,} files, {size / 1e6:.1f} MB ({args.copies} copies of examples/ and tests/data/)")
    if engine is not None:
        parse_time, serial_time, lint_time, check_time, cost_time = engine
        print(f"{'':34}{'seconds':>10}{'ratio':>10}")
        print(f"{'parsing and tokenising (cpu)':34}{parse_time:>10.3f}{1:>10.2f}")
        print(f"{'ctxlint engine, 1 process (cpu)':34}{serial_time:>10.3f}{serial_time / parse_time:>10.2f}")
        print(f"{'ctxlint engine, ' + str(os.cpu_count()) + ' processes':34}{lint_time:>10.3f}"
              f"{lint_time / parse_time:>10.2f}")
        print(f"{'ctxlint check <corpus>':34}{check_time:>10.3f}{1:>10.2f}")
        print(f"{'ctxlint cost <corpus>':34}{cost_time:>10.3f}{cost_time / check_time:>10.2f}")
    header = f"{'seconds':>10}{'ratio':>8}{'cpu s':>10}{'ratio':>8}{'peak MB':>10}"

    def row(label: str, timing: Timing, base: Timing) -> str:
        return (f"{label:34}{timing.wall:>10.3f}{timing.wall / base.wall:>8.2f}{timing.cpu:>10.3f}"
                f"{timing.cpu / base.cpu:>8.2f}{timing.peak:>10.0f}")

    print()
    print(f"{'start-up (one file)':34}{header}")
    for label, timing in startup:
        print(row(label, timing, libraries))
    print()
    print(f"{'result cache (whole corpus)':34}{header}")
    print(row("ctxlint check, cold cache", cold, cold))
    print(row("ctxlint check, warm cache", warm, cold))


if __name__ == "__main__":
    main()
