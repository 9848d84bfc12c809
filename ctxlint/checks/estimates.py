"""Token counts guessed from characters or words instead of counted with a tokenizer."""

from __future__ import annotations

from ctxlint.checks import file_check
from ctxlint.context import CheckContext
from ctxlint.model import Evidence, EvidenceKind, ParsedFile

# The evidence kind of each estimate a front-end observed: one that decides something (a budget,
# a cut, a limit), one only reported as a usage count, or a character budget whose comment works it
# out from tokens at a fixed ratio.
_KINDS = {"char-token-estimate": "estimate", "char-token-usage": "usage", "char-token-comment": "commented-ratio"}


@file_check
def char_based_token_estimate(parsed: ParsedFile, ctx: CheckContext) -> None:
    """Report each ``len(text) / 4``-style estimate a front-end saw used as a token count."""
    for observation in parsed.observations:
        if observation.kind not in _KINDS:
            continue
        ctx.report(
            observation.span,
            f"`{observation.detail}` assumes a fixed number of characters or words per token; the real "
            f"ratio depends on the tokenizer and the content (Chinese text and code are far from 4 "
            f"characters per token), so budgets built on it overflow or waste the window. Count with the "
            f"model's tokenizer: tiktoken for OpenAI models, the provider's token-counting endpoint otherwise.",
            observation.fix,
            kind=_KINDS[observation.kind],
            evidence=(
                Evidence(EvidenceKind.SOURCE, f"`{observation.detail}` used as a token count", observation.span),
            ),
        )
