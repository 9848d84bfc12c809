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
    assert found.lines == {2: {"CTX201"}, 3: {"CTX201"}}
    assert found.file_codes == set()
