"""A function of the project that gives back a model's answer (``def ask(prompt, system): ...
return completion.choices[0].message.content``): what a call of it returns is the model's own
text, whatever the name it is kept under says (``reviews = critic.review(draft)``).

A summary of the function, made once per function with its parameters unknown, as the other
function summaries are (wrappers.py): a return of it gives the answer of a request it sends, or
of a function of the project that does (``return f"Critic:\\n{first}"`` after ``first =
ask(...)``), through its f-strings, concatenations and tuples. A function that gives back a page
it fetched on another path still gives that page: its facts carry the content as well, and
content outweighs an answer where the two meet (analysis/trust.py)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.values import Env
from ctxlint.model import Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.messages import Messages

# How many functions deep an answer is followed (a service calling a client calling the SDK is two).
MAX_HANDOVERS = 4
# Methods of a text that give back the same text, trimmed or recased (``answer.strip()``).
_SAME_TEXT = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold"})


def answer_of(messages: Messages, call: ast.expr, env: Env, handovers: int) -> Source | None:
    """The answer a function of the project that ``call`` calls gives back, if it gives one."""
    if not isinstance(call, ast.Call) or not returns_answer(messages, call, env, handovers):
        return None
    return Source(SourceKind.MODEL_OUTPUT, f"the answer `{messages.m.short(call.func)}(...)` gives back",
                  messages.m.span(call))


def returns_answer(messages: Messages, call: ast.Call, env: Env, depth: int = 0) -> bool:
    """Whether ``call`` calls a function of the project that gives back a model's answer."""
    found = messages.callees.callee(call.func, env, foreign=True)
    if found is None:
        return False
    owner, fn, scope, _ = found
    reader = owner.messages if owner is not None else messages
    memo = reader.m.answer_memo
    known = memo.get(id(fn))
    if known is not None:
        return known
    memo[id(fn)] = False  # while it is read: a function that hands back its own call gives no answer that way
    inner = Env(scope)
    memo[id(fn)] = depth < MAX_HANDOVERS and any(
        _gives_answer(reader, part, inner, depth) for value in scope.returns for part in _parts(value))
    return memo[id(fn)]


def _gives_answer(messages: Messages, node: ast.expr, env: Env, depth: int) -> bool:
    if isinstance(node, ast.Call):
        if messages.sinks.is_sink(node, env):
            return True
        return returns_answer(messages, node, env, depth + 1)
    return messages.model_answer(node, env, handovers=depth + 1) is not None


def _parts(node: ast.expr) -> list[ast.expr]:
    """The values a returned expression's text is made of (``f"{a}\\n{b}"``, ``a + b``, ``(score, a)``)."""
    while True:
        if isinstance(node, ast.Await):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_TEXT:
            node = node.func.value
        else:
            break
    if isinstance(node, ast.JoinedStr):
        return [p for v in node.values if isinstance(v, ast.FormattedValue) for p in _parts(v.value)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [*_parts(node.left), *_parts(node.right)]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [p for item in node.elts for p in _parts(item)]
    return [node]
