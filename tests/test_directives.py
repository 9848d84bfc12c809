"""`ctxlint:` comments: suppressions, pinned text, region markers, trust annotations."""

from __future__ import annotations

from ctxlint.directives import scan
from ctxlint.model import Region


def test_pinned_and_region_blocks_cover_the_lines_between_markers():
    text = (
        "intro\n"                        # 1
        "{# ctxlint: pinned #}\n"        # 2
        "Never share card numbers.\n"    # 3
        "Refunds need a human.\n"        # 4
        "{# ctxlint: end #}\n"           # 5
        "{# ctxlint: tail #}\n"          # 6
        "Answer briefly.\n"              # 7
    )
    found = scan(text, "jinja")
    assert found.pinned == [(3, 4)]
    assert found.regions == [(7, 8, Region.TAIL)]  # no `end`: to the end of the file
    assert found.is_pinned(3) and not found.is_pinned(5)
    assert found.region_at(7) is Region.TAIL and found.region_at(2) is None


def test_trust_annotations_name_variables():
    found = scan("{# ctxlint: untrusted=page, snippet #}\n{# ctxlint: trusted=summary #}\n", "jinja")
    assert found.untrusted == {"page", "snippet"}
    assert found.trusted == {"summary"}


def test_only_the_formats_own_comments_count():
    text = "# ctxlint: pinned\nNever.\n# ctxlint: end\n"
    assert scan(text, "jinja").pinned == []  # `#` lines in a template are prompt text
    assert scan(text, "python").pinned == [(2, 2)]


def test_front_matter_comments_count_in_prompty_but_not_its_body():
    text = "---\n# ctxlint: ignore[CTX201]\nmodel: {}\n---\nsystem:\n# ctxlint: ignore-file\n"
    found = scan(text, "prompty")
    assert len(found.suppressions) == 1
    suppression = found.suppressions[0]
    assert (suppression.lines, suppression.file_level) == (frozenset({2, 3}), False)
    assert [ref.text for ref in suppression.codes] == ["CTX201"]


def test_suppressions_keep_their_place_and_how_to_remove_them():
    text = (
        "{# ctxlint: ignore[CTX101, volatile-in-prefix] #}\n"   # 1: alone on its line
        "Hello {# ctxlint: ignore #} there\n"                    # 2: inside a line
        "{#- ctxlint: ignore-file[CTX102] #}\n"                 # 3: whitespace control
    )
    found = scan(text, "jinja", "a.j2")
    first, bare, whole = found.suppressions
    assert first.text == "ctxlint: ignore[CTX101, volatile-in-prefix]"
    assert (first.span.line, first.span.column, first.lines) == (1, 1, frozenset({1, 2}))
    # A Jinja comment goes, its line stays: the template renders the same.
    assert text[first.removal[0]:first.removal[1]] == "{# ctxlint: ignore[CTX101, volatile-in-prefix] #}"
    assert text[first.brackets[0]:first.brackets[1]] == "CTX101, volatile-in-prefix"
    assert (bare.codes, bare.lines) == (None, frozenset({2}))
    assert (whole.file_level, whole.removal) == (True, None)  # `{#-` trims text: never removed


def test_python_and_yaml_suppressions_are_removed_with_their_line_or_their_space():
    text = "# ctxlint: ignore[CTX201]\nx = 1  # ctxlint: ignore[CTX101]  # noqa: E501\ny = 2  # ctxlint: ignore\n"
    alone, before_noqa, trailing = scan(text, "python").suppressions
    assert text[alone.removal[0]:alone.removal[1]] == "# ctxlint: ignore[CTX201]\n"
    assert text[before_noqa.removal[0]:before_noqa.removal[1]] == "  # ctxlint: ignore[CTX101]"
    assert text[trailing.removal[0]:trailing.removal[1]] == "  # ctxlint: ignore"


def test_misspelt_directives_are_kept_with_the_reason():
    text = (
        "# ctxlint: ignroe[CTX101]\n"
        "# ctxlint ignore[CTX101]\n"
        "# ctxlint: ignore CTX101\n"
        "# ctxlint: ignore-files\n"
        "# CTXLINT: ignore\n"
        "# ctxlint:\n"
        "# ctxlint runs in CI\n"          # prose: not a directive, not reported
        "# ctxlint: ignore[CTX101]\n"     # valid
    )
    found = scan(text, "python")
    assert [(m.span.line, m.message) for m in found.malformed] == [
        (1, "`ctxlint: ignroe` is not a directive, so it does nothing; did you mean `ignore`?"),
        (2, "`ctxlint ignore` is not a directive: the colon is missing (`ctxlint: ignore`)"),
        (3, ("`ctxlint: ignore` followed by codes outside brackets suppresses every rule on the line, not "
            "those codes; put them in brackets: `ctxlint: ignore[CTX101]`")),
        (4, "`ctxlint: ignore-files` is not a directive, so it does nothing; did you mean `ignore-file`?"),
        (5, "`CTXLINT: ignore` is not a directive: directives are lower case, e.g. `ctxlint: ignore[CTX101]`"),
        (6, "`ctxlint:` names no directive; write e.g. `ctxlint: ignore[CTX101]`"),
    ]
    # Only the valid one suppresses anything; `ignore CTX101` no longer suppresses every rule.
    assert [s.span.line for s in found.suppressions] == [8]
