"""The engine over many files: a parallel audit finds exactly what a serial one finds."""

from __future__ import annotations

import shutil
from pathlib import Path

from ctxlint import engine
from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.discover import discover

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_parallel_audit_matches_the_serial_one(tmp_path, monkeypatch):
    for copy in range(3):
        shutil.copytree(EXAMPLES, tmp_path / f"copy{copy}")
    settings = Settings(root=tmp_path)
    files = discover([tmp_path], tmp_path, settings.all_globs(), settings.exclude)
    linter = engine.Linter(settings, load_catalogue())
    serial = linter.lint_files(files, jobs=1)
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 2)
    parallel = linter.lint_files(files, jobs=2)
    assert serial.findings and parallel.findings == serial.findings
    assert parallel.files_checked == serial.files_checked == len(files)


def test_one_claim_at_one_place_is_reported_once_with_its_surest_evidence():
    from ctxlint.model import Confidence, Finding, Severity, Span

    def finding(confidence: Confidence, line: int = 3, kind: str = "raw-output-cut") -> Finding:
        return Finding("CTX205", "silent-truncation", Severity.WARNING, Span("run.py", line, 5, line, 15),
                       "`out[:500]` cuts the text", confidence=confidence, kind=kind)

    weak, sure, elsewhere = finding(Confidence.LOW), finding(Confidence.MEDIUM), finding(Confidence.LOW, line=9)
    assert engine._unique([weak, elsewhere, sure, weak]) == [sure, elsewhere]


def test_a_finding_also_reported_from_a_module_that_includes_it_is_kept_once():
    """A cut in a helper's request is reported by its module's run, which names the function it is
    in, and by the run of a module whose request includes the helper's text, which does not."""
    from ctxlint.model import Confidence, Finding, NamedFunction, Severity, Span

    def finding(function: NamedFunction | None, line: int = 10) -> Finding:
        return Finding("CTX205", "silent-truncation", Severity.WARNING, Span("related.py", line, 15, line, 29),
                       "`context[:4000]` cuts the text", confidence=Confidence.MEDIUM, kind="document-cut",
                       function=function)

    named = finding(NamedFunction("related_questions", 6, 15))
    other = finding(None, line=12)
    assert engine.once_each([finding(None), other, named]) == [named, other]


def test_one_claim_about_a_prompt_functions_line_sent_by_two_modules_is_said_once_with_both_senders():
    """A prompt function's text is sent in the system role by two modules; each module's run makes
    the same claim about the function's line, by a way of its own: one finding, naming both."""
    from ctxlint.model import Confidence, Evidence, EvidenceKind, Finding, Severity, Span

    at = Span("prompts/writer.ts", 49, 5, 49, 16)
    landed = Evidence(EvidenceKind.SINK, "interpolated into the system message", at)

    def finding(sender: str, line: int) -> Finding:
        sent = Evidence(EvidenceKind.SINK, f"sent as the system message at {sender}:{line}",
                        Span(sender, line, 3, line, 9))
        source = Evidence(EvidenceKind.SOURCE, "a tool result", Span(sender, 20, 1, 20, 9))
        return Finding("CTX402", "untrusted-in-system", Severity.WARNING, at, "`context` carries untrusted content",
                       confidence=Confidence.HIGH, evidence=(source, landed, sent), kind="caller-source")

    first, second = finding("agents/api.ts", 74), finding("agents/index.ts", 122)
    [said] = engine.once_each([first, second])
    assert said.evidence == (*first.evidence, second.evidence[-1])


def test_a_cut_adopted_by_a_request_of_another_module_is_said_once_at_its_origin():
    """A wrapper cuts the turns it is given (base/client.py:40) and each module that sends a prompt
    through it adopts that cut; the cut is fixed at its line, so it is reported there once, as sure
    as the surest report, with the request that sends it added to its evidence."""
    from ctxlint.model import Confidence, Evidence, EvidenceKind, Finding, Severity, Span

    origin_span = Span("base/client.py", 40, 25, 40, 60)
    origin = Finding("CTX205", "silent-truncation", Severity.WARNING, origin_span, "`turn[-n:]` cuts the text",
                     confidence=Confidence.MEDIUM, kind="unsent-token-cut",
                     evidence=(Evidence(EvidenceKind.SOURCE, "`turn[-n:]` cuts the text", origin_span),))
    sent = Evidence(EvidenceKind.SINK, "sent in the user message with no marker beside it",
                    Span("tools/caption.py", 14, 9, 14, 30))
    copy = Finding("CTX205", "silent-truncation", Severity.WARNING, Span("tools/caption.py", 12, 16, 12, 70),
                   "`turn[-n:] in base/client.py:40` cuts the text", confidence=Confidence.HIGH, kind="tail-cut",
                   evidence=(Evidence(EvidenceKind.SOURCE, "`turn[-n:] in base/client.py:40` cuts the text",
                                      Span("tools/caption.py", 12, 16, 12, 70)),
                             Evidence(EvidenceKind.FLOW, "in base/client.py, line 40", origin_span), sent))
    unrelated = Finding("CTX205", "silent-truncation", Severity.WARNING, Span("tools/other.py", 3, 1, 3, 9),
                        "`page[:4000]` cuts the text", confidence=Confidence.MEDIUM, kind="document-cut")
    said = engine.said_at_origin([origin, copy, unrelated])
    assert [(f.span.path, f.span.line, f.confidence) for f in said] == [
        ("base/client.py", 40, Confidence.HIGH), ("tools/other.py", 3, Confidence.MEDIUM)]
    assert said[0].evidence[-1] == sent
    # with no finding at the origin in the run (a run over one file), the adopted report stays
    assert engine.said_at_origin([copy, unrelated]) == [copy, unrelated]
