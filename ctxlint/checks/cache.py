"""Cache stability: what breaks the provider's prompt-cache prefix."""

from __future__ import annotations

from ctxlint.analysis.volatility import volatile_reason
from ctxlint.checks import request_check
from ctxlint.context import CheckContext
from ctxlint.model import Request


@request_check
def volatile_in_prefix(request: Request, ctx: CheckContext) -> None:
    """Report the first slot matching the rule's patterns that has static instructions after it.

    Only the first one matters: the cache prefix ends there, so later volatile slots cost nothing
    more. A volatile slot after the last static instruction costs nothing and is not reported.
    """
    options = ctx.options
    for segment in request.slots():
        reason = volatile_reason(segment.slot, options["calls"], options["names"], options["filters"])
        if reason is None:
            continue
        after = request.static_after(segment)
        if not any(s.has_words for s in after):
            return
        lost = sum(ctx.count_tokens(s.text, request) for s in after)
        ctx.report(
            segment.span,
            f"`{segment.text}` changes on every call; the {lost:,} static tokens after it are sent "
            f"uncached each time. {options['advice']}",
        )
        return
