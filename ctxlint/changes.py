"""`--changed-since REF`: which lines of which files changed since a git revision.

The working tree (staged and unstaged changes included) is compared with REF by `git diff`;
files git does not track yet count as new, every line changed. Only the lines a change added or
rewrote count: a finding is reported when its lines meet them, so a pull request is judged on
what it touched, not on what it inherited.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ctxlint import git
from ctxlint.git import GitError, resolve_ref

_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_QUOTED_ESCAPES = {b"a": b"\a", b"b": b"\b", b"t": b"\t", b"n": b"\n", b"v": b"\v", b"f": b"\f", b"r": b"\r",
                   b'"': b'"', b"\\": b"\\"}

# Per file (absolute, resolved path): the changed lines, or None when every line is new.
Changes = dict[str, "set[int] | None"]


def _git(cwd: Path, *args: str) -> bytes:
    try:
        return git.run(cwd, "-c", "core.quotePath=false", *args, purpose="--changed-since asks git what changed")
    except GitError as error:
        if "not a git repository" in str(error).lower():
            raise GitError(f"{cwd}: not inside a git repository; --changed-since needs one") from None
        raise


def changed_lines(ref: str, cwd: Path) -> Changes:
    """The lines changed since ``ref`` in the work tree holding ``cwd``."""
    top = Path(_git(cwd, "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip())
    commit = resolve_ref(top, ref)
    changes: Changes = {}
    if commit is None:  # no commit yet: everything is new
        listed = _git(top, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    else:
        diff = _git(top, "diff", "--no-color", "--no-ext-diff", "--no-renames", "--unified=0", commit, "--")
        _parse_diff(diff, top, changes)
        listed = _git(top, "ls-files", "-z", "--others", "--exclude-standard")
    for name in filter(None, listed.split(b"\0")):
        changes[_absolute(top, name)] = None
    return changes


def _parse_diff(diff: bytes, top: Path, changes: Changes) -> None:
    current: set[int] | None = None
    for line in diff.split(b"\n"):
        if line.startswith(b"+++ "):
            target = line[4:]
            if target == b"/dev/null":  # a deleted file: nothing of it is left to report on
                current = None
                continue
            current = changes.setdefault(_absolute(top, _unquote(target)[2:]), set())
        elif current is not None:
            hunk = _HUNK.match(line)
            if hunk:
                start, count = int(hunk.group(1)), int(hunk.group(2) or 1)
                current.update(range(start, start + count))


def _unquote(name: bytes) -> bytes:
    """A path as `git diff` prints it: C-quoted when it holds quotes, backslashes or controls."""
    if not name.startswith(b'"'):
        return name
    body, out, i = name[1:-1], bytearray(), 0
    while i < len(body):
        if body[i : i + 1] == b"\\" and i + 1 < len(body):
            nxt = body[i + 1 : i + 2]
            if nxt.isdigit():
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out += _QUOTED_ESCAPES.get(nxt, nxt)
            i += 2
            continue
        out += body[i : i + 1]
        i += 1
    return bytes(out)


def _absolute(top: Path, name: bytes) -> str:
    return os.path.realpath(top / os.fsdecode(name))


def touches(changes: Changes, path: str, line: int, end_line: int) -> bool:
    """Whether lines ``line``..``end_line`` of ``path`` changed."""
    lines = changes.get(os.path.realpath(path), set())
    return lines is None or any(number in lines for number in range(line, end_line + 1))
