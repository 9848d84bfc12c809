"""A field that a prompt template of another module sets apart under a heading of its own.

``SYSTEM.format(context_data=result.context_chunks)``, where ``SYSTEM`` is text another module
defines with ``---Data tables---`` above ``{context_data}`` on its own line: the template names
the block the value fills. With a value named for content, that is a second sign that agrees
with the name (the Python front-end gives each such field as a ``HEADED_FIELD`` fact).
"""

from __future__ import annotations

from collections.abc import Callable

from ctxlint.analysis import vocabulary
from ctxlint.analysis.vocabulary import Vocabulary
from ctxlint.model import Evidence, EvidenceKind, Slot, Source, SourceKind


def field(slot: Slot, content_words: tuple[str, ...], words: Vocabulary,
          accepts: Callable[[str], bool]) -> tuple[Source, str] | None:
    """A field of the slot's value set apart under a heading of content or data (`---Data
    tables---`, `Retrieved documents:`: one of ``content_words``, or a word of ``words``' families),
    filled with a value whose name ``accepts`` takes, and that name."""
    for source in slot.sources:
        if source.kind is not SourceKind.HEADED_FIELD:
            continue
        heading = source.detail.lower()
        if not (vocabulary.content_word(heading, content_words)
                or any(vocabulary.family(word, words) for word in heading.split())):
            continue
        passed = next((name for name in source.why.split() if accepts(name)), None)
        if passed is not None:
            return source, passed
    return None


def step(found: Source) -> Evidence:
    return Evidence(EvidenceKind.SOURCE, f"filled into a field that a template of another module sets apart under "
                    f"the heading \"{found.detail}\"", found.span, strong=False)
