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
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TextIO

from ctxlint import git
from ctxlint.analysis.accounting import RequestCost, request_cost
from ctxlint.config import COST_LIMITS
from ctxlint.discover import SKIP_DIRS, GitIgnore, glob_match
from ctxlint.engine import Linter
from ctxlint.git import GitError, resolve_ref
from ctxlint.model import ParsedFile
from ctxlint.results import Notice, display_path, relative_path
from ctxlint.tokens import ModelInfo, lookup_model

# --- what one side costs -------------------------------------------------------------------------


@dataclass(frozen=True)
class FileCost:
    """The requests of one file, priced; ``errors`` are parse errors (``3:5: message``) that left
    part of the file uncounted. ``set_aside`` says why the file is kept out of the totals (test
    data, a template that is not a prompt), or is empty. With ``--model A,B``, ``what_if`` holds
    each request's cost under each of those models, and ``requests`` the costs under the first.
    """

    path: str
    requests: tuple[RequestCost, ...]
    errors: tuple[str, ...] = ()
    set_aside: str = ""
    what_if: tuple[tuple[RequestCost, ...], ...] = ()

    @property
    def tokens(self) -> int:
        return sum(r.total_input for r in self.requests)


@dataclass(frozen=True)
class Totals:
    """Sums over the counted requests; prices in USD per 1,000 calls of each request.

    ``input_price`` is the headline. ``cached_price`` is what the input costs with prompt caching
    where it applies (the input price elsewhere); output is apart: ``output_bound`` from the
    output limits, ``expected_output`` from ``expected-output-tokens``. A request whose price is
    unknown is left out of the sums and counted in ``unpriced_requests``.
    """

    files: int  # files that hold at least one request
    requests: int
    tools: int  # tool definitions, summed over requests
    input_tokens: int
    tool_tokens: int
    reserve: int
    input_price: float | None  # None when no request has a known price
    cached_price: float | None
    output_bound: float | None
    expected_output: float | None
    unpriced_requests: int
    estimated_requests: int  # requests whose counts are estimates (exact=False)


def totals(files: Sequence[FileCost], model: int | None = None) -> Totals:
    """Totals of ``files``; ``model`` picks one column of a what-if audit (None: ``requests``)."""
    requests = [r for f in files for r in (f.requests if model is None else (w[model] for w in f.what_if))]
    priced = [r for r in requests if r.input_price is not None]
    bounds = [r.pricing.output_bound for r in priced if r.pricing.output_bound is not None]
    expected = [r.pricing.expected_output for r in priced if r.pricing.expected_output is not None]
    return Totals(
        files=sum(1 for f in files if f.requests),
        requests=len(requests),
        tools=sum(len(r.tool_costs) for r in requests),
        input_tokens=sum(r.total_input for r in requests),
        tool_tokens=sum(r.tools for r in requests),
        reserve=sum(r.reserve for r in requests),
        input_price=sum(r.input_price or 0.0 for r in priced) if priced else None,
        cached_price=sum(r.cached_price or 0.0 for r in priced) if priced else None,
        output_bound=sum(bounds) if bounds else None,
        expected_output=sum(expected) if expected else None,
        unpriced_requests=len(requests) - len(priced),
        estimated_requests=sum(1 for r in requests if not r.exact),
    )


def other_tokens(cost: RequestCost) -> int:
    """Input tokens outside tools, system and messages: the reply priming and ``tool_choice``."""
    return cost.other


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


# Templates whose name says they render something other than a prompt: a web page, a Dockerfile,
# a config file, documentation. Their content, when it opens like one, says the same.
_NOT_PROMPT_NAME = re.compile(
    r"(?:^|/)(?:dockerfile|containerfile|makefile|readme|changelog|contributing|license)[^/]*$"
    r"|(?:^|/)_templates/"
    r"|\.(?:html?|xml|svg|css|js|ts|sh|bash|ps1|conf|cfg|ini|toml|ya?ml|json|sql|rst|tex|env|service|tf|hcl|csv|md)"
    r"\.(?:j2|jinja2?|tmpl|tpl)$",
    re.IGNORECASE,
)
_NOT_PROMPT_TEXT = (
    (re.compile(r"\A\s*(?:<!doctype\s+html|<html[\s>])", re.IGNORECASE), "an HTML page"),
    (re.compile(r"\A\s*<\?xml\b"), "an XML document"),
    (re.compile(r"\A\s*(?:#[^\n]*\n\s*)*FROM\s+\S+", re.IGNORECASE), "a Dockerfile"),
    (re.compile(r"\A#!\s*/"), "a script"),
)


def set_aside_reason(relpath: str, fmt: str | None, parsed: ParsedFile, globs: Sequence[str]) -> str:
    """Why a file's requests stay out of the totals: test data, or a template that is no prompt."""
    if any(glob_match(glob, relpath) for glob in globs):
        return "test data or fixtures"
    if fmt not in ("jinja", "text"):
        return ""
    if _NOT_PROMPT_NAME.search(relpath):
        return "a template that is not a prompt"
    for request in parsed.requests:
        first = next((s.text for s in request.segments if s.slot is None and s.text.strip()), "")
        for pattern, what in _NOT_PROMPT_TEXT:
            if pattern.match(first):
                return f"not a prompt ({what})"
    return ""


class Pricer:
    """Prices the requests of files under the configured model, or under each what-if model."""

    def __init__(self, linter: Linter, what_if: Sequence[str] = ()):
        self.linter = linter
        self.what_if = tuple(what_if)

    def file_cost(self, display: str, relpath: str, parsed: ParsedFile) -> FileCost | None:
        from ctxlint import frontends

        settings = self.linter.settings
        errors = tuple(f"{span.line}:{span.column}: {' '.join(message.split())}" for span, message in parsed.errors)
        if not parsed.requests and not errors:
            return None  # not a prompt (package.json, a Python file with no LLM call)

        def price(request, model: str | None) -> RequestCost:
            return request_cost(request, settings.models or None, settings.model, self.linter.volatility,
                                model=model, expected_output=settings.expected_output_tokens)

        with frontends.collected_once():
            what_if = tuple(tuple(price(r, m) for m in self.what_if) for r in parsed.requests) if self.what_if else ()
            costs = tuple(w[0] for w in what_if) if what_if else tuple(price(r, None) for r in parsed.requests)
        reason = set_aside_reason(relpath, frontends.format_for(relpath, settings), parsed, settings.set_aside)
        return FileCost(display, costs, errors, reason, what_if)

    def price_files(self, files: Sequence[Path]) -> tuple[list[FileCost], list[Notice], int]:
        out: list[FileCost] = []
        notices: list[Notice] = []
        root = self.linter.settings.root
        for path in files:
            for shown, parsed in self.linter.parse_files([path], notices):
                cost = self.file_cost(shown, relative_path(path, root.resolve()), parsed)
                if cost is not None:
                    out.append(cost)
        return out, notices, len(files)


# The pricer a forked worker inherits (set just before the pool starts).
_WORKER: Pricer | None = None
CHUNK = 40  # files per task: small enough to spread the work, large enough to keep overhead low


def _price_chunk(files: Sequence[Path]) -> tuple[list[FileCost], list[Notice], int, list]:
    """A worker's costs, notices and file count, and the files ctxlint failed on (for the parent to report)."""
    assert _WORKER is not None
    errors = _WORKER.linter.parse_errors
    errors.clear()
    return (*_WORKER.price_files(files), list(errors))


def collect(linter: Linter, files: Sequence[Path], notices: list[Notice], progress: Progress | None = None,
            what_if: Sequence[str] = (), jobs: int | None = None) -> list[FileCost]:
    """Price every request in ``files``; files that hold none are left out.

    Like ``ctxlint check``, an audit of many files uses every core: forked workers inherit the
    linter (and the tokenizer, loaded once here), only file lists go out and costs come back.
    """
    global _WORKER
    from ctxlint.engine import PARALLEL_THRESHOLD, _can_fork

    pricer = Pricer(linter, what_if)
    jobs = jobs or os.cpu_count() or 1
    out: list[FileCost] = []
    done = 0
    if jobs > 1 and len(files) >= PARALLEL_THRESHOLD and _can_fork():
        import multiprocessing

        from ctxlint.tokens import get_encoding

        get_encoding("o200k_base")  # built once, before the fork, instead of once per worker
        _WORKER = pricer
        chunks = [files[i:i + CHUNK] for i in range(0, len(files), CHUNK)]
        try:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                for part, part_notices, n, errors in pool.imap_unordered(_price_chunk, chunks):
                    out += part
                    notices += part_notices
                    linter.parse_errors += errors
                    done += n
                    if progress:
                        progress.update(done)
        finally:
            _WORKER = None
    else:
        for path in files:
            if progress:
                progress.update(done)
            part, part_notices, n = pricer.price_files([path])
            out += part
            notices += part_notices
            done += n
    if progress:
        progress.update(len(files))
        progress.close()
    notices.sort(key=lambda n: n.path)
    return sorted(out, key=lambda f: f.path)


# --- the same files at a git commit -------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    """What ``--compare`` read: the ref as given, the commit it names (None: no commit yet)."""

    ref: str
    commit: str | None
    files: tuple[FileCost, ...]


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
                   progress_stream: TextIO | None = None, what_if: Sequence[str] = ()) -> Baseline:
    """Price the requests in ``paths`` as they are at ``ref``, read from git's object store."""
    pricer = Pricer(linter, what_if)
    top = git.work_tree(paths)
    commit = resolve_ref(top, ref)
    tree = git.tree(top, commit)
    settings = linter.settings
    selected = select_at_ref(tree, top, paths, settings.root, settings.all_globs(), settings.exclude)
    wanted = {path: path for path in selected}  # tree path -> the path whose blob holds its content
    links = [p for p in selected if tree[p][0] == "120000"]
    link_blobs = git.read_blobs(top, [tree[p][1] for p in links])
    for path in links:
        target = git.symlink_target(tree, path, link_blobs.get(tree[path][1], b""))
        if target is None or tree[target][0] == "120000":
            del wanted[path]  # a link out of the tree, or a chain: nothing git can show
        else:
            wanted[path] = target
    files: list[FileCost] = []
    readable = {}
    for path, source in wanted.items():
        shown = display_path(top / path)
        size = tree[source][2]
        if size > settings.max_file_bytes:
            notices.append(Notice(shown, f"skipped at {ref}: {size:,} bytes is over the "
                                           f"{settings.max_file_bytes:,}-byte limit"))
            continue
        readable[path] = source
    blobs = git.read_blobs(top, sorted({tree[s][1] for s in readable.values()}))
    progress = Progress(len(readable), f"ctxlint cost ({ref})", progress_stream)
    for done, (path, source) in enumerate(sorted(readable.items())):
        progress.update(done)
        shown = display_path(top / path)
        data = blobs.get(tree[source][1])
        if data is None:
            notices.append(Notice(shown, f"skipped at {ref}: git cannot read the blob"))
            continue
        if b"\0" in data[:8192]:
            notices.append(Notice(shown, f"skipped at {ref}: binary file"))
            continue
        relpath = _relative_to(top / path, settings.root.resolve())
        relpath = relpath if relpath is not None else Path(path).name
        parsed = linter.parse_bytes(data, shown, relpath)
        cost = pricer.file_cost(shown, relpath, parsed) if parsed is not None else None
        if cost is not None:
            files.append(cost)
    progress.update(len(readable))
    progress.close()
    return Baseline(ref, commit, tuple(sorted(files, key=lambda f: f.path)))


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
            line = a.line if a is not None else b_requests[i].line  # past the end of one, inside the other
            requests.append(RequestChange(
                i, line, b.total_input if b else None, a.total_input if a else None, _tools_change(b, a)))
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
    """One ``ctxlint cost`` run. ``files`` holds every file with a request, ``counted`` those in
    the totals (``set_aside`` files are listed apart unless ``include_set_aside``). ``what_if``
    names the models of a ``--model A,B`` audit (empty: each request's own model)."""

    files: tuple[FileCost, ...]
    models: tuple[ModelInfo, ...]  # the model table entries the requests used
    limits: Mapping[str, int] = field(default_factory=dict)  # [tool.ctxlint.cost]
    increase: Increase | None = None
    comparison: Comparison | None = None
    violations: tuple[Violation, ...] = ()
    notices: tuple[Notice, ...] = ()
    what_if: tuple[str, ...] = ()
    include_set_aside: bool = False

    @property
    def counted(self) -> tuple[FileCost, ...]:
        return tuple(f for f in self.files if self.include_set_aside or not f.set_aside)

    @property
    def set_aside(self) -> tuple[FileCost, ...]:
        return () if self.include_set_aside else tuple(f for f in self.files if f.set_aside)

    @property
    def totals(self) -> Totals:
        return totals(self.counted)

    def totals_for(self, model: int) -> Totals:
        """Totals of the counted files under the ``model``-th what-if model."""
        return totals(self.counted, model)

    @property
    def requests(self) -> list[RequestCost]:
        return [r for f in self.counted for r in f.requests]

    @property
    def gated(self) -> bool:
        """Whether any limit was checked (the report then says whether it passed)."""
        return bool(self.limits) or (self.increase is not None and self.comparison is not None)

    @property
    def passed(self) -> bool:
        return not self.violations

    def notes(self) -> dict[str, list[RequestCost]]:
        """Each distinct request note (estimates, unknown models, what is not counted) and its requests."""
        by_note: dict[str, list[RequestCost]] = {}
        for f in self.counted:
            for r in (c for w in f.what_if for c in w) if f.what_if else f.requests:
                if r.note:
                    by_note.setdefault(r.note, []).append(r)
        return by_note


def models_used(files: Iterable[FileCost], extra: Mapping | None) -> tuple[ModelInfo, ...]:
    found: dict[str, ModelInfo] = {}
    for f in files:
        for r in (c for w in f.what_if for c in w) if f.what_if else f.requests:
            if r.model_known and r.model not in found:
                info = lookup_model(r.model, extra or None)
                if info is not None:
                    found[r.model] = info
    return tuple(sorted(found.values(), key=lambda m: m.name))


def build_report(linter: Linter, files: Sequence[Path], paths: Sequence[str], compare_ref: str | None = None,
                 increase: Increase | None = None, stream: TextIO | None = None,
                 what_if: Sequence[str] = (), jobs: int | None = None) -> CostReport:
    """The whole ``ctxlint cost`` run: collect, read the baseline, compare, check the limits."""
    notices: list[Notice] = []
    settings = linter.settings
    costs = collect(linter, files, notices, Progress(len(files), "ctxlint cost", stream), what_if, jobs)
    counted = [f for f in costs if settings.include_set_aside or not f.set_aside]
    comparison = None
    if compare_ref is not None:
        baseline = collect_at_ref(linter, compare_ref, paths, notices, stream, what_if)
        comparison = compare(Baseline(baseline.ref, baseline.commit, tuple(
            f for f in baseline.files if settings.include_set_aside or not f.set_aside)), counted)
    limits = dict(settings.cost_limits)
    violations = check_limits(counted, limits, comparison, increase)
    return CostReport(tuple(costs), models_used(costs, settings.models), limits, increase, comparison,
                      tuple(violations), tuple(notices), tuple(what_if), settings.include_set_aside)


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
    cell = f"cell {cost.cell}:" if cost.cell is not None else ""  # a notebook, as ruff writes it
    return f"{cost.path}:{cell}{cost.line}"


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def summary(report: CostReport, totals: Totals | None = None) -> list[str]:
    """The report's totals in sentences: input first (the headline), output apart, then what the
    numbers leave out. Reporters print them as they are (table) or dress them (markdown, html)."""
    t = totals or report.totals
    if not t.requests:
        return ["No requests found: no prompt template, request or tool file among the files given."]
    line = f"{plural(t.requests, 'request')} in {plural(t.files, 'file')}: {t.input_tokens:,} input tokens"
    if t.tools:
        line += f", {t.tool_tokens:,} of them in {plural(t.tools, 'tool definition')}"
    out = [line + "."]
    if t.input_price is not None:
        cached = [r for r in report.requests if r.pricing.cached_input is not None]
        line = f"Input: {money(t.input_price)} per 1,000 calls of each request"
        if cached:
            line += (f"; {money(t.cached_price)} with prompt caching where it applies "
                     f"({plural(len(cached), 'request')})")
        else:
            line += "; prompt caching applies to none of them"
        out.append(line + ".")
    if t.output_bound is not None:
        line = (f"Output, priced apart: at most {money(t.output_bound)} per 1,000 calls (each request's output "
                "limit, or its model's maximum where it sets none)")
        if t.expected_output is not None:
            expected = next((r.pricing.expected_output_tokens for r in report.requests), None)
            line += f"; {money(t.expected_output)} expected at {expected:,} tokens per answer"
        else:
            line += "; set [tool.ctxlint.cost] expected-output-tokens for an expected price"
        out.append(line + ".")
    left = []
    if t.estimated_requests:
        left.append(f"~ marks estimates ({plural(t.estimated_requests, 'request')})")
    if t.unpriced_requests:
        left.append(f"{plural(t.unpriced_requests, 'request')} not priced (no model, or a model or price "
                    "missing from the table)")
    if left:
        text = "; ".join(left)
        out.append(text[0].upper() + text[1:])
    aside = report.set_aside
    if aside:
        reasons = sorted({f.set_aside for f in aside})
        out.append(f"Kept out of the totals: {plural(len(aside), 'file')} ({'; '.join(reasons)}), listed below; "
                   "--include-set-aside counts them.")
    return [line if line.endswith(".") else line + "." for line in out]


def what_if_lines(report: CostReport) -> list[str]:
    """One sentence per model of a ``--model A,B`` audit: its totals over the same requests."""
    out = []
    for i, model in enumerate(report.what_if):
        t = report.totals_for(i)
        line = f"{model}: {t.input_tokens:,} input tokens, {money(t.input_price)} per 1,000 calls of each request"
        if t.cached_price is not None and t.cached_price != t.input_price:
            line += f" ({money(t.cached_price)} with prompt caching)"
        if t.output_bound is not None:
            line += f"; output at most {money(t.output_bound)}"
        if t.expected_output is not None:
            line += f", expected {money(t.expected_output)}"
        if t.estimated_requests:
            line += f"; ~ {t.estimated_requests} estimated"
        if t.unpriced_requests:
            line += f"; {t.unpriced_requests} not priced"
        out.append(line + ".")
    return out


def cache_notes(report: CostReport) -> dict[str, list[RequestCost]]:
    """Why prompt caching does not apply, with the requests each reason covers."""
    out: dict[str, list[RequestCost]] = {}
    for r in report.requests:
        if r.pricing.cached_input is None and r.pricing.input is not None and r.pricing.cache_note:
            out.setdefault(r.pricing.cache_note, []).append(r)
    return out


def where(requests: Sequence[RequestCost]) -> str:
    """``a.json:1, b.j2:3`` for up to three requests, else ``5 requests``."""
    return ", ".join(label(r) for r in requests) if len(requests) <= 3 else plural(len(requests), "request")


def limits_text(report: CostReport) -> list[str]:
    """The limits that were checked, as short phrases (for the summary lines)."""
    parts = []
    if report.increase is not None and report.comparison is not None:
        parts.append(f"max increase {report.increase}")
    parts += [f"{key} {value:,}" for key, value in report.limits.items() if key in COST_LIMITS]
    return parts


__all__ = [
    "Baseline", "Comparison", "CostReport", "FileChange", "FileCost", "GitError", "Increase", "Pricer", "Progress",
    "RequestChange", "ToolChange", "Totals", "Violation", "build_report", "check_limits", "collect",
    "collect_at_ref", "compare", "models_used", "select_at_ref", "set_aside_reason", "totals",
]
