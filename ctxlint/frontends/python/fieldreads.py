"""A value put into a field of an object of a declared class where the object is made, followed to
where the field is read back.

``ToolContext(terms=list(state.terms), ...)``, ``terms: Sequence[Term]`` declared by the class
``ToolContext`` of the project: the value is the object's ``terms`` wherever the object goes. The
reads of ``.terms`` in the project's modules whose object is of that class (``self._context.terms``
with ``self._context: ToolContext``, ``context.terms`` with ``context: ToolContext``; read from the
declarations only, hashedtext.py) are followed on as the value itself (``builder.add_glossary(
self._context.terms)``). A read whose object's class is not shown to be that one is not followed.
A value given by position to a dataclass that declares its own fields (``ResponseContext(agent, terms)``)
is its field at that position.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.hashedtext import object_class
from ctxlint.frontends.python.nodes import function_of
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.cutreach import CutReach, Steps
    from ctxlint.frontends.python.scopes import FunctionNode
    from ctxlint.frontends.python.unit import Unit
    from ctxlint.frontends.python.values import Scope

# The step that says a value is kept in an attribute (``stored``), which ``fed_back`` (cutreach.py) looks for.
KEPT = "kept in"
# Set while a cut is followed far: every module's reader sees it (cutreach.py).
FAR: ContextVar[bool] = ContextVar("far", default=False)
# How many function boundaries a value followed far crosses (cutreach.py's, kept here with `FAR`).
MAX_FAR_HOPS = 6
# How many reads of a field are followed, at most, for one object made.
_MAX_READS = 40
# A keyword given a copy of a field (`terms=list(context.state.terms),`), the text test before parsing.
COPIED_FIELD = re.compile(r"\b\w+=(?:list|tuple)\([a-z_]\w*(?:\.\w+)+\),")
# ... or a list made of a set kept in a field of an object (`context.state.matches = list(set(...`)
STORED_COPY = re.compile(r"\b[a-z_]\w*(?:\.\w+)+\s*=\s*(?:list|tuple)\(\s*set\(")
# ... or a copy of a set a function returns (`return list(found)` with `found = set()`, `return list(set(...))`),
# which the callers of other modules may put in a prompt (orderprompts.py follows it there)
# (written to start with its literal `return`, which the engine jumps to; a leading `\b` made it try
# every position of every module's text before parsing, the word bound is checked by hand)
_RETURNED_COPY = re.compile(r"return\s+(?:list|tuple)\(\s*(?:set\(|(\w+)\s*\))")


def returns_set_copy(text: str) -> bool:
    """The text test before parsing for a module whose function returns a list made of a set: a
    ``return list(name)`` where ``name`` is given a set (``set(...)`` or a set comprehension), or
    ``return list(set(...))``."""
    for match in _RETURNED_COPY.finditer(text):
        before = text[match.start() - 1] if match.start() else " "
        if before.isalnum() or before == "_":
            continue  # `xreturn list(...)`: not the keyword
        name = match.group(1)
        if name is None or re.search(rf"\b{name}\s*(?::[^=\n]+)?=\s*(?:set\(|\{{[^}}:]*\bfor\b)", text):
            return True
    return False


def copies_set(text: str) -> bool:
    """The text tests before parsing for a copy of a field or of a set whose order other modules may
    put in a prompt: given to an object, kept in a field, or returned."""
    return COPIED_FIELD.search(text) is not None or STORED_COPY.search(text) is not None or returns_set_copy(text)


def hands_field_copy(call: ast.Call, chain: Sequence[str]) -> bool:
    """A call that makes an object of a class (``Context(terms=list(state.terms))``), or a method of
    a collaborator the object keeps (``self.matcher.analyze(terms=list(state.terms))``), given a copy
    of a field by keyword: where the copy goes is followed from there."""
    return bool(chain) and (chain[-1][:1].isupper() or len(chain) > 2 and chain[0] == "self") and any(
        isinstance(v := k.value, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("list", "tuple")
        and len(v.args) == 1 and isinstance(v.args[0], ast.Attribute) for k in call.keywords)


def stores_set_copy(node: ast.AST) -> bool:
    """``context.state.matches = list(set(...))``: a list made of a set, kept in a field of an object
    that is not ``self`` (where it goes is followed by ``stored_field``)."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
            and isinstance(value := node.value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in ("list", "tuple") and len(value.args) == 1):
        return False
    inner = value.args[0]
    while isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
        inner = inner.func.value  # `set(a).difference(b)`
    target = node.targets[0].value
    return isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "set" \
        and not (isinstance(target, ast.Name) and target.id == "self")


def field_far(reach: CutReach, call: ast.Call, field: str, fn: FunctionNode) -> Steps | None:
    """``reach_far`` (cutreach.py) for the value given as ``field=`` to ``call``, which makes an object of a
    declared class: followed from where the field is read back."""
    token = FAR.set(True)
    try:
        return through_field(reach, call, field, fn, 0, set())
    finally:
        FAR.reset(token)


def field_step(reach: CutReach, call: ast.AST | None, field: str | None, fn: FunctionNode | None, hops: int,
               seen: set[int]) -> Steps | None:
    """``through_field`` while a value is followed far, for a keyword ``field`` of ``call``."""
    if not FAR.get() or not isinstance(call, ast.Call) or fn is None or field is None or hops >= MAX_FAR_HOPS:
        return None
    return through_field(reach, call, field, fn, hops, seen)


def positional_step(reach: CutReach, call: ast.Call, node: ast.expr, fn: FunctionNode | None, hops: int,
                    seen: set[int]) -> Steps | None:
    """``field_step`` for a value given by position to a dataclass of the project that declares its
    fields itself (``ResponseAnalysisContext(agent, session, terms)``): the field is the one declared
    at that position."""
    if fn is None or any(isinstance(a, ast.Starred) for a in call.args) or node not in call.args:
        return None
    built = object_class(reach.m, call, Env(reach.scope_of(fn)))
    if built is None or not isinstance(cls := built[1].node, ast.ClassDef):
        return None
    position = call.args.index(node)
    init = _init(cls)
    if init is not None:  # `Table(conversations)`, `def __init__(self, conversations)`: the field it sets from it
        params = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
        field = _kept_as(init, params[position]) if position < len(params) else None
        return field_step(reach, call, field, fn, hops, seen) if field is not None else None
    if cls.bases or not any(ast.unparse(d).split("(")[0].endswith("dataclass") for d in cls.decorator_list):
        return None
    fields = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
              and "ClassVar" not in ast.unparse(s.annotation)]
    return field_step(reach, call, fields[position], fn, hops, seen) if position < len(fields) else None


def through_field(reach: CutReach, call: ast.Call, field: str, fn: FunctionNode, hops: int, seen: set[int]
                  ) -> Steps | None:
    """The steps by which the value given as ``field=`` to ``call``, which makes an object of a
    class of the project that declares the field, reaches a prompt where the field is read back."""
    m = reach.m
    built = object_class(m, call, Env(reach.scope_of(fn)))
    if built is None or not isinstance(built[1].node, ast.ClassDef):
        return None
    init = _init(built[1].node)
    if init is not None and any(a.arg == field for a in (*init.args.args, *init.args.kwonlyargs)):
        field = _kept_as(init, field) or ""  # `Table(conversations=...)`: the field `__init__` sets from it
    return read_back(reach, built, field, hops, seen,
                     lambda unit, reader: unit is not m or _handed(m, call, fn, reader))


def stored(reach: CutReach, statement: ast.Assign | ast.AnnAssign, fn: FunctionNode, hops: int,
           seen: set[int]) -> Steps | None:
    """``saga.summary = summary``: kept on an object whose same attribute the function reads
    into a prompt (``{"existing_summary": saga.summary}``), which its next call sees cut."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if len(targets) != 1 or not isinstance(targets[0], ast.Attribute):
        return None
    where = reach.m.dotted(targets[0])
    if where is None or where.startswith("self.") and not FAR.get():
        return None
    # while a value is followed far, an attribute of `self` is read back after it is set
    # (`self.names = list(set(names))`, then `{"names": self.names}`): a read before it sees what
    # another method may have set instead
    after = (statement.end_lineno or statement.lineno) if where.startswith("self.") else 0
    for read in ast.walk(fn):
        if isinstance(read, ast.Attribute) and isinstance(read.ctx, ast.Load) and reach.m.dotted(read) == where \
                and read.lineno > after:
            found = reach.into_prompt(read, fn, hops, seen)
            if found is not None:
                return (Evidence(EvidenceKind.FLOW, f"{KEPT} `{where}`, which `{fn.name}` reads again",
                                 reach.m.span(statement)), *found)
    return stored_field(reach, targets[0], fn, hops, seen)  # `context.state.matches = ...`, read elsewhere


def stored_field(reach: CutReach, target: ast.Attribute, fn: FunctionNode, hops: int, seen: set[int]) -> Steps | None:
    """A value given to a field of an object of a declared class (``context.state.matches = list(...)``,
    ``context: TurnContext`` whose ``state`` is declared ``TurnState``, which declares ``matches``):
    followed where the project's modules read the field of an object of that class, while a value is
    followed far."""
    if not FAR.get() or hops >= MAX_FAR_HOPS or isinstance(target.value, ast.Name) and target.value.id == "self":
        return None
    found = object_class(reach.m, target.value, Env(reach.scope_of(fn)))
    if found is None:
        return None
    return read_back(reach, found, target.attr, hops, seen, lambda unit, reader: reader is not fn)


def read_back(reach: CutReach, built: tuple[Unit, Scope], field: str, hops: int, seen: set[int],
              wanted: Callable[[Unit, FunctionNode], bool]) -> Steps | None:
    """The steps by which the field ``field`` of an object of the class ``built`` reaches a prompt
    where a module of the project reads it back (``wanted``: which reads, by module and function)."""
    if not _declares(built[1].node, field):
        return None
    m = reach.m
    unit, cls = built
    assert isinstance(cls.node, ast.ClassDef)
    home = (unit.path, cls.node.lineno, cls.node.name)
    for owner_unit, read, reader_fn in _reads(m, field):
        analyzer = owner_unit.analyzer
        if analyzer is None or id(read) in seen or not wanted(owner_unit, reader_fn):
            continue
        reader = analyzer.cut_reach
        found_class = object_class(owner_unit, read.value, Env(reader.scope_of(reader_fn)))
        if found_class is None or not isinstance(found_class[1].node, ast.ClassDef):
            continue
        read_cls = found_class[1].node
        if (found_class[0].path, read_cls.lineno, read_cls.name) != home:
            continue
        found = reader.into_prompt(read, reader_fn, hops + 1, seen)
        if found is not None:
            if owner_unit.path != m.path:
                m.dependencies.add(owner_unit.path)  # a change there changes where the value goes
            return (Evidence(EvidenceKind.FLOW, f"kept as the field `{field}` of `{cls.node.name}`, read back as "
                             f"`{owner_unit.code(read)}`", owner_unit.span(read)), *found)
    return None


def _handed(m: Unit, call: ast.Call, fn: FunctionNode, reader: FunctionNode) -> bool:
    """For a read in the module that makes the object: whether the function that reads it is the one
    that makes it, or one it hands the object to by name (``self._render(context, ...)``); another
    object of the class made elsewhere in the module is read there."""
    if reader is fn:
        return True
    statement = m.parents.get(id(call))
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return False
    name = statement.targets[0].id
    return any(isinstance(node, ast.Call) and last_name(node.func) == reader.name
               and any(isinstance(a, ast.Name) and a.id == name
                       for a in (*node.args, *(k.value for k in node.keywords)))
               for node in ast.walk(fn))


def _declares(node: ast.AST, field: str) -> bool:
    """Whether the class declares ``field`` in its body, or its ``__init__`` sets it from a parameter."""
    if not isinstance(node, ast.ClassDef) or not field:
        return False
    init = _init(node)
    return any(isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == field
               for s in node.body) or init is not None and any(
        _kept_as(init, a.arg) == field for a in (*init.args.args, *init.args.kwonlyargs))


def _init(cls: ast.ClassDef) -> ast.FunctionDef | None:
    """The class's own ``__init__``."""
    return next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)


def _kept_as(init: ast.FunctionDef, param: str) -> str | None:
    """The field an ``__init__`` sets to its parameter ``param`` as it is (``self.conversations =
    conversations``), by a statement of its own body; None when it keeps none, or changes it first."""
    if any(isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and isinstance(
            t := (n.targets[0] if isinstance(n, ast.Assign) else n.target), ast.Name) and t.id == param
           for n in ast.walk(init)):
        return None  # the parameter is given another value before or after it is kept
    for statement in init.body:
        value: ast.expr | None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign):
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self" \
                and isinstance(value, ast.Name) and value.id == param:
            return target.attr
    return None


def _reads(m: Unit, field: str) -> Iterator[tuple[Unit, ast.Attribute, FunctionNode]]:
    """The reads of ``.field`` in functions of this module and of the project's modules that read it."""
    units = [m]
    project = m.project
    if project is not None and m.file is not None:
        for path in project.field_readers(field):
            if path == m.file or in_tests(path, project.root):
                continue
            owner = project.analyzer(Path(path))
            if owner is not None:
                units.append(owner.unit)
    count = 0
    for unit in units:
        for node in ast.walk(unit.tree):
            if not (isinstance(node, ast.Attribute) and node.attr == field and isinstance(node.ctx, ast.Load)):
                continue
            fn = function_of(node, unit.parents)
            if fn is None:
                continue
            count += 1
            if count > _MAX_READS:
                return
            yield unit, node, fn
