"""Requests: the calls that send a prompt (call sites) and the prompt text, functions and message
lists that no call site of the module sends."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace

from ctxlint.frontends.python.knowledge import (
    HINTS,
    LIMIT_KEYS,
    REQUEST_KEYS,
    ROLES,
    TEXT_BLOCK_TYPES,
    prompt_name,
    strong_prompt_name,
    system_name,
)
from ctxlint.frontends.python.flow import Entry
from ctxlint.frontends.python.literals import with_sources
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Builder, Env, Item
from ctxlint.model import Breakpoint, OutputLimit, Request, Role, Span, ToolDef


class Sinks(Component):
    def api_of(self, call: ast.Call) -> str | None:
        qualified = self.m.qualified(call.func) or ""
        if qualified in ("litellm.completion", "litellm.acompletion"):
            return "litellm"
        chain = [n for n in self.m.chain(call.func) if n not in ("with_raw_response", "with_streaming_response")]
        if len(chain) < 2:
            return None
        leaf, parent = chain[-1], chain[-2]
        if chain[-3:-1] == ["chat", "completions"] and leaf in ("create", "parse", "stream"):
            return "chat"
        if parent == "ChatCompletion" and leaf in ("create", "acreate"):
            return "chat"
        if parent == "responses" and leaf in ("create", "parse", "stream"):
            return "responses"
        if parent == "messages" and leaf in ("create", "stream") and "threads" not in chain:
            return "anthropic"
        return None

    def call_site_requests(self) -> list[Request]:
        requests = []
        for call, scope in self.m.calls:
            api = self.api_of(call)
            if api is not None:
                request = self.call_request(call, api, Env(scope))
                if request is not None:
                    requests.append(request)
        return requests

    def call_request(self, call: ast.Call, api: str, env: Env) -> Request | None:
        keywords: dict[str, Entry] = {}
        opaque = any(isinstance(a, ast.Starred) for a in call.args)
        if api == "litellm":
            positional = [a for a in call.args if not isinstance(a, ast.Starred)]
            for name, arg in zip(("model", "messages"), positional):
                keywords[name] = (arg, env, arg)
        for keyword in call.keywords:
            if keyword.arg is not None:
                keywords[keyword.arg] = (keyword.value, env, keyword)
        for keyword in call.keywords:
            if keyword.arg is None:
                entries = self.flow.dict_entries(keyword.value, env)
                if entries is None:
                    opaque = True
                else:
                    for key, entry in entries.items():
                        keywords.setdefault(key, entry)
        if not REQUEST_KEYS & set(keywords) and not opaque:
            return None  # `x.messages.create(...)` of something that is not an LLM client
        builder = Builder()
        tools: list[ToolDef] = []
        for key in ("tools", "functions"):
            if key in keywords:
                node, kenv, _ = keywords[key]
                tools.extend(self.tools.tool_list(node, kenv, builder, legacy=key == "functions"))
        if api == "anthropic" and "system" in keywords:
            node, kenv, _ = keywords["system"]
            builder.next_message()
            self.content(node, kenv, builder, Role.SYSTEM, None)
        if api == "responses" and "instructions" in keywords:
            node, kenv, _ = keywords["instructions"]
            builder.next_message()
            builder.add(self.strings.pieces(node, kenv), Role.SYSTEM)
        if "messages" in keywords:
            node, kenv, _ = keywords["messages"]
            self.messages(node, kenv, builder)
        if api == "responses" and "input" in keywords:
            node, kenv, _ = keywords["input"]
            if self.strings.text(node, kenv) is not None:
                builder.next_message()
                builder.add(self.strings.pieces(node, kenv), Role.USER)
            else:
                self.messages(node, kenv, builder)
        model = self.flow.literal_str(keywords["model"][0], keywords["model"][1]) if "model" in keywords else None
        limit = None
        for key in LIMIT_KEYS:
            if key in keywords:
                node, kenv, element = keywords[key]
                ok, value = self.flow.literal(node, kenv)
                value = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
                limit = OutputLimit(key, value, self.m.span(element))
                break
        return Request(
            path=self.m.path,
            anchor=self.m.span(call),
            segments=tuple(builder.segments),
            tools=tuple(tools),
            model=model,
            output_limit=limit,
            declares_settings=not opaque or limit is not None,
            settings_hint=HINTS[api],
            breakpoints=tuple(builder.breakpoints),
        )

    def messages(self, node: ast.expr, env: Env, builder: Builder) -> None:
        items = self.flow.items(node, env)
        if items is None:
            items = [Item(node, env, None, True, self.flow.unordered_source(node, env))]
        for item in items:
            self.message(item, builder)

    def message(self, item: Item, builder: Builder) -> None:
        builder.next_message()
        if item.variable:
            piece = self.strings.slot_piece(item.node, item.env, variable=True)
            builder.add([replace(piece, slot=with_sources(piece.slot, item.sources))], Role.USER, item.loop)
            return
        first = len(builder.segments)
        self.message_content(item, builder)
        if item.sources:  # the messages come in an order that changes between calls
            builder.segments[first:] = [
                replace(s, slot=with_sources(s.slot, item.sources)) if s.slot else s for s in builder.segments[first:]
            ]

    def message_content(self, item: Item, builder: Builder) -> None:
        entries = self.flow.dict_entries(item.node, item.env)
        if entries is None:
            builder.add(self.strings.pieces(item.node, item.env), Role.USER, item.loop)
            return
        target, _ = self.scopes.deref(item.node, item.env)
        self.m.consumed.update((id(item.node), id(target)))
        role = Role.USER
        if "role" in entries:
            name = self.flow.literal_str(entries["role"][0], entries["role"][1])
            role = ROLES.get(name.lower(), Role.USER) if name else Role.USER
        if "content" in entries:
            node, env, _ = entries["content"]
            self.content(node, env, builder, role, item.loop)

    def content(self, node: ast.expr, env: Env, builder: Builder, role: Role, loop: str | None) -> None:
        """A message's content (or Anthropic's ``system``): text, or a list of content blocks."""
        if self.strings.text(node, env) is None and isinstance(node, (ast.List, ast.Tuple, ast.Name, ast.Attribute)):
            blocks = self.flow.items(node, env)
            if blocks and not any(b.variable for b in blocks):
                for block in blocks:
                    self.block(block, builder, role, loop)
                return
        builder.add(self.strings.pieces(node, env), role, loop)

    def block(self, item: Item, builder: Builder, role: Role, loop: str | None) -> None:
        entries = self.flow.dict_entries(item.node, item.env)
        loop = item.loop or loop
        if entries is None:
            builder.add(self.strings.pieces(item.node, item.env), role, loop)
            return
        kind = self.flow.literal_str(entries["type"][0], entries["type"][1]) if "type" in entries else "text"
        if kind in TEXT_BLOCK_TYPES and "text" in entries:
            node, env, _ = entries["text"]
            builder.add(self.strings.pieces(node, env), role, loop)
        elif kind == "tool_result" and "content" in entries:
            node, env, _ = entries["content"]
            self.content(node, env, builder, Role.TOOL, loop)
        if "cache_control" in entries:
            node, env, element = entries["cache_control"]
            builder.breakpoints.append(Breakpoint(self.m.span(element), len(builder.segments), self.ttl(node, env)))

    def ttl(self, node: ast.expr, env: Env) -> str | None:
        entries = self.flow.dict_entries(node, env) or {}
        return self.flow.literal_str(entries["ttl"][0], entries["ttl"][1]) if "ttl" in entries else None

    def standalone_requests(self, used: set[int], context: bool) -> list[Request]:
        """Prompt constants, prompt functions and message lists that no call site of the module
        sends: one request each, unless another one already includes it.

        Without ``context`` (an LLM import, a call site, a tool, a prompt path) only strong
        signs count: message dicts with a role, and names only prompts carry (``SYSTEM_PROMPT``).
        """
        candidates: list[tuple[int, Span, Builder, set[int], bool]] = []
        # Whether the source says which role the text is sent in: message dicts and MCP prompts
        # do, and so does a name such as SYSTEM_PROMPT; a SUMMARY_PROMPT's role is a guess.
        marked: dict[int, bool] = {}

        def add(key: int, anchor: Span, build: Callable[[Builder], None], strong: bool, says_role: bool = True) -> None:
            self.m.consumed = set()
            builder = Builder()
            build(builder)
            if builder.segments:
                candidates.append((key, anchor, builder, self.m.consumed, strong))
                marked[key] = says_role

        for scope in self.m.all_scopes():
            for name, records in scope.assigns.items():
                bases = [i for i, r in enumerate(records) if r.kind == "=" and r.value is not None]
                if not bases or not prompt_name(name):
                    continue
                base = records[bases[-1]]
                pieces = self.strings.assigned_text(name, base, records[bases[-1] + 1 :])
                if pieces and any(p.slot is not None or p.text.strip() for p in pieces):
                    assert base.target is not None
                    add(id(base.value), self.m.span(base.target), lambda b, p=pieces: b.system(p, Role.SYSTEM),
                        strong_prompt_name(name), system_name(name))
        for fn, scope in self.m.functions:
            mcp_prompt = self.m.mcp and any(self.tools.is_decorator(d, "prompt") for d in fn.decorator_list)
            if (mcp_prompt or prompt_name(fn.name)) and scope.returns:
                value = scope.returns[-1]
                pieces = self.strings.text(value, Env(scope))
                role = Role.USER if mcp_prompt else Role.SYSTEM  # an MCP prompt is a user message
                if pieces:
                    add(id(value), self.m.name_span(fn), lambda b, p=pieces, r=role: b.system(p, r),
                        mcp_prompt or strong_prompt_name(fn.name), mcp_prompt or system_name(fn.name))
        for node, scope in self.m.lists:
            env = Env(scope)
            if any(self.is_message_dict(e, env) for e in node.elts if not isinstance(e, ast.Starred)):
                add(id(node), self.m.span(node), lambda b, n=node, e=env: self.messages(n, e, b), True)
        for node, scope in self.m.dicts:
            env = Env(scope)
            if self.is_message_dict(node, env, roles=("system", "developer")):
                add(id(node), self.m.span(node), lambda b, n=node, e=env: self.message(Item(n, e), b), True)
        context = context or any(strong for *_, strong in candidates)
        included: dict[int, int] = {}  # value -> how many other candidates include it
        for key, _, _, consumed, _ in candidates:
            for value in consumed - {key}:
                included[value] = included.get(value, 0) + 1
        requests = []
        for key, anchor, builder, _, _ in candidates:
            if key in used or included.get(key):
                continue
            if not context or not any(s.has_words for s in builder.segments):
                continue
            requests.append(Request(self.m.path, anchor, tuple(builder.segments), breakpoints=tuple(builder.breakpoints),
                                    roles_marked=marked[key]))
        return requests

    def is_message_dict(self, node: ast.expr, env: Env, roles: tuple[str, ...] = tuple(ROLES)) -> bool:
        if not isinstance(node, ast.Dict):
            return False
        entries = self.flow.dict_entries(node, env)
        if not entries or "role" not in entries or "content" not in entries:
            return False
        role = self.flow.literal_str(entries["role"][0], entries["role"][1])
        return role is not None and role.lower() in roles
