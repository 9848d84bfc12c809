"""A run of a prompt file that code loads by name (Genkit's ``ai.prompt("name")``), shared by the
Python and TypeScript front-ends that find them (``*/prompt_runs.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from ctxlint.model import Span

# What the settings of one run say of the output limit.
NO_LIMIT, LIMIT, UNKNOWN = "none", "limit", "unknown"
# The methods of a loaded prompt that send it, as calling it does (`ai.prompt("x").stream(...)`;
# `render` only renders it).
RUN_METHODS = frozenset({"stream"})


@dataclass(frozen=True)
class Run:
    """A call that runs the prompt (or the loader, when it is given settings), and what its
    settings say of the output limit."""

    span: Span
    code: str
    limit: str
