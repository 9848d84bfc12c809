"""`ctxlint budget PROMPT --budget 800,1200 [--fixtures FILE] [--naive]`: parse the arguments,
simulate, render. The CLI turns BudgetError into exit code 2."""

from __future__ import annotations

import argparse
import importlib

from ctxlint.budget.simulate import BudgetError, Simulation, simulate_file, words_for
from ctxlint.config import Settings

__all__ = ["BudgetError", "failed", "parse_budgets", "parse_sizes", "run"]


def run(args: argparse.Namespace, settings: Settings, catalogue: dict) -> tuple[str, bool]:
    """The rendered report, and whether the run failed (a key field lost, a budget infeasible)."""
    budgets = parse_budgets(args.budgets) if args.budgets is not None else None
    sizes = parse_sizes(args.size)
    words = words_for(settings, catalogue)
    simulations = simulate_file(args.prompt, budgets, settings, words, args.fixtures, sizes, args.naive)
    # One module per format (ctxlint/report/budget_text.py ...), imported only when asked for.
    text = importlib.import_module(f"ctxlint.report.budget_{args.output_format}").render(simulations)
    return text, failed(simulations)


def failed(simulations: list[Simulation]) -> bool:
    return any(plan.error is not None or plan.missing for s in simulations for plan in s.plans)


def parse_budgets(value: str) -> list[int]:
    budgets = []
    for part in value.split(","):
        text = part.strip().replace("_", "")
        if not text.isdigit() or int(text) <= 0:
            raise BudgetError(f"--budget: `{part.strip()}` is not a positive number of tokens "
                              "(give one or more, comma-separated: --budget 800,1200)")
        budgets.append(int(text))
    return budgets


def parse_sizes(values: list[str]) -> dict[str, int]:
    sizes = {}
    for value in values:
        name, _, number = value.partition("=")
        if not name.strip() or not number.strip().isdigit():
            raise BudgetError(f"--size: `{value}` must be SEGMENT=TOKENS, such as --size history=600")
        sizes[name.strip()] = int(number)
    return sizes
