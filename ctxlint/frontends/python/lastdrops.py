"""An instruction appended last to a conversation that an overflow handler then cuts from its end::

    messages.append(HumanMessage(content="Clean up the findings. DO NOT summarize them."))
    while attempts < 3:
        try:
            return model.invoke([system, *messages])
        except Exception as error:
            if is_token_limit_exceeded(error):
                messages = remove_up_to_last_ai_message(messages)   # keeps messages[:i]
                continue

The handler (found by ``overflows``) keeps the start of the list, so the newest message goes first:
the instruction appended just before the retry loop is dropped on the first overflow, and every
retry runs without it. An instruction appended inside the loop, after the cut, is sent each time
and is not reported; which sentences state a constraint is the rule's to decide (CTX301).
"""

from __future__ import annotations

import ast

from ctxlint.frontends.code.pieces import Piece
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.literals import keyed_fields, string_value
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.overflows import Overflows
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.taskdrops import user_content
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Role, Segment, Source, SourceKind, Span

# Classes of a user message that take its content as their first argument (LangChain's).
_USER_MESSAGES = ("HumanMessage", "HumanMessagePromptTemplate", "UserMessage")


class LastDrops(Component):
    overflows: Overflows

    def observe(self, context: bool) -> list[Observation]:
        if not context or "except" not in self.m.text or ".append(" not in self.m.text:
            return []
        found = []
        for node, scope, fn in self.overflows.cut_sites.scoped_nodes():
            if not isinstance(node, ast.ExceptHandler) or fn is None:
                continue
            env = Env(scope)
            for statement, subject, keeps, where, test in self.overflows.drops(node, env):
                if keeps != "start" or not isinstance(subject, ast.Name):
                    continue
                loop = self.retry_loop(node, fn)
                appended = self.appended_before(fn, subject.id, loop) if loop is not None else None
                if appended is None:
                    continue
                append, content = appended
                segments = tuple(Segment(Role.USER, p.span, p.text, p.slot) for p in self.strings.pieces(content, env))
                # The system prompt each attempt sends, built inside the loop: kept whatever the cut drops.
                segments += tuple(Segment(Role.SYSTEM, p.span, p.text, p.slot) for kept in self.sent_each_try(loop)
                                  for p in self.kept_pieces(kept, env))
                drop = self.m.code(statement)
                steps = [Evidence(EvidenceKind.FLOW, f"`{self.m.code(append)}` adds the instruction last, before the "
                                  "retry loop", self.m.span(append)),
                         Evidence(EvidenceKind.FLOW, f"`{self.m.code(test)}`: the call overflowed the model's "
                                  "window, and is retried with less", self.m.span(test))]
                written = self.written_at(content, env)
                if written is not None:
                    steps.append(Evidence(EvidenceKind.FLOW, f"the instruction is `{self.m.code(content)}`, written "
                                          f"at {written.path}:{written.line}", written))
                if where is not None:
                    steps.append(Evidence(EvidenceKind.FLOW, f"it keeps the start of the list "
                                          f"({where.path}:{where.line})", where))
                source = Source(SourceKind.TRUNCATION, drop, self.m.span(statement), content=segments,
                                cut=Cut("items", "start", "appended-last-dropped"), flow=tuple(steps))
                detail = (f"is in the message appended last to `{subject.id}` (line {append.lineno}), and `{drop}` "
                          "keeps the start of the list when the call overflows the model's window, so the newest "
                          "message goes first and every retry runs without the instruction. Add the instruction "
                          "inside the retry loop, after the cut, or put it in the system prompt")
                found.append(Observation("appended-last-dropped", self.m.span(append), detail, source=source))
        return found

    def written_at(self, content: ast.expr, env: Env) -> Span | None:
        """Where a name's text is written when another module of the project holds it (a prompt
        constant imported from a prompts module)."""
        if not isinstance(content, ast.Name):
            return None
        binding = self.scopes.resolve(content, env, foreign=True)
        if binding is None or binding.owner is None:
            return None
        return binding.owner.unit.span(binding.value)

    def sent_each_try(self, loop: ast.While | ast.For | None) -> list[ast.expr]:
        """The content of each system message the retry loop builds (``SystemMessage(content=prompt)``,
        ``{"role": "system", "content": prompt}``): sent again on every attempt, after any cut."""
        if loop is None:
            return []
        found = []
        for node in ast.walk(loop):
            if isinstance(node, ast.Call) and (last_name(node.func) or "") == "SystemMessage":
                first = node.args[0] if node.args else None
                content = next((k.value for k in node.keywords if k.arg == "content"), first)
                if content is not None:
                    found.append(content)
            elif isinstance(node, ast.Dict) and (content := system_content(node)) is not None:
                found.append(content)
        return found

    def kept_pieces(self, node: ast.expr, env: Env) -> list[Piece]:
        """The text of ``node``, through the name it is kept in (``prompt = TEMPLATE.format(...)``)."""
        binding = self.scopes.resolve(node, env) if isinstance(node, ast.Name) else None
        if binding is not None and binding.owner is None and not binding.extras:
            node, env = binding.value, binding.env
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
            node = node.func.value  # the template's own words are what each attempt states
        return self.strings.pieces(node, env)

    def retry_loop(self, handler: ast.ExceptHandler, fn: FunctionNode) -> ast.While | ast.For | None:
        """The loop of ``fn`` the handler's ``try`` is in: the call is retried."""
        node: ast.AST | None = self.m.parents.get(id(handler))
        while node is not None and node is not fn:
            if isinstance(node, (ast.While, ast.For)):
                return node
            node = self.m.parents.get(id(node))
        return None

    def appended_before(self, fn: FunctionNode, name: str,
                        loop: ast.While | ast.For) -> tuple[ast.Call, ast.expr] | None:
        """The last ``name.append(<user message>)`` of ``fn`` before ``loop``, outside it, with the
        message's content; None when ``name`` is added to or given a new value between it and the loop."""
        last: tuple[ast.Call, ast.expr] | None = None
        statements = sorted((n for n in own_nodes(fn) if isinstance(n, ast.stmt)),
                            key=lambda n: (n.lineno, n.col_offset))
        for node in statements:
            if node.lineno >= loop.lineno:
                break
            added = _added_to(node, name)
            if added is not None:
                call, how = added
                content = _user_text(call.args[0]) if call.args and how == "append" else None
                last = (call, content) if content is not None else None
            elif isinstance(node, (ast.Assign, ast.AugAssign)) and last is not None and any(
                    isinstance(t, ast.Name) and t.id == name
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
                last = None
        return last


def _added_to(statement: ast.stmt, name: str) -> tuple[ast.Call, str] | None:
    """``name.append(...)`` (or ``extend``, ``insert``): the call and the method."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert") \
            and isinstance(func.value, ast.Name) and func.value.id == name:
        return call, func.attr
    return None


def _user_text(message: ast.expr) -> ast.expr | None:
    """The content of a user message: ``HumanMessage(content=...)``, ``HumanMessage("...")``, or
    what ``taskdrops.user_content`` reads (``{"role": "user", "content": ...}``)."""
    if isinstance(message, ast.Call):
        if (last_name(message.func) or "") in _USER_MESSAGES:
            keyword = next((k.value for k in message.keywords if k.arg == "content"), None)
            return keyword if keyword is not None else message.args[0] if message.args else None
    return user_content(message)


def system_content(message: ast.Dict) -> ast.expr | None:
    """The content of ``{"role": "system", "content": ...}``."""
    keyed = keyed_fields(message)
    return keyed.get("content") if string_value(keyed.get("role")) in ("system", "developer") else None
