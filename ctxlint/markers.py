"""Text that tells a model something was cut: the marker CTX205 looks for after a truncation.

Front-ends use it for a marker written in the same value as the cut (``text[:500] + "…"``), the
check for one in the text that follows the slot. A marker is an ellipsis, a prefix the rule's
options list, or any bracketed or parenthesised wording of a cut (``[Diff truncated due to
size]``, ``(output omitted)``, ``<… 120 more lines …>``).
"""

from __future__ import annotations

import re

# What a cut is called inside brackets; "more" only after a number (`[… 40 more lines]`), since
# `(see more below)` announces, it does not mark.
_CUT_WORDS = (r"truncat\w*|omit\w*|omission|cut|clipped|elided|elision|trimmed|shortened|abridged|snipped"
              r"|snip|\d[\d,]*\s+more|remaining|dropped|skipped|removed")
_WORDING = rf"[\[(<{{]\s*[^\[\]()<>{{}}\n]{{0,80}}?\b(?:{_CUT_WORDS})\b[^\[\]()<>{{}}\n]{{0,80}}[\])>}}]"
# After a cut, an opening bracket and the wording are enough: the rest may be filled in
# (`[Output truncated; the full text is at {path}]`).
_BRACKETED = re.compile(rf"(?:…|\.\.\.)?\s*[\[(<{{]\s*[^\[\]()<>{{}}\n]{{0,80}}?\b(?:{_CUT_WORDS})\b",
                        re.IGNORECASE)
_BRACKETED_LAST = re.compile(rf"{_WORDING}\s*(?:…|\.\.\.)?$", re.IGNORECASE)
DEFAULT_PREFIXES = ("…", "...", "[…]")


def cut_marker(text: str, prefixes: tuple[str, ...] = DEFAULT_PREFIXES) -> bool:
    """Whether ``text`` (what comes right after a cut) starts with a marker of the cut."""
    head = text.lstrip()
    return head.lower().startswith(prefixes) or _BRACKETED.match(head) is not None


def cut_marker_before(text: str, prefixes: tuple[str, ...] = DEFAULT_PREFIXES) -> bool:
    """Whether ``text`` (what comes right before a cut that keeps the end) ends with a marker."""
    tail = text.rstrip()
    return tail.lower().endswith(prefixes) or _BRACKETED_LAST.search(tail) is not None


# Near a cut, the wording of one as a tag or key (`<elided_chars>`, `"truncated": true`) or as
# a sentence (`1,200 characters elided`, `the output was truncated`).
_NOTE_WORDS = r"truncat\w*|elided|elision|omitted|omission|clipped|snipped|cut"
_NOTED = re.compile(
    rf"<\s*/?\s*(?:[\w-]*[_-])?(?:{_NOTE_WORDS})(?:[_-][\w-]*)?\s*/?>"
    rf"|[\"'](?:[\w-]*[_-])?(?:{_NOTE_WORDS})(?:[_-][\w-]*)?[\"']\s*:"
    r"|\b(?:characters?|chars|lines|tokens|bytes|words|items|messages)\s+(?:(?:were|was|have been|has been)\s+)?"
    r"(?:elided|omitted|truncated|cut|removed|dropped|skipped)\b"
    r"|\b(?:was|were|been|is|are)\s+(?:truncated|elided|omitted|cut off|shortened|clipped)\b"
    rf"|{_WORDING}", re.IGNORECASE)


def cut_noted(text: str) -> bool:
    """Whether ``text`` written a few lines from a cut (in the same template) tells the model about
    a cut: a tag or key naming one, a sentence saying text was left out, or bracketed wording."""
    return _NOTED.search(text) is not None


# Words that say a cut was made, in English or in Chinese (truncated, omitted, discarded, has forgotten).
_MENTION = re.compile(r"truncat|omit|elided|…|\.\.\.|\[cut|\blimited to\b|截断|省略|丢弃|忘记了", re.IGNORECASE)


def mentions_cut(text: str) -> bool:
    """Whether a text written where code cuts says so anywhere (``"... (42 older turns omitted)"``)."""
    return _MENTION.search(text) is not None


# What a log says of a text that came out cut (`"Truncating the outline"`, `"is too long! Use first 1000
# chars"`, `"unable to be generated due to context window limitations"`); a log of progress or of a count
# says nothing of it.
_SAYS_LOSS = re.compile(r"truncat|\bcut\b|prun|trimm|omit|dropp|skipp|unable|incomplete|partial|exceed|limit"
                        r"|too (?:long|large|big)|\bfit\b|context window", re.IGNORECASE)


def says_loss(text: str) -> bool:
    """Whether a log's text speaks of something lost to a cut."""
    return _SAYS_LOSS.search(text) is not None


# The last line of the text before a value, when it names who speaks: `User: `, `Assistant:`. A
# value written after it is a turn of a transcript, read as all that was said.
_SPEAKER = re.compile(r"(?:^|\n)[ \t*#]*(?:user|human|customer|assistant|ai|bot|agent|model)[ \t*]*:[ \t*]*$",
                      re.IGNORECASE)


# A value written after a speaker's name, with no loop to show it is a turn, cut to fewer characters
# than this is a hint of it (a title prompt's `User: {message[:300]}`, judged false), not the turn.
LEAST_SPOKEN = 1000


def names_a_speaker(text: str) -> bool:
    """Whether ``text`` (what comes right before a value) ends a line with a speaker's name and a colon."""
    return _SPEAKER.search(text) is not None
