"""One ``ctxlint cost`` run put together: collect, read the baseline, compare, check the limits."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ctxlint.analysis.accounting import RequestCost
from ctxlint.cost.at_ref import Baseline, collect_at_ref
from ctxlint.cost.compare import Comparison, Increase, Violation, check_limits, compare, unreadable_at_head
from ctxlint.cost.pricing import FileCost, Totals, collect, totals
from ctxlint.cost.progress import Progress
from ctxlint.engine import Linter
from ctxlint.results import Notice
from ctxlint.tokens import ModelInfo, lookup_model


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
        return bool(self.limits or self.violations) or (self.increase is not None and self.comparison is not None)

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
    lost: list[Violation] = []
    if compare_ref is not None:
        unread = [n.path for n in notices if n.unread]
        baseline = collect_at_ref(linter, compare_ref, paths, notices, stream, what_if)
        baseline = Baseline(baseline.ref, baseline.commit, tuple(
            f for f in baseline.files if settings.include_set_aside or not f.set_aside))
        comparison = compare(baseline, counted)
        lost = unreadable_at_head(baseline, counted, unread)
    limits = dict(settings.cost_limits)
    violations = lost + check_limits(counted, limits, comparison, increase)
    return CostReport(tuple(costs), models_used(costs, settings.models), limits, increase, comparison,
                      tuple(violations), tuple(notices), tuple(what_if), settings.include_set_aside)
