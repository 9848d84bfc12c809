"""Property-based fuzzing of every front-end (the short profile; benchmarks/fuzz.py is the long one).

For any text, in any format: linting gives findings (a located CTX001 when the text does not
parse), never an exception, every finding on a line of the file, and work bounded by the
text's size in executed lines (tests/steps.py), never by the clock. Texts are drawn two ways:
assembled from the tokens each parser cares about, and mutated from the repository's own
example files (the seeds benchmarks/fuzz.py uses).

    HYPOTHESIS_PROFILE=long python -m pytest tests/test_fuzz.py   # more and random examples
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from steps import count_steps

from ctxlint import tokens

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("fuzz", ROOT / "benchmarks" / "fuzz.py")
assert _spec is not None and _spec.loader is not None
fuzz = sys.modules["fuzz"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

# The short profile runs in CI: the same examples every time, no time limit per example (a
# loaded machine is not a bug). The long one draws many more, at random.
settings.register_profile("ci", max_examples=25, derandomize=True, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("long", max_examples=2_000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SEEDS = fuzz.load_seeds()
BY_FORMAT: dict[str, list] = defaultdict(list)
for _seed in SEEDS:
    BY_FORMAT[_seed.fmt].append(_seed)
BY_FORMAT["text"].append(fuzz.Seed("prompts/style.md", "<!-- ctxlint: pinned -->\nNever guess.\n", "text"))
FORMATS = sorted(BY_FORMAT)
LINTER = fuzz.every_rule_linter(ROOT / "tests" / "data")
# Tokenizers, front-end modules and compiled patterns are loaded once, so no example pays for them.
for _encoding in tokens.ENCODINGS:
    tokens.get_encoding(_encoding)
for _fmt in FORMATS:
    for _seed in BY_FORMAT[_fmt]:
        LINTER.lint_text(_seed.text, _seed.path, _seed.path, _fmt)

# Work allowed per example: a fixed part (imports, a first regex compile) and a part per character
# that is several times what any seed or mutation of it needs; a quadratic pass breaks it at once.
BASE_STEPS = 100_000
STEPS_PER_CHAR = 300


def _fragments(fmt: str) -> list[str]:
    lines = [line + "\n" for seed in BY_FORMAT[fmt] for line in seed.text.splitlines()]
    return sorted(set(lines))[:400] or ["\n"]


def assembled(fmt: str) -> st.SearchStrategy[tuple[str, str]]:
    """A seed's name and a text made of the tokens parsers care about, lines of the format's
    seeds and odd text."""
    piece = st.one_of(st.sampled_from(fuzz.TOKENS), st.sampled_from(_fragments(fmt)), st.text(max_size=6))
    return st.tuples(st.sampled_from([s.path for s in BY_FORMAT[fmt]]), st.lists(piece, max_size=40).map("".join))


OPERATIONS = ("delete", "duplicate", "repeat", "token", "replace", "nest")


@st.composite
def mutated(draw, fmt: str) -> tuple[str, str]:
    """A seed's name and its text after a few edits (the mutations of benchmarks/fuzz.py, drawn
    here so that Hypothesis can shrink a failing one)."""
    seed = draw(st.sampled_from(BY_FORMAT[fmt]))
    text = seed.text
    for operation in draw(st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=4)):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 200)))
        at = draw(st.integers(0, len(text)))
        token = draw(st.sampled_from(fuzz.TOKENS))
        if operation == "delete":
            text = text[:start] + text[end:]
        elif operation == "duplicate":
            text = text[:at] + text[start:end] + text[at:]
        elif operation == "repeat":
            text = text[:at] + (text[start:end] or token)[:40] * draw(st.sampled_from((2, 50, 300))) + text[at:]
        elif operation == "token":
            text = text[:at] + token + text[at:]
        elif operation == "replace":
            text = text[:start] + token + text[end:]
        else:
            depth = draw(st.sampled_from((20, 300)))
            opener = draw(st.sampled_from(fuzz.BRACKETS))
            text = text[:start] + opener * depth + text[start:end] + text[end:]
    return seed.path, text


def lints_within_bounds(fmt: str, example: tuple[str, str]) -> None:
    name, text = example
    steps, findings = count_steps(lambda: LINTER.lint_text(text, name, name, fmt))
    lines = text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff").count("\n") + 1
    for finding in findings:
        if finding.span.path == name:  # (a Semantic Kernel prompt's settings are in config.json)
            assert 1 <= finding.span.line <= lines and finding.span.column >= 1, finding
    assert steps <= BASE_STEPS + STEPS_PER_CHAR * len(text), (steps, len(text))


@pytest.mark.parametrize("fmt", FORMATS)
def test_assembled_text_lints_in_bounded_work(fmt):
    given(assembled(fmt))(lambda example: lints_within_bounds(fmt, example))()


@pytest.mark.parametrize("fmt", FORMATS)
def test_mutated_seeds_lint_in_bounded_work(fmt):
    given(mutated(fmt))(lambda example: lints_within_bounds(fmt, example))()


@given(st.sampled_from(FORMATS), st.binary(max_size=300))
def test_any_bytes_give_findings_or_a_located_decoding_error(fmt, data):
    name = BY_FORMAT[fmt][0].path
    findings = LINTER.lint_bytes(data, name, name, fmt)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        assert [(f.code, f.message.startswith("not valid UTF-8")) for f in findings] == [("CTX001", True)]
