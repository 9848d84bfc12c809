"""Where a TypeScript or JavaScript module runs a Dotprompt it loads by name (Genkit's
``const review = ai.prompt("review_diff")`` then ``await review({diff})`` or
``review.stream(...)``), and what settings each run gives: the second argument's ``config``.
The counterpart of ``python/prompt_runs.py``, with the same answers."""

from __future__ import annotations

import os
from functools import lru_cache

from ctxlint.frontends.code.runs import LIMIT, NO_LIMIT, RUN_METHODS, UNKNOWN, Run
from ctxlint.frontends.typescript.knowledge import WRAPPERS, Node
from ctxlint.frontends.typescript.syntax import GRAMMARS, Text, parse, unescape
from ctxlint.providers import LIMIT_KEYS

_WRAPPERS = frozenset({*WRAPPERS, "await_expression"})


def prompt_runs(path: str, name: str, variant: str | None) -> list[Run]:
    """The runs in the module at ``path`` of the prompt ``ai.prompt(name)`` loads, of the file of
    ``variant`` (``ai.prompt("recipe", {variant: "robot"})``)."""
    try:
        status = os.stat(path)
    except OSError:
        return []
    parsed = _parsed(path, status.st_mtime_ns, status.st_size)
    if parsed is None:
        return []
    source, calls, names = parsed
    runs: list[Run] = []
    for loader in calls:
        args = _args(loader)
        callee = _unwrap(loader.child_by_field_name("function"))  # `await ai.prompt<T>("x")(input)` parses so
        if not args or callee is None or callee.type != "member_expression" \
                or _text(source, callee.child_by_field_name("property")) != "prompt" \
                or _string(source, args[0]) != name or _variant(source, args[1:]) != variant:
            continue
        loaded, holder = _climb(loader)
        if holder is not None and holder.type == "member_expression" \
                and _text(source, holder.child_by_field_name("property")) in RUN_METHODS:
            loaded, holder = _climb(holder)
        if holder is not None and holder.type == "call_expression" and _same(holder.child_by_field_name("function"),
                                                                            loaded):
            runs.append(_run(source, holder))  # `ai.prompt("x")(input)`
            continue
        held = holder.child_by_field_name("name") if holder is not None and holder.type == "variable_declarator" \
            else None
        if held is None or held.type != "identifier":
            runs.append(Run(source.node_span(loader), _text(source, loader), UNKNOWN))  # passed on
            continue
        held_name, found = _text(source, held), 0
        for call in calls:
            func = call.child_by_field_name("function")
            if func is None:
                continue
            if func.type == "member_expression" and _text(source, func.child_by_field_name("property")) in RUN_METHODS:
                func = func.child_by_field_name("object")
            if func is not None and func.type == "identifier" and _text(source, func) == held_name:
                found += 1
                runs.append(_run(source, call))
        # Each run reads the name once (the declaration names it too); any other read, or an
        # export, passes the prompt on (`helper(review)`): its runs there are not seen.
        declaration = holder.parent if holder is not None else None  # `const review = ...`
        exported = declaration is not None and declaration.parent is not None \
            and declaration.parent.type == "export_statement"
        if exported or sum(_text(source, n) == held_name for n in names) - 1 > found:
            runs.append(Run(source.node_span(loader), _text(source, loader), UNKNOWN))
    return runs


@lru_cache(maxsize=8)
def _parsed(path: str, mtime: int, size: int) -> tuple[Text, list[Node], list[Node]] | None:
    """The module's text, calls and names, parsed once for all the prompts it loads (keyed by
    its modification time and size too, so an edited module is read again)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    source = Text(data.decode("utf-8", errors="replace").removeprefix("\ufeff").replace("\r\n", "\n"), path)
    root = parse(GRAMMARS.get(os.path.splitext(path)[1], "typescript"), source.data)
    if root is None:
        return None
    nodes = list(_walk(root))
    return (source, [n for n in nodes if n.type == "call_expression"],
            [n for n in nodes if n.type in ("identifier", "shorthand_property_identifier")])


def _run(source: Text, call: Node) -> Run:
    """A call of the loaded prompt: ``(input, {config: {...}})``."""
    args = _args(call)
    limit = NO_LIMIT if len(args) < 2 else UNKNOWN if len(args) > 2 else _options_limit(source, args[1])
    return Run(source.node_span(call), _text(source, call), limit)


def _options_limit(source: Text, options: Node) -> str:
    if options.type != "object":
        return UNKNOWN
    config = None
    for child in options.named_children:
        if child.type == "spread_element":
            return UNKNOWN
        if child.type == "pair" and _key(source, child) == "config":
            config = child.child_by_field_name("value")
        elif child.type == "shorthand_property_identifier" and _text(source, child) == "config":
            return UNKNOWN
    if config is None:
        return NO_LIMIT
    if config.type != "object":
        return UNKNOWN
    keys = [_key(source, c) if c.type == "pair" else None for c in config.named_children if c.type != "comment"]
    return LIMIT if any(k in LIMIT_KEYS for k in keys) else UNKNOWN if None in keys else NO_LIMIT


def _variant(source: Text, rest: list[Node]) -> str | None:
    """The variant a load names (``{variant: "robot"}``); ``?`` when it is not a literal."""
    if not rest or rest[0].type != "object":
        return None if not rest else "?"
    for child in rest[0].named_children:
        if child.type == "pair" and _key(source, child) == "variant":
            value = child.child_by_field_name("value")
            return (_string(source, value) if value is not None else None) or "?"
    return None


def _unwrap(node: Node | None) -> Node | None:
    while node is not None and node.type in _WRAPPERS and node.named_children:
        node = node.named_children[0]
    return node


def _climb(node: Node) -> tuple[Node, Node | None]:
    """The outermost of the wrappers around ``node`` (``await``, parentheses) and its parent."""
    parent = node.parent
    while parent is not None and parent.type in _WRAPPERS:
        node, parent = parent, parent.parent
    return node, parent


def _same(a: Node | None, b: Node) -> bool:
    return a is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte


def _args(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return [c for c in arguments.named_children if c.type != "comment"] if arguments is not None else []


def _key(source: Text, pair: Node) -> str | None:
    key = pair.child_by_field_name("key")
    if key is None:
        return None
    return _string(source, key) if key.type == "string" else _text(source, key)


def _string(source: Text, node: Node) -> str | None:
    if node.type == "string" or (node.type == "template_string" and not any(
            c.type == "template_substitution" for c in node.named_children)):
        return unescape(_text(source, node)[1:-1])
    return None


def _text(source: Text, node: Node | None) -> str:
    return source.code(node) if node is not None else ""


def _walk(root: Node):
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.named_children))
