"""Checks of the `ctxlint:` comments themselves."""

from __future__ import annotations

from ctxlint.checks import suppression_check
from ctxlint.context import CheckContext
from ctxlint.directives import CodeRef, Suppression, SuppressionUse, removal_fix


@suppression_check
def unused_suppression(use: SuppressionUse, ctx: CheckContext) -> None:
    """Report misspelt directives, and suppressions that name unknown rules or cover nothing."""
    for problem in use.directives.malformed:
        ctx.report(problem.span, problem.message, kind="directive")
    for index, suppression in enumerate(use.directives.suppressions):
        if suppression.codes is None:
            # Without codes it suppresses every rule: unused only if every rule ran and none
            # reported anything where it applies.
            if use.parsed and use.complete and (index, None) not in use.used:
                ctx.report(suppression.span, f"`{suppression.text}` suppresses nothing: no rule reports anything "
                           f"{_where(suppression)}. Remove it.", removal_fix(use, suppression, []),
                           kind="directive")
            continue
        _check_codes(use, index, suppression, ctx)


def _check_codes(use: SuppressionUse, index: int, suppression: Suppression, ctx: CheckContext) -> None:
    if not suppression.codes:
        ctx.report(suppression.span, f"`{suppression.text}` names no rule, so it suppresses nothing. Name the rule, "
                   "or remove it.", removal_fix(use, suppression, []), kind="directive")
        return
    code_of = use.directives.code_of
    unknown = [ref for ref in suppression.codes if code_of(ref) not in use.known]
    # A rule that did not run here (not selected, per-file ignored) might have needed it; and
    # a file that did not parse was not fully checked. Neither says the suppression is unused.
    # Compared by identity: a directive may name thousands of codes (a mangled generated file).
    unknown_ids = {id(ref) for ref in unknown}
    unused = [ref for ref in suppression.codes
              if use.parsed and id(ref) not in unknown_ids and code_of(ref) != ctx.rule.code
              and code_of(ref) in use.ran and (index, code_of(ref)) not in use.used]
    if not unknown and not unused:
        return
    parts = []
    if unused:
        names = _list(unused)
        verb = "reports" if len(unused) == 1 else "report"
        parts.append(f"{names} {verb} nothing {_where(suppression)}")
    if unknown:
        names = _list(unknown)
        parts.append(f"{names} {'is not a rule code or name' if len(unknown) == 1 else 'are not rule codes or names'} "
                     "(see `ctxlint rule`)")
    dropped = unknown_ids | {id(ref) for ref in unused}
    keep = [ref for ref in suppression.codes if id(ref) not in dropped]
    if keep:
        lead = f"`{suppression.text}`"
        action = f"Remove {'it' if len(unused) + len(unknown) == 1 else 'them'} from the list."
    else:
        lead, action = f"`{suppression.text}` suppresses nothing", "Remove it."
    ctx.report(suppression.span, f"{lead}: {'; '.join(parts)}. {action}",
               removal_fix(use, suppression, keep), kind="directive")


def _where(suppression: Suppression) -> str:
    if suppression.file_level:
        return "in this file"
    return "on the line it covers" if len(suppression.lines) == 1 else "on the lines it covers"


LISTED = 10  # codes named in one message; the rest are counted


def _list(refs: list[CodeRef]) -> str:
    names = ", ".join(f"`{ref.text}`" for ref in refs[:LISTED])
    return names if len(refs) <= LISTED else f"{names} and {len(refs) - LISTED:,} more"
