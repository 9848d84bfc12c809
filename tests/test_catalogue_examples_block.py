"""The `examples:` block of a rule file, found without the line-by-line pattern it is defined by."""

from __future__ import annotations

import re

import pytest

from ctxlint.catalogue import builtin_rules_dir, examples_block

# The definition: the top-level `examples:` line and every line under it that is blank,
# indented, a comment or a list item.
DEFINED = re.compile(r"^examples:.*\n(?:(?:[ \t#-].*|)\n?)*", re.M)

CASES = [
    "",
    "examples:",  # no line break after the key: no block
    "examples:\n",
    "examples:\n\n\n",
    "code: CTX101\nexamples:\n  - a\n\n# note\nfamily: cache\n",
    "examples: []\n  - a\r\nb: 1\n",  # a line starting with a carriage return is top level
    "x: 1\nexamples:\n  a\n\r\nz",
    "examples:\n-\n\t\n",
    "a: 1\nexamples: x\nexamples:\n  c\nd: 2",  # the first key line wins
    "xexamples:\n  a\n",  # not at a line start
    "a: 1\nexamples:",
    "a:\n  examples:\n  b\n",  # indented: not the top-level key
]


@pytest.mark.parametrize("text", CASES)
def test_block_is_where_the_pattern_matches(text):
    defined = DEFINED.search(text)
    assert examples_block(text) == (defined.span() if defined else None)


def test_block_of_every_rule_file():
    for path in sorted(builtin_rules_dir().rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        defined = DEFINED.search(text)
        assert examples_block(text) == (defined.span() if defined else None), path
