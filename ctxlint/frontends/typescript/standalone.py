"""Prompts that reach no call site: constants and functions' values with a prompt's name, and arrays
of role/content objects, each a request of its own (a prompt module is checked too)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ctxlint.frontends.code.assigns import prompt_assignments
from ctxlint.frontends.code.pieces import Piece
from ctxlint.frontends.typescript.importers import sent_by_importer
from ctxlint.frontends.typescript.knowledge import Node, prompt_name, strong_prompt_name, system_name
from ctxlint.frontends.typescript.messages import Messages
from ctxlint.frontends.typescript.strings import Strings
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, RequestBuilder, evaluated_once
from ctxlint.model import Request, Role, Span


@dataclass(eq=False)
class Standalone:
    """Builds the requests of prompts no call site sends."""

    m: Module
    strings: Strings
    messages: Messages

    def standalone_requests(self, used: set[int], context: bool) -> list[Request]:
        candidates: list[tuple[int, Span, RequestBuilder, set[int], bool, bool]] = []
        entries: set[int] = set()  # the entries of tables of prompts

        def add(key: int, anchor: Span, build, strong: bool, says_role: bool) -> None:
            self.m.consumed = set()
            builder = RequestBuilder()
            build(builder)
            if builder.segments:
                candidates.append((key, anchor, builder, self.m.consumed, strong, says_role))

        for name, base, extras in prompt_assignments(self.m.all_scopes(), prompt_name):
            if base.value is None or base.value.id in used:
                continue
            env = Env(base.scope)
            value = self.m.unwrap(base.value)
            if value is not None and value.type == "object" and not extras:
                # A table of prompts (`const systemPrompts = { web: `...`, x: `...` }`) that a call
                # site reads by a key it is given (`systemPrompts[group]`): which entry is sent is
                # not known, so each entry is a prompt of its own.
                for entry, text in self._entries(value, env, base.scope.kind == "module"):
                    entries.add(entry.id)
                    add(entry.id, self.m.span(self.m.field(entry.parent, "key") or entry),
                        lambda b, p=text: b.system(p, Role.SYSTEM), strong_prompt_name(name), system_name(name))
                continue
            pieces = self.strings.text(base.value, env)
            if pieces is None:
                continue
            if any(e.kind != "+=" for e in extras):
                continue
            for extra in extras:
                if extra.value is not None:
                    pieces = pieces + self.strings.pieces(extra.value, env)
            if any(p.slot is not None or p.text.strip() for p in pieces):
                role = Role.SYSTEM
                add(base.value.id, self.m.span(base.target), lambda b, p=pieces, r=role: b.system(p, r),
                    strong_prompt_name(name), system_name(name))
        for node, scope in self.m.arrays:
            if node.id in used:
                continue
            env = Env(scope)
            if any(self.messages.is_message_object(e, env) for e in node.named_children):
                add(node.id, self.m.span(node), lambda b, n=node, e=env: self.messages.messages(n, e, b), True, True)
        context = context or any(c[4] for c in candidates)
        # The call sites that import a module's prompts read them, but not an entry of a table that one
        # picks by a key: in a module that calls no model, a table's entries are prompts when a module
        # that does imports what this one exports (a request of their own for the other prompts would
        # say again what the importer's request says).
        imported = not context and bool(entries) and sent_by_importer(self.m)
        # A candidate that another one reads (a constant inside a longer prompt) is part of that one.
        inside_another = _read_by_another((key, consumed) for key, _, _, consumed, _, _ in candidates)
        requests = []
        for key, anchor, builder, _, _, says_role in candidates:
            if key in used or key in inside_another:
                continue
            if not (context or imported and key in entries) or not any(s.has_words for s in builder.segments):
                continue
            requests.append(Request(self.m.path, anchor, tuple(builder.segments),
                                    breakpoints=tuple(builder.breakpoints), roles_marked=says_role))
        return requests


    def _entries(self, table: Node, env: Env, at_load: bool) -> Iterator[tuple[Node, list[Piece]]]:
        """The entries of an object of prompts whose value is text: a string, or a template (built
        once, when the module loads, for a table ``at_load``)."""
        for pair in table.named_children:
            if pair.type != "pair":
                continue
            value = self.m.unwrap(self.m.field(pair, "value"))
            if value is None or value.type not in ("string", "template_string"):
                continue
            pieces = self.strings.text(value, env)
            if pieces:
                yield value, [evaluated_once(p) for p in pieces] if at_load else pieces


def _read_by_another(candidates: Iterable[tuple[int, Iterable[int]]]) -> set[int]:
    """The nodes some candidate other than their own reads, in one pass over what each one read."""
    found: set[int] = set()
    for key, consumed in candidates:
        found.update(node for node in consumed if node != key)
    return found
