"""`ctxlint:` directives, written in each host format's comment syntax.

Suppressions: ``{# ctxlint: ignore[CTX101] #}`` (Jinja), ``# ctxlint: ignore[CTX201]`` (Python,
YAML, Prompty front matter), ``<!-- ctxlint: ignore -->`` (Markdown), ``{{! ctxlint: ignore }}``
(Handlebars), ``// ctxlint: ignore[CTX401]`` or ``/* ... */`` (TypeScript, JavaScript). A comment at
the end of a line covers that line; a comment alone on its line covers the next line too.
``ctxlint: ignore-file`` covers the whole file. Without a code list every rule is suppressed.

Layout markers, for what heuristics cannot know: ``ctxlint: pinned`` … ``ctxlint: end`` marks
hard constraints; ``ctxlint: head`` / ``middle`` / ``tail`` … ``ctxlint: end`` put the lines in
between in that region. Trust annotations: ``ctxlint: untrusted=page,snippet`` and
``ctxlint: trusted=summary`` name variables for the whole file. Budget declarations
(``ctxlint: budget history policy=summarize``, ``ctxlint: key-field …``) are collected with
their arguments and read by ``ctxlint.budget.policy``; so is a ``ctxlint`` key in the YAML front
matter of Prompty and Dotprompt files.

A directive must open a comment, and given the file's format only that format's comments are
read, so prompt text that merely mentions a directive does not count (a ``# ...`` line in a
Jinja template is prompt text, sent to the model). A directive inside another directive's
comment (an unclosed ``{# ctxlint: ignore``) opens nothing. Scanning, and finding the
suppressions that cover a finding, take time linear in the text.

Suppressions are checked (rule CTX002, ``unused-suppression``): each keeps where it was written,
which codes or rule names it lists and how to remove it, and :meth:`Directives.covering` says
which of them cover a finding so the engine can tell which suppressed nothing. A comment that
opens with ``ctxlint`` but is not a directive (``ctxlint: ignroe``, ``ctxlint ignore``,
``ctxlint: ignore CTX101``) is kept as :class:`Malformed`: it would otherwise silently do
nothing, or suppress every rule.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass, field
from functools import cached_property

from ctxlint.frontends import REGISTRY
from ctxlint.model import Finding, Fix, Region, Span

KINDS = ("ignore-file", "ignore", "pinned", "head", "middle", "tail", "end", "untrusted", "trusted", "budget",
         "key-field")
_OPENER = r"(?P<open>\{#-?|<!--|\{\{!(?:--)?|#|//|/\*+)[ \t]*"
_DIRECTIVE = re.compile(
    _OPENER + r"ctxlint:[ \t]*"
    r"(?P<kind>ignore-file|ignore|pinned|head|middle|tail|end|untrusted|trusted|budget|key-field)(?![\w-])"
    r"(?:\[(?P<codes>[^\]\n]*)\]|[ \t]*=(?P<names>[^\n]*))?"
)
_NAMES = re.compile(r"[\w.\- \t,]*")  # what `untrusted=` may list, up to the comment's end
_NAMES_END = re.compile(r"-?#}|-->|}}|\*/")
_NONBLANK = re.compile(r"\S")
_NEWLINE = re.compile("\n")
# Any comment that opens with the word ctxlint: a directive, or a misspelt one.
_ANY = re.compile(_OPENER + r"(?P<word>ctxlint)\b(?P<colon>[ \t]*:)?[ \t]*(?P<kind>[\w-]*)", re.IGNORECASE)
# After a bare `ignore`: codes that were meant to be in brackets, or an unclosed bracket.
_LOOSE_CODES = re.compile(r"[ \t]*(?:[(:][ \t]*)?(?:[A-Z]{2,8}[0-9]{3,4}\b|\[)")
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


@dataclass(frozen=True)
class CodeRef:
    """One entry of ``ignore[...]`` as written: a code or a rule name, with its place."""

    text: str
    start: int  # offsets in the file's text
    end: int


@dataclass(frozen=True)
class Suppression:
    """An ``ignore`` or ``ignore-file`` directive.

    ``codes`` is None when it names no rule (every rule is suppressed). ``lines`` are the lines it
    covers (empty for ``ignore-file``). ``span`` is the directive itself, where CTX002 reports;
    ``removal`` the text range (offsets) whose deletion removes the directive without changing
    what the prompt renders, or None when there is no such range (Jinja whitespace control).
    ``brackets`` is the range inside ``[...]``, rewritten when only some codes go.
    """

    span: Span
    text: str  # as written: `ctxlint: ignore[CTX101]`
    file_level: bool
    codes: tuple[CodeRef, ...] | None
    lines: frozenset[int]
    removal: tuple[int, int] | None
    brackets: tuple[int, int] | None


@dataclass(frozen=True)
class Malformed:
    """A comment that opens with ``ctxlint`` but is not a directive, and why."""

    span: Span
    message: str


@dataclass(frozen=True)
class SuppressionUse:
    """What the unused-suppression check is given for one file: its directives, which
    (suppression index, code) pairs covered a finding (code None for a suppression without
    codes), which rules ran on the file, and whether those were the whole default set."""

    directives: Directives
    text: str
    path: str
    used: frozenset[tuple[int, str | None]]
    ran: frozenset[str]
    known: frozenset[str]
    complete: bool
    parsed: bool  # False when the file did not parse, so rules could not look at all of it

    @cached_property
    def lines(self) -> _Text:
        """The file's line index, built once: each of its suppressions may need a fix located."""
        return _Text(self.text, self.path)


@dataclass
class Directives:
    suppressions: list[Suppression] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)
    pinned: list[tuple[int, int]] = field(default_factory=list)  # inclusive line ranges
    regions: list[tuple[int, int, Region]] = field(default_factory=list)
    untrusted: set[str] = field(default_factory=set)
    trusted: set[str] = field(default_factory=set)
    budget: list[BudgetDirective] = field(default_factory=list)
    # The YAML of a Prompty or Dotprompt front matter with a `ctxlint` or `sample` key, and its first line.
    front_matter: tuple[str, int] | None = None
    # Rule names written in suppressions, mapped to codes (see `resolve_names`).
    _names: dict[str, str] = field(default_factory=dict, repr=False)
    # Which suppressions cover each line, and which the whole file (indexes; see `covering`).
    _by_line: dict[int, list[int]] | None = field(default=None, repr=False)
    # Of the suppressions covering a line (0: the file-level ones), those naming each code, with
    # the entry that names it (None: those without codes), built when a finding is on the line.
    _by_code: dict[int, dict[str | None, list[tuple[int, CodeRef | None]]]] = field(default_factory=dict,
                                                                                     repr=False)

    def resolve_names(self, names: dict[str, str]) -> None:
        """Accept rule names (``volatile-in-prefix``) as well as codes inside ``ignore[...]``."""
        self._names = names
        self._by_code.clear()

    def code_of(self, ref: CodeRef) -> str:
        """The code a suppression entry names (an unknown entry is returned upper-cased)."""
        return self._names.get(ref.text) or ref.text.upper()

    def covering(self, finding: Finding) -> list[tuple[Suppression, CodeRef | None]]:
        """The suppressions that cover ``finding``, each with the entry that names its rule
        (None for a suppression without codes)."""
        parts = [entries for line in dict.fromkeys((0, finding.span.line)) for table in [self._codes_at(line)]
                 for entries in (table.get(None), table.get(finding.code)) if entries]
        hits = parts[0] if len(parts) == 1 else sorted((e for part in parts for e in part), key=lambda e: e[0])
        return [(self.suppressions[index], ref) for index, ref in hits]

    def _codes_at(self, line: int) -> dict[str | None, list[tuple[int, CodeRef | None]]]:
        """The suppressions covering ``line`` (0: the whole file) by the code they name, in file
        order: a file of many suppressions (on one line, too) and many findings costs no more
        than its size."""
        table = self._by_code.get(line)
        if table is not None:
            return table
        if self._by_line is None:
            self._by_line = {0: []}
            for index, suppression in enumerate(self.suppressions):
                for covered in [0] if suppression.file_level else suppression.lines:
                    self._by_line.setdefault(covered, []).append(index)
        table = self._by_code[line] = {}
        for index in self._by_line.get(line, ()):
            suppression = self.suppressions[index]
            if suppression.codes is None:
                table.setdefault(None, []).append((index, None))
                continue
            named: set[str] = set()
            for ref in suppression.codes:  # the first entry naming each code stands for it
                code = self.code_of(ref)
                if code not in named:
                    named.add(code)
                    table.setdefault(code, []).append((index, ref))
        return table

    def covers(self, finding: Finding) -> bool:
        """Whether a suppression covers ``finding``: looked up without listing every suppression
        of its line, which thousands of comments on one line would make quadratic."""
        for line in dict.fromkeys((0, finding.span.line)):
            table = self._codes_at(line)
            if table.get(None) or table.get(finding.code):
                return True
        return False

    def is_pinned(self, line: int) -> bool:
        # `pinned` and `regions` are in file order and never overlap (see `scan`). Most files
        # have neither, and every sentence and constraint of a long prompt asks.
        if not self.pinned:
            return False
        index = bisect.bisect_right(self.pinned, line, key=lambda block: block[0]) - 1
        return index >= 0 and self.pinned[index][1] >= line

    def region_at(self, line: int) -> Region | None:
        if not self.regions:
            return None
        index = bisect.bisect_right(self.regions, line, key=lambda block: block[0]) - 1
        return self.regions[index][2] if index >= 0 and self.regions[index][1] >= line else None


class _Text:
    """Offsets to 1-based lines and columns, for one text."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def line_start(self, offset: int) -> int:
        return self.starts[self.line(offset) - 1]

    def span(self, start: int, end: int) -> Span:
        line, end_line = self.line(start), self.line(end)
        return Span(self.path, line, start - self.starts[line - 1] + 1, end_line, end - self.starts[end_line - 1] + 1)


def scan(text: str, fmt: str | None = None, path: str = "") -> Directives:
    """The directives in ``text``, a file of format ``fmt`` (None: accept every comment syntax)."""
    found = Directives()
    if "ctxlint" not in text.lower() and "sample" not in text:
        return found
    front_matter = _FRONT_MATTER.match(text) if fmt in _FRONT_MATTER_FORMATS else None
    front_matter_end = front_matter.end() if front_matter else 0
    header = _FRONT_MATTER_YAML.match(text) if fmt in _FRONT_MATTER_FORMATS else None
    if header is not None and _BUDGET_KEY.search(header.group(1)):
        found.front_matter = (header.group(1), text.count("\n", 0, header.start(1)) + 1)
    where = _Text(text, path)
    closers: dict[str, int] = {}  # where the next closer of each kind is, for unclosed comments
    open_block: tuple[str, int] | None = None  # ("pinned" or a region, first line)
    comment_end = 0  # the end of the last directive's comment
    for loose in _ANY.finditer(text):
        opener = loose.group("open")
        if fmt in _OPENERS and not opener.startswith(_OPENERS[fmt]) and not (
            opener == "#" and loose.start() < front_matter_end
        ):
            continue
        if loose.start() < comment_end:
            continue  # inside the previous directive's comment
        # The directive is read up to the end of its comment or line, whichever comes first: on
        # one long line of comments each would otherwise read the rest of the line.
        match = _DIRECTIVE.match(text, loose.start(), _reading_end(text, loose, closers))
        if match is None or (match.group("kind") == "ignore" and match.group("codes") is None
                             and _LOOSE_CODES.match(text, match.end())):
            problem = _malformed(loose, match)
            if problem is not None:
                found.malformed.append(Malformed(where.span(loose.start("word"), loose.end()), problem))
            continue
        kind = match.group("kind")
        line = where.line(match.start())
        line_start = where.starts[line - 1]
        alone = not _before_on_line(text, match.start(), line_start, comment_end)
        end = comment_end = _comment_end(text, match, closers)
        end_line = where.line(end)
        alone = alone and not _after_on_line(text, end)
        if kind in ("budget", "key-field"):
            column = match.start() - line_start + 1
            found.budget.append(BudgetDirective(kind, _arguments(text, match, end), line, column))
        elif kind in ("untrusted", "trusted"):
            names = {n.strip() for n in _names(match).split(",") if n.strip()}
            (found.untrusted if kind == "untrusted" else found.trusted).update(names)
        elif kind in ("pinned", "head", "middle", "tail"):
            open_block = (kind, end_line + (1 if alone else 0))
        elif kind == "end":
            if open_block is not None:
                _close(found, open_block, line - (1 if alone else 0))
                open_block = None
        else:
            # A comment alone on its line covers the next line too; a trailing one its own line.
            covered = frozenset(range(line, end_line + 2) if alone else [line])
            found.suppressions.append(Suppression(
                span=where.span(match.start(), match.end()),
                text=text[loose.start("word") : match.end()],
                file_level=kind == "ignore-file",
                codes=_codes(match),
                lines=frozenset() if kind == "ignore-file" else covered,
                removal=_removal(text, match, end, alone, line_start),
                brackets=(match.start("codes"), match.end("codes")) if match.group("codes") is not None else None,
            ))
    if open_block is not None:  # a marker without `end` runs to the end of the file
        _close(found, open_block, len(where.starts))
    return found


def _malformed(loose: re.Match[str], strict: re.Match[str] | None) -> str | None:
    """Why a comment that opens with ``ctxlint`` is not a directive (None: it is prose)."""
    word, kind, colon = loose.group("word"), loose.group("kind"), loose.group("colon")
    written = loose.group()[len(loose.group("open")):].strip()
    if strict is not None:  # `ignore` followed by codes outside brackets: it would ignore everything
        return (f"`{written}` followed by codes outside brackets suppresses every rule on the line, not "
                "those codes; put them in brackets: `ctxlint: ignore[CTX101]`")
    close = difflib.get_close_matches(kind.lower(), KINDS, n=1, cutoff=0.7)
    if word != "ctxlint" or (kind.lower() in KINDS and kind != kind.lower()):
        if not colon and not close:
            return None
        return f"`{written}` is not a directive: directives are lower case, e.g. `ctxlint: ignore[CTX101]`"
    if not colon:
        if not close:
            return None  # prose that starts with the word ctxlint
        return f"`{written}` is not a directive: the colon is missing (`ctxlint: {close[0]}`)"
    if not kind:
        return "`ctxlint:` names no directive; write e.g. `ctxlint: ignore[CTX101]`"
    hint = f"did you mean `{close[0]}`?" if close else f"directives are {', '.join(KINDS)}"
    return f"`ctxlint: {kind}` is not a directive, so it does nothing; {hint}"


def _close(found: Directives, block: tuple[str, int], last: int) -> None:
    kind, first = block
    if last < first:
        return
    if kind == "pinned":
        found.pinned.append((first, last))
    else:
        found.regions.append((first, last, _REGIONS[kind]))


def _codes(match: re.Match[str]) -> tuple[CodeRef, ...] | None:
    raw = match.group("codes")
    if raw is None:
        return None
    base = match.start("codes")
    return tuple(CodeRef(m.group(), base + m.start(), base + m.end()) for m in re.finditer(r"[^,\s]+", raw))


def _before_on_line(text: str, start: int, line_start: int, previous_end: int) -> bool:
    """Whether other text precedes a comment on its line (a previous comment counts)."""
    if previous_end > line_start:
        return True
    return _NONBLANK.search(text, line_start, start) is not None


def _after_on_line(text: str, end: int) -> bool:
    """Whether text follows a comment on its line: only the blanks up to it are read."""
    found = _NONBLANK.search(text, end)
    return found is not None and "\n" not in text[end : found.start()]


def _names(match: re.Match[str]) -> str:
    """The names an ``untrusted=``/``trusted=`` directive lists, up to the comment's end."""
    raw = match.group("names") or ""
    closer = _NAMES_END.search(raw)
    raw = raw[: closer.start()] if closer else raw
    return raw if _NAMES.fullmatch(raw) else ""


def _arguments(text: str, match: re.Match[str], end: int) -> str:
    """The words after a directive's kind, up to the end of its comment."""
    opener = match.group("open")
    closer = next((c for o, c in _CLOSERS.items() if opener.startswith(o)), "")
    words = text[match.end("kind") if match.group("names") is not None else match.end() : end]
    if closer and words.endswith(closer):
        words = words[: -len(closer)]
        if closer == "#}" and words.endswith("-"):  # Jinja whitespace control: `-#}`
            words = words[:-1]
        elif closer == "}}" and words.endswith("--"):  # Handlebars long comment: `--}}`
            words = words[:-2]
    return words.strip()


def _next(text: str, what: str, start: int, found: dict[str, int]) -> int:
    """Where ``what`` next occurs from ``start`` on (-1: nowhere); ``found`` remembers the last
    answer, so that calls with growing ``start`` search the text once in all."""
    at = found.get(what, -2)
    if at != -1 and at < start:
        at = found[what] = text.find(what, start)
    return at


def _reading_end(text: str, loose: re.Match[str], closers: dict[str, int]) -> int:
    """Where a directive that opens at ``loose`` is read to: the end of its line, or the end of its
    comment's closer if that comes first."""
    line_end = _next(text, "\n", loose.start(), closers)
    end = len(text) if line_end < 0 else line_end
    opener = loose.group("open")
    closer = next((c for o, c in _CLOSERS.items() if opener.startswith(o)), None)
    if closer is not None:
        at = _next(text, closer, loose.end("open"), closers)
        if 0 <= at < end:
            end = at + len(closer)
    after = loose.end()
    if text.startswith("[", after) and not 0 <= _next(text, "]", after, closers) < end:
        return after  # a bracket that does not close in reach: read no further than the kind
    return end


def _comment_end(text: str, match: re.Match[str], closers: dict[str, int]) -> int:
    """Where the directive's comment ends; ``closers`` remembers the next closer of each kind, so
    that many unclosed comments do not each search the rest of the text."""
    opener = match.group("open")
    closer = next((c for o, c in _CLOSERS.items() if opener.startswith(o)), None)
    # The names of `untrusted=` are read to the end of the line: the comment may close before.
    after = match.start("names") if match.group("names") is not None else match.end()
    if closer is None:  # a line comment runs to the end of the line
        end = text.find("\n", after)
        return len(text) if end < 0 else end
    at = _next(text, closer, after, closers)
    return len(text) if at < 0 else at + len(closer)


def _removal(text: str, match: re.Match[str], end: int, alone: bool, line_start: int) -> tuple[int, int] | None:
    """The range to delete to remove a suppression without changing the rendered prompt.

    Jinja comments are removed exactly, leaving their line (a template renders a comment-only
    line as an empty line, and would render without it one line shorter); whitespace-control
    comments (`{#-`, `-#}`) are not removed at all, since they trim text around them. Other
    comments alone on their line go with the line; a trailing line comment goes with the space
    before it, up to another comment that follows it (`# ctxlint: ignore[X]  # noqa`).
    """
    opener = match.group("open")
    start = match.start()
    if opener.startswith("{#"):
        if opener.endswith("-") or text[end - 3 : end - 2] == "-":
            return None
        return start, end
    if opener in ("#", "//"):
        following = re.search(r"[ \t]+(?:#|//)", text[match.end() : end])
        if following is not None:  # keep the other comment, and so the line
            end = match.end() + following.start()
            alone = False
    if alone:
        line_end = text.find("\n", end)
        return line_start, len(text) if line_end < 0 else line_end + 1
    while start > line_start and text[start - 1] in " \t":
        start -= 1
    return start, end


def removal_fix(use: SuppressionUse, suppression: Suppression, keep: list[CodeRef]) -> Fix | None:
    """A fix that removes ``suppression`` (``keep`` empty) or only the entries not in ``keep``."""
    where = use.lines
    if keep and suppression.brackets is not None and suppression.codes is not None:
        start, end = suppression.brackets
        return Fix("remove the codes that suppress nothing", where.span(start, end), ", ".join(r.text for r in keep))
    if suppression.removal is None:
        return None
    start, end = suppression.removal
    return Fix("remove the unused suppression", where.span(start, end), "")
