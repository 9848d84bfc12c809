"""Trust: third-party content must be labelled as data, escaped, and kept out of the system role."""

from __future__ import annotations

from ctxlint.analysis import trust
from ctxlint.checks import request_check
from ctxlint.context import CheckContext
from ctxlint.model import Request, Role


def _untrusted(request: Request, ctx: CheckContext):
    for index, segment in enumerate(request.segments):
        reason = trust.untrusted_reason(segment, ctx.settings.trust, ctx.directives)
        if reason is not None:
            yield index, segment, reason


@request_check
def untrusted_without_label(request: Request, ctx: CheckContext) -> None:
    for index, segment, reason in _untrusted(request, ctx):
        if segment.role is Role.TOOL:
            continue  # a tool message: the API's tool role already marks its content as data
        if trust.delimiter(request, index, ctx.settings.trust["delimiters"]) is None:
            ctx.report(
                segment.span,
                f"`{segment.text}` carries untrusted content ({reason}) with no trust label, so "
                "instructions hidden in it read like yours. Wrap it in a delimiter such as "
                "<untrusted_document source=\"…\">…</untrusted_document> and escape it.",
            )


@request_check
def untrusted_in_system(request: Request, ctx: CheckContext) -> None:
    if not request.roles_marked:
        return  # a bare template: which role it is sent in is decided elsewhere
    for _, segment, reason in _untrusted(request, ctx):
        if segment.role is Role.TOOLS:
            ctx.report(
                segment.span,
                f"`{segment.text}` carries untrusted content ({reason}) in a tool description, which "
                "the model reads as the developer's own instructions for the tool. Keep descriptions "
                "static; pass the content in a tool result or a user message, wrapped in a delimiter "
                "and escaped.",
            )
        elif segment.role in (Role.SYSTEM, Role.DEVELOPER):
            ctx.report(
                segment.span,
                f"`{segment.text}` carries untrusted content ({reason}) in the {segment.role.value} "
                "role, where text has the most authority. Move it to a user message, wrapped in a "
                "delimiter and escaped.",
            )


@request_check
def unescaped_delimited_content(request: Request, ctx: CheckContext) -> None:
    for index, segment, reason in _untrusted(request, ctx):
        tag = trust.delimiter(request, index, ctx.settings.trust["delimiters"])
        if tag is not None and not trust.escaped(segment, ctx.settings.trust["escapes"]):
            ctx.report(
                segment.span,
                f"`{segment.text}` ({reason}) sits inside <{tag}> but is not escaped: content that "
                f"contains </{tag}> closes the label early, and what follows reads as instructions. "
                "Escape it (`| e`, `| tojson`, html.escape) or datamark it.",
            )
