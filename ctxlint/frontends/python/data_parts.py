"""What the code marks as data rather than text to label: a value sent in a tool-role message (the
role says it is a tool's result), and content encoded into something no model reads as
instructions (base64, an image or audio part with its media type, a content part of a type that
holds no text)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.literals import string_value
from ctxlint.model import Source, SourceKind
from ctxlint.providers import part_text

if TYPE_CHECKING:
    from ctxlint.frontends.python.callees import Callees
    from ctxlint.frontends.python.scopes import Scopes
    from ctxlint.frontends.python.values import Env

# The evidence of a name the function sends back as a tool's result, and nothing else.
SENT_AS_TOOL_RESULT = "a tool result"


def sent_in_its_own_role(message: ast.Dict) -> bool:
    """A chat message whose role is the tool's, or decided at run time (`message.role`), or an
    Anthropic ``tool_result`` block or a Responses ``function_call_output`` item: a name it sends
    is known as a tool result only because the code sends it there, which marks it as data; as
    such a message's content it is not pasted into anyone's text."""
    for key, value in zip(message.keys, message.values, strict=True):
        name = string_value(key) if key is not None else None
        if name == "role":
            return string_value(value) not in ("system", "developer", "user", "assistant")
    return result_block(message)


def result_block(block: ast.Dict) -> bool:
    """An Anthropic ``tool_result`` block or a Responses ``function_call_output`` item: whatever
    it carries, the API tells the model it is a tool's output, tied to the call that asked."""
    return any(key is not None and string_value(key) == "type" and string_value(value) in _RESULT_ITEMS
               for key, value in zip(block.keys, block.values, strict=True))


_RESULT_ITEMS = ("tool_result", "function_call_output")


def unlabelled_in(message: ast.Dict, sources: list[Source]) -> list[Source]:
    """What a tool's message (``sent_in_its_own_role``) carries that it does not label: not the
    names known as tool results only because it sends them, and nothing a result block holds."""
    block = result_block(message)
    return [s for s in sources if s.detail != SENT_AS_TOOL_RESULT and not (block and s.kind is SourceKind.UNTRUSTED)]


# Calls that encode content into text no model reads as instructions.
ENCODERS = ("b64encode", "urlsafe_b64encode", "standard_b64encode", "b32encode", "b16encode", "hexlify")
_MEDIA_TYPE_KEYWORDS = ("mime_type", "media_type", "mimetype", "mimeType", "content_type")


def encodes(call: ast.Call, name: str) -> bool:
    """Whether the call (whose last name is ``name``) turns its arguments into something no model
    reads as instructions: base64 text, a part with a literal media type that is not text
    (`Part.from_bytes(data=raw, mime_type="image/jpeg")`), or a part made from raw bytes whose
    media type the code works out (`Part.from_bytes(data=raw, mime_type=mime)`: a file shown to the
    model, not text written into its prompt) unless that type is written as text."""
    media = [string_value(k.value) for k in call.keywords if k.arg in _MEDIA_TYPE_KEYWORDS]
    if name == "from_bytes" and media and not any(m is not None and m.startswith("text/") for m in media):
        return True
    return name in ENCODERS or any((m or "").startswith(("image/", "audio/", "video/")) for m in media)


def built_part_without_text(callees: Callees, scopes: Scopes, node: ast.expr, env: Env) -> bool:
    """``parts.append(attachment_part(upload))``: a content part the code writes, or a function of
    the project (of any module) builds, when every value it returns is None or a part of a type
    that holds no text (``{"type": "file", "file": {...}}``, ``{"type": "image_url", ...}``). Such a
    part adds no text to the message, so neither the names nor the sources of what it encodes are
    read as the message's text."""
    node, env = scopes.deref(node, env)
    node = node.value if isinstance(node, ast.Await) else node
    if isinstance(node, ast.Dict):
        return _part_without_text(node)
    target = callees.function_for(node, env, foreign=True) if isinstance(node, ast.Call) else None
    if target is None:
        return False
    parts = [value for value in target.returns if not (isinstance(value, ast.Constant) and value.value is None)]
    return bool(parts) and all(_part_without_text(value) for value in parts)


def _part_without_text(node: ast.expr) -> bool:
    """A content part written as a dict literal with string keys whose type holds no text
    (``providers.part_text``); not a message (``role``, ``content``), whose text is a message's."""
    if not isinstance(node, ast.Dict):
        return False
    keys = [string_value(k) if k is not None else None for k in node.keys]
    if any(k is None for k in keys):
        return False
    named = {k for k in keys if k is not None}
    kind = next((string_value(v) for k, v in zip(keys, node.values, strict=True) if k == "type"), None)
    return kind is not None and not named & {"role", "content"} and part_text(kind, named) is None
