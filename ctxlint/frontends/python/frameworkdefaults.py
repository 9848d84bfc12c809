"""A chat model set as the default a framework gives whatever is built with none.

``Settings.llm = OpenAI(model=...)`` (LlamaIndex's global ``Settings``, imported from the library):
every query engine, chat engine or agent the project builds without an ``llm=`` of its own runs
its requests with that model, and so with the model's own settings. The model is handed to the
framework as surely as ``VectorStoreIndex(...).as_query_engine(llm=model)`` hands it: the target
is an attribute named for a model (``llm``, ``model``, ...) of an object the module imports from
a library of the catalogue, not from the project's own package."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.knowledge import MODEL_KEYWORDS
from ctxlint.model import Evidence, EvidenceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.unit import Unit


def framework_default(m: Unit, call: ast.Call) -> Evidence | None:
    """Where the model ``call`` builds is set as a framework's default model, if it is."""
    parent = m.parents.get(id(call))
    target = parent.targets[0] if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
    if not (isinstance(target, ast.Attribute) and target.attr in MODEL_KEYWORDS
            and isinstance(target.value, ast.Name) and target.value.id in m.from_imports):
        return None
    qualified = m.imports.get(target.value.id, "")
    if m.import_levels.get(target.value.id, 0) or not m.catalogue.from_library(qualified):
        return None
    project, file = m.project, m.file
    if project is not None and file is not None and project.module_file(qualified.split(".")[0], file, 0) is not None:
        return None  # the project's own package of that name
    return Evidence(EvidenceKind.FLOW, f"set as `{m.dotted(target)}`, the model the library uses wherever none "
                    "is given", m.span(target))
