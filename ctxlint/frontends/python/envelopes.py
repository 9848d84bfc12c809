"""Envelopes: a project function that escapes the text it is given and wraps it in a tag pair
(``f"<content>{escape(text)}</content>"``), directly or through the helpers that build a message
around it (``{"role": "user", "content": serialize(text, sender)}``). A prompt the code hands to
one reaches the model labelled as data, and its content cannot close the label, whatever it holds:
a function summary (``escapes and wraps its parameter``) read once per function and parameter, and
applied where the function that writes the prompt passes it, or a value built from it (``blocks =
[text_block(prompt)]``), to such a function.

Only an escape the catalogue knows (``escapes:`` in frameworks/*.yaml), or a project function every
return of which is one, counts: a tag around raw text is a label that content can close.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.code.pieces import Piece
from ctxlint.frontends.python.delimiters import enclosing
from ctxlint.frontends.python.nodes import mentions, walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Source, SourceKind, Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.callees import Callees

# How many helpers deep an envelope is looked for (a `system_input` calling a `structured_content`
# calling a `serialize_message` is three).
MAX_DEPTH = 4
# How many rounds of assignments a value built from the prompt is followed through.
_ROUNDS = 4


def enveloping_call(callees: Callees, scope: Scope, name: str) -> tuple[str, Span] | None:
    """The tag, and the call, that a function of the project wraps the text ``name`` holds in,
    escaped: where the function that assigns ``name`` hands it (or a value built from it) to a
    function that envelopes that parameter. None when no call of the function does."""
    if scope.kind != "function":
        return None
    carriers = _carriers(scope, {name})
    for call in _calls(scope.node):
        if not _passes(call, carriers):
            continue
        for param, argument in _arguments(callees, call, Env(scope)):
            if not mentions(argument, carriers):
                continue
            tag = _envelope_at(callees, call, Env(scope), param, MAX_DEPTH)
            if tag:
                return tag, callees.m.span(call)
    return None


def envelope(callees: Callees, fn: FunctionNode, scope: Scope, param: str, depth: int) -> str | None:
    """The tag ``fn`` wraps its parameter ``param`` in, escaped, or None (kept with the module)."""
    if depth <= 0:
        return None
    return callees.m.envelopes.get((id(fn), param, depth), lambda: _envelope(callees, fn, scope, param, depth),
                                   callees.m.cut_short)


def _envelope(callees: Callees, fn: FunctionNode, scope: Scope, param: str, depth: int) -> str | None:
    if any(_bare(value, param) for value in scope.returns):
        return None  # `return {"role": "user", "content": text}`: what it returns holds the text as given
    carriers = _carriers(scope, {param})
    env = Env(scope)
    for node in own_nodes(fn):
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.FormattedValue) and _escaped(callees, part.value, carriers, env):
                    around = enclosing(node, part.value)
                    if around and around != "```":
                        return around
        elif isinstance(node, ast.Call) and _passes(node, carriers):
            for inner, argument in _arguments(callees, node, env):
                if mentions(argument, carriers):
                    tag = _envelope_at(callees, node, env, inner, depth - 1)
                    if tag:
                        return tag
    return None


def _envelope_at(callees: Callees, call: ast.Call, env: Env, param: str, depth: int) -> str | None:
    found = callees.callee(call.func, env, foreign=True)
    if found is None:
        return None
    owner, fn, scope, _ = found
    return envelope(owner.callees if owner is not None else callees, fn, scope, param, depth)


def _escaped(callees: Callees, node: ast.expr, carriers: set[str], env: Env, helper: bool = True) -> bool:
    """Whether ``node`` escapes a value read from ``carriers``: a call of an escape of the
    catalogue (``html.escape(text)``), or of a project function that returns only such calls of
    its parameter (``_xml_text(text)``)."""
    if not isinstance(node, ast.Call) or not any(mentions(a, carriers) for a in node.args):
        return False
    if callees.m.catalogue.escapes.match(callees.m.qualified(node.func) or ""):
        return True
    found = callees.callee(node.func, env, foreign=True) if helper else None
    if found is None or not found[2].positional:
        return False
    owner, _, scope, method = found
    inner = owner.callees if owner is not None else callees
    positional = scope.positional[1:] if method and scope.positional[0] in ("self", "cls") else scope.positional
    if not positional:
        return False
    first = {positional[0]}
    return bool(scope.returns) and all(_escaped(inner, value, first, Env(scope), helper=False)
                                       for value in scope.returns)


def _arguments(callees: Callees, call: ast.Call, env: Env) -> Iterator[tuple[str, ast.expr]]:
    """Each argument of ``call`` with the parameter of the project function it fills."""
    found = callees.callee(call.func, env, foreign=True)
    if found is None:
        return
    _, fn, scope, method = found
    positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    if method and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    for name, argument in zip(positional, call.args, strict=False):
        if isinstance(argument, ast.Starred):
            return
        yield name, argument
    for keyword in call.keywords:
        if keyword.arg is not None and keyword.arg in scope.params:
            yield keyword.arg, keyword.value


def _carriers(scope: Scope, names: set[str]) -> set[str]:
    """``names`` and the locals of ``scope`` built from them: assigned a value that reads one, or
    a loop's item over one (``for block in content``)."""
    carriers = set(names)
    loops = [n for n in own_nodes(scope.node) if isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension))]
    for _ in range(_ROUNDS):
        before = len(carriers)
        for local, records in scope.assigns.items():
            if local not in carriers and any(r.value is not None and mentions(r.value, carriers) for r in records):
                carriers.add(local)
        for loop in loops:
            if isinstance(loop.target, ast.Name) and mentions(loop.iter, carriers):
                carriers.add(loop.target.id)
        if len(carriers) == before:
            break
    return carriers


def _bare(value: ast.expr, name: str) -> bool:
    """Whether ``value`` reads ``name`` other than as an argument of a call, or as what a
    comprehension goes over (whose items are then read as they are): ``text``, ``text.strip()``."""
    passed = {id(n) for call in walk(value) if isinstance(call, ast.Call)
              for argument in (*call.args, *(k.value for k in call.keywords)) for n in walk(argument)}
    passed |= {id(n) for loop in walk(value) if isinstance(loop, ast.comprehension) for n in walk(loop.iter)}
    return any(isinstance(n, ast.Name) and n.id == name and id(n) not in passed for n in walk(value))


def _passes(call: ast.Call, names: set[str]) -> bool:
    """Whether an argument of ``call`` reads one of ``names`` (asked before the callee is looked up)."""
    return any(mentions(a, names) for a in call.args) or any(mentions(k.value, names) for k in call.keywords)



def _calls(fn: ast.AST) -> Iterator[ast.Call]:
    return (n for n in own_nodes(fn) if isinstance(n, ast.Call))


def enveloped(piece: Piece, tag: str, at: Span) -> Piece:
    """``piece`` of a prompt that a call at ``at`` wraps in ``tag``, escaped: a slot's value is
    delimited there (the trust analysis reads it as labelled), static text is as it was."""
    if piece.slot is None:
        return piece
    label = Source(SourceKind.DELIMITED, tag, at)
    return replace(piece, slot=replace(piece.slot, sources=(*piece.slot.sources, label)))
