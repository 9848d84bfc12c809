"""Formatters that delimit: a project function whose return wraps every value it prints in a tag
pair (``f"<chunk_{i}>\\n{chunk}\\n</chunk_{i}>"`` added up in a loop, or joined), so the text it
returns is labelled wherever a prompt takes it (a ``.format`` field, a render site)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.python.knowledge import ADDS
from ctxlint.frontends.python.values import Assign, Binding, Env
from ctxlint.model import Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.flow import Flow

_PLACEHOLDER = "\x00"
# An opening tag, its content, and the closing tag of the same name (a name may hold a value).
_TAG = re.compile(r"<[^<>]*>")
# (`<\Document {i}>` closes too: a slip the model reads as the closing tag it is meant to be.)
_PAIR = re.compile(r"<(?P<name>[A-Za-z_][^\s<>/\\]*)(?:\s[^<>]*)?>(?P<body>.*?)<[/\\](?P=name)(?:\s[^<>]*)?>",
                   re.DOTALL)


def delimited(flow: Flow, node: ast.expr, env: Env) -> Source | None:
    """A name or a project function's result (of any module of the project) built as text that
    wraps every value it prints in a tag pair (`text += f"<chunk_{i}>{chunk}</chunk_{i}>"`):
    labelled where it lands."""
    if isinstance(node, ast.Call):
        if (target := flow.callees.function_for(node, env, foreign=True)) is None:
            return None
        resolve = target.owner.scopes.resolve if target.owner is not None else flow.scopes.resolve
        pieces = [p for value in target.returns for p in built_from(value, target.env, resolve)]
    elif isinstance(node, ast.Name):
        pieces = built_from(node, env, flow.scopes.resolve)
    else:
        return None
    tag = wrapping_tag(pieces)
    if tag is None:
        return None
    return Source(SourceKind.DELIMITED, tag, flow.m.span(node))


def wrapping_tag(pieces: list[ast.expr]) -> str | None:
    """The tag that wraps every value the text built from ``pieces`` prints, or None when some
    value stands outside a tag pair (or no piece prints a value). A fenced block counts as a pair
    too (``f"```{lang}\n{content}\n```"``, tag ```` ``` ````): its info string and a heading line
    right above it (``### {path}``) name the block, as a tag's attributes do. Pieces that open a
    tag and close it only together count too (``lines = ["<hints>"]``, lines added in a loop,
    ``lines.append("</hints>")``, joined)."""
    return _each_wrapped(pieces) or _wrapped_together(pieces)


def _wrapped_together(pieces: list[ast.expr]) -> str | None:
    """The tag of the pair that the text of all ``pieces`` in order opens before every value and
    closes after it; a piece that is no literal text is a value."""
    if len(pieces) < 2:
        return None
    text = "".join(_with_placeholders(piece) for piece in pieces)
    outside = _TAG.sub("", text).count(_PLACEHOLDER)
    if not outside:
        return None
    for match in _PAIR.finditer(text):
        if _TAG.sub("", match.group("body")).count(_PLACEHOLDER) == outside:
            return match.group("name").replace(_PLACEHOLDER, "…")
    return None


def _with_placeholders(piece: ast.expr) -> str:
    """A piece's text with a placeholder for each value it prints (all of it, when it is no literal)."""
    if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
        return piece.value
    if isinstance(piece, ast.JoinedStr):
        return "".join(str(p.value) if isinstance(p, ast.Constant) else _PLACEHOLDER for p in piece.values)
    return _PLACEHOLDER


def _each_wrapped(pieces: list[ast.expr]) -> str | None:
    tag = None
    for piece in pieces:
        if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
            continue
        if not isinstance(piece, ast.JoinedStr):
            return None
        text = "".join(str(p.value) if isinstance(p, ast.Constant) else _PLACEHOLDER for p in piece.values)
        inside = 0
        for match in _PAIR.finditer(text):
            inside += _TAG.sub("", match.group("body")).count(_PLACEHOLDER)
            tag = match.group("name").replace(_PLACEHOLDER, "…")
        # Values in the tags themselves (`<chunk_{i}>`) are part of the delimiter, not content.
        if _TAG.sub("", text).count(_PLACEHOLDER) > inside:
            fenced = _fenced_values(text)
            if fenced is None:
                return None
            tag = _FENCE if fenced else tag
    return tag


_FENCE = "```"


def _fenced_values(text: str) -> int | None:
    """How many values of ``text`` (a placeholder each) sit on the lines of a fenced block, when
    every value that no tag pair holds sits in one, in the info string that opens one, or in a
    heading line right above one; None when some value stands outside. A pattern that only
    mentions fences (``rf"```{lang}.*?\\n```"``) prints no value inside one."""
    held = [(m.start(), m.end()) for m in _TAG.finditer(text)] + \
        [(m.start("body"), m.end("body")) for m in _PAIR.finditer(text)]
    inside = 0
    for at in (i for i, c in enumerate(text) if c == _PLACEHOLDER):
        if any(start <= at < end for start, end in held):
            continue
        before, after = text[:at], text[at + 1:]
        line = before[before.rfind("\n") + 1:].lstrip()
        if before.count(_FENCE) % 2 == 1:
            if line.startswith(_FENCE):
                continue  # the info string
            if _FENCE in after:
                inside += 1
                continue
        elif line.startswith("#") and (below := after.split("\n", 1))[1:] and below[1].lstrip().startswith(_FENCE):
            continue
        return None
    return inside


def enclosing(text: ast.JoinedStr, value: ast.expr) -> str:
    """The delimiter pair of ``text`` that encloses its field ``value``: a tag (`<page>{text}</page>`)
    or a fenced block (`f"```{lang}\n{content}\n```"`); empty when the value stands outside one."""
    at = next((i for i, p in enumerate(text.values) if isinstance(p, ast.FormattedValue) and p.value is value), None)
    if at is None:
        return ""
    before, after = ("".join(str(p.value) if isinstance(p, ast.Constant) else "x" for p in part)
                     for part in (text.values[:at], text.values[at + 1:]))
    return _between(before, after)


def enclosing_adds(binding: Binding, extra: Assign) -> str:
    """The delimiter pair that encloses what ``extra`` adds to the text ``binding`` holds
    (``block = "## Source\\n```python\\n"; block += read(path); block += "\\n```\\n"``): a tag or a
    fenced block; empty when the value stands outside one, or is not added as text. Pieces that
    are not literal text read as a word."""
    added = [e.value for e in binding.extras if e.kind == "+=" and e.value is not None]
    at = next((i for i, piece in enumerate(added) if piece is extra.value), None) if extra.kind == "+=" else None
    if at is None:
        return ""
    # The pieces near it: a fence is opened and closed a few additions away, and a text of
    # thousands of additions is not read again for each.
    before = added[max(0, at - _NEAR_ADDS):at]
    if at <= _NEAR_ADDS:
        before = [binding.value, *before]
    written = ["".join(_literal(p) for p in part) for part in (before, added[at + 1:at + 1 + _NEAR_ADDS])]
    return _between(*written)


# How many additions either side of a value are read for the delimiter around it.
_NEAR_ADDS = 8


def wrapped_by_adds(source: Source | None, binding: Binding, extra: Assign) -> Source | None:
    """Third-party content that ``extra`` adds, with the fence or tag the additions around it put
    it in (``enclosing_adds``): a label wherever the text lands."""
    if source is None or source.kind is not SourceKind.UNTRUSTED or source.wrapped_in:
        return source
    fence = enclosing_adds(binding, extra)
    return replace(source, wrapped_in=fence) if fence else source


def _literal(piece: ast.expr) -> str:
    if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
        return piece.value
    if isinstance(piece, ast.JoinedStr):
        return "".join(str(p.value) if isinstance(p, ast.Constant) else "x" for p in piece.values)
    return "x"


def _between(before: str, after: str) -> str:
    """The delimiter a value written between ``before`` and ``after`` sits inside: a fenced block
    open before it and closed after, or a tag pair around it."""
    if before.count("```") % 2 == 1 and "```" in after:
        return "```"
    for match in _PAIR.finditer(before + _PLACEHOLDER + after):
        if _PLACEHOLDER in match.group("body"):
            return match.group("name")
    return ""


def built_from(node: ast.expr, env: Env, resolve: Callable[[ast.AST, Env], Binding | None],
               depth: int = 0) -> list[ast.expr]:
    """The string pieces a returned value is built from: a literal or f-string, a name's value
    and what is added to it (``text += f"..."``), both sides of ``+``, or the items of a
    ``"sep".join(...)`` over a comprehension. Anything else is itself (and not a string piece)."""
    if depth > 3:
        return [node]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return built_from(node.left, env, resolve, depth + 1) + built_from(node.right, env, resolve, depth + 1)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
            and len(node.args) == 1):
        items = node.args[0]
        if isinstance(items, (ast.ListComp, ast.GeneratorExp)):
            return built_from(items.elt, env, resolve, depth + 1)
        return built_from(items, env, resolve, depth + 1)
    if isinstance(node, ast.List):
        return [p for e in node.elts for p in built_from(e, env, resolve, depth + 1)]
    if isinstance(node, ast.Name):
        binding = resolve(node, env)
        if binding is None or binding.owner is not None:
            return [node]
        pieces = built_from(binding.value, binding.env, resolve, depth + 1)
        for extra in binding.extras:
            if extra.kind not in ADDS or extra.value is None:
                return [node]  # reassigned: what it ends as is not read here
            pieces += built_from(extra.value, binding.extras_env, resolve, depth + 1)
        return pieces
    return [node]
