"""Order that decides content over more than one step, where no request of the module is seen to
include it (in a module that builds prompts or calls a model):

* a collection in no fixed order (a set, a directory listing, a shuffle) cut to its first items
  (``list(urls)[:5]``, ``os.listdir(d)[:100]``) or popped from (``pending.pop()``): which items
  survive changes from run to run; where the survivors are followed into a prompt through the
  project's functions (cutreach.py: ``instructions += ", ".join(os.listdir()[:100])``) and the
  collection is a listing or a set shown to hold strings, the prompt itself changes (a kind of
  its own, ``survivors-reach-prompt``);
* one joined, serialised or looped into text (``", ".join(tags)``, ``json.dumps(list(s))``, a
  loop that appends each item), or handed to a template (``template.render(tags=tags)``): the
  text it gives changes order from run to run;
* one turned into a list that is kept or returned (``return list(unique_themes)``): the order is
  fixed at random there and every later step inherits it.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from ctxlint.frontends.python.knowledge import SERIALIZERS, UNSTABLE
from ctxlint.frontends.python.loopshapes import adds, loop_body
from ctxlint.frontends.python.ordering import walked
from ctxlint.frontends.python.stringsets import StringSets
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind, Observation, Source, SourceKind, Span

Function = ast.FunctionDef | ast.AsyncFunctionDef

SURVIVORS_REACH_PROMPT = "survivors-reach-prompt"
_RENDERS = {"render", "render_async", "format", "format_messages", "invoke", "ainvoke", "format_prompt"}


class OrderSites(Component):
    string_sets: StringSets  # whether a set holds strings, whose order changes with the hash seed

    def observe(self, context: bool) -> list[Observation]:
        if not context:
            return []
        found: dict[Span, Observation] = {}
        for node, scope, fn in self.cut_sites.scoped_nodes():
            env = Env(scope)
            observed = None
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                observed = self.survivors(node, node.value, env, "cut to some of its items", fn)
            elif isinstance(node, ast.Call):
                observed = self.call_site(node, env, fn)
            elif isinstance(node, (ast.For, ast.AsyncFor)) and any(
                    adds(s) and not _fills_argument(s, fn) for s in loop_body(node)):
                observed = self.ordered(node.iter, node.iter, env, "looped over, each item added to a value",
                                        "its items are added in the loop", "order-in-text")
            if observed is not None and observed.span not in found:
                found[observed.span] = observed
        return list(found.values())

    def call_site(self, call: ast.Call, env: Env, fn: Function | None) -> Observation | None:
        func = call.func
        method = func.attr if isinstance(func, ast.Attribute) else None
        qualified = self.m.qualified(func) or ""
        if method in ("pop", "popitem") and not call.args and isinstance(func, ast.Attribute):
            return self.survivors(call, func.value, env, "popped from, which takes an arbitrary item", fn,
                                  sets_only=True)
        if qualified == "next" and call.args and isinstance(call.args[0], ast.Call) and \
                self.m.qualified(call.args[0].func) == "iter" and call.args[0].args:
            return self.survivors(call, call.args[0].args[0], env, "asked for its first item", fn, sets_only=True)
        if (method == "join" or qualified in SERIALIZERS) and call.args:
            goes = self.cut_sites.goes_to(call, fn)
            how = "joined into text" if method == "join" else "serialised"
            return None if goes is None else self.ordered(call, call.args[0], env, how, goes, "order-in-text")
        if method in _RENDERS:
            for keyword in call.keywords:
                if keyword.arg is not None:
                    observed = self.ordered(keyword.value, keyword.value, env, f"passed to `{method}`",
                                            "rendered by the template", "order-in-text")
                    if observed is not None:
                        return observed
        parent = self.m.parents.get(id(call))
        if qualified in ("list", "tuple") and len(call.args) == 1 and isinstance(parent, (ast.Return, ast.Assign)):
            goes = self.cut_sites.goes_to(call, fn)
            if goes is not None and goes.startswith(("returned", "kept in `self.")):
                return self.ordered(call, call.args[0], env, "turned into a list whose order is then kept", goes,
                                    "order-kept")
        return None

    def survivors(self, node: ast.expr, collection: ast.expr, env: Env, how: str, fn: Function | None,
                  sets_only: bool = False) -> Observation | None:
        detail = self.flow.unordered(collection, env)
        if detail is None or (sets_only and detail not in ("set", "frozenset")):
            return None
        observed = self.ordered(node, collection, env, how, "which items survive changes from run to run",
                                "order-decides", detail)
        # a set of ints keeps one order from run to run: only text's hash changes with the seed
        # (the items of a walk of it take their order from it: `[tools[n] for n in names][:k]`, `names` a set of text)
        proven = detail in UNSTABLE or detail.startswith("random.") or self.string_sets.string_items(collection, env) \
            or self.string_sets.string_items(walked(collection, self.flow), env)
        reaches = self.cut_sites.reach.into_prompt(node, fn) if observed and proven and fn is not None else None
        if observed is None or reaches is None or observed.source is None:
            return observed
        sink = reaches[-1]
        where = f" (line {sink.span.line})" if sink.span is not None else ""
        return Observation(SURVIVORS_REACH_PROMPT, observed.span, f"which items survive, and so the text "
                           f"{sink.text[0].lower()}{sink.text[1:]}{where}, changes from run to run",
                           source=replace(observed.source, flow=(*observed.source.flow, *reaches)))

    def ordered(self, node: ast.expr, collection: ast.expr, env: Env, how: str, goes: str, kind: str,
                detail: str | None = None) -> Observation | None:
        detail = detail or self.flow.unordered(collection, env)
        if detail is None:
            return None
        step = Evidence(EvidenceKind.FLOW, f"`{self.m.code(collection)}` is {how}", self.m.span(node))
        source = Source(SourceKind.UNORDERED_ITERATION, detail, self.flow.origin(collection, env), flow=(step,))
        return Observation(kind, self.m.span(node), goes, source=source)


def _fills_argument(statement: ast.stmt, fn: Function | None) -> bool:
    """``chatbot.append(...)`` with ``chatbot`` a parameter of the function: it fills a list its
    caller owns (a UI's chat log, a store's batch), builds no text of its own here; a caller's
    list that reaches a prompt is followed where it does (orderprompts.py)."""
    if fn is None or not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    func = statement.value.func
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in params
