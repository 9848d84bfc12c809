"""The fix applier: exact splices, newline style and BOM kept, atomic writes, refusals."""

from __future__ import annotations

import os
import stat

import pytest

from ctxlint.fix import Unfixable, plan, splice, write_atomic
from ctxlint.model import Finding, Fix, Severity, Span


def finding(path, line, column, end_line, end_column, replacement, code="CTX103"):
    span = Span(str(path), line, column, end_line, end_column)
    return Finding(code, "x", Severity.WARNING, span, "m", Fix("fix it", span, replacement))


def test_splice_replaces_by_span_and_keeps_everything_else():
    text = "a = json.dumps(x)\nb = json.dumps(y)\n"
    fixes = [finding("f", 1, 5, 1, 18, "json.dumps(x, sort_keys=True)").fix,
             finding("f", 2, 5, 2, 18, "json.dumps(y, sort_keys=True)").fix]
    fixed, applied = splice(text, fixes)
    assert fixed == "a = json.dumps(x, sort_keys=True)\nb = json.dumps(y, sort_keys=True)\n"
    assert applied == 2


def test_overlapping_fixes_apply_once():
    fixes = [Fix("a", Span("f", 1, 1, 1, 4), "XYZ"), Fix("b", Span("f", 1, 2, 1, 5), "Q")]
    assert splice("abcdef", fixes) == ("XYZdef", 1)


def test_plan_keeps_crlf_and_bom(tmp_path):
    path = tmp_path / "svc.py"
    path.write_bytes("\ufeffx = 1\r\ny = json.dumps(d)\r\n".encode())
    planned = plan(path, [finding(path, 2, 5, 2, 18, "json.dumps(d, sort_keys=True)")])
    assert planned.fixed == "\ufeffx = 1\r\ny = json.dumps(d, sort_keys=True)\r\n"


def test_plan_refuses_files_that_did_not_parse_or_mix_newlines(tmp_path):
    path = tmp_path / "svc.py"
    path.write_text("y = json.dumps(d)\n")
    broken = [finding(path, 1, 5, 1, 18, "z"), finding(path, 1, 1, 1, 1, "", code="CTX001")]
    with pytest.raises(Unfixable, match="does not parse"):
        plan(path, broken)
    path.write_bytes(b"a\r\nb\n y = json.dumps(d)\n")
    with pytest.raises(Unfixable, match="mixes newline styles"):
        plan(path, [finding(path, 3, 6, 3, 19, "z")])


def test_write_atomic_replaces_content_keeps_mode_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "svc.py"
    path.write_text("old\n")
    os.chmod(path, 0o640)
    write_atomic(path, "new\n")
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["svc.py"]
