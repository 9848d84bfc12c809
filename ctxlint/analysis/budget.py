"""Token totals of what a request always sends: its tools and its static text."""

from __future__ import annotations

import json
from collections.abc import Callable

from ctxlint.model import Request, ToolDef


def tool_text(tool: ToolDef) -> str:
    """The tool definition as it is serialised into the request."""
    raw = tool.raw if tool.raw is not None else {"name": tool.name, "description": tool.description,
                                                   "parameters": tool.schema}
    return json.dumps(raw, ensure_ascii=False)


def static_tokens(request: Request, count: Callable[[str], int]) -> int:
    """Tokens of the tool definitions plus every static segment (slots count as empty)."""
    return sum(count(tool_text(t)) for t in request.tools) + sum(
        count(s.text) for s in request.segments if s.slot is None
    )
