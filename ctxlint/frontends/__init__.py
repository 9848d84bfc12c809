"""Front-ends: one module per format, each turning a file's text into model objects.

``REGISTRY`` is the one list of formats: which files each takes (suffixes and exact names),
which module reads them and how `ctxlint:` directives are written in them. The configuration's
format names, the default ``include`` globs and discovery follow from it; tests hold the
pre-commit hook's file pattern and the README's formats table to it.

Front-end modules are imported only when a file of their format is linted, so a run over one
template never pays for the libraries other formats need.
"""

from __future__ import annotations

import gc
import importlib
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ctxlint.discover import DEFAULT_EXAMPLE_PATHS, DEFAULT_TEST_PATHS, glob_any, glob_match
from ctxlint.model import ParsedFile

if TYPE_CHECKING:
    from ctxlint.config import Settings


class OffsetError(Exception):
    """Text a front-end's own parser cannot read (a template, JSON); ``offset`` locates the error
    in the text."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True)
class Format:
    """A format ctxlint reads. ``comments`` are the comment openers a directive may follow in it
    (None: any); ``default`` says whether its files are linted without configuration."""

    name: str
    module: str
    suffixes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    comments: tuple[str, ...] | None = None
    default: bool = True
    # Whether the front-end reads a ParseContext (the project around the file, the framework
    # catalogue): its parse_file takes it as a third argument.
    takes_context: bool = False


REGISTRY = (
    Format("jinja", "ctxlint.frontends.jinja", (".j2", ".jinja", ".jinja2"), comments=("{#",)),
    Format("prompty", "ctxlint.frontends.prompty", (".prompty",), comments=("{#",)),
    # `{#`: a `*.prompt` file may hold a Jinja template (see dotprompt.py).
    Format("dotprompt", "ctxlint.frontends.dotprompt", (".prompt",), comments=("{{!", "{#")),
    Format("semantic_kernel", "ctxlint.frontends.semantic_kernel", names=("skprompt.txt",),
           comments=("{{!", "<!--")),
    # promptflow's flow.dag.yaml: each LLM node's template with the node's model and max_tokens.
    Format("promptflow", "ctxlint.frontends.promptflow", names=("flow.dag.yaml", "flow.dag.yml"), comments=("#",)),
    Format("python", "ctxlint.frontends.python", (".py",), comments=("#",), takes_context=True),
    Format("typescript", "ctxlint.frontends.typescript",
           (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"), comments=("//", "/*"), takes_context=True),
    Format("notebook", "ctxlint.frontends.notebook", (".ipynb",), comments=("#", "//", "/*")),
    # JSON/YAML: requests, tool schemas, YAML prompts; any suffix when a configured glob picks it.
    Format("structured", "ctxlint.frontends.structured", (".json", ".yaml", ".yml"), comments=("#", "{#")),
    # Plain text and Markdown: only under prompt folders (DEFAULT_TEXT_GLOBS) or configured globs.
    Format("text", "ctxlint.frontends.text", comments=("<!--",)),
)
FORMATS = {f.name: f for f in REGISTRY}
# Template formats whose slots take the facts of the values code renders them with (rendered.py).
_RENDERED = frozenset({"jinja", "prompty", "dotprompt", "text"})
# Files whose prompts sit under keys, filled where code reads the key of the loaded file.
_KEYED = frozenset({"structured"})
_BY_SUFFIX = {suffix: f.name for f in REGISTRY for suffix in f.suffixes}
_BY_NAME = {name: f.name for f in REGISTRY for name in f.names}


def default_include() -> tuple[str, ...]:
    """The globs of every file a format takes by its name or suffix."""
    globs = [name for f in REGISTRY if f.default for name in f.names]
    globs += [f"*{suffix}" for f in REGISTRY if f.default for suffix in f.suffixes]
    return tuple(globs)


# Folders of templates. A .txt or .md file in one is a prompt only when the project's code loads
# and fills it: it is read as plain text, and kept only if rendered.py links it to a render site
# (a README or a Helm NOTES.txt in a `templates/` folder is no prompt, and no code fills it).
TEMPLATE_FOLDERS = ("templates", "prompt_templates")
LINKED_TEXT_GLOBS = tuple(f"{prefix}{folder}/*.{suffix}" for folder in TEMPLATE_FOLDERS
                          for prefix in ("", "**/") for suffix in ("txt", "md"))


def format_for(relpath: str, settings: Settings) -> str | None:
    """The front-end for a file: configured globs first, then its name or suffix, then the
    plain-text globs (a `prompts/…/skprompt.txt` is Semantic Kernel, not plain text), then the
    templates a render site must confirm (``linked_only``)."""
    fmt = _configured_format(relpath, settings)
    if fmt is None and glob_any(LINKED_TEXT_GLOBS, relpath):
        return "text"
    return fmt


def linked_only(relpath: str, settings: Settings) -> bool:
    """Whether a file is read as a prompt only if code fills it: a text file in a folder of
    templates that no configured glob, name or suffix takes."""
    return glob_any(LINKED_TEXT_GLOBS, relpath) and _configured_format(relpath, settings) is None


def _configured_format(relpath: str, settings: Settings) -> str | None:
    for fmt, globs in settings.formats.items():
        if fmt != "text" and any(glob_match(glob, relpath) for glob in globs):
            return fmt
    if "text" in settings.formats and any(glob_match(g, relpath) for g in settings.formats["text"]):
        return "text"
    path = PurePosixPath(relpath)
    known = _BY_NAME.get(path.name.lower()) or _BY_SUFFIX.get(path.suffix.lower())
    if known:
        return known
    return "text" if any(glob_match(g, relpath) for g in settings.text_globs()) else None


@dataclass(frozen=True)
class ParseContext:
    """What a front-end may know besides the file's text: the project root and the file's path
    below it (a Python module's imports resolve there), and the framework catalogue files the
    configuration adds (``frameworks``) and whether the shipped ones apply."""

    root: Path
    relpath: str
    framework_files: tuple[Path, ...] = ()
    builtin_frameworks: bool = True
    # A text file read only if code fills it (``linked_only``): without a render site it holds nothing.
    linked_only: bool = False
    # Where code is not shipped (the configured test and example paths): a module there that
    # names a registered tool does not show the tool is sent.
    not_shipped: tuple[str, ...] = (*DEFAULT_TEST_PATHS, *DEFAULT_EXAMPLE_PATHS)


def parse(fmt: str, text: str, path: str, context: ParseContext | None = None) -> ParsedFile:
    module = importlib.import_module(FORMATS[fmt].module)
    with collected_once(), warnings.catch_warnings():
        # What a parser warns about the user's file (CPython's SyntaxWarning for `1if x`, an
        # invalid escape) is not ctxlint's to print: it would interleave with the report.
        warnings.simplefilter("ignore")
        if FORMATS[fmt].takes_context:
            return module.parse_file(text, path, context)
        parsed = module.parse_file(text, path)
        if context is not None and fmt == "dotprompt":  # whether the code that runs it gives a limit
            from ctxlint.frontends.runs_linked import runs_linked

            parsed = runs_linked(parsed, context)
        if context is not None and (fmt in _RENDERED or fmt in _KEYED):  # what its render sites pass
            from ctxlint.frontends.rendered import link

            linked = link(parsed, context, by_key=fmt in _KEYED, text=text)
            # A render site was found when the file depends on a module that fills it.
            return ParsedFile(path) if context.linked_only and not linked.dependencies else linked
        return parsed


@contextmanager
def collected_once() -> Iterator[None]:
    """Collect garbage once, after the work on one file (its parse, its checks, its pricing),
    instead of all along.

    A front-end builds a syntax tree of hundreds of thousands of objects that lives until the
    file is done, and the request model the checks and pricing read lives as long. With the
    collector on, the young objects are walked every 700 allocations, and the tree, promoted
    from generation to generation, is walked again and again (the largest module of the
    development corpus, 1.7 MB, took 1.9 s instead of 1.1 s, the median of five runs each; the
    checks of a 1 MB request file spent a third of their time in the collector). Collected once
    at the end, each of the file's objects is walked once, and the cycles its analysis leaves
    (its objects refer to each other) are freed. The older generations are collected at the
    collector's own rhythm (every ``threshold`` young collections), so cycles that outlive a
    file are freed too. Work inside such work (a parse inside a lint, a flow reading its
    template) is part of the outer one.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        # Collected before the collector is on again: on, it would start a collection of its
        # own at the next allocation.
        thresholds, counts = gc.get_threshold(), gc.get_count()
        if counts[0] > thresholds[0]:  # otherwise the collector's own rhythm is close enough
            generation = 0
            while generation < 2 and counts[generation + 1] + 1 > thresholds[generation + 1]:
                generation += 1
            gc.collect(generation)
        gc.enable()
