"""Messages: lists of role/content objects, content blocks (text, tool results, cache breakpoints),
the catalogue's message classes and LangChain.js prompt templates, whose ``{name}`` fields are slots."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ctxlint.frameworks.typescript import TsMessage
from ctxlint.frontends import placeholders
from ctxlint.frontends.code.pieces import Piece, read_part
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.slots import Slots
from ctxlint.frontends.typescript.strings import Strings
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, Item, RequestBuilder
from ctxlint.model import Breakpoint, Request, Role, Slot
from ctxlint.providers import ROLE_NAMES, part_text


@dataclass(eq=False)
class Messages:
    """Builds the messages of a request from what the values below read."""

    m: Module
    names: Names
    strings: Strings
    slots: Slots

    def messages(self, node: Node, env: Env, builder: RequestBuilder) -> None:
        items = self.names.items(node, env)
        if items is None:
            items = [Item(node, env, None, True)]
        for item in items:
            self.message(item, builder)

    def message(self, item: Item, builder: RequestBuilder) -> None:
        builder.next_message()
        if item.variable:
            builder.add([turns(self.slots.slot_piece(item.node, item.env, variable=True))], Role.USER, item.loop)
            return
        node, env = self.names.deref(item.node, item.env)
        if node.type == "ternary_expression":  # `cond ? toolMessage : userMessage`: either one
            for key in ("consequence", "alternative"):
                branch = self.m.field(node, key)
                if branch is not None:
                    self.message(Item(branch, env, item.loop), builder)
            return
        if node.type == "array":  # LangChain's ["system", "text"] tuples
            parts = [c for c in node.named_children if c.type != "comment"]
            role_name = self.strings.literal_str(parts[0], env) if len(parts) == 2 else None
            if role_name is not None:
                self.langchain_text(parts[1], env, builder, ROLE_NAMES.get(role_name.lower(), Role.USER), item.loop)
                return
        if node.type in ("new_expression", "call_expression"):
            kind = self.message_class(node)
            if kind is not None and kind.role is not None:
                args = self.m.args(node)
                if args:
                    value = args[0]
                    entries = self.names.entries(value, env)
                    if entries is not None and "content" in entries:
                        value, env = entries["content"][0], entries["content"][1]
                    maker = self.m.unwrap(self.m.field(node, "function") or self.m.field(node, "constructor"))
                    if kind.template is not None and (self.m.dotted(maker) or "").endswith("." + kind.template):
                        self.langchain_text(value, env, builder, ROLE_NAMES[kind.role], item.loop)
                    else:
                        self.content(value, env, builder, ROLE_NAMES[kind.role], item.loop)
                return
            if any(name in self.m.code(node)[:40] for name in self.m.ts.variable_messages):
                builder.add([turns(self.slots.slot_piece(node, env, variable=True))], Role.USER, item.loop)
                return
        entries = self.names.entries(node, env)
        if entries is None:
            builder.add(self.strings.pieces(item.node, item.env), Role.USER, item.loop)
            return
        self.m.consumed.update((item.node.id, node.id))
        role = Role.USER
        if "role" in entries:
            name = self.role_name(entries["role"][0], entries["role"][1])
            role = ROLE_NAMES.get(name.lower(), Role.USER) if name else Role.USER
            if not name and "tool_call_id" in entries:  # a tool's result answering a call, whatever holds its role
                role = Role.TOOL
        if "content" in entries:
            value, venv, _ = entries["content"]
            builder.sent_in = self.m.span(value)  # `content: writerPrompt`: the text it sends, written here
            self.content(value, venv, builder, role, item.loop)

    def role_name(self, node: Node, env: Env) -> str | None:
        """The role a message's ``role`` value names; of a choice between two (``o1 ? "user" :
        "system"``), the one with more authority, which the message has on one path."""
        name = self.strings.literal_str(node, env)
        node, env = self.names.deref(node, env)
        if name is not None or node.type != "ternary_expression":
            return name
        named = {}
        for key in ("consequence", "alternative"):
            branch = self.m.field(node, key)
            text = self.strings.literal_str(branch, env) if branch is not None else None
            role = ROLE_NAMES.get(text.lower()) if text is not None else None
            if text is None or role is None:
                return None  # a branch that names no role: the message's role is not known
            named[role] = text
        return next((named[r] for r in (Role.SYSTEM, Role.DEVELOPER) if r in named), None)

    def message_class(self, node: Node) -> TsMessage | None:
        """The message class ``node`` makes (``new SystemMessage(...)``, ``SystemMessagePromptTemplate
        .fromTemplate(...)``), by its name."""
        callee = self.m.field(node, "constructor") if node.type == "new_expression" else self.m.field(node, "function")
        if callee is None:
            return None
        dotted = self.m.dotted(self.m.unwrap(callee)) or ""
        head, _, last = dotted.rpartition(".")
        name = dotted.split(".")[0] if head and last in self.m.ts.template_methods else last
        return self.m.ts.messages.get(name)

    def content(self, node: Node, env: Env, builder: RequestBuilder, role: Role, loop: str | None) -> None:
        found = self.strings.text(node, env)  # read once: reading it again would repeat every lookup
        if found is None:
            blocks = self.names.items(node, env)
            if blocks and not any(b.variable for b in blocks):
                for block in blocks:
                    self.block(block, builder, role, loop)
                return
        builder.add(self.strings.or_slot(found, node, env), role, loop)

    def block(self, item: Item, builder: RequestBuilder, role: Role, loop: str | None) -> None:
        if self.makes_bare_parts(item.node, item.env):
            return
        entries = self.names.entries(item.node, item.env)
        loop = item.loop or loop
        read_part(item.node, item.env, entries, self.strings.literal_str, self.strings.pieces, self.content,
                  builder, role, loop)
        if entries is None:
            return
        for key in ("cache_control", "providerOptions"):
            if key in entries:
                _, _, pair = entries[key]
                if key == "cache_control" or "cacheControl" in self.m.code(pair):
                    builder.breakpoints.append(Breakpoint(self.m.span(pair), len(builder.segments), None))

    def makes_bare_parts(self, node: Node, env: Env) -> bool:
        """Whether ``node`` calls a function of the project (this module's, or one a relative import
        names) whose every return is a content part that holds no text, its type written in place
        (`return { type: "image_url", image_url: { url } }`): an upload turned into an image or a
        sound adds no text to the prompt, so nothing in it reads as instructions."""
        if node.type != "call_expression":
            return False
        found = self.names.project_function(node, env.scope)
        if found is None or not found[1].scope.returns:
            return False
        module = found[0].m if found[0] is not None else self.m
        for value in found[1].scope.returns:
            value = module.unwrap(value)
            if value.type != "object":
                return False
            keys = {module.key_text(module.field(pair, "key")): module.field(pair, "value")
                    for pair in value.named_children if pair.type == "pair"}
            kind = keys.get("type")
            written = module.string_value(kind) if kind is not None else None
            if written is None or part_text(written, [k for k in keys if k is not None]) is not None:
                return False
        return True

    def langchain_text(self, node: Node, env: Env, builder: RequestBuilder, role: Role, loop: str | None) -> None:
        """A LangChain template string: ``{name}`` fields are slots filled when the template runs."""
        node, env = self.names.deref(node, env)
        pieces = self.strings.text(node, env)
        if pieces is None:
            builder.add(self.strings.pieces(node, env), role, loop)
            return
        out: list[Piece] = []
        for piece in pieces:
            fields = placeholders.format_fields(piece.text) if piece.slot is None else None
            if not fields:
                out.append(piece if fields is None or piece.slot is not None else
                           replace(piece, text=piece.text.replace("{{", "{").replace("}}", "}")))
                continue
            cursor = 0
            for start, end, name in fields:
                if start > cursor:
                    out.append(Piece(piece.text[cursor:start].replace("{{", "{").replace("}}", "}"), piece.span))
                out.append(Piece(name, piece.span, Slot(name, names=(name,) if name.isidentifier() else ())))
                cursor = end
            if cursor < len(piece.text):
                out.append(Piece(piece.text[cursor:].replace("{{", "{").replace("}}", "}"), piece.span))
        builder.add(out, role, loop)

    def langchain_requests(self) -> list[Request]:
        requests = []
        for call, scope in self.m.calls:
            if call.type != "call_expression":
                continue
            dotted = self.m.dotted(self.m.unwrap(self.m.field(call, "function"))) or ""
            args = self.m.args(call)
            if not args:
                continue
            env = Env(scope)
            builder = RequestBuilder()
            template = self.m.ts.template(dotted)
            if template is None:
                continue
            if template.messages:
                self.messages(args[0], env, builder)
            else:
                builder.next_message()
                self.langchain_text(args[0], env, builder, Role.USER, None)
            self.m.consumed.add(args[0].id)
            if builder.segments:
                requests.append(Request(self.m.path, self.m.span(call), tuple(builder.segments),
                                        roles_marked=template.messages))
        return requests

    def is_message_object(self, node: Node, env: Env) -> bool:
        """Whether ``node`` is a role/content object, written in place or held by a name
        (``const prompt = { role: "system", content }; return [prompt, ...history]``)."""
        if node.type == "identifier":
            node, env = self.names.deref(node, env)
        if node.type != "object":
            return False
        pairs = self.m.raw_pairs(node)
        if "role" not in pairs or "content" not in pairs:
            return False
        role = self.m.string_value(pairs["role"])
        return role is not None and role.lower() in ROLE_NAMES


def turns(piece: Piece) -> Piece:
    """A slot that stands for a run of messages, not for text inside one."""
    return replace(piece, slot=replace(piece.slot, turns=True)) if piece.slot is not None else piece
