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
}
_MODULES = {"jinja": "ctxlint.frontends.jinja", "prompty": "ctxlint.frontends.prompty", "text": "ctxlint.frontends.text"}


def format_for(relpath: str, settings: Settings) -> str | None:
    """The front-end for a file: configured globs first, then the file's suffix."""
    for fmt, globs in settings.formats.items():
        if any(glob_match(glob, relpath) for glob in globs):
            return fmt
    return _BY_SUFFIX.get(PurePosixPath(relpath).suffix.lower())


def parse(fmt: str, text: str, path: str) -> ParsedFile:
    return importlib.import_module(_MODULES[fmt]).parse_file(text, path)
