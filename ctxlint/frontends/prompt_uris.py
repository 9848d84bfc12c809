"""Prompts of a YAML file named by a project loader's URI: ``T(".prompts:coder.system").r(**values)``.

Some projects load their prompt templates with a loader of their own that takes one string naming
both the file and the key inside it: a dotted module-like path, then a colon, then the dotted keys
(``"scenarios.kaggle.prompts:task.user"`` for ``scenarios/kaggle/prompts.yaml`` under ``task`` and
``user``; a leading dot, ``".prompts:task.user"``, for the file beside the module that names it).
No string literal of such a module names a ``.yaml`` file, so the index of file names in
``rendered.py`` does not find it: this module keeps an index of these URIs, by the path of the file
they name, and tells which prompt of the file (by its dotted keys) a literal names.

The loader itself is not read: a literal counts only when the file it names exists in the project
and holds a prompt under the keys it gives, so an entry point (``"app.main:app"``) names nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import yaml

from ctxlint import yamlsafe
from ctxlint.frontends.python.project import walk_modules
from ctxlint.results import real_directory

# `".prompts:coder.system"`, `"scenarios.data_science.share:component_spec.general"`.
URI = re.compile(r"""["'](\.?[A-Za-z_][\w.]{0,200}):([A-Za-z_][\w.\-]{0,200})["']""")
_URI_BYTES = re.compile(rb"""["']\.?[A-Za-z_][\w.]{0,200}:[A-Za-z_][\w.\-]{0,200}["']""")
_SUFFIXES = (".yaml", ".yml")
MAX_FILE_BYTES = 400_000  # a YAML file's keys are read only below this size

_INDEXES: dict[Path, dict[str, list[Path]]] = {}


def _file_of(path: str, module: Path, root: Path, suffix: str) -> str:
    """The file a URI's path part names, as an index key: relative to ``root`` for one beside the
    module (a leading dot), else the path its dots spell (a tail of the file's path)."""
    if path.startswith("."):
        folder = module.parent.relative_to(root).as_posix()
        tail = path[1:].replace(".", "/") + suffix
        return tail if folder in ("", ".") else f"{folder}/{tail}"
    return path.replace(".", "/") + suffix


def uri_modules(root: Path, template: PurePosixPath) -> list[Path]:
    """The project's Python modules with a URI literal that may name ``template`` (a path relative
    to ``root``): by its whole path (a literal with a leading dot) or a tail of it."""
    if template.suffix.lower() not in _SUFFIXES:
        return []
    index = _index(root)
    parts = template.parts
    found: list[Path] = []
    for start in range(len(parts)):
        for module in index.get("/".join(parts[start:]), ()):
            if module not in found:
                found.append(module)
    return found


def names_prompt(root: Path, module: Path, template: PurePosixPath, keys: str) -> Callable[[str], bool]:
    """Whether a string literal of ``module`` is a URI naming ``template`` under the dotted ``keys``."""
    whole = template.as_posix()

    def names(literal: str) -> bool:
        match = re.fullmatch(r"(\.?[A-Za-z_][\w.]*):([A-Za-z_][\w.\-]*)", literal.strip())
        if match is None or match.group(2) != keys:
            return False
        named = _file_of(match.group(1), module, root, template.suffix)
        return named == whole if match.group(1).startswith(".") else (whole == named or whole.endswith("/" + named))

    return names


def key_paths(text: str) -> dict[int, str]:
    """The dotted keys of each mapping key of a YAML file's ``text``, by the 1-based line the key
    is on (``{2: "coder.system"}``); empty for a text too large or that cannot be composed."""
    if len(text) > MAX_FILE_BYTES:
        return {}
    try:
        node = yamlsafe.compose(text)
    except (yamlsafe.YamlError, yaml.YAMLError, RecursionError):
        return {}
    found: dict[int, str] = {}
    stack: list[tuple[yaml.Node, str]] = [(node, "")] if node is not None else []
    seen = 0
    while stack and seen < 10_000:  # a bound on a hostile document's size
        current, prefix = stack.pop()
        seen += 1
        if not isinstance(current, yaml.MappingNode):
            continue
        for key, value in current.value:
            if not isinstance(key, yaml.ScalarNode) or not isinstance(key.value, str):
                continue
            dotted = f"{prefix}.{key.value}" if prefix else key.value
            found.setdefault(key.start_mark.line + 1, dotted)
            stack.append((value, dotted))
    return found


def _index(root: Path) -> dict[str, list[Path]]:
    key = real_directory(root)
    if key not in _INDEXES:
        _INDEXES.clear()  # one project per run
        _INDEXES[key] = _build(key)
    return _INDEXES[key]


def _build(root: Path) -> dict[str, list[Path]]:
    index: dict[str, list[Path]] = {}
    for path, data in walk_modules(root):  # the modules the Python analysis reads, in the same order
        if b":" not in data or _URI_BYTES.search(data) is None:
            continue
        for match in URI.finditer(data.decode("utf-8", errors="replace")):
            for suffix in _SUFFIXES:
                named = _file_of(match.group(1), path, root, suffix)
                modules = index.setdefault(named, [])
                if path not in modules:
                    modules.append(path)
    return index
