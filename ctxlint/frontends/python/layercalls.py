"""Whether a module reaches a model through a function or class of the project's own LLM layer that
it imports by name and calls: ``ask(prompt)``, ``Handler(role).handle(prompt=...)``, or ``h =
Handler(role)`` then ``h.handle(...)``. Such a module (a command-line entry point, a route) builds
the prompt the layer sends, whatever it imports itself, and is read whole: the wrappers it calls
are followed there (``wrappers.py``).

The layer is what the project index calls its LLM files (modules that import a library of the
catalogue) and the modules that import one of them (``DefaultHandler`` of ``default_handler.py``,
whose base class ``Handler`` lives in ``handler.py``, which imports ``litellm``). Test and example
code is left out: a framework's examples build its agents by the hundred, and reading them whole
cost a third of a run for nothing (see ``Project.imports_llm_layer``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.discover import glob_any

if TYPE_CHECKING:
    from ctxlint.frontends.python.project import Project

# `from .handler import Handler`, `from sgpt.handlers.handler import Handler`: a module's imports by name.
_IMPORT_FROM = re.compile(rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import\b", re.MULTILINE)
# How many of a module's imports are looked up to tell whether it imports the LLM layer.
_MAX_IMPORTS = 40


def calls_llm_layer(project: Project, tree: ast.Module, text: str, importer: Path) -> bool:
    """Whether the shipped module ``importer`` calls a function, or a method of an instance it
    builds, that it imports from the project's LLM layer."""
    try:
        relative = importer.relative_to(project.root).as_posix()
    except ValueError:
        return False
    if glob_any(project.not_shipped, relative):
        return False
    called: list[Path] = []
    for node in tree.body:
        for statement in (node.body if isinstance(node, ast.If) else [node]):
            if not isinstance(statement, ast.ImportFrom) or not (statement.module or statement.level):
                continue
            used = [a.asname or a.name for a in statement.names if a.name != "*"]
            if not any(_called(name, text) for name in used):
                continue
            found = project.module_file(statement.module or "", importer, statement.level)
            if found is not None:
                called.append(found)
    return any(_in_layer(project, path) for path in called)


def _called(name: str, text: str) -> bool:
    """``name(...)`` called as a function; for a class, a method of an instance of it called."""
    if f"{name}(" not in text:  # every pattern below needs it: most imported names are not called
        return False
    escaped = re.escape(name)
    if not name[:1].isupper():
        return re.search(rf"(?<![\w.]){escaped}\(", text) is not None
    if re.search(rf"(?<![\w.]){escaped}\([^()\n]*\)\.\w+\(", text):
        return True
    holders = set(re.findall(rf"(?<![\w.])([A-Za-z_]\w*)\s*=\s*{escaped}\(", text))
    return any(re.search(rf"(?<![\w.]){re.escape(h)}\.\w+\(", text) for h in holders)


def _in_layer(project: Project, path: Path) -> bool:
    """A module that imports a library of the catalogue, or imports one that does (asked once per
    module and run: the modules of a tree import the same few)."""
    if path not in project.in_layer:
        project.in_layer[path] = _imports_layer(project, path)
    return project.in_layer[path]


def _imports_layer(project: Project, path: Path) -> bool:
    llm_files = project.llm_files()
    if str(path) in llm_files:
        return True
    try:
        data = path.read_bytes()
    except OSError:
        return False
    for match in list(_IMPORT_FROM.finditer(data))[:_MAX_IMPORTS]:
        level, module = len(match.group(1)), match.group(2).decode("ascii", "replace")
        found = project.module_file(module, path, level)
        if found is not None and str(found) in llm_files:
            return True
    return False
