"""Front-ends: one module per format, each turning a file's text into model objects.

Front-end modules are imported only when a file of their format is linted, so a run over one
template never pays for the libraries other formats need.
"""

from __future__ import annotations

import importlib
from pathlib import PurePosixPath

from ctxlint.config import Settings
from ctxlint.discover import glob_match
from ctxlint.model import ParsedFile

_BY_SUFFIX = {
    ".j2": "jinja",
    ".jinja": "jinja",
    ".jinja2": "jinja",
    ".prompty": "prompty",
    ".prompt": "dotprompt",
    ".py": "python",
    ".json": "structured",
    ".yaml": "structured",
    ".yml": "structured",
}
_BY_NAME = {"skprompt.txt": "semantic_kernel"}
_MODULES = {
    "jinja": "ctxlint.frontends.jinja",
    "prompty": "ctxlint.frontends.prompty",
    "text": "ctxlint.frontends.text",
    "dotprompt": "ctxlint.frontends.dotprompt",
    "python": "ctxlint.frontends.python",
    "structured": "ctxlint.frontends.structured",  # JSON/YAML: requests, tool schemas, YAML prompts
    "semantic_kernel": "ctxlint.frontends.semantic_kernel",
}


def format_for(relpath: str, settings: Settings) -> str | None:
    """The front-end for a file: configured globs first, then its name or suffix, then the
    plain-text globs (a `prompts/…/skprompt.txt` is Semantic Kernel, not plain text)."""
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


def parse(fmt: str, text: str, path: str) -> ParsedFile:
    return importlib.import_module(_MODULES[fmt]).parse_file(text, path)
