"""Bounds on what one file may ask of ctxlint, so that every file is linted in bounded time.

The analyses are linear in the number of segments (pieces of static text and slots) of a file,
and Jinja's lexer and parser take tens of microseconds a token. A file beyond these bounds is reported
where it crosses one (a CTX001 finding, which a per-file ignore can silence for generated
files) instead of being analysed. Real prompt files stay far below them.
"""

from __future__ import annotations

MAX_SEGMENTS = 50_000
# Characters inside `{{ }}` and `{% %}` tags that Jinja's parser reads (a template made of nothing
# but plain `{{ name }}` tags is read without it, and does not count).
MAX_TEMPLATE_CODE = 100_000

NOT_CHECKED = ("too many to analyse in bounded time; the file was not checked "
               "(split it, or exclude it if it is generated)")


def too_many_segments() -> str:
    return f"more than {MAX_SEGMENTS:,} pieces of text and slots: {NOT_CHECKED}"


def too_much_template_code() -> str:
    return f"more than {MAX_TEMPLATE_CODE:,} characters of template code in tags: {NOT_CHECKED}"
