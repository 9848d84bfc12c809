"""Token totals of what a request always sends: its tools and its static text.

The totals come from the exact accounting (``ctxlint.analysis.accounting``): message framing,
reply priming and the provider's tool overhead included, slots counted as empty. Given UTF-8
byte lengths as the counter they are an upper bound of the exact count, which settles most
requests without loading a tokenizer (a token covers at least one byte).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from ctxlint.model import Request, ToolDef
from ctxlint.tokens import ModelInfo


def tool_text(tool: ToolDef) -> str:
    """The tool definition as it is written in the source, as JSON."""
    raw = tool.raw if tool.raw is not None else {"name": tool.name, "description": tool.description,
                                                   "parameters": tool.schema}
    return json.dumps(raw, ensure_ascii=False)


def utf8_bytes(text: str) -> int:
    """A counter that bounds any tokenizer's count from above (a lone surrogate, which a string
    literal can hold, counts as the three bytes of the U+FFFD tokenizers read it as)."""
    return len(text.encode("utf-8", "surrogatepass"))


def tool_chars(tools: Sequence[ToolDef]) -> int:
    """The characters of the tools' names and descriptions, which every rendering of them sends."""
    return sum(len(tool.name or "") + len(tool.description or "") for tool in tools)


def static_chars(request: Request) -> int:
    """The characters of a request's static text and its tools' names and descriptions.

    A floor under the byte bound (``static_tokens`` counted with ``utf8_bytes``): a request this
    long is not settled by bytes, and measuring it twice, by bytes and then by tokens, is skipped.
    A wrong floor costs only that time: the token count decides either way."""
    return sum(len(s.text) for s in request.segments if s.slot is None) + tool_chars(request.tools)


def static_tokens(request: Request, count: Callable[[str], int], info: ModelInfo | None = None) -> int:
    """Input tokens of the tool definitions and every static segment, with framing, under the
    accounting of ``info`` (None: the request's own model from the built-in table, else OpenAI's
    accounting with o200k_base). Slots count as empty."""
    from ctxlint.analysis.accounting import measure

    if info is None and request.model:
        from ctxlint.tokens import lookup_model

        info = lookup_model(request.model)
    return measure(request, info, count).total_input
