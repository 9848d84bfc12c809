"""Output reserve: room left for the answer."""

from __future__ import annotations

from ctxlint.checks import request_check
from ctxlint.context import CheckContext
from ctxlint.model import Request


@request_check
def missing_output_reserve(request: Request, ctx: CheckContext) -> None:
    """Report a request whose source can set an output limit but does not."""
    if not request.declares_settings or request.output_limit is not None:
        return
    hint = request.settings_hint or "`max_tokens`"
    ctx.report(
        request.anchor,
        f"No output limit is set, so the answer may take whatever the window leaves, or be cut "
        f"off when a long prompt leaves nothing. Set {hint} to the longest answer you expect.",
    )
