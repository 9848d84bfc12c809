"""A rule in the opening message of a run of an agent that summarises its history::

    agent = create_deep_agent(model="openai:gpt-4.1", system_prompt=EDITOR, tools=tools)
    agent.invoke({"messages": [{"role": "user", "content": f"Write a report on {topic}. "
                                                           "Use at most 3 sections."}]})

The agent (the catalogue's ``summarises``: deepagents adds a summarisation middleware by default)
replaces the oldest messages of a long run with a summary and keeps only the system prompt whole.
The message the run starts with is the oldest there is: on exactly the long runs where the rule
matters, it becomes a paraphrase in a summary, or nothing. Which sentences state a rule is the
check's to decide (CTX301); one the system prompt states as well is kept.
"""

from __future__ import annotations

import ast

from ctxlint.frameworks.entries import Holder
from ctxlint.frontends.python.literals import keyed_fields
from ctxlint.frontends.python.taskdrops import user_content
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Role, Segment, Source, SourceKind

# The methods that start a run of a LangGraph agent with its input state.
_RUNS = ("invoke", "ainvoke", "stream", "astream")


class SummaryDrops(Component):
    def observe(self) -> list[Observation]:
        if "messages" not in self.m.text or not any(f".{run}(" in self.m.text for run in _RUNS):
            return []
        found = []
        for call, scope in self.m.calls:
            if not (isinstance(call.func, ast.Attribute) and call.func.attr in _RUNS and call.args
                    and isinstance(call.args[0], ast.Dict)):
                continue
            opening = _opening_user_message(call.args[0])
            if opening is None:
                continue
            message, content = opening
            env = Env(scope)
            held = self.calls.holder(call.func.value, env)
            if held is None or not held[0].summarises:
                continue
            found.append(self.observation(call, message, content, env, *held))
        return found

    def observation(self, call: ast.Call, message: ast.expr, content: ast.expr, env: Env, holder: Holder,
                    built: ast.Call, built_env: Env) -> Observation:
        segments = tuple(Segment(Role.USER, p.span, p.text, p.slot) for p in self.strings.pieces(content, env))
        system = next((k.value for k in built.keywords if k.arg in ("system_prompt", "instructions")), None)
        reader = self.calls.reader(built)
        strings = reader.strings if reader is not None else self.strings
        if system is not None:  # kept whole by the summary: a rule it states too is not lost
            segments += tuple(Segment(Role.SYSTEM, p.span, p.text, p.slot) for p in strings.pieces(system, built_env))
        unit = reader.unit if reader is not None else self.m
        where = f"{unit.path} line {built.lineno}"
        run = self.m.code(call.func)
        builds = f"`{unit.code(built.func)}(...)` ({where}) builds the {holder.name}, which {holder.summarises}"
        steps = (Evidence(EvidenceKind.FLOW, builds, self.m.span(call)),
                 Evidence(EvidenceKind.FLOW, f"`{run}(...)` starts the run with this user message",
                          self.m.span(message)))
        source = Source(SourceKind.TRUNCATION, run, self.m.span(message), content=segments,
                        cut=Cut("items", "end", "opening-summarised"), flow=steps)
        detail = (f"is in the user message `{run}(...)` starts the run with, and the {holder.name} built at {where} "
                  f"{holder.summarises}: on a long run this message is the first to be rewritten as a summary, and "
                  "the rule goes with it. Put the rule in the system prompt (and keep the task there or restate it)")
        return Observation("opening-summarised", self.m.span(message), detail, source=source)


def _opening_user_message(state: ast.Dict) -> tuple[ast.expr, ast.expr] | None:
    """The first message of ``{"messages": [...]}`` and its content, when it is a user message
    (``{"role": "user", "content": ...}``, ``("user", ...)``, ``HumanMessage(content=...)``)."""
    messages = keyed_fields(state).get("messages")
    if not (isinstance(messages, (ast.List, ast.Tuple)) and messages.elts):
        return None
    first = messages.elts[0]
    content = user_content(first)
    if content is None and isinstance(first, ast.Tuple) and len(first.elts) == 2 \
            and isinstance(first.elts[0], ast.Constant) and first.elts[0].value in ("user", "human"):
        content = first.elts[1]
    if content is None and isinstance(first, ast.Call) and isinstance(first.func, ast.Name) \
            and first.func.id == "HumanMessage":
        content = keyed_fields(first).get("content") or (first.args[0] if first.args else None)
    return (first, content) if content is not None else None
