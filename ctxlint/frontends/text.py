"""Plain-text and Markdown prompts: one system message, whose placeholders are slots.

A prompt file is often filled in by code: ``{question}`` (``str.format``, LangChain),
``{{question}}`` / ``{{ question }}`` (Mustache, Handlebars, Jinja-style), ``$question`` /
``${question}`` (``string.Template``, shell-style). Each placeholder is a slot named by its
variable, so the volatility, layout and trust rules read the file like a template. Nothing says
how often a placeholder's value changes, so ``ctxlint cost`` ends the cacheable prefix at the
first one. In Markdown, code fences and inline code are examples, not placeholders; JSON in
prose and prices (``$5``) are not placeholders either (see ``placeholders.find``).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from ctxlint.frontends import limits, placeholders
from ctxlint.frontends.locate import line_locator, span_maker
from ctxlint.model import ParsedFile, Request, Role, Segment, Slot, Span


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    if not text:
        return parsed
    locate = line_locator(text)
    span = span_maker(path, locate)
    segments = []
    cursor = 0
    found = placeholders.find(text, markdown=path.lower().endswith((".md", ".markdown")))
    over = _past_the_limit(found)
    if over is not None:  # each placeholder is a slot the checks read, and a piece of text before it
        line, column = locate(over)
        parsed.errors.append((Span.point(path, line, column), limits.too_many_segments()))
        return parsed
    for start, end, name in found:
        if start > cursor:
            segments.append(Segment(Role.SYSTEM, span(cursor, start), text[cursor:start]))
        slot = Slot(text[start:end], names=(name,), opaque=True)
        segments.append(Segment(Role.SYSTEM, span(start, end), text[start:end], slot))
        cursor = end
    if cursor < len(text):
        segments.append(Segment(Role.SYSTEM, span(cursor, len(text)), text[cursor:]))
    # Code decides which role a prompt file is sent in; a file named like a system prompt says it.
    stem = PurePosixPath(path).stem.lower()
    marked = any(word in stem for word in ("system", "developer", "instruction"))
    parsed.requests.append(Request(path, Span.point(path, 1), tuple(segments), roles_marked=marked))
    return parsed


def _past_the_limit(found: list[tuple[int, int, str]]) -> int | None:
    """Where the placeholders ``found`` make more segments than a file may have (None: nowhere)."""
    if 2 * len(found) < limits.MAX_SEGMENTS:
        return None
    count, cursor = 0, 0
    for start, end, _ in found:
        count += 2 if start > cursor else 1
        if count > limits.MAX_SEGMENTS:
            return start
        cursor = end
    return None
