"""Which annotations declare a collection of text (declaredtext.py), the proof CTX104 takes that a
set's items are strings."""

from __future__ import annotations

import ast

import pytest

from ctxlint.frontends.python.declaredtext import text_collection


@pytest.mark.parametrize("annotation", ["List[str]", "set[str]", "Optional[List[str]]",
                                        "typing.Optional[typing.List[str]]", "List[str] | None",
                                        "tuple[str, ...]", "Set[Path]"])
def test_a_collection_of_text_is_declared(annotation: str) -> None:
    assert text_collection(ast.parse(annotation, mode="eval").body)


@pytest.mark.parametrize("annotation", ["List[int]", "Optional[Dict[str, str]]", "str", "Optional[int]"])
def test_other_annotations_are_not(annotation: str) -> None:
    assert not text_collection(ast.parse(annotation, mode="eval").body)
