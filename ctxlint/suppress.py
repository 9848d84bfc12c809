"""Inline suppressions, written in each host format's comment syntax.

``{# ctxlint: ignore[CTX101] #}`` (Jinja), ``# ctxlint: ignore[CTX201]`` (Python, YAML,
Prompty front matter), ``<!-- ctxlint: ignore -->`` (Markdown), ``{{! ctxlint: ignore }}``
(Handlebars). A comment at the end of a line covers that line; a comment alone on its line
covers the next line too. ``ctxlint: ignore-file`` covers the whole file. Without a code list
every rule is suppressed. The directive must open a comment, so prompt text that merely
mentions it does not count: given the file's format, only that format's comments are read (a
`# ...` line in a Jinja template or a Prompty body is prompt text, sent to the model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ctxlint.model import Finding

_DIRECTIVE = re.compile(
    r"(?P<open>\{#-?|<!--|\{\{!(?:--)?|#|//)[ \t]*ctxlint:[ \t]*(?P<kind>ignore-file|ignore)\b"
    r"(?:\[(?P<codes>[^\]\n]*)\])?"
)
_CLOSERS = {"{#": "#}", "<!--": "-->", "{{!": "}}"}
# The comment openers of each format; a format not listed here accepts every opener.
# Prompty also reads `#` comments, but only inside its YAML front matter.
_OPENERS = {"jinja": ("{#",), "prompty": ("{#",), "text": ("<!--",)}
_FRONT_MATTER_END = re.compile(r"\A---[ \t]*\n.*?^---[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass
class Suppressions:
    lines: dict[int, set[str] | None] = field(default_factory=dict)  # None: every rule
    file_codes: set[str] | None = field(default_factory=set)  # None: the whole file is ignored

    def covers(self, finding: Finding) -> bool:
        if self.file_codes is None or finding.code in self.file_codes:
            return True
        if finding.span.line not in self.lines:
            return False
        codes = self.lines[finding.span.line]
        return codes is None or finding.code in codes


def scan(text: str, fmt: str | None = None) -> Suppressions:
    """The suppressions in ``text``, a file of format ``fmt`` (None: accept every comment syntax)."""
    found = Suppressions()
    if "ctxlint:" not in text:
        return found
    front_matter = _FRONT_MATTER_END.match(text) if fmt == "prompty" else None
    front_matter_end = front_matter.end() if front_matter else 0
    for match in _DIRECTIVE.finditer(text):
        opener = match.group("open")
        if fmt in _OPENERS and not opener.startswith(_OPENERS[fmt]) and not (
            opener == "#" and match.start() < front_matter_end
        ):
            continue  # not a comment in this format: prompt text that mentions the directive
        raw = match.group("codes")
        codes = None if raw is None else {c.strip().upper() for c in raw.split(",") if c.strip()}
        if match.group("kind") == "ignore-file":
            if codes is None or found.file_codes is None:
                found.file_codes = None
            else:
                found.file_codes |= codes
            continue
        line = text.count("\n", 0, match.start()) + 1
        covered = [line]
        end = _comment_end(text, match)
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        if not text[line_start : match.start()].strip() and not text[end:line_end].strip():
            end_line = text.count("\n", 0, end) + 1
            covered = list(range(line, end_line + 2))  # the comment's lines and the next one
        for number in covered:
            _add(found.lines, number, codes)
    return found


def _comment_end(text: str, match: re.Match) -> int:
    opener = match.group("open")
    closer = next((c for o, c in _CLOSERS.items() if opener.startswith(o)), None)
    if closer is None:  # a line comment runs to the end of the line
        end = text.find("\n", match.end())
        return len(text) if end < 0 else end
    end = text.find(closer, match.end())
    return len(text) if end < 0 else end + len(closer)


def _add(lines: dict[int, set[str] | None], number: int, codes: set[str] | None) -> None:
    if codes is None or lines.get(number, set()) is None:
        lines[number] = None
    else:
        lines.setdefault(number, set()).update(codes)
