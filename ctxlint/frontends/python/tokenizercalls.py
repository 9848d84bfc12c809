"""A project's own wrappers of a tokenizer's two directions (``encode_tokens(text)``,
``decode_tokens(tokens)``), known by what they do, not by their names.

A project often keeps its tokenizer behind two small functions of its own, so that the rest of the
code never loads it (``def decode_tokens(tokens): return encoding.decode(tokens)``, with a fallback
for when the tokenizer cannot load). A call of one by plain name is a call of the tokenizer: a
text cut to tokens through them (``decode_tokens(encode_tokens(text)[-n:])``) is a token cut, as
``enc.decode(enc.encode(text)[-n:])`` is. A function is such a wrapper when one of its returns hands
its first parameter, as it is, to a tokenizer's method of that direction and gives back the result.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from typing import TYPE_CHECKING

from ctxlint.frontends.python.values import Env, Scope

if TYPE_CHECKING:
    from ctxlint.frontends.python.unit import Component

# A tokenizer's methods, by direction.
TO_TOKENS = ("encode", "tokenize")


def wrapped_step(part: Component, call: ast.Call, env: Env, methods: Collection[str]) -> bool:
    """Whether ``call`` (by plain name, one argument) runs a project function that returns its first
    parameter passed through a tokenizer method of ``methods`` (``return encoding.decode(tokens)``)."""
    if not isinstance(call.func, ast.Name) or len(call.args) != 1 or call.keywords:
        return False
    found = part.callees.remembered_callee(call, env)
    if found is None:
        return False
    scope = found[2]
    if not isinstance(scope, Scope) or not scope.positional:
        return False
    param = scope.positional[0]
    return any(isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in methods
               and len(value.args) == 1 and isinstance(value.args[0], ast.Name) and value.args[0].id == param
               for value in scope.returns)
