"""A slot given the facts of the values its template is filled with: shared by templates linked
to the code that renders them (``frontends/rendered.py``) and by prompt constants in code whose
``{fields}`` are filled with ``.format`` elsewhere (the Python front-end's strings)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.model import Evidence, EvidenceKind, Slot, SourceKind, Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.renders import Value


def linked_slot(slot: Slot, loop: str | None, values: dict[str, list[Value]], where: str,
                in_code: bool = False, built_with: Callable[[Value], tuple[tuple[str, Span], ...]] | None = None
                ) -> Slot:
    """``slot`` given the facts of the values passed to it (by name, or to the collection its
    ``loop`` prints) where its template is filled; ``in_code`` marks a field of a prompt constant
    in code, whose evidence is calibrated apart from a template file's. ``built_with`` names the
    prompts a value is built with, and where each is written."""
    keys = {name.split(".", 1)[0] for name in slot.names}
    if loop is not None:  # an item of a collection the render site passes
        match = re.match(r"\s*([A-Za-z_]\w*)", loop)
        if match:
            keys.add(match.group(1))
    passed = [value for key in keys for value in values.get(key, ())]
    if not passed:
        return slot
    filled = tuple(value.span for value in passed) if in_code else ()
    if all(value.text is not None for value in passed):
        # Every render site fills it with text the project wrote: its name says nothing more.
        return replace(slot, names=(), filled_at=filled)
    sources = list(slot.sources)
    calls, once = list(slot.calls), list(slot.once)
    called_at = list(slot.called_at)
    # In code, what the value passed is named (`retrieved_contexts`) is evidence beside the
    # field's own name, calibrated with the field's kinds.
    slot_names = list(slot.names)
    variable = slot.variable_length
    for value in passed:
        if in_code and value.text is None:
            slot_names += [n for n in value.facts.names if n not in slot_names]
        step = Evidence(EvidenceKind.FLOW, f"passed as `{value.key}` where {where}, "
                                           f"{value.span.path}:{value.span.line}", value.span)
        for source in value.facts.sources:
            if source.kind is SourceKind.UNTRUSTED:
                at = source.span
                sources.append(replace(source, detail=f"{source.detail} in {at.path}:{at.line}",
                                       flow=(*source.flow, step)))
            elif source.kind in (SourceKind.UNORDERED_ITERATION, SourceKind.TRUNCATION, SourceKind.PICKED):
                # a collection the template prints, or a text cut before it is passed: the
                # template is where a note of the cut would stand
                sources.append(replace(source, flow=(*source.flow, step)))
            elif source.kind is SourceKind.DELIMITED and all(_delimited(v) for v in passed):
                # every site wraps each item of it in a tag pair (`<snippet>…</snippet>` joined): labelled
                sources.append(replace(source, flow=(*source.flow, step)))
        calls += [c for c in value.facts.calls if c not in calls]
        called_at += [(c, at) for c, at in value.facts.called_at.items()]
        once += [c for c in value.facts.once if c not in once]
        variable = variable or value.facts.variable_length
    inner = tuple(dict.fromkeys(at for value in passed for at in built_with(value))) if built_with else ()
    return replace(slot, names=tuple(slot_names), sources=tuple(sources), calls=tuple(calls), once=tuple(once),
                   variable_length=variable, filled_at=filled, called_at=tuple(called_at), built_with=inner)


def _delimited(value: Value) -> bool:
    """Whether a value passed is text the project wrote, or text built to wrap each value it
    prints in a tag pair."""
    return value.text is not None or any(s.kind is SourceKind.DELIMITED for s in value.facts.sources)
