"""Speed of ctxlint, measured side by side with plain parsing of the same files, in one run.

    python benchmarks/bench.py [--copies N] [--repeat R]

The corpus is every prompt file under examples/ and tests/data/, copied N times into a
temporary tree. For each run the script times:

  parse    reading each file and parsing it with the library its format is built on
           (jinja2's parser, yaml.safe_load, json.loads, CPython's ast for Python), nothing more,
           in one process;
  ctxlint  the engine over the same files: front-ends, every rule, suppressions; in one
           process, then split across every core as `ctxlint check` does for large audits;

and reports the ratio ctxlint / parse, plus the wall time of the `ctxlint check` command on a
single template and on examples/ next to `python -c pass` (interpreter start-up), and the
`ctxlint cost` command next to `ctxlint check` on the whole corpus tree (both use every core;
cost must stay within 1.2 times check). Runs of the two commands alternate, so drift in the
machine's load reaches both. Ratios are what to compare between commits: the absolute numbers
depend on the machine.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxlint.catalogue import load_catalogue  # noqa: E402
from ctxlint.config import Settings  # noqa: E402
from ctxlint.discover import discover  # noqa: E402
from ctxlint.engine import Linter  # noqa: E402
from ctxlint.frontends import format_for  # noqa: E402


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


def plain_parse(files: list[Path], root: Path) -> None:
    """What parsing alone costs: the underlying parser of each format, no analysis."""
    import ast

    import jinja2
    import yaml

    env = jinja2.Environment()
    settings = Settings(root=root)
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
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


def timed(function, *args, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(*args)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def command_time(args: list[str], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def check_and_cost(tree: Path, repeat: int) -> tuple[float, float]:
    """Median wall times of `ctxlint check` and `ctxlint cost` on ``tree``, run alternately."""
    checks, costs = [], []
    for _ in range(repeat):
        for args, runs in ((["check", "--exit-zero"], checks), (["cost", "--format", "json"], costs)):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "ctxlint.cli", *args, str(tree)], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            runs.append(time.perf_counter() - start)
    return statistics.median(checks), statistics.median(costs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = build_corpus(root, args.copies)
        size = sum(f.stat().st_size for f in files)
        lint(files[:5], root)  # warm imports and the tokenizer, so both sides are timed warm
        plain_parse(files[:5], root)
        parse_time = timed(plain_parse, files, root, repeat=args.repeat)
        serial_time = timed(lint, files, root, 1, repeat=args.repeat)
        lint_time = timed(lint, files, root, repeat=args.repeat)
        findings = lint(files, root)
        check_time, cost_time = check_and_cost(root, args.repeat)

    python = [sys.executable, "-c", "pass"]
    ctxlint = [sys.executable, "-m", "ctxlint.cli", "check"]
    startup = command_time(python, args.repeat * 3)
    one = command_time([*ctxlint, "examples/rag/answer.jinja2"], args.repeat * 3)
    examples = command_time([*ctxlint, "examples"], args.repeat * 3)

    print(f"corpus: {len(files):,} files, {size / 1e6:.1f} MB ({args.copies} copies of examples/ and tests/data/); "
          f"{findings:,} findings")
    print(f"{'':28}{'seconds':>10}{'ratio':>10}")
    print(f"{'plain parsing':28}{parse_time:>10.3f}{1:>10.2f}")
    print(f"{'ctxlint engine, 1 process':28}{serial_time:>10.3f}{serial_time / parse_time:>10.2f}")
    print(f"{'ctxlint engine, ' + str(os.cpu_count()) + ' processes':28}{lint_time:>10.3f}{lint_time / parse_time:>10.2f}")
    print(f"{'python -c pass':28}{startup:>10.3f}{1:>10.2f}")
    print(f"{'ctxlint check one template':28}{one:>10.3f}{one / startup:>10.2f}")
    print(f"{'ctxlint check examples/':28}{examples:>10.3f}{examples / startup:>10.2f}")
    print(f"{'ctxlint check <corpus>':28}{check_time:>10.3f}{1:>10.2f}")
    print(f"{'ctxlint cost <corpus>':28}{cost_time:>10.3f}{cost_time / check_time:>10.2f}")


if __name__ == "__main__":
    main()
