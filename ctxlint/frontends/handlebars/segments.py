"""From nodes to the shared model: the nodes that produce output with the loop around each, the
facts of a mustache's slot, and a plain template's segments."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from ctxlint.frontends.handlebars import nodes as hb
from ctxlint.frontends.handlebars.parser import parse
from ctxlint.frontends.locate import Locator, line_locator, span_maker
from ctxlint.model import Role, Segment, Slot, Span

# --- walking -----------------------------------------------------------------------------

LOOP_HELPERS = frozenset({"each"})


def walk(nodes: list[hb.Node]) -> Iterator[tuple[hb.Text | hb.Mustache | hb.Partial, str | None]]:
    """The nodes that produce output, each with the innermost loop around it (its source).

    ``{{#each items}}`` is a loop over ``items``; its ``{{else}}`` branch (no items) is not.
    Inline partial definitions are skipped: their body is only output where the partial is used.
    """
    frames: list[list[bool]] = []  # per open block: [pushed a loop, captures its body]
    loops: list[str] = []
    captured = 0
    loop_of: dict[int, str | None] = {}  # by call: the parser reuses one call for each repeated tag
    for node in nodes:
        if isinstance(node, hb.Open):
            loop = None
            if node.kind == "#":
                key = id(node.call)  # the nodes, and so their calls, live while this runs
                if key not in loop_of:
                    loop_of[key] = _loop_of(node.call)
                loop = loop_of[key]
            capture = node.kind == "#*"
            frames.append([loop is not None, capture])
            if loop is not None:
                loops.append(loop)
            captured += capture
        elif isinstance(node, hb.Else):
            frame = frames[-1]
            if frame[0]:
                loops.pop()
                frame[0] = False
            loop = _loop_of(node.call) if node.call is not None else None
            if loop is not None:
                loops.append(loop)
                frame[0] = True
        elif isinstance(node, hb.Close):
            looped, capture = frames.pop()
            if looped:
                loops.pop()
            captured -= capture
        elif not captured:
            yield node, loops[-1] if loops else None


def _loop_of(call: hb.Call) -> str | None:
    if call.helper in LOOP_HELPERS and not call.sub:
        return _source(call.params[0]) if call.params else call.helper
    return None


def _source(expr: hb.Expr) -> str:
    if isinstance(expr, hb.Call):
        return expr.text
    return expr.original


# --- slot facts --------------------------------------------------------------------------


ESCAPE = "escape"  # the filter name a slot gets when the engine HTML-escapes its value


@functools.lru_cache(maxsize=4096)  # a template repeats the same few tags; a Slot is immutable
def slot_facts(call: hb.Call, in_loop: bool = False, helpers: frozenset[str] = frozenset(),
               escaped: bool = False) -> Slot:
    """What a mustache reads and calls, without evaluating it.

    A head with arguments is a helper call (``formatDate now`` calls ``formatDate`` and reads
    ``now``); a bare path is a variable (``user.name``) unless it names one of ``helpers``, the
    argument-less helpers the host format defines (Dotprompt's ``history``). Sub-expressions are
    always calls. ``escaped`` says the engine HTML-escapes the output (Handlebars does for
    ``{{x}}``, not for ``{{{x}}}``; Dotprompt turns it off): the slot then has the filter
    ``escape``, as if it were written ``{{ x | e }}`` in Jinja.
    """
    names: list[str] = []
    calls: list[str] = []
    stack: list[hb.Expr] = [call]
    while stack:
        expr = stack.pop()
        if isinstance(expr, hb.Call):
            head = expr.head
            if isinstance(head, hb.Ref):
                if expr.has_arguments or expr.sub or head.name in helpers:
                    calls.append(head.name)
                else:
                    names.append(head.name)
            elif isinstance(head, hb.Call):
                stack.append(head)
            arguments = [*expr.params, *(value for _, value in expr.hash)]
            stack.extend(reversed(arguments))
        elif isinstance(expr, hb.Ref):
            names.append(expr.name)
    return Slot(
        call.text,
        tuple(dict.fromkeys(names)),
        tuple(dict.fromkeys(calls)),
        (ESCAPE,) if escaped else (),
        variable_length=in_loop,
    )


# --- plain Handlebars templates ----------------------------------------------------------


def parse_template(
    source: str,
    path: str,
    locate: Locator | None = None,
    default_role: Role = Role.SYSTEM,
    helpers: frozenset[str] = frozenset(),
    html_escape: bool = True,
) -> list[Segment]:
    """A Handlebars template as static and slot segments, all in ``default_role``.

    For hosts without role markup of their own; Dotprompt adds its role helpers on top.
    ``html_escape=False`` for hosts that compile with ``noEscape``. Raises ``HandlebarsError``.
    """
    span = span_maker(path, locate or line_locator(source))
    segments: list[Segment] = []
    for node, loop in walk(parse(source)):
        if isinstance(node, hb.Text):
            segments.append(Segment(default_role, span(node.start, node.end), node.value, None, 0, loop))
        else:
            segments.append(content_segment(node, loop, default_role, 0, span, helpers, html_escape))
    return segments


def content_segment(node: hb.Mustache | hb.Partial, loop: str | None, role: Role, message_index: int,
                    span: Callable[[int, int], Span], helpers: frozenset[str] = frozenset(),
                    html_escape: bool = True, read: dict[tuple[int, bool, bool], Slot] | None = None) -> Segment:
    """The slot segment for a mustache or a partial (whose content is not known here).

    ``read`` keeps the slots made, by call: a caller walking one template's nodes passes the same
    dict (with the same ``helpers``), and the parser reuses one call for each repeated tag
    (hashing a call for ``slot_facts``'s cache is a walk of it)."""
    if isinstance(node, hb.Partial):
        slot = Slot("> " + node.call.text, variable_length=loop is not None)
    else:
        escaped = html_escape and node.escaped
        key = (id(node.call), loop is not None, escaped)
        known = read.get(key) if read is not None else None
        slot = known if known is not None else slot_facts(node.call, loop is not None, helpers, escaped)
        if read is not None and known is None:
            read[key] = slot
    return Segment(role, span(node.start, node.end), slot.expression, slot, message_index, loop)
