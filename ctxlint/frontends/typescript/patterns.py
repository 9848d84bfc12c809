"""What a destructuring pattern binds (``const { a, b: c } = value``, ``const [x, y] = value``): its
names, the properties they take and the items an array written out gives each."""

from __future__ import annotations

from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.unit import Module


def pattern_names(m: Module, pattern: Node | None) -> list[str]:
    """The names a pattern binds, however deep (``{ a: [b, c], ...rest }``)."""
    if pattern is None:
        return []
    if pattern.type in ("identifier", "shorthand_property_identifier_pattern"):
        return [m.code(pattern)]
    names = []
    for child in pattern.named_children:
        if child.type == "pair_pattern":
            names.extend(pattern_names(m, m.field(child, "value")))
        elif child.type not in ("property_identifier", "type_annotation"):
            names.extend(pattern_names(m, child))
    return names


def awaited_items(m: Module, value: Node) -> list[Node] | None:
    """The items of an array written out, or of the array a ``Promise.all`` awaits (each item
    is what its promise resolves with); None for any other value."""
    if value.type == "call_expression" and m.code(m.field(value, "function") or value) == "Promise.all":
        args = m.args(value)
        value = m.unwrap(args[0]) if len(args) == 1 else value
    if value.type != "array":
        return None
    return [c for c in value.named_children if c.type != "comment"]

def destructured(m: Module, pattern: Node) -> list[tuple[str, str]]:
    """``{ a, b: c, d = 1 }`` -> [(a, a), (b, c), (d, d)]: (property, local name)."""
    found = []
    for child in pattern.named_children:
        if child.type == "shorthand_property_identifier_pattern":
            found.append((m.code(child), m.code(child)))
        elif child.type == "object_assignment_pattern":
            left = m.field(child, "left")
            if left is not None:
                found.append((m.code(left), m.code(left)))
        elif child.type == "pair_pattern":
            key, value = m.key_text(m.field(child, "key")), m.field(child, "value")
            if value is not None and value.type == "assignment_pattern":
                value = m.field(value, "left")
            if key is not None and value is not None and value.type == "identifier":
                found.append((key, m.code(value)))
    return found


def object_fills(m: Module, function: Node, args: list[Node]) -> list[tuple[str, Node]]:
    """``build({ title, context: text })`` calling ``function build({ title, context })``: each name
    an object parameter destructures, with the value the call's object literal writes under its key
    (``context`` -> ``text``; ``title`` -> the caller's ``title``). A key the literal does not write,
    a spread in it (``{ ...opts }``) or an argument that is no literal binds nothing."""
    params = m.field(function, "parameters")
    found: list[tuple[str, Node]] = []
    for param, arg in zip(params.named_children if params is not None else (), args, strict=False):
        pattern = m.field(param, "pattern") or param
        if pattern.type == "assignment_pattern":  # `{ context = "" } = {}`
            pattern = m.field(pattern, "left") or pattern
        literal = m.unwrap(arg)
        if pattern.type != "object_pattern" or literal is None or literal.type != "object":
            continue
        written: dict[str, Node] = {}
        for entry in literal.named_children:
            if entry.type == "shorthand_property_identifier":
                written[m.code(entry)] = entry
            elif entry.type == "pair" and (key := m.key_text(m.field(entry, "key"))) is not None \
                    and (value := m.field(entry, "value")) is not None:
                written[key] = value
        found.extend((local, written[key]) for key, local in destructured(m, pattern) if key in written)
    return found


def placed(array: Node) -> list[tuple[int, Node]]:
    """The elements of an array or an array pattern with their places, holes counted (``[, b]``)."""
    found, index = [], 0
    for child in array.children:
        if child.type == ",":
            index += 1
        elif child.is_named and child.type != "comment":
            found.append((index, child))
    return found


def at_place(key: str) -> bool:
    """Whether a name's key is a place in an array (``"[1]"``), not a property nor each item in turn."""
    return key.startswith("[") and key[1:-1].isdigit()
