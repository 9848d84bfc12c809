"""Which fields of a template another module defines are set apart under a heading of their own
(the evidence the trust rules weigh with a value named for content)."""

from __future__ import annotations

import re

import pytest

from ctxlint.frontends.python.unread_templates import _HEADED


def heading(template: str, field: str) -> str | None:
    match = re.search(_HEADED.format(field=re.escape(field)), template)
    return None if match is None else " ".join((match.group("marked") or match.group("colon")).split())


@pytest.mark.parametrize(("template", "expected"), [
    ("Intro.\n\n---Data tables---\n\n{rows}\n\n---Goal---\n", "Data tables"),
    ("## Sources\n{rows}", "Sources"),
    ("=== Notes ===\n   {rows}   \nThanks.", "Notes"),
    ("Context data:\n\n{rows}\n\nAnswer now.", "Context data"),
])
def test_a_field_alone_under_a_heading_or_a_label_line_is_headed(template, expected):
    assert heading(template, "rows") == expected


@pytest.mark.parametrize("template", [
    "Answer using the rows below\n{rows}\n",  # a sentence, not a heading
    "---Data tables---\n\nThe rows are {rows}.\n",  # the field is not alone on its line
    "---Data tables---\n\n{other}\n\n{rows}\n",  # another field sits between them
    "## Data\n{rows_count}\n",  # another field whose name starts alike
])
def test_a_field_in_a_sentence_or_after_another_block_is_not(template):
    assert heading(template, "rows") is None
