"""A list of tools built in the order of a set or a directory listing.

``for name in set(self.config.tools): self._tools.append(registry.create(name))``, or
``agent.tools = list(set(default_tools + configured))``: the tools come in the set's order, which
changes with each process's hash seed (a listing's, with the file system). A model is sent its
tools before any message, so a tool list in another order changes the whole cacheable prefix.

The list is known for one by its name (``tools``, ``self._tools``, ``research_tools``) and by
being kept: an attribute (``self._tools``, ``config.rag_tools``), returned, or passed as
``tools=``. What a loop adds must be built from something (a call, a name it binds): a loop that
adds the set's items themselves is only copying names, left to the other observations. Sorting
the list anywhere in the module (``self._tools.sort(...)``, ``sorted(tools, ...)``) clears it, and
so does a copy into an attribute that every reader in the project puts through ``set(...)`` or
``sorted(...)`` again (``for name in set(self.config.rag_tools)``): its order never reaches the
model, and the reader that iterates the set is what to report. A function whose every call sorts
what it returns (``sorted(_discover_tools(modules))``) gives no order either.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from ctxlint.frontends.python.knowledge import LOCATOR
from ctxlint.frontends.python.nodes import walk
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.stringsets import copy_of
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import QUERY_ROWS, Evidence, EvidenceKind, Observation, Source, SourceKind

Function = ast.FunctionDef | ast.AsyncFunctionDef
Dotted = Callable[[ast.AST | None], str | None]

# The kind of evidence (rules/cache/CTX104).
TOOL_ORDER = "tool-order"
ROWS_TOOL_ORDER = "rows-tool-order"  # ... whose order is a database query's (calibrated apart)
_ADDS = ("append", "extend", "insert")
_LOG_LEVELS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def _built_from(value: ast.expr) -> ast.expr | None:
    """What a comprehension builds one item from each of, when it builds each (``Tool(...)``)."""
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and isinstance(value.elt, ast.Call):
        return value.generators[0].iter
    return None


def tool_list_name(name: str | None) -> bool:
    """``tools``, ``self._tools``, ``config.rag_tools``: a name for a list of tools."""
    last = (name or "").rsplit(".", 1)[-1].lstrip("_").lower()
    return last == "tools" or last.endswith("_tools")


class ToolOrder(Component):

    def observe(self) -> list[Observation]:
        if "tools" not in self.m.text:
            return []  # every shape this looks for names a list of tools
        sorted_names = self.sorted_names()
        found: list[Observation] = []
        for fn, scope in self.m.functions:
            if fn.name.startswith("test"):
                continue
            env = Env(scope)
            nodes = own_nodes(fn)
            route = _web_route(fn)
            callers_sort: bool | None = None  # asked once, and only of a function that fills a list
            for node in nodes:
                observed = None
                if isinstance(node, (ast.For, ast.AsyncFor)):
                    observed = self.loop_fills(node, nodes, env, sorted_names, route)
                elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                    observed = self.copied(node, nodes, env, sorted_names, route)
                if observed is None or any(o.span == observed.span for o in found):
                    continue
                if callers_sort is None:
                    callers_sort = self.sorted_by_callers(fn)
                if not callers_sort:
                    found.append(observed)
        return found

    def loop_fills(self, loop: ast.For | ast.AsyncFor, nodes: Sequence[ast.AST], env: Env,
                   sorted_names: set[str], route: bool) -> Observation | None:
        """A loop over a collection in no fixed order that adds a tool built for each item to a
        tool list the function keeps."""
        filled = next((name for name in _filled(loop, self.m.dotted) if name not in sorted_names
                       and tool_list_name(name) and _kept(name, nodes, self.m.dotted, route)), None)
        if filled is None:
            return None
        detail = self.flow.unordered(loop.iter, env)
        if detail is None:
            return None
        return self.observation(loop.iter, env, detail, f"gives the order in which the loop adds tools to `{filled}`",
                                filled)

    def copied(self, assign: ast.Assign, nodes: Sequence[ast.AST], env: Env,
               sorted_names: set[str], route: bool) -> Observation | None:
        """``agent.tools = list(set(...))``: a tool list copied from a collection in no fixed order,
        or built from one a tool for each item (``tools = [Tool(**row) for row in rows]``)."""
        target = self.m.dotted(assign.targets[0])
        built = _built_from(assign.value)
        inner = copy_of(assign.value) or built
        if inner is None or not tool_list_name(target) or target in sorted_names \
                or not (isinstance(assign.targets[0], ast.Attribute) and not route
                        or _kept(target or "", nodes, self.m.dotted, route)):
            return None
        detail = self.flow.unordered(inner, env)
        if detail is None:  # the cheap question first: the reader scan loads every module that reads the field
            return None
        if isinstance(assign.targets[0], ast.Attribute) and self.read_in_no_order(assign.targets[0].attr):
            return None
        if built is not None:
            return self.observation(built, env, detail, f"gives the order in which the tools of `{target}` are built",
                                    target or "")
        return self.observation(assign.value, env, detail, f"is copied into the tool list `{target}`", target or "")

    def observation(self, shown: ast.expr, env: Env, detail: str, how: str, tools: str) -> Observation:
        step = Evidence(EvidenceKind.FLOW, f"`{' '.join(self.m.code(shown).split())}` {how}", self.m.span(shown))
        source = Source(SourceKind.UNORDERED_ITERATION, detail, self.flow.origin(shown, env), flow=(step,))
        kind = ROWS_TOOL_ORDER if detail == QUERY_ROWS else TOOL_ORDER
        return Observation(kind, self.m.span(shown), f"the tools in `{tools}` are sent to the model in that "
                           "order, ahead of every message", source=source)

    def read_in_no_order(self, field: str) -> bool:
        """Whether the project reads the attribute ``field`` and every read puts it through
        ``set(...)``, ``frozenset(...)`` or ``sorted(...)`` (``set(self.config.rag_tools or
        defaults)``), only tests it (``if not config.rag_tools``, ``name in config.rag_tools``),
        logs it or copies it into the same field of another object: then the order a copy gives
        it never reaches a model. A read of it by a string (``getattr(config, "rag_tools")``,
        ``config["rag_tools"]``) may go anywhere, so it keeps the order."""
        units = [self.m]
        project, file = self.m.project, self.m.file
        if project is not None and file is not None:
            units += [owner.unit for path in project.field_readers(field)
                      if path != file and (owner := project.analyzer(path)) is not None]
        reads = 0
        for unit in units:
            parents = unit.parents
            for node in walk(unit.tree):
                if isinstance(node, ast.Constant) and node.value == field and _read_by_string(node, parents):
                    return False
                if isinstance(node, ast.Attribute) and node.attr == field and isinstance(node.ctx, ast.Load):
                    if not _order_dropped(node, parents, field):
                        return False
                    reads += 1
        return reads > 0

    def sorted_by_callers(self, fn: Function) -> bool:
        """Whether every call of ``fn`` puts what it returns in order (``sorted(_discover(names))``):
        called in this module only (tests aside), at least once, and always as the argument of
        ``sorted``."""
        calls = [call for call, _ in self.m.calls if isinstance(call.func, ast.Name) and call.func.id == fn.name]
        project, file = self.m.project, self.m.file
        if not calls or project is not None and any(path != file and not in_tests(path, project.root)
                                                    for path in project.callers(fn.name)):
            return False
        for call in calls:
            parent = self.m.parents.get(id(call))
            if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
                    and parent.func.id == "sorted" and call in parent.args):
                return False
        return True

    def sorted_names(self) -> set[str]:
        """The names the module sorts in place (``tools.sort(...)``) or gives a sorted copy of."""
        names: set[str] = set()
        for node in walk(self.m.tree):  # the fast walk: a set, so its order does not matter
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "sort":
                names.add(self.m.dotted(node.func.value) or "")
            elif isinstance(node.func, ast.Name) and node.func.id == "sorted" and node.args:
                names.add(self.m.dotted(node.args[0]) or "")
        return names - {""}


def _filled(loop: ast.For | ast.AsyncFor, dotted: Dotted) -> list[str]:
    """The lists a loop's body adds a built value to (``tools.append(make(name))``, also under an
    ``if``): not the loop's own item, which would only copy the collection's names, nor a key of
    it (``ids.append(tool.id)``), which names a tool without being one."""
    item = loop.target.id if isinstance(loop.target, ast.Name) else None
    names: list[str] = []
    for node in ast.walk(ast.Module(body=loop.body, type_ignores=[])):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ADDS \
                and node.args and not (isinstance(node.args[-1], ast.Name) and node.args[-1].id == item) \
                and not isinstance(node.args[-1], (ast.Constant, ast.JoinedStr)) \
                and not (isinstance(node.args[-1], ast.Attribute) and LOCATOR.fullmatch(node.args[-1].attr.lower())):
            receiver = dotted(node.func.value)
            if receiver:
                names.append(receiver)
    return names


def _web_route(fn: Function) -> bool:
    """Whether a web framework serves ``fn`` at a path (``@router.get("/tools")``, ``@app.route("/")``)."""
    return any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.args
               and isinstance(d.args[0], ast.Constant) and isinstance(d.args[0].value, str)
               and d.args[0].value.startswith("/") for d in fn.decorator_list)


def _order_dropped(read: ast.expr, parents: dict[int, ast.AST], field: str) -> bool:
    """Whether the value ``read`` gives is put in a new order or only tested: the argument of
    ``set``, ``frozenset`` or ``sorted`` (also through ``or``, ``+`` and ``list(...)``), a truth or membership
    test, or its length; or it is logged, or copied into the field ``field`` of another object
    (whose reads are the ones asked about)."""
    node: ast.AST = read
    parent = parents.get(id(node))
    while parent is not None and (isinstance(parent, ast.BoolOp)
                                  or isinstance(parent, ast.Call) and copy_of(parent) is node  # `list(x)`
                                  or isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add)):
        node, parent = parent, parents.get(id(parent))  # `set(defaults + list(config.tools))`
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and node in parent.args:
        return parent.func.id in ("set", "frozenset", "sorted", "len", "bool")
    if isinstance(parent, ast.Assign):
        return all(isinstance(t, ast.Attribute) and t.attr == field for t in parent.targets)
    if isinstance(parent, ast.FormattedValue):
        logged = parents.get(id(parents.get(id(parent))))
        return isinstance(logged, ast.Call) and isinstance(logged.func, ast.Attribute) \
            and logged.func.attr in _LOG_LEVELS and "log" in ast.unparse(logged.func.value).lower()
    if isinstance(parent, ast.Compare):
        return node in parent.comparators and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
    return isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not) \
        or isinstance(parent, (ast.If, ast.While, ast.IfExp)) and getattr(parent, "test", None) is node


def _read_by_string(name: ast.Constant, parents: dict[int, ast.AST]) -> bool:
    """Whether the string ``name`` reads a field by its name: ``getattr(config, "rag_tools")``,
    ``config["rag_tools"]`` (not a key a dict or a request body is written with)."""
    parent = parents.get(id(name))
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "getattr":
        return True
    return isinstance(parent, ast.Subscript) and parent.slice is name and isinstance(parent.ctx, ast.Load)


def _kept(name: str, nodes: Sequence[ast.AST], dotted: Dotted, route: bool = False) -> bool:
    """Whether the function keeps the list: an attribute, returned, given as ``tools=`` or kept in
    an attribute named for tools (``self.tools = research_tools``). What a web route's handler
    returns or keeps in an object goes to the HTTP client that asked, not a model: only ``tools=``."""
    if "." in name and not route:
        return True
    for node in nodes:
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and node.value.id == name and not route:
            return True
        if isinstance(node, ast.keyword) and node.arg == "tools" and isinstance(node.value, ast.Name) \
                and node.value.id == name:
            return True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == name \
                and any(isinstance(t, ast.Attribute) and tool_list_name(dotted(t)) for t in node.targets):
            return True
    return False

