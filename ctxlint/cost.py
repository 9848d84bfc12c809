"""`ctxlint cost`: what each request costs, and what a change adds to it (the budget gate).

The report is built in three steps, each usable on its own:

1. :func:`collect` parses files (no rule runs) and prices every request with the accounting
   module: tokens per part and per tool, the cacheable prefix, the share of the window and the
   price per 1,000 calls with and without prompt caching.
2. :func:`collect_at_ref` does the same for the files as they are at a git commit. Blobs are
   read with ``git ls-tree`` and ``git cat-file``, never through the working tree or the
   index, and the front-ends parse their text as they parse files on disk.
3. :func:`compare` matches the two sides file by file, request by request (in file order) and
   tool by tool (by name), and :func:`check_limits` applies ``--max-increase`` and the absolute
   limits of ``[tool.ctxlint.cost]``.

Reporters (``ctxlint/report/cost_*.py``) render a :class:`CostReport`; nothing here prints.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TextIO

from ctxlint.analysis.accounting import RequestCost, request_cost
from ctxlint.config import COST_LIMITS
from ctxlint.discover import SKIP_DIRS, GitIgnore, glob_match
from ctxlint.engine import Linter, Notice
from ctxlint.model import ParsedFile
from ctxlint.tokens import ModelInfo, lookup_model

# --- what one side costs -------------------------------------------------------------------------


@dataclass(frozen=True)
class FileCost:
    """The requests of one file, priced; ``errors`` are parse errors (``3:5: message``) that left
    part of the file uncounted."""

    path: str
    requests: tuple[RequestCost, ...]
    errors: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return sum(r.total_input for r in self.requests)


@dataclass(frozen=True)
class Totals:
    files: int  # files that hold at least one request
    requests: int
    tools: int  # tool definitions, summed over requests
    input_tokens: int
    tool_tokens: int
    reserve: int
    price_per_1k_calls: float | None  # None when no request has a known price
    price_per_1k_calls_cached: float | None
    unpriced_requests: int  # requests left out of the price totals (model or price unknown)
    estimated_requests: int  # requests whose counts are estimates (exact=False)


def totals(files: Sequence[FileCost]) -> Totals:
    requests = [r for f in files for r in f.requests]
    priced = [r for r in requests if r.price_per_1k_calls is not None]
    cached = [r for r in requests if r.price_per_1k_calls_cached is not None]
    return Totals(
        files=sum(1 for f in files if f.requests),
        requests=len(requests),
        tools=sum(len(r.tool_costs) for r in requests),
        input_tokens=sum(r.total_input for r in requests),
        tool_tokens=sum(r.tools for r in requests),
        reserve=sum(r.reserve for r in requests),
        price_per_1k_calls=sum(r.price_per_1k_calls for r in priced) if priced else None,
        price_per_1k_calls_cached=sum(r.price_per_1k_calls_cached for r in cached) if cached else None,
        unpriced_requests=len(requests) - len(priced),
        estimated_requests=sum(1 for r in requests if not r.exact),
    )


def other_tokens(cost: RequestCost) -> int:
    """Input tokens outside tools, system and messages: the reply priming (3 for OpenAI)."""
    return max(cost.total_input - cost.tools - cost.system - cost.messages, 0)


class Progress:
    """One updating line on stderr while files are read, only for a person watching a terminal.

    Nothing is written when the stream is not a terminal (piped, redirected, captured), when
    ``CI`` is set, or for ``threshold`` files or fewer. The line is erased when done, so the
    terminal is left as the report found it; the report itself never goes to this stream.
    """

    THRESHOLD = 20  # files: below this a run takes well under a second
    INTERVAL = 0.1  # seconds between redraws

    def __init__(self, total: int, label: str, stream: TextIO | None = None, threshold: int = THRESHOLD):
        self.total = total
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = total > threshold and _is_terminal(self.stream) and not _in_ci()
        self._last = 0.0
        self._width = 0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and done and now - self._last < self.INTERVAL:
            return
        self._last = now
        line = f"{self.label}: {done:,}/{self.total:,} files"
        self.stream.write("\r" + line.ljust(self._width))
        self.stream.flush()
        self._width = len(line)

    def close(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _file_cost(display: str, parsed: ParsedFile, linter: Linter) -> FileCost | None:
    settings = linter.settings
    costs = tuple(request_cost(r, settings.models or None, settings.model, linter.volatility)
                  for r in parsed.requests)
    errors = tuple(f"{span.line}:{span.column}: {' '.join(message.split())}" for span, message in parsed.errors)
    if not costs and not errors:
        return None  # not a prompt (package.json, a Python file with no LLM call)
    return FileCost(display, costs, errors)


def collect(linter: Linter, files: Sequence[Path], notices: list[Notice],
            progress: Progress | None = None) -> list[FileCost]:
    """Price every request in ``files``; files that hold none are left out."""
    out = []
    for done, path in enumerate(files):
        if progress:
            progress.update(done)
        for display, parsed in linter.parse_files([path], notices):
            cost = _file_cost(display, parsed, linter)
            if cost is not None:
                out.append(cost)
    if progress:
        progress.update(len(files))
        progress.close()
    return sorted(out, key=lambda f: f.path)


# --- the same files at a git commit -------------------------------------------------------------


class GitError(Exception):
    """Not a git repository, a bad ref, or git failed: a usage error (exit 2)."""


@dataclass(frozen=True)
class Baseline:
    """What ``--compare`` read: the ref as given, the commit it names (None: no commit yet)."""

    ref: str
    commit: str | None
    files: tuple[FileCost, ...]


def _git(cwd: Path, *args: str, input: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=False,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; --compare reads the baseline with git") from None
    if done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return done.stdout


def _work_tree(paths: Sequence[str]) -> Path:
    start = Path(paths[0]) if paths else Path.cwd()
    start = start if start.is_dir() else start.parent
    try:
        top = _git(start.resolve(), "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    except GitError as error:
        if "not a git repository" in str(error).lower():
            raise GitError(f"{start}: not inside a git repository; --compare needs one") from None
        raise
    return Path(top).resolve()


def resolve_ref(top: Path, ref: str) -> str | None:
    """The commit ``ref`` names, or None for HEAD in a repository with no commit yet."""
    if not ref or ref.startswith("-"):  # never let a ref be read as an option
        raise GitError(f"`{ref}` is not a git revision")
    try:
        return _git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    except GitError:
        pass
    if ref in ("HEAD", "@"):
        try:  # an unborn branch: HEAD names a branch that has no commit yet
            _git(top, "symbolic-ref", "--quiet", "HEAD")
            return None
        except GitError:
            pass
    raise GitError(f"unknown git revision `{ref}` (a branch, tag or commit: `git fetch` it first in a shallow clone)")


def _tree(top: Path, commit: str | None) -> dict[str, tuple[str, str, int]]:
    """Every file of the commit: path -> (mode, object id, size)."""
    if commit is None:
        return {}
    out = _git(top, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    entries = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, oid, size = meta.split()
        if kind == b"blob":
            entries[path.decode("utf-8", "surrogateescape")] = (
                mode.decode(), oid.decode(), int(size) if size.isdigit() else 0)
    return entries


def _read_blobs(top: Path, oids: Sequence[str]) -> dict[str, bytes]:
    """The contents of ``oids``, all in one ``git cat-file --batch``."""
    if not oids:
        return {}
    out = _git(top, "cat-file", "--batch", input="".join(f"{oid}\n" for oid in oids).encode())
    blobs, pos = {}, 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) != 3:  # "<oid> missing"
            continue
        size = int(header[2])
        blobs[header[0].decode()] = out[pos:pos + size]
        pos += size + 1
    return blobs


def _symlink_target(tree: Mapping[str, tuple[str, str, int]], path: str, target: bytes, depth: int = 0) -> str | None:
    """The tree path a symlink inside the tree points to, or None (outside the tree, a loop)."""
    parts = [p for p in path.split("/")[:-1]]
    for part in target.decode("utf-8", "surrogateescape").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    resolved = "/".join(parts)
    return resolved if resolved in tree else None


def _relative_to(path: Path, base: Path) -> str | None:
    try:
        rel = path.relative_to(base).as_posix()
    except ValueError:
        return None
    return "" if rel == "." else rel


def select_at_ref(tree: Mapping[str, tuple[str, str, int]], top: Path, paths: Sequence[str],
                  root: Path, include: Sequence[str], exclude: Sequence[str]) -> list[str]:
    """The tree paths that discovery would pick for ``paths`` if the tree were checked out.

    The rules of :func:`ctxlint.discover.discover`: a directory keeps the files that match
    ``include``, skipping :data:`SKIP_DIRS`, ``exclude`` and the working tree's ``.gitignore``
    rules; a file named explicitly is kept unless excluded. Globs see paths relative to the
    root, or to the directory argument when it is outside the root.
    """
    root = root.resolve()
    def include_match(rel: str) -> bool:
        return any(glob_match(g, rel) for g in include)

    def exclude_match(rel: str) -> bool:
        return any(glob_match(g, rel) for g in exclude)

    gitignore = GitIgnore(top)
    chosen: set[str] = set()
    for arg in paths:
        given = Path(os.path.abspath(arg))
        given = given.parent.resolve() / given.name
        rel = _relative_to(given.resolve() if given.exists() else given, top)
        if rel is None:
            raise GitError(f"{arg}: outside the git repository at {top}")
        base = _relative_to(given, root)
        if rel in tree:  # a file
            if not exclude_match(given.name if base is None else base):
                chosen.add(rel)
            continue
        prefix, base = (f"{rel}/" if rel else ""), (base or "")
        for path in tree:
            if not path.startswith(prefix):
                continue
            below = path[len(prefix):].split("/")
            dirs = ["/".join(below[:i]) for i in range(1, len(below))]
            if any(part in SKIP_DIRS for part in below[:-1]):
                continue
            glob_rel = f"{base}/{'/'.join(below)}" if base else "/".join(below)
            if not include_match(glob_rel) or exclude_match(glob_rel):
                continue
            if any(exclude_match(f"{base}/{d}/" if base else f"{d}/") for d in dirs):
                continue
            if any(gitignore.ignored(prefix + d, True) for d in dirs) or gitignore.ignored(path, False):
                continue
            chosen.add(path)
    return sorted(chosen)


def collect_at_ref(linter: Linter, ref: str, paths: Sequence[str], notices: list[Notice],
                   progress_stream: TextIO | None = None) -> Baseline:
    """Price the requests in ``paths`` as they are at ``ref``, read from git's object store."""
    top = _work_tree(paths)
    commit = resolve_ref(top, ref)
    tree = _tree(top, commit)
    settings = linter.settings
    selected = select_at_ref(tree, top, paths, settings.root, settings.all_globs(), settings.exclude)
    wanted = {path: path for path in selected}  # tree path -> the path whose blob holds its content
    links = [p for p in selected if tree[p][0] == "120000"]
    link_blobs = _read_blobs(top, [tree[p][1] for p in links])
    for path in links:
        target = _symlink_target(tree, path, link_blobs.get(tree[path][1], b""))
        if target is None or tree[target][0] == "120000":
            del wanted[path]  # a link out of the tree, or a chain: nothing git can show
        else:
            wanted[path] = target
    files: list[FileCost] = []
    readable = {}
    for path, source in wanted.items():
        display = _display(top / path)
        size = tree[source][2]
        if size > settings.max_file_bytes:
            notices.append(Notice(display, f"skipped at {ref}: {size:,} bytes is over the "
                                           f"{settings.max_file_bytes:,}-byte limit"))
            continue
        readable[path] = source
    blobs = _read_blobs(top, sorted({tree[s][1] for s in readable.values()}))
    progress = Progress(len(readable), f"ctxlint cost ({ref})", progress_stream)
    for done, (path, source) in enumerate(sorted(readable.items())):
        progress.update(done)
        display = _display(top / path)
        data = blobs.get(tree[source][1])
        if data is None:
            notices.append(Notice(display, f"skipped at {ref}: git cannot read the blob"))
            continue
        if b"\0" in data[:8192]:
            notices.append(Notice(display, f"skipped at {ref}: binary file"))
            continue
        relpath = _relative_to(top / path, settings.root.resolve())
        parsed = linter.parse_bytes(data, display, relpath if relpath is not None else Path(path).name)
        cost = _file_cost(display, parsed, linter) if parsed is not None else None
        if cost is not None:
            files.append(cost)
    progress.update(len(readable))
    progress.close()
    return Baseline(ref, commit, tuple(sorted(files, key=lambda f: f.path)))


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


# --- what changed -------------------------------------------------------------------------------


class _Delta:
    before: int | None
    after: int | None

    @property
    def delta(self) -> int:
        return (self.after or 0) - (self.before or 0)

    @property
    def status(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "changed" if self.before != self.after else "unchanged"


@dataclass(frozen=True)
class ToolChange(_Delta):
    name: str
    before: int | None
    after: int | None


@dataclass(frozen=True)
class RequestChange(_Delta):
    """One request (matched by its position in the file) before and after: input tokens."""

    index: int  # 0-based position among the file's requests
    line: int  # where it is now (or was, when removed)
    before: int | None
    after: int | None
    tools: tuple[ToolChange, ...] = ()

    @property
    def changed_tools(self) -> tuple[ToolChange, ...]:
        return tuple(t for t in self.tools if t.status != "unchanged")

    @property
    def status(self) -> str:
        """As for a tool; a request whose tools changed is changed even if its total is not."""
        status = super().status
        return "changed" if status == "unchanged" and self.changed_tools else status


@dataclass(frozen=True)
class FileChange(_Delta):
    path: str
    before: int | None
    after: int | None
    requests: tuple[RequestChange, ...] = ()

    @property
    def status(self) -> str:
        status = super().status
        return "changed" if status == "unchanged" and any(r.status != "unchanged" for r in self.requests) else status


@dataclass(frozen=True)
class Comparison:
    ref: str
    commit: str | None
    files: tuple[FileChange, ...]  # every file on either side, changed or not
    before: int  # input tokens of all requests at the ref
    after: int

    @property
    def delta(self) -> int:
        return self.after - self.before

    @property
    def percent(self) -> float | None:
        """The change as a percentage of the baseline; None when there was none (0 tokens)."""
        return 100.0 * self.delta / self.before if self.before else None

    @property
    def changed(self) -> tuple[FileChange, ...]:
        return tuple(f for f in self.files if f.status != "unchanged")

    @property
    def short_commit(self) -> str:
        return self.commit[:12] if self.commit else "no commit yet"

    @cached_property
    def _by_path(self) -> dict[str, FileChange]:
        return {f.path: f for f in self.files}

    def request(self, path: str, index: int) -> RequestChange | None:
        """The change of the ``index``-th request of ``path``, if the file is in the comparison."""
        f = self._by_path.get(path)
        return f.requests[index] if f is not None and index < len(f.requests) else None


def _tools_change(before: RequestCost | None, after: RequestCost | None) -> tuple[ToolChange, ...]:
    """Tools matched by name (the n-th tool of a name with the n-th of the same name)."""
    def keyed(cost: RequestCost | None) -> dict[tuple[str, int], int]:
        seen: dict[str, int] = {}
        out = {}
        for tool in cost.tool_costs if cost else ():
            n = seen.get(tool.name, 0)
            seen[tool.name] = n + 1
            out[(tool.name, n)] = tool.tokens
        return out

    old, new = keyed(before), keyed(after)
    keys = list(new) + [k for k in old if k not in new]
    return tuple(ToolChange(name, old.get((name, n)), new.get((name, n))) for name, n in keys)


def compare(baseline: Baseline, files: Sequence[FileCost]) -> Comparison:
    old = {f.path: f for f in baseline.files}
    new = {f.path: f for f in files}
    changes = []
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        b_requests = before.requests if before else ()
        a_requests = after.requests if after else ()
        requests = []
        for i in range(max(len(b_requests), len(a_requests))):
            b = b_requests[i] if i < len(b_requests) else None
            a = a_requests[i] if i < len(a_requests) else None
            requests.append(RequestChange(
                i, (a or b).line, b.total_input if b else None, a.total_input if a else None, _tools_change(b, a)))
        changes.append(FileChange(path, before.tokens if before else None, after.tokens if after else None,
                                  tuple(requests)))
    return Comparison(baseline.ref, baseline.commit, tuple(changes),
                      sum(f.tokens for f in baseline.files), sum(f.tokens for f in files))


# --- limits ---------------------------------------------------------------------------------------

_INCREASE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


@dataclass(frozen=True)
class Increase:
    """``--max-increase``: tokens (``500``) or a percentage of the baseline (``10%``)."""

    value: float
    percent: bool

    @classmethod
    def parse(cls, text: str) -> Increase:
        match = _INCREASE.match(text.replace(",", "").replace("_", ""))
        if not match:
            raise ValueError(f"--max-increase: `{text}` is not a number of tokens (500) or a percentage (10%)")
        number, percent = match.groups()
        if not percent and "." in number:
            raise ValueError(f"--max-increase: `{text}`: a number of tokens is a whole number")
        return cls(float(number), bool(percent))

    def __str__(self) -> str:
        return f"{self.value:g}%" if self.percent else f"{int(self.value):,} tokens"


@dataclass(frozen=True)
class Violation:
    """A crossed limit: ``limit`` is the option or config key, ``path``/``line`` where (if one place)."""

    limit: str
    message: str
    path: str | None = None
    line: int | None = None


def check_limits(files: Sequence[FileCost], limits: Mapping[str, int], comparison: Comparison | None = None,
                 increase: Increase | None = None) -> list[Violation]:
    out: list[Violation] = []
    for f in files:
        for r in f.requests:
            est = "" if r.exact else "~"
            limit = limits.get("max-request-tokens")
            if limit is not None and r.total_input > limit:
                out.append(Violation("max-request-tokens", (
                    f"the request sends {est}{r.total_input:,} input tokens before any variable content, "
                    f"over max-request-tokens ({limit:,}); trim its static text or tools"), r.path, r.line))
            limit = limits.get("max-total-tool-tokens")
            if limit is not None and r.tool_costs and r.tools > limit:
                out.append(Violation("max-total-tool-tokens", (
                    f"its {len(r.tool_costs)} tools cost {est}{r.tools:,} tokens on every call, over "
                    f"max-total-tool-tokens ({limit:,}); offer fewer tools per request or shorten the "
                    "biggest ones"), r.path, r.line))
            limit = limits.get("max-tool-tokens")
            if limit is not None:
                for tool in r.tool_costs:
                    if tool.tokens > limit:
                        out.append(Violation("max-tool-tokens", (
                            f"tool `{tool.name or '(unnamed)'}` costs {est}{tool.tokens:,} tokens, over "
                            f"max-tool-tokens ({limit:,}); its biggest field is `{tool.biggest_field}` "
                            f"({est}{tool.biggest_field_tokens:,} tokens)"), tool.span.path, tool.span.line))
    if comparison is not None and increase is not None:
        delta, percent = comparison.delta, comparison.percent
        over = percent is not None and percent > increase.value if increase.percent else delta > increase.value
        if over:
            pct = f" ({percent:+.1f}%)" if percent is not None else ""
            out.append(Violation("max-increase", (
                f"the requests' input grows by {delta:,} tokens{pct}, from {comparison.before:,} at "
                f"{comparison.ref} to {comparison.after:,}, over --max-increase {increase}; trim what grew "
                "(see the changes), or raise the limit if the growth is intended")))
    return out


# --- the report -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostReport:
    files: tuple[FileCost, ...]
    models: tuple[ModelInfo, ...]  # the model table entries the requests used
    limits: Mapping[str, int] = field(default_factory=dict)  # [tool.ctxlint.cost]
    increase: Increase | None = None
    comparison: Comparison | None = None
    violations: tuple[Violation, ...] = ()
    notices: tuple[Notice, ...] = ()

    @property
    def totals(self) -> Totals:
        return totals(self.files)

    @property
    def requests(self) -> list[RequestCost]:
        return [r for f in self.files for r in f.requests]

    @property
    def gated(self) -> bool:
        """Whether any limit was checked (the report then says whether it passed)."""
        return bool(self.limits) or (self.increase is not None and self.comparison is not None)

    @property
    def passed(self) -> bool:
        return not self.violations

    def notes(self) -> dict[str, list[RequestCost]]:
        """Each distinct request note (estimates, approximations, overheads) and its requests."""
        by_note: dict[str, list[RequestCost]] = {}
        for r in self.requests:
            if r.note:
                by_note.setdefault(r.note, []).append(r)
        return by_note


def models_used(files: Iterable[FileCost], extra: Mapping | None) -> tuple[ModelInfo, ...]:
    found: dict[str, ModelInfo] = {}
    for f in files:
        for r in f.requests:
            if r.model not in found:
                info = lookup_model(r.model, extra or None)
                if info is not None:
                    found[r.model] = info
    return tuple(sorted(found.values(), key=lambda m: m.name))


def build_report(linter: Linter, files: Sequence[Path], paths: Sequence[str], compare_ref: str | None = None,
                 increase: Increase | None = None, stream: TextIO | None = None) -> CostReport:
    """The whole ``ctxlint cost`` run: collect, read the baseline, compare, check the limits."""
    notices: list[Notice] = []
    costs = collect(linter, files, notices, Progress(len(files), "ctxlint cost", stream))
    comparison = None
    if compare_ref is not None:
        baseline = collect_at_ref(linter, compare_ref, paths, notices, stream)
        comparison = compare(baseline, costs)
    limits = dict(linter.settings.cost_limits)
    violations = check_limits(costs, limits, comparison, increase)
    return CostReport(tuple(costs), models_used(costs, linter.settings.models), limits, increase, comparison,
                      tuple(violations), tuple(notices))


# --- shared formatting for the reporters ---------------------------------------------------------


def money(value: float | None) -> str:
    """``$1.03``, ``$1,234``, ``$0.0042``; ``n/a`` when unknown."""
    if value is None:
        return "n/a"
    if value == 0:
        return "$0"
    if value >= 1000:
        return f"${value:,.0f}"
    if value >= 0.1:
        return f"${value:,.2f}"
    return f"${value:.2g}" if value >= 0.0001 else "<$0.0001"


def share(value: float | None) -> str:
    if value is None:
        return "n/a"
    if 0 < value < 0.001:
        return "<0.1%"
    return f"{100 * value:.1f}%"


def tokens(value: int, exact: bool = True) -> str:
    return f"{'' if exact else '~'}{value:,}"


def signed(value: int) -> str:
    return f"{value:+,}" if value else "0"


def percent_change(before: int | None, after: int | None) -> str:
    """``+12.5%``; empty when there was nothing before (added)."""
    if not before:
        return ""
    return f"{100.0 * ((after or 0) - before) / before:+.1f}%"


def label(cost: RequestCost) -> str:
    return f"{cost.path}:{cost.line}"


def limits_text(report: CostReport) -> list[str]:
    """The limits that were checked, as short phrases (for the summary lines)."""
    parts = []
    if report.increase is not None and report.comparison is not None:
        parts.append(f"max increase {report.increase}")
    parts += [f"{key} {value:,}" for key, value in report.limits.items() if key in COST_LIMITS]
    return parts


__all__ = [
    "Baseline", "Comparison", "CostReport", "FileChange", "FileCost", "GitError", "Increase", "Progress",
    "RequestChange", "ToolChange", "Totals", "Violation", "build_report", "check_limits", "collect",
    "collect_at_ref", "compare", "models_used", "select_at_ref", "totals",
]
