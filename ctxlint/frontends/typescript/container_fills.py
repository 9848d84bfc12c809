"""A Map, Set or array of an enclosing scope that one function fills in a directory listing's order
and another writes into a prompt's text.

``const skills = new Map()`` in a factory; a scan walks ``await glob("*.md", {cwd: dir})`` and
keeps each entry (``skills.set(file.name, info)``); a handler later writes
``Array.from(skills.entries()).map(...).join("\\n")`` into ``systemPrompt``. A Map keeps the
order its keys were added in, which is the order the file system listed them: the prompt lists
the entries in an order that changes between runs and machines. Neither function shows it
alone, as in the Python front-end's globalfills.py.

The text is followed from the read through the names it is kept in (a hop or two:
``list = ...join()``, then ``prompt = `...${list}` ``) to one named for a prompt. Sorting the
listing or the read (``.sort(...)``, ``sortBy``) clears it.
"""

from __future__ import annotations

from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node, prompt_name
from ctxlint.frontends.typescript.sources import Sources
from ctxlint.frontends.typescript.syntax import enclosing, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env
from ctxlint.model import Evidence, EvidenceKind, Observation, Source, SourceKind

LISTING_REACHES_PROMPT = "listing-reaches-prompt"
_ADDS = ("set", "push", "add", "unshift")
_IN_ORDER = ("entries", "values", "keys", "forEach")
_MAX_HOPS = 3
_LISTING_WORDS = ("opendir", "glob")


def container_fills(m: Module, sources: Sources) -> list[Observation]:
    if not any(w in m.src.text for w in _LISTING_WORDS):
        return []
    found: list[Observation] = []
    for loop in walk(m.root):
        if loop.type != "for_in_statement":
            continue
        walked = m.field(loop, "right")
        body = m.field(loop, "body")
        if walked is None or body is None:
            continue
        env = Env(m.innermost_scope(loop))
        detail = sources.unordered(walked, env)
        if detail is None or "random" in detail:
            continue
        filler = enclosing(loop)
        for container, added in _additions(m, body):
            if _declared_in(m, filler, container):
                continue  # the function's own list: what it does with it is the other passes' to follow
            reached = _rendered(m, container, filler)
            if reached is None:
                continue
            read, kept = reached
            listing = _listing_of(m, walked, env, sources)
            steps = (Evidence(EvidenceKind.FLOW, f"each entry is added to `{container}` in the order the loop "
                              "walks it", m.span(added)),
                     Evidence(EvidenceKind.FLOW, f"`{container}` is read in the order its entries were added",
                              m.span(read)),
                     Evidence(EvidenceKind.SINK, f"written into `{kept}`", m.span(read)))
            source = Source(SourceKind.UNORDERED_ITERATION, detail, m.span(listing), flow=steps)
            found.append(Observation(LISTING_REACHES_PROMPT, m.span(listing),
                                     f"its order becomes the order of `{container}`, whose entries are written "
                                     f"into `{kept}` (line {m.span(read).line})", source=source))
            break
    return found



def _additions(m: Module, body: Node) -> list[tuple[str, Node]]:
    """The names the loop's body adds entries to: ``name.set(k, v)``, ``name.push(v)``, ``name.add(v)``."""
    found: list[tuple[str, Node]] = []
    for node in walk(body, into_functions=False):
        if node.type != "call_expression":
            continue
        callee = m.field(node, "function")
        if callee is None or callee.type != "member_expression":
            continue
        target = m.field(callee, "object")
        if target is not None and target.type == "identifier" and m.code(m.field(callee, "property")) in _ADDS:
            found.append((m.code(target), node))
    return found


def _declared_in(m: Module, function: Node | None, name: str) -> bool:
    """Whether ``function`` declares ``name`` itself (or takes it as a parameter)."""
    if function is None:
        return False
    for node in walk(function, into_functions=False):
        if node.type == "variable_declarator" and m.code(m.field(node, "name") or node) == name:
            return True
        if node.type in ("required_parameter", "optional_parameter") and m.code(m.field(node, "pattern") or node) \
                == name:
            return True
    return False


def _rendered(m: Module, container: str, filler: Node | None) -> tuple[Node, str] | None:
    """A read of ``container`` in insertion order outside ``filler`` whose text is kept, a hop or
    two on, in a name that says it holds a prompt; with that name."""
    for node in walk(m.root):
        if node.type != "identifier" or m.code(node) != container or (
                filler is not None and filler.start_byte <= node.start_byte < filler.end_byte):
            continue
        read = _ordered_read(m, node)
        if read is None:
            continue
        kept = _kept_in_prompt(m, read)
        if kept is not None:
            return read, kept
    return None


def _ordered_read(m: Module, name: Node) -> Node | None:
    """The expression that reads the container in its order: ``name.entries()``, ``Array.from(name)``,
    ``[...name]``, a ``for (... of name)`` loop."""
    parent = name.parent
    if parent is None:
        return None
    if parent.type == "member_expression" and m.code(m.field(parent, "property")) in _IN_ORDER:
        read = parent.parent if parent.parent is not None and parent.parent.type == "call_expression" else None
    elif parent.type in ("arguments", "spread_element") or parent.type == "for_in_statement":
        read = parent.parent if parent.type == "arguments" else parent
    else:
        return None
    return read


def _kept_in_prompt(m: Module, read: Node) -> str | None:
    """The name, named for a prompt, that the text made from ``read`` is kept in: the declaration
    around it, or one whose value uses that declaration's name, up to a few hops. A use that
    keeps no order (``.length``, ``.size``, a sort) is not followed."""
    uses = [read]
    for _ in range(_MAX_HOPS):
        declared = None
        for use in uses:
            declared = _declaration_keeping_order(m, use)
            if declared is not None:
                break
        if declared is None:
            return None
        name = m.code(m.field(declared, "name") or declared)
        if prompt_name(name):
            return name
        function = enclosing(declared)
        uses = [n for n in walk(function if function is not None else m.root, into_functions=False)
                if n.type == "identifier" and m.code(n) == name and n.start_byte > declared.end_byte]
    return None


def _declaration_keeping_order(m: Module, use: Node) -> Node | None:
    """The ``const name = ...`` whose value is built from ``use`` keeping its order."""
    current: Node | None = use
    while current is not None and current.type != "variable_declarator":
        if current.type in FUNCTIONS and current is not use:
            return None
        if current.type == "member_expression" and m.code(m.field(current, "property")) in ("length", "size"):
            return None
        if current.type == "call_expression" and "sort" in m.code(m.field(current, "function") or current).lower():
            return None
        current = current.parent
    return current


def _listing_of(m: Module, walked: Node, env: Env, sources: Sources) -> Node:
    """The listing call the loop walks: itself, or the value of the name it walks (where
    ``.sort()`` goes)."""
    node = m.unwrap(walked)
    if node.type == "identifier":
        binding = sources.names.resolve(node, env)
        if binding is not None and sources.unordered(binding.value, binding.env) is not None:
            return binding.value
    return walked
