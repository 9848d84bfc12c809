"""The linted tree's other Python modules, found by name when an import needs them.

``from app.prompts import SYSTEM`` in ``app/chat.py`` is looked up as ``app/prompts.py`` (or
``app/prompts/__init__.py``) under each folder from the importing file's up to the project
root, nearest first (a ``src/`` layout and a monorepo's ``libs/x/`` both resolve), relative
imports from the importing file's package. Nothing outside the root is read. The index is the
file system itself, asked a few ``stat`` calls per import and remembered, so building it costs
nothing up front; parsed modules are kept (the last ones used, bounded in size, per process: forked
workers each keep their own) and analysed only as far as a value is followed.
"""

from __future__ import annotations

import ast
import itertools
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ctxlint.frontends.code.summaries import new_file
from ctxlint.frontends.python.nodes import walk
from ctxlint.providers import LIMIT_KEYWORDS
from ctxlint.results import real_directory

if TYPE_CHECKING:
    from ctxlint.frameworks import Catalogue
    from ctxlint.frontends.python.analyzer import Analyzer

T = TypeVar("T")

# Other modules one linted file may read, and the largest one read for an import.
MAX_MODULES = 48
MAX_MODULE_BYTES = 400_000
# The modules kept parsed between files (per process): at least the last MAX_MODULES used, more
# while their text stays under this many characters. Kept to the last 48 only, the modules one file
# reads pushed out those the next one needed (in agno-agi/agno, 101 MB of modules were read to
# lint 34 MB, 13 MB of them distinct), each read again, and each module pushed out, by then in
# the garbage collector's oldest generation, waited there for a full collection: pauses of 2 to
# 3 s on whichever file came next.
MAX_KEPT_CHARS = 8_000_000
# How many modules one value may cross (a constant imported from a module that imports it ...).
MAX_HOPS = 6


class Project:
    """The modules of one tree that a linted module reaches (imports, base classes, the modules
    that fill its prompt constants), each read once by ``load`` (the analyzer's ``load_module``,
    given by the caller: this layer sits below the analyzer it keeps)."""

    def __init__(self, root: Path, catalogue: Catalogue, load: Callable[[Project, Path], Analyzer | None],
                 not_shipped: tuple[str, ...] = ()) -> None:
        self.root = root.resolve()
        self.catalogue = catalogue
        self.load = load
        self.not_shipped = not_shipped  # globs of the test and example paths (ParseContext); none: all shipped
        self.files: dict[tuple[str, Path, int], Path | None] = {}  # by the importer's folder
        self.importers: dict[tuple[str, Path, int], Path | None] = {}  # the same, by the importer
        self.stats: dict[str, bool] = {}  # whether a path is a file
        self.modules: OrderedDict[Path, Analyzer | None] = OrderedDict()
        self.retired: list[Analyzer] = []  # modules pushed out of ``modules``, closed by ``begin``
        self.kept_chars = 0  # the text of the modules kept
        self.lookups = 0  # names the file being linted looked up in other modules
        self.used: set[Path] = set()  # the other modules it has used, read for it or kept from an earlier file
        self.refused = False  # whether one more was needed past MAX_MODULES
        self._classes: dict[str, list[tuple[Path, str]]] | None = None
        self._limit_callees: frozenset[str] | None = None
        self._formatters: dict[str, list[Path]] | None = None
        self._scans: dict[tuple[str, str], list[Path]] = {}  # (what, name) -> modules, see modules_matching
        self._replayed: dict[str, list[tuple[Path, int]]] | None = None  # see replayed_fields
        self._picked: dict[str, list[Path]] | None = None  # see pickers
        self._homes: dict[str, list[str]] | None = None  # see package_homes
        self._llm_files: frozenset[str] | None = None  # see imports_llm_layer
        self.in_layer: dict[Path, bool] = {}  # modules of the LLM layer or importing one (layercalls.py)
        # The tree's modules as the first scan walked them, in walk order (see _module_files).
        self._walked: list[tuple[Path, bytes | None]] = []
        self._walker: Iterator[tuple[Path, bytes]] | None = walk_modules(self.root)
        self._kept_bytes = 0

    def module_file(self, module: str, importer: Path, level: int) -> Path | None:
        """The file of ``module`` imported from ``importer`` (``level`` dots for a relative import)."""
        # Asked for every name a module looks up elsewhere: by the importer itself first (its
        # Path keeps its hash), by its folder (a new Path each time) only on the first ask.
        known = self.importers.get((module, importer, level), _UNKNOWN)
        if known is not _UNKNOWN:
            return known
        key = (module, importer.parent, level)
        if key not in self.files:
            self.files[key] = self._find(module, importer, level)
        self.importers[module, importer, level] = found = self.files[key]
        return found

    def _find(self, module: str, importer: Path, level: int) -> Path | None:
        # On strings, not Paths: this runs for every name a linted module imports, and Path's
        # parents and comparisons cost more than the stat calls.
        parts = [p for p in module.split(".") if p]
        root = str(self.root)
        below = root.rstrip(os.sep) + os.sep  # how a path strictly below the root starts
        if level:
            package = importer.parent
            for _ in range(level - 1):
                package = package.parent
            bases = [str(package)]
        else:
            bases = []
            folder = str(importer.parent)
            while True:
                bases.append(folder)
                if folder == root or not folder.startswith(below):
                    break
                folder = os.path.dirname(folder)
            bases.append(os.path.join(root, "src"))
        found = self._under(bases, parts, root, below)
        if found is None and not level and parts:
            # a package of another distribution of a monorepo (`packages/graphrag-llm/graphrag_llm`):
            # looked for only when no folder above the importer holds the module
            found = self._under(self.package_homes().get(parts[0], []), parts, root, below)
        return found

    def _under(self, bases: list[str], parts: list[str], root: str, below: str) -> Path | None:
        """The module file or package ``parts`` names under the first of ``bases`` that holds one."""
        for base in bases:
            if base != root and not base.startswith(below):
                continue
            target = os.path.join(base, *parts)
            for candidate in ((target + ".py",) if parts else ()) + (os.path.join(target, "__init__.py"),):
                if self._is_file(candidate):
                    return Path(candidate)
        return None

    def imports_llm_layer(self, tree: ast.Module, text: str, importer: Path) -> bool:
        """Whether a module calls a method of an object it types with a class of the project's
        own LLM layer (``model: "Completion"`` ... ``model.complete(...)``): a class it imports
        from the project, defined in a module that imports a library of the catalogue or with a
        subclass defined in one (``LiteCompletion`` of ``llmcore/lite.py``, which imports
        ``litellm``). Such a module talks to a model through that class, whatever it imports
        itself. A framework's examples that import its agent class to build one are not read
        whole for it: that cost a third of the run and found nothing more."""
        imported: list[tuple[str, str, Path]] = []  # (class, name it is used by, its module's file)
        for node in tree.body:
            for statement in (node.body if isinstance(node, ast.If) else [node]):  # `if TYPE_CHECKING:` too
                if not isinstance(statement, ast.ImportFrom) or not (statement.module or statement.level):
                    continue
                names = [a for a in statement.names if a.name[:1].isupper()]
                found = self.module_file(statement.module or "", importer, statement.level) if names else None
                imported += [(a.name, a.asname or a.name, found) for a in names] if found is not None else []
        # Cheap tests first, the project-wide index last: most modules import no class of the
        # project, or call no method on an object they type with one.
        typed = _typed_names(tree) if imported else {}
        called = [(name, found) for name, used, found in imported
                  if any(f"{holder}." in text and re.search(rf"\b{re.escape(holder)}\.\w+\(", text)
                         for holder in set(typed.get(used, ())))]
        if not called:
            return False
        llm_files = self.llm_files()
        return any(str(found) in llm_files or any(str(path) in llm_files for path, _ in self.subclasses(name))
                   for name, found in called)

    def llm_files(self) -> frozenset[str]:
        """The modules of the tree that import a library of the catalogue (read with the indexes)."""
        if self._llm_files is None:
            self._read_indexes()
        assert self._llm_files is not None
        return self._llm_files

    def package_homes(self) -> dict[str, list[str]]:
        """The folders that hold each top-level package of the tree (a folder with an
        ``__init__.py`` whose parent has none), found once per run: where an absolute import
        resolves that no folder above the importer holds."""
        if self._homes is None:
            self._homes = {}
            seen = 0
            for folder, dirs, files in os.walk(self.root):
                dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
                seen += 1
                if seen > MAX_INDEXED:
                    break
                parent = os.path.dirname(folder)
                if "__init__.py" in files and folder != str(self.root) \
                        and not self._is_file(os.path.join(parent, "__init__.py")):
                    self._homes.setdefault(os.path.basename(folder), []).append(parent)
        return self._homes

    def _is_file(self, path: str) -> bool:
        """Whether ``path`` is a file (asked once per run: imports from many modules try the
        same candidates); a name the file system refuses (too long) is none."""
        if path not in self.stats:
            self.stats[path] = os.path.isfile(path)  # False where the system refuses the name
        return self.stats[path]

    def subclasses(self, name: str) -> list[tuple[Path, str]]:
        """The classes of the project that name ``name`` among their bases, directly or through
        other such classes: ``(file, class name)`` in path order. Read once per run from the
        ``class`` lines of the project's modules (a text scan, bounded like the imports)."""
        if self._classes is None:
            self._read_indexes()
        assert self._classes is not None
        found: list[tuple[Path, str]] = []
        seen = {name}
        queue = [name]
        while queue and len(found) < MAX_SUBCLASSES:
            for entry in self._classes.get(queue.pop(0), ()):
                if entry[1] not in seen:
                    seen.add(entry[1])
                    found.append(entry)
                    queue.append(entry[1])
        return sorted(found)

    def limit_callees(self) -> frozenset[str]:
        """The names of the functions the project calls with an output-limit keyword
        (``ask(prompt, max_tokens=200)``): a function that passes its ``**kwargs`` on to the
        model may be given its limit that way. Read once per run (a text scan, bounded like
        the class index)."""
        if self._limit_callees is None:
            self._read_indexes()
        assert self._limit_callees is not None
        return self._limit_callees

    def formatters(self, name: str) -> list[Path]:
        """The modules of the project that call ``name.format(...)`` (or ``format_map``): where
        a prompt constant of that name may be filled. Read once per run, like the classes."""
        if self._formatters is None:
            self._read_indexes()
        assert self._formatters is not None
        return self._formatters.get(name, [])[:MAX_FORMATTERS]

    def key_readers(self, key: str) -> list[Path]:
        """The modules of the project that read a mapping at ``key`` (``registry[Names.KEY]``,
        ``registry["key"]``; ``key`` is the last name of the key): where a prompt kept in a
        registry may be taken out and filled."""
        name = re.escape(key.encode())
        return self.modules_matching("key", key, rb"\w\s*\[\s*(?:(?:[A-Za-z_]\w*\.)*" + name
                                      + rb"|[\"']" + name + rb"[\"'])\s*\]", MAX_FORMATTERS)

    def callers(self, name: str, built: bool = False) -> list[Path]:
        """The modules of the project whose text calls ``name(...)``: where a function may be given
        its arguments (with ``built``, a call that is not its definition: ``class Name(Base)``)."""
        called = (rb"(?<!class )(?<!def )\b" if built else rb"\b") + re.escape(name.encode()) + rb"\("
        return self.modules_matching("build" if built else "call", name, called, MAX_CALLERS)

    def attribute_writers(self, attr: str) -> list[Path]:
        """The modules of the project whose text writes an attribute ``attr`` (``x.attr = ...``,
        ``self.attr += 1``): where a field may be given a value after its object is built."""
        return self.modules_matching("write", attr, attribute_write(attr), MAX_CALLERS)

    def loaders(self, name: str) -> list[Path]:
        """The modules of the project that build the class ``name`` from a spread or load it from
        data (``Config(**values)``, ``Config.model_validate(...)``): its fields may be given anything."""
        escaped = re.escape(name.encode())
        return self.modules_matching("load", name, rb"\b" + escaped + rb"\s*\(\s*\*\*|\b" + escaped + rb"\s*\.\s*"
                                      + _LOADERS + rb"\s*\(", 1)

    def method_definers(self, name: str) -> list[Path]:
        """The modules of the project whose text defines a method or nested function ``name`` (an
        indented ``def name(``), at most MAX_DEFINERS + 1: more than MAX_DEFINERS is too common a
        name to say which class an object of unknown type is."""
        pattern = rb"\n[ \t]+(?:async[ \t]+)?def[ \t]+" + re.escape(name.encode()) + rb"[ \t]*\("
        return self.modules_matching("method", name, pattern, MAX_DEFINERS + 1)

    def pickers(self, name: str) -> list[Path]:
        """The modules of the project that name ``name`` in a string of its own, or followed by
        a colon (``"Editor"``, ``"Editor:read,write"``): how a tool registry's entries are picked.
        Every such name is indexed in one walk, when the first registered tool asks."""
        if self._picked is None:
            picked: dict[str, list[Path]] = {}
            for path, data in self._module_files(b""):
                for found in set(_PICKED.findall(data)):
                    picked.setdefault(found.decode("ascii", "replace"), []).append(path)
            self._picked = picked
        return self._picked.get(name, [])

    def replayed_fields(self) -> dict[str, list[tuple[Path, int]]]:
        """The fields of stored rows that the project replays as a message's content, with where
        (module and line): ``{"role": feed.role, "content": feed.feed}`` gives ``feed``. A row
        built with a ``role=`` and that field is then a message of a later request. Read once per
        run, with the other indexes (rows are looked for in the modules that read a ``.role``)."""
        if self._replayed is None:
            self._read_indexes()
        assert self._replayed is not None
        return self._replayed

    def sent_as_limit(self, field: str) -> tuple[str, int] | None:
        """Where (module, line) a module of the project sends the field ``field`` of an object as a
        request's limit (``"max_completion_tokens": config.reduce_max_completion_tokens``,
        ``max_tokens=settings.answer_max_tokens``), if one does."""
        name = re.escape(field.encode())
        pattern = rb"\b(?:max_tokens|max_completion_tokens|max_output_tokens|max_new_tokens)[\"']?\s*[:=]\s*[\w.]*\." \
            + name + rb"\b"
        for path in self.modules_matching("sent-limit", field, pattern, 1):
            data = path.read_bytes()
            found = re.search(pattern, data)
            if found is not None:
                return path.relative_to(self.root).as_posix(), data.count(b"\n", 0, found.start()) + 1
        return None

    def field_readers(self, field: str) -> list[Path]:
        """The modules of the project that read the attribute ``field`` (``.field``) or name it in
        a string (``getattr(config, "field")``, ``config["field"]``)."""
        name = re.escape(field.encode())
        return self.modules_matching("field", field, rb"\." + name + rb"\b|[\"']" + name + rb"[\"']", MAX_INDEXED)

    def mentions(self, word: str) -> bool:
        """Whether any module of the project has ``word`` (an identifier) in its text."""
        return bool(self.modules_matching("word", word, re.escape(word.encode()), 1))

    def mentioning(self, word: str) -> list[Path]:
        """The modules whose text names ``word`` (an identifier), at most MAX_CALLERS + 1."""
        return self.modules_matching("name", word, rb"\b" + re.escape(word.encode()) + rb"\b", MAX_CALLERS + 1)

    def modules_matching(self, what: str, name: str, pattern: bytes, most: int) -> list[Path]:
        """The first ``most`` modules whose text ``pattern`` matches: a text scan per name, once per
        run and only when asked (the few names a prompt registry or a model's callers need), not
        part of the indexes every project pays for."""
        if (what, name) not in self._scans:
            needle = re.compile(pattern)
            self._scans[what, name] = list(itertools.islice(
                (path for path, data in self._module_files(name.encode()) if needle.search(data)), most))
        return self._scans[what, name]

    def _read_indexes(self) -> None:
        """The class, limit-keyword, `.format` and replayed-row indexes, from one walk over the
        project's modules: each file is read once, whichever index is asked for first."""
        classes: dict[str, list[tuple[Path, str]]] = {}
        formatters: dict[str, list[Path]] = {}
        callees: set[str] = set()
        replayed: dict[str, list[tuple[Path, int]]] = {}
        llm_files: set[str] = set()
        roots = sorted(self.catalogue.analysed_roots, key=len, reverse=True)
        library_import = re.compile(rb"^[ \t]*(?:from|import)[ \t]+(?:" + b"|".join(
            re.escape(r.encode()) for r in roots) + rb")\b", re.MULTILINE) if roots else None
        for path, data in self._module_files(b""):
            if library_import is not None and library_import.search(data):
                llm_files.add(str(path))
            if b".role" in data:
                for match in _REPLAYED_ROW.finditer(data):
                    line = data.count(b"\n", 0, match.start()) + 1
                    replayed.setdefault(match.group(2).decode("ascii", "replace"), []).append((path, line))
            if b"class" in data:
                _add(classes, _CLASS_LINE.finditer(data), path, _bases)
            if b".format" in data:
                _add(formatters, _FORMAT_CALL.finditer(data), path, _formatted)
            callees |= limit_callees(data)
        self._classes, self._formatters, self._limit_callees = classes, formatters, frozenset(callees)
        self._replayed = replayed
        self._llm_files = frozenset(llm_files)

    def _module_files(self, needle: bytes) -> Iterator[tuple[Path, bytes]]:
        """The text of every module of the tree (at most MAX_INDEXED read) that holds ``needle``.
        The tree is walked once per run, as far as a scan goes, and what it read is kept (up to
        MAX_WALKED_BYTES) for the next scan: a run asks for dozens (callers, definers, fields),
        and each walked and read the whole tree again."""
        index = 0
        while True:
            if index == len(self._walked):
                found = next(self._walker, None) if self._walker is not None else None
                if found is None:
                    self._walker = None
                    return
                path, data = found
                keep = self._kept_bytes + len(data) <= MAX_WALKED_BYTES
                self._kept_bytes += len(data) if keep else 0
                self._walked.append((path, data if keep else None))
            else:
                path, kept = self._walked[index]
                if kept is None:  # past the budget: read again, as the walk did
                    try:
                        data = path.read_bytes()
                    except OSError:
                        index += 1
                        continue
                else:
                    data = kept
            index += 1
            if needle in data:
                yield path, data

    def analyzer(self, path: Path) -> Analyzer | None:
        """The module at ``path``, parsed and indexed (kept for the next file that imports it)."""
        if path not in self.used:
            if len(self.used) >= MAX_MODULES:
                # One file reads at most as many other modules as are kept: past that, each new one
                # would push out one it still needs and be read again, over and over. A module kept
                # from an earlier file counts too, so what a file is told does not depend on which
                # files were linted before it in the same process (a pre-commit run on one file and
                # a run on the whole tree give it the same findings).
                self.refused = True
                return None
            self.used.add(path)
        if path in self.modules:
            self.modules.move_to_end(path)
            return self.modules[path]
        found = self.load(self, path)
        self.modules[path] = found
        self.kept_chars += _text_size(found)
        while len(self.modules) > MAX_MODULES and self.kept_chars > MAX_KEPT_CHARS:
            pushed_out = self.modules.popitem(last=False)[1]
            self.kept_chars -= _text_size(pushed_out)
            if pushed_out is not None:
                self.retired.append(pushed_out)
        return found

    def begin(self) -> None:
        """A new file is linted: values the kept modules followed for the last one are
        forgotten (they may name its nodes), their step budgets start again, and so do the
        summaries a bound cut short for the last file."""
        new_file()
        for analyzer in self.modules.values():
            if analyzer is not None:
                analyzer.unit.forget()
        self._close_retired()
        self.lookups = 0
        self.used = set()
        self.refused = False

    def _close_retired(self) -> None:
        """Close the modules pushed out that no kept module still reaches (a kept module's summary of
        a function that sends through one, a chat model built in one): freed now by reference
        counting. Left to the cyclic collector, each waited in its oldest generation for a full
        collection, which scans every module kept (1 to 2 s each, 13 of them on agno and
        pydantic-ai). Run between files, when no memo of the last file's values is left."""
        if not self.retired:
            return
        reached: set[int] = set()
        stack = [a for a in self.modules.values() if a is not None]
        while stack:
            analyzer = stack.pop()
            if id(analyzer) not in reached:
                reached.add(id(analyzer))
                stack.extend(analyzer.unit.modules_held())
        retired, self.retired = self.retired, []
        for analyzer in retired:
            if id(analyzer) in reached:
                self.retired.append(analyzer)  # closed once what holds it is
            else:
                analyzer.close()

_UNKNOWN = Path()  # not yet looked for (None: looked for, not found)

# The class index reads at most this many modules, and reports at most this many subclasses.
MAX_INDEXED = 20_000
MAX_SUBCLASSES = 200
MAX_CALLERS = 20
MAX_DEFINERS = 12
# How a class may be built from data rather than by a call that names its fields.
_LOADERS = rb"(?:model_validate|model_validate_json|parse_obj|parse_raw|parse_file|model_construct|construct" \
           rb"|from_dict|from_json)"


def attribute_write(attr: str) -> bytes:
    """``receiver.attr = ...`` (or ``: T =``, ``+=``), the receiver's name as group 1."""
    return rb"(\w+)\s*\.\s*" + re.escape(attr.encode()) + rb"\s*(?::[^=\n]*)?[-+*/|]?=(?!=)"


_CLASS_LINE = re.compile(rb"^[ \t]*class[ \t]+(\w+)[ \t]*\(([^)]*)\)", re.MULTILINE)
_SKIPPED = {".git", ".hg", ".venv", "venv", "env", "node_modules", "__pycache__", "site-packages", "build", "dist",
            ".tox", ".mypy_cache", ".ruff_cache"}


# A string naming an identifier alone or with the parts it picks after a colon (picked_by_name's shape).
_PICKED = re.compile(rb"[\"']([A-Za-z_]\w*)(?::[\w ,]*)?[\"']")


def picked_by_name(name: str) -> bytes:
    """A pattern of a string that names ``name`` alone or with the parts it picks after a colon."""
    return rb"[\"']" + re.escape(name.encode()) + rb"(?::[\w ,]*)?[\"']"


# The module text the walk keeps for later scans (per process), at most.
MAX_WALKED_BYTES = 32_000_000


def walk_modules(root: Path) -> Iterator[tuple[Path, bytes]]:
    """The text of every module under ``root`` (at most MAX_INDEXED read), in walk order."""
    read = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED and not d.startswith("."))
        for file in sorted(files):
            if not file.endswith(".py") or read >= MAX_INDEXED:
                continue
            path = Path(folder) / file
            try:
                if path.stat().st_size > MAX_MODULE_BYTES:
                    continue
                data = path.read_bytes()
            except OSError:
                continue
            read += 1
            yield path, data


def _bases(match: re.Match, path: Path) -> list[tuple[str, tuple[Path, str]]]:
    """A ``class`` line's entries in the class index: each base name -> (file, class name)."""
    name = match.group(1).decode("ascii", "replace")
    found = []
    for base in match.group(2).split(b","):
        base_name = base.strip().split(b"[")[0].rsplit(b".", 1)[-1].decode("ascii", "replace")
        if base_name.isidentifier():
            found.append((base_name, (path, name)))
    return found


def _formatted(match: re.Match, path: Path) -> list[tuple[str, Path]]:
    """A ``NAME.format(`` call's entry in the index of where prompt constants are filled."""
    return [(match.group(1).decode("ascii", "replace"), path)]


# The modules a prompt constant's render sites are read from, at most.
MAX_FORMATTERS = 8
# A message dict that replays a stored row: its role and its content read from the same object
# (`{'role': feed.role, 'content': feed.feed}`).
_REPLAYED_ROW = re.compile(rb"[\"']role[\"']\s*:\s*([A-Za-z_]\w*)\.role\s*,"
                           rb"\s*[\"']content[\"']\s*:\s*\1\.([A-Za-z_]\w*)\b")
_FORMAT_CALL = re.compile(rb"\b([A-Za-z_]\w*)\s*\.\s*format(?:_map)?\s*\(")


def _add(index: dict[str, list[T]], matches: Iterator[re.Match], path: Path,
         entries: Callable[[re.Match, Path], list[tuple[str, T]]]) -> None:
    """Add what ``matches`` in one module give (``entries``: the keys of each match) to ``index``."""
    for match in matches:
        for key, entry in entries(match, path):
            found = index.setdefault(key, [])
            if not found or found[-1] != entry:
                found.append(entry)


# The limit keywords (`max_tokens`, Ollama's `num_predict`), which limit_callees looks for after a
# cheap test that passes over most modules.
_LIMIT_KEYWORD = re.compile(rb"[(,][ \t\r\n]*(?:" + "|".join(LIMIT_KEYWORDS).encode() + rb")[ \t]*=(?!=)")
_NAME_BEFORE = re.compile(rb"(\w+)[ \t]*$")


def limit_callees(data: bytes) -> frozenset[str]:
    """The names of the functions a module's text calls with an output-limit keyword."""
    if b"max_" not in data and b"num_predict" not in data:
        return frozenset()
    return frozenset(name for match in _LIMIT_KEYWORD.finditer(data) if (name := _called_name(data, match.start())))


def _called_name(data: bytes, at: int) -> str | None:
    """The name of the function whose call's argument list holds offset ``at``: the nearest
    unclosed ``(`` before it (looked for over a few lines), and the name just before that."""
    depth = 0
    for index in range(at, max(at - 2000, 0) - 1, -1):
        char = data[index:index + 1]
        if char == b")":
            depth += 1
        elif char == b"(":
            if depth == 0:
                found = _NAME_BEFORE.search(data, max(index - 80, 0), index)
                return found.group(1).decode("ascii", "replace") if found else None
            depth -= 1
    return None


def _text_size(analyzer: Analyzer | None) -> int:
    """The length of a kept module's text, what its share of the kept modules is measured by."""
    return len(analyzer.unit.text) if analyzer is not None else 0


def display_path(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


_PROJECTS: dict[tuple[Path, int, tuple[str, ...]], Project] = {}


def project_for(root: Path, catalogue: Catalogue, load: Callable[[Project, Path], Analyzer | None],
                not_shipped: tuple[str, ...]) -> Project:
    key = (real_directory(root), id(catalogue), not_shipped)
    if key not in _PROJECTS:
        _PROJECTS.clear()  # one project per run: a new root, catalogue or configuration starts afresh
        _PROJECTS[key] = Project(root, catalogue, load, not_shipped)
    return _PROJECTS[key]


def _typed_names(tree: ast.Module) -> dict[str, list[str]]:
    """The names each class a module's annotations name is given to: a parameter (``model``) or a
    field of a class body (``_model``), by the class's name (forward references written as
    strings included)."""
    typed: dict[str, list[str]] = {}
    for node in walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            holder, annotation = node.arg, node.annotation
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, (ast.Name, ast.Attribute)):
            holder = node.target.id if isinstance(node.target, ast.Name) else node.target.attr
            annotation = node.annotation
        else:
            continue
        for part in ast.walk(annotation):
            words = [part.id] if isinstance(part, ast.Name) else re.findall(r"[A-Za-z_]\w*", part.value) \
                if isinstance(part, ast.Constant) and isinstance(part.value, str) and len(part.value) < 200 else []
            for word in words:
                if word[:1].isupper():
                    typed.setdefault(word, []).append(holder)
    return typed
