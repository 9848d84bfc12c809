"""What a short label is called (a title, a name, an id, a query): cutting one to fit a field is
not cutting what a model reads, unless the code shows the name holds a message's content."""

from __future__ import annotations

import ast

from ctxlint.frontends.code.words import matches
from ctxlint.frontends.python.knowledge import STRING_NAMES

_LABELS = ("*title*", "*name", "*names", "id", "*_id", "*_ids", "*key", "*label*", "*slug*", "*path", "*url", "*query",
           "*filename*", "*hash*", "*sha", "*uuid*", "*preview*", "*log*", "*caption*", "*display*", "*header*")


def is_label(name: str) -> bool:
    last = name.rsplit(".", 1)[-1].lower()
    return bool(last) and matches(last, _LABELS) and not matches(last, STRING_NAMES)


def message_content(node: ast.AST) -> bool:
    """``message["content"]``: the text of a chat message."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "content"


def reads_content(value: ast.expr) -> bool:
    """Whether a value is read from a chat message's content (``query = str(last["content"])``,
    ``msg.content``): the whole turn a model reads, whatever the name it is given."""
    return any(message_content(n) or (isinstance(n, ast.Attribute) and n.attr == "content") for n in ast.walk(value))
