"""HEAD / MIDDLE / TAIL: where each segment of a request sits relative to variable-length content.

Variable-length content is what a budget truncates or summarises first: loops over
collections, history, retrieved documents, tool results. HEAD is everything before the first
such block (stable rules, task, tools), TAIL everything after the last one (the current
question, output format, restated rules), MIDDLE the blocks and whatever sits between them.
A request with no variable-length content is all HEAD. Authors can override the heuristics
for a range of lines with ``ctxlint: head|middle|tail`` … ``ctxlint: end`` comments.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxlint.analysis import names
from ctxlint.directives import Directives
from ctxlint.model import Region, Request, Role, Segment


@dataclass(frozen=True)
class Layout:
    regions: tuple[Region, ...]  # one per segment of the request
    variable: tuple[int, ...]  # indices of the variable-length segments

    def describe_variable(self, request: Request, index: int) -> str:
        """How to name a variable-length segment in a message: `the loop over documents`."""
        segment = request.segments[index]
        if segment.loop is not None:
            return f"the loop over `{segment.loop}` (line {segment.span.line})"
        if segment.role is Role.TOOL:
            return f"the tool result on line {segment.span.line}"
        return f"`{segment.text}` (line {segment.span.line})"


def is_variable(segment: Segment, collections: list[str]) -> bool:
    if segment.loop is not None or segment.role is Role.TOOL:
        return True
    slot = segment.slot
    if slot is None or names.measured(slot):
        return False
    # A slot's own `variable_length` is not enough: joining a small constant set varies in
    # length too, but nobody truncates it. What budgets trim are the named collections.
    return any(matches_collection(name, collections) for name in slot.names)


def matches_collection(name: str, collections: list[str]) -> bool:
    return names.matches(name, collections) or names.matches(names.last(name), collections)


def analyse(request: Request, directives: Directives, collections: list[str]) -> Layout:
    segments = request.segments
    variable = tuple(i for i, s in enumerate(segments) if is_variable(s, collections))
    regions = []
    for index, segment in enumerate(segments):
        explicit = directives.region_at(segment.span.line)
        if explicit is not None:
            regions.append(explicit)
        elif not variable or index < variable[0]:
            regions.append(Region.HEAD)
        elif index > variable[-1]:
            regions.append(Region.TAIL)
        else:
            regions.append(Region.MIDDLE)
    return Layout(tuple(regions), variable)
