"""Where a message's delimiters open and close: tags, fences, BEGIN/END marker lines and a chat
template's role tokens, and the label each slot of the message sits inside (trust.labels).

A slot stands in the message's text as ``PLACEHOLDER``; the scan is linear in the text (a closing
marker finds its opener without searching the stack of open ones).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ctxlint.analysis.introduced import PLACEHOLDER as _PLACEHOLDER

# A tag whose name has a slot in it (`<transcript-{nonce}>`, a nonce the content cannot guess)
# is a tag too: the slot stands in the text as _PLACEHOLDER.
_TAG = re.compile(r"<(/?)([A-Za-z_][\w.\-:\x00]*)((?:\s[^<>]*?)?)(/?)>")
# A fence (or a line of dashes alone) opens a line; triple quotes label wherever they stand (`"""{{ text }}"""`).
_FENCE = re.compile(r"^[ \t]*(```+|~~~+)|(\"\"\"|''')|^[ \t]*(-{3,})[ \t]*$", re.MULTILINE)
# A marker line: BEGIN/START ... or END ... in any wording, set off by dashes, equals signs,
# hashes, brackets or capitals (`-----BEGIN PAGE-----`, `=== START OF DOCUMENT ===`, `[END]`,
# `---START_OF_FILE---`).
# (Possessive blanks: with two runs of blanks that can split a line of spaces between them,
# a 20 KB line of spaces took seconds of backtracking at each line start.)
_MARKER = re.compile(r"^[ \t]*+(?:[-=#*\[<>|~]+[ \t]*+)?(?P<word>BEGIN|START|END)(?:\b|_)[^\n]*$",
                     re.MULTILINE | re.IGNORECASE)
# A chat template's special tokens around a turn (`<|start_of_role|>document<|end_of_role|>` ...
# `<|end_of_text|>`, `<|im_start|>` ... `<|im_end|>`, `<|end_header_id|>` ... `<|eot_id|>`): the
# content between a header's end and the turn's end is a turn of its own, labelled by its role.
_ROLE_TOKEN = re.compile(r"<\|(?P<name>im_start|end_of_role|end_header_id|im_end|end_of_text|eot_id|eom_id|end)\|>")
_ROLE_CLOSERS = {"im_end", "end_of_text", "eot_id", "eom_id", "end"}


@dataclass(frozen=True)
class Label:
    """What wraps a slot in its message: a tag (``document``), a fence, marker lines, a code span,
    or the label line that introduces it."""

    # "tag", "attribute" (inside the tag's own attributes), "fence", "markers", "role-tokens", "code-span",
    # "line" (a label line, heading or field that introduces it as a block: see ``introduced``),
    # "header" (a record's header line that names it, `--- {path} ---`, above it), "field-header" (a
    # header field, `File: {path}`, named by what its slot holds: `entry["path"]`), or "formatted" (the
    # value's own text wraps each item in a tag pair)
    kind: str
    name: str  # the tag name, the fence (```), the opening marker's word, or the label's words


@dataclass(frozen=True)
class Token:
    """An opening or closing marker: a tag, a fence (which toggles) or a BEGIN/END line."""

    start: int
    end: int
    kind: str
    name: str
    closing: bool


def tokens(text: str) -> list[Token]:
    """The opening and closing markers of a message's text, in no particular order."""
    found = []
    tags = _tag_names(text)
    closed = {name for m, name in tags if m.group(1)}  # (a self-closing tag wraps nothing: left out)
    opened: dict[str, int] = {}  # where the last opening tag of each name ends
    for match, name in tags:
        # `<Context> {{ page }} <Context>`: a tag never closed in the message, written again right
        # after the values it wraps (values and blanks only between), closes the first.
        between = text[opened.get(name, match.start()):match.start()]
        reopened = not match.group(1) and name not in closed and _PLACEHOLDER in between \
            and not between.replace(_PLACEHOLDER, "").strip()
        if not match.group(1):
            opened[name] = len(text) if reopened else match.end()  # once closed, nothing of it is open
        found.append(Token(match.start(), match.end(), "tag", name, bool(match.group(1)) or reopened))
    for match in _FENCE.finditer(text):
        fence = match.group(1) or match.group(2) or match.group(3)
        found.append(Token(match.start(), match.end(), "fence", fence[:3], False))
    for match in _MARKER.finditer(text):
        found.append(Token(match.start(), match.start() + 1, "markers", "BEGIN",
                            match.group("word").upper() == "END"))
    for match in _ROLE_TOKEN.finditer(text):
        found.append(Token(match.start(), match.end(), "role-tokens", "turn", match.group("name") in _ROLE_CLOSERS))
    return found


def _tag_names(text: str) -> list[tuple[re.Match, str]]:
    """The tags of ``text`` (self-closing ones left out), each with its name, lowered. Words after
    the first are words of the name when a closing tag writes them too (`<key snippets>` ...
    `</key snippets>`), not attributes."""
    def written(match: re.Match) -> str:
        rest = match.group(3)
        words = rest.split() if _NAME_WORDS.fullmatch(rest) else []
        return " ".join([match.group(2), *words]).lower().replace(_PLACEHOLDER, "…")

    named = [(m, written(m)) for m in _TAG.finditer(text) if not m.group(4)]
    closers = {name for m, name in named if m.group(1)}
    return [(m, name if m.group(1) or name in closers else m.group(2).lower().replace(_PLACEHOLDER, "…"))
            for m, name in named]


# Words after a tag's first (`<key snippets>`): letters, digits, `_` and `-`, no `=` or quote.
_NAME_WORDS = re.compile(r"(?:\s+[A-Za-z][\w\-]*)+\s*")


class OpenLabels:
    """The containers open at a point of a message, innermost last, each with the slots it holds,
    and where each kind of label is open: a closing marker finds its opener without searching
    the stack (10,000 unclosed tags and as many stray closing ones would be quadratic)."""

    def __init__(self) -> None:
        self.containers: list[tuple[Label, list[int]]] = []
        self.depths: dict[Label, list[int]] = {}  # each label's open containers, by depth

    def apply(self, token: Token, found: dict[int, Label]) -> None:
        label = Label(token.kind, token.name)
        closing = token.closing
        if token.kind == "fence":  # a fence closes the open fence of its kind, or opens one
            closing = bool(self.depths.get(label))
        if not closing:
            self.depths.setdefault(label, []).append(len(self.containers))
            self.containers.append((label, []))
            return
        depths = self.depths.get(label)
        if not depths:
            return  # closes nothing that is open
        depth = depths[-1]
        # Containers opened inside it and never closed end with it: their slots are inside this
        # label too. Slots already labelled by an inner label keep the inner one.
        for inner, slots in self.containers[depth:]:
            for slot in slots:
                found.setdefault(slot, label)
            self.depths[inner].pop()  # the innermost of its label: containers close innermost first
        del self.containers[depth:]
