"""`ctxlint cost`: what each request costs, and what a change adds to it (the budget gate).

The report is built in three steps, each usable on its own:

1. ``pricing``: :func:`collect` parses files (no rule runs) and prices every request with the
   accounting module: tokens per part and per tool, the cacheable prefix, the share of the
   window and the price per 1,000 calls with and without prompt caching.
2. ``at_ref``: :func:`collect_at_ref` does the same for the files as they are at a git commit.
   Blobs are read with ``git ls-tree`` and ``git cat-file``, never through the working tree or
   the index, and the front-ends parse their text as they parse files on disk.
3. ``compare``: :func:`compare` matches the two sides file by file, request by request (in file
   order) and tool by tool (by name), and :func:`check_limits` applies ``--max-increase`` and
   the absolute limits of ``[tool.ctxlint.cost]``.

``report`` puts a run together (:func:`build_report`); reporters (``ctxlint/report/cost_*.py``)
render the :class:`CostReport` with the wording of ``text``; nothing here prints.
"""

from ctxlint.cost.at_ref import Baseline, collect_at_ref, select_at_ref
from ctxlint.cost.compare import (
    Comparison,
    FileChange,
    Increase,
    RequestChange,
    ToolChange,
    Violation,
    check_limits,
    compare,
)
from ctxlint.cost.pricing import FileCost, Pricer, Totals, collect, set_aside_reason, totals
from ctxlint.cost.progress import Progress
from ctxlint.cost.report import CostReport, build_report, models_used
from ctxlint.cost.text import (
    cache_notes,
    counted,
    dollar_change,
    label,
    limits_text,
    mark,
    money,
    percent_change,
    plural,
    share,
    signed,
    signed_money,
    summary,
    tokens,
    unmeasured_change,
    what_if_lines,
    where,
)

__all__ = [
    "Baseline", "Comparison", "CostReport", "FileChange", "FileCost", "Increase", "Pricer", "Progress",
    "RequestChange", "ToolChange", "Totals", "Violation", "build_report", "cache_notes", "check_limits", "collect",
    "collect_at_ref", "compare", "counted", "dollar_change", "label", "limits_text", "mark", "models_used", "money",
    "percent_change", "plural", "select_at_ref", "set_aside_reason", "share", "signed", "signed_money", "summary",
    "tokens", "totals", "unmeasured_change", "what_if_lines", "where",
]
