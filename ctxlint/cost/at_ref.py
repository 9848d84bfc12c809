"""Step 2 of ``ctxlint cost --compare``: the same files priced as they are at a git commit,
read from git's object store (``git ls-tree``, ``git cat-file``), never through the working
tree or the index."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ctxlint import git
from ctxlint.cost.pricing import FileCost, Pricer
from ctxlint.cost.progress import Progress
from ctxlint.discover import SKIP_DIRS, GitIgnore, glob_match, relative
from ctxlint.engine import Linter
from ctxlint.git import GitError, resolve_ref
from ctxlint.results import Notice, display_path


@dataclass(frozen=True)
class Baseline:
    """What ``--compare`` read: the ref as given, the commit it names (None: no commit yet)."""

    ref: str
    commit: str | None
    files: tuple[FileCost, ...]


def select_at_ref(tree: Mapping[str, tuple[str, str, int]], top: Path, paths: Sequence[str],
                  root: Path, include: Sequence[str], exclude: Sequence[str]) -> list[str]:
    """The tree paths that discovery would pick for ``paths`` if the tree were checked out.

    The rules of :func:`ctxlint.discover.discover`: a directory keeps the files that match
    ``include``, skipping :data:`SKIP_DIRS`, ``exclude`` and the working tree's ``.gitignore``
    rules; a file named explicitly is kept unless excluded. Globs see paths relative to the
    root, or to the directory argument when it is outside the root.
    """
    root = root.resolve()
    def include_match(rel: str) -> bool:
        return any(glob_match(g, rel) for g in include)

    def exclude_match(rel: str) -> bool:
        return any(glob_match(g, rel) for g in exclude)

    gitignore = GitIgnore(top)
    chosen: set[str] = set()
    for arg in paths:
        given = Path(os.path.abspath(arg))
        given = given.parent.resolve() / given.name
        rel = relative(given.resolve() if given.exists() else given, top)
        if rel is None:
            raise GitError(f"{arg}: outside the git repository at {top}")
        base = relative(given, root)
        if rel in tree:  # a file
            if not exclude_match(given.name if base is None else base):
                chosen.add(rel)
            continue
        prefix, base = (f"{rel}/" if rel else ""), (base or "")
        for path in tree:
            if not path.startswith(prefix):
                continue
            below = path[len(prefix):].split("/")
            dirs = ["/".join(below[:i]) for i in range(1, len(below))]
            if any(part in SKIP_DIRS for part in below[:-1]):
                continue
            glob_rel = f"{base}/{'/'.join(below)}" if base else "/".join(below)
            if not include_match(glob_rel) or exclude_match(glob_rel):
                continue
            if any(exclude_match(f"{base}/{d}/" if base else f"{d}/") for d in dirs):
                continue
            if any(gitignore.ignored(prefix + d, True) for d in dirs) or gitignore.ignored(path, False):
                continue
            chosen.add(path)
    return sorted(chosen)


def collect_at_ref(linter: Linter, ref: str, paths: Sequence[str], notices: list[Notice],
                   progress_stream: TextIO | None = None, what_if: Sequence[str] = ()) -> Baseline:
    """Price the requests in ``paths`` as they are at ``ref``, read from git's object store."""
    pricer = Pricer(linter, what_if)
    top = git.work_tree(paths)
    commit = resolve_ref(top, ref)
    tree = git.tree(top, commit)
    settings = linter.settings
    selected = select_at_ref(tree, top, paths, settings.root, settings.all_globs(), settings.exclude)
    wanted = {path: path for path in selected}  # tree path -> the path whose blob holds its content
    links = [p for p in selected if tree[p][0] == "120000"]
    link_blobs = git.read_blobs(top, [tree[p][1] for p in links])
    for path in links:
        target = git.symlink_target(tree, path, link_blobs.get(tree[path][1], b""))
        if target is None or tree[target][0] == "120000":
            del wanted[path]  # a link out of the tree, or a chain: nothing git can show
        else:
            wanted[path] = target
    files: list[FileCost] = []
    readable = {}
    for path, source in wanted.items():
        shown = display_path(top / path)
        size = tree[source][2]
        if size > settings.max_file_bytes:
            notices.append(Notice(shown, f"skipped at {ref}: {size:,} bytes is over the "
                                           f"{settings.max_file_bytes:,}-byte limit"))
            continue
        readable[path] = source
    blobs = git.read_blobs(top, sorted({tree[s][1] for s in readable.values()}))
    progress = Progress(len(readable), f"ctxlint cost ({ref})", progress_stream)
    for done, (path, source) in enumerate(sorted(readable.items())):
        progress.update(done)
        shown = display_path(top / path)
        data = blobs.get(tree[source][1])
        if data is None:
            notices.append(Notice(shown, f"skipped at {ref}: git cannot read the blob"))
            continue
        if b"\0" in data[:8192]:
            notices.append(Notice(shown, f"skipped at {ref}: binary file"))
            continue
        relpath = relative(top / path, settings.root.resolve())
        relpath = relpath if relpath is not None else Path(path).name
        parsed = linter.parse_bytes(data, shown, relpath)
        cost = pricer.file_cost(shown, relpath, parsed) if parsed is not None else None
        if cost is not None:
            files.append(cost)
    progress.update(len(readable))
    progress.close()
    return Baseline(ref, commit, tuple(sorted(files, key=lambda f: f.path)))
