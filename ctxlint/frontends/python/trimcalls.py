"""A framework's call that trims a conversation to a budget (LangChain's ``trim_messages``): the
messages that do not fit are dropped (and with ``allow_partial`` the last one kept is cut), and
nothing is put in their place. The catalogue names such calls (``trimmers``); what they keep
comes from their ``strategy`` (``"last"``, the default, keeps the newest messages).

A call whose function then writes a note of the cut (``trimmed.insert(0, SystemMessage("[12
earlier messages omitted]"))``) is not silent; nor is one whose result is only measured or
logged (``len(trim_messages(...))``), which drops nothing the model would have read.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ctxlint.frontends.python.loopshapes import says_cut
from ctxlint.frontends.python.nodes import enclosing, statement_of
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

TRIMMED_TURNS = "trimmed-turns"


def trimmed_turns(m: Unit, call: ast.Call, env: Env,
                  literal_str: Callable[[ast.expr | None, Env], str | None]) -> Observation | None:
    """The observation of a catalogue trimmer's call whose result goes on with no note of the cut."""
    if not m.catalogue.trimmers.match(m.qualified(call.func) or ""):
        return None
    parent = m.parents.get(id(call))
    if isinstance(parent, ast.Call) and m.code(parent.func) == "len":
        return None  # only measured
    statement = statement_of(m.parents, call)
    if not isinstance(statement, ast.stmt) or says_cut(_rest_of_function(m, statement)):
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    strategy = literal_str(keywords["strategy"], env) if "strategy" in keywords else "last"
    allow_partial = keywords.get("allow_partial")
    partial = isinstance(allow_partial, ast.Constant) and allow_partial.value is True
    keeps = "start" if strategy == "first" else "end"
    cut = Cut("messages", keeps, TRIMMED_TURNS, history=True)
    said = ("keeps the first messages that fit" if keeps == "start" else "keeps the newest messages that fit") + \
        (" and cuts the last one it keeps" if partial else "")
    step = Evidence(EvidenceKind.FLOW, f"`{m.code(call.func)}` {said}", m.span(call))
    source = Source(SourceKind.TRUNCATION, f"{m.code(call.func)}(...)", m.span(call), cut=cut, flow=(step,))
    return Observation(TRIMMED_TURNS, m.span(call), "nothing is put in place of the messages it drops", source=source)


def _rest_of_function(m: Unit, statement: ast.stmt) -> list[ast.stmt]:
    """The statements of the function (or module) that holds ``statement`` from it on, at any depth."""
    node = enclosing(statement, m.parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))
    if node is None:
        return [statement]
    end = statement.lineno
    return [s for s in ast.walk(node) if isinstance(s, ast.stmt) and s.lineno >= end and s is not node
            and not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
