"""Jupyter notebooks: the code cells, in order, read as one module.

Cookbooks keep prompts and tool schemas in notebooks. The code cells are joined into one
module (Python, or TypeScript/JavaScript for a Deno or tslab kernel) and read by that
language's front-end, so a prompt defined in one cell and sent in another is one request.
Markdown and raw cells and all outputs are ignored. IPython magics (``%pip``, ``!ls``) and
cells run by a cell magic (``%%bash``) are not Python: they are read as comments.

Findings point into the notebook the way ruff does: ``path.ipynb:cell 3:2:5`` is line 2,
column 5 of the third cell (counting every cell, as Jupyter shows them). The joined module is
what the front-end and the ``ctxlint:`` directives see (``ParsedFile.embedded``); the engine
maps every location back to its cell.
"""

from __future__ import annotations

import bisect
import json
import re

from ctxlint.model import Embedded, ParsedFile, Span
from ctxlint.numbers import read_int

_LINE = re.compile(r"\bline (\d+)\b")
_LANGUAGES = {"python": "python", "ipython": "python", "python3": "python", "typescript": "typescript",
              "javascript": "javascript", "ts": "typescript", "js": "javascript"}


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    if not text.strip():
        return parsed
    try:
        document = json.loads(text, parse_int=read_int)  # a 5,000-digit number is infinity, not a crash
    except json.JSONDecodeError as error:
        parsed.errors.append((Span.point(path, error.lineno, error.colno), f"not valid notebook JSON: {error.msg}"))
        return parsed
    except RecursionError:
        parsed.errors.append((Span.point(path, 1), "the notebook's JSON nests too deeply to read"))
        return parsed
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        parsed.errors.append((Span.point(path, 1), "not a Jupyter notebook: there is no `cells` list"))
        return parsed
    language = _language(document)
    if language is None:
        return parsed  # an R, Julia or other kernel: no front-end for its code
    module, starts, numbers = _join(cells, language)
    if not module.strip():
        return parsed
    if language == "python":
        from ctxlint.frontends import python

        inner = python.parse_file(module, path)
    else:
        from ctxlint.frontends import typescript

        inner = ParsedFile(path)
        if typescript.might_hold_prompts(module):
            typescript.parse_source(module, path, language, inner)

    def relocate(span: Span) -> Span:
        index = max(bisect.bisect_right(starts, span.line) - 1, 0)
        first = starts[index]
        end_index = max(bisect.bisect_right(starts, span.end_line) - 1, 0)
        end_line, end_column = span.end_line - first + 1, span.end_column
        if end_index != index:  # a range that runs into the next cell stops at the end of its own
            end_line, end_column = starts[index + 1] - first, 1
        return Span(span.path, span.line - first + 1, span.column, end_line, end_column, cell=numbers[index])

    def retell(message: str, where: Span) -> str:
        """Messages name other lines of the module ("…, line 12"): say which cell they are in."""
        def one(match: re.Match) -> str:
            target = relocate(Span.point(path, int(match.group(1))))
            return f"line {target.line}" if target.cell == where.cell else f"cell {target.cell}, line {target.line}"

        return _LINE.sub(one, message)

    inner.embedded = Embedded(module, "python" if language == "python" else "typescript", relocate, retell)
    return inner


def _language(document: dict) -> str | None:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        table = metadata.get(key)
        value = table.get(field) if isinstance(table, dict) else None
        if isinstance(value, str) and value:
            return _LANGUAGES.get(value.lower())
    return "python"  # nbformat's default; a notebook without metadata is almost always Python


def _join(cells: list, language: str) -> tuple[str, list[int], list[int]]:
    """The code cells as one module, the module line where each starts, and each one's number."""
    lines: list[str] = []
    starts: list[int] = []
    numbers: list[int] = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        if not isinstance(source, str):
            continue
        body = source.split("\n")
        if language == "python":
            body = _without_magics(body)
        starts.append(len(lines) + 1)
        numbers.append(number)
        lines.extend(body)
    return "\n".join(lines) + "\n", starts, numbers


# Line magics IPython runs without a `%` (automagic): `pip install openai` in a cell is valid.
_AUTOMAGIC = re.compile(r"(?:pip|conda|mamba)\s+(?:install|uninstall)\s")


def _without_magics(lines: list[str]) -> list[str]:
    """IPython's own syntax as comments, so the cell parses and keeps its line numbers.

    Only a line where a Python statement could start is read as IPython's: a `%`, `!` or a
    trailing `?` inside a triple-quoted prompt or an open bracket is the prompt's own text.
    A magic inside a block becomes `pass`, so an `if` around `!git clone` keeps a body.
    """
    if lines and lines[0].lstrip().startswith("%%"):
        return ["# " + line for line in lines]  # %%bash, %%writefile: the cell is not Python
    out = []
    continued = False  # the line before is a magic that ends in `\`: this one belongs to it
    inside = _Inside()
    for line in lines:
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if not continued and not inside.at_statement_start():
            out.append(line)
            inside.read(line)
            continue
        help_query = (stripped.endswith("?") and not stripped.startswith("#")
                      and "(" not in stripped and "=" not in stripped)
        assigned = _ASSIGNED_MAGIC.match(stripped)
        if continued or stripped.startswith(("%", "!")) or _AUTOMAGIC.match(stripped) or help_query:
            out.append(indent + ("# " if continued or not indent else "pass  # ") + stripped)
            continued = stripped.endswith("\\")
        elif assigned:  # `files = !ls`, `here = %pwd`: the name is bound to what IPython gives
            out.append(f"{indent}{assigned.group(1)}= None  # {assigned.group(2)}")
            continued = stripped.endswith("\\")
        else:
            out.append(line)
            inside.read(line)
    return out


class _Inside:
    """Whether the next line starts inside a string, a bracket or a `\\` continuation."""

    def __init__(self) -> None:
        self.quote = ""  # the open triple quote, if any
        self.depth = 0
        self.joined = False

    def at_statement_start(self) -> bool:
        return not self.quote and self.depth <= 0 and not self.joined

    def read(self, line: str) -> None:
        index = 0
        while index < len(line):
            if self.quote:  # inside a triple-quoted string opened on an earlier line
                close = _closing(line, index, self.quote)
                if close is None:
                    break
                index, self.quote = close, ""
                continue
            char = line[index]
            if char == "#":
                break
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth -= 1
            elif char in "'\"":
                quote = char * 3 if line.startswith(char * 3, index) else char
                close = _closing(line, index + len(quote), quote)
                if close is None:
                    self.quote = quote if len(quote) == 3 else ""
                    break
                index = close
                continue
            index += 1
        self.joined = not self.quote and line.rstrip().endswith("\\") and not line.lstrip().startswith("#")


def _closing(line: str, index: int, quote: str) -> int | None:
    """Where the string whose text starts at ``index`` ends (just past the ``quote`` that closes
    it, escaped characters skipped); None when the line ends first."""
    while index < len(line):
        if line[index] == "\\":
            index += 2
        elif line.startswith(quote, index):
            return index + len(quote)
        else:
            index += 1
    return None


# `name = %magic ...` and `name = !command`: IPython binds the name to the magic's result.
_ASSIGNED_MAGIC = re.compile(r"([A-Za-z_][\w.]*\s*)=\s*([%!].*)$")
