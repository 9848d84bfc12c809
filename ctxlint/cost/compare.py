"""Step 3 of ``ctxlint cost --compare``: what changed file by file, request by request (in
file order) and tool by tool (by name), and the limits the change is held to."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ctxlint.analysis.accounting import RequestCost
from ctxlint.cost.at_ref import Baseline
from ctxlint.cost.pricing import FileCost


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
class _PriceDelta(_Delta):
    """Tokens and the input price of 1,000 calls, before and after (None: no price known; for a
    comparison, of every request at the ref and now). Given by keyword, after the other fields."""

    price_before: float | None = field(default=None, kw_only=True)
    price_after: float | None = field(default=None, kw_only=True)

    @property
    def parts(self) -> Sequence[_Delta]:
        """What it is made of: a request's tools, a file's requests."""
        raise NotImplementedError

    @property
    def status(self) -> str:
        """As for a tool; one whose parts changed is changed even if its total is not."""
        status = super().status
        return "changed" if status == "unchanged" and any(p.status != "unchanged" for p in self.parts) else status

    @property
    def price_delta(self) -> float | None:
        if self.price_before is None and self.price_after is None:
            return None
        return (self.price_after or 0.0) - (self.price_before or 0.0)


@dataclass(frozen=True)
class ToolChange(_Delta):
    name: str
    before: int | None
    after: int | None


@dataclass(frozen=True)
class RequestChange(_PriceDelta):
    """One request (matched by its position in the file) before and after: input tokens and price."""

    index: int  # 0-based position among the file's requests
    line: int  # where it is now (or was, when removed)
    before: int | None
    after: int | None
    tools: tuple[ToolChange, ...] = ()

    @property
    def changed_tools(self) -> tuple[ToolChange, ...]:
        return tuple(t for t in self.tools if t.status != "unchanged")

    @property
    def parts(self) -> tuple[ToolChange, ...]:
        return self.tools


@dataclass(frozen=True)
class FileChange(_PriceDelta):
    path: str
    before: int | None
    after: int | None
    requests: tuple[RequestChange, ...] = ()

    @property
    def parts(self) -> tuple[RequestChange, ...]:
        return self.requests


@dataclass(frozen=True)
class Comparison(_PriceDelta):
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
    def parts(self) -> tuple[FileChange, ...]:
        return self.files

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
                i, line, b.total_input if b else None, a.total_input if a else None, _tools_change(b, a),
                price_before=b.input_price if b else None, price_after=a.input_price if a else None))
        changes.append(FileChange(path, before.tokens if before else None, after.tokens if after else None,
                                  tuple(requests), price_before=_price(b_requests), price_after=_price(a_requests)))
    return Comparison(baseline.ref, baseline.commit, tuple(changes),
                      sum(f.tokens for f in baseline.files), sum(f.tokens for f in files),
                      price_before=_price([r for f in baseline.files for r in f.requests]),
                      price_after=_price([r for f in files for r in f.requests]))


def _price(requests: Sequence[RequestCost]) -> float | None:
    """The input price of 1,000 calls of each request that has one (None: none has)."""
    prices = [r.input_price for r in requests if r.input_price is not None]
    return sum(prices) if prices else None


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

    @property
    def where(self) -> str | None:
        """``path:line``, the path alone, or None when the violation has no one place."""
        if self.path is None:
            return None
        return f"{self.path}:{self.line}" if self.line is not None else self.path


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


def unreadable_at_head(baseline: Baseline, files: Sequence[FileCost], unread: Sequence[str]) -> list[Violation]:
    """Files whose requests were counted at the base but cannot be at the head: they no longer
    parse, or cannot be read (``unread``: their paths). Left alone they would read as a cost
    decrease; the gate fails instead, naming the file."""
    before = {f.path: f for f in baseline.files if f.requests and not f.errors}
    out = []
    for f in files:
        if f.path in before and f.errors:
            out.append(Violation("parse-error", (
                f"it parsed at {baseline.ref} but not now ({f.errors[0]}): what it sends is not counted, so the "
                "change cannot be measured; fix the file"), f.path))
    for path in unread:
        if path in before:
            out.append(Violation("unread", (
                f"it was counted at {baseline.ref} but cannot be read now: what it sends is not counted, so the "
                "change cannot be measured"), path))
    return out
