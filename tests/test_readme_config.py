"""The configuration example in README.md is a configuration ctxlint accepts, as written."""

from __future__ import annotations

import re
from pathlib import Path

from ctxlint.catalogue import load_catalogue
from ctxlint.config import load_settings
from ctxlint.engine import Linter

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_configuration_example_loads_and_extends_the_defaults(tmp_path):
    section = README.read_text(encoding="utf-8").split("## Configuration", 1)[1]
    example = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    (tmp_path / "ci" / "ctxlint-rules").mkdir(parents=True)  # the rule pack the example names
    config = tmp_path / "pyproject.toml"
    config.write_text(example, encoding="utf-8")
    settings = load_settings(config, root=tmp_path)
    catalogue = load_catalogue(settings.rule_packs)
    linter = Linter(settings, catalogue)
    clock = linter.catalogue["CTX101"].options["names"]
    assert "build_stamp" in clock and "timestamp" in clock  # extended, not replaced
    for code in ("CTX401", "CTX402", "CTX403"):
        assert {"crawl_*", "page"} <= set(linter.catalogue[code].options["untrusted"])
    assert {"sanitize_html", "tojson"} <= set(linter.catalogue["CTX403"].options["escapes"])
    assert "kb_hits" in linter.catalogue["CTX301"].options["collections"]
