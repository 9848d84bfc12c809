"""The rule engine: files -> front-ends -> shared model -> checks -> findings.

The engine reads each file defensively (size limit, binary sniffing, UTF-8 with a located
error), hands the text to the file's front-end, runs every selected check over the result and
filters findings through inline suppressions and per-file ignores.

A failure of ctxlint itself on one file (any exception but an interrupt, including the
``BaseException`` a native library panics with) is an ``InternalError`` of the run, never a
finding: no suppression hides it, and the other files are still linted.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint import directives, frontends
from ctxlint.analysis.volatility import Volatility
from ctxlint.catalogue import Rule, with_checks
from ctxlint.checks import option_types, registry
from ctxlint.config import Settings, configured_rules, project_root
from ctxlint.context import CheckContext, RequestAnalysis, in_function, in_main_block, in_scope
from ctxlint.directives import SuppressionUse
from ctxlint.discover import special_file
from ctxlint.filters import Selection, uncalled
from ctxlint.model import EvidenceKind, Finding, ParsedFile, Span
from ctxlint.relocate import map_spans
from ctxlint.results import InternalError, LintResult, Notice, display_path, relative_path

if TYPE_CHECKING:
    from ctxlint.cache import ResultCache

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 200
# A run over this many files counts tokens in enough text that building the whole tokenizer once,
# before any worker is forked (the workers share it), costs less than the vocabulary index's
# per-text subsets (ctxlint.tokens.index), which such a run outgrows part way and then pays both.
FULL_TOKENIZER_FILES = 100


class Linter:
    """Every selected rule, configured for one set of settings; lints files or text.

    ``select`` and ``ignore`` are for callers that pick rules themselves (the rule-example tests,
    benchmarks); the command line passes its options as settings layers instead. Invalid rule
    codes or options in ``settings`` raise ConfigError, naming where they were written.
    """

    def __init__(self, settings: Settings, catalogue: dict[str, Rule], select: list[str] | None = None,
                 ignore: Sequence[str] = ()):
        self.settings = settings
        self._root = settings.root.resolve()  # once, not for every file: resolving is a syscall per part
        catalogue = with_checks(catalogue, option_types())
        configured = configured_rules(settings, catalogue)  # validates codes and options first
        self.selection = Selection(settings, catalogue, select, ignore)
        checks = registry()
        self.catalogue = configured  # every rule with the user's options and severity
        self.rules: list[Rule] = [configured[code] for code in sorted(self.selection.codes)]
        # What counts as volatile is defined once, by the rules that report it (CTX101, CTX102),
        # and shared with every check that needs it, selected or not.
        self.volatility = Volatility.from_rules(r for r in configured.values() if r.check == "volatile_in_prefix")
        self._checks = checks
        # Notices front-ends gave about the files linted since the last look (a generated
        # module skipped); lint_files moves them into its result.
        self.notices: list[Notice] = []
        if settings.frameworks or not settings.builtin_frameworks:
            # The configuration's framework files load (and are validated) before any file is read.
            from ctxlint.frameworks import cached_frameworks

            cached_frameworks(tuple(settings.frameworks), settings.builtin_frameworks)
        # Files the front-ends read besides the one being linted, collected while a cache wants them.
        self._dependencies: list[str] | None = None
        self.parse_errors: list[InternalError] = []  # files parse_files/parse_bytes failed on
        # Suppressions may name rules (`ignore[volatile-in-prefix]`), as --select may.
        self._names = {rule.name: code for code, rule in catalogue.items()}
        # The rules a full run lints with: when all of them ran, a bare `ignore` that covered
        # nothing is certainly unused.
        self._default_set = frozenset(code for code, rule in catalogue.items()
                                      if not rule.preview and checks[rule.check].scope != "suppressions")

    def lint_files(self, files: list[Path], jobs: int | None = None) -> LintResult:
        """Lint ``files``; a large audit is split across ``jobs`` processes (default: every core)."""
        return lint_all([(path, self) for path in files], jobs)

    def serve_cached(self, path: Path, result: LintResult, cache: ResultCache) -> bool:
        """Whether ``path`` needs no linting: no front-end takes it, it is skipped (with a
        notice in ``result``), or its findings came from ``cache`` into ``result``. A failure
        here leaves the file to :meth:`lint_path`, which reports it."""
        try:
            loaded = self._load(path, result.notices)
            if loaded is None:
                return True
            display, _, _, data = loaded
            cached = cache.lookup(self, display, data)
        except Exception:
            return False
        if cached is None:
            return False
        result.files_checked += 1
        result.findings.extend(cached)
        return True

    def lint_path(self, path: Path, result: LintResult, cache: ResultCache | None = None) -> None:
        """Lint one file from disk into ``result`` (files no front-end takes are passed over).

        With a ``cache``, findings come from it while the file and every file its front-end
        declared reading (``ParsedFile.dependencies``) are unchanged; new results go to
        ``result.fresh`` for the caller to store (workers of a parallel run cannot write it).
        A file that makes ctxlint fail goes to ``result.errors`` (and is not cached).
        """
        try:
            self._lint_path(path, result, cache)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # a bug on one file must not stop, or hide in, an audit
            if _debugging():
                raise
            result.errors.append(InternalError.from_exception(display_path(path), error))

    def _lint_path(self, path: Path, result: LintResult, cache: ResultCache | None) -> None:
        loaded = self._load(path, result.notices)
        if loaded is None:
            return
        display, relpath, fmt, data = loaded
        result.files_checked += 1
        if cache is None:
            result.findings.extend(self.lint_bytes(data, display, relpath, fmt, path))
            self.take_notices(result)
            return
        cached = cache.lookup(self, display, data)
        if cached is not None:
            result.findings.extend(cached)
            return
        self._dependencies = []
        try:
            findings = self.lint_bytes(data, display, relpath, fmt, path)
            dependencies = self._dependencies
        finally:
            self._dependencies = None
        result.findings.extend(findings)
        self.take_notices(result)
        result.fresh.append((cache.key(self), display, cache.entry(data, dependencies, findings)))

    def _load(self, path: Path, notices: list[Notice]) -> tuple[str, str, str, bytes] | None:
        """A file's display path, path relative to its root, format and bytes; None when no
        front-end takes it or it is skipped (with a notice)."""
        relpath = relative_path(path, self._root)
        fmt = frontends.format_for(relpath, self.settings)
        if fmt is None:
            return None
        display = display_path(path)
        data = self._read(path, display, notices)
        return None if data is None else (display, relpath, fmt, data)

    def take_notices(self, result: LintResult) -> None:
        """Move what front-ends noticed about the file just linted into ``result``."""
        result.notices.extend(self.notices)
        self.notices.clear()

    def parse_files(self, files: list[Path], notices: list[Notice] | None = None) -> Iterator[tuple[str, ParsedFile]]:
        """Each file's display path and front-end result, without running any rule (``ctxlint cost``).

        Files are read exactly as :meth:`lint_files` reads them; files with no front-end are
        passed over, skipped files (too big, unreadable, binary) go to ``notices``, and files
        ctxlint fails on to :attr:`parse_errors`.
        """
        for path in files:
            relpath = relative_path(path, self._root)
            if frontends.format_for(relpath, self.settings) is None:
                continue
            display = display_path(path)
            data = self._read(path, display, notices if notices is not None else [])
            if data is None:
                continue
            parsed = self.parse_bytes(data, display, relpath, path)
            if parsed is not None:
                yield display, parsed

    def parse_bytes(self, data: bytes, display: str, relpath: str, path: Path | None = None) -> ParsedFile | None:
        """The front-end's result for a file's bytes (read from disk or from git), or None when
        no front-end takes ``relpath`` or ctxlint fails on the file (recorded in
        :attr:`parse_errors`). Bytes that are not UTF-8 give a located error."""
        fmt = frontends.format_for(relpath, self.settings)
        if fmt is None:
            return None
        text, parsed = self._decode(data, display)
        if parsed is not None:
            return parsed
        try:
            parsed = frontends.parse(fmt, _normalise(text), display, self.parse_context(relpath, path))
            if parsed.embedded is not None:  # a notebook: locations go back to their cells
                parsed = map_spans(parsed, parsed.embedded.relocate)
            return parsed
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            if _debugging():
                raise
            self.parse_errors.append(InternalError.from_exception(display, error))
            return None

    def parse_context(self, relpath: str, path: Path | None = None) -> frontends.ParseContext:
        """What a front-end may know of the file at ``relpath`` (``path`` on disk, when it is one).
        A file outside the configuration's root (`ctxlint check ../other/app.py` with no
        configuration there) is read in its own project: its imports resolve there, and the
        project's modules searched for its callers are that tree's, not the working directory's."""
        settings = self.settings
        root, where = settings.root, relpath
        parent = path.parent.resolve() if path is not None and relpath == path.name else None
        if path is not None and parent is not None and parent != self._root:
            root = project_root(parent)
            where = relative_path(path, root)
        return frontends.ParseContext(root, where, tuple(settings.frameworks), settings.builtin_frameworks,
                                      frontends.linked_only(relpath, settings),
                                      (*settings.test_paths, *settings.example_paths))

    def _read(self, path: Path, display: str, notices: list[Notice]) -> bytes | None:
        """The file's bytes, or None with a notice when it is too big, unreadable, binary or not
        a regular file (reading a FIFO would wait forever)."""
        try:
            status = path.stat()
            kind = special_file(status.st_mode)
            if kind is not None:
                notices.append(Notice(display, f"skipped: {kind}, not a regular file", unread=True))
                return None
            size = status.st_size
            if size > self.settings.max_file_bytes:
                notices.append(Notice(display, f"skipped: {size:,} bytes is over the "
                                               f"{self.settings.max_file_bytes:,}-byte limit", unread=True))
                return None
            data = path.read_bytes()
        except OSError as error:
            notices.append(Notice(display, f"skipped: cannot read ({error.strerror or error})", unread=True))
            return None
        if b"\0" in data[:8192]:
            notices.append(Notice(display, "skipped: binary file", unread=True))
            return None
        return data

    @staticmethod
    def _decode(data: bytes, display: str) -> tuple[str, ParsedFile | None]:
        """The text, or a ParsedFile holding a located error when the bytes are not UTF-8."""
        try:
            return data.decode("utf-8"), None
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            line_start = data.rfind(b"\n", 0, error.start) + 1
            # Columns are in code points everywhere (SARIF declares so), not bytes.
            column = len(data[line_start : error.start].decode("utf-8", errors="replace")) + 1
            return "", ParsedFile(display, errors=[(
                Span.point(display, line, column),
                f"not valid UTF-8 (byte 0x{data[error.start]:02x}); save the file as UTF-8",
            )])

    def lint_bytes(self, data: bytes, display: str, relpath: str, fmt: str, path: Path | None = None) -> list[Finding]:
        text, parsed = self._decode(data, display)
        if parsed is not None:
            return self._run(parsed, "", relpath, fmt)
        return self.lint_text(text, display, relpath, fmt, path)

    def lint_text(self, text: str, display: str, relpath: str, fmt: str, path: Path | None = None) -> list[Finding]:
        """The findings in one file's text; a failure of ctxlint itself propagates."""
        text = _normalise(text)
        # The texts a file's checks count again are its own (tokens/counting.py); the counter is
        # not imported here: a run that counts nothing never loads it.
        counting = sys.modules.get("ctxlint.tokens.counting")
        if counting is not None:
            counting.forget_long_counts()
        with frontends.collected_once():
            parsed = frontends.parse(fmt, text, display, self.parse_context(relpath, path))
            return self._run(parsed, text, relpath, fmt)

    def _run(self, parsed: ParsedFile, text: str, relpath: str, fmt: str) -> list[Finding]:
        findings: list[Finding] = []
        self.notices.extend(Notice(parsed.path, message) for message in parsed.notices)
        embedded = parsed.embedded  # code read out of a container (a notebook's cells)
        source, source_fmt = (embedded.text, embedded.fmt) if embedded else (text, fmt)
        found = directives.scan(source, source_fmt, parsed.path)
        found.resolve_names(self._names)
        selection = self.selection
        skipped = selection.ignored_in(relpath)
        ran = [rule for rule in self.rules if rule.code not in skipped]
        # The passes over each request that its checks share, made once for all the file's rules
        # (they go with this call: only findings outlive it).
        shared_analyses = {id(request): RequestAnalysis(request, found) for request in parsed.requests}
        for rule in ran:
            check = self._checks[rule.check]
            if check.scope != "file" and (check.scope != "request" or not parsed.requests):
                continue  # nothing to check: no context is made (most files have no request)
            ctx = CheckContext(rule, self.settings, self.volatility, found, findings.append,
                               lambda message: self.notices.append(Notice(parsed.path, message)))
            ctx.shared = shared_analyses
            if check.scope == "file":
                check.function(parsed, ctx)
            elif check.scope == "request":
                for request in parsed.requests:
                    ctx.checking(request, shared_analyses[id(request)])
                    check.function(request, ctx)
        # Checks can read files too (CTX206 reads a prompt's fixtures) and add them to
        # parsed.dependencies, so these are collected once every check has run.
        if self._dependencies is not None:
            self._dependencies.extend(os.path.abspath(p) for p in parsed.dependencies)
        scope = selection.scope(relpath, parsed.program)
        if scope != "code":
            findings = [in_scope(f, scope) for f in findings]
        elif embedded is None:
            if parsed.run_by_hand is not None:
                findings = [in_main_block(f, parsed) for f in findings]
            if parsed.named_functions:
                findings = [in_function(f, parsed) for f in findings]
        # One text can belong to several requests (a prompt constant sent from two call sites);
        # the same finding at the same place is reported once. A suppressed finding counts as a
        # use of its suppression whatever its confidence, so suppressions do not look unused
        # under one --confidence and used under another.
        kept: list[Finding] = []
        used: set[tuple[int, str | None]] = set()
        index = {id(s): i for i, s in enumerate(found.suppressions)}
        unique = _said_upstream(_unique(findings))
        if not found.suppressions:  # the usual case: no finding needs looking up, however many there are
            kept = [finding for finding in unique if selection.reported(finding)]
        else:
            looked_up: set[tuple[int, str]] = set()  # findings of one rule on one line use the same suppressions
            for finding in unique:
                if (finding.span.line, finding.code) not in looked_up:
                    looked_up.add((finding.span.line, finding.code))
                    hits = found.covering(finding)
                    used.update((index[id(s)], found.code_of(ref) if ref else None) for s, ref in hits)
                if not found.covers(finding) and selection.reported(finding):
                    kept.append(finding)
        audits = [rule for rule in ran if self._checks[rule.check].scope == "suppressions"]
        if audits and (found.suppressions or found.malformed):
            ran_codes = frozenset(rule.code for rule in ran)
            use = SuppressionUse(found, source, parsed.path, frozenset(used), ran_codes, frozenset(self.catalogue),
                                 complete=self._default_set <= ran_codes, parsed=not parsed.errors)
            for rule in audits:
                audit: list[Finding] = []
                self._checks[rule.check].function(use, CheckContext(rule, self.settings, self.volatility, found,
                                                                    audit.append))
                kept += [f for f in audit if not found.covers(f)]  # `ignore[CTX002]` silences it
        # Searched once per distinct text: thousands of findings of one rule share a few wordings.
        texts = {finding.message for finding in kept} | {step.text for finding in kept for step in finding.evidence}
        if any(_LONE_SURROGATE.search(text) for text in texts):
            kept = [_printable(f) for f in kept]  # rare: searched finding by finding only when one has it
        if embedded is not None:
            moved = [map_spans(f, embedded.relocate) for f in kept]
            return [replace(f, message=embedded.retell(f.message, f.span)) for f in moved]
        return kept


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


_COUNTS = re.compile(r"\d[\d,.]*")  # the numbers of a message: a claim's size, not the claim


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per rule, place and claim, in order: the surest of them. Two requests that
    include the same slot (a helper's prompt and the caller that sends it) each report it, one
    of them perhaps by a weaker path, or with a count of its own (the static tokens after a clock
    differ per request); the same claim, its counts aside, is said once."""
    at: dict[tuple[str, int, int, str], int] = {}
    unique: list[Finding] = []
    for finding in findings:
        key = (finding.code, finding.span.line, finding.span.column, _COUNTS.sub("#", finding.message))
        index = at.get(key)
        if index is None:
            at[key] = len(unique)
            unique.append(finding)
        elif finding.confidence.rank > unique[index].confidence.rank:
            unique[index] = finding
    return unique


def _said_upstream(findings: list[Finding]) -> list[Finding]:
    """The findings without those that say again what a finding of the same rule says earlier on
    the same flow: the same source, where one of the flow's steps (``joined with other text into
    `prompt` ``) covers the place the other is reported, at least as sure. The content was already
    reported where it entered the text (``prompt = f"...{page}..."``); a piece of that text sent
    later (``for chunk in split(prompt)``) is the same content, fixed by the same change."""
    by_source: dict[tuple[str, Span], list[Finding]] = {}
    for finding in findings:
        source = next((e.span for e in finding.evidence if e.kind is EvidenceKind.SOURCE and e.span), None)
        if source is not None:
            by_source.setdefault((finding.code, source), []).append(finding)
    repeated: set[int] = set()
    for group in by_source.values():
        for later in group:
            if any(earlier is not later and earlier.confidence.rank >= later.confidence.rank
                   and _passes(later, earlier) and not _passes(earlier, later) for earlier in group):
                repeated.add(id(later))
    return [f for f in findings if id(f) not in repeated] if repeated else findings


def _passes(finding: Finding, other: Finding) -> bool:
    """Whether a step of the flow of ``finding`` covers the place ``other`` is reported."""
    return any(e.kind is EvidenceKind.FLOW and e.span is not None and e.span.covers(other.span)
               for e in finding.evidence)


def once_each(findings: list[Finding]) -> list[Finding]:
    """Each finding once. A file read as part of another (a flow's template) can give the same
    finding twice, and so can a module whose cut a request of another module includes: only the
    module's own run names the function the finding is in, so the two differ in that alone. Two
    modules that each send the same prompt function's text make the same claim about its line,
    by ways that differ: said once, with where each sends it."""
    said: dict[Finding, Finding] = {}
    for finding in findings:
        key = replace(finding, function=None, evidence=())
        earlier = said.get(key)
        if earlier is not None:
            sinks = tuple(e for e in finding.evidence if e.kind is EvidenceKind.SINK and e not in earlier.evidence)
            finding = replace(finding, function=finding.function or earlier.function,
                              evidence=(*earlier.evidence, *sinks))
        said[key] = finding
    return list(said.values())


def said_at_origin(findings: list[Finding]) -> list[Finding]:
    """The findings without those that repeat, at a request of another module, a finding of the
    same rule reported where its source is: a cut a module makes in its own function reaches each
    module whose request includes that function's text, adopted there with a step back to it
    (``in provider/base.py, line 384``), and is fixed at that line alone. The finding at the origin
    stays, as sure as the surest of them, with where the other sends it added to its evidence."""
    at = {(f.code, f.span.path, f.span.line): i for i, f in enumerate(findings)}
    kept = list(findings)
    repeated: set[int] = set()
    for index, finding in enumerate(findings):
        step = next((e for e in finding.evidence if e.kind is EvidenceKind.FLOW), None)
        if step is None or step.span is None or step.span.path == finding.span.path or not step.is_adopted_from:
            continue
        origin = at.get((finding.code, step.span.path, step.span.line))
        if origin is None or origin in repeated:
            continue
        repeated.add(index)
        said = kept[origin]
        sinks = tuple(e for e in finding.evidence if e.kind is EvidenceKind.SINK and e not in said.evidence)
        kept[origin] = replace(said, confidence=max(said.confidence, finding.confidence, key=lambda c: c.rank),
                               evidence=(*said.evidence, *sinks))
    return [f for i, f in enumerate(kept) if i not in repeated] if repeated else findings


def _printable(finding: Finding) -> Finding:
    """A finding whose texts can be written as UTF-8: a string literal can hold a lone surrogate
    (``"\\ud800"``), which a message quoting it would carry to a report that cannot print it."""
    if not any(_LONE_SURROGATE.search(text) for text in _texts(finding)):
        return finding
    return replace(finding, message=_LONE_SURROGATE.sub("\ufffd", finding.message),
                   evidence=tuple(replace(step, text=_LONE_SURROGATE.sub("\ufffd", step.text))
                                  for step in finding.evidence))


def _texts(finding: Finding) -> Iterator[str]:
    yield finding.message
    for step in finding.evidence:
        yield step.text


# The files and cache of the current lint_all, inherited by forked workers so only indexes travel.
_WORK: list[tuple[Path, Linter]] = []
_CACHE: ResultCache | None = None


def lint_all(work: list[tuple[Path, Linter]], jobs: int | None = None, cache: ResultCache | None = None) -> LintResult:
    """Lint each file with its own Linter (one per configuration in a hierarchical run); a large
    audit is split across ``jobs`` processes (default: every core). New results are stored in
    ``cache`` (the caller saves it). A file that makes ctxlint fail is an internal error in the
    result, not a finding; the other files are linted as usual."""
    jobs = jobs or os.cpu_count() or 1
    result = LintResult()
    everything = work
    if cache is not None:
        # Cached results are served here, so a warm run starts no workers and a run after a
        # few edits lints only what changed, in one process when that is little.
        work = [(path, linter) for path, linter in work if not linter.serve_cached(path, result, cache)]
    if len(work) >= FULL_TOKENIZER_FILES:
        from ctxlint.tokens.encodings import get_encoding

        get_encoding("o200k_base")  # the default models' encoding
    if jobs > 1 and len(work) >= PARALLEL_THRESHOLD and _can_fork():
        result.add(_lint_in_workers(work, jobs, cache))
    else:
        for path, linter in work:
            linter.lint_path(path, result, cache)
    if cache is not None:
        for key, display, entry in result.fresh:
            cache.store(key, display, entry)
    # Whether a function is called depends on every file of the project, so it is decided here,
    # for cached results too, not with each file's own findings.
    result.findings = uncalled(result.findings, {display_path(path): (path, linter.settings.root, linter.selection)
                                                 for path, linter in everything})
    result.findings = said_at_origin(once_each(result.findings))
    result.findings.sort(key=lambda f: (f.span.path, f.span.cell or 0, f.span.line, f.span.column, f.code))
    result.notices.sort(key=lambda n: n.path)
    result.errors.sort(key=lambda e: e.path)
    return result


def _lint_in_workers(work: list[tuple[Path, Linter]], jobs: int, cache: ResultCache | None) -> LintResult:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _WORK, _CACHE
    # Forked workers inherit the linters (rules, settings, imported front-ends) and the cache
    # as loaded, so only indexes go out and findings come back.
    _WORK, _CACHE = work, cache
    context = multiprocessing.get_context("fork")
    size = max(1, len(work) // (jobs * 4))
    batches = [range(i, min(i + size, len(work))) for i in range(0, len(work), size)]
    result = LintResult()
    lost: list[int] = []
    try:
        with ProcessPoolExecutor(jobs, mp_context=context) as pool:
            futures = [(batch, pool.submit(_lint_chunk, batch)) for batch in batches]
            for batch, future in futures:
                try:
                    result.add(future.result())
                except BrokenProcessPool:
                    lost += batch
        # A worker died (killed by the operating system, a crash in a native library): its
        # files are linted again one per process, so the one that kills it is named.
        for index in lost:
            with ProcessPoolExecutor(1, mp_context=context) as pool:
                try:
                    result.add(pool.submit(_lint_chunk, range(index, index + 1)).result())
                except BrokenProcessPool:
                    result.errors.append(InternalError(display_path(work[index][0]), (
                        "the process linting this file died (killed by the operating system, "
                        "or a crash in a native library)")))
    finally:
        _WORK, _CACHE = [], None
    return result


def _lint_chunk(indexes: range) -> LintResult:
    result = LintResult()
    for index in indexes:
        path, linter = _WORK[index]
        linter.lint_path(path, result, _CACHE)
    return result


def _debugging() -> bool:
    """CTXLINT_DEBUG=1: let internal errors raise, with their traceback."""
    return bool(os.environ.get("CTXLINT_DEBUG"))


def _normalise(text: str) -> str:
    """What front-ends see: no byte-order mark, "\\n" line ends."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()
