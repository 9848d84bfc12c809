"""Step 1 of ``ctxlint cost``: parse files (no rule runs) and price every request with the
accounting module, in worker processes for a large audit."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxlint.analysis.accounting import RequestCost, request_cost
from ctxlint.cost.progress import Progress
from ctxlint.discover import glob_match
from ctxlint.engine import Linter
from ctxlint.model import ParsedFile
from ctxlint.results import Notice, relative_path


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
    lower_bound_requests: int = 0  # of those, the ones that send values ctxlint cannot read


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
        lower_bound_requests=sum(1 for r in requests if r.lower_bound),
    )


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
