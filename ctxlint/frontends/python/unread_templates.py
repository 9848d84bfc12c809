"""Third-party content filled into a prompt template that another module defines.

``DATA_INFO.format(info=output)``, with ``DATA_INFO`` imported, is read here as an opaque value,
its text being in the other module. Where that text sets the field on a line of its own under a
label line or heading and nothing follows it (``# Latest data\\nWhat the check printed:\\n{info}``),
the content is labelled as a block that ends with the message: data flow from a real source still
reaches the prompt, but the label around it is not read here, so the source is weak evidence.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Evidence, EvidenceKind, Source

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
