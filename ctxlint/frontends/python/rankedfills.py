"""Whether a loop that fills a prompt to a budget walks its items best first, by evidence in the
code: the collection was sorted before the loop by a score, a rank, a weight or a size, highest
first (``sorted(points, key=lambda p: p["score"], reverse=True)``, ``items.sort(...)``,
``df.sort_values(..., ascending=False)``, ``nlargest``), or by a distance or a cost, lowest
first; or it comes from a retrieval or ranking call (``store.similarity_search(query, k=8)``).
The evidence is followed through local names, filters and slices that keep the order, the
project functions that return such a collection (a helper that returns its parameter sorted),
and the callers that pass one to a parameter. Stopping such a fill at the budget leaves out the
lowest-ranked items on purpose: a top-k selection, not a silent cut. A sort by time is not one
(keeping the first of turns sorted oldest first drops the newest).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.loopshapes import loop_order
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind

# What says a collection is ranked, where it is written, and the module it is in.
Found = tuple[str, ast.expr | ast.stmt, Unit]
# How many function boundaries (a return, a parameter) the evidence is followed across.
MAX_HOPS = 3
# A function whose name more modules than this call is not looked for in other modules.
MAX_CALLER_MODULES = 6
# What a key that puts the best first, highest first, is called.
_HIGH_BEST = {"score", "scores", "rank", "ranking", "weight", "relevance", "relevant", "importance", "important",
              "priority", "similarity", "similar", "count", "counts", "num", "links", "matches", "size", "len",
              "length", "degree", "votes", "confidence", "probability", "prob", "frequency", "freq"}
# ... lowest first.
_LOW_BEST = {"distance", "dist", "cost", "loss"}
# A key in time: sorted by it, the first items are the oldest (or newest), not the best.
_TIME = {"time", "date", "timestamp", "ts", "created", "updated", "modified", "turn", "age", "datetime"}
# Words of a call that retrieves or ranks items (``similarity_search_by_text``, ``rerank``).
_RETRIEVAL = {"retrieve", "retriever", "rerank", "nearest", "similarity", "ranked"}
# A search or a query is ranked when it asks for the best few (``index.search(query, top_k=5)``);
# a plain one (``jira.search_issues(jql)``) returns every match in an order of no merit.
_SEARCH = {"search", "query"}
_TOP_K = {"k", "top_k", "topk", "top_n", "n_results"}
# Calls that hand over their first argument's items in the same order.
_SAME_ORDER = {"list", "tuple", "DataFrame", "deepcopy", "copy"}
# Methods that hand over their object's items in the same order.
_SAME_ORDER_METHODS = {"head", "copy", "reset_index", "iterrows", "itertuples", "items", "values", "to_dict",
                       "to_list", "tolist", "dropna"}


def name_words(text: str) -> set[str]:
    """The words of a name, split at underscores, dots and camelCase (`searchResults`: search, results)."""
    return set(re.split(r"[^a-z]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", text).lower())) - {""}


class RankedFills(Component):
    def best_first(self, loop: ast.For | ast.AsyncFor, fn: FunctionNode | None) -> Evidence | None:
        """The evidence that ``loop`` walks a collection best first (None without any)."""
        iterated, keeps = loop_order(loop.iter)
        if keeps != "start" or fn is None:
            return None  # walked from its end: the worst first
        found = self.ranked(iterated, fn, loop.lineno, 0, set())
        if found is None:
            return None
        what, node, unit = found
        return Evidence(EvidenceKind.FLOW, f"`{self.m.code(iterated)}` {what}: a fill of the best items first, "
                        "whose lowest-ranked are left out on purpose", unit.span(node))

    def ranked(self, node: ast.expr, fn: FunctionNode, before: int, hops: int, seen: set[int]
               ) -> Found | None:
        """How ``node``, read in ``fn`` at line ``before``, holds items best first: what says so
        and where."""
        if id(node) in seen:
            return None
        seen.add(id(node))
        if isinstance(node, ast.Await):
            return self.ranked(node.value, fn, before, hops, seen)
        if isinstance(node, ast.Name):
            return self.ranked_name(node.id, fn, before, hops, seen)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            # a filter keeps the order of what it walks; a test of membership in retrieved items keeps those
            tests = [n.comparators[0] for g in node.generators for t in g.ifs for n in ast.walk(t)
                     if isinstance(n, ast.Compare) and isinstance(n.ops[0], ast.In)]
            return next((f for part in (node.generators[0].iter, *tests)
                         if (f := self.ranked(part, fn, before, hops, seen)) is not None), None)
        if isinstance(node, ast.SetComp):
            return self.ranked(node.generators[0].iter, fn, before, hops, seen)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.ranked(node.left, fn, before, hops, seen) or self.ranked(node.right, fn, before, hops, seen)
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant) and not (
                isinstance(node.slice, ast.Slice) and node.slice.step is not None):
            return self.ranked(node.value, fn, before, hops, seen)  # `top[:k]`, `df[df.score > 0]`
        if isinstance(node, ast.Call):
            return self.ranked_call(node, fn, before, hops, seen)
        return None

    def ranked_call(self, call: ast.Call, fn: FunctionNode, before: int, hops: int, seen: set[int]
                    ) -> Found | None:
        name = last_name(call.func) or ""
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        if name == "sorted" and call.args:
            order = _order(keywords.get("key"), _true(keywords.get("reverse")), None, fn)
            return (f"is sorted {order}", call, self.m) if order else None
        if name == "sort_values":
            by = keywords.get("by") or (call.args[0] if call.args else None)
            ascending = keywords.get("ascending")
            descending = isinstance(ascending, ast.Constant) and ascending.value is False
            order = _order(by, descending, None, fn) if by is not None else None
            return (f"is sorted {order}", call, self.m) if order else None
        if name == "nlargest":
            return "holds the largest items first", call, self.m
        if isinstance(call.func, ast.Attribute) and not (self.m.qualified(call.func) or "").startswith("re.") \
                and (name_words(name) & _RETRIEVAL or (name_words(name) & _SEARCH and not _TOP_K.isdisjoint(keywords))):
            return f"is what `{name}` retrieves", call, self.m
        if name in _SAME_ORDER and call.args:
            return self.ranked(call.args[0], fn, before, hops, seen)
        if isinstance(call.func, ast.Attribute) and name in _SAME_ORDER_METHODS:
            return self.ranked(call.func.value, fn, before, hops, seen)
        if hops >= MAX_HOPS:
            return None
        scope = self.scope_of(fn)
        called = self.callees.function_for(call, Env(scope), foreign=True) if scope is not None else None
        if called is None:
            return None
        reader = called.owner.ranked_fills if called.owner is not None else self
        for value in called.returns:
            found = reader.ranked(value, called.fn, value.lineno, hops + 1, seen)
            if found is not None:
                return f"is returned by `{called.fn.name}`, where it {found[0]}", found[1], found[2]
        return None

    def ranked_name(self, name: str, fn: FunctionNode, before: int, hops: int, seen: set[int]
                    ) -> Found | None:
        """A local name: sorted in place before ``before``, or given (or filled from) a ranked
        collection; a parameter: what the function's callers pass."""
        statements = [s for s in ast.walk(fn) if isinstance(s, ast.stmt) and s.lineno < before]
        # the last sort decides the order (in place, or `name = sorted(...)`), unless the name is given
        # a new value after it
        sort = max((s for s in statements if _sorts(s, name) or _resorts(s, name)), key=lambda s: s.lineno,
                   default=None)
        if sort is not None and not any(_assigns(s, name) and s.lineno > sort.lineno for s in statements):
            if isinstance(sort, ast.Assign):
                return self.ranked(sort.value, fn, sort.lineno, hops, seen)
            assert isinstance(sort, ast.Expr) and isinstance(sort.value, ast.Call)
            keywords = {k.arg: k.value for k in sort.value.keywords if k.arg}
            order = _order(keywords.get("key"), _true(keywords.get("reverse")), name, fn)
            return (f"is sorted {order}", sort, self.m) if order else None
        assigned = False
        for statement in statements:
            if isinstance(statement, ast.Assign) and _assigns(statement, name):
                assigned = True
                found = self.ranked(statement.value, fn, statement.lineno, hops, seen)
                if found is not None:
                    return found
            elif isinstance(statement, (ast.For, ast.AsyncFor)) and _fills(statement, name):
                assigned = True  # `for result in results: kept.append(...)`: in the order of what it walks
                iterated, keeps = loop_order(statement.iter)
                found = self.ranked(iterated, fn, statement.lineno, hops, seen) if keeps == "start" else None
                if found is not None:
                    return found
        scope = self.scope_of(fn)
        if assigned or hops >= MAX_HOPS or scope is None or name not in scope.params:
            return None
        return self.from_callers(fn, name, hops, seen)

    def from_callers(self, fn: FunctionNode, param: str, hops: int, seen: set[int]
                     ) -> Found | None:
        """What every call of ``fn`` the project shows passes as ``param``, when each is ranked."""
        found: Found | None = None
        for unit, call, home in self.calls_of(fn):
            caller = home.node
            bound = unit.analyzer.callees.function_for(call, Env(home), foreign=True, returns=False)
            argument = bound.env.bound(param) if bound is not None else None
            if not isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)) or argument is None:
                return None
            ranked = unit.analyzer.ranked_fills.ranked(argument.node, caller, call.lineno, hops + 1, seen)
            if ranked is None:
                return None  # a caller that passes items in no known order
            found = found or (f"is passed by `{caller.name}`, where it {ranked[0]}", ranked[1], ranked[2])
        return found

    def calls_of(self, fn: FunctionNode) -> list[tuple[Unit, ast.Call, Scope]]:
        """The calls of ``fn`` in this module and in the project's other modules that call its name."""
        found = []
        units = [self.m]
        project, file = self.m.project, self.m.file
        if project is not None and file is not None:
            paths = [p for p in project.callers(fn.name) if p != file and not in_tests(p, project.root)]
            if len(paths) >= MAX_CALLER_MODULES:
                return []  # a common name: its calls are not all this function's
            units += [owner.unit for p in paths if (owner := project.analyzer(Path(p))) is not None]
        for unit in units:
            for call, home in unit.calls:
                if last_name(call.func) != fn.name:
                    continue
                target = unit.analyzer.callees.function_for(call, Env(home), foreign=unit is not self.m,
                                                            returns=False)
                if target is not None and (target.fn is fn or (
                        target.owner is not None and target.owner.unit.file == file
                        and (target.fn.name, target.fn.lineno) == (fn.name, fn.lineno))):
                    if unit is not self.m:
                        self.m.dependencies.add(unit.path)  # a change there changes what this loop walks
                    found.append((unit, call, home))
        return found

    def scope_of(self, fn: FunctionNode) -> Scope | None:
        return next((scope for node, scope in self.m.functions if node is fn), None)


def _true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _sorts(statement: ast.stmt, name: str) -> bool:
    """``name.sort(...)``."""
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and \
        isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == "sort" and \
        isinstance(statement.value.func.value, ast.Name) and statement.value.func.value.id == name


def _resorts(statement: ast.stmt, name: str) -> bool:
    """``name = sorted(...)``, ``name = x.sort_values(...)``."""
    return _assigns(statement, name) and isinstance(statement, ast.Assign) and \
        isinstance(statement.value, ast.Call) and last_name(statement.value.func) in ("sorted", "sort_values")


def _assigns(statement: ast.stmt, name: str) -> bool:
    return isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                     for t in statement.targets)


def _fills(loop: ast.For | ast.AsyncFor, name: str) -> bool:
    """Whether the loop adds items to ``name`` (``name.append(...)``, ``name.extend(...)``)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend")
               and isinstance(n.func.value, ast.Name) and n.func.value.id == name for n in ast.walk(loop))


def _order(key: ast.expr | None, descending: bool, collection: str | None, fn: FunctionNode) -> str | None:
    """How a sort by ``key`` puts the best first (``by `x["score"]`, highest first``), or None
    when its order is not one of merit: no key that says so, or a key in time."""
    if key is None:
        return None
    body = key.body if isinstance(key, ast.Lambda) else key
    parts = body.elts if isinstance(body, (ast.Tuple, ast.List)) else [body]
    best = None
    for part in parts:
        down = descending
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
            part, down = part.operand, not descending
        words = name_words(_named(part, collection, fn))
        if words & _TIME:
            return None
        if best is None and (words & _HIGH_BEST if down else words & _LOW_BEST):
            best = f"by `{ast.unparse(part)}`, {'highest' if down else 'lowest'} first"
    return best


def _named(part: ast.expr, collection: str | None, fn: FunctionNode) -> str:
    """The text of a key's part; ``x[2]`` of a list filled with tuples
    (``units.append((unit, index, num_relationships))``) read as the name in that place."""
    text = ast.unparse(part)
    if collection is None or not (isinstance(part, ast.Subscript) and isinstance(part.slice, ast.Constant)
                                  and isinstance(part.slice.value, int)):
        return text
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == collection and node.args and \
                isinstance(node.args[0], ast.Tuple) and part.slice.value < len(node.args[0].elts):
            return ast.unparse(node.args[0].elts[part.slice.value])
    return text
