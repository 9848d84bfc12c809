"""Text the program reads from its own files, kept in a field of a class of the project: a loop over
a parameter declared as a list of that class (``context_files: List[ContextFile]``) prints
``file.content``, and every place the project builds a ``ContextFile`` fills ``content`` with the
text of a file whose name the program writes itself (``open(os.path.join(workspace, "AGENT.md"))``,
read and stripped, or cut by a helper of the module): the operator's own text, whatever the field
is named. The declared type is the evidence; the class's module (and the reading one) are where its
objects are looked for being built."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ctxlint.frontends.python.knowledge import MAX_DEPTH
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.values import Env

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.sources import Sources

# Methods that give back the same text, tidied: what they are called on decides whose it is.
_TIDY = frozenset({"strip", "lstrip", "rstrip", "replace", "decode", "expandtabs", "removeprefix", "removesuffix"})
# Collections whose one argument is the type of their items.
_COLLECTIONS = frozenset({"List", "list", "Sequence", "Iterable", "Collection", "Tuple", "tuple"})
_STEPS = 24


def own_field(sources: Sources, node: ast.Attribute, env: Env) -> bool:
    """Whether ``node`` (``file.content``) reads a field that every object of its declared class the
    project builds fills with the text of one of the program's own files."""
    item, scope = node.value, env.scope
    if not isinstance(item, ast.Name) or env.depth > MAX_DEPTH or scope.kind != "function" \
            or not any(_item_class(p.annotation) for p in scope.params.values()):
        return False  # (asked of every field read: the declared parameter first, the loop after)
    target = sources.scopes.unknowable_target(item, env)
    loop = sources.m.parents.get(id(target)) if target is not None else None
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or loop.target is not target \
            or not isinstance(loop.iter, ast.Name):
        return False
    param = scope.params.get(loop.iter.id)
    name = _item_class(param.annotation) if param is not None else None
    if name is None:
        return False
    found = sources.callees.class_named(name, scope, True)
    if found is None:
        return False
    built = [(reader, call, home) for reader in _builders(sources, found[0], name)
             for call, home in reader.m.calls_named({name})]
    if not built:
        return False
    for reader, call, home in built:
        value = next((k.value for k in call.keywords if k.arg == node.attr), None)
        if value is None or not own_file_text(reader, value, Env(home, (), env.depth + 1), [_STEPS]):
            return False
    return True


def _builders(sources: Sources, owner: Analyzer | None, name: str) -> list[Sources]:
    """The modules that may build objects of the class ``name``: its own, the reading one, and those
    of the project outside tests whose text names it."""
    readers = {id(sources): sources}
    if owner is not None:
        readers[id(owner.sources)] = owner.sources
    project = sources.m.project
    if project is not None:
        for path in project.mentioning(name):
            analyzer = None if in_tests(path, project.root) else project.analyzer(path)
            if analyzer is not None:
                readers.setdefault(id(analyzer.sources), analyzer.sources)
    return list(readers.values())


def own_file_text(sources: Sources, node: ast.expr, env: Env, steps: list[int]) -> bool:
    """Whether ``node`` is the text of a file whose path is the program's own (its name written by
    the code), through names, tidying methods and the module's functions that return a cut of it."""
    steps[0] -= 1
    if steps[0] < 0 or env.depth > MAX_DEPTH or not sources.m.step():
        return False
    if isinstance(node, ast.Await):
        return own_file_text(sources, node.value, env, steps)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        return own_file_text(sources, node.value, env, steps)  # a cut of it
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)  # the program's own words
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return own_file_text(sources, node.left, env, steps) and own_file_text(sources, node.right, env, steps)
    if isinstance(node, ast.JoinedStr):
        return all(own_file_text(sources, part.value, env, steps) for part in node.values
                   if isinstance(part, ast.FormattedValue))
    if isinstance(node, ast.Name):
        binding = sources.scopes.resolve(node, env)
        if binding is None or binding.owner is not None or binding.extras:
            return False
        return own_file_text(sources, binding.value, binding.env, steps)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _TIDY:
        return own_file_text(sources, func.value, env, steps)
    read = _file_read(sources, node, env)
    if read is not None:
        return read
    # A helper of the module handed only the program's own text (`_truncate(content)`), whose returns
    # show no source of their own: what it gives back is made of that text.
    target = sources.callees.function_for(node, env)
    if target is None or target.owner is not None or not (node.args or node.keywords):
        return False
    handed = [*node.args, *(k.value for k in node.keywords)]
    return all(isinstance(a, ast.Constant) or own_file_text(sources, a, env, steps) for a in handed) \
        and sources.untrusted(node, env) is None


def _file_read(sources: Sources, call: ast.Call, env: Env) -> bool | None:
    """For a read of a file (``Path(p).read_text()``, ``f.read()`` of ``with open(p) as f``),
    whether its path is the program's own; None for a call that reads no file."""
    func = call.func
    _, specs = sources.specs(func, env)
    files = [s for s in specs if s.kind == "file" and not s.carrier]
    if files:
        return all(not sources.outside(s, call, env) for s in files)
    if not (isinstance(func, ast.Attribute) and func.attr in ("read", "readlines")):
        return None
    opened, opened_env = func.value, env
    if isinstance(opened, ast.Name):
        binding = sources.scopes.resolve(opened, env)
        if binding is None or binding.owner is not None:
            return None
        opened, opened_env = binding.value, binding.env
    if not isinstance(opened, ast.Call):
        return None
    _, specs = sources.specs(opened.func, opened_env)
    files = [s for s in specs if s.kind == "file"]
    if not files:
        return None
    return all(not sources.outside(s, opened, opened_env) for s in files)


def _item_class(annotation: ast.expr | None) -> str | None:
    """The class of the items a collection is declared to hold: ``ContextFile`` of
    ``List[ContextFile]``, ``Optional[list[ContextFile]]`` or ``list[ContextFile] | None``."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        if isinstance(annotation.right, ast.Constant) and annotation.right.value is None:
            return _item_class(annotation.left)
        return None
    if not isinstance(annotation, ast.Subscript):
        return None
    outer = annotation.value
    outer_name = outer.id if isinstance(outer, ast.Name) else outer.attr if isinstance(outer, ast.Attribute) else ""
    if outer_name == "Optional":
        return _item_class(annotation.slice)
    if outer_name not in _COLLECTIONS:
        return None
    inner: ast.expr | None = annotation.slice
    if isinstance(inner, ast.Tuple):  # `Tuple[ContextFile, ...]`
        inner = inner.elts[0] if inner.elts else None
    return inner.id if isinstance(inner, ast.Name) and inner.id[:1].isupper() else None

