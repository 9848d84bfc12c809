"""One prompt file from disk to budget plans: what `ctxlint budget` and rule CTX206 share.

The file is read and parsed exactly as ``ctxlint check`` reads it (same front-end, same
directives). Declarations are merged from the configuration's matching globs, then the front
matter, then the file's ``ctxlint:`` comments; fixtures come from ``--fixtures``, else the
declared file, else ``NAME.fixtures.yaml`` beside the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ctxlint.budget.allocator import Plan, simulate
from ctxlint.budget.fixtures import FixtureError, Fixtures, beside, from_mapping, load
from ctxlint.budget.policy import (
    Declarations,
    PolicyError,
    front_matter,
    parse_directive,
)
from ctxlint.budget.segments import BudgetSegment, Meter, Sample, Words, split
from ctxlint.catalogue import CatalogueError, Rule
from ctxlint.config import Settings
from ctxlint.directives import Directives
from ctxlint.model import Request, Span


class BudgetError(PolicyError):
    """What stops a simulation before it starts: bad input, declarations or fixtures (exit 2)."""


@dataclass
class Simulation:
    """Every plan for one request of the prompt."""

    request: Request
    model: str
    encoding: str
    exact: bool
    window: int | None
    reserve: int
    reserve_key: str | None  # how the request spells its output limit; None when it sets none
    fixtures: Path | None
    segments: list[BudgetSegment]
    declarations: Declarations
    words: Words
    meter: Meter
    plans: list[Plan] = field(default_factory=list)

    @property
    def empty(self) -> list[str]:
        """The segments with no sample content (no fixture and no ``--size``): counted as empty,
        so their budgets are not exercised."""
        return [segment.name for segment in self.segments if segment.sample == Sample.NONE]


def declarations_for(request: Request, directives: Directives, settings: Settings, relpath: str) -> Declarations:
    """Everything declared about ``request``'s budget (PolicyError when a declaration is invalid)."""
    from ctxlint.discover import glob_match

    declared = Declarations()
    for glob, table in settings.budget:
        if glob_match(glob, relpath):
            declared.merge(table)
    base = Path(request.path).parent
    if directives.front_matter is not None:
        header, first_line = directives.front_matter
        table = front_matter(header, first_line, request.path, base)
        if table is not None:
            declared.merge(table)
    for directive in directives.budget:
        span = Span(request.path, directive.line, directive.column, directive.line, directive.column)
        declared.merge(parse_directive(directive.kind, directive.arguments, span, base))
    return declared


def words_for(settings: Settings, catalogue: dict[str, Rule]) -> Words:
    """The word lists of rule CTX206 as the configuration sets them (BudgetError when it is
    invalid); ``catalogue`` carries its checks' option types (catalogue.with_checks)."""
    from ctxlint.config import ConfigError, configured_rules

    try:
        rules = configured_rules(settings, catalogue)
    except (CatalogueError, ConfigError) as error:
        raise BudgetError(str(error)) from None
    rule = next(r for r in rules.values() if r.check == "key_field_lost_at_budget")
    return Words.from_options(rule.options)


def prepare(request: Request, declarations: Declarations, settings: Settings, words: Words, directives: Directives,
            fixtures_path: Path | None = None, sizes: dict[str, int] | None = None) -> Simulation:
    """The request's segments with their content, ready to simulate at any budget."""
    from ctxlint.analysis.accounting import request_cost
    from ctxlint.tokens import lookup_model

    try:
        cost = request_cost(request, settings.models, settings.model, None)
        info = lookup_model(cost.model, settings.models) if cost.model_known else None
    except ValueError as error:
        raise BudgetError(str(error)) from None
    meter = Meter(info, cost.encoding)
    path = fixtures_path or declarations.fixtures or beside(Path(request.path))
    fixtures: Fixtures | None = None
    try:
        if path is not None:
            fixtures = load(path, settings.max_file_bytes)
        elif declarations.samples is not None:
            path = Path(request.path)
            lines = dict.fromkeys(declarations.samples, declarations.samples_line)
            fixtures = from_mapping(declarations.samples, path, lines, strict=False)
    except FixtureError as error:
        raise BudgetError(str(error)) from None
    try:
        segments = split(request, declarations, fixtures, sizes or {}, meter, words, directives, cost.total_input)
    except PolicyError as error:
        raise BudgetError(error.message, error.where, error.span) from None
    limit = request.output_limit
    reserve = limit.value if limit is not None and limit.value is not None and limit.value > 0 else 0
    return Simulation(
        request=request,
        model=cost.model,
        encoding=cost.encoding,
        exact=cost.exact,
        window=cost.window,
        reserve=reserve,
        reserve_key=limit.key if limit is not None and reserve else None,
        fixtures=path if fixtures is not None else None,
        segments=segments,
        declarations=declarations,
        words=words,
        meter=meter,
    )


def run(simulation: Simulation, budget: int, naive: bool = False) -> Plan:
    plan = simulate(simulation.segments, simulation.declarations.fields, budget, simulation.reserve,
                    simulation.meter, simulation.words.constraints, naive=naive)
    simulation.plans.append(plan)
    return plan


def simulate_file(path: Path, budgets: list[int] | None, settings: Settings, words: Words,
                  fixtures_path: Path | None = None, sizes: dict[str, int] | None = None,
                  naive: bool = False) -> list[Simulation]:
    """Plans for every request in the prompt file at ``path``, at each budget (or the declared one)."""
    from ctxlint import directives, frontends

    display, relpath = _names(path, settings.root)
    fmt = frontends.format_for(relpath, settings)
    if fmt is None:
        raise BudgetError(f"{display}: not a prompt file ctxlint reads (see `Formats it reads` in the README, "
                          "or map it in [tool.ctxlint.formats])")
    text = _read(path, display, settings.max_file_bytes)
    parsed = frontends.parse(fmt, text, display)
    if parsed.errors:
        span, message = parsed.errors[0]
        raise BudgetError(f"{span.path}:{span.line}:{span.column}: cannot parse: {message}")
    if not parsed.requests:
        raise BudgetError(f"{display}: no request found in this file (no prompt text, messages or tools)")
    found = directives.scan(text, fmt)
    simulations = []
    for request in parsed.requests:
        try:
            declared = declarations_for(request, found, settings, relpath)
        except PolicyError as error:
            raise BudgetError(error.message, error.where, error.span) from None
        simulation = prepare(request, declared, settings, words, found, fixtures_path, sizes)
        chosen = budgets or ([declared.min_budget] if declared.min_budget else None)
        if not chosen:
            raise BudgetError(f"{display}: give the budgets to simulate (--budget 800,1200) or declare one "
                              "(`ctxlint: budget min-budget=N`)")
        for budget in chosen:
            if simulation.window is not None and budget > simulation.window:
                raise BudgetError(f"--budget {budget:,} is above {simulation.model}'s {simulation.window:,}-token "
                                  "window; simulate a budget the model can take")
            run(simulation, budget, naive)
        simulations.append(simulation)
    return simulations


def _names(path: Path, root: Path) -> tuple[str, str]:
    import os

    try:
        display = os.path.relpath(path)
    except ValueError:
        display = str(path)
    try:
        relpath = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        relpath = path.name
    return display, relpath


def _read(path: Path, display: str, max_bytes: int) -> str:
    try:
        if not path.is_file():
            raise BudgetError(f"{display}: no such file")
        size = path.stat().st_size
        if size > max_bytes:
            raise BudgetError(f"{display}: {size:,} bytes is over the {max_bytes:,}-byte limit")
        data = path.read_bytes()
    except OSError as error:
        raise BudgetError(f"{display}: cannot read: {error.strerror or error}") from None
    if b"\0" in data[:8192]:
        raise BudgetError(f"{display}: a binary file, not a prompt")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BudgetError(f"{display}: not valid UTF-8; save the file as UTF-8") from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
