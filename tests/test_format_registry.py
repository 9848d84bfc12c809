"""The format registry is the one list of formats: discovery, configuration, the pre-commit
hooks' file patterns and the README's formats table all follow it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from ctxlint.config import DEFAULT_INCLUDE, FORMATS, Settings
from ctxlint.discover import glob_match
from ctxlint.frontends import REGISTRY, format_for

CHECKOUT = Path(__file__).resolve().parent.parent
SAMPLES = [(f.name, f"src/app/example{suffix}") for f in REGISTRY for suffix in f.suffixes]
SAMPLES += [(f.name, f"flows/chat/{name}") for f in REGISTRY for name in f.names]


def hooks() -> dict[str, re.Pattern]:
    entries = yaml.safe_load((CHECKOUT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {e["id"]: re.compile(e["files"], re.VERBOSE) for e in entries}


@pytest.mark.parametrize(("fmt", "path"), SAMPLES, ids=[p for _, p in SAMPLES])
def test_every_registered_file_is_found_routed_and_passed_by_the_hooks(fmt, path):
    settings = Settings(root=CHECKOUT)
    assert any(glob_match(glob, path) for glob in DEFAULT_INCLUDE)
    assert format_for(path, settings) == fmt
    for hook, pattern in hooks().items():
        assert pattern.search(path), f"{hook} does not run on {path}"


def test_configuration_accepts_exactly_the_registered_formats():
    assert set(FORMATS) == {f.name for f in REGISTRY}


def test_readme_formats_table_names_every_suffix_and_file_name():
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Formats it reads", 1)[1].split("\n## ", 1)[0]
    for f in REGISTRY:
        for suffix in f.suffixes:
            assert f"*{suffix}" in table, f"README formats table lacks *{suffix}"
        for name in f.names:
            assert name in table, f"README formats table lacks {name}"
