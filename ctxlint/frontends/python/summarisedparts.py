"""Text handed to a project function that summarises what it is given once it is over a budget::

    context.append(f"## Files\\n{tree}\\nUse ONLY the relative paths of this tree.")
    notes = "\\n".join(context)
    reduced = await self.reduce_context(sections={"memories": notes, "history": history}, target=limit)

    async def reduce_context(self, sections, target):
        if count(sections) <= target:
            return sections
        for name, content in sections.items():
            prompt = f"Summarize the following {name} context concisely:\\n{content}"
            kept[name] = await self.llm(prompt)
        return kept

The function gives back what it is handed whole while it fits, and otherwise a model's summary of
it (``reducer``): a rule written into that text is kept on short requests and becomes a paraphrase,
or nothing, on exactly the long ones. Which sentences state a rule is the check's to decide
(CTX301); the front-end says which text the function may rewrite. A function that only
summarises (``summarize(text)``, with no path that keeps its input) is a summary asked for, not a
budget's cut, and is not read so.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.knowledge import ADDS
from ctxlint.frontends.python.nodes import mentions, walk
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Role, Segment, Source, SourceKind, Span

KIND = "reducer-summarised"
# The words of a prompt that asks a model to shorten the text put in it, as a module's text is
# scanned for them before a call is resolved: without the word bounds, which an escape next to the
# word hides in the source (`"\\nSummarize"`).
_SUMMARISE_WORD = re.compile(r"summari[sz]e|condense|compress|shorten", re.IGNORECASE)
# ... and as they are read in the prompt's text.
_SUMMARISE = re.compile(rf"\b({_SUMMARISE_WORD.pattern})\b", re.IGNORECASE)
_SUMMARISE_BYTES = rb"(?i)" + _SUMMARISE_WORD.pattern.encode()
# Passes over a function's assignments to follow what is made of its parameter.
_PASSES = 3
# How a name is written into (an assignment, an addition), how deep the names it is made of are
# followed, and how many pieces of text are read.
_WRITES = ("=", *ADDS)
_DEPTH = 6
_MAX_SEGMENTS = 400


class SummarisedParts(Component):
    def __init__(self, unit: Unit) -> None:
        super().__init__(unit)
        self._reducers: dict[tuple[int, str], Span | None] = {}

    def observe(self) -> list[Observation]:
        """Each call of a project function that keeps or summarises one of its parameters, given
        text the code writes."""
        if "(" not in self.m.text or not self._summarising_code():
            return []
        found = []
        for call, scope in self.m.calls:
            if not (call.args or call.keywords) or not isinstance(call.func, (ast.Name, ast.Attribute)):
                continue
            env = Env(scope)
            target = self.callees.function_for(call, env, foreign=True)
            if target is None:
                continue
            reader = target.owner.summarised_parts if target.owner is not None else self
            given = [*call.args, *(k.value for k in call.keywords)]
            for bound in target.env.bindings:
                if not any(bound.node is arg for arg in given):
                    continue
                prompt = reader.reducer(target.fn, bound.param)
                if prompt is None:
                    continue
                segments = self._texts(bound.node, env, self.m.start(call))
                if not any(s.slot is None and s.text.strip() for s in segments):
                    continue
                name = target.fn.name
                step = Evidence(EvidenceKind.FLOW, f"`{name}` gives `{bound.param}` back whole while it fits its "
                                "budget, and otherwise has a model summarise it", prompt)
                source = Source(SourceKind.TRUNCATION, self.m.code(call.func), self.m.span(call), content=segments,
                                cut=Cut("characters", "end", KIND), flow=(step,))
                detail = (f"is in the text given to `{name}` as `{bound.param}`, which it has a model summarise once "
                          f"the text is over its budget ({prompt.path}:{prompt.line}): on the long requests the rule "
                          "becomes a paraphrase, or nothing. Put the rule in the system prompt or the template's "
                          "fixed text, outside what the function may rewrite")
                found.append(Observation(KIND, self.m.span(call), detail, source=source))
        return found

    def _summarising_code(self) -> bool:
        """The cheap test before any call is resolved: a reducer's prompt names a summary
        (``_SUMMARISE``), in this module or in another module of the project its callees live in."""
        if _SUMMARISE_WORD.search(self.m.text):
            return True
        project = self.m.project
        return project is not None and bool(project.modules_matching("summarise", "", _SUMMARISE_BYTES, 1))

    def _texts(self, node: ast.expr, env: Env, before: tuple[int, int]) -> tuple[Segment, ...]:
        """The text written into what ``node`` holds at ``before``: each value assigned or added to
        it (``context.append(f"...")``), through the names, joins, branches and dicts it is made
        of (``"\\n".join(context) if isinstance(context, list) else str(context)``)."""
        segments: list[Segment] = []
        self._written(node, env, before, segments, set(), 0)
        return tuple(segments)

    def _written(self, node: ast.expr, env: Env, before: tuple[int, int], into: list[Segment], seen: set[str],
                 depth: int) -> None:
        if depth > _DEPTH or len(into) > _MAX_SEGMENTS:
            return
        if isinstance(node, ast.Name):
            records = env.scope.assigns.get(node.id) if node.id not in seen else None
            if not records:  # a parameter, a module constant, or a name already read
                into.extend(self._pieces(node, env))
                return
            seen.add(node.id)
            for record in records:
                if record.value is not None and record.end < before and record.kind in _WRITES:
                    self._written(record.value, env, before, into, seen, depth + 1)
        elif isinstance(node, ast.IfExp):
            for arm in (node.body, node.orelse):
                self._written(arm, env, before, into, seen, depth + 1)
        elif isinstance(node, (ast.List, ast.Tuple)):
            for item in node.elts:
                self._written(item, env, before, into, seen, depth + 1)
        elif isinstance(node, ast.Dict):
            for value in node.values:
                self._written(value, env, before, into, seen, depth + 1)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for side in (node.left, node.right):
                self._written(side, env, before, into, seen, depth + 1)
        elif isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and (
                isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                or isinstance(node.func, ast.Name) and node.func.id == "str"):
            self._written(node.args[0], env, before, into, seen, depth + 1)
        else:
            into.extend(self._pieces(node, env))

    def _pieces(self, node: ast.expr, env: Env) -> list[Segment]:
        return [Segment(Role.USER, p.span, p.text, p.slot) for p in self.strings.pieces(node, env)]

    def reducer(self, fn: FunctionNode, param: str) -> Span | None:
        """Where ``fn`` asks a model to summarise what it makes of its parameter ``param``, when one
        of its returns gives the parameter back as it is (the path where it fits): None otherwise."""
        key = (id(fn), param)
        if key not in self._reducers:
            self._reducers[key] = self._reducer(fn, param)
        return self._reducers[key]

    def _reducer(self, fn: FunctionNode, param: str) -> Span | None:
        nodes = list(walk(fn))
        returns = [n.value for n in nodes if isinstance(n, ast.Return) and n.value is not None]
        if not any(isinstance(r, ast.Name) and r.id == param for r in returns):
            return None  # no path that keeps what it is given: a summariser, not a budget's cut
        made = _made_from(nodes, param)
        if not any(mentions(r, made) for r in returns if not (isinstance(r, ast.Name) and r.id == param)):
            return None  # what it gives back otherwise is not made of the parameter
        for node in nodes:
            if isinstance(node, ast.JoinedStr) and _SUMMARISE.search(_static(node)) and any(
                    isinstance(v, ast.FormattedValue) and mentions(v.value, made) for v in node.values):
                return self.m.span(node)
        return None


def _made_from(nodes: list[ast.AST], param: str) -> set[str]:
    """The names of a function that hold its parameter or what is made of it (items taken out of
    it, texts joined from them, a dict filled with them)."""
    made = {param}
    for _ in range(_PASSES):
        before = len(made)
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None \
                    and mentions(node.value, made):
                targets: list[ast.expr] = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
                made.update(_target_names(targets))
            elif isinstance(node, (ast.For, ast.AsyncFor)) and mentions(node.iter, made):
                made.update(_target_names([node.target]))
        if len(made) == before:
            break
    return made


def _target_names(targets: list[ast.expr]) -> set[str]:
    names: set[str] = set()
    for target in targets:
        while isinstance(target, (ast.Subscript, ast.Attribute)):  # `kept[name] = ...` fills `kept`
            target = target.value
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            names |= _target_names(list(target.elts))
    return names



def _static(node: ast.JoinedStr) -> str:
    return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
