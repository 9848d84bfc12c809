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


_MENTION = re.compile(r"truncat|omit|elided|…|\.\.\.|\[cut", re.IGNORECASE)


def mentions_cut(text: str) -> bool:
    """Whether a text written where code cuts says so anywhere (``"... (42 older turns omitted)"``)."""
    return _MENTION.search(text) is not None
