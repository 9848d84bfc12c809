"""Whether a module that calls no model builds prompts for one that does.

A table of prompts (`const groupInstructions = { web: `...`, code: `...` }`, with a function that
returns the entry for a key) often lives in a module that imports no LLM library: the route that
calls the model imports the function and sends what it returns. A call site reads a prompt it
imports, but not an entry of a table it picks by a key (which one is sent is not known), so such a
table's entries are requests of their own (standalone.py); without evidence that a model is sent
them, a table named like prompts in a module far from any model is none (labels, help texts).

The evidence is a module of the tree that imports one of this module's exports by name, from a
path that resolves to this module, and mentions a model API the framework catalogue knows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ctxlint.frontends.typescript.classes import tree_index
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.unit import Module

MAX_IMPORTERS = 8  # modules read to find one that sends what this one builds
MAX_BYTES = 1_000_000
# `import { a, b as c } from "./m"` and `const { a } = require("./m")`: the names and the path.
_IMPORT = re.compile(r"\b(?:import(?:\s+type)?(?:\s+[A-Za-z_$][\w$]*\s*,)?|const|let|var)\s*"
                     r"\{([^{}]{0,2000})\}\s*(?:from\s*|=\s*require\s*\(\s*)[\"']([^\"']+)[\"']")
_NAME = re.compile(r"(?:^|,)\s*(?:type\s+)?([A-Za-z_$][\w$]*)")
_SUFFIX = re.compile(r"\.(?:d\.)?[mc]?[jt]sx?$")


def sent_by_importer(m: Module) -> bool:
    """Whether a module of the tree that mentions a model API imports one of ``m``'s exports."""
    root = m.project.root
    index = tree_index(root) if root else None
    if index is None:
        return False
    here = _stem(m.path if os.path.isabs(m.path) else os.path.join(root, m.path))
    read = 0
    for name in exported_names(m):
        for importer in dict.fromkeys(index.imported.get(name, ())):
            if _stem(importer) == here:
                continue
            if read >= MAX_IMPORTERS:
                return False
            read += 1
            text = _text(importer)
            if text is not None and m.ts.mentions.search(text) and _imports_from(m, importer, text, name, here):
                return True
    return False


def exported_names(m: Module) -> Iterator[str]:
    """The names the module exports: declarations after `export`, and `export { a, b as c }`."""
    for statement in m.root.named_children:
        if statement.type != "export_statement":
            continue
        declaration = m.field(statement, "declaration")
        if declaration is not None:
            yield from _declared(m, declaration)
            continue
        for clause in statement.named_children:
            if clause.type != "export_clause":
                continue
            for specifier in clause.named_children:
                alias = m.field(specifier, "alias") or m.field(specifier, "name")
                if alias is not None:
                    yield m.code(alias)


def _declared(m: Module, declaration: Node) -> Iterator[str]:
    if declaration.type in ("lexical_declaration", "variable_declaration"):
        for declarator in declaration.named_children:
            name = m.field(declarator, "name") if declarator.type == "variable_declarator" else None
            if name is not None and name.type == "identifier":
                yield m.code(name)
        return
    name = m.field(declaration, "name")
    if name is not None:
        yield m.code(name)


def _imports_from(m: Module, importer: str, text: str, name: str, here: str) -> bool:
    """Whether ``importer`` imports ``name`` from a path that resolves to the module ``here``."""
    for match in _IMPORT.finditer(text):
        if name not in {n.group(1) for n in _NAME.finditer(match.group(1))}:
            continue
        spec = match.group(2)
        if spec.startswith(("./", "../")):
            targets = [os.path.normpath(os.path.join(os.path.dirname(importer), spec))]
        else:
            targets = m.project.aliases.resolve(importer, spec)
        if any(_stem(t) == here for t in targets):
            return True
    return False


def _stem(path: str) -> str:
    """A module's absolute path without its extension or a final `/index`: what an import names."""
    stem = _SUFFIX.sub("", os.path.abspath(path))
    return stem[: -len("/index")] if stem.endswith("/index") else stem


def _text(path: str) -> str | None:
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return None
