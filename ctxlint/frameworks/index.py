"""The catalogue's entries indexed for matching: call-path globs by their fixed last part."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import fields
from fnmatch import fnmatchcase
from functools import cached_property

from ctxlint.frameworks.entries import Framework, RowQueries
from ctxlint.frameworks.typescript import TypeScriptCatalogue

# How many call paths one set of patterns remembers matching before it starts over.
_MAX_MATCHED = 20_000


class Patterns:
    """A set of call-path globs, matched quickly: exact paths by lookup, the rest by their
    last part first."""

    def __init__(self, entries: Iterable[tuple[str, object]], constructions: bool = False) -> None:
        # Constructions (the holders): a glob stands for the classes a package exports
        # (`llama_index.llms.*`), not for a method called on an object one of them built
        # (`llama_index.llms.OpenAI().chat`): a path through a call matches only a pattern that
        # names one (`openai.*OpenAI().beta.assistants.create`).
        self.constructions = constructions
        self.exact: dict[str, list[object]] = {}
        self.by_last: dict[str, list[tuple[str, object]]] = {}
        self.wild: list[tuple[str, object]] = []
        self._matched: dict[str, tuple[object, ...]] = {}
        for pattern, value in entries:
            if not any(c in pattern for c in "*?["):
                self.exact.setdefault(pattern, []).append(value)
                continue
            last = pattern.rsplit(".", 1)[-1]
            if any(c in last for c in "*?["):
                self.wild.append((pattern, value))
            else:
                self.by_last.setdefault(last, []).append((pattern, value))

    def match(self, path: str) -> list[object]:
        # A module asks about the same few call paths at every call site (and the catalogue
        # outlives the module): each path is matched against the globs once.
        known = self._matched.get(path)
        if known is None:
            if len(self._matched) >= _MAX_MATCHED:
                self._matched.clear()
            known = self._matched[path] = tuple(self._match(path))
        return list(known)

    def _match(self, path: str) -> list[object]:
        found = self._match_exactly(path)
        if not found:
            # A class imported from the submodule that defines it (`google.generativeai.
            # generative_models.GenerativeModel`, `langchain_openai.chat_models.base.ChatOpenAI`)
            # is the one its package exports, which is the path the catalogue names.
            for exported in _exported_paths(path):
                found = self._match_exactly(exported)
                if found:
                    break
        return found

    def _match_exactly(self, path: str) -> list[object]:
        found = list(self.exact.get(path, ()))
        last = path.rsplit(".", 1)[-1]
        through_call = self.constructions and "()" in path
        for pattern, value in (*self.by_last.get(last, ()), *self.wild):
            if through_call and "()" not in pattern:
                continue
            if fnmatchcase(path, pattern):
                found.append(value)
        return found

    @cached_property
    def _last_names(self) -> LastNames:
        names = {path.rsplit(".", 1)[-1].rstrip("()") for path in self.exact}
        names |= set(self.by_last)
        globs = tuple(dict.fromkeys(pattern.rsplit(".", 1)[-1].rstrip("()") for pattern, _ in self.wild))
        return LastNames({n for n in names if n}, globs)

    def last_names(self) -> LastNames:
        """The last part of every pattern, for the cheap test: the fixed ones, and the globs of
        the patterns whose last part is one (``haystack.components.generators.*Generator``).
        Made once, as the catalogue is, so a name is matched against the globs once."""
        return self._last_names


class LastNames(frozenset[str]):
    """Names a call's last part may be for a pattern to match it: a set of fixed names that
    also holds every name one of its globs matches (``OpenAIChatGenerator`` for
    ``*Generator``)."""

    globs: tuple[str, ...]
    _globbed: dict[str, bool]  # each name is matched against the globs once

    def __new__(cls, names: Iterable[str] = (), globs: tuple[str, ...] = ()) -> LastNames:
        made = super().__new__(cls, names)
        made.globs, made._globbed = globs, {}
        return made

    def __contains__(self, name: object) -> bool:
        if frozenset.__contains__(self, name):
            return True
        if not isinstance(name, str) or not self.globs:
            return False
        known = self._globbed.get(name)
        if known is None:
            if len(self._globbed) >= _MAX_MATCHED:
                self._globbed.clear()
            known = self._globbed[name] = any(fnmatchcase(name, glob) for glob in self.globs)
        return known

    def named(self, name: str) -> bool:
        """Whether ``name`` is one of the fixed names (not one that only a glob matches)."""
        return frozenset.__contains__(self, name)

    def __or__(self, other: frozenset[str]) -> LastNames:  # type: ignore[override]
        return LastNames(frozenset.__or__(self, other), self.globs + getattr(other, "globs", ()))


def _exported_paths(path: str) -> list[str]:
    """The paths a class's package may export it at, nearest package first: ``a.b.c.Cls().m``
    gives ``a.b.Cls().m`` and ``a.Cls().m``. Only for a path that names a class (a capitalised
    part) below a module of two parts or more."""
    parts = path.split(".")
    cls = next((i for i, part in enumerate(parts) if part[:1].isupper()), None)
    if cls is None or cls < 2 or not all(part.isidentifier() for part in parts[:cls]):
        return []
    return [".".join((*parts[:keep], *parts[cls:])) for keep in range(cls - 1, 0, -1)]


def _fixed_tail(pattern: str) -> tuple[str, ...]:
    """The names at the end of a call-path pattern after its last wildcard or call."""
    fixed: list[str] = []
    for part in reversed(pattern.split(".")):
        if any(c in part for c in "*?[()"):
            break
        fixed.append(part)
    return tuple(reversed(fixed))


class Catalogue:
    """Every framework's entries, indexed by call path."""

    def __init__(self, frameworks: dict[str, Framework]) -> None:
        self.frameworks = frameworks
        all_ = list(frameworks.values())
        self.sink_calls = Patterns((p, s) for f in all_ for s in f.sinks for p in s.calls)
        self.sink_shapes = Patterns((p, s) for f in all_ for s in f.sinks for p in s.shapes)
        self.holders = Patterns(((p, h) for f in all_ for h in f.holders for p in h.calls), constructions=True)
        self.messages = Patterns((p, m) for f in all_ for m in f.messages for p in m.calls)
        self.templates = Patterns((p, t) for f in all_ for t in f.templates for p in t.calls)
        self.sources = Patterns((p, s) for f in all_ for s in f.sources for p in s.calls)
        self.labels = Patterns((p, s) for f in all_ for s in f.labels for p in s.calls)
        self.escapes = Patterns((p, p) for f in all_ for p in f.escapes)
        self.trimmers = Patterns((p, p) for f in all_ for p in f.trimmers)
        queries = [f.rows for f in all_ if f.rows is not None]
        self.rows = RowQueries(**{f.name: tuple(n for q in queries for n in getattr(q, f.name))
                                  for f in fields(RowQueries)})
        self.tool_decorators = Patterns((p, f.name) for f in all_ for p in f.tools.decorators)
        self.tool_registries = Patterns((p, f.name) for f in all_ for p in f.tools.registries)
        self.tool_constructors = Patterns((p, f.name) for f in all_ for p in f.tools.constructors)
        self.tool_renamers = frozenset(i for f in all_ if f.tools.renames for i in f.imports)
        self.signatures = [s for f in all_ for s in f.signatures]
        self.prompt_decorators = Patterns((p, pf.role)
                                          for f in all_ for pf in f.prompt_functions for p in pf.decorators)
        self.imports = {i for f in all_ for i in f.imports}
        self.exports = {alias: name for f in all_ for alias, name in f.exports.items()}
        self.llm_imports = frozenset(i for f in all_ if f.llm for i in f.imports)
        self.appenders = {name for f in all_ for m in f.messages if m.appends
                          for name in (p.rsplit(".", 1)[-1] for p in m.calls)}
        self._patterns: tuple[re.Pattern[str], ...] | None = None

    @cached_property
    def typescript(self) -> TypeScriptCatalogue:
        """The ``typescript:`` sections merged (built when a TypeScript module is first read)."""
        return TypeScriptCatalogue(list(self.frameworks.values()))

    @cached_property
    def sink_names(self) -> LastNames:
        """The last names a sink's call or shape may end with (the cheap test of a call)."""
        return self.sink_calls.last_names() | self.sink_shapes.last_names()

    def roots(self) -> frozenset[str]:
        """The libraries the catalogue knows (``openai``, ``google.genai``)."""
        return frozenset(self.imports)

    @cached_property
    def analysed_roots(self) -> frozenset[str]:
        """The libraries whose import makes a module worth the whole analysis: all but those of
        frameworks that only make tools (a module importing them is read for its tools)."""
        return frozenset(i for f in self.frameworks.values() if not f.tools_only for i in f.imports)

    def roots_for(self, text: str) -> frozenset[str]:
        """``analysed_roots`` for a module of this text, with the libraries of a framework that
        only makes tools when the text names one of its constructors (``Function.from_callable``):
        importing Agno alone does not make each of its thousands of modules worth reading whole."""
        named = [roots for names, roots in self._constructor_roots if any(n in text for n in names)]
        return self.analysed_roots.union(*named) if named else self.analysed_roots

    @cached_property
    def _constructor_roots(self) -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
        """(the last names of its constructors, its libraries) of each framework that only makes tools."""
        return tuple((frozenset(p.rsplit(".", 1)[-1] for p in f.tools.constructors), frozenset(f.imports))
                     for f in self.frameworks.values() if f.tools_only and f.tools.constructors)

    def from_library(self, path: str) -> bool:
        """Whether a call path starts at a library the catalogue knows (``openai.OpenAI()...``),
        not at a project's own object or a library it does not (``importlib.import_module()``)."""
        root = re.split(r"[.(]", path, maxsplit=1)[0]
        return root in self._root_names

    @cached_property
    def _root_names(self) -> frozenset[str]:
        return frozenset(r.split(".")[0] for r in self.imports)

    @cached_property
    def request_chains(self) -> frozenset[tuple[str, ...]]:
        """The method chains that look like a request whatever their receiver is: the fixed
        trailing names of each sink shape (``("models", "generate_content")`` of
        ``*.models.generate_content``), and the chains of two names or more called on a sink's
        client (``("completions", "create")`` of ``openai.*OpenAI().completions.create``; one
        name, such as ``generate``, says too little)."""
        chains: set[tuple[str, ...]] = set()
        for sink in (s for f in self.frameworks.values() for s in f.sinks):
            chains.update(c for c in map(_fixed_tail, sink.shapes) if c)
            chains.update(c for p in sink.calls if "()." in p and len(c := _fixed_tail(p.rsplit("().", 1)[1])) > 1)
        return frozenset(chains)

    def library_patterns(self) -> tuple[re.Pattern[str], ...]:
        """The Python imports of the libraries the catalogue knows: a module without one holds no
        call the catalogue describes (the Python prefilter reads it)."""
        if self._patterns is None:
            self._patterns = library_patterns(self.roots(), self.request_chains)
        return self._patterns

    def names(self) -> set[str]:
        """Names whose absence from a module's text means no entry can match in it."""
        names = set(self.imports)
        for patterns in (self.sink_calls, self.sink_shapes, self.holders, self.messages, self.templates,
                         self.tool_decorators, self.tool_registries, self.tool_constructors, self.prompt_decorators):
            names |= patterns.last_names()
        return names


def library_patterns(roots: frozenset[str],
                     chains: frozenset[tuple[str, ...]] = frozenset()) -> tuple[re.Pattern[str], ...]:
    """Imports of any of these modules: ``import dspy``, ``from crewai import Agent``, and for
    a submodule, ``from google import genai``; or (the second pattern, when there are chains) a
    call of one of the method ``chains`` that look like a request whatever the receiver
    (``.models.generate_content(``). A text holds one of them when a pattern finds it.

    Two patterns, not one alternation: the calls all start with ``.``, which the regex engine
    looks for as a literal when they stand alone; next to the line-anchored imports it tried
    every branch at every character (ten times slower over a project's modules)."""
    names = "|".join(sorted(re.escape(r) for r in roots))
    submodules = ""
    for root in sorted(r for r in roots if "." in r):
        parent, _, last = root.rpartition(".")
        submodules += rf"|from[ \t]+{re.escape(parent)}[ \t]+import\b[^\n]*\b{re.escape(last)}\b"
    imports = re.compile(rf"^[ \t]*(?:(?:import|from)[ \t]+(?:{names})\b{submodules})", re.MULTILINE)
    if not chains:
        return (imports,)
    calls = "|".join(sorted(rf"\.{re.escape('.'.join(chain))}\s*\(" for chain in chains))
    return imports, re.compile(calls)
