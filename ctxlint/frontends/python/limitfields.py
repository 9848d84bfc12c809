"""A limit taken from one field of a settings object while another of its limit fields is dropped:
``params["max_output_tokens"] = settings.max_completion_tokens`` in a request builder that never
reads ``settings.max_tokens``, which another builder of the module sends as the limit
(``params["max_completion_tokens"] = settings.max_tokens``) from a parameter of the same type.
A prompt whose limit is kept in that field runs with none through this builder."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.nodes import function_of, walk
from ctxlint.frontends.python.unit import Unit
from ctxlint.model import Evidence, EvidenceKind
from ctxlint.providers import TOKEN_LIMIT_NAMES

# The kind of evidence of such a request (rules/**/CTX201).
FIELD_DROPPED = "field-dropped"

Function = ast.FunctionDef | ast.AsyncFunctionDef


def dropped_limit_field(m: Unit, value: ast.expr) -> Evidence | None:
    """The limit field of ``value``'s object that the function setting ``value`` as the limit
    never reads and another function of the module sends as the limit, from a parameter
    annotated with the same type (or ``self`` of the same class)."""
    if not isinstance(value, ast.Attribute) or value.attr not in TOKEN_LIMIT_NAMES:
        return None
    function = function_of(value, m.parents)
    if function is None:
        return None
    holder = m.code(value.value)
    kind = _holder_type(m, value.value, function)
    if kind is None:
        return None
    read_here = {n.attr for n in walk(function) if isinstance(n, ast.Attribute) and n.attr in TOKEN_LIMIT_NAMES
                 and m.code(n.value) == holder}
    for field, sender in _limit_fields_sent(m):
        if field.attr in read_here or sender is function or m.code(field.value) != holder \
                or _holder_type(m, field.value, sender) != kind:
            continue
        return Evidence(EvidenceKind.SOURCE, f"`{holder}.{field.attr}` is never read where this request's settings "
                        f"are built, though `{sender.name}` sends it as the limit", m.span(field))
    return None


def _limit_fields_sent(m: Unit) -> list[tuple[ast.Attribute, Function]]:
    """Every field of an object the module sends as a request's limit, by key or keyword
    (``params["max_completion_tokens"] = settings.max_tokens``, ``max_tokens=settings.max_tokens``),
    with the function that does it; found once per module."""
    if m.limit_fields_sent is None:
        found = []
        for node in walk(m.tree):
            key = None
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
                index = node.targets[0].slice
                key = index.value if isinstance(index, ast.Constant) else None
            elif isinstance(node, ast.keyword):
                key = node.arg
            value = getattr(node, "value", None)
            if key in TOKEN_LIMIT_NAMES and isinstance(value, ast.Attribute) and value.attr in TOKEN_LIMIT_NAMES:
                function = function_of(node, m.parents)
                if function is not None:
                    found.append((value, function))
        m.limit_fields_sent = found
    return m.limit_fields_sent


def _holder_type(m: Unit, holder: ast.expr, function: Function) -> str | None:
    """What says the object is of one type: the annotation of the parameter the holder starts at
    (``invocation_parameters.openai`` of ``invocation_parameters: OpenAIParameters | None``), or
    the class of a method's ``self``."""
    root = holder
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return None
    if root.id == "self":
        owner = m.parents.get(id(function))
        return f"class {owner.name}" if isinstance(owner, ast.ClassDef) else None
    arguments = function.args
    for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        if arg.arg == root.id:
            return m.code(arg.annotation) if arg.annotation is not None else None
    return None
