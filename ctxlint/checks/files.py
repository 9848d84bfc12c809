"""Checks about a file as a whole."""

from __future__ import annotations

from ctxlint.checks import file_check
from ctxlint.context import CheckContext
from ctxlint.model import ParsedFile


@file_check
def parse_error(parsed: ParsedFile, ctx: CheckContext) -> None:
    """Report each error that stopped a front-end from reading the file."""
    for span, message in parsed.errors:
        ctx.report(span, message, kind="syntax")
