"""A prompt object kept in a registry at a named key: where code takes it out and fills it is
the fill site of its template's fields, and a step of the finding's evidence."""

from __future__ import annotations

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends import format_for


def _lint_example(tmp_path, code: str, example_id: str):
    """The one finding of a rule file's example, with its other files written beside it."""
    rule = load_catalogue()[code]
    example = next(e for e in rule.examples if e.id == example_id)
    for name, text in example.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    settings = Settings(root=tmp_path)
    linter = Linter(settings, {code: rule}, select=[code])
    [finding] = linter.lint_text(example.source, example.file, example.file, format_for(example.file, settings))
    return example, finding


def test_the_fill_site_read_through_the_registry_key_is_an_evidence_step(tmp_path):
    example, finding = _lint_example(tmp_path, "CTX101", "prompt-object-kept-in-a-registry-filled-with-a-clock")
    assert (finding.code, finding.span.line, finding.kind) == ("CTX101", 13, "format-site-call")
    assert finding.message.startswith("`stamp` changes on every call; the 188 static tokens after it are sent uncached")
    steps = [(e.text.split(",")[0], e.span.path.endswith("desk/triage.py"), e.span.line) for e in finding.evidence
             if e.span.path != example.file]
    assert steps == [("`datetime.datetime.now()` is called here", True, 8),
                     ("filled where code formats the prompt", True, 8)]


def test_a_value_rendered_through_a_registry_prompt_points_at_that_prompt(tmp_path):
    example, finding = _lint_example(tmp_path, "CTX402",
                                     "documents-rendered-through-a-registry-prompt-fill-a-system-template")
    assert (finding.code, finding.span.line, finding.kind) == ("CTX402", 16, "format-site-source")
    # The document prompt each retrieved article is rendered through, in this module: its header
    # and missing end marker are what the `{articles}` field carries into the system message.
    assert [(e.text, e.span.line) for e in finding.evidence if e.text.startswith("the value is built")] == [
        (f"the value is built with the prompt `ARTICLE_PROMPT`, {example.file}:23", 23)]
