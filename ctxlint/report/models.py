"""`ctxlint models`: the model table, each figure with the page it was read from and when."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ctxlint.tokens.models import FIGURES, ModelInfo, from_provider

# How each figure reads in the listing: (label, value).
_LABELS = {"window": "window", "max-output": "output limit", "input": "input", "cached": "cached input",
           "output": "output", "cache-min": "cache minimum"}
SECONDHAND = "†"  # marks a figure read from a copy, not from the provider's own page


def _value(info: ModelInfo, figure: str) -> int | float | None:
    return {"window": info.window, "max-output": info.max_output, "input": info.input_per_mtok,
            "cached": info.cached_input_per_mtok, "output": info.output_per_mtok,
            "cache-min": info.cache_min_tokens}[figure]


def _shown(info: ModelInfo, figure: str) -> str:
    value = _value(info, figure)
    if value is None:  # a model without prompt caching has no cached price to know
        text = "none" if figure == "cache-min" or (figure == "cached" and info.cache_min_tokens is None) else "?"
    elif figure in ("input", "cached", "output"):
        text = f"{value:,.3f}"
        text = text[:-1] if text.endswith("0") else text  # 2.50, 0.275
    else:
        text = f"{value:,}"
    page, _ = info.source_of(figure)
    return text + (SECONDHAND if value is not None and not from_provider(page) and page != "config" else "")


def models_text(models: Sequence[ModelInfo], asked: Sequence[tuple[str, ModelInfo]] = ()) -> str:
    """A table of the models, then where each figure came from; ``asked`` pairs each name given on
    the command line with the model it resolved to."""
    lines = [f"{name}: {info.name}" for name, info in asked if name != info.name]
    if lines:
        lines.append("")
    header = ("model", "provider", "window", "output limit", "input $/M", "cached $/M", "output $/M", "counts")
    shown = ("window", "max-output", "input", "cached", "output")
    rows = [(info.name, info.provider, *(_shown(info, f) for f in shown), "exact" if info.exact else "estimate")
            for info in models]
    widths = [max(len(str(row[i])) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        cells = [str(cell).rjust(width) if 2 <= i <= 6 else str(cell).ljust(width)
                 for i, (cell, width) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    lines += ["", f"Prices in $ per million tokens; ? unknown. {SECONDHAND} read from a copy of the provider's",
              "figures (a reseller's or a library's table), not from the provider's own page. Counts are",
              "exact only where they reproduce counts the provider's API printed.", "", "Sources:"]
    for info in models:
        also = f"also {', '.join(info.aliases)}" if info.aliases else ""
        notes = "; ".join(note for note in (also, info.status, f"counted with {info.encoding}") if note)
        lines.append(f"  {info.name} ({notes})")
        for figures, (page, as_of) in _grouped(info):
            when = f", read {as_of}" if as_of else ""
            lines.append(f"    {', '.join(_LABELS[f] for f in figures)}: {page}{when}")
    return "\n".join(lines) + "\n"


def _grouped(info: ModelInfo) -> list[tuple[list[str], tuple[str, str]]]:
    """The figures of one model grouped by the page they were read from, in ``FIGURES`` order."""
    groups: dict[tuple[str, str], list[str]] = {}
    for figure in FIGURES:
        groups.setdefault(info.source_of(figure), []).append(figure)
    return [(figures, source) for source, figures in groups.items()]


def models_json(models: Sequence[ModelInfo], asked: Sequence[tuple[str, ModelInfo]] = ()) -> str:
    """Every model with each figure's value, page, date and whether the page is the provider's."""
    entries = []
    for info in models:
        figures = {}
        for figure in FIGURES:
            page, as_of = info.source_of(figure)
            figures[figure] = {"value": _value(info, figure), "source": page, "as_of": as_of,
                               "provider_page": from_provider(page)}
        entries.append({
            "name": info.name, "provider": info.provider, "aliases": list(info.aliases), "status": info.status,
            "encoding": info.encoding, "exact": info.exact, "cache_write_multiplier": info.cache_write_multiplier,
            "tool_overhead": [info.tool_overhead_auto, info.tool_overhead_any], "figures": figures,
        })
    resolved = {name: info.name for name, info in asked}
    return json.dumps({"models": entries, **({"resolved": resolved} if asked else {})}, indent=2) + "\n"
