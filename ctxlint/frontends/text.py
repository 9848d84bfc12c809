"""Plain-text and Markdown prompts: the whole file is one static system message."""

from __future__ import annotations

from ctxlint.frontends.locate import line_locator
from ctxlint.model import ParsedFile, Request, Role, Segment, Span


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    if text:
        end_line, end_column = line_locator(text)(len(text))
        segment = Segment(Role.SYSTEM, Span(path, 1, 1, end_line, end_column), text)
        parsed.requests.append(Request(path, Span.point(path, 1), (segment,)))
    return parsed
