"""Placeholders in prompt text: ``{var}``, ``{{var}}``, ``{{ var }}``, ``$var`` and ``${var}``.

Used where a prompt is plain text that some code fills in (a Markdown or text prompt file, a
LangChain template string). Only what reads as a placeholder counts: JSON in prose
(``{"a": 1}``), prices (``$5``), shell variables in code fences and LaTeX are left as text.
"""

from __future__ import annotations

import re

# A placeholder's name: a dotted identifier, with optional spaces inside double braces.
_NAME = r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*"
_PLACEHOLDER = re.compile(
    rf"\{{\{{-?[ \t]*(?P<double>{_NAME})[ \t]*-?\}}\}}"  # {{var}} / {{ var }}
    rf"|(?<![{{$\\])\{{(?P<single>{_NAME})\}}(?!\}})"  # {var} (not {{var}}, not ${var})
    rf"|(?<![\\$\w])\$\{{(?P<dollar_brace>{_NAME})\}}"  # ${var}
    rf"|(?<![\\$\w])\$(?P<dollar>[A-Za-z_][\w]*)"  # $var (not $5, not $$)
)
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]+`")


def find(text: str, markdown: bool = False) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of each placeholder of ``text``, in order.

    In Markdown, fenced code blocks and inline code are examples, not placeholders. A text
    with ``{var}`` fields is only read as such when it has no ``{{``-style ones (a Jinja-like
    file's single braces are literal), and ``$var`` / ``${var}`` only when no ``{var}`` field is
    used: mixed styles are rare, and a ``$`` in a ``{}`` template is usually a literal dollar.
    """
    hidden = []
    if markdown:
        hidden = [(m.start(), m.end()) for m in _FENCE.finditer(text)]
        hidden += [(m.start(), m.end()) for m in _INLINE_CODE.finditer(text)]
    found = []
    for match in _PLACEHOLDER.finditer(text):
        if any(start <= match.start() < end for start, end in hidden):
            continue
        kind = match.lastgroup or ""
        found.append((match.start(), match.end(), match.group(kind), kind))
    kinds = {kind for *_, kind in found}
    if "double" in kinds:
        found = [f for f in found if f[3] == "double"]
    elif "single" in kinds:
        found = [f for f in found if f[3] not in ("dollar", "dollar_brace")]
    return [(start, end, name) for start, end, name, _ in found]


def format_fields(body: str) -> list[tuple[int, int, str]] | None:
    """``(start, end, name)`` of each ``{name}`` field of a Python-format template (LangChain's
    f-string templates); ``{{`` and ``}}`` are literal braces. None when the braces do not balance."""
    fields = []
    i, n = 0, len(body)
    while i < n:
        char = body[i]
        if char == "{":
            if body.startswith("{", i + 1):
                i += 2
                continue
            close = body.find("}", i + 1)
            if close < 0:
                return None
            inner = body[i + 1 : close]
            fields.append((i, close + 1, re.split(r"[!:]", inner, maxsplit=1)[0].strip()))
            i = close + 1
        elif char == "}":
            if body.startswith("}", i + 1):
                i += 2
                continue
            return None
        else:
            i += 1
    return fields
