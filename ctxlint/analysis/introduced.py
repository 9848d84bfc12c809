"""Labels written as the prompt's own structure rather than as markers: a label line, heading or
field label that introduces a slot standing as a block of its own, where the block ends with
the message or at the next section; and a code span (`` `{{ output }}` ``) around a slot.

A block in the middle of prose (`the text "{snippets}" and then ...`) or followed by more
instructions (`Chunk: {chunk}` then `Is the chunk relevant?`) has no end the model can see:
it is not labelled. Whether the label names the content is the trust rule's question (its
content words are an option); here only the shape is read.
"""

from __future__ import annotations

import re

# The slot's stand-in in a message's text (one character per slot; see ``trust.labels``).
PLACEHOLDER = "\x00"
# A code span ends with its paragraph: at a blank line or a fence line. How far a span is looked for.
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n|^[ \t]*(?:```|~~~).*$", re.MULTILINE)
_SINGLE_TICK = re.compile(r"(?<!`)`(?!`)")
_SPAN_REACH = 2_000
# A label ends in a colon and is a few words (`OBSERVATION:`, `The paper content:`), not a sentence.
MAX_LABEL_WORDS = 8
# On the slot's own line a field's name is shorter (`Document: {doc}`, `Retrieved chunk: {c}`);
# "Answer question 3 from the page: {page}" is a sentence that runs into the content.
MAX_FIELD_WORDS = 4
_SENTENCE_END = re.compile(r"[.!?]\s")
# A label names what follows; an instruction tells the model what to do with it ("Summarize this
# page:", "You answer questions about this page:"), and its content runs on with no label of its
# own. A generic family of instruction verbs and the words that address the model.
_INSTRUCTION = re.compile(
    r"\s*(?:[-*]\s+)?(?:\w+\s+){0,2}?(?:you|your|please)\b|\s*(?:[-*]\s+)?(?:summari[sz]e|answer|use|read|review|"
    r"classify|translate|analy[sz]e|extract|rewrite|explain|describe|consider|evaluate|grade|judge|check|decide|"
    r"compare|list|find|identify|write|respond|reply|generate|fix|correct|improve|paraphrase|categori[sz]e|rate|"
    r"score|determine|quote|cite|return|give|tell|help|apply)\b", re.IGNORECASE)
_LABEL = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?P<label>[^\W\d][^\n:\x00]{0,60}):[ \t]*$")
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(?P<label>[^\n\x00]+?)[ \t]*$")
# What starts the next section: a separator rule, a tag, a fence, or the next field of a record.
_BOUNDARY = re.compile(r"^[ \t]*(?:[-=_*~#]{3,}|</?[A-Za-z_][^<>\n]*>|```|~~~|[^\W\d][\w .'-]{0,40}:[ \t]*\x00)")


# A record's own header line: a value that names it (its path, title or number) framed by separator
# marks and nothing else, `--- {path} ---`, `=== {title} ===`, `[{source}]`.
_RECORD_HEADER = re.compile(r"^[ \t]*(?:[-=#*~_]{2,}|\[)[ \t]*\x00[ \t]*(?:[-=#*~_]{2,}|\])?[ \t]*:?[ \t]*$")
# ... or a field that names it, alone on its line above the content (`File: {path}`, `Source: {url}`).
_FIELD_HEADER = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?P<label>[^\W\d][\w .'-]{0,40}):[ \t]*\x00[ \t]*$")


def record_header(text: str, position: int, in_loop: bool) -> str | None:
    """The header line that names the record whose content is the slot at ``position`` (framed by
    separator marks, or a short field with the record's name), the slot alone on its line, when
    the block ends at the next record (the header written in a loop, or the next section) or with
    the message: each record says where it starts, what it is and where it ends."""
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line_end = len(text) if line_end < 0 else line_end
    if text[line_start:position].strip() or text[position + 1:line_end].strip():
        return None
    header = _previous_line(text, line_start)
    field = _FIELD_HEADER.match(header)
    if field is not None and _label(field.group("label") + ":", MAX_FIELD_WORDS) is None:
        return None  # "Fix the bug in: {path}" is an instruction, not a record's name
    if not (field or _RECORD_HEADER.match(header)) or not (in_loop or _ends(text, line_end)):
        return None
    return header.strip()


def field_header(header: str) -> bool:
    """Whether a record's header is a field that names it (`File: {path}`), not a framed value."""
    return _FIELD_HEADER.match(header) is not None


def code_span(text: str, position: int) -> bool:
    """Whether the slot at ``position`` is wrapped in single backticks, a code span: right around
    it, or around a value that a helper built of several parts (a shortened output's head, a cut
    marker and its tail, in the backticks its caller writes), a span that runs over lines of one
    paragraph as Markdown reads it."""
    before, after = text[position - 1:position], text[position + 1:position + 2]
    if before == after == "`":
        return text[position - 2:position - 1] != "`"
    start = max(position - _SPAN_REACH, 0)
    start = max([start, *(m.end() for m in _PARAGRAPH_END.finditer(text, start, position))])
    end = _PARAGRAPH_END.search(text, position, position + _SPAN_REACH)
    stop = end.start() if end else position + _SPAN_REACH
    opened = len(_SINGLE_TICK.findall(text, start, position))
    return opened % 2 == 1 and _SINGLE_TICK.search(text, position, stop) is not None


def introduced(text: str, position: int, in_loop: bool) -> str | None:
    """The label that introduces the slot at ``position`` as a block of its own, if the block
    ends where the message ends or at the next section (or, for a record's field in a loop, at
    the next record); None otherwise."""
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    line_end = len(text) if line_end < 0 else line_end
    if text[position + 1:line_end].strip(" \t`\"'"):
        return None  # more text after it on its line: prose, not a block
    prefix = text[line_start:position].rstrip(" \t`\"'")
    field = bool(prefix.strip())
    label = _label(prefix, MAX_FIELD_WORDS) if field else _label(_previous_line(text, line_start))
    if label is None:
        return None
    if (field and in_loop) or _ends(text, line_end):
        return label
    return None


def _label(line: str, words: int = MAX_LABEL_WORDS) -> str | None:
    match = _HEADING.match(line) or _LABEL.match(line)
    label = match.group("label") if match else ""
    if not label or len(label.split()) > words or _SENTENCE_END.search(label) or _INSTRUCTION.match(label):
        return None  # a sentence that ends in a colon ("Close the old ones. Their comments:") is prose
    return label


def _previous_line(text: str, line_start: int) -> str:
    """The nearest line above that is not blank, passing over one bracketed aside between a
    label and its block (``Attached file:`` then ``[NOTE: it was cut to 4,000 tokens.]``)."""
    above = text[:line_start].rstrip()
    line = above[above.rfind("\n") + 1:]
    if line.startswith("[") and line.endswith("]"):
        above = above[:above.rfind("\n") + 1].rstrip()
        return above[above.rfind("\n") + 1:]
    return line


def _ends(text: str, line_end: int) -> bool:
    """Whether the block ends at ``line_end``: nothing but blanks follow, or the next line that
    is not blank opens another section (a heading, a label line, a rule, a tag, a field)."""
    rest = text[line_end:].lstrip()
    if not rest:
        return True
    line = rest[:rest.find("\n")] if "\n" in rest else rest
    return _HEADING.match(line) is not None or _label(line) is not None or _BOUNDARY.match(line) is not None
