"""Prompts no call site of the module sends: prompt constants, prompt functions (every return),
message lists, system messages, agents and templates built with a framework, and DSPy-style
signatures. Each becomes a request of its own, unless another request already includes it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from fnmatch import fnmatchcase
from functools import partial

from ctxlint.frameworks import Holder, Signature, TemplateKind
from ctxlint.frontends.code.assigns import prompt_assignments
from ctxlint.frontends.code.pieces import Builder, Piece
from ctxlint.frontends.python.calls import UNKNOWN, last_name
from ctxlint.frontends.python.envelopes import enveloped, enveloping_call
from ctxlint.frontends.python.knowledge import HUMAN_PROMPTS, prompt_name, strong_prompt_name, system_name
from ctxlint.frontends.python.literals import string_value
from ctxlint.frontends.python.messages import Variables, role_of
from ctxlint.frontends.python.nodes import enclosing
from ctxlint.frontends.python.renders import roles_sending
from ctxlint.frontends.python.tools import mcp_decorator
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Assign, Env, Item, Scope
from ctxlint.model import Request, Role, Span
from ctxlint.providers import ROLE_NAMES


class Standalone(Component):
    def requests(self, used: set[int], context: bool) -> list[Request]:
        """Prompt constants, prompt functions and message lists that no call site of the module
        sends: one request each, unless another one already includes it.

        Without ``context`` (an LLM import, a call site, a tool, a prompt path) only strong
        signs count: message dicts with a role, and names only prompts carry (``SYSTEM_PROMPT``).
        """
        candidates: list[tuple[int, Span, Builder, set[int], bool]] = []
        # Whether the source says which role the text is sent in: message dicts and MCP prompts
        # do, and so does a name such as SYSTEM_PROMPT; a SUMMARY_PROMPT's role is a guess.
        marked: dict[int, bool] = {}
        # Messages of a project's own class kept in a conversation (`memory.add(UserMessage(
        # content=out))`): one whose content is a bare value is still a turn the model reads, though
        # it has no words of its own. (A bare dict is not: a converter of message formats builds
        # many, and a name read in several branches would give it another branch's source.)
        kept: set[int] = set()
        # a stored row -> where the project replays such rows as messages; text added to a system
        # message -> the statement that adds it
        replayed: dict[int, Span] = {}

        # What a call site sends is skipped before its text is read: `add` would drop it.
        def add(key: int, anchor: Span, build: Callable[[Builder], None], strong: bool, says_role: bool = True) -> None:
            if key in used:
                return  # a call site sends it, and with it everything it includes (also in `used`)
            self.m.consumed = set()
            builder = Builder()
            build(builder)
            if builder.segments or builder.tools or builder.unread or builder.accumulated:
                candidates.append((key, anchor, builder, self.m.consumed, strong))
                marked[key] = says_role

        human = self.human_prompts()
        for scope in self.m.all_scopes():
            for name, base, after in prompt_assignments((scope,), prompt_name):
                if id(base.value) in human or id(base.value) in used:
                    continue  # `prompt = f"Delete {n} files? "; input(prompt)`: a question for a person
                if self.only_handed_to_failing_calls(name, scope):
                    continue  # nothing sends it: each call it is given fails before a request is made
                if self.returned_into_other_prompts(name, scope):
                    continue  # a part of the prompts its callers fill with it, sent in their role
                pieces = self.strings.assigned_text(name, base, after)
                if pieces and any(p.slot is not None or p.text.strip() for p in pieces):
                    assert base.target is not None and base.value is not None
                    # The message the code puts it in, where it fills it (`.format`) or right here
                    # (`Message(role="user", content=prompt)`): that role, not the name's guess.
                    sent = self.m.format_roles.get(id(base.value)) or self.sent_here(scope, name)
                    role = role_of(sent[0]) if sent is not None else Role.SYSTEM
                    if sent is not None:
                        replayed[id(base.value)] = sent[1]
                    wrapped = enveloping_call(self.callees, scope, name)
                    if wrapped is not None:  # handed to a project function that escapes it and wraps it in a tag
                        pieces = [enveloped(piece, *wrapped) for piece in pieces]
                    add(id(base.value), self.m.span(base.target), partial(Builder.system, pieces=pieces, role=role),
                        strong_prompt_name(name), sent is not None or system_name(name))
        for fn, scope in self.m.functions:
            mcp_prompt = self.m.mcp and any(mcp_decorator(d, "prompt") for d in fn.decorator_list)
            declared = self.prompt_role(fn, Env(scope.parent or self.m.module_scope))
            if not (mcp_prompt or declared or prompt_name(fn.name)):
                continue
            role = Role.USER if mcp_prompt else role_of(declared) if declared else Role.SYSTEM  # MCP: a user message
            mcp_prompt = mcp_prompt or declared is not None
            for value in scope.returns:  # every return: each is a prompt the function can give
                if id(value) in human or id(value) in used:
                    continue
                pieces = self.strings.text(value, Env(scope))
                if pieces:
                    add(id(value), self.m.name_span(fn), partial(Builder.system, pieces=pieces, role=role),
                        mcp_prompt or strong_prompt_name(fn.name), mcp_prompt or system_name(fn.name))
        builders: set[int] = set()  # the functions that build a message list
        for node, scope in self.m.lists:
            env = Env(scope)
            if self.counted(node):
                continue
            if id(node) not in used and not self.stored_verbatim(node) and any(
                    self.messages.is_message_dict(e, env) or self.messages.is_message_object(e, env)
                    for e in node.elts if not isinstance(e, ast.Starred)):
                builders.add(id(scope))
                add(id(node), self.m.span(node), partial(self.messages.message_list, node, env), True)
        # A message list a function builds and returns, read at the return: with every message
        # added to it on the way (the conversation replayed in a loop, a message added in a
        # branch), in order. It includes the list it starts from and the messages added to it.
        for _, scope in self.m.functions:
            if id(scope) in builders:
                for value in scope.returns:
                    if isinstance(value, ast.Name) and id(value) not in used:
                        add(id(value), self.m.span(value), partial(self.messages.message_list, value, Env(scope)), True)
        for mapping, scope in self.m.dicts:
            env = Env(scope)
            # A system message on its own; any message added to a conversation kept elsewhere
            # (`self.messages.append({"role": "user", "content": page})`).
            roles = ROLE_NAMES if self.added_to_a_list(mapping) else ("system", "developer")
            if id(mapping) not in used and self.messages.is_message_dict(mapping, env, roles=tuple(roles)):
                add(id(mapping), self.m.span(mapping), partial(self.messages.message, Item(mapping, env)), True)
        for scope, record in self.extended_system_messages():
            assert record.target is not None and record.value is not None
            replayed[id(record.value)] = self.m.span(record.target)  # the statement that puts the text there
            add(id(record.value), self.m.span(record.target), partial(self.extended, scope, record), True)
        for call, scope in self.m.calls:
            if not isinstance(call.func, (ast.Name, ast.Attribute)):
                continue
            env = Env(scope)  # a project's own message, or a stored row replayed as one
            kind = None
            if (last_name(call.func) or "").endswith("Message"):
                kind = self.messages.stored_message(call, env)
            elif any(k.arg == "role" for k in call.keywords):
                row = self.messages.replayed_row(call, env)
                if row is not None:
                    kind, replayed[id(call)] = row
            if kind is not None:  # a message of the project's own class kept in a conversation
                kept.add(id(call))
                add(id(call), self.m.span(call),
                    partial(self.messages.message_object, call, env, kind, loop=None, variables=None), True)
        for call, scope, holder in self.m.holder_calls:
            if holder.standalone and not _built_without(call, holder.requires):
                env = Env(scope)
                add(id(call), self.m.span(call), partial(self.holder, call, env, holder), True)
        for cls, scope in self.m.classes:
            env = Env(scope)
            signature = self.signature_of(cls, env)
            if signature is not None:
                add(id(cls), self.m.name_span(cls), partial(self.signature, cls, env, signature), True)
        for call, scope, template in self.m.template_calls:
            env = Env(scope)
            add(id(call), self.m.span(call), partial(self.template, call, env, template), True)
        context = context or any(strong for *_, strong in candidates)
        included: dict[int, int] = {}  # value -> how many other candidates include it
        for key, _, _, consumed, _ in candidates:
            for other in consumed - {key}:
                included[other] = included.get(other, 0) + 1
        requests = []
        for key, anchor, builder, _, _ in candidates:
            if key in used or included.get(key):
                continue
            offers = builder.tools or builder.unread or builder.accumulated
            if not context or not (offers or any(s.has_words for s in builder.segments)
                                   or (key in kept and any(s.slot is not None for s in builder.segments))):
                continue
            requests.append(Request(self.m.path, anchor, tuple(builder.segments), tuple(builder.tools),
                                    breakpoints=tuple(builder.breakpoints), roles_marked=marked[key],
                                    sent_at=replayed.get(key), unread_tools=tuple(builder.unread),
                                    accumulated=builder.accumulated))
        return requests

    def sent_here(self, scope: Scope, name: str) -> tuple[str, Span] | None:
        """The role of the one kind of message the function that assigns ``name`` puts it in."""
        if scope.kind != "function" or not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        roles = roles_sending(scope.node, name)
        if len(roles) != 1:
            return None
        role, message = roles.popitem()
        return role, self.m.span(message)

    def extended_system_messages(self) -> list[tuple[Scope, Assign]]:
        """Where a function adds text to the content of a system message it holds
        (``system["content"] += f"\n\n{context}"``, the message picked from a list by its role or
        built there): the message then goes on, longer, in the list it came from."""
        found = []
        for _, scope in self.m.functions:
            for records in scope.assigns.values():
                found += [(scope, r) for r in records if r.kind == "setitem+=" and isinstance(r.target, ast.Subscript)
                          and string_value(r.target.slice) == "content"]
        return found

    def extended(self, scope: Scope, record: Assign, builder: Builder) -> None:
        """The system message ``record`` adds text to, as it is once added, when its role is
        one the code states."""
        assert isinstance(record.target, ast.Subscript) and isinstance(record.target.value, ast.Name)
        entries = self.containers.entries_at(record.target.value.id, Env(scope), record.end)
        role = self.flow.literal_str(entries["role"][0], entries["role"][1]) if entries and "role" in entries else None
        if entries is None or role not in ("system", "developer") or "content" not in entries:
            return
        value, env, _ = entries["content"]
        builder.next_message()
        self.messages.content(value, env, builder, role_of(role), None)

    def only_handed_to_failing_calls(self, name: str, scope: Scope) -> bool:
        """Whether every read of the prompt ``name`` in its function hands it to a call that fails
        before it sends anything: a request's shape on a client of a library that has no such
        method (``ollama.AsyncClient().messages.create(system=prompt)``)."""
        if not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        reads = [n for n in ast.walk(scope.node) if isinstance(n, ast.Name) and n.id == name
                 and isinstance(n.ctx, ast.Load)]
        for read in reads:
            parent = self.m.parents.get(id(read))
            call = self.m.parents.get(id(parent)) if isinstance(parent, ast.keyword) else parent
            if not (isinstance(call, ast.Call) and call.func is not read
                    and self.on_a_client_without_it(call, Env(scope))):
                return False
        return bool(reads)

    def returned_into_other_prompts(self, name: str, scope: Scope) -> bool:
        """Whether the text a function holds in ``name`` and returns is, at every call of the
        function in the module, a part of another prompt: a value of an f-string or a field that
        ``.format(...)`` fills, directly or through the name the caller holds it in
        (``description = describe(repo)``, then ``FILES_PROMPT.format(description=description)``).
        Its name (``system_prompt_...``) does not say the role it is sent in: the other prompt's does."""
        fn = scope.node
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not any(
                isinstance(v, ast.Name) and v.id == name for v in scope.returns):
            return False
        calls = [call for call, _ in self.m.calls if last_name(call.func) == fn.name]
        return bool(calls) and len(calls) <= _MAX_FRAGMENT_CALLS and all(map(self._into_other_prompt, calls))

    def _into_other_prompt(self, call: ast.Call) -> bool:
        parents = self.m.parents
        parent = parents.get(id(call))
        if isinstance(parent, ast.Await):
            call, parent = parent, parents.get(id(parent))  # type: ignore[assignment]
        if _fills_text(call, parent, parents):
            return True
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name)):
            return False
        held = parent.targets[0].id
        home = enclosing(parent, parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))
        if home is None:
            return False
        reads = [n for n in ast.walk(home) if isinstance(n, ast.Name) and n.id == held and isinstance(n.ctx, ast.Load)]
        return bool(reads) and all(_fills_text(read, parents.get(id(read)), parents) for read in reads)

    def on_a_client_without_it(self, call: ast.Call, env: Env) -> bool:
        """Whether ``call`` has a request's shape (``*.messages.create``) but is made on a client of
        a library the catalogue knows that has no such request (``ollama.AsyncClient()``): it
        raises before anything is sent."""
        if not self.sinks.may_be_sink(call):
            return False
        path = self.calls.path(call.func, env)
        if path.startswith(UNKNOWN) or not self.m.catalogue.from_library(path):
            return False
        if any(True for _ in self.m.catalogue.sink_calls.match(path)) or \
                not any(True for _ in self.m.catalogue.sink_shapes.match(path)):
            return False
        return self.calls.twin(call, env, path) is None

    def holder(self, call: ast.Call, env: Env, holder: Holder, builder: Builder) -> None:
        parts = self.sinks.holder_parts(holder, call, env)
        builder.segments.extend(parts.builder.segments)
        builder.breakpoints.extend(parts.builder.breakpoints)
        builder.tools.extend(parts.tools)
        builder.unread.extend(parts.builder.unread)
        builder.accumulated = builder.accumulated or parts.builder.accumulated

    def template(self, call: ast.Call, env: Env, kind: TemplateKind, builder: Builder) -> None:
        self.messages.template(call, env, kind, builder, Variables())

    def signature_of(self, cls: ast.ClassDef, env: Env) -> Signature | None:
        """The catalogue signature a class defines (a subclass of ``dspy.Signature``)."""
        for signature in self.m.catalogue.signatures:
            for base in cls.bases:
                if any(fnmatchcase(self.calls.path(base, env), pattern) for pattern in signature.bases):
                    return signature
        return None

    def signature(self, cls: ast.ClassDef, env: Env, signature: Signature, builder: Builder) -> None:
        """A signature's instructions: its docstring and the description of each field, which
        the framework writes into the system message."""
        inner = Env(self.m.class_scope(cls) or env.scope)
        pieces = []
        body = cls.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            pieces.extend(self.strings.pieces(body[0].value, inner))
        for statement in body:
            value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
            if not isinstance(value, ast.Call):
                continue
            if not any(fnmatchcase(self.calls.path(value.func, inner), p) for p in signature.fields):
                continue
            entry = self.args.find(signature.description, value, inner)
            if entry is not None:
                pieces.append(Piece("\n", self.m.span(value)))
                pieces.extend(self.strings.pieces(entry[0], entry[1]))
        if pieces:
            builder.system(pieces, Role.SYSTEM)

    def prompt_role(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, env: Env) -> str | None:
        """The role a catalogue decorator gives the function's text (``@agent.system_prompt``)."""
        for decorator in fn.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(target, ast.Attribute) and target.attr in self.m.prompt_decorator_names:
                for role in self.m.catalogue.prompt_decorators.match(self.calls.path(target, env)):
                    return str(role)
        return None

    def stored_verbatim(self, messages: ast.List) -> bool:
        """A message list in a body that turns model inference off (``{"messages": [...],
        "infer": False}``, a memory store's add call): it is kept as written, no model reads it."""
        body = self.m.parents.get(id(messages))
        return isinstance(body, ast.Dict) and any(
            isinstance(k, ast.Constant) and k.value == "infer" and isinstance(v, ast.Constant) and v.value is False
            for k, v in zip(body.keys, body.values, strict=True))

    def added_to_a_list(self, mapping: ast.Dict) -> bool:
        """Whether a dict is appended or inserted into a list (``history.append({...})``)."""
        parent = self.m.parents.get(id(mapping))
        return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) \
            and parent.func.attr in ("append", "insert") and mapping in parent.args

    def counted(self, messages: ast.List) -> bool:
        """Whether a message list is built to count its tokens, not to be sent."""
        parent = self.m.parents.get(id(messages))
        return (isinstance(parent, ast.Call) and any(a is messages for a in parent.args)
                and _COUNTS_TOKENS.fullmatch(last_name(parent.func) or "") is not None)

    def human_prompts(self) -> set[int]:
        """The values the module shows a person at a terminal (``input(prompt)``,
        ``click.confirm(message)``): through names and the module's own functions."""
        found: set[int] = set()
        for call, scope in self.m.calls:
            called = last_name(call.func) or ""
            if called not in _HUMAN_PROMPT_NAMES and self.m.imports.get(called, "").rsplit(".", 1)[-1] \
                    not in _HUMAN_PROMPT_NAMES:
                continue  # the cheap test first: resolving every call's path follows imports
            if (self.m.qualified(call.func) or "") not in HUMAN_PROMPTS and self.calls.path(
                    call.func, Env(scope)) not in HUMAN_PROMPTS:
                continue
            shown = call.args[0] if call.args else next(
                (k.value for k in call.keywords if k.arg in ("prompt", "text", "message")), None)
            if shown is None:
                continue
            env = Env(scope)
            found.add(id(shown))
            binding = self.scopes.resolve(shown, env) if isinstance(shown, (ast.Name, ast.Attribute)) else None
            if binding is not None:
                found.add(id(binding.value))
            target = self.callees.function_for(shown, env) if isinstance(shown, ast.Call) else None
            if target is not None:
                found.update(id(v) for v in target.returns)
        return found


# Calls that count a message list's tokens (`count_message_tokens(messages)`, `num_tokens_from_messages`).
_COUNTS_TOKENS = re.compile(r"(?:count|num|number|get_num)_?\w*_?tokens?|tokens?_?(?:count|len|length)", re.IGNORECASE)


_HUMAN_PROMPT_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in HUMAN_PROMPTS)


# How many calls of a prompt function are read to see that each puts its text into another prompt.
_MAX_FRAGMENT_CALLS = 8


def _fills_text(node: ast.expr, parent: ast.AST | None, parents: dict[int, ast.AST]) -> bool:
    """Whether ``node`` is a value of an f-string or a keyword of ``.format(...)``: a part of
    another text."""
    if isinstance(parent, ast.FormattedValue):
        return True
    call = parents.get(id(parent)) if isinstance(parent, ast.keyword) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "format"


def _built_without(call: ast.Call, requires: tuple[str, ...]) -> bool:
    """Whether ``call`` gives none of the keywords ``requires`` lists, and no ``**values`` that
    could: the object is not built (a required field is missing), so nothing it holds is sent."""
    return bool(requires) and not any(k.arg is None or k.arg in requires for k in call.keywords)
