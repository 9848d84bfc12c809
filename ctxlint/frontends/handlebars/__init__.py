"""A small Handlebars parser: it never renders, and it knows where everything is.

``parse`` turns a template into a flat list of nodes with exact offsets: static ``Text``,
``Mustache`` (``{{name}}``, ``{{{raw}}}``, ``{{helper arg key=value}}``), ``Partial``
(``{{> name}}``) and the block structure as events (``Open`` ``{{#each items}}``, ``Else``
``{{else}}`` / ``{{else if x}}`` / ``{{^}}``, ``Close`` ``{{/each}}``). A flat list keeps
every pass iterative, so a thousand nested blocks cost nothing but a stack.

Handled as Handlebars 4 does: comments ``{{! … }}`` and ``{{!-- … --}}`` (no node), whitespace
control ``{{~ … ~}}`` (the adjacent text loses its whitespace), escaped mustaches ``\\{{``
(literal text up to the next mustache; ``\\\\{{`` is a backslash then a real mustache), raw
blocks ``{{{{raw}}}} … {{{{/raw}}}}`` (literal text), sub-expressions ``(helper x)``, string,
number and boolean literals, ``@data`` variables, ``../`` and ``this.`` paths, ``[literal]``
segments, block parameters ``as |item index|``, partial blocks ``{{#> layout}}`` and inline
partial definitions ``{{#*inline "name"}}`` (their body is a definition, not output). Not done:
the "standalone line" rule that drops a block tag's own line, which only moves whitespace.

Syntax errors (an unterminated mustache or comment, a block never closed, a close tag that
does not match, a stray ``{{else}}``) raise ``HandlebarsError`` with the offset to report.

The package: ``nodes`` (what a template is made of: ``Text``, ``Mustache`` ...), ``parser``
(``parse``), ``segments`` (``walk``, ``slot_facts`` and a plain template's segments for the
shared model).
"""

from __future__ import annotations

from ctxlint.frontends.handlebars.nodes import MAX_SUBEXPRESSION_DEPTH, HandlebarsError
from ctxlint.frontends.handlebars.parser import parse
from ctxlint.frontends.handlebars.segments import (
    ESCAPE,
    LOOP_HELPERS,
    content_segment,
    parse_template,
    slot_facts,
    walk,
)

__all__ = ["ESCAPE", "LOOP_HELPERS", "MAX_SUBEXPRESSION_DEPTH", "HandlebarsError", "content_segment", "parse",
           "parse_template", "slot_facts", "walk"]
