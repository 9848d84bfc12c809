"""A request cut into budget segments, each with its policy and its sample content.

The segments, in the order the request sends them:

- ``framing``: message framing, reply priming and the provider's other overheads, as
  ``ctxlint cost`` counts the request (never cut);
- ``tools``: the tool definitions, with the provider's tool overhead;
- static text by role: ``system`` (system and developer text), ``user``, ``assistant``,
  ``tool``: the prompt's own words, pinned unless declared otherwise;
- one segment per variable, named after it (``history``, ``memory``); a loop's slots belong to
  the collection it iterates (``documents``), whose fixture stands for the rendered loop.

Kinds: ``question`` is the current user message (a variable named like a question, as CTX303
reads it): it is pinned and can never be declared cuttable. ``collection`` is variable-length
content (history, documents, results), ``variable`` any other slot.

Default policies: static text and the question ``pin``; tools ``compress`` (priority 60); a
history-like collection ``summarize`` (40); another collection ``truncate`` (30); any other
variable ``truncate`` (50). Minimums default to 0, ``turns`` to 3 and ``head`` to 55.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache

from ctxlint.analysis import names, regions
from ctxlint.budget.fixtures import Content, Fixtures
from ctxlint.budget.policy import Declarations, PolicyError, SegmentPolicy
from ctxlint.directives import Directives
from ctxlint.model import Request, Role, Segment, Span, ToolDef
from ctxlint.tokens import ModelInfo


class Kind(str, Enum):
    FRAMING = "framing"
    TOOLS = "tools"
    STATIC = "static"
    VARIABLE = "variable"
    COLLECTION = "collection"
    QUESTION = "question"


class Sample(str, Enum):
    """Where a segment's content comes from."""

    PROMPT = "prompt"  # the prompt's own text or tool definitions
    FIXTURE = "fixture"
    SIZE = "size"  # filler text of a size the user gave
    NONE = "none"  # nothing: counted as empty


HISTORY_NAMES = ["history", "*_history", "history_*", "messages", "chat_messages", "conversation", "turns"]
TOOL_POLICIES = ("pin", "compress", "drop")
_ROLE_NAMES = {
    Role.SYSTEM: "system",
    Role.DEVELOPER: "system",
    Role.USER: "user",
    Role.ASSISTANT: "assistant",
    Role.TOOL: "tool",
    Role.TOOLS: "tool_text",
}
_FILLER_WORDS_PER_LINE = 12


@dataclass(frozen=True)
class Words:
    """The name and word lists the simulation reads: rule CTX206's options (the same defaults as
    the layout rules'), so ``ctxlint budget`` and the rule read a prompt the same way."""

    collections: Sequence[str]  # variables whose size varies per call
    questions: Sequence[str]  # variables holding the current user message
    constraints: Sequence[str]  # words that make a line a hard constraint (extraction scores them)

    @classmethod
    def from_options(cls, options: Mapping[str, object]) -> Words:
        def strings(key: str) -> list[str]:
            value = options.get(key)
            return [str(v) for v in value] if isinstance(value, list) else []

        return cls(strings("collections"), strings("questions"), strings("constraints"))


@dataclass(frozen=True)
class Meter:
    """Token counts in the request's model and encoding, as ``ctxlint cost`` counts them.

    A simulation counts the same texts again and again (requested, kept, saved by
    de-duplication), so counts and encodings of the last texts are remembered.
    """

    info: ModelInfo | None
    encoding: str

    def text(self, text: str) -> int:
        return len(_encoded(self.encoding, text)) if text else 0

    def tools(self, tools: Sequence[ToolDef]) -> int:
        from ctxlint.analysis.accounting import tools_tokens

        return tools_tokens(tools, self.info)[0] if tools else 0

    def head(self, text: str, tokens: int) -> str:
        """The first ``tokens`` tokens of ``text`` (a character split across tokens is dropped)."""
        return self._decode(_encoded(self.encoding, text)[:max(tokens, 0)])

    def tail(self, text: str, tokens: int) -> str:
        """The last ``tokens`` tokens of ``text``."""
        encoded = _encoded(self.encoding, text)
        return self._decode(encoded[len(encoded) - tokens:]) if tokens > 0 else ""

    def _decode(self, tokens: Sequence[int]) -> str:
        from ctxlint.tokens import get_encoding

        return get_encoding(self.encoding).decode_bytes(list(tokens)).decode("utf-8", errors="ignore")


@lru_cache(maxsize=64)
def _encoded(encoding: str, text: str) -> tuple[int, ...]:
    from ctxlint.tokens import get_encoding

    return tuple(get_encoding(encoding).encode_ordinary(text))


@dataclass(frozen=True)
class BudgetSegment:
    name: str
    kind: Kind
    policy: str
    priority: int
    minimum: int
    ref: str | None = None
    turns: int = 3
    head: int = 55
    content: Content = field(default_factory=lambda: Content(()))
    tools: tuple[ToolDef, ...] = ()
    fixed_tokens: int = 0  # framing only
    sample: Sample = Sample.PROMPT
    # For static text: where each piece of ``content.text`` starts, and the source span of the piece.
    sources: tuple[tuple[int, Segment], ...] = ()
    declared: Span | None = None  # the declaration that set its policy, if any
    anchor: Span | None = None  # where the segment first appears in the prompt

    @property
    def pinned(self) -> bool:
        return self.policy == "pin"

    def source_span(self, start: int, end: int) -> Span | None:
        """Where characters ``start:end`` of the static text are in the prompt (None when the
        segment is not the prompt's own text)."""
        first, last = self._position(start), self._position(end)
        if first is None or last is None:
            return None
        return Span(self.sources[0][1].span.path, *first, *last)

    def _position(self, offset: int) -> tuple[int, int] | None:
        piece = None
        for start, segment in self.sources:
            if start <= offset:
                piece = (start, segment)
        if piece is None:
            return None
        start, segment = piece
        before = segment.text[: offset - start]
        line = segment.span.line + before.count("\n")
        column = (len(before) - before.rfind("\n")) if "\n" in before else segment.span.column + len(before)
        return line, column


@dataclass
class _Group:
    name: str
    kind: Kind
    first: Segment
    static: list[Segment] = field(default_factory=list)


class SegmentError(PolicyError):
    """A declaration or fixture that does not fit the request (an unknown segment name)."""


def split(request: Request, declarations: Declarations, fixtures: Fixtures | None, sizes: dict[str, int],
          meter: Meter, words: Words, directives: Directives, input_tokens: int) -> list[BudgetSegment]:
    """The request's budget segments in request order, with policies and sample content.

    ``input_tokens`` is what ``ctxlint cost`` counts for the request with every variable empty;
    ``framing`` is what that leaves after the tools and the prompt's own text (message framing,
    reply priming, the provider's adjustments), so that with empty variables the segments add
    up to the cost report's input exactly.
    """
    groups = _groups(request, words, directives)
    tools = _tools(request, fixtures)
    names_found = ["framing", *(["tools"] if tools else []), *groups]
    _check_names(declarations, fixtures, sizes, request, names_found)

    result = []
    if tools:
        policy = _policy(declarations, "tools", "compress", 60)
        if policy.policy not in TOOL_POLICIES:
            raise SegmentError(f"tools can be pinned, compressed or dropped, not `{policy.policy}`",
                               span=policy.span)
        result.append(BudgetSegment(
            "tools", Kind.TOOLS, policy.policy, policy.priority, policy.minimum,
            ref=policy.ref, tools=tuple(tools), declared=policy.span, anchor=tools[0].span,
            content=Content(tuple(tools_text(tools).split("\n")))))
    for group in groups.values():
        result.append(_segment(group, declarations, fixtures, sizes, meter))
    text = sum(meter.text(s.content.text) for s in result if s.kind is Kind.STATIC)
    framing = max(input_tokens - meter.tools(request.tools) - text, 0)
    return [BudgetSegment("framing", Kind.FRAMING, "pin", 0, 0, fixed_tokens=framing, anchor=request.anchor), *result]


def tools_text(tools: Sequence[ToolDef]) -> str:
    """The tool definitions as JSON text, one tool per line (for reading fields back)."""
    return "\n".join(json.dumps(_tool_json(t), ensure_ascii=False, sort_keys=True) for t in tools)


def _tool_json(tool: ToolDef) -> object:
    body: dict[str, object] = {"name": tool.name}
    if tool.description:
        body["description"] = tool.description
    if tool.schema is not None:
        body["parameters"] = tool.schema
    return body


def _groups(request: Request, words: Words, directives: Directives) -> dict[str, _Group]:
    """Segments grouped under their budget names, in request order."""
    collections = list(words.collections)
    question = _question_index(request, words, directives)
    groups: dict[str, _Group] = {}
    static_names = {_ROLE_NAMES[s.role] for s in request.segments if s.slot is None and s.loop is None}
    for index, segment in enumerate(request.segments):
        if segment.slot is None:
            if segment.loop is not None:  # repeated per item: the collection's fixture stands for it
                continue
            name = _ROLE_NAMES[segment.role]
            group = groups.setdefault(name, _Group(name, Kind.STATIC, segment))
            group.static.append(segment)
            continue
        name = _slot_name(segment)
        if name in static_names or name in ("framing", "tools"):
            name = f"{name}_var"
        if index == question:
            kind = Kind.QUESTION
        elif regions.is_variable(segment, collections, directives):
            kind = Kind.COLLECTION
        else:
            kind = Kind.VARIABLE
        existing = groups.get(name)
        if existing is None:
            groups[name] = _Group(name, kind, segment)
        elif kind is Kind.QUESTION or (kind is Kind.COLLECTION and existing.kind is Kind.VARIABLE):
            existing.kind = kind
    return groups


def _question_index(request: Request, words: Words, directives: Directives) -> int | None:
    """The current user message: the last variable named like a question (CTX303's reading)."""
    collections, questions = list(words.collections), list(words.questions)
    found = [i for i, s in enumerate(request.segments)
             if s.slot is not None and s.loop is None and not regions.is_variable(s, collections, directives)
             and any(names.matches(n, questions) for n in s.slot.names)]
    return found[-1] if found else None


def _slot_name(segment: Segment) -> str:
    if segment.loop is not None:
        return names.root(segment.loop)
    slot = segment.slot
    leading = names.leading_name(slot.expression) if slot is not None else None
    if leading:
        return names.root(leading)
    if slot is not None and slot.names:
        return names.root(slot.names[0])
    return f"slot_line_{segment.span.line}"


def _check_names(declarations: Declarations, fixtures: Fixtures | None, sizes: dict[str, int],
                 request: Request, found: list[str]) -> None:
    known = set(found)
    listing = ", ".join(n for n in found if n != "framing")
    for name, policy in declarations.segments.items():
        if name == "framing":
            raise SegmentError("`framing` is the provider's message framing: it is fixed and takes no policy",
                               span=policy.span)
        if name not in known and name not in declarations.lenient:
            raise SegmentError(f"the budget names segment `{name}`, which this request does not have "
                               f"(segments: {listing})", span=policy.span, where=_where(policy.span, request))
    for key_field in declarations.fields:
        if key_field.segment not in known and (key_field.span is not None):
            raise SegmentError(f"key field `{key_field.name}` is in segment `{key_field.segment}`, which this "
                               f"request does not have (segments: {listing})", span=key_field.span)
    if fixtures is not None and fixtures.strict:
        for name in fixtures.names():
            if name not in known or name == "framing":
                raise SegmentError(f"the fixtures give content for `{name}`, which is not a segment of "
                                   f"{request.path}:{request.anchor.line} (segments: {listing})",
                                   where=f"{fixtures.path}:{fixtures.lines.get(name, 1)}")
    for name in sizes:
        if name not in known:
            raise SegmentError(f"--size names `{name}`, which is not a segment of this request "
                               f"(segments: {listing})")


def _where(span: Span | None, request: Request) -> str:
    return f"{span.path}:{span.line}" if span is not None else f"{request.path}:{request.anchor.line}"


def _tools(request: Request, fixtures: Fixtures | None) -> list[ToolDef]:
    defined = [t for t in request.tools if t.schema is not None or t.description is not None]
    if fixtures is not None and fixtures.tools is not None:
        if defined:
            raise SegmentError("the request defines its own tools; remove `tools` from the fixtures",
                               where=f"{fixtures.path}:{fixtures.lines.get('tools', 1)}")
        return list(fixtures.tools)
    return list(request.tools)


@dataclass(frozen=True)
class _Policy:
    """A segment's declared policy with the defaults filled in."""

    policy: str
    priority: int
    minimum: int
    ref: str | None
    size: int | None
    turns: int
    head: int
    span: Span | None  # the declaration, if any


def _policy(declarations: Declarations, name: str, policy: str, priority: int) -> _Policy:
    declared = declarations.segments.get(name, SegmentPolicy())

    def given(value: int | None, default: int) -> int:
        return default if value is None else value

    return _Policy(declared.policy or policy, given(declared.priority, priority), given(declared.minimum, 0),
                   declared.ref, declared.size, given(declared.turns, 3), given(declared.head, 55), declared.span)


def _segment(group: _Group, declarations: Declarations, fixtures: Fixtures | None, sizes: dict[str, int],
             meter: Meter) -> BudgetSegment:
    name, kind = group.name, group.kind
    if kind is Kind.STATIC or kind is Kind.QUESTION:
        default_policy, priority = "pin", 100
    elif kind is Kind.COLLECTION and names.matches(name, HISTORY_NAMES):
        default_policy, priority = "summarize", 40
    elif kind is Kind.COLLECTION:
        default_policy, priority = "truncate", 30
    else:
        default_policy, priority = "truncate", 50
    policy = _policy(declarations, name, default_policy, priority)
    if kind is Kind.QUESTION and policy.policy != "pin":
        raise SegmentError(f"`{name}` is the current user message, which is never cut: it cannot be "
                           f"`{policy.policy}`; shorten what comes before it instead", span=policy.span)
    sources: tuple[tuple[int, Segment], ...] = ()
    if kind is Kind.STATIC:
        offset, pieces = 0, []
        for segment in group.static:
            pieces.append((offset, segment))
            offset += len(segment.text)
        sources = tuple(pieces)
        content = Content(tuple("".join(s.text for s in group.static).split("\n")))
        sample = Sample.PROMPT
    elif fixtures is not None and name in fixtures.contents:
        content, sample = fixtures.contents[name], Sample.FIXTURE
    elif name in sizes or policy.size:
        size = sizes.get(name, policy.size or 0)
        content, sample = filler(name, size, meter), Sample.SIZE
    else:
        content, sample = Content(()), Sample.NONE
    return BudgetSegment(
        name, kind, policy.policy, policy.priority, policy.minimum, ref=policy.ref, turns=policy.turns,
        head=policy.head, content=content,
        sample=sample, sources=sources, declared=policy.span, anchor=group.first.span)


def filler(name: str, size: int, meter: Meter) -> Content:
    """Neutral text of about ``size`` tokens (never more) for a segment with no fixture."""
    words = size
    for _ in range(8):  # each round removes the overshoot; line breaks make a round necessary
        if words <= 0:
            break
        lines = [" ".join([name if i == 0 else "sample"
                           for i in range(start, min(start + _FILLER_WORDS_PER_LINE, words))])
                 for start in range(0, words, _FILLER_WORDS_PER_LINE)]
        over = meter.text("\n".join(lines)) - size
        if over <= 0:
            return Content(tuple(lines))
        words -= over
    return Content(())
