"""A prompt handed to a project's chat class that makes it the last message of its conversation
and then cuts that message to its first characters when the conversation is over its budget::

    class Chatbot:
        def ask(self, prompt):
            self.conversation.append({"role": "user", "content": prompt})
            self._fit_last_turn()                      # query = last["content"]; query[:n]
            ...

    bot.ask(prompt=TASK)                               # TASK's rules at its end

The cut keeps the start of the newest message, so the instructions written at the end of the
prompt are the ones it drops. Read per class: a method that cuts the content of ``self.<list>[-1]``
keeping its start (the cutter), and a method that appends its parameter as a message's content to
the same list (directly, through a method that does, or by handing it to one that does) and then
calls the cutter. Each call of such a method, in any module, with a prompt whose text the code
shows is an observation; which sentences of what the cut drops state a constraint is the rule's
to decide (CTX301).
"""

from __future__ import annotations

import ast
from functools import cached_property

from ctxlint.frontends.python.labels import message_content
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Role, Segment, Source, SourceKind, Span

KIND = "last-turn-cut"
# How many methods a prompt is followed through before it reaches the list (`ask` -> `ask_stream`).
_MAX_HANDS = 4
# A prompt shorter than this holds no instructions worth a cut.
_LEAST_PROMPT = 200


class LastTurnCuts(Component):
    def __init__(self, unit: Unit) -> None:
        super().__init__(unit)
        self._cutters: dict[int, tuple[str, Span, int | None] | None] = {}
        self._senders: dict[tuple[int, str], tuple[str, Span, int | None] | None] = {}
        # Facts of a class and of a function's own calls, asked again for each method a prompt is handed
        # through: found once (on the largest modules, rebuilding them was most of this part's time).
        self._methods: dict[int, dict[str, FunctionNode]] = {}
        self._cutting: dict[int, bool] = {}
        self._calls: dict[int, list[ast.Call]] = {}

    @cached_property
    def _may_cut(self) -> bool:
        """Whether the module's text could hold a cutter (searched once: a module is asked for each call)."""
        return "[-1]" in self.m.text and "content" in self.m.text

    def observe(self) -> list[Observation]:
        """Each call of a project method that sends its prompt as the last message of a conversation
        it cuts to its first characters, given a prompt the code writes."""
        if "(" not in self.m.text:
            return []
        found = []
        for node, scope, _ in self.cut_sites.scoped_nodes():
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or not (
                    node.args or node.keywords):
                continue
            env = Env(scope)
            target = self.callees.function_for(node, env, foreign=True, returns=False)
            if target is None:
                continue
            reader = target.owner.last_turn_cuts if target.owner is not None else self
            for arg in (*node.args, *(k.value for k in node.keywords)):
                param = next((b.param for b in target.env.bindings if b.node is arg), None)
                cut = reader.sent_then_cut(target.fn, param, 0) if param else None
                # the prompt's text last: reading it is the costly part
                pieces = self.strings.text(arg, env) if cut is not None else None
                if cut is None or not pieces or sum(len(p.text) for p in pieces if p.slot is None) < _LEAST_PROMPT:
                    continue
                name, where, kept = cut
                source = Source(SourceKind.TRUNCATION, self.m.code(node.func), self.m.span(node), kept=kept,
                                content=tuple(Segment(Role.USER, p.span, p.text, p.slot) for p in pieces),
                                cut=Cut("characters", "start", KIND),
                                flow=(Evidence(EvidenceKind.FLOW, f"`{target.fn.name}` adds `{param}` as the last "
                                               f"message of `{name}` and cuts it", where),))
                keeps = f"its first {kept:,} characters" if kept is not None else "its first characters"
                detail = (f"is in the prompt given to `{target.fn.name}` as `{param}`, which becomes the last message "
                          f"of `{name}`, and that message is cut to {keeps} when the conversation is over its budget "
                          f"({where.path}:{where.line}): the instructions at its end go first. Put them in the system "
                          "prompt, or cut the material before them instead")
                found.append(Observation(KIND, self.m.span(node), detail, source=source))
                break
        return found

    def sent_then_cut(self, fn: FunctionNode, param: str, hands: int) -> tuple[str, Span, int | None] | None:
        """Whether ``fn`` adds its parameter ``param`` as the content of the last message of a list
        of ``self`` and then calls a method of the class that cuts that message keeping its start:
        the list's name, where it is cut, and the characters kept when the code says."""
        if not self._may_cut:
            return None  # no module of a cutter
        if hands == 0:  # asked for each call of the method: answered once
            key = (id(fn), param)
            if key not in self._senders:
                self._senders[key] = self.sent_then_cut(fn, param, 1)
            return self._senders[key]
        methods = self.methods_of(fn)
        if not methods or hands > _MAX_HANDS or not self._has_cutter(methods):
            return None
        added: str | None = None
        calls = self._calls.get(id(fn))
        if calls is None:
            calls = self._calls[id(fn)] = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Call)),
                                                 key=lambda n: (n.lineno, n.col_offset))
        for node in calls:
            func = node.func
            if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
                if added is None:
                    added = _appended_content(node, param)
                continue
            method = methods.get(func.attr)
            if method is None:
                continue
            given = _given(node, method, param)
            if added is None and given is not None:
                handed = self.sent_then_cut(method, given, hands + 1)
                if handed is not None:
                    return handed
                added = self.appends_param(method, given)
            elif added is not None:
                cutter = self.cutter(method)
                if cutter is not None and cutter[0] == added:
                    return cutter
        return None

    def _has_cutter(self, methods: dict[str, FunctionNode]) -> bool:
        """Whether a method of the class (its methods as ``methods_of`` keeps them) is a cutter."""
        known = self._cutting.get(id(methods))
        if known is None:
            known = self._cutting[id(methods)] = any(self.cutter(m) for m in methods.values())
        return known

    def appends_param(self, fn: FunctionNode, param: str) -> str | None:
        """The ``self.`` list ``fn`` appends ``{"content": param, ...}`` to."""
        return next((name for n in ast.walk(fn) if isinstance(n, ast.Call)
                     and (name := _appended_content(n, param)) is not None), None)

    def cutter(self, fn: FunctionNode) -> tuple[str, Span, int | None] | None:
        """``last = self.<list>[...][-1]`` then a cut of ``last["content"]`` (or of a name given it)
        that keeps its start, written back (``last["content"] = query``)."""
        if id(fn) not in self._cutters:
            self._cutters[id(fn)] = self.find_cutter(fn)
        return self._cutters[id(fn)]

    def find_cutter(self, fn: FunctionNode) -> tuple[str, Span, int | None] | None:
        if not any(isinstance(n, ast.Subscript) and _last_of_self(n) for n in ast.walk(fn)):
            return None
        last = next(((t.id, name) for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
                     and isinstance(t := n.targets[0], ast.Name) and (name := _last_of_self(n.value)) is not None),
                    None)
        if last is None:
            return None
        holder, listed = last
        texts = {holder} | {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
                            and isinstance(t := n.targets[0], ast.Name) and _reads_content_of(n.value, holder)}
        if not any(isinstance(n, ast.Assign) and any(message_content(t) and _named(t, holder) for t in n.targets)
                   for n in ast.walk(fn)):
            return None  # the cut text is not written back into the message
        env = Env(self.reach.scope_of(fn))
        cuts = [(self.m.span(n), source.kept) for n in ast.walk(fn) if isinstance(n, ast.Subscript)
                and isinstance(n.value, ast.Name) and n.value.id in texts - {holder}
                and (source := self.cuts.source(n, env)) is not None and source.cut is not None
                and source.cut.keeps == "start"]
        if not cuts:
            return None
        known = [c for c in cuts if c[1] is not None]
        return (listed, *min(known, key=lambda c: c[1] or 0)) if known else (listed, *cuts[0])

    def methods_of(self, fn: FunctionNode) -> dict[str, FunctionNode]:
        """The methods of the class ``fn`` is a method of, by name; empty for a function."""
        owner = self.m.parents.get(id(fn))
        if not isinstance(owner, ast.ClassDef):
            return {}
        methods = self._methods.get(id(owner))
        if methods is None:
            methods = self._methods[id(owner)] = {s.name: s for s in owner.body
                                                  if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return methods


def _given(call: ast.Call, method: FunctionNode, param: str) -> str | None:
    """The parameter of ``method`` that ``call`` (``self.method(...)``) gives the name ``param``."""
    names = [a.arg for a in method.args.args[1:]]
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == param and position < len(names):
            return names[position]
    return next((k.arg for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id == param), None)


def _appended_content(call: ast.Call, param: str) -> str | None:
    """``self.<list>[...].append({"role": ..., "content": param})``: the list's name."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "append" and len(call.args) == 1
            and isinstance(message := call.args[0], ast.Dict)):
        return None
    keys = [k.value if isinstance(k, ast.Constant) else None for k in message.keys]
    if "content" not in keys or "role" not in keys:
        return None
    content = message.values[keys.index("content")]
    if not (isinstance(content, ast.Name) and content.id == param):
        return None
    return _self_list(func.value)


def _self_list(node: ast.expr) -> str | None:
    """``self.conversation`` or ``self.conversation[convo_id]``: the attribute's name."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _last_of_self(value: ast.expr) -> str | None:
    """``self.<list>[...][-1]``: the list's name."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.slice, ast.UnaryOp)
            and isinstance(value.slice.op, ast.USub) and isinstance(value.slice.operand, ast.Constant)
            and value.slice.operand.value == 1):
        return None
    return _self_list(value.value)


def _named(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name


def _reads_content_of(value: ast.expr, holder: str) -> bool:
    """``str(last["content"])``, ``last["content"]``: the text of the message ``holder`` holds."""
    return any(isinstance(n, ast.Subscript) and message_content(n) and _named(n, holder) for n in ast.walk(value))
