"""A cut returned bare where the same function marks a cut to the same bound (flaggedcuts.py):
the module is read for it even when it holds no prompt, and the finding names the marked cut."""

import ast
import textwrap

from ctxlint.frontends.python import parse_file
from ctxlint.frontends.python.prefilter import interesting, might_hold_prompts

MEMORY = textwrap.dedent("""\
    class Summaries:
        def __init__(self, limit: int = 500):
            self.limit = limit

        def shorten(self, text: str) -> str:
            parts = [p for p in text.split(". ") if len(p) > 20]
            if not parts:
                return text[:self.limit]
            joined = ". ".join(parts[:3])
            return joined[:self.limit] + "..." if len(joined) > self.limit else joined
    """)


def test_a_module_with_a_cut_marked_on_one_path_and_bare_on_another_is_read():
    assert might_hold_prompts(MEMORY)
    assert interesting(ast.parse(MEMORY))
    marked_only = MEMORY.replace("return text[:self.limit]", "return text[:self.limit] + ' [cut]'")
    assert not interesting(ast.parse(marked_only))


def test_the_bare_cut_is_observed_with_the_marked_one_as_its_evidence():
    parsed = parse_file(MEMORY, "memory/summaries.py")
    found = [(o.kind, o.span.line, o.span.column) for o in parsed.observations]
    assert found == [("unmarked-branch", 8, 20)]
    source = parsed.observations[0].source
    assert source is not None and source.detail == "text[:self.limit]"
    assert [(e.text, e.span.line) for e in source.flow if e.span is not None] == [
        ('`joined[:self.limit] + "..."` marks a cut to the same bound in `shorten`', 10)]


def test_a_bare_cut_to_another_bound_is_not_observed():
    other = MEMORY.replace("return text[:self.limit]", "return text[:80]")
    assert [o.kind for o in parse_file(other, "memory/summaries.py").observations] == []
