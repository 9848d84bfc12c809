"""Trust: which slots carry third-party content, how sure we are, and whether it is labelled.

Evidence that a slot holds untrusted content (web pages, retrieved documents, tool output,
uploads, e-mails), strongest first:

- the author's ``ctxlint: untrusted=name`` comment, or a front-end's data flow from a known
  source (an HTTP body, a retriever result, a tool result): ``Source`` of kind UNTRUSTED;
- a variable (or an item of a collection) whose name says so (``page``, ``documents``), which is
  weak on its own: ``context`` is as often the user's own topic as a retrieved passage;
- the prompt's own words right before the slot (``Search results:``, ``the web page below``),
  which corroborate a name, or on their own hint at content under a name we do not know.

Labelled means the slot sits between explicit markers in its message: any XML-like tag pair,
a fenced block or triple quotes, or BEGIN/END marker lines of any wording. The scan is one
pass per message, so a prompt with thousands of slots costs no more than its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import NamedTuple

from ctxlint.analysis import headed, introduced, names, vocabulary
from ctxlint.analysis.delimiters import Label, OpenLabels, Token, tokens
from ctxlint.analysis.vocabulary import Vocabulary
from ctxlint.directives import Directives
from ctxlint.model import Evidence, EvidenceKind, Request, Segment, Slot, SourceKind


@dataclass(frozen=True)
class Untrusted:
    """Why a slot is taken to hold third-party content, and how sure that is."""

    reason: str  # for messages: `page`, `an item of documents`, `requests.get(...).text, line 9`
    # The kind of evidence (the trust rules' `evidence:` tables give each its confidence): in
    # code, source, declared, weak-source-and-name, weak-source, name-in-loop, name-and-words,
    # name, prompt-words; in a template, the same prefixed `template-` and the ambiguous names.
    kind: str
    evidence: tuple[Evidence, ...]

    @property
    def proven(self) -> bool:
        """Shown by a known source or declared by the author, not inferred from names or words."""
        return self.kind in ("source", "template-source", "format-site-source", "caller-source", "declared")


@dataclass(frozen=True)
class TrustOptions:
    untrusted: tuple[str, ...]  # name globs of third-party content
    trusted: tuple[str, ...]  # name globs that are never untrusted (the operator's own text)
    metadata: tuple[str, ...]  # attributes of an untrusted item that are not its content (ids, scores)
    questions: tuple[str, ...]  # the user's own turn: never third-party content, whatever else it matches
    content_words: tuple[str, ...]  # words in the text before a slot that describe third-party content
    vocabulary: Vocabulary  # word families of names: content, ambiguous, metadata
    web_words: tuple[str, ...]  # content families only text fetched from the web is named for

    @classmethod
    def of(cls, options: dict) -> TrustOptions:
        def listed(key: str) -> tuple[str, ...]:
            return tuple(options[key])

        return cls(listed("untrusted"), listed("trusted"), listed("metadata"), listed("questions"),
                   listed("content_words"), Vocabulary(listed("content_names"), listed("ambiguous_names"),
                                                       listed("metadata_words"), listed("carrier_words")),
                   listed("web_words"))


# How far back in the message the prompt's words may describe a slot.
_LEAD_CHARS = 160


class Named(NamedTuple):
    """The name that makes a slot untrusted: who says so (the author's comment, a word family of
    content, an ambiguous word) and the name itself."""

    name: str
    family: str  # "declared", "content" or "ambiguous"


class NameFacts(NamedTuple):
    """What a slot's names (and loop) say, whatever the text around it."""

    named: Named | None
    excluded: bool  # the user's question, trusted or metadata: never content introduced by the prompt's words
    item_of: str | None  # the collection it is printed from item by item, when that says content too


NamedCache = dict[tuple[tuple[str, ...], str | None, bool], NameFacts]

# Files whose slots are written in code (a variable's name is the programmer's); every other
# file is a template, whose slot names are the template's own vocabulary (and calibrated apart).
_CODE_SUFFIXES = (".py", ".ipynb", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def in_template(request: Request) -> bool:
    return not request.path.lower().endswith(_CODE_SUFFIXES)


def untrusted_slots(request: Request, options: TrustOptions,
                    directives: Directives) -> list[tuple[int, Segment, Untrusted]]:
    """The slots of ``request`` that carry third-party content, with the evidence of each."""
    found = []
    named: NamedCache = {}
    for index, segment in request.indexed_slots():
        carried = untrusted(request, index, options, directives, named)
        if carried is not None:
            found.append((index, segment, carried))
    return found


def untrusted(request: Request, index: int, options: TrustOptions, directives: Directives,
              named_before: NamedCache | None = None) -> Untrusted | None:
    """The evidence that segment ``index`` of ``request`` carries third-party content, or None
    (see ``_untrusted``). A field of a prompt constant in code that takes the facts of where code
    fills it is evidence of its own kinds (``format-site-…``), calibrated apart from template files."""
    found = _untrusted(request, index, options, directives, named_before)
    slot = request.segments[index].slot
    if found is not None and slot is not None and slot.passed_at is not None and \
            all(step.span != slot.passed_at for step in found.evidence):
        at = slot.passed_at
        passed = Evidence(EvidenceKind.FLOW, f"passed as `{slot.expression}` at {at.path}:{at.line}", at)
        found = replace(found, evidence=(*found.evidence[:-1], passed, found.evidence[-1]))
    if found is None or slot is None or not slot.filled_at or not found.kind.startswith("template-"):
        return _sent_from_code(request, index, found)
    kind = "format-site-" + found.kind.removeprefix("template-")
    if "name" in kind and _says_content(slot.expression, options, True) is None:
        # Only the code's name for the value passed says content (`design_doc.content`): a
        # programmer's variable name, as weak as one in code.
        kind = "format-site-value-name"
    seen = {step.span for step in found.evidence}
    filled = tuple(Evidence(EvidenceKind.FLOW, f"filled where code formats the prompt, {at.path}:{at.line}", at)
                   for at in slot.filled_at[:3] if at not in seen)
    # The prompt the value is rendered through (a header per document): what the field carries.
    filled += tuple(Evidence(EvidenceKind.FLOW, f"the value is built with the prompt `{name}`, {at.path}:{at.line}", at)
                    for name, at in slot.built_with if at not in seen and at != request.segments[index].span)
    return _sent_from_code(request, index, replace(found, kind=kind, evidence=(*found.evidence[:-1], *filled,
                                                                            found.evidence[-1])))


def _sent_from_code(request: Request, index: int, found: Untrusted | None) -> Untrusted | None:
    """``found`` with the message of the code that sends a bare template, where that gives its
    role, as a step after the slot's own (the reader sees why the role is known); in code, the
    call that makes the message or sends the request, where the content is written elsewhere
    (`msg += out` lines above `yield Message("system", msg)`, a prompt function of another module
    whose text a call sends), as the last step: where its role is given."""
    segment = request.segments[index]
    if found is None:
        return found
    at = request.sent_at
    if at is not None:
        step = Evidence(EvidenceKind.SINK, f"sent as the {segment.role.value} message at {at.path}:{at.line}", at)
        return replace(found, evidence=(*found.evidence[:-1], step, found.evidence[-1]))
    # Where the code writes the message (`content: prompt`), else the call that sends the request.
    at = segment.sent_in or request.anchor
    if in_template(request) or at.covers(segment.span) or segment.span.covers(at):
        return found
    where = f"line {at.line}" if at.path == segment.span.path else f"{at.path}:{at.line}"
    step = Evidence(EvidenceKind.SINK, f"sent as the {segment.role.value} message at {where}", at)
    return replace(found, evidence=(*found.evidence, step))


def _untrusted(request: Request, index: int, options: TrustOptions, directives: Directives,
               named_before: NamedCache | None = None) -> Untrusted | None:
    """The evidence that segment ``index`` of ``request`` carries third-party content, or None.

    ``named_before`` keeps what each slot's names (and loop) were found to say, for a caller that
    asks about every slot under the same options and directives: a long prompt repeats a few
    slots thousands of times, each name matched against several lists of dozens of globs."""
    segment = request.segments[index]
    slot = segment.slot
    if slot is None or names.measured(slot) or names.counted(slot):
        return None
    # A template file's slot, or a field of a template in code that code fills (elsewhere, or by
    # hand in place: `PROMPT.replace("{page}", text)`).
    template = slot.opaque or bool(slot.filled_at) or in_template(request)
    if named_before is None:
        named_before = {}
    key = (slot.names, segment.loop, template)
    facts = named_before.get(key)
    if facts is None:
        facts = named_before[key] = _facts(segment, options, directives, template)
    if template and slot.names and all(_is_metadata(name, options) for name in slot.names):
        # `{{ item.id }}` of a retrieved item: a fact about the content, whatever it came with.
        # (In code a slot's names are every name its expression reads: `page(url)` reads `url`.)
        return None
    prefix = "template-" if template else ""
    sink = Evidence(EvidenceKind.SINK, f"interpolated into the {segment.role.value} message", segment.span)
    named = facts.named
    kinds = {source.kind for source in slot.sources}
    if SourceKind.MODEL_OUTPUT in kinds and SourceKind.UNTRUSTED not in kinds:
        return None  # the model's own answer, whatever its name says (`step.codingIssue` of a structured reply)
    for source in slot.sources:
        if source.kind is not SourceKind.UNTRUSTED or (source.origin == "stdin" and source.whole
                                                         and _whole_message(request, index)):
            continue  # piped input that is the whole message: the user's own request, however it came
        where = (f", line {source.span.line}"
                 if source.span.line != segment.span.line and source.span.path == segment.span.path else "")
        step = Evidence(EvidenceKind.SOURCE, source.detail, source.span, source.strong)
        # What the module's callers pass for a parameter is calibrated apart (`caller-…`).
        prefix = "caller-" if source.from_caller and not template else "template-" if template else ""
        if source.strong:
            return Untrusted(f"{source.detail}{where}", f"{prefix}source", (step, *source.flow, sink))
        # A weak source (a request body, a loose pattern) is worth a look on its own; with a
        # name that says content (`page`, `documents`) as well, two weak links agree.
        kind = f"{prefix}weak-source-and-name" if named else f"{prefix}weak-source"
        if named is None and source.from_caller and source.origin == "retrieval" and not template:
            # A parameter the callers fill from a call named for a search of documents, itself named
            # the way retrieved text is most often named (`contextTexts`): two weak links agree.
            named = _ambiguous(segment, options, directives)
            kind = "caller-weak-retrieval-and-ambiguous-name" if named else kind
        name_step = () if named is None else (
            Evidence(EvidenceKind.NAME, f"the name `{named.name}` suggests third-party content", segment.span, False),)
        return Untrusted(f"{source.detail}{where}", kind, (step, *name_step, *source.flow, sink))
    if named is None and not template:
        # A name that says nothing (`context_data`), filled into a headed field with a value the
        # module's callers name for content (`data` of a loop over `result.context_chunks`). The
        # value passed is weighed on its own (the slot's other names, `max_length`, say nothing of it).
        found = headed.field(slot, options.content_words, options.vocabulary,
                             lambda passed: _content_passed(passed, options, directives))
        if found is not None:
            field, passed = found
            step = Evidence(EvidenceKind.NAME, f"the name `{passed}` of the value passed suggests third-party content",
                            field.span, strong=False)
            return Untrusted(passed, "name-and-heading", (step, headed.step(field), sink))
    if named is None:
        # A name we do not know, but the prompt itself says what it is: worth a look, no more.
        described = None if facts.excluded else _described(request, index, options.content_words)
        if described is None:
            return None
        step = Evidence(EvidenceKind.SOURCE, f"the prompt introduces it as \"{described}\"", segment.span, False)
        return Untrusted(f"introduced as \"{described}\"", f"{prefix}words" if template else "prompt-words",
                         (step, sink))
    name = named.name
    if named.family == "declared":
        step = Evidence(EvidenceKind.SOURCE, f"`{name}` is declared untrusted by a ctxlint comment", segment.span)
        return Untrusted(name, "declared", (step, sink))
    if _own_work(_lead(request, index)):
        return None  # "Here are your changes: <diff>{{ diff }}</diff>": the model's own work, named like content
    collection = facts.item_of
    reason = f"an item of `{collection}`" if collection == name else name
    evidence = [Evidence(EvidenceKind.NAME, f"the name `{name}` suggests third-party content", segment.span,
                         strong=False)]
    if collection is not None:
        evidence.append(Evidence(EvidenceKind.SOURCE, f"printed item by item from a loop over `{collection}`",
                                 segment.span, strong=False))
    described = _described(request, index, options.content_words)
    if described:
        reason += f", introduced as \"{described}\""
        evidence.append(Evidence(EvidenceKind.SOURCE, f"the prompt introduces it as \"{described}\"",
                                 segment.span, strong=False))
    kind = _name_kind(named, template, collection is not None, bool(described))
    found = headed.field(slot, options.content_words, options.vocabulary, name.__eq__) \
        if kind == "name" and named.family == "content" else None
    if found is not None:
        # `SYSTEM.format(context_data=result.chunks)`, SYSTEM another module's text that sets the
        # field apart under "---Data tables---": the template names the block, the code its value.
        evidence.append(headed.step(found[0]))
        kind = "name-and-heading"
    if kind == "name" and _family(name, options)[0] in options.web_words:
        kind = "web-name"  # `snippets`, `webpage_content`: what code names so is fetched from the web
    return Untrusted(reason, kind, (*evidence, sink))


def _content_passed(name: str, options: TrustOptions, directives: Directives) -> bool:
    """Whether a value passed under ``name`` is named for content, and not the user's question,
    the operator's own text or a fact about content."""
    return _says_content(name, options, False) == "content" and not _excluded(name, options, directives)


def _ambiguous(segment: Segment, options: TrustOptions, directives: Directives) -> Named | None:
    """A name of the slot, or the collection it is printed from, that says content ambiguously
    (``contextTexts``, ``context``), or None."""
    assert segment.slot is not None
    loop = names.leading_name(segment.loop) if segment.loop is not None else None
    for name in (*segment.slot.names, *((loop,) if loop else ())):
        if not _excluded(name, options, directives) and _family(name, options)[1] == "ambiguous":
            return Named(name, "ambiguous")
    return None


def _whole_message(request: Request, index: int) -> bool:
    """Whether segment ``index`` is all of its message's text."""
    message = request.segments[index].message_index
    return all(not s.text.strip() for i, s in enumerate(request.segments)
               if i != index and s.message_index == message)


def _name_kind(named: Named, template: bool, in_loop: bool, described: bool) -> str:
    """The kind of name evidence: in code, a variable's name (as strong as its loop or the
    prompt's words make it); in a template, a slot named for content, or named ambiguously
    (``context``) and only as good as what corroborates it."""
    if not template:
        return "name-in-loop" if in_loop else "name-and-words" if described else "name"
    if named.family == "ambiguous":
        return "template-ambiguous-name-corroborated" if in_loop or described else "template-ambiguous-name"
    return "template-name-in-loop" if in_loop else "template-name-and-words" if described else "template-name"


def _facts(segment: Segment, options: TrustOptions, directives: Directives, template: bool) -> NameFacts:
    slot = segment.slot
    assert slot is not None
    named = _named(segment, options, directives, template)
    excluded = _is_question_slot(segment, options) or any(
        _is_trusted(n, options, directives) or _is_metadata(n, options) for n in slot.names)
    # An item printed from a loop over such a collection is structure, not just a name: the
    # prompt lists records of it (documents, search results) one by one.
    collection = names.leading_name(segment.loop) if segment.loop is not None and named is not None else None
    # In a loop, a collection named like content, or a field of each item named like it
    # (`step.observation` over a scratchpad), is a record of it, printed one by one.
    # An ambiguous name (`turn.text`) is corroborated only by a collection named for content.
    item = collection is not None and named is not None and (
        _says_content(collection, options, template) == "content" if named.family == "ambiguous" else
        collection == named.name or "." in named.name or _says_content(collection, options, template) is not None)
    return NameFacts(named, excluded, collection if item else None)


def _named(segment: Segment, options: TrustOptions, directives: Directives, template: bool) -> Named | None:
    """The name that makes the slot untrusted and what says so, or None."""
    slot = segment.slot
    assert slot is not None
    if not template and slot.names and slot.expression == slot.names[0] and _is_fact(slot.names[0], options):
        # `name = item.get("filename")`, `counts = f"{stored} of {total}"`: a variable named for a
        # fact about the content holds that fact, whatever item it was read from
        return None
    ambiguous = None  # a name that says content only weakly: another that says it plainly wins
    for name in slot.names:
        if _excluded(name, options, directives):
            continue
        if names.root(name) in directives.untrusted or name in directives.untrusted:
            return Named(name, "declared")
        found = _says_content(name, options, template)
        if found == "content":
            return Named(name, found)
        if found and ambiguous is None:
            ambiguous = Named(name, found)
    if ambiguous is not None:
        return ambiguous
    if segment.loop is not None:
        collection = names.leading_name(segment.loop)
        if collection and not _is_trusted(collection, options, directives) and not _is_question(collection, options):
            found = "declared" if collection in directives.untrusted else _says_content(collection, options, template)
            if found and any(not _is_metadata(n, options) for n in slot.names):
                return Named(collection, found)
    return None


def _says_content(name: str, options: TrustOptions, template: bool) -> str | None:
    """"content" or "ambiguous" when ``name`` says third-party content, or None. A configured
    glob (`untrusted`) or a word of the content families says so; in a template an ambiguous
    word does too, weakly (in code a variable called `result` or `text` says nothing)."""
    word = vocabulary.family(name, options.vocabulary)
    globbed = any(names.matches(part, options.untrusted) for part in (names.root(name), name, names.last(name)))
    if word is not None and word[1] == "content":
        return "content"
    if globbed or (template and word is not None):
        return "ambiguous"
    return None


def _described(request: Request, index: int, words: tuple[str, ...]) -> str | None:
    """A content word in the static text just before the slot, in its message, on its line or
    the line before (``Search results:`` above ``{{ hits }}``)."""
    text = _lead(request, index)
    last_two_lines = text.rfind("\n", 0, max(text.rfind("\n"), 0)) + 1
    return _content_word(text[last_two_lines:], words)


# The prompt's words for the model's own work: what it wrote or changed earlier in the task.
_OWN_WORK = re.compile(r"\byour (?:\w+ ){0,2}(?:changes|edits|diff|patch|draft)\b|"
                       r"\byour (?:previous|last|earlier) (?:answer|response|output|attempt)\b", re.IGNORECASE)


def _own_work(lead: str) -> bool:
    return _OWN_WORK.search(lead) is not None


def _lead(request: Request, index: int) -> str:
    """The last _LEAD_CHARS characters of static text before the slot, in its message."""
    segments = request.segments
    segment = segments[index]
    message, line_before = segment.message_index, segment.span.line - 1
    lead = []
    size = 0
    # Walked back by position, and only so far: a prompt of thousands of slots costs no more
    # per slot than one of ten (only the last _LEAD_CHARS characters of a text can matter).
    for position in range(index - 1, max(index - 2 * _LEAD_CHARS, 0) - 1, -1):
        previous = segments[position]
        if previous.message_index != message or size >= _LEAD_CHARS or previous.span.end_line < line_before:
            break
        if previous.slot is None:
            lead.append(previous.text[-_LEAD_CHARS:])
            size += len(previous.text)
    return "".join(reversed(lead))[-_LEAD_CHARS:]


_content_word = vocabulary.content_word  # (kept under its old name: the volume test counts its cache)


def _excluded(name: str, options: TrustOptions, directives: Directives) -> bool:
    """Whether ``name`` says the operator's own text, a fact about content or the user's question:
    whatever else it says, not third-party content."""
    return _is_trusted(name, options, directives) or _is_metadata(name, options) or _is_question(name, options)


def _family(name: str, options: TrustOptions) -> tuple[str, str]:
    """The content word of ``name`` and its family, ("", "") for none."""
    return vocabulary.family(name, options.vocabulary) or ("", "")


def _is_trusted(name: str, options: TrustOptions, directives: Directives) -> bool:
    return (names.root(name) in directives.trusted or name in directives.trusted
            or names.matches(name, options.trusted))


def _is_metadata(name: str, options: TrustOptions) -> bool:
    return (names.matches(names.last(name), options.metadata) or names.matches(name, options.metadata)
            or vocabulary.is_metadata(name, options.vocabulary))


# Last words of metadata names that name the operator's text about content, not a fact about it:
# a `prompt` built around a page still holds the page.
_OPERATOR_TEXT = frozenset({"prompt", "template", "instruction", "guideline", "rule", "schema", "example",
                            "criterion", "criteria", "style", "description", "doc"})


def _is_fact(name: str, options: TrustOptions) -> bool:
    """Whether ``name`` names a fact about content (its file name, its count), not text."""
    words = _words(name)
    return bool(words) and _is_metadata(name, options) and words[-1].removesuffix("s") not in _OPERATOR_TEXT


def _is_question_slot(segment: Segment, options: TrustOptions) -> bool:
    return segment.slot is not None and any(_is_question(n, options) for n in segment.slot.names)


def _is_question(name: str, options: TrustOptions) -> bool:
    return names.matches(name, options.questions) or names.matches(names.last(name), options.questions)


# --- labels ------------------------------------------------------------------------------------

# A slot whose value is a fence the code picks (`self.fence[0]`, `FENCE`, `code_fence`): it
# stands in the text as a fence on a line of its own.
_FENCE_VALUE = re.compile(r"(?:^|[._\[])fences?\b", re.IGNORECASE)
_FENCE_STANDIN = "\n```\n"


def labels(request: Request) -> dict[int, Label]:
    """The innermost label around each slot that has one, by segment index.

    One pass over each message: its text, with each slot standing in as one placeholder
    character, is scanned for opening and closing tags, fences and marker lines in order; each
    slot joins the innermost open container, and a container's slots are labelled when (and
    only if) it closes later in the same message. A slot inside a tag's attributes
    (``<document source="{{ url }}">``) is part of the tag, not of its content.
    """
    found: dict[int, Label] = {}
    message: list[int] = []
    for index, segment in enumerate(request.segments):
        if message and segment.message_index != request.segments[message[0]].message_index:
            _label_message(request, message, found)
            message = []
        message.append(index)
    if message:
        _label_message(request, message, found)
    return found


_PLACEHOLDER = introduced.PLACEHOLDER


def _label_message(request: Request, indices: list[int], found: dict[int, Label]) -> None:
    parts, slots = [], []
    offset = 0
    for index in indices:
        segment = request.segments[index]
        if segment.slot is None:
            parts.append(segment.text)
            offset += len(segment.text)
        elif _FENCE_VALUE.search(segment.text):
            # `{self.fence[0]}`: the project's fence, chosen at run time, set on its own line
            parts.append(_FENCE_STANDIN)
            offset += len(_FENCE_STANDIN)
        else:
            parts.append(_PLACEHOLDER)
            slots.append((offset, index))
            offset += 1
    if not slots:
        return
    # Markers and slots in text order; at one position a marker comes first (a slot cannot
    # start a marker, but it can follow one directly).
    events: list[tuple[int, int, Token | int]] = [(position, 1, index) for position, index in slots]
    text = "".join(parts)
    events += [(token.start, 0, token) for token in tokens(text)]
    events.sort(key=lambda event: (event[0], event[1]))
    stack = OpenLabels()
    marker_end, marker = -1, ""  # the tag whose attributes end at marker_end
    for position, _, payload in events:
        if isinstance(payload, int):
            if position < marker_end and marker:
                found[payload] = Label("attribute", marker)
            elif stack.containers:
                stack.containers[-1][1].append(payload)
        else:
            marker_end, marker = payload.end, (payload.name if payload.kind == "tag" else "")
            stack.apply(payload, found)
    for position, index in slots:  # no marker around it: the prompt's own structure may label it
        if index in found:
            continue
        slot = request.segments[index].slot
        tag = next((s.detail for s in slot.sources if s.kind is SourceKind.DELIMITED), None) if slot else None
        wrapped = [s.wrapped_in for s in slot.sources if s.kind is SourceKind.UNTRUSTED] if slot else []
        if tag is None and wrapped and all(wrapped):
            tag = wrapped[0]  # every source is wrapped on its way by the code that prints it (a helper's fence)
        if tag is not None:
            found[index] = Label("formatted", tag)  # the code that builds the value wraps each item in tags
        elif introduced.code_span(text, position):
            found[index] = Label("code-span", "`")
        else:
            in_loop = request.segments[index].loop is not None
            line = introduced.introduced(text, position, in_loop)
            printed = _printed_before(slot)
            if line is None and printed:  # labelled where the value is printed, in the code that builds it
                line = introduced.introduced(text[:position] + printed + text[position:], position + len(printed),
                                             in_loop)
            if line is not None:
                found[index] = Label("line", line)
            elif (header := introduced.record_header(text, position, in_loop)) is not None:
                found[index] = Label("field-header", _header_value(request, text, slots, position)) \
                    if introduced.field_header(header) else Label("header", header)


def _header_value(request: Request, text: str, slots: list[tuple[int, int]], position: int) -> str:
    """What the slot of the header line above the slot at ``position`` holds (`entry["filename"]`)."""
    at = text.rfind(_PLACEHOLDER, 0, text.rfind("\n", 0, position))
    return next((request.segments[index].text for offset, index in slots if offset == at), "")


def _printed_before(slot: Slot | None) -> str:
    """The words every third-party source of a slot's value is printed after on its way, if any."""
    printed = [s.introduced_by for s in slot.sources if s.kind is SourceKind.UNTRUSTED] if slot else []
    return printed[0] if printed and all(p == printed[0] for p in printed) else ""


def marks(label: Label, segment: Segment, options: TrustOptions) -> bool:
    """Whether ``label`` marks the slot's content as data. A label line must name what it
    introduces, with a word for third-party content (`OBSERVATION:`, `## Search results`) or a
    word of the slot's own name (`content: {{ item.content }}`), or its initials (`Table of Contents:
    {toc}`); `Answer:` names nothing."""
    if label.kind == "field-header":
        # `File: {path}` above the content names the record; `id: {item.id}` only numbers it
        return bool(_words(label.name)) and _words(label.name)[-1] in _RECORD_NAMES
    if label.kind != "line":
        return True
    if _content_word(label.name.lower(), options.content_words):
        return True
    slot_words = {w for name in (segment.slot.names if segment.slot else ()) for w in _words(name) if len(w) > 2}
    label_words = _words(label.name)
    # `Table of Contents: {toc}`: the slot's name is the initials of the label's words
    initials = "".join(w[0] for w in label_words)
    return bool(slot_words & set(label_words)) or (len(initials) > 1 and initials in slot_words)


# Last words of a header field's value that name a record for a reader: where it is from, what it is called.
_RECORD_NAMES = frozenset(("path", "filename", "file", "url", "uri", "link", "href", "title", "name", "source"))


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text).lower())


def unforgeable(label: Label) -> bool:
    """A tag whose name holds a slot (a nonce made per call): its closing tag cannot be written
    by the content inside it."""
    return label.kind == "tag" and "…" in label.name


def verbatim_word(label: Label, segment: Segment, words: tuple[str, ...]) -> str | None:
    """The word of the tag's or the slot's name that says code or program output (``code``,
    ``observation_head``), text that must stay as written; None when neither says so."""
    named = [label.name, *(segment.slot.names if segment.slot else ())]
    return _content_word(" ".join(" ".join(_words(name)) for name in named), words)


def escaped(segment: Segment, escapes: list[str]) -> bool:
    slot = segment.slot
    candidates = [*slot.filters, *slot.calls] if slot else []
    return any(names.matches(c, escapes) for c in candidates)
