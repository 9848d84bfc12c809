"""The text of a turn of a conversation, cut while the conversation is written out as a transcript.

``for msg in messages: lines.append(f"User: {msg['content'][:500]}")``: each turn of the
transcript a model is given (to summarise it, to judge it, to go on from it) keeps only its start,
and the transcript reads as the conversation itself. What is read from a turn is followed through
the loop that walks the conversation: the loop's item, the items of a loop over its parts
(``for part in m.parts``) and the names the loop gives a value read from one of them (``text =
extract_text(msg.get("content"))``, then ``text = text.strip()``). So is one exchange written
under a speaker's name in an f-string (``f"User: {user_input[:12000]}"`` in a summary prompt), when
the cut keeps enough to be read as what was said (``markers.LEAST_SPOKEN``), wherever the f-string goes.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from fnmatch import fnmatchcase

from ctxlint.markers import names_a_speaker

# A turn's text cut to fewer characters than this is a label, a preview or a hint of what was
# asked (`prior_queries.append(text[:200])` for a classifier, judged debatable), not the turn
# given to be read.
LEAST_TURN = 300
_UNWRAP = ("enumerate", "reversed", "list", "iter", "sorted")


def reads_a_turn(parents: dict[int, ast.AST], node: ast.expr, subject: ast.expr, history: Sequence[str]) -> bool:
    """Whether ``subject`` (cut by ``node``) is text read from a turn of a conversation that a loop
    around ``node`` walks (the loop's collection named as ``history`` says)."""
    loop = _history_loop(parents, node, history)
    if loop is None:
        return False
    turns = _turn_names(loop, node)
    return any(isinstance(n, ast.Name) and n.id in turns for n in ast.walk(subject))


def spoken(parents: dict[int, ast.AST], node: ast.expr) -> bool:
    """Whether ``node`` is written in an f-string right after text that ends a line with a speaker's
    name (``f"...\\nUser: {user_input[:12000]}"``): one exchange of a transcript, given to be read whole."""
    field = parents.get(id(node))
    string = parents.get(id(field)) if isinstance(field, ast.FormattedValue) else None
    if not isinstance(string, ast.JoinedStr):
        return False
    index = next(i for i, value in enumerate(string.values) if value is field)
    before = string.values[index - 1] if index else None
    return isinstance(before, ast.Constant) and isinstance(before.value, str) and names_a_speaker(before.value)


def _history_loop(parents: dict[int, ast.AST], node: ast.AST, history: Sequence[str]) -> ast.For | None:
    """The nearest loop around ``node`` in its function that walks a conversation."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(current, ast.For) and _walks_history(current.iter, history):
            return current
        current = parents.get(id(current))
    return None


def _walks_history(iterated: ast.expr, history: Sequence[str]) -> bool:
    while isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.args \
            and iterated.func.id in _UNWRAP:
        iterated = iterated.args[0]
    if isinstance(iterated, ast.Subscript) and isinstance(iterated.slice, ast.Slice):
        iterated = iterated.value  # `messages[-10:]`
    last = iterated.id if isinstance(iterated, ast.Name) else iterated.attr if isinstance(iterated, ast.Attribute) \
        else ""
    return bool(last) and any(fnmatchcase(last.lower(), p) for p in history)


def _turn_names(loop: ast.For, node: ast.AST) -> set[str]:
    """The names that hold a turn, a part of one, or a value read from one, before ``node``."""
    names = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    line = getattr(node, "lineno", 0)
    statements = [s for s in ast.walk(loop) if isinstance(s, (ast.For, ast.Assign, ast.AnnAssign))
                  and s is not loop and s.lineno <= line]
    for _ in range(3):  # names given from names given from the turn
        before = len(names)
        for statement in statements:
            value = statement.iter if isinstance(statement, ast.For) else statement.value
            targets = [statement.target] if isinstance(statement, (ast.For, ast.AnnAssign)) else statement.targets
            if value is not None and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value)):
                names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        if len(names) == before:
            break
    return names
