"""Which template language a text is written in, read from the text itself.

A file's suffix or a YAML key does not always say it: code-generation agents keep Jinja
templates as ``*.prompt`` (Dotprompt's suffix), and spec and test files keep Handlebars
templates under keys that hold Jinja elsewhere. Each language has constructs the other
rejects; :func:`sniff` answers only when the text uses one language's and none of the
other's, so a wrong guess never turns valid text into a syntax error.

Jinja only: statements (``{% … %}``), comments (``{# … #}``), whitespace control
(``{{- … -}}``), filters (``{{ x | upper }}``), calls and subscripts (``{{ f(x) }}``,
``{{ x['k'] }}``). Handlebars only: blocks and partials (``{{#each}}``, ``{{/each}}``,
``{{> name}}``, ``{{^}}``), comments (``{{! … }}``), raw output (``{{{x}}}``), whitespace
control (``{{~ … ~}}``), ``{{else}}``, ``@data`` and ``../`` paths, and helper calls whose
arguments follow the helper after a space (``{{role "system"}}``, ``{{json schema}}``), which
Jinja cannot parse.
"""

from __future__ import annotations

import re

# Words that join two operands in a Jinja expression: `{{ a if b else c }}`, `{{ x is defined }}`.
_JINJA_WORDS = r"(?:if|else|and|or|not|in|is)\b"
_MUSTACHE = re.compile(r"\{\{(?!\{)(?P<inner>[^{}]*)\}\}")
_JINJA_TAGS = re.compile(r"\{%|(?<!\{)\{#|\{\{-|-\}\}")
_HANDLEBARS_TAGS = re.compile(r"\{\{~?\s*(?:[#/>^!@]|else\s*~?\}\}|\.\./)|\{\{\{|~\}\}")
# Inside one `{{ … }}`: a filter, a call or a subscript (Jinja), or a helper and its first
# argument separated by a space (Handlebars).
_FILTER_OR_CALL = re.compile(r"(?<![|])\|(?![|])\s*[A-Za-z_]|[\w)\]]\(|[A-Za-z_\d)\]]\[")
_BLOCK_TAG = re.compile(r"\s*~?\s*[#/>^!]")
_HELPER_CALL = re.compile(rf"^\s*~?(?!{_JINJA_WORDS})[A-Za-z_][\w.-]*\s+(?!{_JINJA_WORDS})"
                          r"(?:\"|'|[A-Za-z_@(]|\d|\.\./)")


def sniff(text: str) -> str | None:
    """``"jinja"`` or ``"handlebars"`` when the text uses constructs of that language only;
    None when it uses neither's (plain ``{{ name }}`` reads the same in both) or both's."""
    jinja = _JINJA_TAGS.search(text) is not None
    handlebars = _HANDLEBARS_TAGS.search(text) is not None
    if not (jinja and handlebars):
        for match in _MUSTACHE.finditer(text):
            inner = match.group("inner")
            if _BLOCK_TAG.match(inner):
                continue  # `{{#each items as |item|}}`: its bars are block parameters, not a filter
            if _FILTER_OR_CALL.search(inner):
                jinja = True
            elif _HELPER_CALL.match(inner):
                handlebars = True
            if jinja and handlebars:
                break
    if jinja == handlebars:
        return None
    return "jinja" if jinja else "handlebars"
