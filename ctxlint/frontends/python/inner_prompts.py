"""The prompt templates of a module that a value is built with: a field of one prompt filled with
text another prompt renders item by item (``context`` given ``combine(docs)``, a helper that
renders each document with ``registry[Names.DOCUMENT_PROMPT]``, which this module defines as
``PromptTemplate.from_template("Source: {source}\\n{page_content}")``).

What the inner prompt writes around each item (a header, no end marker) is what the outer field
carries into its message, so a finding on the field points at the inner prompt's text too. The
value's names are what the front-end's data flow read to build it (through the helpers it
follows); a name is matched to a prompt object this module builds from a literal text, under
that name or under the registry key it is kept at (``registry[Names.KEY] = PROMPT``).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.knowledge import prompt_name
from ctxlint.model import Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.renders import Value
    from ctxlint.frontends.python.unit import Unit

# The most inner prompts one value points at.
MAX_INNER = 2


def inner_prompts(unit: Unit) -> dict[str, tuple[str, Span]]:
    """The name of each prompt object ``unit``'s module builds from a literal, and where its text is
    written, by the names a value may read it under: its own and each registry key it is kept at.
    Read once per module (kept on the unit)."""
    if unit.inner_prompts is None:
        unit.inner_prompts = _read_prompts(unit)
    return unit.inner_prompts


def _read_prompts(unit: Unit) -> dict[str, tuple[str, Span]]:
    texts: dict[str, tuple[str, Span]] = {}
    keyed: list[tuple[str, str]] = []
    for node in ast.walk(unit.tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and prompt_name(target.id) and isinstance(node.value, ast.Call):
            text = _template_text(node.value)
            if text is not None:
                texts.setdefault(target.id, (target.id, unit.span(text)))
        elif isinstance(target, ast.Subscript) and isinstance(node.value, ast.Name):
            keyed.append((unit.code(target.slice).strip(), node.value.id))
    for key, name in keyed:
        if name in texts:
            texts.setdefault(key, texts[name])
    return texts


def built_with(texts: dict[str, tuple[str, Span]], value: Value) -> tuple[tuple[str, Span], ...]:
    """The module's prompts that ``value`` is built with, and where each is written (``inner_prompts``)."""
    found = [texts[name] for name in value.facts.names if name in texts]
    return tuple(dict.fromkeys(found))[:MAX_INNER]


def _template_text(call: ast.Call) -> ast.Constant | None:
    """The literal text a prompt object is built from: ``PromptTemplate.from_template("...")``,
    ``PromptTemplate(template="...")`` (a call whose name says template, given a text with a field)."""
    if "template" not in (last_name(call.func) or "").lower():
        return None
    given = [k.value for k in call.keywords if k.arg == "template"] or call.args[:1]
    text = given[0] if given else None
    if isinstance(text, ast.Constant) and isinstance(text.value, str) and "{" in text.value:
        return text
    return None
