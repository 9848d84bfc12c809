"""What the order passes take for where ordered text arrives (orderprompts.py): the text of a chat
message built with its role, a keyword the code names for what a model is given, and when two
observations of one listing reach the same place."""

from __future__ import annotations

import ast

from ctxlint.frontends.code.words import matches
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.cutreach import FOR_MODEL
from ctxlint.frontends.python.knowledge import LISTINGS
from ctxlint.frontends.python.literals import string_value
from ctxlint.model import Observation


def same_far_sink(one: Observation, other: Observation) -> bool:
    """Two listings' texts that reach the same prompt of another module: one function's list,
    looped over by the one that returns its text, reported once (at the first)."""
    sinks = [o.source.flow[-1].span for o in (one, other) if o.source and o.source.flow]
    return len(sinks) == 2 and sinks[0] is not None and sinks[0] == sinks[1] and sinks[0].path != one.span.path


def same_listing_sink(one: Observation, other: Observation) -> bool:
    """A listing's text, and the same text again where the function it is returned to loops over
    it or joins it, reaching one sink: one problem, reported once."""
    if one.source is None or other.source is None or one.source.detail != other.source.detail \
            or one.source.detail not in LISTINGS or not one.source.flow or not other.source.flow:
        return False
    return one.source.flow[-1].span == other.source.flow[-1].span


def for_model_keyword(call: ast.Call) -> ast.keyword | None:
    """The keyword named for what a model is given (``result_for_llm=``, ``text_for_model=``)."""
    return next((k for k in call.keywords if k.arg is not None and matches(k.arg.lower(), FOR_MODEL)), None)


def for_model(call: ast.Call) -> ast.expr | None:
    """The value of that keyword."""
    keyword = for_model_keyword(call)
    return keyword.value if keyword is not None else None


def message_text(node: ast.AST) -> ast.expr | None:
    """The text of a chat message built with its role: ``ChatMessage(content=text, role="user")``
    (a class of the project's own), ``dict(role="user", content=text)``, ``{"role": ..., "content": text}``."""
    if isinstance(node, ast.Call):
        called, given = last_name(node.func) or "", {k.arg: k.value for k in node.keywords}
        if (called == "dict" or (called.endswith("Message") and called[:1].isupper())) and "role" in given:
            return given.get("content")
    if isinstance(node, ast.Dict):
        keyed = {k.value: v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
        if "role" in keyed:
            return keyed.get("content")
    return None


def tool_result(message: ast.Dict) -> bool:
    """Whether a chat message is a tool's result: written in the tool's role (``{"role": "tool"}``)."""
    return any(key is not None and string_value(key) == "role" and string_value(value) in ("tool", "function")
               for key, value in zip(message.keys, message.values, strict=True))


def tool_result_said(asked: ast.expr | ast.stmt, called: str, line: int) -> tuple[str, str, str] | None:
    """What ordered text arriving in a tool's result message (newest when added, then kept as
    written) is said to do: its order changes no prefix a later call could read from the cache."""
    if not (isinstance(asked, ast.Dict) and tool_result(asked)):
        return None
    return ("order-in-tool-result", f"put into the tool's result message `{called}`",
            f"its order becomes the order of the text of the tool's result message `{called}` (line {line}), "
            "added once to the end of the conversation")
