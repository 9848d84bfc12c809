"""Mutation fuzzing of every front-end, seeded with the repository's own files.

    python benchmarks/fuzz.py [--inputs N] [--minutes M] [--jobs J] [--seed S] [--out DIR]

The seeds are every prompt file under examples/ and tests/data/ and every example of every rule
file. Input ``i`` is seed file ``i mod seeds``, changed by one to four mutations drawn from a
generator seeded with ``(S, i)``, so any input can be rebuilt from its number: deleting,
duplicating or repeating (up to thousands of times) a stretch of text, inserting a fragment of
another seed of the same format, inserting a token that matters to some parser (template tags,
YAML tags and anchors, long numbers, deep brackets, directives, role markers, odd Unicode), and
for one input in fifty growing the file to between 100 KB and 1 MB.

Each input is linted as `ctxlint check --select ALL --preview --confidence low` lints a file
(front-end, every rule, suppressions) and priced as `ctxlint cost` prices it, in worker
processes (default: one per core). A worker reports, per input, the CPU time of each (the two
are separate commands, each its own process, and the cost command parses the file again; the
limit of 5 s applies to each, and their sum is reported too), the wall time, and the peak
resident memory of the worker process while it ran (the kernel's high-water mark, reset before
each input; the interpreter with both tokenizers and every front-end loaded, 105 MB at the start
and 120 MB typically, is most of it: a worker lints one seed of each format before its first
input, so no input pays for imports). A worker is replaced after an input that grew it by more than 64 MB, and every
thousand inputs, so that memory the interpreter keeps after one input is not counted against the
next. A worker that spends two minutes of CPU time on one input (or half an hour of wall time)
is stopped and its input reported as a hang; one that dies is replaced.

With ``--minutes M`` no new input is started after M minutes; the report then says how many of
the N inputs ran (a shared or slow machine may not finish a long campaign). The report gives
the number of inputs by format, every internal error (grouped by cause, each
with one input saved under --out to reproduce it), the slowest inputs, those over 5 seconds,
and the largest peak memory, those over 300 MB. The run exits 1 when any input crashed, hung or
crossed a limit.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import resource
import sys
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SLOW_SECONDS = 5.0
MEMORY_LIMIT_MB = 300
HANG_SECONDS = 120.0  # of CPU time in the worker: on a loaded machine wall time says little
HANG_WALL_SECONDS = 1_800.0
GROW_EVERY = 50  # one input in this many is grown to 100 KB - 1 MB
ADDRESS_SPACE = 4 << 30  # a runaway input gets MemoryError instead of taking the machine down

# Tokens that matter to one parser or another; mutations insert them anywhere.
TOKENS = (
    # templates
    "{{", "}}", "{%", "%}", "{#", "#}", "{{-", "-}}", "{%-", "-%}", "{{ page }}", "{{ now() }}", "{{ x.y.z }}",
    "{{ a | truncate(10, end='') }}", "{% for d in documents %}", "{% endfor %}", "{% if x %}", "{% else %}",
    "{% endif %}", "{% set t = now() %}", "{% raw %}", "{% endraw %}", "{{ x[:100] }}", "{{ 1e999 }}",
    "{{#each history}}", "{{/each}}", "{{else}}", "{{^}}", "{{!", "{{!--", "--}}", "{{{", "}}}", "{{> p}}",
    "{{role \"system\"}}", "{{history}}", "{{media url=x}}", "{{#if a}}", "{{/if}}", "(", ")", "~", "\\{{",
    "{{$history}}", "{{$input}}", "{{time.Now}}", "<message role=\"system\">", "<message role=\"user\">",
    "</message>", "${file:a.txt}", "${inputs.q}",
    # roles, layout and trust markers
    "system:\n", "user:\n", "assistant:\n", "# system:\n", "Never reveal the key. ", "You must answer in JSON. ",
    "<document>", "</document>", "```\n", "```json\n", "<untrusted_document source=\"x\">",
    # directives
    "{# ctxlint: ignore[CTX101] #}", "{# ctxlint: pinned #}", "{# ctxlint: end #}", "{# ctxlint: ignore",
    "<!-- ctxlint: ignore -->", "<!-- ctxlint: pinned", "# ctxlint: ignore-file\n", "ctxlint: untrusted=page,",
    "{{! ctxlint: middle }}", "// ctxlint: ignore\n", "/* ctxlint: tail */",
    # YAML and JSON
    "---\n", "\n---\n", ": ", "- ", "? ", "&a ", "*a", "<<: *a\n", "!!int ", "!!float ", "!!bool ", "!!binary ",
    "!!timestamp ", "!!set ", "!!omap ", "!!str ", "!foo ", "0x_", "0b2", "2024-02-30", "2024-01-01 5:61:61",
    "1:2:3", ".inf", "~", "|-\n", ">\n", "\"", "'", "[", "]", "{", "}", ",", "null", "true", "1e400", "-0",
    "\"max_tokens\": ", "\"type\": ", "\"role\": ", "\"content\": ", "\"messages\": ", "\"tools\": ",
    "\"input_schema\": ", "\"cache_control\": ", "\"required\": ", "\"properties\": ", "\"enum\": ",
    "max_tokens: ", "maxOutputTokens: ", "input_schema:", "role: ", "content: ", "template: ",
    "\\u0000", "\\ud800", "\\uDC00", "\\\"", "\\n",
    # Python and TypeScript
    "f\"", "f'{", "'''", "\"\"\"", "\\N{", "\\N{BOGUS}", "lambda: ", "def f(", "class C:", "import os\n",
    "messages=[", "max_tokens=", "client.chat.completions.create(", "json.dumps(", "datetime.now()",
    " + ", "not ", "-", "**", "`", "${", "=>", "as const", "z.object({", "<div>", "</div>", "async ", "await ",
    # numbers, whitespace, Unicode
    "9" * 4500, "0x" + "f" * 4000, "1" * 20, "\t", "\r", "\r\n", "\u2028", "\u00a0", "\ufeff", "\u200d",
    "é", "中文", "🙂", "\u0301", "\x0b", "\x1f",
)
BRACKETS = ("(", "[", "{", "{{ (", "[[", "- ", "  ", "{% if x %}", "{{#if a}}", "<a>", "a.")


@dataclass
class Seed:
    path: str  # the name it is linted under (decides the format)
    text: str
    fmt: str


@dataclass
class Result:
    index: int
    seed: str
    fmt: str
    size: int
    mutations: list[str]
    cpu: float = 0.0  # lint and price together
    lint_cpu: float = 0.0  # what `ctxlint check` spends on the file
    price_cpu: float = 0.0  # what `ctxlint cost` spends on it (it parses the file again)
    wall: float = 0.0
    peak_mb: float = 0.0  # the worker's peak resident memory while it linted this input
    base_mb: float = 0.0  # its resident memory just before
    findings: int = 0
    parse_errors: int = 0
    error: str | None = None  # an internal error: the exception, one line
    where: str | None = None  # the innermost ctxlint frame it came from


def load_seeds() -> list[Seed]:
    """Every prompt file under examples/ and tests/data/, and every rule example."""
    from ctxlint.catalogue import load_catalogue
    from ctxlint.config import Settings
    from ctxlint.frontends import format_for

    settings = Settings(root=ROOT)
    seeds = []
    for base in ("examples", "tests/data"):
        for path in sorted((ROOT / base).rglob("*")):
            relpath = path.relative_to(ROOT).as_posix()
            fmt = format_for(relpath, settings) if path.is_file() else None
            if fmt is None:
                continue
            try:
                # Linted outside tests/, where findings would count as fixtures (low confidence).
                seeds.append(Seed(relpath.replace("tests/data/", "data/", 1), path.read_text(encoding="utf-8"), fmt))
            except UnicodeDecodeError:  # a seed that is itself broken on purpose
                continue
    for rule in load_catalogue().values():
        for example in rule.examples:
            fmt = format_for(example.file, settings)
            if fmt is not None:
                seeds.append(Seed(f"rules/{rule.code}/{example.id}/{example.file}", example.source, fmt))
    return seeds


# --- mutations -------------------------------------------------------------------------------


def _span(rng: random.Random, text: str) -> tuple[int, int]:
    if not text:
        return 0, 0
    start = rng.randrange(len(text))
    length = min(len(text) - start, int(rng.paretovariate(1.2)) * rng.choice((1, 1, 4, 16)))
    return start, start + length


def mutate(rng: random.Random, seed: Seed, same_format: list[Seed]) -> tuple[str, list[str]]:
    """The seed's text after one to four mutations, and their names."""
    text = seed.text
    names = []
    for _ in range(rng.choice((1, 1, 2, 2, 3, 4))):
        kind = rng.choice(("delete", "duplicate", "repeat", "token", "token", "token", "replace", "splice",
                           "nest", "char"))
        start, end = _span(rng, text)
        at = rng.randrange(len(text) + 1)
        if kind == "delete":
            text = text[:start] + text[end:]
        elif kind == "duplicate":
            text = text[:at] + text[start:end] + text[at:]
        elif kind == "repeat":
            count = rng.choice((2, 3, 10, 100, 1_000, 5_000))
            piece = text[start:end] or rng.choice(TOKENS)
            piece = piece[: max(1, 200_000 // count)]
            text = text[:at] + piece * count + text[at:]
        elif kind == "token":
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif kind == "replace":
            text = text[:start] + rng.choice(TOKENS) + text[end:]
        elif kind == "splice":
            other = rng.choice(same_format).text
            o_start, o_end = _span(rng, other)
            text = text[:at] + other[o_start:o_end] + text[at:]
        elif kind == "nest":
            depth = rng.choice((10, 100, 1_000, 5_000))
            opener = rng.choice(BRACKETS)
            closer = opener[::-1].translate(str.maketrans("([{<", ")]}>"))
            text = text[:start] + opener * depth + text[start:end] + closer * rng.choice((0, depth)) + text[end:]
        else:
            text = text[:at] + chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x80, 0x3000),
                                               rng.randrange(0x1F300, 0x1F600)))) + text[at:]
        names.append(kind)
    return text, names


def grow(rng: random.Random, text: str) -> str:
    """The text repeated (whole, or one line of it) to between 100 KB and 1 MB."""
    target = rng.randrange(100_000, 1_000_000)
    lines = text.splitlines(keepends=True) or [text or "x"]
    unit = rng.choice(lines) if rng.random() < 0.5 else text or "x"
    head = text[: len(text) // 2]
    return head + unit * max(1, (target - len(text)) // max(1, len(unit))) + text[len(head):]


def build(index: int, run_seed: int, seeds: list[Seed],
          by_format: dict[str, list[Seed]]) -> tuple[Seed, bytes, list[str]]:
    """Input ``index``: the same bytes every time for the same seed files and ``run_seed``."""
    rng = random.Random(run_seed * 1_000_003 + index)
    seed = seeds[index % len(seeds)]
    text, names = mutate(rng, seed, by_format[seed.fmt])
    if rng.randrange(GROW_EVERY) == 0:
        text = grow(rng, text)
        names.append("grow")
    # A lone surrogate cannot be UTF-8: written as such, it tests the decoding error path.
    return seed, text.encode("utf-8", "surrogatepass"), names


# --- the worker ------------------------------------------------------------------------------


def _memory_mb(field: str) -> float:
    """``VmHWM`` (peak) or ``VmRSS`` (now) of this process, in MB (Linux)."""
    try:
        with open("/proc/self/status") as status:
            match = re.search(rf"{field}:\s+(\d+)", status.read())
    except OSError:
        return 0.0
    return int(match.group(1)) / 1024 if match else 0.0


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")  # reset the peak resident set size to the current one
    except OSError:
        pass


def _cpu_seconds(pid: int | None) -> float:
    """The CPU time a process has used so far (Linux; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _where(error: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "/ctxlint/" in f.filename]
    frame = frames[-1] if frames else traceback.extract_tb(error.__traceback__)[-1]
    return f"{Path(frame.filename).name}:{frame.lineno} ({frame.name})"


def every_rule_linter(root: Path):
    """A linter that runs every rule, the preview ones too, and keeps findings of any confidence,
    as ``ctxlint check --select ALL --preview --confidence low`` does: no rule escapes the bounds."""
    from ctxlint.catalogue import load_catalogue
    from ctxlint.config import Settings
    from ctxlint.engine import Linter

    return Linter(Settings(root=root, preview=True, confidence="low"), load_catalogue(), select=["ALL"])


def worker(connection: Connection, run_seed: int, out: str) -> None:
    from ctxlint import tokens
    from ctxlint.cost import Pricer

    try:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    except (ValueError, OSError):
        pass
    seeds = load_seeds()
    by_format: dict[str, list[Seed]] = defaultdict(list)
    for seed in seeds:
        by_format[seed.fmt].append(seed)
    linter = every_rule_linter(Path(out))
    pricer = Pricer(linter)  # prices a file as `ctxlint cost` does
    for encoding in tokens.ENCODINGS:  # loaded once, before any input is timed
        tokens.get_encoding(encoding)
    for fmt, group in by_format.items():  # every front-end imported before any input is measured
        linter.lint_bytes(group[0].text.encode("utf-8"), group[0].path, group[0].path, fmt)
    connection.send("ready")
    while True:
        index = connection.recv()
        if index is None:
            return
        seed, data, names = build(index, run_seed, seeds, by_format)
        result = Result(index, seed.path, seed.fmt, len(data), names)
        _reset_peak()
        result.base_mb = _memory_mb("VmRSS")
        cpu, wall = time.process_time(), time.perf_counter()
        priced: float | None = None  # when pricing started: the time before it is the lint's
        try:
            result.findings = len(linter.lint_bytes(data, seed.path, seed.path, seed.fmt))
            priced = time.process_time()
            parsed = linter.parse_bytes(data, seed.path, seed.path)
            if parsed is not None:
                result.parse_errors = len(parsed.errors)
                pricer.file_cost(seed.path, seed.path, parsed)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: BLE001 -- what the engine reports as an internal error
            result.error = f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
            result.where = _where(error)
        done = time.process_time()
        result.cpu = done - cpu
        result.lint_cpu = (priced or done) - cpu
        result.price_cpu = done - priced if priced is not None else 0.0
        result.wall = time.perf_counter() - wall
        result.peak_mb = _memory_mb("VmHWM")
        connection.send(result)


# --- the run ---------------------------------------------------------------------------------


@dataclass
class _Worker:
    process: multiprocessing.Process
    connection: Connection
    index: int | None = None
    since: float = 0.0
    cpu_since: float = 0.0
    done: int = 0  # inputs linted; a worker is replaced after RECYCLE so memory peaks stay its own


RECYCLE = 1_000
# And after an input that grew the worker by this much, so the next input starts afresh. Relative
# to the worker's own size: an absolute bound near that size would replace it after every input.
RECYCLE_GROWTH_MB = 64


def run(inputs: int, jobs: int, run_seed: int, out: Path, progress: bool, minutes: float | None = None) -> list[Result]:
    # Workers start from a fresh interpreter (a fork server's, or spawned), not forked from this
    # process: a forked worker would carry this process's growing list of results, and every
    # thousand inputs its resident baseline grew by about 9 MB.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")

    def start() -> _Worker:
        parent, child = context.Pipe()
        process = context.Process(target=worker, args=(child, run_seed, str(out)), daemon=True)
        process.start()
        child.close()
        if parent.recv() != "ready":
            raise RuntimeError("a fuzz worker did not start")
        return _Worker(process, parent)

    seeds = load_seeds()
    by_format: dict[str, list[Seed]] = defaultdict(list)
    for seed in seeds:
        by_format[seed.fmt].append(seed)
    workers = [start() for _ in range(jobs)]
    results: list[Result] = []
    next_index = 0
    started = time.perf_counter()

    def dispatch(slot: _Worker) -> None:
        nonlocal next_index
        in_time = minutes is None or time.perf_counter() - started < minutes * 60
        if next_index < inputs and in_time:
            slot.index, slot.since = next_index, time.perf_counter()
            slot.cpu_since = _cpu_seconds(slot.process.pid)
            slot.connection.send(next_index)
            next_index += 1
        else:
            slot.index = None

    for slot in workers:
        dispatch(slot)
    while any(w.index is not None for w in workers):
        ready = wait([w.connection for w in workers if w.index is not None], timeout=5.0)
        for position, slot in enumerate(workers):
            if slot.index is None:
                continue
            lost = None
            if slot.connection in ready:
                try:
                    results.append(slot.connection.recv())
                except (EOFError, OSError):
                    lost = f"the worker process died (exit code {slot.process.exitcode})"
                else:
                    slot.done += 1
                    if slot.done >= RECYCLE or results[-1].peak_mb - results[-1].base_mb > RECYCLE_GROWTH_MB:
                        slot.connection.send(None)
                        slot.process.join(timeout=10)
                        slot = workers[position] = start()
                    dispatch(slot)
                    continue
            elif (_cpu_seconds(slot.process.pid) - slot.cpu_since > HANG_SECONDS
                  or time.perf_counter() - slot.since > HANG_WALL_SECONDS):
                lost = f"no answer after {HANG_SECONDS:.0f} s of CPU time: stopped"
            if lost is None:
                continue
            slot.process.kill()
            slot.process.join()
            seed, data, names = build(slot.index, run_seed, seeds, by_format)
            results.append(Result(slot.index, seed.path, seed.fmt, len(data), names,
                                  wall=time.perf_counter() - slot.since, error=lost, where="worker"))
            workers[position] = start()
            dispatch(workers[position])
        if progress and len(results) % 1000 < jobs and results:
            rate = len(results) / (time.perf_counter() - started)
            print(f"\r{len(results):,}/{inputs:,} inputs, {rate:,.0f}/s", end="", file=sys.stderr, flush=True)
    for slot in workers:
        slot.connection.send(None)
        slot.process.join(timeout=10)
    if progress:
        print(file=sys.stderr)
    return sorted(results, key=lambda r: r.index)


def save(result: Result, run_seed: int, out: Path, seeds: list[Seed], by_format: dict[str, list[Seed]]) -> Path:
    """Write an input to ``out`` under the seed's name, so ctxlint picks the same front-end."""
    _, data, _ = build(result.index, run_seed, seeds, by_format)
    path = out / f"input-{result.index}" / Path(result.seed).name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _command_cpu(result: Result) -> float:
    """The CPU time of the slower command on this input: what one `ctxlint` run spends on it."""
    return max(result.lint_cpu, result.price_cpu)


def report(results: list[Result], run_seed: int, out: Path, elapsed: float, requested: int | None = None) -> int:
    seeds = load_seeds()
    by_format: dict[str, list[Seed]] = defaultdict(list)
    for seed in seeds:
        by_format[seed.fmt].append(seed)
    formats = Counter(r.fmt for r in results)
    crashed = [r for r in results if r.error]
    slow = [r for r in results if _command_cpu(r) > SLOW_SECONDS or (r.error and "no answer" in r.error)]
    slow_together = sum(r.cpu > SLOW_SECONDS for r in results)
    heavy = [r for r in results if r.peak_mb > MEMORY_LIMIT_MB]
    print(f"ctxlint fuzz: {len(results):,} inputs from {len(seeds)} seed files (run seed {run_seed}), "
          f"{elapsed:,.0f} s")
    if requested is not None and len(results) < requested:
        print(f"stopped at the time limit: {len(results):,} of the {requested:,} inputs requested ran")
    print("inputs by format: " + ", ".join(f"{fmt} {n:,}" for fmt, n in formats.most_common()))
    print(f"inputs of 100 KB or more: {sum(r.size >= 100_000 for r in results):,}; largest "
          f"{max((r.size for r in results), default=0):,} bytes")
    print(f"inputs with a located CTX001: {sum(r.parse_errors > 0 for r in results):,}; findings in all: "
          f"{sum(r.findings for r in results):,}")
    print(f"internal errors: {len(crashed)}")
    causes: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for r in crashed:
        causes[(r.error.split(":")[0] if r.error else "", r.where or "")].append(r)
    for (kind, where), group in sorted(causes.items(), key=lambda item: -len(item[1])):
        example = group[0]
        path = save(example, run_seed, out, seeds, by_format)
        print(f"  {len(group):>5} x {kind} at {where}: {example.error}")
        print(f"        e.g. input {example.index} ({example.seed}, {'+'.join(example.mutations)}): {path}")
    print(f"slowest inputs (CPU seconds of lint, of price, and both; over {SLOW_SECONDS:.0f} s in lint or in price: "
          f"{len(slow)}; in both together: {slow_together}):")
    for r in sorted(results, key=lambda r: -_command_cpu(r))[:10]:
        print(f"  {r.lint_cpu:6.2f} + {r.price_cpu:5.2f} = {r.cpu:6.2f} s cpu {r.wall:7.2f} s wall {r.size:>9,} B  "
              f"{r.fmt:<16} input {r.index} ({r.seed}, {'+'.join(r.mutations)})")
    print(f"largest peak memory of a worker (MB, and its growth during the input; over {MEMORY_LIMIT_MB}: "
          f"{len(heavy)}):")
    for r in sorted(results, key=lambda r: -r.peak_mb)[:5]:
        print(f"  {r.peak_mb:7.0f} MB (+{r.peak_mb - r.base_mb:4.0f}) {r.size:>9,} B  {r.fmt:<16} input {r.index} "
              f"({r.seed}, {'+'.join(r.mutations)})")
    for r in slow + heavy:
        save(r, run_seed, out, seeds, by_format)
    cpu = sorted(r.cpu for r in results)
    if cpu:
        print(f"CPU seconds per input (lint and price): median {cpu[len(cpu) // 2]:.3f}, 99th percentile "
              f"{cpu[int(len(cpu) * 0.99)]:.3f}, max {cpu[-1]:.2f}")
    (out / "results.json").write_text(json.dumps([asdict(r) for r in results]), encoding="utf-8")
    return 1 if crashed or slow or heavy else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=100_000, help="how many inputs to generate (default 100,000)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="start no new input after this many minutes, and report the inputs that ran")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: every core)")
    parser.add_argument("--seed", type=int, default=0, help="run seed: the same seed builds the same inputs")
    parser.add_argument("--out", type=Path, default=Path("fuzz-out"),
                        help="where the report, crashing, slow and heavy inputs go (default: fuzz-out)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results = run(args.inputs, args.jobs, args.seed, args.out, progress=not args.quiet, minutes=args.minutes)
    return report(results, args.seed, args.out, time.perf_counter() - started, args.inputs)


if __name__ == "__main__":
    sys.exit(main())
