"""Which names a project's files write besides where they are defined.

A function that only a call by its name reaches (not decorated, not a method a base class or a
framework calls) and whose name no other line of the project holds is never called: a request or
a cut inside it never reaches a model. ``unwritten`` answers that for a batch of names in one walk
over the project's text files (code in every language, configuration, templates and docs, so a
name a YAML file or a README gives counts as a use); a name found only on comment lines
(``# text = extract_with_3k(url)``, a call commented out, also after code on its line) is not
called from there, nor is a name only imported by a module that never writes it again. A function at
the top of its module is reached from another module only through an import of that module: a
code file that never imports it (``utils.shell`` for ``utils/shell.py``) holds some other object's
function of the same name, not a call of it.

Stdlib only; the walk is bounded, and a tree past its bounds answers that every name is written
(nothing is claimed uncalled on a partial reading).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

_SUFFIXES = frozenset({
    ".py", ".pyi", ".ipynb", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte",
    ".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".md", ".mdx", ".rst", ".txt", ".j2", ".jinja", ".jinja2",
    ".html", ".prompt", ".prompty", ".sh",
})
# Folders of installed packages, caches and build output: a name there is not the project's use.
_SKIPPED = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "env", "dist", "build"})
# Files in which a module's own functions are called through an import of it.
_CODE = frozenset({".py", ".pyi", ".ipynb", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue",
                   ".svelte"})
# An import of the module MODULE of the folder FOLDER: a Python import line that names it under
# its folder (`from pkg.utils.shell import f`, `from ..utils import shell`), or a string that ends
# with both as a path or a dotted name (`require("../utils/shell.js")`, `import_module("pkg.utils.shell")`).
_IMPORT = (rb"^[ \t]*(?:from|import)[ \t][^\n]*(?<![\w$])FOLDER(?:\.|[ \t]+import[ \t][^\n]*(?<![\w$]))"
           rb"MODULE(?![\w$])|[\"'`][\w./@-]*(?<![\w$-])FOLDER[./]MODULE(?:\.[cm]?[jt]sx?)?[\"'`]")
# ... by a relative import (`from .shell import f`, `from . import shell`, `from "./shell"`,
# `from "../../actions"`: a path that goes up is taken at its word).
_SIBLING_IMPORT = (rb"^[ \t]*from[ \t]+\.+[\w.]*?(?:(?<=\.)MODULE(?![\w$])"
                   rb"|[ \t]+import[ \t][^\n]*(?<![\w$])MODULE(?![\w$]))"
                   rb"|[\"'`]\.\.?/(?:[^\"'`\n]*/)?MODULE(?:\.[cm]?[jt]sx?)?[\"'`]")
# ... as a module of its own (`import helpers`, `from helpers import f`): its folder is on the path.
_TOP_IMPORT = rb"^[ \t]*(?:from|import)[ \t]+MODULE(?![\w$])|[\"'`]\.?/?MODULE(?:\.[cm]?[jt]sx?)?[\"'`]"
# ... through its folder's entry module, which re-exports it (`from "../../utils"`, `require("./utils/")`).
_FOLDER_IMPORT = rb"[\"'`][\w./@-]*(?<![\w$-])FOLDER(?:/index(?:\.[cm]?[jt]sx?)?|/)?[\"'`]"
# Prose: docs and posts, whose code samples may bind a name of their own.
_PROSE = frozenset({".md", ".mdx", ".rst", ".txt", ".html"})
# A module imported by a name made at run time under a folder: `import_module(f"extensions.{name}")`,
# `importlib.import_module("plugins." + name)`: the package before the name, whose folder the module is in.
_LOADER = b"import_module"
_LOADED_FOLDER = re.compile(rb"import_module\(\s*(?:f[\"']([\w.]+)\.\{|[\"']([\w.]+)\.[\"']\s*\+)")
MAX_FILES = 50_000
MAX_FILE_BYTES = 2_000_000
MAX_TOTAL_BYTES = 200_000_000
_COMMENT = (b"#", b"//", b"/*", b"*")
# A changelog's file name (`CHANGELOG.md`, `HISTORY.rst`, `NEWS`): prose, not code (`history.py` is code).
_HISTORY = re.compile(r"(?:change_?log|changes|history|news|release_?notes)(?:\.(?:md|rst|txt|markdown))?$",
                      re.IGNORECASE)


def word(name: str) -> str:
    """The name a question asks about: ``name``, or what comes before a NUL in it. Two questions
    about one name with different places to leave out (``build\0ask``) ask it apart in one walk."""
    return name.split("\0", 1)[0]


def unwritten(root: Path, names: dict[str, set[tuple[str, int]]],
              homes: Mapping[str, frozenset[Path]] | None = None,
              groups: Mapping[str, frozenset[str]] | None = None) -> set[str]:
    """The names that no line of the files under ``root`` writes, besides the places given for
    each (``(absolute path, line)`` of its definitions) and comment lines. A name given
    ``homes`` (the files that define it at their top) counts as written in another code file only
    when that file imports one of them. A name given ``groups`` (the names of the functions it is
    asked with) is not written inside a Python function of another file that bears one of those
    names undecorated (an override of a reader): only a call by that name, asked too, reaches it.
    In a git work tree, ``git grep`` names the files that hold any of them (tracked or untracked,
    not ignored), and only those are read; elsewhere every text file is."""
    homes = homes or {}
    groups = groups or {}
    left = {name: places for name, places in names.items() if name}
    asked = {word(name) for name in left}
    files = _grepped(root, asked | {_LOADER.decode()}) if (root / ".git").exists() else None
    loaded: set[tuple[str, ...]] = set()  # packages whose modules the project imports by a name made at run time
    total = 0
    for count, path in enumerate(_text_files(root) if files is None else files):
        if not left:
            break
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                continue
            total += size
            if count >= MAX_FILES or total > MAX_TOTAL_BYTES:
                return set()  # too large to read whole: nothing is claimed unwritten
            data = path.read_bytes()
        except OSError:
            continue
        if path.suffix.lower() == ".ipynb":
            data = _notebook_sources(data)
        if _LOADER in data and path.suffix.lower() in (".py", ".pyi", ".ipynb"):
            loaded.update(tuple((m.group(1) or m.group(2)).decode().split(".")) for m in _LOADED_FOLDER.finditer(data))
        present = [n for n in left if word(n).encode() in data]
        if not present:
            continue
        language = _Language(path, data)
        for name in present:
            own = {line for file, line in left[name] if file == str(path)}
            bare = word(name)
            # in another file only: there a function of the group's names is another class's override
            inside = _bodies(data, groups[name]) if name in groups and not own and language.comment == b"#" else set()
            if _written(data, bare, own | inside, language) and (own or _imports(path, data, homes.get(name))) \
                    and not (name in homes and _sample_binds(path, data, bare)):
                del left[name]
    # A module of a folder the project imports by a name it makes at run time (a plugin loader:
    # `import_module(f"extensions.{name}")` over the folder's files) runs what it defines at its top.
    return {name for name in left if not any(h.parent.parts[-len(package):] == package
                                             for h in homes.get(name, ()) for package in loaded)}


class _Language:
    """What a file's language makes of a line: where a comment starts after code (``#`` in
    Python, ``//`` in JavaScript and TypeScript), and which of its statements only import a
    name (``from .reducer import reduce_answers``, ``import { reduceAnswers } from "./reducer"``).
    An import is not a call: a name a module imports and never writes again is not used there,
    unless the module is its package's entry (``__init__.py``, ``index.ts``), which imports to
    re-export."""

    def __init__(self, path: Path, data: bytes) -> None:
        suffix = os.path.splitext(path.name)[1].lower()
        self.comment = b"#" if suffix in (".py", ".pyi") else b"//" if suffix in _CODE and suffix != ".ipynb" else None
        entry = path.name.split(".", 1)[0] in ("__init__", "index")
        pattern = _PY_IMPORTS if suffix in (".py", ".pyi") else _JS_IMPORTS if self.comment == b"//" else None
        self.imports = [m.span() for m in pattern.finditer(data)] if pattern is not None and not entry else []

    def trailing_comment(self, before: bytes) -> bool:
        """Whether the text ``before`` a name on its line holds the start of a comment outside any
        string (``answer = join(parts)  # answer = reduce(parts)``)."""
        if self.comment is None or self.comment not in before:
            return False
        at = before.find(self.comment)
        while at >= 0:
            head = before[:at]
            if all(head.count(quote) % 2 == 0 for quote in (b"'", b'"', b"`")):
                return True
            at = before.find(self.comment, at + 1)
        return False

    def imported_only(self, start: int, data: bytes) -> bool:
        """Whether the name at ``start`` is in an import statement, not renamed there (``f as g``
        is used by its new name)."""
        return any(a <= start < b for a, b in self.imports) and re.match(
            rb"[\w$]*[ \t]+as[ \t]", data[start:start + 200]) is None


# Import statements: Python's (a parenthesised list may span lines), and JavaScript's and
# TypeScript's `import ... from "..."` (a braced list may span lines); not `export ... from`, a re-export.
_PY_IMPORTS = re.compile(rb"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|[^\n]*)|import[ \t][^\n]*)",
                         re.MULTILINE)
_JS_IMPORTS = re.compile(rb"^[ \t]*import[ \t\n]+(?:type[ \t]+)?[^;'\"`()]*?\bfrom[ \t]*['\"][^'\"\n]*['\"]",
                         re.MULTILINE)


def _imports(path: Path, data: bytes, homes: frozenset[Path] | None) -> bool:
    """Whether a file that writes a name may reach its definition at the top of one of the modules
    ``homes``: always, for a name not tied to modules and for a file that is not code (a name in a
    YAML file or a README may be looked up by any means); else when it imports one of them."""
    suffix = os.path.splitext(path.name)[1].lower()
    if not homes or suffix not in _CODE:
        return True
    for home in homes:
        module, folder = home.name.split(".", 1)[0], home.parent.name
        if module in ("__init__", "index"):
            return True  # a package's own module: imported by its folder's name, in too many ways to tell
        if suffix == ".ipynb":  # a notebook's cells: any mention of the module counts
            pattern = rb"(?<![\w$])MODULE(?![\w$])"
        else:  # by its folder, as a module of its own (run from its folder, a `src/` layout), or from beside it
            pattern = b"|".join((_IMPORT, _TOP_IMPORT, _SIBLING_IMPORT))
        if re.search(pattern.replace(b"MODULE", re.escape(module.encode())).replace(b"FOLDER", re.escape(
                folder.encode())), data, re.MULTILINE):
            return True
        if suffix != ".ipynb" and re.search(_FOLDER_IMPORT.replace(b"FOLDER", re.escape(folder.encode())), data) \
                and _reexported(home):
            return True
    return False


def _reexported(home: Path) -> bool:
    """Whether the entry module of ``home``'s folder (``index.ts``, ``index.mjs`` ...) re-exports it
    (``export * from "./limited-fetch"``): an import of the folder is then an import of it."""
    module = re.escape(home.name.split(".", 1)[0].encode())
    for entry in home.parent.glob("index.*"):
        if entry.suffix.lower() not in _CODE or entry == home:
            continue
        try:
            data = entry.read_bytes()[:MAX_FILE_BYTES]
        except OSError:
            continue
        if re.search(rb"^[ \t]*export\b[^\n]*\bfrom[ \t]*[\"'`]\./" + module + rb"(?:\.[cm]?[jt]sx?)?[\"'`]",
                     data, re.MULTILINE):
            return True
    return False


def _sample_binds(path: Path, data: bytes, name: str) -> bool:
    """Whether prose (a README, a blog post) binds ``name`` in a code sample of its own
    (``user_prompt = "Tell me…"``): its mentions are then the sample's variable, not a use of the
    project's function or constant of that name."""
    return os.path.splitext(path.name)[1].lower() in _PROSE and re.search(
        rb"(?<![\w$.])" + re.escape(name.encode()) + rb"[ \t]*=(?!=)", data) is not None


def _notebook_sources(data: bytes) -> bytes:
    """A notebook's cells as written, without their stored outputs: what a cell once printed (a
    listing of names, a log) is a record of a past run, not a use of a name. The file as it is
    when it cannot be read as a notebook."""
    try:
        cells = json.loads(data).get("cells")
        sources = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]
    except (ValueError, AttributeError, TypeError, KeyError):
        return data
    return "\n".join(s for s in sources if isinstance(s, str)).encode()


def _written(data: bytes, name: str, own_lines: set[int], language: _Language | None = None) -> bool:
    """Whether ``data`` writes ``name`` as a whole word on a line that is not a comment and not
    one of ``own_lines`` (its definition), nor after a comment or in an import (``language``),
    nor as the name a Python ``def`` gives another function (an override defines, it calls nothing)."""
    for match in re.finditer(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])", data):
        start = data.rfind(b"\n", 0, match.start()) + 1
        before = data[start : match.start()]
        if before.strip().startswith(_COMMENT) or (language is not None and language.comment == b"#"
                                                   and _DEF.fullmatch(before) is not None):
            continue
        if language is not None and (language.trailing_comment(before)
                                     or language.imported_only(match.start(), data)):
            continue
        if own_lines and data.count(b"\n", 0, match.start()) + 1 in own_lines:
            continue
        return True
    return False


_DEF = re.compile(rb"[ \t]*(?:async[ \t]+)?def[ \t]+")


def _bodies(data: bytes, names: frozenset[str]) -> set[int]:
    """The lines (1-based) of the Python functions of ``data`` named one of ``names`` and not
    decorated: each ``def`` line and the lines indented under it."""
    lines = data.split(b"\n")
    found: set[int] = set()
    for number, line in enumerate(lines):
        head = _DEF.match(line)
        if head is None or line[head.end():].split(b"(", 1)[0].strip().decode(errors="replace") not in names:
            continue
        above = next((lines[i].strip() for i in range(number - 1, -1, -1) if lines[i].strip()), b"")
        if above.startswith(b"@"):
            continue  # a decorator registers it: a framework may call it by a name of its own
        indent = len(line) - len(line.lstrip())
        end = number + 1
        # the body: blank lines and those indented deeper, and the `) -> str:` closing a long signature
        while end < len(lines) and (not lines[end].strip() or lines[end].lstrip().startswith(b")")
                                    or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        found.update(range(number + 1, end + 1))
    return found


def _grepped(root: Path, names: Iterable[str]) -> list[Path] | None:
    """The text files of the work tree at ``root`` in which ``git grep`` finds one of ``names`` as a
    word; None when git cannot tell (not installed, not a work tree, an error)."""
    try:
        done = subprocess.run(["git", "grep", "-l", "-z", "-I", "-F", "-w", "--untracked", "-f", "-", "--", "."],
                              cwd=root, input="\n".join(names).encode(), capture_output=True, check=False,
                              timeout=60, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode not in (0, 1):  # 1: no file holds any of them
        return None
    found = []
    for relative in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        parts = relative.split("/")
        if relative and _readable(parts[-1]) and not any(
                p.startswith(".") or p in _SKIPPED for p in parts[:-1]):
            found.append(root / relative)
    return found


def _text_files(root: Path) -> Iterator[Path]:
    for directory, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in _SKIPPED)
        for name in sorted(files):
            if _readable(name):
                yield Path(directory, name)


def _readable(name: str) -> bool:
    """A text file that may use a name: code, configuration or docs; not a changelog, which
    records that a name once changed, not a use of it."""
    return os.path.splitext(name)[1].lower() in _SUFFIXES and not _HISTORY.match(name)


def project_top(start: Path) -> Path:
    """The top of the repository ``start`` is in (the nearest folder with a ``.git``), else
    ``start``: a name may be used anywhere in the repository, not only below a configuration."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return start


def names_at(places: Iterable[tuple[str, str, int]]) -> dict[str, set[tuple[str, int]]]:
    """``(name, absolute path, line)`` triples grouped by name."""
    grouped: dict[str, set[tuple[str, int]]] = {}
    for name, path, line in places:
        grouped.setdefault(name, set()).add((path, line))
    return grouped
