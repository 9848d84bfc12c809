"""Hostile and malformed input: a located CTX001 or a skip notice, never an exception."""

from __future__ import annotations

from conftest import SUPPORT_RULES

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter

CATALOGUE = load_catalogue()


def lint(tmp_path, name: str, data: bytes, **settings):
    path = tmp_path / name
    path.write_bytes(data)
    linter = Linter(Settings(root=tmp_path, **{"preview": True, **settings}), CATALOGUE)
    return linter.lint_files([path])


def located(result):
    return [(f.code, f.span.line, f.span.column) for f in result.findings]


def test_yaml_alias_bomb_in_front_matter_is_refused_quickly(tmp_path):
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        previous = "a" if i == 1 else f"b{i - 1}"
        lines.append(f"b{i}: &b{i} [" + ", ".join([f"*{previous}"] * 9) + "]")
    text = "---\n" + "\n".join(lines) + "\n---\nsystem:\nhi\n"
    result = lint(tmp_path, "bomb.prompty", text.encode())
    assert located(result) == [("CTX001", 2, 1)]
    assert "expands through aliases" in result.findings[0].message


def test_self_referencing_yaml_is_refused(tmp_path):
    result = lint(tmp_path, "loop.prompty", b"---\nmodel: &m [*m]\n---\nsystem:\nhi\n")
    assert located(result) == [("CTX001", 2, 1)]


def test_deeply_nested_template_is_a_finding_not_a_crash(tmp_path):
    source = "{{ " + "(" * 5000 + "x" + ")" * 5000 + " }}\n"
    result = lint(tmp_path, "deep.j2", source.encode())
    assert located(result) == [("CTX001", 1, 1)]
    assert result.findings[0].message == "the template nests too deeply to parse"


def test_f_strings_nested_past_what_python_allows_are_a_finding_not_a_crash(tmp_path):
    """PEP 701 lets a replacement field hold an f-string with the same quotes; the compatibility
    reader follows them only as deep as CPython does (a fuzz input nested 2,000 deep recursed)."""
    source = "from openai import OpenAI\n" + 'PROMPT = f"""Today is {day' * 2000 + "\n"
    result = lint(tmp_path, "service.py", source.encode())
    assert [(f.code, f.span.line) for f in result.findings] == [("CTX001", 2)]
    assert not result.errors


def test_non_utf8_is_located_at_the_first_bad_byte(tmp_path):
    result = lint(tmp_path, "latin1.j2", "Ok line\nCaf\xe9 {{ x }}\n".encode("latin-1"))
    assert located(result) == [("CTX001", 2, 4)]
    assert result.findings[0].message == "not valid UTF-8 (byte 0xe9); save the file as UTF-8"


def test_binary_file_is_skipped_with_a_notice(tmp_path):
    result = lint(tmp_path, "logo.j2", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert result.findings == [] and result.files_checked == 0
    assert [(n.path.endswith("logo.j2"), n.message) for n in result.notices] == [(True, "skipped: binary file")]


def test_huge_file_is_skipped_with_a_notice(tmp_path):
    result = lint(tmp_path, "huge.j2", b"x" * 5000, max_file_bytes=4096)
    assert result.findings == []
    assert result.notices[0].message == "skipped: 5,000 bytes is over the 4,096-byte limit"


def test_crlf_and_bom_keep_lines_and_columns(tmp_path):
    crlf = lint(tmp_path, "crlf.j2", ("Hello\nTime {{ now() }}\n" + SUPPORT_RULES).replace("\n", "\r\n").encode())
    assert located(crlf) == [("CTX101", 2, 6)]
    bom = lint(tmp_path, "bom.j2", ("\ufeffTime {{ now() }}\n" + SUPPORT_RULES).encode())
    assert located(bom) == [("CTX101", 1, 6)]


def test_empty_files_are_clean(tmp_path):
    for name in ("empty.j2", "empty.prompty"):
        assert lint(tmp_path, name, b"").findings == []
