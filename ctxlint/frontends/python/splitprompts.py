"""The instructions of a prompt left in one piece when the code splits the prompt to a size and sends
the pieces one by one::

    def chunk_text(text, chunk_size=100_000):
        return [text[i:i + chunk_size] for i in range(0, len(text), chunk_size)]

    prompt = f"Here is the page:\\n{page}\\n\\nExtract every endpoint. Do not invent any."
    for chunk in chunk_text(prompt):
        completion(model=..., messages=[{"role": "user", "content": chunk}])

The instructions after the material are only in the last piece (those before it, only in the
first): every other request gets part of the material and nothing that says what to do with it.
Splitting the material alone and sending the instructions with each piece keeps them; a split
text with no instructions at its ends (only material) is not reported.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.code.pieces import Piece
from ctxlint.frontends.python.firstparts import FirstParts
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Request, Source, SourceKind, Span

# What a parameter that sizes the pieces is called (`chunk_size`, `max_tokens`, `limit`).
_SIZE = re.compile(r"size|tokens|chars|length|limit", re.I)
# The fewest letters the static text at one end of the prompt must hold to be read as instructions
# (a closing fence or a label such as "Answer:" is not).
_INSTRUCTIONS = 60
_LETTERS = re.compile(r"[^\W\d_]")


class SplitPrompts(Component):
    first_parts: FirstParts

    def observe(self, requests: list[Request]) -> list[Observation]:
        if not requests or "chunk" not in self.m.text and "split" not in self.m.text:
            return []  # a finding needs a request that sends a piece
        found = []
        for fn, scope in self.m.functions:
            for loop in own_nodes(fn):
                if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.target, ast.Name):
                    observation = self.split_away(loop, loop.target.id, scope, requests)
                    if observation is not None:
                        found.append(observation)
        return found

    def split_away(self, loop: ast.For | ast.AsyncFor, piece: str, scope: Scope,
                   requests: list[Request]) -> Observation | None:
        """``for piece in pieces`` (or ``in split(prompt)``) where ``pieces`` is a prompt split to a
        size, a request in the loop sends ``piece``, and the prompt has instructions at one end."""
        split: ast.expr | None = loop.iter
        if isinstance(loop.iter, ast.Name):
            records = scope.assigns.get(loop.iter.id) or []
            if len(records) != 1 or records[0].kind != "=":
                return None
            split = records[0].value
        split = split.value if isinstance(split, ast.Await) else split
        if not (isinstance(split, ast.Call) and split.args and self.splits_to_size(split, scope)):
            return None
        sent = next((r for r in requests if _sends(r, piece, loop)), None)
        if sent is None:
            return None
        text = self.strings.text(split.args[0], Env(scope))
        if not text or all(p.slot is None for p in text):
            return None  # no material in the text: nothing to split the instructions from
        first_slot = next(i for i, p in enumerate(text) if p.slot is not None)
        last_slot = max(i for i, p in enumerate(text) if p.slot is not None)
        tail, head = _static(text[last_slot + 1:]), _static(text[:first_slot])
        if len(_LETTERS.findall(" ".join(p.text for p in tail))) >= _INSTRUCTIONS:
            where, kept, after, words = tail, "last", text[last_slot], "after"
        elif len(_LETTERS.findall(" ".join(p.text for p in head))) >= _INSTRUCTIONS:
            where, kept, after, words = head, "first", text[first_slot], "before"
        else:
            return None
        assert after.slot is not None
        if _restated(where, sent):
            return None  # the request sends the instructions again beside each piece
        code = self.m.code(split)
        span = self.m.span(split)
        instructions = _excerpt(" ".join(p.text for p in where))
        steps = (Evidence(EvidenceKind.FLOW, "each piece is sent in a request of its own", sent.anchor),)
        source = Source(SourceKind.TRUNCATION, code, span, cut=Cut("pieces", kept, "split-prompt"), flow=steps,
                        strong=True)
        detail = (f"`{code}` splits the prompt to a size and the loop at line {loop.lineno} sends each piece in a "
                  f"request of its own (line {sent.anchor.line}), but the instructions {words} "
                  f"`{after.slot.expression}` (\"{instructions}\", line {_first_line(where[0])}) are only in the "
                  f"{kept} piece: every other request gets part of the material and nothing that says what to do "
                  "with it. Split the material alone and send the instructions with each piece")
        return Observation("split-prompt", _spanning(where), detail, source=source)

    def splits_to_size(self, call: ast.Call, scope: Scope) -> bool:
        """A call that splits text to a size (`firstparts`), or of a function of the module named for
        splitting or chunking whose parameters size the pieces and which slices its first
        parameter (``def chunk_text(text, chunk_size=100_000): ... text[start:end]``)."""
        if self.first_parts.splits_to_size(call, scope):
            return True
        if not isinstance(call.func, ast.Name):
            return False
        name = call.func.id
        if "split" not in name.lower() and "chunk" not in name.lower():
            return False
        fn = _function(name, scope)
        if fn is None:
            return False
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        if not params or not any(_SIZE.search(p) for p in params[1:]):
            return False
        return any(isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)
                   and isinstance(node.value, ast.Name) and node.value.id == params[0] for node in walk(fn))


def _function(name: str, scope: Scope | None) -> FunctionNode | None:
    """The function ``name`` resolves to from ``scope`` (nested in it or in an enclosing scope)."""
    while scope is not None:
        found = scope.functions.get(name)
        if found is not None:
            node = found[0]
            return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        scope = scope.parent
    return None


def _sends(request: Request, piece: str, loop: ast.For | ast.AsyncFor) -> bool:
    """A request made in ``loop`` whose messages hold ``piece`` itself."""
    inside = loop.lineno <= request.anchor.line <= (loop.end_lineno or loop.lineno)
    return inside and any(s.slot is not None and s.slot.expression == piece for s in request.segments)


def _restated(instructions: list[Piece], request: Request) -> bool:
    """Whether the static text of ``request`` holds the first words of ``instructions``."""
    first = " ".join(" ".join(p.text for p in instructions).split())[:_INSTRUCTIONS]
    sent = " ".join(" ".join(s.text for s in request.segments if s.slot is None).split())
    return bool(first) and first in sent


def _static(pieces: list[Piece]) -> list[Piece]:
    return [p for p in pieces if p.slot is None and p.text.strip()]


def _first_line(piece: Piece) -> int:
    """The line of the first character of ``piece`` that is not white space."""
    text = piece.text
    return piece.span.line + text[:len(text) - len(text.lstrip())].count("\n")


def _spanning(pieces: list[Piece]) -> Span:
    first, last = pieces[0].span, pieces[-1].span
    return Span(first.path, first.line, first.column, last.end_line, last.end_column, first.cell)


def _excerpt(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"
