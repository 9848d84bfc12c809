"""Branches that never run, and classes a project builds only there (frontends/python/deadcode.py)."""

from __future__ import annotations

import ast

import pytest

from ctxlint.frontends.python.deadcode import never_true


@pytest.mark.parametrize(("test", "never"), [
    ("False", True),
    ("0", True),
    ("None", True),
    ("provider == 'openai' and False", True),
    ("False and ready", True),
    ("False or 0", True),
    ("not True", True),
    ("True", False),
    ("provider == 'openai'", False),
    ("ready or False", False),  # runs when `ready`
    ("not False", False),
    ("DEBUG", False),  # a setting: may be true
])
def test_a_test_is_never_true_only_as_written(test: str, never: bool) -> None:
    assert never_true(ast.parse(test, mode="eval").body) is never
