"""Reading a git repository without touching its working tree or index: what ``cost --compare``
and ``check --changed-since`` need. Every failure is a GitError, a usage error (exit 2)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


class GitError(Exception):
    """Not a git repository, a bad ref, or git failed: a usage error (exit 2)."""


def run(cwd: Path, *args: str, input: bytes | None = None, purpose: str = "--compare reads the baseline with git",
        ) -> bytes:
    """git's output; ``purpose`` says what needs git when it is not installed."""
    try:
        done = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=False,
                              env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except FileNotFoundError:
        raise GitError(f"git is not installed or not on PATH; {purpose}") from None
    if done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed")
    return done.stdout


def work_tree(paths: Sequence[str]) -> Path:
    """The top of the work tree holding the first of ``paths`` (or the working directory)."""
    start = Path(paths[0]) if paths else Path.cwd()
    start = start if start.is_dir() else start.parent
    try:
        top = run(start.resolve(), "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    except GitError as error:
        if "not a git repository" in str(error).lower():
            raise GitError(f"{start}: not inside a git repository; --compare needs one") from None
        raise
    return Path(top).resolve()


def resolve_ref(top: Path, ref: str) -> str | None:
    """The commit ``ref`` names, or None for HEAD in a repository with no commit yet."""
    if not ref or ref.startswith("-"):  # never let a ref be read as an option
        raise GitError(f"`{ref}` is not a git revision")
    try:
        return run(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    except GitError:
        pass
    if ref in ("HEAD", "@"):
        try:  # an unborn branch: HEAD names a branch that has no commit yet
            run(top, "symbolic-ref", "--quiet", "HEAD")
            return None
        except GitError:
            pass
    raise GitError(f"unknown git revision `{ref}` (a branch, tag or commit: `git fetch` it first in a shallow clone)")


# A commit's files: path -> (mode, object id, size).
Tree = Mapping[str, tuple[str, str, int]]


def tree(top: Path, commit: str | None) -> dict[str, tuple[str, str, int]]:
    """Every file of the commit: path -> (mode, object id, size)."""
    if commit is None:
        return {}
    out = run(top, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    entries = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, oid, size = meta.split()
        if kind == b"blob":
            entries[path.decode("utf-8", "surrogateescape")] = (
                mode.decode(), oid.decode(), int(size) if size.isdigit() else 0)
    return entries


def read_blobs(top: Path, oids: Sequence[str]) -> dict[str, bytes]:
    """The contents of ``oids``, all in one ``git cat-file --batch``."""
    if not oids:
        return {}
    out = run(top, "cat-file", "--batch", input="".join(f"{oid}\n" for oid in oids).encode())
    blobs, pos = {}, 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) != 3:  # "<oid> missing"
            continue
        size = int(header[2])
        blobs[header[0].decode()] = out[pos:pos + size]
        pos += size + 1
    return blobs


def symlink_target(files: Tree, path: str, target: bytes) -> str | None:
    """The tree path a symlink inside the tree points to, or None (outside the tree, a loop)."""
    parts = [p for p in path.split("/")[:-1]]
    for part in target.decode("utf-8", "surrogateescape").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    resolved = "/".join(parts)
    return resolved if resolved in files else None
