"""Where a posted request goes: the absolute URLs the URL a body is posted to may be built from.

A client of a provider keeps its base URL in a module constant (``DEEPSEEK_BASE_URL``), often in
another module, or in a field its constructor sets (``this.options.apiHost = "https://..."``), and
builds the URL of each request by a method of its own (``this.path(Paths.Chat)``) that chooses
between that base, a configured one and the app's own route. The URLs are followed through the
expression's names and their module's constants, the constants a relative import names (and a
property of an object one of them holds), a field of ``this`` the class assigns, and the body of
a method of the class the URL calls: every absolute URL written on the way is one the request may
go to (a configured value, which the code does not show, names none). Which of them caps an
answer itself is the endpoint table's (``ctxlint.endpoints``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlint.endpoints import url_host
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.syntax import enclosing, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.names import Names

# How far the reading goes: names followed one into another, and nodes read in all.
_DEPTH = 10
_NODES = 600

Step = tuple[Module, "Names", Node, Env, int]


def reached_urls(m: Module, names: Names, url: Node, env: Env) -> list[str]:
    """The absolute URLs (``https://host...``) written in what the URL expression may be built from."""
    found: list[str] = []
    seen: set[tuple[int, int]] = set()
    stack: list[Step] = [(m, names, url, env, 0)]
    while stack and len(seen) < _NODES:
        module, nm, node, nenv, depth = stack.pop()
        node = module.unwrap(node)
        key = (id(module), node.id)
        if key in seen or depth > _DEPTH:
            continue
        seen.add(key)
        if node.type in ("string", "string_fragment"):
            text = module.string_value(node) if node.type == "string" else module.code(node)
            if text is not None and url_host(text) is not None:
                found.append(text)
            continue
        stack.extend((module, nm, child, nenv, depth) for child in _followed(module, nm, node, nenv, depth, stack))
    return found


def _followed(m: Module, names: Names, node: Node, env: Env, depth: int, stack: list[Step]) -> list[Node]:
    """What a node is built from, in its own module; what another module holds is pushed there."""
    if node.type == "identifier":
        value, venv = names.deref(node, env)
        if value is not node:
            stack.append((m, names, value, venv, depth + 1))
            return []
        imported = names.imported_constant(m.code(node))
        if imported is not None:
            sibling, const, cenv = imported
            stack.append((sibling.m, sibling.names, const, cenv, depth + 1))
        return []
    if node.type == "member_expression":
        return _member(m, names, node, env, depth, stack)
    if node.type == "call_expression":
        callee = m.unwrap(m.field(node, "function"))
        if callee is not None and callee.type == "member_expression":
            method = names.own_method(callee)
            if method is not None:  # `this.path(Paths.Chat)`: what the method builds its URL from
                stack.append((m, names, method.node, Env(method.scope), depth + 1))
            stack.append((m, names, callee, env, depth + 1))
        return list(m.args(node))
    if node.type in ("arrow_function", "function_expression", "function_declaration", "method_definition"):
        body = m.field(node, "body")
        return [body] if body is not None else []
    if node.type in ("statement_block", "lexical_declaration", "variable_declaration", "variable_declarator",
                     "expression_statement", "assignment_expression", "if_statement", "return_statement",
                     "else_clause", "parenthesized_expression", "binary_expression", "ternary_expression",
                     "template_string", "template_substitution", "array", "arguments"):
        return [c for c in node.named_children if c.type != "comment"]
    return []


def _member(m: Module, names: Names, node: Node, env: Env, depth: int, stack: list[Step]) -> list[Node]:
    """``Paths.Chat`` of an object a constant holds (here or in a module it is imported from), or
    ``this.options.apiHost``, from what the class assigns it; ``base.replace(...)`` reads ``base``."""
    value, venv = names.deref(node, env)
    if value is not node:
        stack.append((m, names, value, venv, depth + 1))
        return []
    obj = m.unwrap(m.field(node, "object"))
    prop = m.field(node, "property")
    if obj is None or prop is None:
        return []
    if obj.type == "identifier":
        imported = names.imported_constant(m.code(obj))
        if imported is not None:
            sibling, const, cenv = imported
            entries = sibling.names.entries(const, cenv)
            if entries is not None and m.code(prop) in entries:
                item, ienv, _ = entries[m.code(prop)]
                stack.append((sibling.m, sibling.names, item, ienv, depth + 1))
            return []
    if m.code(node).startswith("this."):
        return _assigned_to_this(m, node)
    return [obj]


def _assigned_to_this(m: Module, member: Node) -> list[Node]:
    """What the class around ``this.a.b`` writes to it: its field's initialiser, or the right side
    of each ``this.a.b = value``."""
    body = enclosing(member, ("class_body",))
    if body is None:
        return []
    text = m.code(member)
    values = [m.field(n, "right") for n in walk(body) if n.type == "assignment_expression"
              and m.code(m.field(n, "left") or n) == text]
    if text.count(".") == 1:
        values += [m.field(c, "value") for c in body.named_children if c.type == "public_field_definition"
                   and m.code(m.field(c, "name") or c) == text[len("this."):]]
    return [v for v in values if v is not None]
