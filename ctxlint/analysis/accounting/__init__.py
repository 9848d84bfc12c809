"""Token accounting of a request: what the provider bills, per part and per tool, and how sure it is.

A count is **exact** only where ctxlint reproduces counts the provider's API printed for the same
request: the OpenAI models with published counts (gpt-3.5-turbo and gpt-4 on cl100k_base,
gpt-4o and gpt-4o-mini on o200k_base) and the request shapes those counts cover. Everything else
is an **estimate**, and every count says why in ``basis``: machine-readable codes (``BASIS``
explains each). tests/reference/counts.json holds the published counts, with their sources, that
the exact rules reproduce and the estimates stay within.

**OpenAI chat completions** (the OpenAI cookbook "How to count tokens with tiktoken", and the
helper libraries openai-chat-tokens and openai-messages-token-helper, whose test counts come from
the API):

- a message costs 3 tokens of framing plus its role and its text; a ``name`` adds its tokens + 1;
  a ``function``-role message 2 fewer; every reply is primed with 3 more tokens;
- an assistant ``function_call`` adds its name and arguments + 3; one ``tool_calls`` entry adds
  its name twice, its arguments and 2; several are sent as one ``tool_uses`` JSON object + 12 +
  their number;
- tools (or legacy functions) are sent as a TypeScript ``namespace functions`` block (each tool a
  ``type name = (_: {...}) => any;`` with its description as a comment) + 9 tokens; with a
  system message present, the first one gains a trailing newline and the total drops by 4;
- ``tool_choice`` ``none`` adds 1 token, a named tool 7 + its name (``function_call``: 4 + name);
- an image costs 85 tokens at ``detail: low``; otherwise it is scaled to fit 2048×2048, then
  down to a shortest side of 768, and costs 85 + 170 per 512-pixel tile (gpt-4o-mini: 2,833 +
  5,667), from the size the image's header declares.

**Estimates.** Other OpenAI models (same framing, no published count); the Responses API
(counted as chat: instructions as a developer message, function calls and outputs as tool
turns); Anthropic and Gemini (no public tokenizer: text counted with o200k_base; Anthropic's
system prompt unframed, its tool-use system prompt added per ``tool_choice``, provider-defined
tools at their documented sizes; Gemini's text without any message framing). Audio, files,
hosted tools (web search, file search, code interpreter) and PDF documents are listed as
unpriced, never counted as 0 silently.

**Slots count as 0 tokens**: they are filled at run time, so every total here is what the
request sends *before* any variable content. Static text inside a loop counts once.

``basis`` holds the constants, the basis codes and the profile a model is counted under;
``tools`` renders and counts tools, ``messages`` walks a request in the order it is sent, and
``pricing`` puts a request's cost together.
"""

from ctxlint.analysis.accounting.basis import (
    BASIS,
    EXACT_BASIS,
    FUNCTIONS_BLOCK,
    REPLY_PRIMING,
    TOKENS_PER_MESSAGE,
    Profile,
    ToolCost,
    profile_for,
    profile_of,
)
from ctxlint.analysis.accounting.messages import Measured, image_tiles, measure, measure_profile
from ctxlint.analysis.accounting.pricing import (
    Pricing,
    RequestCost,
    cached_prefix,
    chat_message_tokens,
    describe_basis,
    request_cost,
    tool_cost_breakdown,
    tools_tokens,
)
from ctxlint.analysis.accounting.tools import hosted, schema_prefix

__all__ = [
    "BASIS", "EXACT_BASIS", "FUNCTIONS_BLOCK", "REPLY_PRIMING", "TOKENS_PER_MESSAGE", "Measured", "Pricing",
    "Profile", "RequestCost", "ToolCost", "cached_prefix", "chat_message_tokens", "describe_basis", "hosted",
    "image_tiles", "measure", "measure_profile", "profile_for", "profile_of", "request_cost", "schema_prefix",
    "tool_cost_breakdown", "tools_tokens",
]
