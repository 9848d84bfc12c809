"""`ctxlint:` directives, written in each host format's comment syntax.

Suppressions: ``{# ctxlint: ignore[CTX101] #}`` (Jinja), ``# ctxlint: ignore[CTX201]`` (Python,
YAML, Prompty front matter), ``<!-- ctxlint: ignore -->`` (Markdown), ``{{! ctxlint: ignore }}``
(Handlebars), ``// ctxlint: ignore[CTX401]`` or ``/* ... */`` (TypeScript, JavaScript). A comment at the end of a line covers that line; a comment alone on its line
covers the next line too. ``ctxlint: ignore-file`` covers the whole file. Without a code list
every rule is suppressed.

Layout markers, for what heuristics cannot know: ``ctxlint: pinned`` … ``ctxlint: end`` marks
hard constraints; ``ctxlint: head`` / ``middle`` / ``tail`` … ``ctxlint: end`` put the lines in
between in that region. Trust annotations: ``ctxlint: untrusted=page,snippet`` and
``ctxlint: trusted=summary`` name variables for the whole file. Budget declarations
(``ctxlint: budget history policy=summarize``, ``ctxlint: key-field …``) are collected with
their arguments and read by ``ctxlint.budget.policy``; so is a ``ctxlint`` key in the YAML front
matter of Prompty and Dotprompt files.

A directive must open a comment, and given the file's format only that format's comments are
read, so prompt text that merely mentions a directive does not count (a ``# ...`` line in a
Jinja template is prompt text, sent to the model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ctxlint.frontends import REGISTRY
from ctxlint.model import Finding, Region

_DIRECTIVE = re.compile(
    r"(?P<open>\{#-?|<!--|\{\{!(?:--)?|#|//|/\*+)[ \t]*ctxlint:[ \t]*"
    r"(?P<kind>ignore-file|ignore|pinned|head|middle|tail|end|untrusted|trusted|budget|key-field)\b"
    r"(?:\[(?P<codes>[^\]\n]*)\]|[ \t]*=[ \t]*(?P<names>[\w.\- \t,]+?)(?=[ \t]*(?:#}|-#}|-->|}}|\*/|\n|$)))?"
)
_CLOSERS = {"{#": "#}", "<!--": "-->", "{{!": "}}", "/*": "*/"}
# The comment openers of each format (the format registry says them); a format that lists none
# accepts every opener. Prompty and Dotprompt also read `#` comments, but only inside their YAML
# front matter.
_OPENERS = {f.name: f.comments for f in REGISTRY if f.comments is not None}
_FRONT_MATTER_FORMATS = ("prompty", "dotprompt")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?^---[ \t]*$", re.DOTALL | re.MULTILINE)
# Front matter with its YAML captured, after the licence comments Dotprompt allows before it.
_FRONT_MATTER_YAML = re.compile(r"\A(?:(?:#[^\n]*|[ \t]*)\n)*---[ \t]*\n(.*?)^---[ \t]*$", re.DOTALL | re.MULTILINE)
# Front matter keys the budget simulation reads: its declarations, and Prompty's sample inputs.
_BUDGET_KEY = re.compile(r"^(?:ctxlint(?:\.budget)?|sample)[ \t]*:", re.MULTILINE)
_REGIONS = {"head": Region.HEAD, "middle": Region.MIDDLE, "tail": Region.TAIL}


@dataclass(frozen=True)
class BudgetDirective:
    """A ``ctxlint: budget`` or ``ctxlint: key-field`` comment: its words, and where it is."""

    kind: str
    arguments: str
    line: int
    column: int


@dataclass
class Directives:
    lines: dict[int, set[str] | None] = field(default_factory=dict)  # suppressed codes; None: all
    file_codes: set[str] | None = field(default_factory=set)  # None: the whole file is ignored
    pinned: list[tuple[int, int]] = field(default_factory=list)  # inclusive line ranges
    regions: list[tuple[int, int, Region]] = field(default_factory=list)
    untrusted: set[str] = field(default_factory=set)
    trusted: set[str] = field(default_factory=set)
    budget: list[BudgetDirective] = field(default_factory=list)
    # The YAML of a Prompty or Dotprompt front matter with a `ctxlint` or `sample` key, and its first line.
    front_matter: tuple[str, int] | None = None

    def covers(self, finding: Finding) -> bool:
        """Whether a suppression covers ``finding``."""
        if self.file_codes is None or finding.code in self.file_codes:
            return True
        if finding.span.line not in self.lines:
            return False
        codes = self.lines[finding.span.line]
        return codes is None or finding.code in codes

    def is_pinned(self, line: int) -> bool:
        return any(start <= line <= end for start, end in self.pinned)

    def region_at(self, line: int) -> Region | None:
        return next((region for start, end, region in self.regions if start <= line <= end), None)


def scan(text: str, fmt: str | None = None) -> Directives:
    """The directives in ``text``, a file of format ``fmt`` (None: accept every comment syntax)."""
    found = Directives()
    if "ctxlint" not in text and "sample" not in text:
        return found
    front_matter = _FRONT_MATTER.match(text) if fmt in _FRONT_MATTER_FORMATS else None
    front_matter_end = front_matter.end() if front_matter else 0
    header = _FRONT_MATTER_YAML.match(text) if fmt in _FRONT_MATTER_FORMATS else None
    if header is not None and _BUDGET_KEY.search(header.group(1)):
        found.front_matter = (header.group(1), text.count("\n", 0, header.start(1)) + 1)
    open_block: tuple[str, int] | None = None  # ("pinned" or a region, first line)
    for match in _DIRECTIVE.finditer(text):
        opener = match.group("open")
        if fmt in _OPENERS and not opener.startswith(_OPENERS[fmt]) and not (
            opener == "#" and match.start() < front_matter_end
        ):
            continue
        kind = match.group("kind")
        line = text.count("\n", 0, match.start()) + 1
        end = _comment_end(text, match)
        end_line = text.count("\n", 0, end) + 1
        if kind in ("budget", "key-field"):
            column = match.start() - text.rfind("\n", 0, match.start())
            found.budget.append(BudgetDirective(kind, _arguments(text, match, end), line, column))
        elif kind in ("untrusted", "trusted"):
            names = {n.strip() for n in (match.group("names") or "").split(",") if n.strip()}
            (found.untrusted if kind == "untrusted" else found.trusted).update(names)
        elif kind in ("pinned", "head", "middle", "tail"):
            open_block = (kind, end_line + (0 if _shares_line(text, match, end) else 1))
        elif kind == "end":
            if open_block is not None:
                _close(found, open_block, line - (0 if _shares_line(text, match, end) else 1))
                open_block = None
        elif kind == "ignore-file":
            codes = _codes(match)
            if codes is None or found.file_codes is None:
                found.file_codes = None
            else:
                found.file_codes |= codes
        else:
            codes = _codes(match)
            covered = range(line, end_line + 2) if not _shares_line(text, match, end) else [line]
            for number in covered:  # a comment alone on its line covers the next line too
                _add(found.lines, number, codes)
    if open_block is not None:  # a marker without `end` runs to the end of the file
        _close(found, open_block, text.count("\n") + 1)
    return found


def _close(found: Directives, block: tuple[str, int], last: int) -> None:
    kind, first = block
    if last < first:
        return
    if kind == "pinned":
        found.pinned.append((first, last))
    else:
        found.regions.append((first, last, _REGIONS[kind]))


def _codes(match: re.Match) -> set[str] | None:
    raw = match.group("codes")
    return None if raw is None else {c.strip().upper() for c in raw.split(",") if c.strip()}


def _shares_line(text: str, match: re.Match, end: int) -> bool:
    """Whether the comment shares its line with other text (before it or after it)."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    return bool(text[line_start : match.start()].strip() or text[end:line_end].strip())


def _arguments(text: str, match: re.Match, end: int) -> str:
    """The words after a directive's kind, up to the end of its comment."""
    opener = match.group("open")
    closer = next((c for o, c in _CLOSERS.items() if opener.startswith(o)), "")
    words = text[match.end():end]
    if closer and words.endswith(closer):
        words = words[: -len(closer)]
        if closer == "#}" and words.endswith("-"):  # Jinja whitespace control: `-#}`
            words = words[:-1]
        elif closer == "}}" and words.endswith("--"):  # Handlebars long comment: `--}}`
            words = words[:-2]
    return words.strip()


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
