"""Where a cut's text goes after the function that cuts it: to a prompt, through the project's
own functions (a truncator summary applied forwards).

A cut kept in a local name, returned (whole or as an item of a returned tuple) and unpacked by
the function's callers in the module, or handed to a project function as an argument, is followed
to the place it is used. It reaches a prompt where it is passed to a call named for one
(``self._get_prompt("judge", context_above=above)``, ``prompt_library.summarise(context)``), or
written into a value named for one (``prompt = f"...{above}"``). Each hop is a step of the
finding's evidence. A cut that only reaches a log, a store or a label is followed no further.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.frontends.code.words import matches
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.fieldreads import FAR as _FAR
from ctxlint.frontends.python.fieldreads import KEPT, MAX_FAR_HOPS, field_step, positional_step, stored
from ctxlint.frontends.python.knowledge import MEASURES, prompt_name
from ctxlint.frontends.python.nodes import abstract, reads_of
from ctxlint.frontends.python.overrides import called_through_base, derives
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.reachsteps import (
    concatenated,
    gathered_keywords,
    into_called_object,
    kept_by_loop,
    walked_in_order,
)
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.markers import cut_marker, cut_marker_before
from ctxlint.model import Evidence, EvidenceKind, Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.callees import Called

# How many function boundaries (a return to a caller, an argument to a parameter) a cut is followed;
# a whole text's lines each cut (`reach_far`) further (MAX_FAR_HOPS, fieldreads.py), into other modules
# and chat messages.
MAX_HOPS = 3
# A function whose name more modules than this call is not looked for in other modules.
MAX_CALLER_MODULES = 6
# Set while a cut is followed to a tool that returns it: a function's callers in the project's other
# modules are read too (a helper that runs a command, called by the tools of another module).
_TO_TOOL: ContextVar[bool] = ContextVar("to_tool", default=False)
# A call named for a prompt that measures, logs or stores it does not put the cut in one.
_NOT_BUILDING = ("*token*", "*count*", "*log*", "*print*", "*save*", "*store*", "*cache*", "*len*", "*debug*",
                 "*display*", "*show*")
# A function named for what it makes a model's input (`format_search_results_for_llm`): what it
# returns is given to one, wherever its callers are. (Also a keyword: `ToolResult(result_for_llm=...)`.)
FOR_MODEL = ("*_for_llm", "*_for_the_llm", "*_for_model", "*_for_the_model")
FOR_MODEL_WORDS = tuple(pattern.strip("*") for pattern in FOR_MODEL)  # what a module's text must hold
# A method that adds what it is given to its object (`builder.add_glossary(terms)`, `doc.append_section(text)`).
_ADDING = re.compile(r"(add|append|extend|insert|push)(_|$)")
# Methods that give back the text they are called on, trimmed, or as bytes and back.
_KEEPING = ("strip", "lstrip", "rstrip", "encode", "decode")
_TEXT_TYPES = ("str", "Optional[str]", "str|None", "None|str", "typing.Optional[str]")

Steps = tuple[Evidence, ...]
# How the step of a cut written back into a turn of a conversation begins (that of a cut kept on an
# object for the function's next call is fieldreads.KEPT).
REWRITTEN = "written back as the content of"
# ... and of a cut a tool returns: the model reads it as the tool's result.
TOOL_RESULT = "the result of the tool"
# What a conversation a function walks is called.
_CONVERSATIONS = ("messages", "*_messages", "history", "chat_history", "conversation", "turns")


# The suffixes of a template file that renders a web page.
_PAGE_SUFFIXES = (".html", ".htm")


class CutReach(Component):
    _scopes: dict[int, Scope] | None = None

    def annotated_slice(self, node: ast.Subscript, fn: FunctionNode | None, env: Env) -> Source | None:
        """``above = above[-n:]`` in a function whose return annotation says the value it returns
        there is text (``-> Tuple[str, str]``): a cut of text, which the value's own name or type
        would not show (``above = parts[i]``, an item of a list of text and images)."""
        # The cheap tests first: most functions say nothing of what they return.
        if fn is None or fn.returns is None or not isinstance(node.slice, ast.Slice):
            return None
        if isinstance(self.m.parents.get(id(node)), ast.Return):  # `return page.to_markdown()[:n]` in `-> str`
            if not _text_annotation(fn.returns, None):
                return None
        elif not isinstance(node.value, ast.Name) or _assigned_name(self.m.parents.get(id(node))) != node.value.id:
            return None
        else:
            positions = list(self.returned(fn, node.value.id))
            if not positions or not _text_annotation(fn.returns, positions[0]):
                return None
        bounds = self.cuts.bounds(node, env)
        if bounds is None:
            return None
        keeps, _, kept = bounds
        return Source(SourceKind.TRUNCATION, " ".join(self.m.code(node).split()), self.m.span(node), kept=kept,
                      cut=self.cuts.cut_of(node.value, "characters", keeps, "slice"))

    def returned(self, fn: FunctionNode, name: str) -> Iterator[int | None]:
        """Where ``fn`` returns the local ``name``: None returned whole, i as the i-th item of a
        returned tuple."""
        for value in self.scope_of(fn).returns:
            if isinstance(value, ast.Name) and value.id == name:
                yield None
            elif isinstance(value, ast.Tuple):
                for position, item in enumerate(value.elts):
                    if isinstance(item, ast.Name) and item.id == name:
                        yield position

    def scope_of(self, fn: FunctionNode) -> Scope:
        if self._scopes is None:  # every function is indexed before the analysis asks
            self._scopes = {id(node): scope for node, scope in self.m.functions}
        return self._scopes[id(fn)]

    def fed_back(self, node: ast.Subscript, fn: FunctionNode | None, steps: Steps) -> Evidence | None:
        """``summary = reply.get("summary")[:n]`` kept on an object (``saga.summary = summary``)
        whose attribute the function read into the very prompt ``reply`` answers: the model's own
        text, cut mid-word, comes back to it on the next call as settled knowledge. The step that
        says where the cut text is the model's reply; None when it is not seen to be."""
        if fn is None or not steps or not any(s.text.startswith(KEPT) for s in steps):
            return None
        reply = self.reply_call(node.value, fn, node.lineno)
        if reply is None:
            return None
        sink = steps[-1].span
        for argument in (*reply.args, *(k.value for k in reply.keywords)):
            for part in ast.walk(argument):
                if isinstance(part, ast.Call) and self.m.span(part) == sink or isinstance(part, ast.Name) and any(
                        self.m.span(a) == sink for a in _assignments(fn, part.id, reply.lineno)):
                    return Evidence(EvidenceKind.SOURCE, f"`{self.m.code(node.value)}` is the model's reply to the "
                                    "prompt it is read back into", self.m.span(reply))
        return None

    def reply_call(self, value: ast.expr, fn: FunctionNode, before: int, depth: int = 0) -> ast.Call | None:
        """The call whose result ``value`` is read from (``reply.get("summary", "")``,
        ``reply.choices[0].message.content``, through the local names it was given before line
        ``before``): the call that answered, when it is given something to answer."""
        while isinstance(value, (ast.Attribute, ast.Subscript, ast.Await)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get"):
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                value = value.func.value
            elif isinstance(value, (ast.Attribute, ast.Subscript, ast.Await)):
                value = value.value
        if isinstance(value, ast.Call):
            return value if value.args or value.keywords else None
        if not isinstance(value, ast.Name) or depth > 2:
            return None
        given = [a for a in _assignments(fn, value.id, before) if a.lineno < before]
        if not given:
            return None
        return self.reply_call(given[-1].value, fn, given[-1].lineno, depth + 1)

    def reach_far(self, node: ast.expr, fn: FunctionNode | None) -> Steps | None:
        """``into_prompt`` for text whose every line is cut: followed through more returns, into
        the project's other modules and into a chat message's content. (Kept apart so the other
        kinds of cut keep the reach their evidence was measured with.)"""
        token = _FAR.set(True)
        try:
            return self.into_prompt(node, fn)
        finally:
            _FAR.reset(token)

    def name_far(self, name: str, statement: ast.stmt, fn: FunctionNode) -> Steps | None:
        """``reach_far`` for the value a local ``name`` holds after ``statement`` (a loop that adds to it)."""
        token = _FAR.set(True)
        try:
            return self.through_name(name, statement, fn, 0, set())
        finally:
            _FAR.reset(token)

    def to_tool(self, node: ast.expr, fn: FunctionNode | None) -> Steps | None:
        """``into_prompt`` for a cut that only a tool is to be seen to return: the returns of its
        function are followed to their callers in the project's other modules as well (a helper
        that runs a command and cuts what it printed, whose result a tool of another module hands
        back). The steps when they end at a tool's result, else None."""
        token = _TO_TOOL.set(True)
        try:
            steps = self.into_prompt(node, fn)
        finally:
            _TO_TOOL.reset(token)
        return steps if steps is not None and cut_kind(steps) == "tool-result-cut" else None

    # ---- following the value ---------------------------------------------------------------------

    def into_prompt(self, node: ast.expr, fn: FunctionNode | None, hops: int = 0,
                    seen: set[int] | None = None) -> Steps | None:
        """The steps by which the value of ``node`` (a cut, or a name holding one) reaches a
        prompt; None when it is not seen to. ``seen``: the nodes followed already (``a = b`` then
        ``b = a`` must not be followed round)."""
        seen = set() if seen is None else seen
        if id(node) in seen:
            return None
        seen.add(id(node))
        parent = self.m.parents.get(id(node))
        if isinstance(parent, ast.FormattedValue):
            return self.into_text(parent, fn, hops, seen)
        if isinstance(parent, ast.IfExp) and node is not parent.test or isinstance(
                parent, (ast.ListComp, ast.GeneratorExp, ast.BoolOp)):
            # `text[:n] if text else ""`, `[d[:n] for d in docs]`, `"\n".join(f"{d}" for d in docs)`, `x or ""`
            return self.into_prompt(parent, fn, hops, seen)
        if isinstance(parent, ast.comprehension) and node is parent.iter and isinstance(
                comp := self.m.parents.get(id(parent)), (ast.ListComp, ast.GeneratorExp, ast.DictComp)) \
                and _reads_item(comp, parent):
            # `{t.name: t.doc for t in tools}`: what it builds holds something of each item, in their order
            # (`[RULES for _ in docs]` holds nothing of them)
            return self.into_prompt(comp, fn, hops, seen)
        if _FAR.get() and isinstance(parent, (ast.For, ast.AsyncFor)) and node is parent.iter and fn is not None:
            return kept_by_loop(self, parent, fn, hops, seen)  # `for turn in turns: kept.append(turn)`
        if isinstance(parent, ast.Subscript) and node is parent.value and isinstance(parent.slice, ast.Slice):
            return self.into_prompt(parent, fn, hops, seen)  # cut again (`context = context[:n]`): still its text
        if isinstance(parent, ast.Attribute) and parent.attr in _KEEPING:
            call = self.m.parents.get(id(parent))  # `content.strip()`: still its text
            return self.into_prompt(call, fn, hops, seen) if isinstance(call, ast.Call) else None
        rewritten = self.rewrites_message(parent, node, fn)
        if rewritten is not None:
            return rewritten
        container = _container(parent, node)
        made = None if container is not None else _made_and_added_to(parent, node, fn)
        if (container or made) is not None and fn is not None:  # `docs[path] = content`, `parts.append(content)`
            statement = self.m.parents.get(id(parent)) if isinstance(parent, ast.Call) else parent
            found = self.through_name(container or made or "", statement, fn, hops, seen) \
                if isinstance(statement, ast.stmt) else None
            if made is None or found is None or not isinstance(parent, ast.Call):
                return found
            return (Evidence(EvidenceKind.FLOW, f"added to `{made}` by `{self.m.code(parent.func)}(...)`",
                             self.m.span(parent)), *found)
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add):
            other = parent.right if node is parent.left else parent.left
            marks = cut_marker if node is parent.left else cut_marker_before
            if isinstance(other, ast.Constant) and isinstance(other.value, str) and marks(other.value):
                return None
            return self.into_prompt(parent, fn, hops, seen)  # `"Context:\n" + above`
        if isinstance(parent, (ast.AugAssign, ast.Assign)) and node is parent.value and fn is not None:
            written = _prompt_attribute(parent)
            if written is not None:  # `agent.custom_instructions += listing`, `self.system_prompt = text`
                return (Evidence(EvidenceKind.SINK, f"written into `{self.m.code(written)}`", self.m.span(parent)),)
        if _FAR.get() and isinstance(parent, ast.AugAssign) and isinstance(parent.op, ast.Add) \
                and node is parent.value and isinstance(parent.target, ast.Name) and fn is not None:
            return self.through_name(parent.target.id, parent, fn, hops, seen)  # `repo_content += listing`
        if _FAR.get() and parent is not None and _message_content(parent, node, self.m.parents.get(id(parent))):
            return (Evidence(EvidenceKind.SINK, "sent as the content of a message", self.m.span(node)),)
        if isinstance(parent, ast.keyword):
            call = self.m.parents.get(id(parent))
            if isinstance(call, ast.Call) and parent.arg is not None and matches(parent.arg.lower(), FOR_MODEL):
                # `ToolResult(result_for_llm=text)`: the code says the model reads it
                return (Evidence(EvidenceKind.SINK, f"given to the model as `{parent.arg}` of "
                                 f"`{self.m.code(call.func)}(...)`", self.m.span(call)),)
            found = self.into_call(call, node, fn, hops, seen) if isinstance(call, ast.Call) else None
            return found or field_step(self, call, parent.arg, fn, hops, seen)  # `Context(terms=...)`, read `.terms`
        if isinstance(parent, ast.Call) and node in parent.args:
            return self.into_call(parent, node, fn, hops, seen) or positional_step(self, parent, node, fn, hops, seen)
        if isinstance(parent, (ast.Dict, ast.Tuple, ast.List)) and not isinstance(self.m.parents.get(id(parent)),
                                                                                    ast.Return):
            return self.into_prompt(parent, fn, hops, seen)  # a context dict, a pair of texts
        if isinstance(parent, ast.Return) or (isinstance(parent, ast.Tuple)
                                              and isinstance(self.m.parents.get(id(parent)), ast.Return)):
            result = self.tool_result(fn) if isinstance(parent, ast.Return) else None
            if result is not None:
                return result
            if fn is not None and matches(fn.name.lower(), FOR_MODEL):
                return (Evidence(EvidenceKind.SINK, f"returned by `{fn.name}`, named for what a model is given",
                                 self.m.span(parent)),)
            if fn is None or hops >= _max_hops():
                return None
            position = parent.elts.index(node) if isinstance(parent, ast.Tuple) else None
            return self.from_callers(fn, position, hops + 1, seen)
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and fn is not None:
            name = _assigned_name(parent)
            if name is None:
                return stored(self, parent, fn, hops, seen)
            if prompt_name(name):
                return (Evidence(EvidenceKind.SINK, f"written into `{name}`", self.m.span(parent)),)
            return self.through_name(name, parent, fn, hops, seen)
        return None

    def tool_result(self, fn: FunctionNode | None) -> Steps | None:
        """``return page[:4096]`` in a function registered as a tool a model calls (``@tool``,
        ``@mcp.tool()``): the model reads what it returns as the tool's whole result. None where
        the tool's own description tells the model that its results are cut."""
        if fn is None or (decorator := self.tools.registering_decorator(fn, self.scope_of(fn))) is None:
            return None
        described = ast.get_docstring(fn) or ""
        if cut_marker(described) or "truncat" in described.lower():
            return None
        return (Evidence(EvidenceKind.SINK, f"{TOOL_RESULT} `{fn.name}`, which the model reads as the whole of it",
                         self.m.span(decorator)),)

    def rewrites_message(self, statement: ast.AST | None, node: ast.expr, fn: FunctionNode | None) -> Steps | None:
        """``message.content = cut`` (or ``message["content"] = cut``) where ``message`` is a turn of
        a conversation the function walks (``for message in reversed(messages)``): the turn the
        model reads is rewritten with the cut text."""
        if fn is None or not isinstance(statement, ast.Assign) or node is not statement.value \
                or len(statement.targets) != 1:
            return None
        target = statement.targets[0]
        if isinstance(target, ast.Attribute) and target.attr == "content":
            holder = target.value
        elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                and target.slice.value == "content":
            holder = target.value
        else:
            return None
        if not isinstance(holder, ast.Name):
            return None
        for loop in ast.walk(fn):
            if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name) \
                    and loop.target.id == holder.id and any(
                        isinstance(n, ast.Name) and matches(n.id.lower(), _CONVERSATIONS) for n in ast.walk(loop.iter)):
                return (Evidence(EvidenceKind.SINK, f"{REWRITTEN} `{holder.id}`, a turn of "
                                 f"`{self.m.code(loop.iter)}`", self.m.span(statement)),)
        return None

    def into_text(self, field: ast.FormattedValue, fn: FunctionNode | None, hops: int, seen: set[int]) -> Steps | None:
        """An f-string field: followed as the text it is written into, unless a marker follows it."""
        text = self.m.parents.get(id(field))
        if not isinstance(text, ast.JoinedStr):
            return None
        index = text.values.index(field)
        after = text.values[index + 1] if index + 1 < len(text.values) else None
        before = text.values[index - 1] if index else None
        if (isinstance(after, ast.Constant) and isinstance(after.value, str) and cut_marker(after.value)) or (
                isinstance(before, ast.Constant) and isinstance(before.value, str) and cut_marker_before(before.value)):
            return None
        return self.into_prompt(text, fn, hops, seen)

    def through_name(self, name: str, statement: ast.stmt, fn: FunctionNode, hops: int, seen: set[int]
                     ) -> Steps | None:
        """Each later read of the local ``name`` the value was given, in order."""
        for use in reads_of(fn, name, statement):
            found = self.into_prompt(use, fn, hops, seen)
            if found is not None:
                return found
        return None

    def into_call(self, call: ast.Call, node: ast.expr, fn: FunctionNode | None, hops: int, seen: set[int]
                  ) -> Steps | None:
        """A call given the value: one named for a prompt builds one with it; a project function
        is followed into the parameter the value is bound to."""
        func = call.func
        last = last_name(func) or ""
        dotted = self.m.dotted(func) or last
        if not last or last in MEASURES or matches(last.lower(), _NOT_BUILDING):
            return None
        if any(prompt_name(part) for part in dotted.split(".")) and not _renders_page(call):
            return (Evidence(EvidenceKind.SINK, f"passed to `{dotted}`, which builds a prompt with it",
                             self.m.span(call)),)
        if last in ("join", "format") and isinstance(func, ast.Attribute):
            return self.into_prompt(call, fn, hops, seen)  # text made with it: `"\n".join(parts)`
        if _FAR.get() and (concatenated(call, node) or walked_in_order(call, node)):
            return self.into_prompt(call, fn, hops, seen)  # `sum(turns, [])`, `enumerate(turns)`: in its order
        if hops >= _max_hops() or fn is None:
            return None
        scope = self.scope_of(fn)
        target = self.callees.function_for(call, Env(scope), foreign=True, returns=False)
        if target is None:
            return into_called_object(self, call, node, scope, hops, seen) if _FAR.get() else None
        param = next((b.param for b in target.env.bindings if b.node is node), None) \
            or gathered_keywords(target.fn, target.env.bindings, node, self.m.parents.get(id(node)))
        if param is None:
            return None
        if _TO_TOOL.get() and _gives_back(target.fn, param):
            # `cap_lines(output)` returns `output` itself when it is short enough: the call's value is the text
            found = self.into_prompt(call, fn, hops, seen)
            if found is not None:
                return (Evidence(EvidenceKind.FLOW, f"given back whole by `{target.fn.name}`", self.m.span(call)),
                        *found)
        reader = target.owner.cut_reach if target.owner is not None else self
        inner = reader.through_parameter(target.fn, param, hops + 1, seen)
        if inner is None:
            return None
        return (Evidence(EvidenceKind.FLOW, f"passed to `{target.fn.name}` as `{param}`", self.m.span(call)), *inner)

    def through_parameter(self, fn: FunctionNode, param: str, hops: int, seen: set[int]) -> Steps | None:
        for use in reads_of(fn, param):
            found = self.into_prompt(use, fn, hops, seen)
            if found is not None:
                return found
        return None

    def from_callers(self, fn: FunctionNode, position: int | None, hops: int, seen: set[int]) -> Steps | None:
        """The calls of ``fn`` in this module, and what each does with the value it returns (its
        ``position``-th item when it returns a tuple)."""
        for unit, call, home in self.calls_of(fn):
            caller = home.node
            if not isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            found = unit.analyzer.cut_reach.caller_use(call, caller, position, hops, seen)
            if found is not None:
                what = f"item {position + 1} of what `{fn.name}` returns" if position is not None else \
                    f"what `{fn.name}` returns"
                return (Evidence(EvidenceKind.FLOW, f"{what} is used by `{caller.name}`", unit.span(call)), *found)
        return None

    def calls_of(self, fn: FunctionNode, most_modules: int | None = None) -> Iterator[tuple[Unit, ast.Call, Scope]]:
        """The calls of ``fn``: in this module, then in the project's other modules whose text calls
        its name (a method reached through an attribute, ``self.repo_map.get_repo_map(...)``), while a
        cut is followed far or when ``most_modules`` (how many other modules may call it) is given."""
        for call, home in self.m.calls:
            if last_name(call.func) == fn.name:
                if called_through_base(self.m, fn, call, home):  # `self.recall(task)` in a base class
                    yield self.m, call, home
                    continue
                target = self.callees.function_for(call, Env(home), returns=False)
                if target is not None and (target.fn is fn or self.dispatched(target, fn)):
                    yield self.m, call, home
        project, file = self.m.project, self.m.file
        most_modules = most_modules or (MAX_CALLER_MODULES if _TO_TOOL.get() else None)
        if not (_FAR.get() or most_modules) or project is None or file is None:
            return
        # `cut = run_with_timeout(cut_)`: the other modules call the name the decorator gives it
        names = {name for name in {fn.name, *self.callees.aliases(fn)} if not name.startswith("_")}
        paths = sorted({p for name in names for p in project.callers(name) if p != file
                        and not in_tests(p, project.root)})
        if not names or len(paths) >= (most_modules or MAX_CALLER_MODULES):
            return  # a common name: its calls are not this function's
        for path in paths:
            owner = project.analyzer(Path(path))
            if owner is None:
                continue
            self.m.dependencies.add(owner.unit.path)  # a change there changes where this cut goes
            for call, home in owner.unit.calls:
                if last_name(call.func) not in names:
                    continue
                target = owner.callees.function_for(call, Env(home), foreign=True, returns=False)
                if target is not None and (target.owner is not None and target.owner.unit.file == file
                                           and (target.fn.name, target.fn.lineno) == (fn.name, fn.lineno)
                                           or self.dispatched(target, fn, owner.unit)):
                    yield owner.unit, call, home

    def dispatched(self, target: Called, fn: FunctionNode, caller: Unit | None = None) -> bool:
        """Whether a call that reaches ``target``, a method with no body of its own (``@abstractmethod``,
        ``...``), runs ``fn`` for an object of a subclass: ``self.notes.search(word)``, ``notes`` typed
        as the base class that declares ``search``, and ``fn`` the ``search`` of a class of this module
        written as deriving from it. (``caller``: the module of the call, when it is not this one.)"""
        if target.fn.name != fn.name or not abstract(target.fn):
            return False
        home = target.owner.unit if target.owner is not None else caller or self.m
        declared, own = home.parents.get(id(target.fn)), self.m.parents.get(id(fn))
        return isinstance(declared, ast.ClassDef) and isinstance(own, ast.ClassDef) \
            and derives(own, declared.name, {node.name: node for node, _ in self.m.classes})

    def caller_use(self, call: ast.Call, caller: FunctionNode, position: int | None, hops: int, seen: set[int]
                   ) -> Steps | None:
        """What the function ``caller`` of this module does with what ``call`` returns."""
        value: ast.expr = call
        parent = self.m.parents.get(id(value))
        if isinstance(parent, ast.Await):
            value, parent = parent, self.m.parents.get(id(parent))
        if position is None:
            return self.into_prompt(value, caller, hops, seen)
        # `above, below = self.context_of(i, parts)`
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Tuple) and position < len(parent.targets[0].elts)):
            return None
        item = parent.targets[0].elts[position]
        return self.through_name(item.id, parent, caller, hops, seen) if isinstance(item, ast.Name) else None


def _reads_item(comp: ast.ListComp | ast.GeneratorExp | ast.DictComp, generator: ast.comprehension) -> bool:
    """Whether what a comprehension builds reads the item ``generator`` binds (also through a
    later generator that walks it: ``[c for d in docs for c in d.chunks]``)."""
    bound = {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
    later = [g.iter for g in comp.generators[comp.generators.index(generator) + 1:]]
    built = [comp.key, comp.value] if isinstance(comp, ast.DictComp) else [comp.elt]
    built += later
    return any(isinstance(n, ast.Name) and n.id in bound for part in built for n in ast.walk(part))


def _gives_back(fn: FunctionNode, param: str) -> bool:
    """Whether ``fn`` returns its parameter ``param`` itself on some path (``return output``)."""
    return any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id == param
               for n in ast.walk(fn))


def _prompt_attribute(statement: ast.AugAssign | ast.Assign) -> ast.Attribute | None:
    """The attribute named for a prompt that ``statement`` sets or adds to (``self.system_prompt =``,
    ``agent.custom_instructions +=``)."""
    target: ast.expr | None = None
    if isinstance(statement, ast.AugAssign):
        target = statement.target if isinstance(statement.op, ast.Add) else None
    elif len(statement.targets) == 1:
        target = statement.targets[0]
    return target if isinstance(target, ast.Attribute) and prompt_name(target.attr) else None


def _container(parent: ast.AST | None, node: ast.expr) -> str | None:
    """The local name of the dict or list ``node`` is kept in as an item (``docs[path] = node``,
    ``parts.append(node)``)."""
    if isinstance(parent, ast.Assign) and node is parent.value and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return target.value.id
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and node in parent.args \
            and parent.func.attr in ("append", "insert") and isinstance(parent.func.value, ast.Name):
        return parent.func.value.id
    return None


def _made_and_added_to(parent: ast.AST | None, node: ast.expr, fn: FunctionNode | None) -> str | None:
    """The local name of an object the function makes from a class (``builder = PromptBuilder()``)
    that a method named for adding is given ``node`` (``builder.add_glossary(terms)``): the object
    holds it from then on, and goes where the name goes (``return builder``)."""
    if fn is None or not (isinstance(parent, ast.Call) and node in parent.args
                          and isinstance(parent.func, ast.Attribute) and _ADDING.match(parent.func.attr)
                          and isinstance(parent.func.value, ast.Name)):
        return None
    name = parent.func.value.id
    made = [a.value for a in ast.walk(fn) if isinstance(a, ast.Assign) and len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name) and a.targets[0].id == name]
    return name if len(made) == 1 and isinstance(made[0], ast.Call) \
        and (last_name(made[0].func) or "")[:1].isupper() else None


def _max_hops() -> int:
    return MAX_FAR_HOPS if _FAR.get() else MAX_HOPS


def _assigned_name(statement: ast.AST | None) -> str | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id
    return None


def _assignments(fn: FunctionNode, name: str, before: int) -> list[ast.Assign]:
    """The plain assignments of the local ``name`` in ``fn`` up to line ``before``, in order."""
    return sorted((a for a in ast.walk(fn) if isinstance(a, ast.Assign) and a.lineno <= before
                   and _assigned_name(a) == name), key=lambda a: a.lineno)


def _message_content(parent: ast.AST, node: ast.expr, holder: ast.AST | None) -> bool:
    """Whether ``node`` is the content of a chat message: ``{"role": ..., "content": node}``,
    ``dict(role=..., content=node)``."""
    if isinstance(parent, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in parent.keys]
        return "role" in keys and node in parent.values and keys[parent.values.index(node)] == "content"
    return isinstance(parent, ast.keyword) and parent.arg == "content" and isinstance(holder, ast.Call) \
        and last_name(holder.func) == "dict" and any(k.arg == "role" for k in holder.keywords)


def cut_kind(steps: Steps) -> str:
    """The kind of a cut followed to where a model reads it: returned by a tool, or into a prompt."""
    return "tool-result-cut" if any(step.text.startswith(TOOL_RESULT) for step in steps) else "prompt-cut"


def _text_annotation(returns: ast.expr | None, position: int | None) -> bool:
    """Whether a return annotation says the value returned (at ``position`` of a tuple) is text."""
    if returns is None:
        return False
    if position is not None:
        if not (isinstance(returns, ast.Subscript) and (getattr(returns.value, "id", "") or getattr(
                returns.value, "attr", "")).lower() == "tuple" and isinstance(returns.slice, ast.Tuple)):
            return False
        items = returns.slice.elts
        if position >= len(items):
            return False
        returns = items[position]
    return ast.unparse(returns).replace(" ", "") in _TEXT_TYPES


def _renders_page(call: ast.Call) -> bool:
    """A call given a template file of a web page (``templates.TemplateResponse(request,
    name="settings.html", context=...)``): it renders HTML for a browser, not a prompt."""
    return any(isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.lower().endswith(_PAGE_SUFFIXES)
               for a in (*call.args, *(k.value for k in call.keywords)))
