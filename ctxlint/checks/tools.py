"""Tool definitions: what each tool costs on every call, and schemas the provider rejects.

Token checks first bound a tool's cost by its UTF-8 bytes (a token covers at least one byte),
so a catalogue of small tools is settled without loading a tokenizer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ctxlint.analysis.accounting import ToolCost, hosted, schema_prefix, tools_tokens
from ctxlint.analysis.budget import tool_chars, utf8_bytes
from ctxlint.analysis.json_schema import schema_problems
from ctxlint.checks import INTEGER, NUMBER, STRINGS, request_check
from ctxlint.context import CheckContext
from ctxlint.model import Evidence, EvidenceKind, Request, ToolDef
from ctxlint.tokens import ModelInfo


def _tokens(n: int, info: ModelInfo | None) -> str:
    """``812 tokens``, or ``~812 tokens`` for a provider whose tokenizer is not public."""
    return f"{'~' if info is not None and not info.exact else ''}{n:,} tokens"


def _label(tool: ToolDef) -> str:
    name = tool.name or tool.written
    return f"`{name}`" if name else "the unnamed tool"


def _evidence(kind: str, *tools: ToolDef) -> str:
    """``kind``, or ``defined`` when a tool was found by its shape with no call site or server
    seen offering it: that mechanism's findings are measured apart."""
    return kind if all(t.offered for t in tools) else "defined"


def _offered(tool: ToolDef, request: Request, what: str) -> tuple[Evidence, ...]:
    """Evidence: the tool as written, and the request that offers it."""
    offered = (f"offered with {len(request.tools)} tool(s) in one request" if tool.offered else
               "listed by a tool registry, which prompts pick tools from by name" if tool.registered else
               f"defined by its shape, with {len(request.tools)} tool(s); no call offering it is seen")
    steps: tuple[Evidence, ...] = (Evidence(EvidenceKind.SOURCE, f"tool {_label(tool)}: {what}", tool.span),
                                   Evidence(EvidenceKind.SINK, offered, request.anchor, tool.offered))
    if tool.picked_at is not None:
        steps += (Evidence(EvidenceKind.SINK, f"named where a prompt may pick {_label(tool)}", tool.picked_at),)
    return steps


@request_check(options={"max_tokens": INTEGER})
def oversized_tool(request: Request, ctx: CheckContext) -> None:
    """Report each tool whose definition alone costs more than ``max_tokens``."""
    limit = ctx.options["max_tokens"]
    info = ctx.known_model(request) if request.tools else None
    for tool in request.tools:
        if ctx.analysis.tool_cost(tool, info, bound=True).tokens <= limit:
            continue  # UTF-8 bytes bound the tokens: no tokenizer needed
        cost = ctx.analysis.tool_cost(tool, info)
        if cost.tokens <= limit:
            continue
        kind = _evidence("counted", tool)
        if tool.registered:  # measured apart: picked by name somewhere in shipped code, or not seen picked
            kind = "registered" if tool.picked_at is not None else "registered-unpicked"
        if kind in ("defined", "registered") and cost.tokens * 2 <= limit * 3:
            kind += "-near"  # a tool within 1.5x of the limit, with no call seen offering it: measured apart
        ctx.report(
            tool.span,
            f"Tool {_label(tool)} costs {_tokens(cost.tokens, info)} on every call that offers it, over "
            f"the {limit:,}-token limit; its biggest field is `{cost.biggest_field}` "
            f"({_tokens(cost.biggest_field_tokens, info)}). Shorten that field, split the tool, or move "
            "reference material into the tool's result.",
            kind=kind,
            evidence=_offered(tool, request, f"{_tokens(cost.tokens, info)} counted"),
        )


@request_check(options={"max_tokens": INTEGER, "max_window_share": NUMBER})
def tool_budget_exceeded(request: Request, ctx: CheckContext) -> None:
    """Report a request whose tool definitions together exceed a token limit or a window share."""
    if not request.tools:
        return
    limit = ctx.options["max_tokens"]
    share_limit = ctx.options["max_window_share"]
    info = ctx.known_model(request)
    window_limit = int(info.window * share_limit) if info is not None and share_limit > 0 else 0
    limits = [n for n in (limit, window_limit) if n > 0]
    if not limits:
        return
    # Bytes bound the tokens; a catalogue longer than the limit in characters is not settled by them.
    lowest = min(limits)
    if tool_chars(request.tools) <= lowest and tools_tokens(request.tools, info, count=utf8_bytes)[0] <= lowest:
        return
    total, costs = tools_tokens(request.tools, info)
    over = []
    if limit > 0 and total > limit:
        over.append(f"the {limit:,}-token limit")
    if window_limit and info is not None and total > window_limit:
        over.append(f"{share_limit:.0%} of {info.name}'s {info.window:,}-token window ({window_limit:,})")
    if not over:
        return
    top = sorted(costs, key=lambda c: -c.tokens)[:3]
    biggest = ", ".join(f"`{c.name or '(unnamed)'}` {c.tokens:,}" for c in top)
    price = ""
    if info is not None and info.input_per_mtok is not None:
        price = f" (${total * info.input_per_mtok / 1000:,.2f} per 1,000 calls at {info.name}'s input price)"
    what = "The tool definition" if len(request.tools) == 1 else f"The {len(request.tools)} tool definitions"
    if info is not None and info.provider == "anthropic" and info.tool_overhead_auto:
        what += f" and Anthropic's {info.tool_overhead_auto:,}-token tool-use system prompt"
    verb = "costs" if what == "The tool definition" else "cost"
    ctx.report(
        request.anchor,
        f"{what} {verb} {_tokens(total, info)} on every call{price}, over "
        f"{' and '.join(over)}; the largest: {biggest}. Offer only the tools this step needs, or "
        "trim their descriptions and enums.",
        kind=_evidence("counted", *request.tools),
        evidence=tuple(Evidence(EvidenceKind.SOURCE, f"tool {_label(t)}", t.span) for t in request.tools[:20]),
    )


@request_check(options={"max_tools": INTEGER})
def too_many_tools(request: Request, ctx: CheckContext) -> None:
    """Report a request that offers more tools than ``max_tools``."""
    maximum = ctx.options["max_tools"]
    if request.accumulated:
        _accumulated(request, ctx)
    unread = request.unread_tools
    count = len(request.tools) + len(unread)
    if count <= maximum:
        if request.catalogue:
            _uncapped_catalogue(request, ctx)
        return
    kind = _evidence("counted", *request.tools)
    if unread:  # elements of a list written out, counted one tool each: measured apart
        kind = "listed" if kind == "counted" else "listed-defined"
    evidence = tuple(Evidence(EvidenceKind.SOURCE, f"tool {_label(t)}", t.span) for t in request.tools[:20])
    evidence += tuple(Evidence(EvidenceKind.SOURCE, "a tool the list names", span)
                      for span in unread[:20 - len(evidence)])
    of_them = f" ({len(unread)} of them named in a list, counted one each: their definitions were not read)" \
        if unread else ""
    ctx.report(
        request.anchor,
        f"The request offers {count} tools{of_them}, more than {maximum}; with every extra tool the "
        "model picks the wrong one more often, and each definition is paid on every call. Offer the "
        "tools this step needs, group rarely used ones behind a router tool, or load them on demand.",
        kind=kind,
        evidence=evidence,
    )


def _accumulated(request: Request, ctx: CheckContext) -> None:
    """Report, where it is added, a tool added to the list an object keeps on every call."""
    accumulated = request.accumulated
    assert accumulated is not None
    added = accumulated.steps[1]
    ctx.report(
        added.span or request.anchor,
        f"This adds a tool to {accumulated.held_in} on every call and nothing removes it: each request "
        "offers one more copy of it (a duplicate name, which providers reject) and the list grows without bound. "
        "Build the list for the call (`tools = [*self.tools, extra]`), or add the tool once.",
        kind="accumulated",
        evidence=(*accumulated.steps, Evidence(EvidenceKind.SINK, "offered in one request", request.anchor)),
    )


def _uncapped_catalogue(request: Request, ctx: CheckContext) -> None:
    """Report, where its tools are made, a catalogue made of a tool per item of a collection
    nothing caps; said once however many requests (a wrapper's callers) send it."""
    collection, made = request.catalogue[0], request.catalogue[1]
    where = f" (line {collection.span.line})" if collection.span is not None else ""
    what = collection.text.rsplit(": a collection", 1)[0]  # the collection as the source step names it
    steps = request.catalogue
    unsent = not all(step.strong for step in steps)
    if not unsent:
        steps += (Evidence(EvidenceKind.SINK, "offered in one request", request.anchor),)
    ctx.report(
        made.span or request.anchor,
        f"A tool is {'made' if unsent else 'offered'} for every item of {what}{where}, and nothing caps how many "
        "there are: a server or registry that grows to dozens of tools makes the model pick the wrong one more "
        "often and is paid on every call. Offer the tools this step needs (select them by the task, or cap the "
        "list), or load the rest on demand.",
        # a list no call is seen sending (returned, or handed to a wrapper) is measured apart
        kind="uncapped-unsent" if unsent else "uncapped",
        evidence=steps,
    )


@request_check(options={"min_share": NUMBER, "min_tokens": INTEGER, "kinds": STRINGS})
def verbose_tool_field(request: Request, ctx: CheckContext) -> None:
    """Report an enum (or, when configured, a description) that makes up most of a tool's cost."""
    min_share = ctx.options["min_share"]
    min_tokens = ctx.options["min_tokens"]
    kinds = set(ctx.options["kinds"])
    info = ctx.known_model(request) if request.tools else None
    for tool in request.tools:
        if ctx.analysis.tool_cost(tool, info, bound=True).biggest_field_tokens < min_tokens:
            continue  # bytes bound every field's tokens: none can reach min_tokens
        cost = ctx.analysis.tool_cost(tool, info)
        if _field_kind(cost) not in kinds or cost.biggest_field_tokens < min_tokens or cost.tokens <= 0:
            continue
        share = cost.biggest_field_tokens / cost.tokens
        if share < min_share:
            continue
        field = cost.biggest_field
        advice = ("Accept a free string and validate it in the tool, or offer a lookup tool for the values."
                  if field.endswith(".enum") else
                  "Keep what the model needs to choose and call the tool; move examples and background "
                  "into the tool's result or the docs.")
        ctx.report(
            tool.span,
            f"`{field}` of tool {_label(tool)} is {_tokens(cost.biggest_field_tokens, info)}, {share:.0%} of "
            f"the tool's {_tokens(cost.tokens, info)}, paid on every call. {advice}",
            kind=_evidence("counted", tool),
            evidence=_offered(tool, request, f"`{field}` is {share:.0%} of its {_tokens(cost.tokens, info)}"),
        )


def _field_kind(cost: ToolCost) -> str | None:
    """``enum`` or ``description`` for the fields this rule judges; None for any other field."""
    field = cost.biggest_field
    if field.endswith(".enum"):
        return "enum"
    if field == "description" or field.endswith(".description"):
        return "description"
    return None


# --- schema validity ---------------------------------------------------------------------------

_NAME_RULES = {
    # platform.openai.com function calling: ^[a-zA-Z0-9_-]{1,64}$
    "OpenAI": (re.compile(r"[a-zA-Z0-9_-]{1,64}"), "1 to 64 letters, digits, `_` or `-`"),
    # docs.anthropic.com tool use: ^[a-zA-Z0-9_-]{1,64}$
    "Anthropic": (re.compile(r"[a-zA-Z0-9_-]{1,64}"), "1 to 64 letters, digits, `_` or `-`"),
    # MCP schema 2025-11-25, Tool.name
    "MCP": (re.compile(r"[A-Za-z0-9_.-]{1,128}"), "1 to 128 letters, digits, `_`, `-` or `.`"),
    # ai.google.dev function declarations
    "Gemini": (re.compile(r"[a-zA-Z_][a-zA-Z0-9_.-]{0,63}"),
               "a letter or `_`, then up to 63 letters, digits, `_`, `.` or `-`"),
}

# The naming rules of each provider's API (tokens.PROVIDERS), and of the request wire formats.
_PROVIDER_SHAPES = {"openai": "OpenAI", "anthropic": "Anthropic", "google": "Gemini"}
_API_PROVIDERS = {"openai-chat": "openai", "openai-responses": "openai", "anthropic": "anthropic", "gemini": "google"}


def _provider(request: Request, info: ModelInfo | None) -> str | None:
    """Whose API the request reaches: the known model's provider, else what the model's name,
    the request's wire format or the SDK called says; None when nothing says."""
    from ctxlint.tokens import guess_model

    if info is not None:
        return info.provider
    guessed = guess_model(request.model).provider if request.model else None
    return guessed or _API_PROVIDERS.get(request.api or "") or request.provider


def _shapes(tool: ToolDef, provider: str | None) -> tuple[str, ...]:
    """Whose naming rules apply: the tool's own shape, else the request's provider; with neither
    known, every provider's (a name is wrong only when all of them reject it)."""
    raw = tool.raw
    if not isinstance(raw, Mapping) or hosted(tool):
        return ()  # a reference by name (Dotprompt), or a tool the provider runs and defines
    if "inputSchema" in raw:
        return ("MCP",)
    if "input_schema" in raw:
        return ("Anthropic",)
    if provider in _PROVIDER_SHAPES:
        return (_PROVIDER_SHAPES[provider],)
    if "function" in raw or raw.get("type") == "function":
        return ("OpenAI",)  # OpenAI's wire shape, whoever serves it
    return ("OpenAI", "Gemini")  # Anthropic's rule is OpenAI's


@request_check
def invalid_tool_schema(request: Request, ctx: CheckContext) -> None:
    """Report tools the provider rejects: no name, a bad name, duplicates, invalid schemas."""
    provider = None
    if any(isinstance(t.raw, Mapping) and not ({"inputSchema", "input_schema"} & t.raw.keys())
           for t in request.tools):
        provider = _provider(request, ctx.known_model(request))
    seen: dict[str, ToolDef] = {}
    for tool in request.tools:
        shapes = _shapes(tool, provider)
        if not shapes:
            continue
        _check_name(tool, request, shapes, seen, ctx)
        if tool.schema is not None:
            for problem in schema_problems(tool.schema, schema_prefix(tool), gemini="Gemini" in shapes):
                ctx.report(tool.span, f"Tool {_label(tool)}: {problem}", kind=_evidence("schema", tool),
                           evidence=_offered(tool, request, "schema checked against JSON Schema"))


def _check_name(tool: ToolDef, request: Request, shapes: tuple[str, ...], seen: dict[str, ToolDef],
                ctx: CheckContext) -> None:
    """Report a tool with no name, a name no provider of ``shapes`` accepts, or a name already
    in ``seen`` (the names of the request's earlier tools, which this one joins)."""
    who = shapes[0] if len(shapes) == 1 else "the provider"
    if not tool.name:
        ctx.report(tool.span, f"This tool has no name, so the model cannot call it and {who} rejects "
                              "the request. Give it a `name`.", kind=_evidence("no-name", tool),
                   evidence=_offered(tool, request, "no name"))
        return
    if not tool.renamed and not any(_NAME_RULES[shape][0].fullmatch(tool.name) for shape in shapes):
        allowed = _NAME_RULES[shapes[0]][1] if len(shapes) == 1 else "; ".join(
            f"{shape}: {_NAME_RULES[shape][1]}" for shape in shapes)
        what = f"a valid {shapes[0]} tool name" if len(shapes) == 1 else "a valid tool name for any provider"
        ctx.report(tool.span, f"Tool name `{tool.name}` is not {what} ({allowed}); the request is rejected. "
                              f"Rename it, e.g. `{_suggest(tool.name, shapes[0])}`.",
                   kind=_evidence("bad-name", tool), evidence=_offered(tool, request, f"named against {who}'s rules"))
    earlier = seen.setdefault(tool.name, tool)
    if earlier is not tool:
        ctx.report(tool.span, f"Tool `{tool.name}` is defined twice in this request (first at line "
                              f"{earlier.span.line}); providers reject duplicate names, and the model "
                              "cannot tell the two apart. Rename or remove one.",
                   kind=_evidence("duplicate", tool, earlier),
                   evidence=(Evidence(EvidenceKind.SOURCE, f"`{tool.name}` first defined here", earlier.span),
                             *_offered(tool, request, "defined again")))


def _suggest(name: str, shape: str) -> str:
    allowed = r"[^A-Za-z0-9_.-]" if shape == "MCP" else r"[^A-Za-z0-9_-]"
    fixed = re.sub(allowed, "_", name).strip("_") or "tool"
    if shape == "Gemini" and not re.match(r"[A-Za-z_]", fixed):
        fixed = "_" + fixed
    return fixed[: 128 if shape == "MCP" else 64]
