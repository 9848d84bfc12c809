"""Placeholders in prompt text: ``{var}``, ``{{var}}``, ``{{ var }}``, ``$var`` and ``${var}``.

Used where a prompt is plain text that some code fills in (a Markdown or text prompt file, a
LangChain template string). Only what reads as a placeholder counts: JSON in prose
(``{"a": 1}``), prices (``$5``), shell variables in code fences and LaTeX are left as text.
"""

from __future__ import annotations

import bisect
import re

# A placeholder's name: a dotted identifier, with optional spaces inside double braces.
_NAME = r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*"
_PLACEHOLDER = re.compile(
    rf"\{{\{{-?[ \t]*(?P<double>{_NAME})[ \t]*-?\}}\}}"  # {{var}} / {{ var }}
    rf"|(?<![{{$\\])\{{(?P<single>{_NAME})\}}(?!\}})"  # {var} (not {{var}}, not ${var})
    rf"|(?<![\\$\w])\$\{{(?P<dollar_brace>{_NAME})\}}"  # ${var}
    rf"|(?<![\\$\w])\$(?P<dollar>[A-Za-z_][\w]*)"  # $var (not $5, not $$)
)
_FENCE_OPENING = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n", re.MULTILINE)
_FENCE_CLOSING = {mark: re.compile(rf"^[ \t]*{mark}[ \t]*$", re.MULTILINE) for mark in ("```", "~~~")}
_INLINE_CODE = re.compile(r"`[^`\n]+`")


def find(text: str, markdown: bool = False) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of each placeholder of ``text``, in order.

    In Markdown, fenced code blocks and inline code are examples, not placeholders. A text
    with ``{var}`` fields is only read as such when it has no ``{{``-style ones (a Jinja-like
    file's single braces are literal), and ``$var`` / ``${var}`` only when no ``{var}`` field is
    used: mixed styles are rare, and a ``$`` in a ``{}`` template is usually a literal dollar.
    """
    hidden = _code_spans(text) if markdown else []
    starts = [start for start, _ in hidden]
    found = []
    for match in _PLACEHOLDER.finditer(text):
        inside = bisect.bisect_right(starts, match.start()) - 1
        if inside >= 0 and match.start() < hidden[inside][1]:
            continue
        kind = match.lastgroup or ""
        found.append((match.start(), match.end(), match.group(kind), kind))
    kinds = {kind for *_, kind in found}
    if "double" in kinds:
        found = [f for f in found if f[3] == "double"]
    elif "single" in kinds:
        found = [f for f in found if f[3] not in ("dollar", "dollar_brace")]
    return [(start, end, name) for start, end, name, _ in found]


def _code_spans(text: str) -> list[tuple[int, int]]:
    """The fenced blocks and inline code of a Markdown text, as sorted, disjoint ``(start, end)``.

    A fence runs from a line opening with three backticks or tildes to the next line that holds
    only the same three; an opening line that is never closed is not a fence. Each closing line
    is looked up once, so a text full of unclosed fences takes linear time.
    """
    fences = []
    closings: dict[str, list[re.Match]] = {mark: list(pattern.finditer(text))
                                            for mark, pattern in _FENCE_CLOSING.items()}
    closing_starts = {mark: [m.start() for m in found] for mark, found in closings.items()}
    position = 0
    while (opening := _FENCE_OPENING.search(text, position)) is not None:
        mark = opening.group(1)
        after = bisect.bisect_left(closing_starts[mark], opening.end())
        if after < len(closings[mark]):
            closing = closings[mark][after]
            fences.append((opening.start(), closing.end()))
            position = closing.end()
        else:  # never closed: the search goes on from the next line
            position = opening.end()
    spans = sorted(fences + [(m.start(), m.end()) for m in _INLINE_CODE.finditer(text)])
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def format_fields(body: str, nested: bool = False, escapes: bool = False) -> list[tuple[int, int, str]] | None:
    """``(start, end, name)`` of each ``{name}`` field of a Python-format template (LangChain's
    f-string templates, ``str.format``); ``{{`` and ``}}`` are literal braces. None when the braces
    do not balance. ``nested``: a field's format spec holds fields of its own (``{x:{width}}``), as
    ``str.format`` reads it; ``escapes``: the body is a Python literal's source, whose backslash
    escapes (``\\N{...}`` too) are not braces."""
    fields = []
    i, n = 0, len(body)
    while i < n:
        char = body[i]
        if char == "\\" and escapes:
            if body.startswith("N{", i + 1):  # a named escape: its braces are not a field
                close = body.find("}", i)
                i = close + 1 if close > 0 else n
            else:
                i += 2
        elif body.startswith(("{{", "}}"), i):  # a literal brace
            i += 2
        elif char == "{":
            end = _field_end(body, i, nested)
            if end is None:
                return None
            fields.append((i, end, re.split(r"[!:]", body[i + 1 : end - 1], maxsplit=1)[0].strip()))
            i = end
        elif char == "}":
            return None
        else:
            i += 1
    return fields


def _field_end(body: str, i: int, nested: bool) -> int | None:
    """The offset after the ``}`` that closes the field opened at ``i``: the first one, or with
    ``nested`` the one that balances the braces opened inside the field."""
    if not nested:
        close = body.find("}", i + 1)
        return None if close < 0 else close + 1
    depth, j = 1, i + 1
    while j < len(body) and depth:
        depth += {"{": 1, "}": -1}.get(body[j], 0)
        j += 1
    return None if depth else j
