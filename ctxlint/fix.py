"""Applying fixes: splice replacements into the source, never lose data.

Fix spans are positions in the text the front-ends saw (BOM removed, newlines normalised to
``\\n``), so the file is normalised the same way, edited, and given back its BOM and CRLF
newlines. A file that did not parse is never touched; a file with mixed newlines is left alone
rather than rewritten with one style. Writes go to a temporary file in the same directory and
are renamed over the original, so an interrupted run leaves the old file or the new, never half.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ctxlint.model import Finding, Fix

_BOM = "\ufeff"


@dataclass(frozen=True)
class FileFix:
    path: Path
    original: str
    fixed: str
    applied: int


class Unfixable(Exception):
    """The file must not be rewritten; the message says why."""


def plan(path: Path, findings: list[Finding]) -> FileFix | None:
    """The fixed text of ``path`` for the fixes among ``findings`` (all from this file)."""
    if not any(f.fix is not None for f in findings):
        return None
    return plan_text(path, path.read_bytes().decode("utf-8"), findings)


def plan_text(path: Path, original: str, findings: list[Finding]) -> FileFix | None:
    """The fixed text of ``original`` (the content of ``path``, from disk or standard input)."""
    fixes = [f.fix for f in findings if f.fix is not None]
    if not fixes:
        return None
    if any(f.code == "CTX001" for f in findings):
        raise Unfixable("not fixed: the file does not parse")
    if any(f.span.cell is not None for f in fixes):
        raise Unfixable("not fixed: ctxlint does not rewrite notebooks; apply the fix in the cell by hand "
                        "(`--output-format json` shows it)")
    bom = original.startswith(_BOM)
    body = original[1:] if bom else original
    crlf = "\r\n" in body
    if crlf and body.count("\r\n") != body.count("\n"):
        raise Unfixable("not fixed: the file mixes newline styles")
    text = body.replace("\r\n", "\n")
    fixed, applied = splice(text, fixes)
    if crlf:
        fixed = fixed.replace("\n", "\r\n")
    return FileFix(path, original, (_BOM if bom else "") + fixed, applied)


def splice(text: str, fixes: list[Fix]) -> tuple[str, int]:
    """Apply non-overlapping fixes (the first of any overlapping pair wins)."""
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + column - 1

    edits = sorted(
        {(offset(f.span.line, f.span.column), offset(f.span.end_line, f.span.end_column), f.replacement)
         for f in fixes}
    )
    kept, last_end = [], -1
    for start, end, replacement in edits:
        if start >= last_end:
            kept.append((start, end, replacement))
            last_end = end
    for start, end, replacement in reversed(kept):
        text = text[:start] + replacement + text[end:]
    return text, len(kept)


def write_atomic(path: Path, content: str) -> None:
    mode = path.stat().st_mode
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".ctxlint")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(content)
        os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
