"""Third-party content filled into a prompt template that another module defines.

``DATA_INFO.format(info=output)``, with ``DATA_INFO`` imported, is read here as an opaque value,
its text being in the other module. Where that text sets the field on a line of its own under a
label line or heading and nothing follows it (``# Latest data\\nWhat the check printed:\\n{info}``),
the content is labelled as a block that ends with the message: data flow from a real source still
reaches the prompt, but the label around it is not read here, so the source is weak evidence.

Where such a template sets a field apart under a heading of its own (``---Data tables---`` above
``{context_data}`` alone on its line), the value filled there is a block of data the template
names: ``headed_fields`` gives each such field as a fact of the filled value, which the trust
analysis weighs with the value's own name.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Evidence, EvidenceKind, Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.scopes import Scopes
    from ctxlint.frontends.python.values import Env

# A label line (a few words ending in a colon) or a Markdown heading, then the field alone on the
# last line of the template.
_LABELLED_LAST = r"(?:^|\n)[ \t]*(?:#{{1,6}}[ \t]+[^\n]+|[^\n:]{{1,80}}:)[ \t]*\n[ \t]*\{{{field}\}}\s*$"


def filled_unread_template(m: Unit, call: ast.Call, arg: ast.expr, found: Source) -> Source:
    """``found`` (what ``arg`` carries) as it reaches the value of ``call``: weak when ``call``
    fills a template imported from another module that labels ``arg``'s field as its last block."""
    func = call.func
    field = next((k.arg for k in call.keywords if k.value is arg), None)
    if not (field and isinstance(func, ast.Attribute) and func.attr == "format"
            and isinstance(func.value, ast.Name) and func.value.id in m.from_imports):
        return found
    located = m.foreign(m.imports[func.value.id], m.import_levels.get(func.value.id, 0))
    template = located[1] if located is not None else None
    if not (isinstance(template, ast.Constant) and isinstance(template.value, str)
            and re.search(_LABELLED_LAST.format(field=re.escape(field)), template.value)):
        return found
    step = Evidence(EvidenceKind.FLOW, f"filled into `{func.value.id}` under a label of its own there, not read here",
                    m.span(call), strong=False)
    return replace(found, strong=False, flow=(*found.flow, step))


# A heading line (`---Data tables---`, `## Sources`, `Context data:`), blank lines, then the field
# alone on its line: the template names the block the field fills.
_HEADED = (r"(?:^|\n)[ \t]*(?:(?:-{{2,}}|={{2,}}|#{{1,6}})[ \t]*(?P<marked>[A-Za-z][\w \t]{{0,40}}?)[ \t]*"
           r"(?:-{{2,}}|={{2,}})?|(?P<colon>[A-Za-z][\w \t]{{0,40}}?)[ \t]*:)[ \t]*\n(?:[ \t]*\n)*"
           r"[ \t]*\{{{field}\}}[ \t]*(?:\n|$)")


def headed_fields(m: Unit, scopes: Scopes, call: ast.Call, env: Env) -> list[tuple[ast.expr, Source]]:
    """The keyword fields of ``call`` (``TEMPLATE.format(context_data=chunks)``) that the template,
    a text constant another module of the project defines, sets alone under a heading of its own;
    the template is followed through ``self.`` attributes and ``prompt or DEFAULT_PROMPT``. Each
    comes with the value passed, whose names the caller gives the source (its ``why``)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "format" and call.keywords):
        return []
    text = _foreign_template(m, scopes, func.value, env)
    if text is None:
        return []
    found = []
    for keyword in call.keywords:
        if keyword.arg is None or f"{{{keyword.arg}}}" not in text:  # the pattern needs the field itself
            continue
        match = re.search(_HEADED.format(field=re.escape(keyword.arg)), text)
        if match is None:
            continue
        heading = " ".join((match.group("marked") or match.group("colon")).split())
        found.append((keyword.value, Source(SourceKind.HEADED_FIELD, heading, m.span(keyword.value))))
    return found


def _foreign_template(m: Unit, scopes: Scopes, node: ast.expr, env: Env) -> str | None:
    """The text of the template constant of another module ``node`` holds, if it does (through
    names, ``self.`` attributes, a parameter's default and ``prompt or DEFAULT_PROMPT``)."""
    for _ in range(4):
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2:
            node = node.values[1]  # `prompt or DEFAULT_PROMPT`: the one the project ships
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        if isinstance(node, ast.Name) and env.scope.kind == "function" and node.id in env.scope.params \
                and env.bound(node.id) is None:
            default = env.scope.params[node.id].default  # `system_prompt: str = SYSTEM_PROMPT`: what it ships
            if default is None:
                return None
            node = default
            continue
        binding = scopes.resolve(node, env, foreign=True)
        if binding is None or binding.extras:
            return None
        value = binding.value
        if binding.owner is not None:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
            return None
        node, env = value, binding.env
    return None
