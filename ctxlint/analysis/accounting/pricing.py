"""A request's cost: its counts under its model, the price of 1,000 calls with and without
prompt caching, and the note that says what the count rests on."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ctxlint.analysis.accounting.basis import (
    BASIS,
    EXACT_BASIS,
    FALLBACK_ENCODING,
    REPLY_PRIMING,
    TOKENS_PER_MESSAGE,
    TOKENS_PER_NAME,
    Counter,
    Profile,
    ToolCost,
    counter_for,
    profile_for,
    profile_of,
    remembered,
)
from ctxlint.analysis.accounting.messages import Measured, measure_profile
from ctxlint.analysis.accounting.tools import measure_tools
from ctxlint.analysis.volatility import Volatility
from ctxlint.model import Request, ToolDef
from ctxlint.tokens import ModelInfo, count_tokens


@dataclass(frozen=True)
class Pricing:
    """What 1,000 calls of a request cost, in USD (None: the model or the price is unknown).

    ``input`` is the headline: every call sends the input. ``cached_input`` is the same with the
    provider's prompt caching, and None where it does not apply (``cache_note`` says why);
    ``cached_tokens`` are the tokens read from cache on each call. Output is priced apart: an
    upper bound from the output limit (``max_tokens``, or the model's maximum when the request
    sets none) and, with ``expected-output-tokens`` configured, an expectation.
    """

    input: float | None
    cached_input: float | None
    cached_tokens: int
    cache_note: str
    output_bound_tokens: int | None
    output_bound_from: str  # "max_tokens" (the request's key) or "model maximum"
    output_bound: float | None
    expected_output_tokens: int | None
    expected_output: float | None


@dataclass(frozen=True)
class RequestCost:
    """What one request costs before any run-time content is added (slots count as 0).

    ``tools`` includes per-tool and request-level tool overhead; ``system`` and ``messages``
    include per-message framing and the media they carry; ``other`` is the reply priming and
    ``tool_choice``; ``total_input`` is their sum. ``cacheable_prefix`` is the tokens from the
    start up to the first volatile slot (or all of them). ``exact`` is True only where the count
    reproduces published API counts; ``basis`` says on what it rests (codes of ``BASIS``),
    ``note`` the same in words. ``unpriced`` lists what the request sends but is not counted.
    """

    path: str
    line: int
    model: str
    model_known: bool
    provider: str | None
    encoding: str
    exact: bool
    basis: tuple[str, ...]
    tools: int
    tool_costs: tuple[ToolCost, ...]
    system: int
    messages: int
    other: int
    reserve: int
    total_input: int
    cacheable_prefix: int
    window: int | None
    window_share: float | None
    pricing: Pricing
    unpriced: tuple[str, ...] = ()
    note: str = ""
    model_from: str = "request"  # request, config (its `model`), what-if (--model) or none
    cell: int | None = None  # the notebook cell that `line` counts in (None outside notebooks)
    unseen: tuple[str, ...] = ()  # what the request sends from values ctxlint cannot read

    @property
    def lower_bound(self) -> bool:
        """The request sends more than the count says: values ctxlint cannot read (``unseen``)."""
        return bool(self.unseen)

    @property
    def input_price(self) -> float | None:
        return self.pricing.input

    @property
    def cached_price(self) -> float | None:
        """The price with caching, or the input price where caching does not apply."""
        return self.pricing.cached_input if self.pricing.cached_input is not None else self.pricing.input




def request_cost(request: Request, models: Mapping | None, default_model: str | None,
                 volatility: Volatility | None, *, model: str | None = None,
                 expected_output: int | None = None) -> RequestCost:
    """Token accounting and prices of ``request``.

    The model is ``model`` when given (a what-if audit), else the request's own, else
    ``default_model`` (the config's ``model``); with none of them the request is counted as an
    estimate and left unpriced. ``models`` is the config's ``[tool.ctxlint.models]``;
    ``volatility`` says which slots end the cacheable prefix; ``expected_output`` is the
    configured expected answer length.
    """
    name = model or request.model or default_model
    profile = profile_for(name, models, request.api)
    count = counter_for(profile.encoding)
    measured = measure_profile(request, profile, count, volatility)
    limit = request.output_limit
    reserve = limit.value if limit is not None and limit.value is not None and limit.value > 0 else 0
    info = profile.info
    window = info.window if info is not None else None
    total = measured.total_input
    return RequestCost(
        path=request.path,
        line=request.anchor.line,
        cell=request.anchor.cell,
        model=profile.model,
        model_known=info is not None,
        provider=profile.provider,
        encoding=profile.encoding,
        exact=measured.exact,
        basis=measured.basis,
        tools=measured.tools,
        tool_costs=measured.tool_costs,
        system=measured.system,
        messages=measured.messages,
        other=measured.other,
        reserve=reserve,
        total_input=total,
        cacheable_prefix=measured.prefix,
        window=window,
        window_share=(total + reserve) / window if window else None,
        pricing=_pricing(profile, measured, reserve, limit.key if limit is not None and reserve else "",
                         expected_output),
        unpriced=measured.unpriced,
        unseen=measured.unseen,
        note=_note(profile, measured),
        model_from="what-if" if model else "request" if request.model else "config" if default_model else "none",
    )


def tool_cost_breakdown(tool: ToolDef, model: ModelInfo | None, *, count: Counter | None = None) -> ToolCost:
    """One tool's tokens under ``model``'s accounting (None: OpenAI's, with o200k_base).

    Alone, a tool's ``share`` is 1.0; ``request_cost`` sets it against the request's other
    tools. ``count`` replaces the tokenizer (``len(text.encode())`` gives a cheap upper bound).
    """
    profile = profile_of(model)
    costs = measure_tools([tool], profile, count or counter_for(profile.encoding), None).costs
    # A hosted tool (OpenAI's web_search) has no definition the request pays for by the token.
    return costs[0] if costs else ToolCost(tool.name or "", 0, 0.0, "name", 0, tool.span)


def tools_tokens(tools: Sequence[ToolDef], model: ModelInfo | None, *,
                 count: Counter | None = None) -> tuple[int, tuple[ToolCost, ...]]:
    """All tool tokens of one request including request-level overhead, and each tool's cost."""
    profile = profile_of(model)
    measured = measure_tools(tools, profile, remembered(count or counter_for(profile.encoding)), None)
    return measured.total, measured.costs


def chat_message_tokens(messages: Iterable[Mapping[str, str]], encoding: str = FALLBACK_ENCODING) -> int:
    """The cookbook's ``num_tokens_from_messages``: framing, every value (role, content, name)
    and the reply priming, for messages given as plain ``{"role", "content", "name"?}`` dicts."""
    total = REPLY_PRIMING
    for message in messages:
        total += TOKENS_PER_MESSAGE
        for key, value in message.items():
            total += count_tokens(value, encoding)
            if key == "name":
                total += TOKENS_PER_NAME
    return total


def describe_basis(codes: Iterable[str]) -> str:
    return "; ".join(BASIS.get(code, code) for code in codes)




def _pricing(profile: Profile, measured: Measured, reserve: int, limit_key: str,
             expected_output: int | None) -> Pricing:
    info = profile.info
    total = measured.total_input
    per_1k = 1000 / 1_000_000
    input_price = total * info.input_per_mtok * per_1k if info is not None and info.input_per_mtok is not None else None
    cached_tokens, note = cached_prefix(profile, measured)
    cached_price = None
    if (cached_tokens and info is not None and info.input_per_mtok is not None
            and info.cached_input_per_mtok is not None):
        cached_price = ((total - cached_tokens) * info.input_per_mtok + cached_tokens * info.cached_input_per_mtok) \
            * per_1k
    output = info.output_per_mtok if info is not None else None
    if reserve:
        bound_tokens, bound_from = reserve, limit_key
    elif info is not None:
        bound_tokens, bound_from = info.max_output, "model maximum"
    else:
        bound_tokens, bound_from = None, ""
    return Pricing(
        input=input_price,
        cached_input=cached_price,
        cached_tokens=cached_tokens if cached_price is not None else 0,
        cache_note=note,
        output_bound_tokens=bound_tokens,
        output_bound_from=bound_from,
        output_bound=bound_tokens * output * per_1k if bound_tokens is not None and output is not None else None,
        expected_output_tokens=expected_output,
        expected_output=expected_output * output * per_1k if expected_output and output is not None else None,
    )


def cached_prefix(profile: Profile, measured: Measured) -> tuple[int, str]:
    """Tokens the provider reads from cache on each call, by its rules, and why when none.

    OpenAI caches automatically from 1,024 tokens, in 128-token steps; Anthropic only what a
    ``cache_control`` breakpoint covers, before the first volatile slot and from the model's
    minimum; Gemini (implicit caching) the stable prefix from the model's minimum.
    """
    info = profile.info
    if info is None:
        return 0, "model unknown"
    if info.cache_min_tokens is None:
        return 0, f"{info.name} has no prompt caching"
    if info.cached_input_per_mtok is None:
        return 0, f"{info.name}'s cached-input price is unknown"
    minimum = info.cache_min_tokens
    if profile.provider == "anthropic":
        covered = [p for p in measured.breakpoints if p <= measured.prefix]
        if not measured.breakpoints:
            return 0, "no cache_control breakpoint"
        if not covered:
            return 0, "every cache_control breakpoint follows a value that changes per call"
        if covered[-1] < minimum:
            return 0, f"the cached prefix is under {info.name}'s {minimum:,}-token minimum"
        return covered[-1], ""
    if measured.prefix < minimum:
        return 0, f"the stable prefix is under the {minimum:,}-token minimum"
    if profile.provider == "openai":
        return minimum + (measured.prefix - minimum) // 128 * 128, ""
    return measured.prefix, ""


def _note(profile: Profile, measured: Measured) -> str:
    parts = []
    if profile.guess is not None:
        who = profile.guess.provider or "an unknown provider"
        parts.append(f"unknown model `{profile.model}` ({profile.guess.reason}; provider {who}, counted with "
                     f"{profile.encoding}); window and prices unknown")
    elif profile.no_model:
        parts.append("no model named: set `model` in the config or in the request to price it")
    estimate = [code for code in measured.basis
                if code not in EXACT_BASIS and code not in ("unknown-model", "no-model", "unseen-values")]
    if measured.unseen:
        parts.append("≥ lower bound: ctxlint cannot read " + ", ".join(measured.unseen))
    if estimate:
        parts.append("estimate: " + describe_basis(estimate))
    if measured.unpriced:
        parts.append("not counted: " + ", ".join(dict.fromkeys(measured.unpriced)))
    return "; ".join(parts)
