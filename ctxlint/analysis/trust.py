"""Trust: which slots carry third-party content, and whether it is labelled as data.

Untrusted content (web pages, retrieved documents, tool output, uploads, e-mails) is found by
variable name, by an item of an untrusted collection in a loop, by the author's
``ctxlint: untrusted=name`` / ``trusted=name`` comments, and by what a front-end's data flow
saw (a ``Source`` of kind UNTRUSTED, such as an HTTP response body in Python). Labelled means
wrapped in a delimiter the configuration recognises (an XML-style tag such as ``<document>``,
or a fenced block whose info string names it); escaped means passed through a filter or call
that encodes it, so the content cannot close its own delimiter.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from ctxlint.analysis import names
from ctxlint.directives import Directives
from ctxlint.model import Request, Segment, SourceKind

_TAG = re.compile(r"<(/?)([A-Za-z_][\w.\-:]*)[^<>]*?(/?)>|<([A-Za-z_][\w.\-:]*)[^<>]*$")
_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w.\-]*)", re.MULTILINE)


def untrusted_reason(segment: Segment, trust: dict[str, list[str]], directives: Directives) -> str | None:
    """Why ``segment``'s slot holds untrusted content (``page``, ``an item of documents``), or None."""
    slot = segment.slot
    if slot is None or names.measured(slot):
        return None
    for source in slot.sources:
        if source.kind is SourceKind.UNTRUSTED:
            if source.span.line != segment.span.line and source.span.path == segment.span.path:
                return f"{source.detail}, line {source.span.line}"
            return source.detail
    for name in slot.names:
        if _is_trusted(name, trust, directives) or _is_metadata(name, trust):
            continue
        if names.root(name) in directives.untrusted or name in directives.untrusted:
            return name
        if any(names.matches(part, trust["untrusted"]) for part in (names.root(name), name, names.last(name))):
            return name
    if segment.loop is not None:
        collection = names.leading_name(segment.loop)
        if collection and not _is_trusted(collection, trust, directives) and (
            collection in directives.untrusted or names.matches(collection, trust["untrusted"])
            or names.matches(names.last(collection), trust["untrusted"])
        ):
            if any(not _is_metadata(n, trust) for n in slot.names):
                return f"an item of `{collection}`"
    return None


def _is_trusted(name: str, trust: dict[str, list[str]], directives: Directives) -> bool:
    return (names.root(name) in directives.trusted or name in directives.trusted
            or names.matches(name, trust["trusted"]))


def _is_metadata(name: str, trust: dict[str, list[str]]) -> bool:
    return names.matches(names.last(name), trust["metadata"]) or names.matches(name, trust["metadata"])


def delimiter(request: Request, index: int, delimiters: list[str]) -> str | None:
    """The recognised delimiter that wraps segment ``index`` in its message, or None.

    The static text of the same message before the slot must leave a recognised tag open (or
    the slot sits inside the tag's attributes), and the text after it must close that tag; or
    the slot must sit in a fenced block whose info string is recognised.
    """
    segment = request.segments[index]
    same = [s for s in request.segments if s.message_index == segment.message_index]
    position = same.index(segment)
    before = "".join(s.text if s.slot is None else "\x00" for s in same[:position])
    after = "".join(s.text if s.slot is None else "\x00" for s in same[position + 1 :])
    tag = _open_tag(before)
    if tag and _recognised(tag, delimiters) and re.search(rf"</{re.escape(tag)}\s*>", after):
        return tag
    fences = list(_FENCE.finditer(before))
    if len(fences) % 2 == 1 and _recognised(fences[-1].group(2), delimiters) and _FENCE.search(after):
        return fences[-1].group(2)
    return None


def _open_tag(text: str) -> str | None:
    """The innermost tag left open at the end of ``text`` (or whose attributes it ends inside)."""
    stack: list[str] = []
    for match in _TAG.finditer(text):
        if match.group(4):  # `<document source="` : the text ends inside this opening tag
            return match.group(4)
        closing, name, self_closing = match.group(1), match.group(2), match.group(3)
        if self_closing:
            continue
        if closing:
            while stack and stack.pop() != name:
                pass
        else:
            stack.append(name)
    return stack[-1] if stack else None


def _recognised(name: str, delimiters: list[str]) -> bool:
    lowered = name.lower()
    return bool(lowered) and any(fnmatchcase(lowered, pattern.lower()) for pattern in delimiters)


def escaped(segment: Segment, escapes: list[str]) -> bool:
    slot = segment.slot
    candidates = [*slot.filters, *slot.calls] if slot else []
    return any(names.matches(c, escapes) for c in candidates)
