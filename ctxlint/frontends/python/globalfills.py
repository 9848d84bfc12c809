"""A module-level dict or list that one function fills in a directory listing's order and another
renders into a prompt.

``file_contents = {}`` at the top of the module; a tool ``read_files`` walks ``glob.glob(...)``
and keeps each file (``file_contents[path] = text``); ``build_system_prompt`` then writes
``"\\n".join(file_contents.keys())`` and each ``file_contents.items()`` into the text it returns
for the system prompt. The dict keeps the order its keys were added in, which is the order the
file system listed them: the prompt lists the files in an order that changes between runs and
machines. Neither function shows it alone: the filling one builds no text, the rendering one
reads a dict in insertion order, which is fine for any dict filled in a fixed order.

Reported where the listing is looped over, with the rendering function's text followed into a
prompt (cutreach.py) as the evidence. Sorting the listing, the loop's collection or the read
(``sorted(file_contents.items())``) clears it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ctxlint.frontends.python.knowledge import LISTING_WORDS, LISTINGS
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import listings_walked, own_nodes
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, Observation, Source, SourceKind

Function = ast.FunctionDef | ast.AsyncFunctionDef

# The kind of evidence (rules/cache/CTX104): a listing's order, as `listing-reaches-prompt`.
LISTING_REACHES_PROMPT = "listing-reaches-prompt"
_EMPTY_CALLS = ("dict", "list", "OrderedDict", "collections.OrderedDict")
# Reads of a dict or list that give its items in the order they were added.
_IN_ORDER = ("keys", "values", "items")


class GlobalFills(Component):
    def observe(self) -> list[Observation]:
        containers = self.module_containers()
        if not containers or not any(w in self.m.text for w in LISTING_WORDS):
            return []
        found: list[Observation] = []
        for name in sorted(containers):
            fill = self.listing_fill(name)
            if fill is None:
                continue
            loop, filler, env, detail = fill
            rendered = self.rendered(name)
            if rendered is None:
                continue
            read, reader, steps = rendered
            listings = listings_walked(self.flow, loop, filler, env)
            at = self.m.span(listings[0]) if listings else self.m.span(loop.iter)
            flow = (*(Evidence(EvidenceKind.FLOW, f"`{self.m.code(c.func)}(...)` gives `{self.m.code(loop.iter)}` "
                               "its order", self.m.span(c)) for c in listings[1:]),
                    Evidence(EvidenceKind.FLOW, f"`{filler.name}` adds to the module's `{name}` in the order "
                             "the loop walks it", self.m.span(loop.iter)),
                    Evidence(EvidenceKind.FLOW, f"`{reader.name}` reads `{name}` in the order its items were added",
                             self.m.span(read)), *steps)
            sink = steps[-1]
            where = f" ({sink.span.path}:{sink.span.line})" if sink.span is not None else ""
            source = Source(SourceKind.UNORDERED_ITERATION, detail, at, flow=flow)
            found.append(Observation(LISTING_REACHES_PROMPT, at,
                                     f"its order becomes the order in which `{reader.name}` writes `{name}` into "
                                     f"text that is {sink.text[0].lower()}{sink.text[1:]}{where}", source=source))
        return found

    def module_containers(self) -> set[str]:
        """The names the module's top level sets to an empty dict or list, and sets nowhere else there."""
        names: dict[str, int] = {}
        for statement in self.m.tree.body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        empty = _empty(statement.value)
                        names[target.id] = names.get(target.id, 0) + (1 if empty else 2)
        return {name for name, count in names.items() if count == 1}

    def listing_fill(self, name: str) -> tuple[ast.For | ast.AsyncFor, Function, Env, str] | None:
        """The loop over a directory listing (not sorted) in which a function adds to ``name``."""
        for fn, scope in self.m.functions:
            if fn.name.startswith("test") or _local(fn, name):
                continue
            env = Env(scope)
            for node in own_nodes(fn):
                if isinstance(node, (ast.For, ast.AsyncFor)) and any(_adds_to(s, name) for s in _body(node)):
                    detail = self.flow.unordered(node.iter, env)
                    if detail in LISTINGS:
                        return node, fn, env, detail
        return None

    def rendered(self, name: str) -> tuple[ast.expr, Function, tuple[Evidence, ...]] | None:
        """A read of ``name`` in its items' order (joined, or looped over adding each item to
        text) in a function whose text data flow follows into a prompt."""
        reach = self.cut_sites.reach
        for fn, _scope in self.m.functions:
            if fn.name.startswith("test") or _local(fn, name):
                continue
            for node in own_nodes(fn):
                read = _ordered_read(node, name)
                if read is None:
                    continue
                text = _text_of(node, self.m.parents)
                if text is None:
                    continue
                steps = reach.into_prompt(text, fn) if isinstance(text, ast.expr) else \
                    reach.through_name(text[0], text[1], fn, 0, set())
                if steps:
                    return read, fn, steps
        return None


def _empty(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List)):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return isinstance(value, ast.Call) and not value.args and not value.keywords \
        and ast.unparse(value.func) in _EMPTY_CALLS


def _local(fn: Function, name: str) -> bool:
    """Whether ``name`` in ``fn`` is its own (a parameter, or assigned there without ``global``)."""
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    if name in params:
        return True
    declared = any(isinstance(n, ast.Global) and name in n.names for n in walk(fn))
    assigned = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in walk(fn))
    return assigned and not declared


def _body(loop: ast.For | ast.AsyncFor) -> Iterator[ast.AST]:
    for statement in loop.body:
        yield from walk(statement)


def _adds_to(node: ast.AST, name: str) -> bool:
    """``name[key] = value`` or ``name.append(value)``."""
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                   for t in node.targets)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in ("append", "extend", "insert") \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == name


def _ordered_read(node: ast.AST, name: str) -> ast.expr | None:
    """The collection a join or a loop that adds to text walks, when it is ``name`` in its
    items' order (``name``, ``name.keys()``, ``name.items()``; not ``sorted(name)``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
            and len(node.args) == 1:
        walked = node.args[0]
        if isinstance(walked, (ast.ListComp, ast.GeneratorExp)):
            walked = walked.generators[0].iter
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        walked = node.iter
    else:
        return None
    if isinstance(walked, ast.Call) and isinstance(walked.func, ast.Attribute) and walked.func.attr in _IN_ORDER \
            and not walked.args:
        walked = walked.func.value
    return walked if isinstance(walked, ast.Name) and walked.id == name else None


def _text_of(node: ast.AST, parents: dict[int, ast.AST]) -> ast.expr | tuple[str, ast.stmt] | None:
    """What carries the read's order on: the join itself, or the local name a loop adds each
    item's text to (``text += f"--- {path} ---"``) with the loop, after which it is read."""
    if isinstance(node, ast.Call):
        return node
    assert isinstance(node, (ast.For, ast.AsyncFor))
    for statement in node.body:
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) \
                and isinstance(statement.target, ast.Name):
            return statement.target.id, node
    return None
