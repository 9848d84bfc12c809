"""Messages: lists of role/content dicts, ``(role, text)`` pairs and framework message objects
(``SystemMessage(content=...)``, ``ChatMessage.from_user(...)``), message content blocks, and
prompt templates (``ChatPromptTemplate.from_messages``, Haystack's Jinja ``PromptBuilder``)
whose fields are slots, filled where the code shows the values."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import replace

from ctxlint.frameworks import Arg, MessageKind, TemplateKind
from ctxlint.frontends.code.pieces import Builder, Piece, in_loop, read_part, unique
from ctxlint.frontends.python.answers import answer_of
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.data_parts import built_part_without_text
from ctxlint.frontends.python.flow import Entry
from ctxlint.frontends.python.knowledge import FIXED_COMMAND
from ctxlint.frontends.python.literals import StrToken, decode_tokens, flatten_union, with_sources
from ctxlint.frontends.python.nodes import enclosing, loop_binding
from ctxlint.frontends.python.project import display_path
from ctxlint.frontends.python.rolehelpers import helper_message
from ctxlint.frontends.python.sources import loop_giving
from ctxlint.frontends.python.strings import filled_fields
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Item
from ctxlint.model import Breakpoint, Role, Slot, Source, SourceKind, Span
from ctxlint.providers import ROLE_NAMES

# Keys that hold a message's text, by API: OpenAI and Anthropic `content`, Gemini `parts`,
# Cohere's v1 chat history `message`.
_CONTENT_KEYS = ("content", "parts", "message")
# A message class the catalogue does not know (a project's own `Message`, `UserMessage`): a
# CamelCase name ending in Message, its role in the name or in a `role=` literal.
_MESSAGE_CLASS = re.compile(r"(?:(User|Human|System|AI|Ai|Assistant|Tool)_?)?Message")
# Methods that keep a message in a conversation or memory that later turns are built from.
_STORES = frozenset({"add", "append", "insert"})


class Variables(dict[str, tuple[ast.expr, Env]]):
    """The values a template's fields take (a name to the expression and env that give it),
    and the syntax of the template they fill."""

    def __init__(self, values: dict[str, tuple[ast.expr, Env]] | None = None, syntax: str = "format") -> None:
        super().__init__(values or {})
        self.syntax = syntax


def role_of(name: str | None) -> Role:
    """A role named in code (`"system"`, `MessageRole.SYSTEM`, `"human"`); the user's by default."""
    if not name:
        return Role.USER
    return ROLE_NAMES.get(name.rsplit(".", 1)[-1].lower(), Role.USER)


# How many names and loops an answer's part is followed back through to the request.
_MAX_ANSWER_STEPS = 4


class Messages(Component):
    # ---- what a request answers ------------------------------------------------------------------

    def model_answer(self, node: ast.expr, env: Env, steps: int = 0, handovers: int = 0) -> Source | None:
        """The request whose answer ``node`` reads (``block.text`` of ``for block in reply.content:``
        after ``reply = client.messages.create(...)``), or the function of the project that gives one
        back (``reviews = critic.review(draft)``): the model's own text, whatever its name says."""
        if steps == 0 and isinstance(node, (ast.Call, ast.Await)):
            # A sink's result is read where it is made; a project function's summary says whether it gives
            # an answer (its returns are not read here while the request it sends is the one being read).
            return answer_of(self, node.value if isinstance(node, ast.Await) else node, env, handovers)
        if steps == 0 and not isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
            return None
        while isinstance(node, (ast.Attribute, ast.Subscript, ast.Await)):
            node = node.value
        if steps > _MAX_ANSWER_STEPS or not self.m.step():
            return None
        if isinstance(node, ast.Call):
            if not self.sinks.is_sink(node, env):
                return answer_of(self, node, env, handovers)
            return Source(SourceKind.MODEL_OUTPUT, f"the answer of `{self.m.short(node.func)}(...)`", self.m.span(node))
        if not isinstance(node, ast.Name):
            return None
        target = self.scopes.unknowable_target(node, env)
        if target is not None:  # an item of a loop over the answer's parts
            loop = loop_giving(target, self.m.parents)
            return None if loop is None else self.model_answer(loop.iter, env, steps + 1, handovers)
        binding = self.scopes.resolve(node, env)
        if binding is None or binding.extras or binding.owner is not None:
            return None
        return self.model_answer(binding.value, binding.env, steps + 1, handovers)

    # ---- message lists ---------------------------------------------------------------------------

    def message_list(self, node: ast.expr, env: Env, builder: Builder, variables: Variables | None = None) -> None:
        items = self.containers.items(node, env)
        if items is None:
            items = [Item(node, env, None, True, self.flow.unordered_source(node, env))]
        for item in items:
            self.message(item, builder, variables)

    def message(self, item: Item, builder: Builder, variables: Variables | None = None) -> None:
        builder.next_message()
        if item.variable:
            piece = self.strings.slot_piece(item.node, item.env, variable=True)
            slot = with_sources(piece.slot, item.sources)
            builder.add([replace(piece, slot=replace(slot, turns=True) if slot else slot)], Role.USER, item.loop)
            return
        first = len(builder.segments)
        self.message_content(item, builder, variables)
        if item.sources:  # the messages come in an order that changes between calls
            builder.segments[first:] = [
                replace(s, slot=with_sources(s.slot, item.sources)) if s.slot else s for s in builder.segments[first:]
            ]

    def message_content(self, item: Item, builder: Builder, variables: Variables | None) -> None:
        node, env = self.scopes.deref(item.node, item.env)
        if isinstance(node, ast.Tuple) and len(node.elts) == 2:  # ("system", "You are ...")
            role = self.flow.literal_str(node.elts[0], env)
            if role is not None:
                self.m.consumed.update((id(item.node), id(node)))
                self.template_text(node.elts[1], env, builder, role_of(role), item.loop, variables)
                return
        if isinstance(node, ast.Call) and self.constructed(node, env, builder, item.loop, variables):
            self.m.consumed.update((id(item.node), id(node)))
            return
        helped = helper_message(self.callees, node, env) if isinstance(node, ast.Call) else None
        if helped is not None:  # `self._user_msg(text)`: the message dict the helper returns
            self.m.consumed.update((id(item.node), id(node)))
            item, node = replace(item, node=helped, env=env), helped
        entries = self.containers.dict_entries(item.node, item.env)
        if entries is None and isinstance(item.node, ast.Name):
            entries = self.loop_item_entries(item.node, item.env)
        if entries is None and isinstance(node, ast.Call) and not node.args \
                and {"role", "content"} <= {k.arg for k in node.keywords}:
            # a typed message dict built by keywords (`ChatCompletionSystemMessageParam(role=..., content=...)`)
            entries = {k.arg: (k.value, env, k) for k in node.keywords if k.arg is not None}
        if entries is None:
            builder.add(self.strings.pieces(item.node, item.env), Role.USER, item.loop)
            return
        self.m.consumed.update((id(item.node), id(node)))
        role = Role.USER
        if "role" in entries:
            role = role_of(self.flow.literal_str(entries["role"][0], entries["role"][1]))
        key = next((k for k in _CONTENT_KEYS if k in entries), None)
        if key is not None:
            value, value_env, _ = entries[key]
            if isinstance(item.node, ast.Dict) and any(v is value for v in item.node.values):
                builder.sent_in = self.m.span(value)  # `"content": prompt` written in the request: the message sent
            self.content(value, value_env, builder, role, item.loop)

    def constructed(self, call: ast.Call, env: Env, builder: Builder, loop: str | None,
                    variables: Variables | None) -> bool:
        """A framework message object or template as one message; False when ``call`` is neither."""
        path = self.calls.path(call.func, env)
        for kind in self.m.catalogue.messages.match(path):
            assert isinstance(kind, MessageKind)
            self.message_object(call, env, kind, builder, loop, variables)
            return True
        for template in self.m.catalogue.templates.match(path):
            assert isinstance(template, TemplateKind)
            self.template(call, env, template, builder, variables, loop)
            return True
        return False

    def message_object(self, call: ast.Call, env: Env, kind: MessageKind, builder: Builder, loop: str | None,
                       variables: Variables | None) -> None:
        role = role_of(kind.role)
        if kind.role_argument is not None:
            entry = self.args.find(kind.role_argument, call, env)
            if entry is not None:
                role = role_of(self.flow.literal_str(entry[0], entry[1]) or self.m.dotted(entry[0]))
        entry = self.args.find(kind.content, call, env)
        if entry is None:
            return
        value, value_env, _ = entry
        if kind.variable:
            name = self.flow.literal_str(value, value_env) or self.m.code(value)
            slot = Slot(name, names=(name,) if name.isidentifier() else (), variable_length=True, turns=True)
            builder.add([Piece(name, self.m.span(value), slot)], Role.USER, loop or name)
            return
        if variables is not None:
            self.template_text(value, value_env, builder, role, loop, variables)
        else:
            self.content(value, value_env, builder, role, loop)

    def loop_item_entries(self, node: ast.Name, env: Env) -> dict[str, Entry] | None:
        """``for result in tool_results: messages.append(result)``, where every item the loop's
        list is given is a message dict of one role (``{"role": "tool", ...}``): the entries of
        that dict, so the item is read as the message it is, not as text of a user message."""
        loop = loop_binding(self.m.parents, node)
        items = (self.containers.items(loop.iter, env) or []) if loop is not None else []
        shapes = [self.containers.dict_entries(i.node, i.env) for i in items if not i.variable]
        if not items or len(shapes) != len(items) or any(s is None or "role" not in s for s in shapes):
            return None
        roles = {self.flow.literal_str(*s["role"][:2]) for s in shapes if s is not None}
        return shapes[0] if len(roles) == 1 and None not in roles else None

    def content(self, node: ast.expr, env: Env, builder: Builder, role: Role, loop: str | None) -> None:
        """A message's content (or Anthropic's ``system``): text, or a list of content blocks."""
        text = self.strings.text(node, env)  # followed once: the same value's pieces are added below
        if text is None and isinstance(node, (ast.List, ast.Tuple, ast.Name, ast.Attribute)):
            blocks = self.containers.items(node, env)
            if blocks and not any(b.variable for b in blocks):
                for block in blocks:
                    self.block(block, builder, role, loop)
                return
        builder.add(text if text is not None else [self.strings.slot_piece(node, env)], role, loop)

    def block(self, item: Item, builder: Builder, role: Role, loop: str | None) -> None:
        entries = self.containers.dict_entries(item.node, item.env)
        if entries is None and built_part_without_text(self.callees, self.scopes, item.node, item.env):
            return
        loop = item.loop or loop
        read_part(item.node, item.env, entries, self.flow.literal_str, self.strings.pieces, self.content,
                  builder, role, loop)
        if entries is not None and "cache_control" in entries:
            node, env, element = entries["cache_control"]
            builder.breakpoints.append(Breakpoint(self.m.span(element), len(builder.segments), self.ttl(node, env)))

    def ttl(self, node: ast.expr, env: Env) -> str | None:
        entries = self.containers.dict_entries(node, env) or {}
        return self.flow.literal_str(entries["ttl"][0], entries["ttl"][1]) if "ttl" in entries else None

    def is_message_dict(self, node: ast.expr, env: Env, roles: tuple[str, ...] = tuple(ROLE_NAMES)) -> bool:
        """``{"role": "user", "content": ...}`` or ``dict(role="user", content=...)``."""
        if not isinstance(node, ast.Dict) and not (isinstance(node, ast.Call) and self.m.qualified(node.func) == "dict"
                                                   and node.keywords):
            return False
        entries = self.containers.dict_entries(node, env)
        if not entries or "role" not in entries or not any(k in entries for k in _CONTENT_KEYS):
            return False
        role = self.flow.literal_str(entries["role"][0], entries["role"][1])
        return role is not None and role.lower() in roles

    def stored_message(self, call: ast.Call, env: Env) -> MessageKind | None:
        """How to read ``call`` as a chat message when it builds one of a class the catalogue does
        not know and keeps it where later turns are built from (``memory.add(Message(content=out,
        role="user"))``, ``history.append(UserMessage(content=out))``); None otherwise. The role
        must be one the code states: in the class name or a ``role=`` literal."""
        named = _MESSAGE_CLASS.fullmatch(last_name(call.func) or "")
        if named is None:
            return None
        keyword = next((k.value for k in call.keywords if k.arg == "content"), None)
        # `Message("system", output)`: the role stated first, the content after it
        first = self.flow.literal_str(call.args[0], env) if keyword is None and len(call.args) == 2 else None
        content = keyword if keyword is not None else call.args[1] if first is not None else None
        if content is None:
            return None
        stored = self.kept(call)
        if not stored and not self.handed_back(call) and not isinstance(self.m.parents.get(id(call)), ast.List):
            return None  # kept, handed back, or listed with others (`msgs = [Message(...), Message(...)]`)
        path = self.calls.path(call.func, env)
        if self.m.catalogue.messages.match(path) or self.m.catalogue.templates.match(path):
            return None  # a framework's own message, read as the catalogue says
        role = first or named.group(1)
        given = next((k.value for k in call.keywords if k.arg == "role"), None)
        if given is not None:
            role = self.flow.literal_str(given, env) or self.m.dotted(given)
        if not role or role.rsplit(".", 1)[-1].lower() not in ROLE_NAMES:
            return None
        if (first is not None or not stored) and not self.tool_output(content, env):
            # A role written first, or a message handed back (`yield Message("system", out)`, a
            # tool's result) or listed: many such classes are not chat messages, so only text a
            # process or a retrieval gave makes it one here.
            return None
        return MessageKind("project", (path,), role=role.rsplit(".", 1)[-1].lower(),
                           content=Arg(keywords=("content",)) if keyword is not None else Arg(position=1))

    def tool_output(self, node: ast.expr, env: Env) -> bool:
        """Whether a part of ``node`` is third-party content known by its call: what a process
        run with a command someone chose printed, a page, a retrieval's documents. Not a process's
        error stream (its own diagnostics: `Failed: {r.stderr}`), nor what a command the code
        writes out whole prints (its sessions, its file tree), nor a file: one a tool reads by a
        path the code does not show is as often the project's own (a skill's instructions in its
        own folder, a setting) as someone else's."""
        found = self.sources.untrusted(node, env)
        return found is not None and found.strong and found.origin not in (FIXED_COMMAND, "file") \
            and not found.detail.endswith(".stderr")

    def replayed_row(self, call: ast.Call, env: Env) -> tuple[MessageKind, Span] | None:
        """How to read ``call`` as a chat message when it builds a stored row of the project's own
        class with a stated role (``AgentExecutionFeed(feed=result, role="system")``), keeps it
        (``session.add(row)``), and a module of the project replays such rows as messages, role
        and all (``{"role": feed.role, "content": feed.feed}``), with the first place that replays
        them; None otherwise."""
        name = last_name(call.func) or ""
        given = next((k.value for k in call.keywords if k.arg == "role"), None)
        project, file = self.m.project, self.m.file
        if given is None or project is None or file is None or not name[:1].isupper():
            return None
        role = self.flow.literal_str(given, env)
        if role is None or role.lower() not in ROLE_NAMES:
            return None
        path = self.calls.path(call.func, env)
        if self.m.catalogue.messages.match(path) or self.m.catalogue.templates.match(path) or not self.kept(call):
            return None  # a framework's own message (`types.Content(role=...)`), read as the catalogue says
        replayed = project.replayed_fields()  # a scan of the project: asked last
        field = next((k.arg for k in call.keywords if k.arg not in (None, "role") and k.arg in replayed), None)
        if field is None:
            return None
        self.m.dependencies.update(display_path(p) for p, _ in replayed[field] if p != file)
        where, line = replayed[field][0]
        replay = Span(self.m.path if where == file else display_path(where), line, 1, line, 1)
        return MessageKind("project", (path,), role=role.lower(), content=Arg(keywords=(field,))), replay

    def kept(self, call: ast.Call) -> bool:
        """Whether ``call``'s value is added to a store: directly (``memory.add(Message(...))``) or
        through the name it is first given (``reply = Message(...)``, then ``history.append(reply)``)."""
        parent = self.m.parents.get(id(call))
        if isinstance(parent, ast.Call):
            return isinstance(parent.func, ast.Attribute) and parent.func.attr in _STORES and call in parent.args
        return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STORES
                   and any(isinstance(a, ast.Name) and a.id == name for a in node.args)
                   for name, node in self.uses_of_name(call))

    def handed_back(self, call: ast.Call) -> bool:
        """Whether ``call``'s value is what its function gives its caller (``yield Message(...)``,
        ``msg = Message(...)`` then ``return msg``): a tool's result, which the caller adds to the
        conversation."""
        if isinstance(self.m.parents.get(id(call)), (ast.Yield, ast.Return)):
            return True
        return any(isinstance(node, (ast.Yield, ast.Return)) and isinstance(node.value, ast.Name)
                   and node.value.id == name for name, node in self.uses_of_name(call))

    def uses_of_name(self, call: ast.Call) -> Iterator[tuple[str, ast.AST]]:
        """The name ``call``'s value is first given (``reply = Message(...)``) with each node of the
        function (or module) that assigns it; nothing when the value is not given a name."""
        parent = self.m.parents.get(id(call))
        target = parent.targets[0] if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
        if parent is None or not isinstance(target, ast.Name):
            return
        body = enclosing(parent, self.m.parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))
        if body is not None:
            yield from ((target.id, node) for node in ast.walk(body))

    def is_message_object(self, node: ast.expr, env: Env) -> bool:
        return isinstance(node, ast.Call) and bool(self.m.catalogue.messages.match(self.calls.path(node.func, env)))

    # ---- templates -------------------------------------------------------------------------------

    def template(self, call: ast.Call, env: Env, kind: TemplateKind, builder: Builder,
                 variables: Variables | None, loop: str | None = None) -> None:
        """The messages of a prompt template, its fields filled from ``variables`` where given."""
        syntax = kind.syntax
        if kind.syntax_argument is not None:
            entry = self.args.find(kind.syntax_argument, call, env)
            written = self.flow.literal_str(entry[0], entry[1]) if entry is not None else None
            syntax = {"jinja2": "jinja", "mustache": "mustache", "f-string": "format"}.get(written or "", syntax)
        if kind.text is not None:
            entry = self.args.find(kind.text, call, env)
            if entry is not None:
                builder.next_message()
                self.template_text(entry[0], entry[1], builder, role_of(kind.role), loop, Variables(variables, syntax))
            return
        assert kind.messages is not None
        entry = self.args.find(kind.messages, call, env)
        if entry is None:
            return
        items = self.containers.items(entry[0], entry[1])
        for item in items or [Item(entry[0], entry[1], None, True)]:
            self.message(item, builder, Variables(variables, syntax))

    def template_text(self, node: ast.expr, env: Env, builder: Builder, role: Role, loop: str | None,
                      variables: Variables | None) -> None:
        """Text that is a template (in the syntax ``variables`` says) when ``variables`` is
        given: its fields are slots. Plain text otherwise."""
        syntax = variables.syntax if variables is not None else "format"
        if variables is None:
            builder.add(self.strings.pieces(node, env), role, loop)
            return
        tokens = self.strings.template_tokens(node, env)
        if tokens is None:
            builder.add(self.strings.pieces(node, env), role, loop)
            return
        pieces: list[Piece] | None
        if syntax == "format":
            # Where code fills the object, found on the first field no variable of the call
            # gives (a search through the module and the project's format sites).
            filled: list = []

            def field(name: str, span: Span) -> Piece:
                head = name.split(".", 1)[0].split("[", 1)[0]
                value = variables.get(head)
                if value is None and not filled:
                    filled.append(filled_fields(self.strings, node, env))
                if value is None and filled[0] is not None:  # filled where code formats the object
                    return filled[0](name, span)
                return self.strings.field_piece(name, head, value[0] if value else None,
                                                value[1] if value else env, span)
            pieces = self.strings.template_fields(tokens, field)
        else:
            pieces = self.engine_template(tokens, syntax, variables)
        if pieces is None:
            pieces = self.strings.pieces(node, env)
        builder.add(in_loop(pieces, loop), role, loop)

    def engine_template(self, tokens: list[StrToken], syntax: str, variables: Variables) -> list[Piece] | None:
        """A Jinja (Haystack, mustache) or Semantic Kernel template written in a string literal:
        its own front-end reads it, located in this file; its slots take the facts of the
        values bound to their names."""
        from ctxlint.frontends import jinja, semantic_kernel

        text, offsets = decode_tokens(tokens)
        end = offsets[-1] + 1 if offsets else 0

        def locate(offset: int) -> tuple[int, int]:
            return self.m.locate(offsets[offset] if offset < len(offsets) else end)

        try:
            if syntax == "sk":
                segments = semantic_kernel.parse_template(text, self.m.path, locate)
            else:
                segments = jinja.parse_template(text, self.m.path, locate, default_role=Role.USER)
        except (jinja.TemplateError, semantic_kernel.TemplateError):
            return None
        pieces = []
        for segment in segments:
            slot = segment.slot
            if slot is not None:
                slot = self.bind(slot, variables)
            pieces.append(Piece(segment.text, segment.span, slot, segment.loop))
        return pieces

    def bind(self, slot: Slot, variables: Variables) -> Slot:
        """A template slot with the facts of the Python values bound to the names it reads."""
        for name in slot.names:
            bound = variables.get(name.split(".", 1)[0].lstrip("$"))
            if bound is None:
                continue
            facts = self.flow.facts(bound[0], bound[1])
            slot = replace(slot, names=unique([*slot.names, *facts.names]), calls=unique([*slot.calls, *facts.calls]),
                           sources=slot.sources + tuple(facts.sources),
                           called_at=(*slot.called_at, *facts.called_at.items()),
                           variable_length=slot.variable_length or facts.variable_length)
        return slot

    def variables(self, entry: Entry | None) -> Variables | None:
        """The names a template is filled with: a dict, or ``dict(...)`` keywords."""
        if entry is None:
            return None
        entries = self.args.members(entry[0], entry[1])  # a dict, or KernelArguments(name=value)
        return None if entries is None else Variables({k: (v[0], v[1]) for k, v in entries.items()})

    def template_of(self, node: ast.expr, env: Env) -> tuple[TemplateKind, ast.Call, Env] | None:
        """The prompt template ``node`` is, or begins with (``prompt | llm``)."""
        found = self.calls.constructor(node, env)
        if found is None:
            resolved = self.scopes.deref(node, env)
            if isinstance(resolved[0], ast.BinOp) and isinstance(resolved[0].op, ast.BitOr):
                first = flatten_union(resolved[0])[0]
                return self.template_of(first, resolved[1])
            return None
        call, call_env = found
        for kind in self.m.catalogue.templates.match(self.calls.path(call.func, call_env)):
            assert isinstance(kind, TemplateKind)
            return kind, call, call_env
        return None
