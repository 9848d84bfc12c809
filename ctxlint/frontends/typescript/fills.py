"""What the tree's calls of a method put under a key of its object parameter.

A class method that destructures an object parameter (``constructPrompt({ systemPrompt,
contextTexts })``) names its fields as an interface: the callers write the same keys
(``llm.compressMessages({ systemPrompt, contextTexts: chunks })``). The receiver of such a call is
often of no class the code shows (a provider picked at run time), so the call is linked to the
method by its name and by the keys it writes, all of which the method's pattern must declare. A
method the class reaches only through another of its own that passes its parameter on whole
(``compressMessages(args) { this.constructPrompt(args) }``) is called by that one's name.

What such a call passes for the key is followed to its source in the caller's module: a field the
module cannot see filled is given what the tree fills it with.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.typescript.classes import TreeIndex, tree_index
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.syntax import enclosing, walk
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Source

if TYPE_CHECKING:
    from ctxlint.frontends.typescript.sources import Sources

MAX_CALLERS = 8  # modules read for the calls of one method
MIN_KEYS = 2  # a call that writes one key says too little of the parameter it fills
_INDEXED: list[TreeIndex] = []  # the tree index what is found below was found with (one tree per run)
_FOUND: dict[tuple[str, int, str], Source | None] = {}  # (module, method, key) -> what its callers pass
_VALUES: dict[tuple[str, int], Source | None] = {}  # (module, value) -> the source of a value a call passes


def field_source(sources: Sources, scope: Scope, name: str) -> Source | None:
    """What the tree's calls of the method ``scope`` belongs to pass under the key ``name`` of its
    object parameter, when that is third-party content; None when ``name`` is no such field."""
    m, method = sources.m, scope.node
    if method.type != "method_definition" or not m.project.root:
        return None
    found = _fields(m, method, name)
    if found is None:
        return None
    _index(m.project.root)  # made (and what was found for another tree forgotten) before it is asked
    key = (os.path.abspath(m.path), method.start_byte, name)
    if key not in _FOUND:
        _FOUND[key] = None  # a caller that reaches this same field again finds nothing new
        _FOUND[key] = _passed(sources, method, found[0], found[1], name)
    return _FOUND[key]


def _fields(m: Module, method: Node, name: str) -> tuple[int, set[str]] | None:
    """The position of the object parameter that declares the key ``name`` and all the keys it
    declares, or None."""
    params = m.field(method, "parameters")
    for position, param in enumerate(params.named_children if params is not None else ()):
        pattern = m.field(param, "pattern") or param
        if pattern.type == "assignment_pattern":
            pattern = m.field(pattern, "left") or pattern
        if pattern.type != "object_pattern":
            continue
        keys = set()
        for child in pattern.named_children:
            if child.type == "object_assignment_pattern":  # `{ contextTexts = [] }`
                child = m.field(child, "left") or child
            if child.type == "shorthand_property_identifier_pattern":
                keys.add(m.code(child))
            elif child.type == "pair_pattern" and (key := m.field(child, "key")) is not None:
                keys.add(m.code(key))
        if name in keys:
            return position, keys
    return None


def _passed(sources: Sources, method: Node, position: int, keys: set[str], name: str) -> Source | None:
    """What the calls of the method pass under ``name``: the class's own calls of it first
    (``this.#promptStruct({ contextTexts })`` in another of its methods), then the tree's."""
    m = sources.m
    for called, at in _entries(m, method, position):
        found = _in_module(m, sources, called, at, keys, name)
        if found is not None or called.startswith("#"):  # a private method: only its class calls it
            return found
        here = os.path.abspath(m.path)
        for path in _index(m.project.root).get(called, [])[:MAX_CALLERS]:
            module = m.project.read_file(path) if os.path.abspath(path) != here else None
            found = _in_module(module.m, module.sources, called, at, keys, name) if module is not None else None
            if found is not None:
                return found
    return None


def _entries(m: Module, method: Node, position: int) -> list[tuple[str, int]]:
    """The names the class's code outside calls the method by, with the position of the object
    there: its own, and those of the class's methods that pass their parameter on to it whole,
    themselves or through a helper they give the instance to (which calls the method on it: the
    keys a caller writes must all be the method's, as for any call)."""
    own = m.field(method, "name")
    if own is None:
        return []
    name = m.code(own)
    found = [(name, position)]
    body = enclosing(method, ("class_body",))
    for other in body.named_children if body is not None else ():
        other_name = m.field(other, "name")
        if other.type != "method_definition" or other == method or other_name is None:
            continue
        params = m.field(other, "parameters")
        names = [_param_name(m, p) for p in (params.named_children if params is not None else ())]
        for call in walk(m.field(other, "body") or other, into_functions=False):
            if call.type != "call_expression":
                continue
            args = m.args(call)
            if _calls_own(m, call, name):
                passed = m.code(args[position]) if position < len(args) else None
            else:  # `messageStringCompressor(this, promptArgs)`: a helper given the instance and the object
                given = [m.code(a) for a in args]
                passed = next((g for g in given if g in names), None) if "this" in given else None
            if passed is not None and passed in names:
                found.append((m.code(other_name), names.index(passed)))
                break
    return found


def _param_name(m: Module, param: Node) -> str | None:
    pattern = m.field(param, "pattern") or param
    if pattern.type == "assignment_pattern":
        pattern = m.field(pattern, "left") or pattern
    return m.code(pattern) if pattern.type == "identifier" else None


def _calls_own(m: Module, call: Node, name: str) -> bool:
    """Whether ``call`` is ``this.name(...)``."""
    callee = m.unwrap(m.field(call, "function"))
    if callee is None or callee.type != "member_expression":
        return False
    receiver, prop = m.field(callee, "object"), m.field(callee, "property")
    return receiver is not None and receiver.type == "this" and prop is not None and m.code(prop) == name


def _in_module(m: Module, sources: Sources, called: str, position: int, keys: set[str],
               name: str) -> Source | None:
    """What a call of ``.called(...)`` in module ``m`` passes under ``name``, when third-party content:
    only a call whose object writes keys the method declares, at least MIN_KEYS of them."""
    for call in _method_calls(m).get(called, ()):
        args = m.args(call)
        if position >= len(args) or args[position].type != "object":
            continue
        written = written_keys(m, args[position])
        if written is None or name not in written or len(written) < MIN_KEYS or not set(written) <= keys:
            continue
        value = written[name]
        at = (os.path.abspath(m.path), value.start_byte)
        if at not in _VALUES:  # the same call fills the field of every class with the method
            _VALUES[at] = sources.untrusted(value, Env(m.innermost_scope(call)))
        found = _VALUES[at]
        if found is not None:
            step = Evidence(EvidenceKind.FLOW, f"passed as `{name}` to `.{called}()` at "
                            f"{os.path.basename(m.path)}:{value.start_point[0] + 1}", m.span(value))
            return replace(found, flow=(*found.flow, step), from_caller=True)
    return None


def _method_calls(m: Module) -> dict[str, list[Node]]:
    """The module's calls of a method (``x.name(...)``, ``this.#name(...)``) by its name, found in one walk."""
    if m.method_calls is None:
        m.method_calls = {}
        for call in walk(m.root):
            callee = m.unwrap(m.field(call, "function")) if call.type == "call_expression" else None
            prop = m.field(callee, "property") if callee is not None and callee.type == "member_expression" else None
            if prop is not None:
                m.method_calls.setdefault(m.code(prop), []).append(call)
    return m.method_calls


def written_keys(m: Module, obj: Node) -> dict[str, Node] | None:
    """The keys an object literal writes and the value of each; None when it spreads another object
    (its keys are unknown)."""
    written = {}
    for child in obj.named_children:
        if child.type == "shorthand_property_identifier":
            written[m.code(child)] = child
        elif child.type == "pair" and (key := m.key_text(m.field(child, "key"))) is not None:
            value = m.field(child, "value")
            if value is not None:
                written[key] = value
        elif child.type != "comment":
            return None
    return written


def _index(root: str) -> dict[str, list[str]]:
    """The modules of the tree that call a method by each name (the tree index's text scan); what
    was found with another tree's index is forgotten."""
    index = tree_index(root)
    assert index is not None  # a root is given
    if not _INDEXED or _INDEXED[0] is not index:
        _INDEXED[:] = [index]
        _FOUND.clear()
        _VALUES.clear()
    return index.called
