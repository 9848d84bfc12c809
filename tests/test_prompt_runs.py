"""What a run of a Dotprompt loaded by name says of the output limit (python/prompt_runs.py)."""

import ast

import pytest

from ctxlint.frontends.code.runs import LIMIT, NO_LIMIT, UNKNOWN
from ctxlint.frontends.python.prompt_runs import _limit


@pytest.mark.parametrize(("code", "expected"), [
    ('review(input={"diff": diff})', NO_LIMIT),
    ('review(input=x, config={"temperature": 0.2})', NO_LIMIT),
    ('review(input=x, config={"maxOutputTokens": 800})', LIMIT),
    ("review(input=x, config=GenerationCommonConfig(max_output_tokens=800))", LIMIT),
    ("review(input=x, config=GenerationCommonConfig(temperature=0.2))", NO_LIMIT),
    ("review(input=x, config=settings)", UNKNOWN),  # built out of sight
    ("review(input=x, **options)", UNKNOWN),
    ('review(input=x, config={**base, "temperature": 0})', UNKNOWN),
    ("review(x, opts)", UNKNOWN),
])
def test_what_a_run_says_of_the_limit(code, expected):
    call = ast.parse(code, mode="eval").body
    assert isinstance(call, ast.Call)
    assert _limit(call, skip=1) == expected
