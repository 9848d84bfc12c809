"""Whether a loop over ``os.walk`` puts each folder's entries in order (``dirs.sort()`` and
``for name in sorted(files)``): then the walk gives the same order on every machine."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import walk


def walk_sorted(loop: ast.For | ast.AsyncFor) -> bool:
    """Whether a loop over ``os.walk`` puts each folder's entries in order: it sorts the folders it
    descends into in place (``dirs.sort()``, ``dirs[:] = sorted(dirs)``) and walks the files sorted
    (``for name in sorted(files)``)."""
    target = loop.target
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 3
            and all(isinstance(e, ast.Name) for e in target.elts[1:])):
        return False
    dirs, files = (e.id for e in target.elts[1:])  # type: ignore[attr-defined]
    sorts_dirs = any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "sort"
        and isinstance(n.func.value, ast.Name) and n.func.value.id == dirs
        or isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                                             and t.value.id == dirs for t in n.targets)
        and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) and n.value.func.id == "sorted"
        for n in walk(loop))
    loops = [n for n in walk(loop) if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)) and n is not loop
             and any(isinstance(x, ast.Name) and x.id == files for x in ast.walk(n.iter))]
    return sorts_dirs and all(isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Name)
                              and n.iter.func.id == "sorted" for n in loops)
