"""A page's raw text or a process's stream cut to a length with nothing in its place
(``el.innerText.slice(0, 8000)``, ``result.stdout.slice(-4000)``): what the Python front-end calls a
raw-output cut, known by the name of what it cuts (the same names: ``inner_text``, ``stdout``, a
name ending ``_html``; and the DOM's ``textContent``). What an agent reads back after it runs a
command or reads a page is made for a model wherever it goes, so no request of the module need be
seen to send it.

A module that drives a browser often writes the script it runs in the page as a template string
(``readCode = `(function() { ... return main.innerText.slice(0, 8000); })()` ``, then
``evaluate(readCode)``): that text is JavaScript too. A template string that parses whole as a
script once each ``${...}`` is read as a name, and holds a function, is read the same way, its
cuts located in the module.

A cut counts when it keeps at least ``MIN_CONTENT`` characters (or a bound named as a budget), a
marker does not follow it (``+ "…"``, ``${text.slice(0, n)}… [truncated]``), and its value is not
an error's or a log's (``throw new Error(...)``, ``console.error(...)``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from fnmatch import fnmatchcase

from ctxlint.frontends.code.words import RAW_OUTPUT_NAMES
from ctxlint.frontends.typescript import syntax
from ctxlint.frontends.typescript.knowledge import RAW_CUT, Node, snake
from ctxlint.frontends.typescript.syntax import walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.markers import cut_marker, cut_marker_before
from ctxlint.model import Cut, Observation, Source, SourceKind, Span

RAW_OUTPUT_CUT = "raw-output-cut"
# The DOM's other name for an element's text, besides `innerText` (`inner_text`), and the body of a
# response an `XMLHttpRequest` fetched.
_NAMES = (*RAW_OUTPUT_NAMES, "text_content", "response_text")
# Methods that give back the text they are called on, trimmed.
_TRIMS = ("trim", "trimStart", "trimEnd")
# The fewest characters a cut keeps for it to cut content, not shorten a label (as cutsites.py counts).
MIN_CONTENT = 500
_SLICES = ("slice", "substring", "substr")
# A bound named as a budget of characters.
_BUDGET = re.compile(r"max|limit|budget|chars|length|size", re.IGNORECASE)
# Where a cut's value is an error's or a log's, not a model's.
_NOT_READ = re.compile(r"^(?:console|logger|log|debug)\b|\.(?:log|debug|info|warn|warning|error)$")
_FUNCTION = re.compile(r"\bfunction\b|=>")


def page_cuts(m: Module) -> list[Observation]:
    """Every unmarked cut of a page's raw text or a process's stream in the module, and in the
    scripts it writes in template strings."""
    if not RAW_CUT.search(m.src.text):
        return []  # the walks below only where such a cut is written
    found: list[Observation] = []
    for node in walk(m.root):
        if node.type == "call_expression":
            observation = _cut(m.src, node)
            if observation is not None:
                found.append(observation)
        elif node.type == "template_string" and _FUNCTION.search(m.code(node)) and RAW_CUT.search(m.code(node)):
            found.extend(_script_cuts(m, node))
    return found


def _script_cuts(m: Module, template: Node) -> Iterator[Observation]:
    """The cuts of a script written as ``template``, located in the module."""
    start = template.start_byte + 1  # after the backtick
    data = bytearray(m.src.data[start:template.end_byte - 1])
    for part in template.named_children:
        if part.type == "template_substitution":  # `${idsJson}` read as a name of the same length
            for offset in range(part.start_byte - start, part.end_byte - start):
                if data[offset] not in b"\r\n":
                    data[offset] = ord("_")
    root = syntax.parse("javascript", bytes(data))
    if root is None or root.has_error:
        return  # not a script, or not one read whole
    if not any(n.type in ("function_expression", "function_declaration", "arrow_function") for n in walk(root)):
        return
    script = _Shifted(m.src, bytes(data), start)
    for node in walk(root):
        if node.type == "call_expression":
            observation = _cut(script, node)
            if observation is not None:
                yield observation


class _Shifted:
    """A script's text read at its place in the module: its spans are the module's."""

    def __init__(self, module: syntax.Text, data: bytes, start: int) -> None:
        self.module, self.data, self.start = module, data, start

    def code(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def node_span(self, node: Node) -> Span:
        return self.module.span(node.start_byte + self.start, node.end_byte + self.start)


def _cut(src: syntax.Text | _Shifted, call: Node) -> Observation | None:
    """``call`` when it is an unmarked cut of a raw text that keeps content."""
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "member_expression":
        return None
    method = callee.child_by_field_name("property")
    receiver = callee.child_by_field_name("object")
    if method is None or receiver is None or src.code(method) not in _SLICES:
        return None
    name = _last_name(src, receiver)
    if name is None or not any(fnmatchcase(snake(name), pattern) for pattern in _NAMES):
        return None
    arguments = call.child_by_field_name("arguments")
    values = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    kept = _kept(src, values)
    if kept is None:
        return None
    keeps, size = kept
    if _marked(src, call, keeps) or _not_read(src, call):
        return None
    detail = " ".join(src.code(call).split())
    span = src.node_span(call)
    source = Source(SourceKind.TRUNCATION, detail, span, strong=True, kept=size,
                    cut=Cut("characters", keeps, "slice"))
    return Observation(RAW_OUTPUT_CUT, span, "what an agent reads back, cut", source=source)


def _last_name(src: syntax.Text | _Shifted, node: Node) -> str | None:
    """The last name of ``el.innerText``, ``result?.stdout``, ``(el.innerText || "")``' first part,
    ``el.innerText?.trim()``."""
    while True:
        if node.type in ("parenthesized_expression", "non_null_expression") and node.named_children:
            node = node.named_children[0]
            if node.type == "binary_expression":  # `(el.innerText || "")`
                node = node.child_by_field_name("left") or node
            continue
        callee = node.child_by_field_name("function") if node.type == "call_expression" else None
        method = callee.child_by_field_name("property") if callee is not None and \
            callee.type == "member_expression" else None
        if callee is None or method is None or src.code(method) not in _TRIMS:
            break
        node = callee.child_by_field_name("object") or node  # `el.innerText?.trim()`: the same text
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return src.code(prop) if prop is not None else None
    if node.type == "identifier":
        return src.code(node)
    return None


def _kept(src: syntax.Text | _Shifted, values: list[Node]) -> tuple[str, int | None] | None:
    """Which end a cut keeps and how many characters (None: a bound named as a budget):
    ``(0, 8000)`` keeps the start, ``(-4000)`` the end."""
    if len(values) == 2 and src.code(values[0]).strip() == "0":
        return _sized("start", src, values[1])
    if len(values) == 1 and values[0].type == "unary_expression" and src.code(values[0]).startswith("-"):
        inner = values[0].named_children[-1]
        return _sized("end", src, inner)
    return None


def _sized(keeps: str, src: syntax.Text | _Shifted, bound: Node) -> tuple[str, int | None] | None:
    text = src.code(bound).replace("_", "")
    if bound.type == "number":
        try:
            size = int(text)
        except ValueError:
            return None
        return (keeps, size) if size >= MIN_CONTENT else None
    return (keeps, None) if bound.type in ("identifier", "member_expression") and _BUDGET.search(text) else None


def _marked(src: syntax.Text | _Shifted, call: Node, keeps: str) -> bool:
    """A marker beside the cut: after a start (``cut + "…"``, ``${cut}… [truncated]``), before an end."""
    node, parent = call, call.parent
    while parent is not None and parent.type in ("parenthesized_expression", "template_substitution"):
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "binary_expression":
        other = parent.child_by_field_name("right" if keeps == "start" else "left")
        if other is not None and other.id != node.id and other.type in ("string", "template_string"):
            text = syntax.unescape(src.code(other)[1:-1])
            return cut_marker(text) if keeps == "start" else cut_marker_before(text)
        above = parent.parent  # `"[T" + id + "] " + cut + "…"`: the marker closes the sum
        if keeps == "start" and above is not None and above.type == "binary_expression":
            right = above.child_by_field_name("right")
            return right is not None and right.type == "string" and cut_marker(syntax.unescape(src.code(right)[1:-1]))
    if parent.type == "template_string":
        after = node.next_sibling
        return after is not None and after.type == "string_fragment" and cut_marker(syntax.unescape(src.code(after)))
    return False


def _not_read(src: syntax.Text | _Shifted, call: Node) -> bool:
    """Whether the cut is an error's or a log's: under a ``throw``, a ``new ...Error(...)`` or a log call."""
    node = call.parent
    while node is not None and node.type not in ("statement_block", "program"):
        if node.type == "throw_statement":
            return True
        if node.type in ("call_expression", "new_expression"):
            callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
            name = src.code(callee) if callee is not None else ""
            if _NOT_READ.search(name) or name.endswith("Error"):
                return True
        node = node.parent
    return False
