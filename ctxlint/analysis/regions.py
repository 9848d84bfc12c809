"""HEAD / MIDDLE / TAIL: where each segment of a request sits relative to variable-length content.

Variable-length content is what a budget truncates or summarises first: content whose size
varies per call, such as history, retrieved documents, tool results and search results. A loop
over a list the code supplies (sections of a form, a fixed rule list, the fields of a model)
is not: it has the same length on every call. HEAD is everything before the first
variable-length block (stable rules, task, tools), TAIL everything after the last one (the
current question, output format, restated rules), MIDDLE the blocks and whatever sits between
them. A request with no variable-length content is all HEAD. Authors can set the region of a
range of lines with ``ctxlint: head|middle|tail`` … ``ctxlint: end`` comments.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxlint.analysis import names
from ctxlint.directives import Directives
from ctxlint.model import Confidence, Evidence, EvidenceKind, Region, Request, Role, Segment


@dataclass(frozen=True)
class Variable:
    """A variable-length block and why it is taken to be one."""

    index: int
    evidence: Evidence
    confidence: Confidence
    kind: str  # tool-result, marked (a ctxlint comment) or collection (a name says so)


@dataclass(frozen=True)
class Layout:
    regions: tuple[Region, ...]  # one per segment of the request
    variable: tuple[Variable, ...]  # the variable-length segments, in order

    @property
    def indices(self) -> tuple[int, ...]:
        return tuple(v.index for v in self.variable)

    def describe_variable(self, request: Request, index: int) -> str:
        """How to name a variable-length segment in a message: `the loop over documents`."""
        segment = request.segments[index]
        if segment.loop is not None:
            return f"the loop over `{segment.loop}` (line {segment.span.line})"
        if segment.role is Role.TOOL:
            return f"the tool result on line {segment.span.line}"
        return f"`{segment.text}` (line {segment.span.line})"


def variable(segment: Segment, collections: list[str], directives: Directives) -> Variable | None:
    """Whether ``segment`` is variable-length content, with the evidence, or None."""
    return _variable(0, segment, collections, directives, {})


# What a segment's loop or slot says about it (the evidence, in words) or None, by the loop's
# text or the slot's names and outermost filter: a long template repeats a few thousands of times.
_Said = dict[object, str | None]


def _variable(index: int, segment: Segment, collections: list[str], directives: Directives,
              said: _Said) -> Variable | None:
    if segment.role is Role.TOOL:
        return Variable(index, Evidence(EvidenceKind.SOURCE, "a tool result, which varies per call", segment.span),
                        Confidence.HIGH, "tool-result")
    if directives.regions and directives.region_at(segment.span.line) is Region.MIDDLE:
        return Variable(index, Evidence(EvidenceKind.SOURCE, "marked middle by a ctxlint comment", segment.span),
                        Confidence.HIGH, "marked")
    slot = segment.slot
    if segment.loop is not None:
        key: object = segment.loop
    elif slot is not None:
        key = (slot.names, slot.filters[:1])  # all that `_says` reads of a slot
    else:
        return None
    if key not in said:
        said[key] = _says(segment, collections)
    found = said[key]
    if found is None:
        return None
    return Variable(index, Evidence(EvidenceKind.NAME, found, segment.span, strong=False), Confidence.MEDIUM,
                    "collection")


def _says(segment: Segment, collections: list[str]) -> str | None:
    if segment.loop is not None:
        collection = names.leading_name(segment.loop) or segment.loop
        if matches_collection(collection, collections):
            return f"a loop over `{collection}`, a collection whose size varies per call"
        return None  # a loop over a list the code supplies: the same length on every call
    slot = segment.slot
    if slot is None or names.measured(slot):
        return None
    # A slot's own `variable_length` is not enough: joining a small constant set varies in
    # length too, but nobody truncates it. What budgets trim are the named collections.
    name = next((n for n in slot.names if matches_collection(n, collections)), None)
    if name is None:
        return None
    return f"`{name}`, a collection whose size varies per call"


def is_variable(segment: Segment, collections: list[str], directives: Directives) -> bool:
    return variable(segment, collections, directives) is not None


def matches_collection(name: str, collections: list[str]) -> bool:
    return names.matches(name, collections) or names.matches(names.last(name), collections)


def analyse(request: Request, directives: Directives, collections: list[str]) -> Layout:
    said: _Said = {}
    found = [block for index, segment in enumerate(request.segments)
             if (block := _variable(index, segment, collections, directives, said)) is not None]
    count = len(request.segments)
    if not found:
        regions = [Region.HEAD] * count
    else:
        first, last = found[0].index, found[-1].index
        regions = [Region.HEAD] * first + [Region.MIDDLE] * (last + 1 - first) + [Region.TAIL] * (count - last - 1)
    if directives.regions:  # `ctxlint: head|middle|tail` ranges win over the layout
        for index, segment in enumerate(request.segments):
            explicit = directives.region_at(segment.span.line)
            if explicit is not None:
                regions[index] = explicit
    return Layout(tuple(regions), tuple(found))
