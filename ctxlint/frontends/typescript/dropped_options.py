"""A request body translated from the settings a function is given, which leaves their output
limit behind: ``_convertArgs(options: CompletionOptions, messages)`` builds ``{message, model:
options.model, temperature: options.temperature}`` and never reads ``options.maxTokens``.

Adapters between one API's settings and another's are written field by field; a field the
author forgets is dropped without a sound. The settings are known to carry a limit when their
declared type (or a type it extends, in the module or one it imports it from) declares one, or
when the fields read of them are a chat request's own (``model`` and ``messages``: an OpenAI
body, whose limit is ``max_tokens``). The body is one the function sends or hands on: an object
with a model's input (``prompt``, ``messages``, ``message``, ...) that reads the settings, or
that is serialised (``JSON.stringify(payload)``) by a function that reads nothing of them.

Left alone, since the limit may be added out of sight: settings handed on whole (to another
function, a spread, a destructuring), a body with a spread, and a function or one of its callers
in the module that names any limit at all (``args.max_tokens = options.maxTokens`` after the
call). Left alone too, a body declared with a type of the project that has no limit field
(``const args: AskSageRequestArgs = {...}``): the API it is written for takes none."""

from __future__ import annotations

import re

from ctxlint.frontends.typescript.classes import Classes
from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.syntax import enclosing, own_nodes, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Scope
from ctxlint.model import Evidence, EvidenceKind, Request
from ctxlint.providers import LIMIT_KEYS, OPENAI_CHAT

OPTIONS_DROPPED = "options-dropped"
LIMIT_FIELDS = (*LIMIT_KEYS, "num_predict")
_ANY_LIMIT = re.compile("|".join(LIMIT_FIELDS))
# The keys that carry a model's input in the request bodies of the APIs adapters translate to.
INPUT_KEYS = frozenset({"messages", "message", "prompt", "inputs", "input", "contents"})
_EXTENDS_HOPS = 4


def dropped_options(m: Module, classes: Classes) -> list[Request]:
    """Each request body a function builds from settings it is given, without their limit."""
    found = []
    for scope in m.all_scopes():
        if scope.kind != "function" or scope.node.type not in FUNCTIONS:
            continue
        bodies = _bodies(m, scope)  # the cheap, local question first: most functions build none
        if not bodies:
            continue
        for param, annotation in scope.params.items():
            if not annotation:
                continue
            reads = _member_reads(m, scope.node, param)
            if reads is None or reads & set(LIMIT_FIELDS):
                continue
            limit = _declared_limit(classes.named_type(annotation)) or _chat_request_limit(reads)
            if limit is None:
                continue
            body = _request_body(m, scope, bodies, param, not reads)
            if body is None or _limit_named_around(m, scope.node) or _typed_without_limit(m, classes, body):
                continue
            declared = _parameter_node(m, scope.node, param)
            anchor = m.span(body)
            found.append(Request(
                path=m.path, anchor=anchor, declares_settings=True, settings_hint=f"`{param}.{limit}`",
                reserve_kind=OPTIONS_DROPPED,
                reserve_evidence=(Evidence(
                    EvidenceKind.SOURCE, f"`{param}.{limit}`, the limit the caller gives in `{param}` "
                    f"(`{' '.join(annotation.split()).lstrip('| ')}`), is never read by the function that builds "
                    "this body",
                    m.span(declared) if declared is not None else anchor),)))
            break
    return found


def _member_reads(m: Module, function: Node, name: str) -> set[str] | None:
    """The properties read of parameter ``name`` in the function (``options.model``), or None when
    the settings are used otherwise (handed on whole, spread, destructured, written)."""
    params = m.field(function, "parameters")
    reads: set[str] = set()
    body = m.field(function, "body")
    if body is None:
        return None
    for node in walk(body):
        if node.type not in ("identifier", "shorthand_property_identifier") or m.code(node) != name:
            continue
        parent = node.parent
        if parent is None or params is not None and params.start_byte <= node.start_byte < params.end_byte:
            continue
        if parent.type == "member_expression" and _same(m.field(parent, "object"), node):
            prop = m.field(parent, "property")
            holder = parent.parent
            if prop is None or holder is not None and holder.type in ("assignment_expression",
                                                                       "augmented_assignment_expression") \
                    and _same(m.field(holder, "left"), parent):
                return None
            reads.add(m.code(prop))
        elif parent.type == "subscript_expression" and _same(m.field(parent, "object"), node):
            key = m.key_text(m.field(parent, "index"))
            if key is None:
                return None
            reads.add(key)
        else:
            return None
    return reads


def _declared_limit(found: tuple[Classes, Node] | None) -> str | None:
    """The limit field the settings' declared type (``found``), or a type it extends, declares."""
    for _ in range(_EXTENDS_HOPS):
        if found is None:
            return None
        owner, declaration = found
        limit = next((key for key in LIMIT_FIELDS if owner.member(declaration, key) is not None), None)
        if limit is not None:
            return limit
        clause = next((c for c in declaration.named_children if c.type == "extends_type_clause"), None)
        bases = [owner.named_type(owner.m.code(t)) for t in clause.named_children] if clause is not None else []
        found = next((b for b in bases if b is not None), None)
    return None


def _chat_request_limit(reads: set[str]) -> str | None:
    """A chat request's limit, when the settings are one: a model and its messages (the key most
    such bodies are written with, of the two the API takes)."""
    return "max_tokens" if OPENAI_CHAT.request_keys <= reads else None


def _bodies(m: Module, scope: Scope) -> list[Node]:
    """The objects the function builds with a model's input and no limit, nor any spread or method
    (the body may hold more than it shows), in order."""
    found = []
    for node in own_nodes(scope.node):
        if node.type != "object":
            continue
        keys = set()
        for child in node.named_children:
            if child.type == "pair":
                keys.add(m.key_text(m.field(child, "key")))
            elif child.type == "shorthand_property_identifier":
                keys.add(m.code(child))
            elif child.type != "comment":
                keys.add(None)
        if None not in keys and keys & INPUT_KEYS and not keys & set(LIMIT_FIELDS):
            found.append(node)
    return found


def _request_body(m: Module, scope: Scope, bodies: list[Node], param: str, unread: bool) -> Node | None:
    """The first of ``bodies`` that reads the settings, or is serialised to be sent by a function
    that reads nothing of them (one that reads their model for the URL and sends a body with no
    settings at all may be calling an API that takes none)."""
    return next((body for body in bodies
                 if _reads_param(m, body, param) or unread and _serialised(m, scope, body)), None)


def _typed_without_limit(m: Module, classes: Classes, body: Node) -> bool:
    """Whether the body is declared with a type the project writes (``const args: AskSageRequestArgs
    = {...}``) that declares no limit field, itself or through what it extends: the API the body is
    written for takes none, so there is nowhere to put the caller's."""
    written = body.parent
    typed = m.field(written, "type") if written is not None and written.type == "variable_declarator" else None
    if typed is None:
        return False
    annotation = m.code(typed).lstrip(":").strip()
    found = classes.named_type(annotation)
    return found is not None and _declared_limit(found) is None


def _reads_param(m: Module, body: Node, param: str) -> bool:
    return any(n.type == "member_expression" and m.code(m.field(n, "object")) == param for n in walk(body))


def _serialised(m: Module, scope: Scope, body: Node) -> bool:
    """Whether the object, or the constant it is bound to, is given to ``JSON.stringify``."""
    written = body.parent
    name = m.code(m.field(written, "name")) if written is not None and written.type == "variable_declarator" \
        and _same(m.field(written, "value"), body) else None
    for node in own_nodes(scope.node):
        if node.type == "call_expression" and m.code(m.field(node, "function")) == "JSON.stringify":
            args = m.args(node)
            if args and (_same(m.unwrap(args[0]), body) or name is not None and m.code(args[0]) == name):
                return True
    return False


def _limit_named_around(m: Module, function: Node) -> bool:
    """Whether the function, or a function of the module that calls it by name, names any limit:
    it may add one to the body the function builds."""
    if _ANY_LIMIT.search(m.code(function)):
        return True
    named = m.field(function, "name")
    if named is None and function.parent is not None and function.parent.type == "variable_declarator":
        named = m.field(function.parent, "name")
    if named is None:
        return False
    name = m.code(named)
    for call, _ in m.calls:
        callee = m.unwrap(m.field(call, "function"))
        called = m.code(m.field(callee, "property")) if callee is not None and callee.type == "member_expression" \
            else m.code(callee) if callee is not None else ""
        if called != name:
            continue
        caller = enclosing(call)
        if caller is not None and _ANY_LIMIT.search(m.code(caller)):
            return True
    return False


def _same(node: Node | None, other: Node) -> bool:
    return node is not None and node.id == other.id


def _parameter_node(m: Module, function: Node, name: str) -> Node | None:
    params = m.field(function, "parameters")
    return next((n for n in walk(params) if n.type == "identifier" and m.code(n) == name), None) \
        if params is not None else None
