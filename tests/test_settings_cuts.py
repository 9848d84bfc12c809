"""The slots of templates kept in a project's TOML settings (settingscuts.py): which setting holds
each slot, and whether the text around it marks a cut."""

from __future__ import annotations

from pathlib import Path

from ctxlint.frontends.python.settingscuts import settings_slots

PROMPTS = '''\
[digest_prompt]
system = """You write digests.
Earlier digest:
{{ previous }}
Keep its headings.
Write in English.
Use short sentences.
"""
user = """
Log (its first lines only; the rest was omitted):
{{ log_head }}
"""

[digest_prompt.extra]
note = "{{- previous | trim -}}"
'''


def test_each_slot_is_known_by_its_variable_and_the_setting_that_holds_it(tmp_path: Path) -> None:
    (tmp_path / "settings").mkdir()
    (tmp_path / "settings" / "digest.toml").write_text(PROMPTS, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.x]\nt = "{{ previous }}"\n', encoding="utf-8")
    slots = settings_slots(str(tmp_path))
    assert slots == {
        ("previous", "digest_prompt.system"): ("settings/digest.toml", 4, False),
        ("log_head", "digest_prompt.user"): ("settings/digest.toml", 11, True),
        ("previous", "digest_prompt.extra.note"): ("settings/digest.toml", 15, False),
    }


def test_a_note_of_a_cut_in_the_setting_above_does_not_mark_a_slot_on_its_own_key_line(tmp_path: Path) -> None:
    (tmp_path / "prompts.toml").write_text(
        '[p]\nsystem = """\nOlder lines were truncated.\n"""\nuser = "Summarise {{ history }}"\n', encoding="utf-8")
    assert settings_slots(str(tmp_path)) == {("history", "p.user"): ("prompts.toml", 5, False)}
