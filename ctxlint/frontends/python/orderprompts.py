"""A set of strings whose order becomes the order of text a model is sent.

``for name in names: block += f"- {name}\\n"``, ``", ".join(names)``, ``[f"- {n}" for n in names]``
or ``return list(names)``, with ``names`` a set shown to hold strings (stringsets.py): the text
lists the items in the set's order, which changes with each process's hash seed. Reported only
when data flow shows that text reaching a call that asks a model, in the same function or in a
function of the module that calls this one for it (``themes = self.extract(items)``, up to two
calls up; a generator that yields the set's items is such a function): a call handed a model
(``prompt.generate(data=..., llm=self.llm)``), a model object called itself (a DSPy module,
``self.expand(notes=text)``) or a call of an object named for one (``self.llm.aask(prompt)``);
or the text of a chat message of the project's own class that the function builds with a role
(``ChatMessage(content=parts, role="user")``), reported as a kind of its own. A list of strings
deduplicated through a set and given to a call whose result is kept
(``hits = search(list(set(queries)))``) is followed into what the call gives back, which comes
in the set's order. Where no such call is seen, text followed as a cut's is (cutreach.py) into a
value or a call named for a prompt is a kind of its own. Sorting anywhere on the way clears it;
so does a log line or an error, which are not calls to a model.

A directory listing (``os.listdir``, ``os.walk``, ``glob``) and the rows of a query with no ORDER BY
are followed the same way, whatever their items: the file system, the database gives them in no fixed
order. Text kept in an entry of a dict (``self.vars["pages"] = text``) that the module renders into
a settings template printing that entry (``{{ pages }}``) and passes to a call reaches a prompt too.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.cutreach import FOR_MODEL_WORDS
from ctxlint.frontends.python.fieldreads import copies_set
from ctxlint.frontends.python.knowledge import (
    ANY_ITEMS,
    COMPLETIONS,
    LISTING_WORDS,
    MODEL_ASKS,
    SHUFFLES,
    UNSTABLE,
)
from ctxlint.frontends.python.latebinding import LateRead, late_reads
from ctxlint.frontends.python.loopshapes import added_name, added_names, called_name, yields_in
from ctxlint.frontends.python.orderhandoffs import asked_in_callee, made_at, walks_into_result
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.orderorigins import empty_dict
from ctxlint.frontends.python.ordersinks import (
    LISTING_REACHES_PROMPT,
    for_model,
    for_model_keyword,
    given_again,
    into_prompt_text,
    joined_whole,
    kept_for_settings,
    message_per_item,
    message_text,
    orderless_additions,
    passed_in,
    per_item_evidence,
    same_callers,
    same_far_sink,
    same_listing_sink,
    text_given,
    tool_result_said,
    written_into_prompt,
)
from ctxlint.frontends.python.overrides import module_callers
from ctxlint.frontends.python.picks import picks_one_item
from ctxlint.frontends.python.resultkeeps import flag_over, kept_by, passes, unpacked
from ctxlint.frontends.python.stringsets import StringSets, copy_of
from ctxlint.frontends.python.threadorder import ThreadAddition, thread_additions
from ctxlint.frontends.python.values import Env
from ctxlint.model import QUERY_ROWS, Evidence, EvidenceKind, Observation, Source, SourceKind

Function = ast.FunctionDef | ast.AsyncFunctionDef

# The kind of evidence (rules/cache/CTX104).
ORDER_REACHES_PROMPT = "order-reaches-prompt"
ORDER_IN_MESSAGE = "order-in-message"  # ... or a chat message the module builds
SHUFFLE_REACHES_PROMPT = "shuffle-reaches-prompt"  # a shuffled or sampled list to any of them
ORDER_IN_SETTINGS = "order-in-settings-template"  # either, to a template of the settings files
COMPLETION_ORDER = "completion-order"  # a list threads add to as they finish, to any of those
LATE_BINDING = "late-binding"  # a name a loop sets, read by a lambda a thread runs later (latebinding.py)
AFTER_PER_CALL = "after-per-call"  # ... added onto text the function is given
# Sources whose order reaching a prompt is a kind of its own: `as_completed(futures)`, the order the tasks
# finish in; `random.shuffle(lines)`, a new order on every call; a query's rows, in the database's (queryrows.py).
_OWN_KINDS = {**dict.fromkeys(COMPLETIONS, COMPLETION_ORDER), **dict.fromkeys(SHUFFLES, SHUFFLE_REACHES_PROMPT),
              QUERY_ROWS: "rows-reach-prompt"}
# Calls through which a value keeps no order, or gives none to the text.
_ORDER_FREE = {"sorted", "len", "min", "max", "sum", "any", "all", "bool", "hash", "set", "frozenset"}
_MAX_ROUNDS = 8
# A keyword that gives a call the system prompt of the request it sends.
_SYSTEM_PROMPT = re.compile(r"(sys|system)_?(prompt|message|msg)$")
_MAX_CALLERS = 2  # how many calls up the text a function returns is followed


class OrderPrompts(StringSets):
    far_only = False  # the module asks no model: a listing's text is followed into other modules only

    def observe(self) -> list[Observation]:
        found = [self.late_read(late) for late in late_reads(self.m, lambda call: _asks_model(call, self))]
        # a message's text is written beside a `role`, a settings template read `from_string`: the cheap tests first
        lowered = self.m.text.lower()
        keyworded = any(word in lowered for word in FOR_MODEL_WORDS)
        asks = "role" in self.m.text or "from_string" in self.m.text \
            or any(_asks_model(call, self) or (keyworded and for_model(call) is not None) for call, _ in self.m.calls)
        # A module that asks no model: only a listing's text its callers in other modules put in a prompt,
        # and a set's text it writes into a prompt (`order-in-prompt-text`) where its text says `prompt`.
        # (or where it makes an object with a copy of a set, whose field other modules read back: fieldreads.py)
        # (or where it returns a list made of a set, which its callers in other modules may put in a prompt)
        prompted = self.m.project is not None and ("prompt" in lowered or copies_set(self.m.text))
        if not asks and not prompted and (self.m.project is None or not any(w in self.m.text for w in LISTING_WORDS)):
            return found
        self.far_only = not asks
        for fn, scope in self.m.functions:
            if fn.name.startswith("test"):
                continue
            env = Env(scope)
            for node in own_nodes(fn):
                for collection, shown in ordered_sites(self, node):
                    if isinstance(node, (ast.For, ast.AsyncFor)) and added_names(node.body) \
                            and added_names(node.body) <= self.flow.sorted_in_place(fn):
                        continue  # `notes.sort()` after the loop that fills it: the order is fixed again
                    detail = self.flow.unordered(collection, env)
                    if not asks and detail not in UNSTABLE and not prompted:
                        continue
                    if detail not in ANY_ITEMS and (isinstance(node, ast.Return) or detail not in ("set", "frozenset")
                                                     or not (joined_whole(shown, collection)
                                                             or self.string_items(collection, env))):
                        continue  # a set returned as it is: its order is not fixed yet
                    observed = self.reaching(fn, shown, collection, env, detail)
                    if observed is None or any(o.span == observed.span or same_far_sink(o, observed) for o in found):
                        continue
                    same = next((o for o in found if same_listing_sink(o, observed) or same_callers(o, observed)), None)
                    if same is None:
                        found.append(observed)
                    elif _before(observed, same):
                        found[found.index(same)] = observed
        for addition in thread_additions(self.m):
            observed = self.thread_filled(addition)
            if observed is not None and all(o.span != observed.span for o in found):
                found.append(observed)
        return found

    def late_read(self, late: LateRead) -> Observation:
        """A name a loop sets, read by a lambda the loop hands to a thread that asks a model."""
        steps = (Evidence(EvidenceKind.FLOW, f"`{late.name}` is set anew on each pass of the loop",
                          self.m.span(late.set_at)),
                 Evidence(EvidenceKind.FLOW, f"the task handed to `{self.m.code(late.handed.func)}(...)` reads it "
                          "when a thread runs it", self.m.span(late.read)),
                 Evidence(EvidenceKind.SINK, f"`{self.m.code(late.asks.func)}(...)` asks the model with it",
                          self.m.span(late.asks)))
        source = Source(SourceKind.UNORDERED_ITERATION, late.name, self.m.span(late.read), flow=steps)
        return Observation(LATE_BINDING, self.m.span(late.read), "each task may send the prompt of a later pass "
                           "instead of its own, so some items are asked about twice and others never", source=source)

    def thread_filled(self, addition: ThreadAddition) -> Observation | None:
        """A list the pool's threads add to, when it reaches a call that asks a model: in the
        function the pool runs (the next task reads what the others added) or the one that opens it."""
        handed = addition.handed
        steps = [Evidence(EvidenceKind.FLOW, f"`{addition.inner.name}` adds to `{addition.name}` from the pool's "
                          f"threads (`{self.m.code(handed.func)}(...)`, line {handed.lineno})",
                          self.m.span(addition.added))]
        asked = self.asked_with(addition.inner, {addition.name}, steps) \
            or self.asked_with(addition.outer, {addition.name}, steps)
        said = self.said(asked, False) if asked is not None else None
        if asked is None or said is None:
            return None
        steps.append(Evidence(EvidenceKind.SINK, said[1], self.m.span(asked)))
        source = Source(SourceKind.UNORDERED_ITERATION, "ThreadPoolExecutor", self.m.span(handed), flow=tuple(steps))
        return Observation(COMPLETION_ORDER, self.m.span(addition.added), said[2], source=source)

    def given_to(self, node: ast.expr) -> ast.Call | None:
        """The call ``node`` is an argument of (positional or keyword), when the call can keep its order."""
        call = self.m.parents.get(id(node))
        if isinstance(call, ast.keyword):
            call = self.m.parents.get(id(call))
        if isinstance(call, ast.Call) and (node in call.args or any(k.value is node for k in call.keywords)) \
                and called_name(call) not in _ORDER_FREE and not picks_one_item(self.m, call, node) \
                and not _asks_model(call, self):
            return call
        return None

    def reaching(self, fn: Function, shown: ast.expr, collection: ast.expr, env: Env, detail: str
                 ) -> Observation | None:
        """The observation when the ordered text reaches a call that asks a model: in ``fn``, or
        in a function of the module that calls ``fn`` and keeps its result."""
        carried, returned = self.carriers(shown)
        if isinstance(loop := self.m.parents.get(id(shown)), (ast.For, ast.AsyncFor)) and loop.iter is shown:
            carried -= orderless_additions(fn, loop)
        # a name given other text later: its reads are not told apart by which text they see, so only a
        # value the text is written into straight away, named for a prompt, is where it is seen to go
        again = given_again(self, fn, shown, carried)
        if again and not written_into_prompt(self, fn, shown, detail):
            return None
        kept = None if again else kept_for_settings(self, shown)  # `self.vars["pages"] = ", ".join(listing)`
        direct = None if again else self.asked_directly(shown) or kept
        given = f"`{self.m.code(kept.targets[0])}`" if kept else "the text it is sent" if direct \
            else _listed(carried) if carried else _literal_entry(self, shown) or "the value returned"
        through = None if direct else self.given_to(shown)
        keyword = self.m.parents.get(id(shown))
        if through is not None and isinstance(keyword, ast.keyword) and called_name(through)[:1].isupper():
            given = f"the field `{keyword.arg}` of the `{self.m.code(through.func)}(...)` it makes"  # fieldreads.py
        elif through is not None and carried:
            given += f", what `{self.m.code(through.func)}(...)` gives back for its items"
        elif through is not None:
            given = f"the list passed to `{self.m.code(through.func)}(...)`"
        steps = [*passed_in(self, fn, collection, env), Evidence(
            EvidenceKind.FLOW, f"`{self.m.code(collection)}` gives the order of {given}", self.m.span(shown)),
            *made_at(self, shown, collection, env, through)]
        spread = self.spread(fn, carried)
        per_item = None if direct or again else message_per_item(self, fn, shown, carried)  # (message, list)
        asked = None if again else \
            direct or (per_item and per_item[0]) or self.asked_with(fn, carried, steps, after=shown.lineno)
        if asked is None and not again and not carried and through is not None:
            asked = asked_in_callee(self, through, shown, steps)  # `self._answer(terms=list(terms))`
        if asked is None and not again and (returned or self.returns_any(fn, spread)):
            asked = self.asked_by_callers(fn, steps, 0)
        said = self.said(asked, detail in UNSTABLE) if asked is not None else None
        far = None
        # a listing's text returned: followed into the project's other modules when this one asks no model with
        # it (a docstring that says `role` makes a module look like one that asks); a prompt of this module that
        # holds it is the request's own finding
        returned_any = returned or detail in ANY_ITEMS and self.returns_any(fn, spread)
        if not again and (self.far_only or said is None) and detail in ANY_ITEMS and returned_any:
            far = self.reached_far(fn, spread | ({shown.id} if isinstance(shown, ast.Name) else set()), steps, 0)
            if far is not None and far.span is not None and (self.far_only or far.span.path != self.m.path):
                said = (LISTING_REACHES_PROMPT, far.text,
                        f"the text built from it is {far.text} ({far.span.path}:{far.span.line})")
        if said is None and (detail in ("set", "frozenset") or far is None and not returned_any):
            far, said = into_prompt_text(self, fn, shown, carried, steps, detail)
        if said is None:
            return None
        kind, sink, goes = said
        if detail in _OWN_KINDS and kind in (ORDER_REACHES_PROMPT, ORDER_IN_MESSAGE, LISTING_REACHES_PROMPT):
            kind = _OWN_KINDS[detail]
        if per_item is not None:
            sink, goes = per_item_evidence(self, per_item, fn, shown, env, detail, steps)
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)} - {"self", "cls"}
        given_text = text_given(fn, spread & params)  # `for u in urls: inp += fetch(u)`, `inp` given
        if given_text:
            # `inp += page` for each item: added after the text the caller gives, which differs
            # from call to call, so the prefix the order could break already ends before it.
            kind = AFTER_PER_CALL
            goes += f", after the text `{fn.name}` is given in `{given_text[0]}`, which differs from call to call"
        if far is not None:
            steps.append(far)
        else:
            assert asked is not None
            steps.append(Evidence(EvidenceKind.SINK, sink, self.m.span(asked)))
        listed = self.flow.listed_by(collection, env)
        finished = self.flow.listed_by(collection, env, True) if detail in COMPLETIONS and returned else None
        if finished is not None:  # the loop that fills the returned list as its tasks finish, after its order's step
            at_order = next((i for i, e in enumerate(steps) if " gives the order of " in e.text), -1) + 1
            steps.insert(at_order, Evidence(EvidenceKind.FLOW, f"`{self.m.code(collection)}` is filled in a loop "
                                            "over the tasks as they finish", finished))
        source = Source(SourceKind.UNORDERED_ITERATION, detail, listed or self.flow.origin(collection, env),
                        flow=tuple(steps))
        # a list returned where it is filled: reported once, at the listing, whichever `return` gives it
        at = listed if listed is not None and returned else self.m.span(shown)
        return Observation(kind, at, goes, source=source)

    def said(self, asked: ast.expr | ast.stmt, listing: bool) -> tuple[str, str, str] | None:
        """The kind, the sink's step and the consequence for where the ordered text arrives."""
        if isinstance(asked, ast.Assign):
            rendered = self.cut_sites.settings.rendered_slot(asked.targets[0])
            if rendered is None:
                return None
            call, template, path, line = rendered
            slot = f"{{{{ {ast.literal_eval(asked.targets[0].slice)} }}}}"  # type: ignore[attr-defined]
            called, read = f"{self.m.code(call.func)}(...)", self.m.code(template)
            return (ORDER_IN_SETTINGS, f"{path}:{line} prints `{slot}`, rendered and passed to `{called}`",
                    f"its order becomes the order of the text `{slot}` prints in the settings template "
                    f"`{read}` ({path}:{line}), rendered and passed to `{called}` (line {call.lineno})")
        called = f"{self.m.code(asked.func)}(...)" if isinstance(asked, ast.Call) else '{"role": ...}'
        line = getattr(asked, "lineno", 0)
        if isinstance(asked, ast.Call) and _asks_model(asked, self):
            return (LISTING_REACHES_PROMPT if listing else ORDER_REACHES_PROMPT, f"sent to the model by `{called}`",
                    f"its order becomes the order of the text that `{called}` (line {line}) sends to the model")
        given = for_model_keyword(asked) if isinstance(asked, ast.Call) else None
        keyword = given.arg if given is not None else None
        if keyword is not None:  # `ToolResult(result_for_llm=text)`: the code says the model reads it
            return (LISTING_REACHES_PROMPT if listing else ORDER_REACHES_PROMPT,
                    f"given to the model as `{keyword}` of `{called}`",
                    f"its order becomes the order of the text given to the model as `{keyword}` of `{called}` "
                    f"(line {line})")
        return tool_result_said(asked, called, line) or (
            LISTING_REACHES_PROMPT if listing else ORDER_IN_MESSAGE, f"put into the chat message `{called}`",
            f"its order becomes the order of the text of the chat message `{called}` (line {line})")

    def asked_by_callers(self, fn: Function, steps: list[Evidence], depth: int,
                         flag: tuple[str, int] | None = None) -> ast.expr | ast.stmt | None:
        """A call that asks a model, or a chat message, given what ``fn`` returns (or yields) by a
        function of the module that calls it and keeps the result; or, a few calls up, by a caller
        of a caller that returns text built from it. The steps on the way are added to ``steps``.
        ``flag``: a parameter of ``fn`` (and its position) that must be passed for the text to be
        in what it returns."""
        for caller, call in module_callers(self.m, self.callees, fn):
            kept = kept_by(call, self.m.parents)
            if not kept or (flag is not None and not passes(call, *flag)):
                continue
            found = [Evidence(EvidenceKind.FLOW, f"`{fn.name}` gives it to {_listed(kept)}", self.m.span(call))]
            asked = self.asked_with(caller, kept, found)
            if asked is None and depth < _MAX_CALLERS and self.returns_any(caller, self.spread(caller, kept)):
                asked = self.asked_by_callers(caller, found, depth + 1, flag_over(self.m.parents, caller, call))
            if asked is not None:
                steps.extend(found)
                return asked
        return None

    def reached_far(self, fn: Function, tainted: set[str], steps: list[Evidence], depth: int,
                    keyed: bool = False) -> Evidence | None:
        """Where the module asks no model with it: the text built from the order that ``fn`` (or a
        caller of the module that keeps it, up to two calls up) returns, followed through the
        callers of the project's other modules into a prompt (cutreach.py). The steps on the way
        are added to ``steps``; the sink's step is returned."""
        for node in own_nodes(fn):
            if not isinstance(node, ast.Return) or node.value is None:
                continue
            # `return matches, truncated`: each item is followed to where the callers unpack it
            for value in node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]:
                if self.mentions(value, tainted, keyed) and (far := self.cut_sites.reach.reach_far(value, fn)):
                    steps.extend(far[:-1])
                    return far[-1]
        for caller, call in module_callers(self.m, self.callees, fn) if depth < _MAX_CALLERS else ():
            kept = kept_by(call, self.m.parents)
            found = [Evidence(EvidenceKind.FLOW, f"`{fn.name}` gives it to {_listed(kept)}", self.m.span(call))]
            sink = self.reached_far(caller, self.spread(caller, kept), found, depth + 1,
                                    _returns_dict(fn)) if kept else None
            if sink is not None:
                steps.extend(found)
                return sink
        return None

    def asked_directly(self, shown: ast.expr) -> ast.Call | None:
        """The call that asks a model given the ordered text itself (``llm.aask(", ".join(names))``):
        what it assigns is the model's answer, not the text."""
        current: ast.AST = shown
        while (parent := self.m.parents.get(id(current))) is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, (ast.Compare, ast.BoolOp)):
                return None
            if isinstance(parent, ast.Call) and current is not parent.func:
                if called_name(parent) in _ORDER_FREE:
                    return None
                if _asks_model(parent, self):
                    return parent
            current = parent
        return None

    def carriers(self, shown: ast.expr) -> tuple[set[str], bool]:
        """The names that hold the ordered text (a loop's additions, an assignment's targets, a
        list appended to) and whether it is returned as it is."""
        loop = self.m.parents.get(id(shown))
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            return added_names(loop.body), yields_in(loop.body)
        current: ast.AST = shown
        while True:
            parent = self.m.parents.get(id(current))
            if parent is None or isinstance(parent, ast.Compare) or (
                    isinstance(parent, ast.Call) and current is not parent.func
                    and (called_name(parent) in _ORDER_FREE or picks_one_item(self.m, parent, current))):
                return set(), False
            if isinstance(parent, ast.Return):
                return set(), True
            if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
                return {name for t in targets if (name := self.m.dotted(t))}, False
            if isinstance(parent, ast.Expr) and isinstance(parent.value, ast.Call):
                receiver = added_name(parent.value)
                return ({receiver} if receiver else set()), False
            if isinstance(parent, ast.stmt):
                return set(), False
            current = parent

    def spread(self, fn: Function, carried: set[str]) -> set[str]:
        """``carried`` and the names the assignments and additions of ``fn`` build on them."""
        nodes = own_nodes(fn)
        tainted = set(carried)
        for _ in range(_MAX_ROUNDS):
            grown = set(tainted)
            for node in nodes:
                grown |= self.built_from(node, tainted)
            if grown == tainted:
                break
            tainted = grown
        return tainted

    def asked_with(self, fn: Function, carried: set[str], via: list[Evidence] | None = None, depth: int = 0,
                   after: int = 0) -> ast.expr | ast.stmt | None:
        """A call of ``fn`` that asks a model, or a chat message it builds, given text built from
        ``carried``; or one in a function of the module that ``fn`` passes such text to (the
        parameter it fills is then its carrier), a call or two down, with that step added to ``via``;
        those from line ``after`` on first (an earlier call in a loop sends another text of that name)."""
        if not carried:
            return None
        nodes = own_nodes(fn)
        tainted = self.spread(fn, carried)
        sinks = [node for node in nodes if isinstance(node, (ast.Call, ast.Dict))
                 and ((isinstance(node, ast.Call) and (_asks_model(node, self) or for_model(node) is not None))
                      or message_text(node) is not None)]
        for sink in sorted(sinks, key=lambda c: (c.lineno < after, c.lineno, c.col_offset)):
            text = message_text(sink)
            if text is None and isinstance(sink, ast.Call) and not _asks_model(sink, self):
                text = for_model(sink)  # only what the keyword named for the model is given to it
            given = [text] if text is not None else [
                *sink.args, *(k.value for k in sink.keywords if k.arg != "llm")] if isinstance(sink, ast.Call) else []
            if any(self.mentions(arg, tainted) for arg in given):
                return sink
        for node in nodes:  # `self.vars["pages"] = text`, printed by a settings template the module renders
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                    and self.mentions(node.value, tainted) \
                    and self.cut_sites.settings.rendered_slot(node.targets[0]) is not None:
                return node
        if via is None or depth >= _MAX_CALLERS:
            return None
        calls = [node for node in nodes if isinstance(node, ast.Call) and node not in sinks]
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            callee, params = self.filled(call, tainted)
            step = [Evidence(EvidenceKind.FLOW, f"passed to `{callee.name}` as {_listed(params)}", self.m.span(call))] \
                if callee is not None else []
            asked = self.asked_with(callee, params, step, depth + 1) if callee is not None else None
            if asked is not None:
                via.extend(step)
                return asked
        return None

    def filled(self, call: ast.Call, tainted: set[str]) -> tuple[Function | None, set[str]]:
        """The function of the module ``call`` calls and its parameters that the call fills with
        text built from ``tainted``."""
        if not any(self.mentions(a, tainted) for a in (*call.args, *(k.value for k in call.keywords))):
            return None, set()
        home = self.m.scope_of(call)
        target = self.callees.function_for(call, Env(home), returns=False) if home is not None else None
        if target is None or target.owner is not None or not isinstance(target.fn, (ast.FunctionDef,
                                                                                      ast.AsyncFunctionDef)):
            return None, set()
        positional = [a.arg for a in (*target.fn.args.posonlyargs, *target.fn.args.args)]
        if positional[:1] in (["self"], ["cls"]) and isinstance(call.func, ast.Attribute):
            positional = positional[1:]
        params = {positional[i] for i, a in enumerate(call.args) if i < len(positional)
                  and not isinstance(a, ast.Starred) and self.mentions(a, tainted)}
        params |= {k.arg for k in call.keywords if k.arg is not None and self.mentions(k.value, tainted)}
        return target.fn, params

    def built_from(self, node: ast.AST, tainted: set[str]) -> set[str]:
        """The names ``node`` gives text built from ``tainted``."""
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None \
                and self.mentions(node.value, tainted):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            return {name for t in unpacked(targets) if (name := self.m.dotted(t))}
        if isinstance(node, (ast.For, ast.AsyncFor)) and self.mentions(node.iter, tainted):
            return {name for t in unpacked([node.target]) if (name := self.m.dotted(t))}  # each item, in order
        if isinstance(node, (ast.With, ast.AsyncWith)):  # `with open(path) as handle`: what it opens
            return {name for item in node.items if item.optional_vars is not None
                    and self.mentions(item.context_expr, tainted) and (name := self.m.dotted(item.optional_vars))}
        if isinstance(node, ast.Call) and (receiver := added_name(node)) and \
                any(self.mentions(arg, tainted) for arg in node.args):
            return {receiver}
        return set()

    def mentions(self, node: ast.expr, tainted: set[str], keyed: bool = False) -> bool:
        """Whether ``node`` uses one of ``tainted`` in a way that keeps its order; ``keyed`` where they
        hold a dict a function fills key by key, whose entries read by key take no order from it."""
        name = self.m.dotted(node)
        if name is not None and name in tainted:
            return True
        if isinstance(node, ast.Call) and called_name(node) in _ORDER_FREE:
            return False
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            return False
        if keyed and _by_key(node):
            return False  # `texts.get("LICENSE")`, `texts["LICENSE"]`: one entry, found by its key, not by the order
        children = [k.value if isinstance(k, ast.keyword) else k.iter if isinstance(k, ast.comprehension) else k
                    for k in ast.iter_child_nodes(node)]
        return any(self.mentions(child, tainted, keyed) for child in children if isinstance(child, ast.expr))

    def returns_any(self, fn: Function, carried: set[str]) -> bool:
        return any(isinstance(n, ast.Return) and n.value is not None and self.mentions(n.value, carried)
                   for n in own_nodes(fn))

def _returns_dict(fn: Function) -> bool:
    """Whether every value ``fn`` returns is a dict it starts empty (``texts = {}`` ... ``return texts``),
    a collection of entries rather than a record whose entries hold the text."""
    started = {t.id for n in own_nodes(fn) if isinstance(n, ast.Assign) and empty_dict(n.value)
               for t in n.targets if isinstance(t, ast.Name)}
    returned = [n.value for n in own_nodes(fn) if isinstance(n, ast.Return) and n.value is not None]
    return bool(returned) and all(isinstance(v, ast.Name) and v.id in started for v in returned)


def _by_key(node: ast.expr) -> bool:
    """An entry of a dict read by its key (``texts.get(name)``, ``texts["LICENSE"]``): whatever order
    the dict's keys were set in, the same entry. (``found[i]`` of a list is taken by its place, which
    the order decides.)"""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
        return isinstance(node.func.value, (ast.Name, ast.Attribute))
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
        and isinstance(node.slice.value, str)


def _before(one: Observation, other: Observation) -> bool:
    """Of two observations of one listing reaching one sink, whether ``one`` is the one to keep: the
    one reported at the listing itself (where ``sorted(...)`` goes), else the one traced back furthest."""
    if one.source is None or other.source is None:
        return False
    at_listing = (one.span.covers(one.source.span), other.span.covers(other.source.span))
    return at_listing[0] > at_listing[1] or (at_listing[0] == at_listing[1]
                                             and len(one.source.flow) > len(other.source.flow))


def _asks_model(call: ast.Call, part: StringSets) -> bool:
    """A call handed a model (``llm=``), an object that sends a prompt when called (a DSPy module),
    or a method that sends a prompt called on an object named for a model (``self.llm.aask(...)``,
    ``judge_llm.generate(...)``)."""
    if any(k.arg == "llm" or (k.arg is not None and _SYSTEM_PROMPT.match(k.arg.lower())) for k in call.keywords):
        return True  # handed a model, or a system prompt beside the text (`ask(inputs=text, sys_prompt=...)`)
    func = call.func
    home = part.m.scope_of(call) if _called_directly(func, part) else None
    while home is not None and home.cls is None and home.parent is not None and home.parent.kind == "function" \
            and "self" not in home.params:
        home = home.parent  # `self.ask(...)` in a function nested in a method: the method's `self`
    if home is not None and part.sinks.is_sink(call, Env(home)):
        return True
    if isinstance(func, ast.Attribute) and func.attr in MODEL_ASKS:
        receiver = (part.m.dotted(func.value) or "").rsplit(".", 1)[-1].lower()
        return receiver == "llm" or receiver.endswith("_llm")
    return False


def _called_directly(func: ast.expr, part: StringSets) -> bool:
    """An object called itself (``qa(...)``, ``self.expand(...)``: a DSPy module), whose prompt's
    layout the analysis does not see; a client's request (``client.messages.create``) is left to
    the check of where the text sits in its messages (a set in the last user message is fine)."""
    if isinstance(func, ast.Attribute):
        return isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")
    return isinstance(func, ast.Name) and func.id not in part.m.imports  # `completion(...)` is a request


def _listed(names: set[str]) -> str:
    return ", ".join(f"`{n}`" for n in sorted(names))


def ordered_sites(part: OrderPrompts, node: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """The collection whose order ``node`` turns into text or a list, and the expression
    the finding points at: a loop that adds each item, a join, a copy into a list; for a
    returned tuple, each name in it (``return matches, truncated``: a list filled in a loop
    over a listing, returned beside a flag; `observe` checks which is one)."""
    if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
        return [(item, item) for item in node.value.elts if isinstance(item, ast.Name)]
    if isinstance(node, (ast.For, ast.AsyncFor)) and (added_names(node.body) or yields_in(node.body)):
        return [(node.iter, node.iter)]
    if isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
        return [(node.value, node.value)]  # a list filled in a loop over a listing (`observe` checks which)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
            and len(node.args) == 1:
        arg = node.args[0]
        return [((arg.generators[0].iter if isinstance(arg, (ast.ListComp, ast.GeneratorExp)) else arg), node)]
    if isinstance(node, ast.FormattedValue) and isinstance(node.value, (ast.Name, ast.Attribute, ast.Call)):
        # `f"Known: {list(names)}"`, `f"{names}"`: the f-string writes the items out in the collection's order
        return [(copy_of(node.value) or node.value, node.value)]
    copied = copy_of(node) if isinstance(node, ast.expr) else None
    if copied is not None and isinstance(node, ast.expr) \
            and isinstance(part.m.parents.get(id(node)), (ast.Return, ast.Assign)):
        return [(copied, node)]
    if copied is not None and isinstance(node, ast.expr) and part.given_to(node) is not None:
        # `found = search(list(set(queries)))`: what it finds comes in that order; `self._answer(terms=list(terms))`:
        # the function given the copy builds its prompt with it
        return [(copied, node)]
    if copied is not None and isinstance(node, ast.expr) and _literal_entry(part, node, value=True):
        # `props={"optional": list(set(params) - set(required))}`: the copy is an entry of a dict or a
        # list that is followed on as a whole, into the call given it or the name that holds it
        return [(copied, node)]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and (call := part.given_to(node)) is not None \
            and isinstance(part.m.parents.get(id(call)), (ast.Await, ast.comprehension, ast.Assign)) \
            and walks_into_result(part, call, node):
        # `[... for r in await self._render(responses=chosen)]`, `chosen` a set: what `_render` gives back
        # for each item comes in the set's order
        return [(node, node)]
    return []


def _literal_entry(part: OrderPrompts, node: ast.expr, value: bool = False) -> str | None:
    """``an entry of the dict`` (or an item of the list or tuple) literal ``node`` is written into,
    when the literal is not returned (a caller reads a returned dict by its keys, which the names
    the text reaches do not tell); with ``value``, only as a value of the dict, not a key."""
    literal = part.m.parents.get(id(node))
    if isinstance(part.m.parents.get(id(literal)), ast.Return):
        return None  # `return names, mapping`: the value returned
    if isinstance(literal, ast.Dict):
        return "an entry of the dict" if not value or any(v is node for v in literal.values) else None
    return f"an item of the {type(literal).__name__.lower()}" if isinstance(literal, (ast.List, ast.Tuple)) else None
