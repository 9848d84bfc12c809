"""The functions of a TypeScript or JavaScript module that only a call by their name reaches."""

from __future__ import annotations

from ctxlint.frontends.typescript.syntax import Node, Text
from ctxlint.model import NamedFunction

# What frameworks call by the name a module exports (Next.js and SvelteKit route handlers, Remix
# loaders, Next.js data functions, serverless handlers): a use no other file writes.
_FRAMEWORK_NAMES = frozenset({
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "loader", "action", "actions", "load", "handler",
    "middleware", "fetch", "scheduled", "getServerSideProps", "getStaticProps", "getStaticPaths", "generateMetadata",
    "generateStaticParams",
})
_FUNCTION_VALUES = ("arrow_function", "function_expression", "function", "generator_function")


def named_functions(root: Node, source: Text) -> list[NamedFunction]:
    """Functions declared at the top of the module (``function f``, ``const f = () => ...``,
    exported or not, a default export aside), the methods of its classes that extend and
    implement nothing, none decorated, and the classes that do (made only where their name is
    written)."""
    found: list[NamedFunction] = []

    def add(name: Node | None, node: Node, top_level: bool = True) -> None:
        if name is not None and name.type in ("identifier", "property_identifier"):
            text = source.code(name)
            if text not in _FRAMEWORK_NAMES and text != "constructor":
                found.append(NamedFunction(text, source.position(node.start_byte)[0],
                                           source.position(node.end_byte)[0], top_level))

    for node in root.named_children:
        if node.type == "export_statement":
            if any(child.type in ("default", "decorator") for child in node.children):
                continue  # `@Injectable() export class ...`: the decorator registers it
            declaration = node.child_by_field_name("declaration")
            if declaration is None:
                continue
            node = declaration
        if node.type in ("function_declaration", "generator_function_declaration"):
            add(node.child_by_field_name("name"), node)
        elif node.type in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                value = declarator.child_by_field_name("value") if declarator.type == "variable_declarator" else None
                if value is not None and value.type in _FUNCTION_VALUES:
                    add(declarator.child_by_field_name("name"), declarator)
        elif node.type in ("class_declaration", "abstract_class_declaration") and any(
                child.type == "class_heritage" for child in node.named_children):
            add(node.child_by_field_name("name"), node)  # made only where its name is written
        elif node.type in ("class_declaration", "abstract_class_declaration") and not any(
                child.type == "decorator" for child in node.named_children):
            body = node.child_by_field_name("body")
            decorated = False  # a member's decorators come before it in the class body
            for member in body.named_children if body is not None else ():
                if member.type == "method_definition" and not decorated:
                    add(member.child_by_field_name("name"), member, top_level=False)
                decorated = member.type == "decorator"
    return found
