"""A text file the code reads whole and passes as the value of another template's variable.

``KB = Path(__file__).parent / "prompts" / "knowledge_base.txt"``, then in a function
``kb = KB.read_text()`` and ``load_prompt("system", knowledge_base=kb, ...)``: the file is not a
template the code renders, it is text put into one. A template engine does not render the
values it is given, so what looks like a placeholder in the file (``{{ customer_email }}`` in a
YAML example of a knowledge base) reaches the model as written: the file has no slots. The read
text counts as passed on whole only when nothing in its function fills it (``.format``,
``.replace``, ``.render``, ``Template(text)``, a loader handed the text positionally).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.nodes import enclosing

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.unit import Unit

# Methods that read a whole file's text (``path.read_text()``, ``open(path).read()``).
_READS = frozenset({"read_text", "read"})
# Words in a call's name that say it renders a template with the keywords it is given.
_RENDER_WORDS = ("prompt", "template", "render")
# The most steps from the file's name to the value that holds its path.
_MAX_CLIMB = 6


def passed_as_value(analyzer: Analyzer, names_template: Callable[[str], bool]) -> bool:
    """Whether ``analyzer``'s module reads the file a string literal names (``names_template``)
    whole and passes the text as a keyword value of a call that renders another template, with
    nothing in the reading function filling the text itself."""
    unit = analyzer.unit
    parents = unit.parents
    passed = False
    for literal, text in unit.strings:
        if not names_template(text):
            continue
        for read in _reads(unit, literal, parents):
            found = _passed_on(unit, read, parents)
            if found is None:
                return False  # the text is filled, or used in a way not read here
            passed = passed or found
    return passed


def _path_holder(literal: ast.AST, parents: dict[int, ast.AST]) -> ast.AST:
    """The outermost expression that builds the path from ``literal`` (``base / "x.txt"``,
    ``Path(...)``, ``os.path.join(...)``, parenthesised or not)."""
    current = literal
    for _ in range(_MAX_CLIMB):
        parent = parents.get(id(current))
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Div, ast.Add)):
            current = parent
        elif isinstance(parent, ast.Call) and current is not parent.func and _joins_path(parent):
            current = parent
        else:
            break
    return current


def _joins_path(call: ast.Call) -> bool:
    return last_name(call.func) in ("Path", "PurePath", "join", "joinpath", "resolve", "absolute")


def _reads(unit: Unit, literal: ast.AST, parents: dict[int, ast.AST]) -> list[ast.Call]:
    """The calls that read the whole text of the file at the path ``literal`` builds: on the
    path itself, or on the name the path is assigned to, anywhere in the module."""
    holder = _path_holder(literal, parents)
    read = _read_of(holder, parents)
    if read is not None:
        return [read]
    assign = parents.get(id(holder))
    if not (isinstance(assign, (ast.Assign, ast.AnnAssign)) and assign.value is holder):
        return []
    targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
    held = {unit.dotted(t) for t in targets} - {None}
    reads = []
    for node in ast.walk(unit.tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load) \
                and unit.dotted(node) in held:
            found = _read_of(node, parents)
            if found is not None:
                reads.append(found)
    return reads


def _read_of(path: ast.AST, parents: dict[int, ast.AST]) -> ast.Call | None:
    """``path.read_text()`` or ``open(path).read()``: the call that reads the file's text."""
    parent = parents.get(id(path))
    if isinstance(parent, ast.Attribute) and parent.attr in _READS:
        call = parents.get(id(parent))
        return call if isinstance(call, ast.Call) and call.func is parent else None
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "open" \
            and parent.args and parent.args[0] is path:
        return _read_of(parent, parents)
    return None


def _passed_on(unit: Unit, read: ast.Call, parents: dict[int, ast.AST]) -> bool | None:
    """True when the text ``read`` gives is passed as a keyword value of a render call and
    nothing fills it; False when it is neither (kept, logged); None when something fills it
    or it goes where this does not follow."""
    parent = parents.get(id(read))
    if isinstance(parent, ast.keyword):
        return _renders(parents.get(id(parent)))
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return None
    name = parent.targets[0].id
    home = enclosing(parent, parents, (ast.FunctionDef, ast.AsyncFunctionDef))
    if home is None:
        return None
    passed = False
    for node in ast.walk(home):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        use = parents.get(id(node))
        if isinstance(use, ast.keyword) and _renders(parents.get(id(use))):
            passed = True
        elif isinstance(use, ast.Call) and node in use.args and _measures(use):
            continue  # `len(text)`: its size, not its text
        else:
            return None  # filled, returned, joined, or sent: read as the file's own prompt
    return passed


def _renders(call: ast.AST | None) -> bool:
    """A call that renders a template with its keywords: a render method, or a function named
    for a prompt or template (``load_prompt(template="system", ...)``)."""
    if not isinstance(call, ast.Call):
        return False
    name = (last_name(call.func) or "").lower()
    return any(word in name for word in _RENDER_WORDS)


def _measures(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == "len"
