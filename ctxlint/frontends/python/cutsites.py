"""Cuts no request of the module is seen to include, in a module that builds prompts or calls a
model: the text a cut leaves is returned, stored or passed on, and reaches a model through code
the analysis does not follow (a tool's result, the project's own client, a template rendered
elsewhere). And loops that cut a collection to a budget:

* ``for msg in history: ... if tokens > budget: break`` stops adding items once the budget is
  spent (iterating ``reversed(history)`` keeps the newest; in order, the oldest);
* ``while len(prompt) > limit: events = events[1:]`` drops items until the text fits.

A cut that only reaches a log line, an error, a comparison or a label (a title, a name, an id)
is not one a model reads, and is left alone.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from fnmatch import fnmatchcase

from ctxlint.frontends.code.words import EXAMPLE_NAMES, RAW_OUTPUT_NAMES, is_ranked, matches
from ctxlint.frontends.python.cutcallers import CutCallers
from ctxlint.frontends.python.cutgrades import graded
from ctxlint.frontends.python.cutmarkers import (
    LOGGING,
    beside_named_marker,
    joined_with_marker,
    listed_with_marker,
    no_room_for_marker,
)
from ctxlint.frontends.python.cutreach import REWRITTEN, cut_kind
from ctxlint.frontends.python.cuts import HELPER_CUTS
from ctxlint.frontends.python.descriptioncuts import DescriptionCuts
from ctxlint.frontends.python.flow import returns_record
from ctxlint.frontends.python.keptuses import in_failure_branch, only_inspected
from ctxlint.frontends.python.knowledge import FIXED_COMMAND, MEASURES, STRING_NAMES
from ctxlint.frontends.python.labels import is_label, message_content, reads_content
from ctxlint.frontends.python.lastresort import last_resort
from ctxlint.frontends.python.loopshapes import (
    SIZE_WORDS,
    added_to,
    adds,
    breaks_both_ways,
    built_names,
    called_as_test,
    counted_in_tokens,
    counts_items,
    counts_tokens,
    cuts_last_item,
    drop_of,
    encoded,
    fitted_only,
    flags_cut,
    history_name,
    logs_only,
    loop_body,
    loop_order,
    only_logs,
    over_in_body,
    records_keys,
    retried_cut,
    run_while,
    says_cut,
    skips_rest,
    statements_run,
)
from ctxlint.frontends.python.misplaced import misplaced_tail
from ctxlint.frontends.python.nodes import children, never_true, no_sizes, statement_of
from ctxlint.frontends.python.outputcuts import TEXT_METHODS, OutputCuts
from ctxlint.frontends.python.rankedfills import RankedFills
from ctxlint.frontends.python.settingscuts import SettingsCuts
from ctxlint.frontends.python.trimcalls import trimmed_turns
from ctxlint.frontends.python.typedbranches import after_text_test
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.unsetbranches import unreached
from ctxlint.frontends.python.values import Env, Scope, unpacked_position
from ctxlint.frontends.python.wholenames import promises_whole, returned_straight
from ctxlint.frontends.python.windowcuts import names_window, window_sized
from ctxlint.model import Cut, Evidence, EvidenceKind, Observation, Source, SourceKind

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Third-party content an agent reads back: a response body, a page, a process's streams.
_READ_BACK = ("http", "web page", "browser", "subprocess", FIXED_COMMAND)
# A cut to fewer characters than this is a label, a preview or a log line, not content a model reads.
MIN_CONTENT = 500
_BUDGET_WORDS = ("char", "length", "len", "limit", "max", "token", "budget", "size", "keep")
_DISPLAY_WORDS = ("width", "chunk", "split", "preview", "label", "title", "log", "display", "line", "column",
                  "name")
# About how many characters one unit of a cut holds: a preview is shorter than MIN_CONTENT.
_CHARS_PER = {"words": 5, "tokens": 5, "lines": 50}
# A size in words (`total_words`, `max_words`), not a keyword or a password.
_WORD_SIZE = re.compile(r"(?:^|_)words(?:_|$)")
_ORDER = (ast.Gt, ast.GtE, ast.Lt, ast.LtE)


# A node, the scope it is evaluated in and its function (None at the module's top).
ScopedNode = tuple[ast.AST, Scope, ast.FunctionDef | ast.AsyncFunctionDef | None]


def scoped_nodes(m: Unit) -> list[ScopedNode]:
    """Each node of the module with its scope and its function, depth first (after the scope index)."""
    found: list[ScopedNode] = []
    bodies: list[tuple[list[ast.stmt], Scope, ast.FunctionDef | ast.AsyncFunctionDef | None]] = [
        (m.tree.body, m.module_scope, None)]
    bodies += [(fn.body, scope, fn) for fn, scope in m.functions if not fn.name.startswith("test")]
    for body, scope, fn in bodies:
        stack: list[ast.AST] = list(reversed(body))
        while stack:
            node = stack.pop()
            if isinstance(node, _DEFINITIONS):
                continue  # its own scope, or a class body: read on its own
            found.append((node, scope, fn))
            stack.extend(reversed(_live_children(node)))
    return found


def _live_children(node: ast.AST) -> tuple[ast.AST, ...] | list[ast.AST]:
    """The children of ``node`` that can run: of ``if False:`` (a branch switched off by hand,
    kept for later) only the ``else``."""
    if isinstance(node, ast.If) and never_true(node.test):
        return [node.test, *node.orelse]
    return children(node)


class CutSites(Component):
    callers: CutCallers
    settings: SettingsCuts
    descriptions: DescriptionCuts
    outputs: OutputCuts
    ranks: RankedFills
    _scoped: list[ScopedNode] | None = None

    def observe(self, context: bool) -> list[Observation]:
        """Every silent cut of the module and every loop that cuts to a budget, where the module
        builds prompts or calls a model (``context``); without it, the loops whose budget is in
        tokens (a model's unit) only."""
        found: list[Observation] = []
        self.in_loops: set[int] = set()
        for node, scope, fn in self.scoped_nodes():
            observation: Observation | None
            if id(node) in self.in_loops:
                continue
            if isinstance(node, (ast.Subscript, ast.Call)):
                # a tool's or a schema's description: the shape says a model reads it
                described = self.descriptions.description_cut(node, Env(scope)) \
                    if isinstance(node, ast.Subscript) else None
                observation = described or (
                    trimmed_turns(self.m, node, Env(scope), self.flow.literal_str) if isinstance(node, ast.Call)
                    else self.whole_named_cut(node, Env(scope), fn)) or (
                    None if retried_cut(self.m.parents, node) else self.cut_site(node, Env(scope), fn, context))
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                observation = self.budget_loop(node, Env(scope), context, fn)
            else:
                if isinstance(node, ast.While) and not unreached(self.m, node, Env(scope), self.flow.literal_str):
                    found.extend(self.drop_loop(node, Env(scope), context, fn))
                continue
            # a cut in a branch no call of its function takes (`elif strategy == "first":`)
            # ... or in the arm of a type test after the `str` one, of a name given only text
            if observation is not None and not unreached(self.m, node, Env(scope), self.flow.literal_str) \
                    and not after_text_test(self.m, node, scope):
                found.append(observation)
        return found

    def scoped_nodes(self) -> list[ScopedNode]:
        """The module's nodes with their scopes and functions (``scoped_nodes``), listed once for
        the four passes that read them (cut sites, order sites, overflows, schema choices)."""
        if self._scoped is None:
            self._scoped = scoped_nodes(self.m)
        return self._scoped

    def whole_named_cut(self, node: ast.Subscript, env: Env,
                        fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> Observation | None:
        """``return text[:200]`` in a function named for the whole text (``get_description_full``)."""
        if fn is None or not promises_whole(fn.name) or not returned_straight(self.m.parents, node) \
                or not isinstance(node.slice, ast.Slice):
            return None
        source = self.cuts.source(node, env)
        if source is None or source.cut is None or source.cut.keeps != "start" or _marked_after(self.m, node):
            return None
        return Observation("whole-named-cut", source.span, f"returned by `{fn.name}`, whose name says it gives "
                           "the whole text", source=replace(source, strong=True))

    # ---- a cut whose text goes on ----------------------------------------------------------------

    def cut_site(self, node: ast.Subscript | ast.Call, env: Env,
                 fn: ast.FunctionDef | ast.AsyncFunctionDef | None, context: bool) -> Observation | None:
        """A cut of content (not a label or a preview): of a value known to be text, to a
        budget of at least ``MIN_CONTENT`` characters or one named as such. Without ``context``
        only a cut made for a model counts: of a program's or a page's output, sized in tokens, or
        of third-party content."""
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            return None
        if _looped_over(node, self.m.parents):
            return None  # `for trend in trends[:max_results]`: the first items, each read on its own
        source = self.cuts.source(node, env)
        # a slice its function's return annotation (`-> tuple[str, str]`) says is of text
        typed = self.reach.annotated_slice(node, fn, env) if isinstance(node, ast.Subscript) else None
        source = source or typed
        subject = _subject(node)
        binding = self.scopes.resolve(subject, env) if isinstance(subject, ast.Name) else None
        if source is None or (is_label(self.m.dotted(subject) or "") and
                              not (binding is not None and reads_content(binding.value))):
            return None  # a label's width, unless the name holds a message's content
        if fn is not None and any(w in fn.name.lower() for w in ("split", "chunk")):
            return None  # cutting text into pieces, each of which is sent
        cut, held = source.cut, None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            bound = node.slice.upper if node.slice.upper is not None else node.slice.lower
            given = self.scopes.resolve(bound, env) if isinstance(bound, ast.Name) else None
            held = given.value if given is not None and not given.extras else None  # the bound's one value
            # written under a speaker's name (`f"User: {user_input[:12000]}"`), a turn's text whatever its name
            text = typed or (cut is not None and cut.spoken) or self.known_text(node.value, env)
            if not (text and _content_budget(bound, source.kept, held)):
                return None
        elif cut is not None and cut.unit != "characters" and source.kept is not None and \
                source.kept < MIN_CONTENT // _CHARS_PER.get(cut.unit, 5):
            return None  # the first 100 words, or 10 lines: a preview
        if self.marked_beside(node, env) or _marked_after(self.m, node) or _flags_the_cut(fn) \
                or no_room_for_marker(node, fn, self.m.parents):
            return None
        if fn is not None and source.cut is not None and source.cut.how not in HELPER_CUTS:
            truncator = self.cuts.summary(fn, env.scope)
            if truncator is not None and truncator.span == source.span:
                return None  # a truncator: reported where it is called
        # `if resp.status_code >= 400: body = resp.text[:1000]`: an error report, read by no model
        goes = None if in_failure_branch(self.m.parents, node) else self.goes_to(node, fn)
        if goes is None:
            return None
        # What an agent reads back after running code or fetching a page (`outputcuts`).
        output = self.outputs.output_cut(node, source, goes, env, fn)
        if output is not None:
            return output
        # Sized in tokens (the model's unit), or cutting third-party content: made for a model.
        # or scaled from the text's own length to a token budget: `int(len(text) * (max_tokens - used) / n)`
        in_tokens = (cut is not None and cut.unit == "tokens") or "token" in self.m.code(node).lower() or (
            held is not None and "token" in self.m.code(held).lower() and _measures(held, _subject(node)))
        helped = self.cuts.helper_cut(node, env) if isinstance(node, ast.Call) else None  # `trim(page_text)`
        third_party = self.sources.untrusted(helped[2] if helped else _subject(node), env)
        if third_party is not None and third_party.strong and third_party.origin in _READ_BACK \
                and (cut is None or cut.unit != "rows"):  # the rows of a table read from a download are no text
            # the same, known by where the text comes from: a response body, a page, a process
            return Observation("raw-output-cut", source.span, goes, source=replace(
                source, strong=True, flow=(*source.flow, Evidence(
                    EvidenceKind.SOURCE, f"it cuts {third_party.detail}", third_party.span))))
        for_model = in_tokens or third_party is not None
        reaches = None if for_model and _excerpt(_subject(node)) else self.reach.into_prompt(node, fn)
        if reaches is not None:  # followed through the project's functions into a prompt
            # A slice (mid-word) of the model's own reply, stored where the same prompt reads it again.
            reply = self.reach.fed_back(node, fn, reaches) if isinstance(node, ast.Subscript) and cut is not None \
                and cut.how == "slice" and cut.keeps == "start" else None
            if reply is not None:
                return Observation("fed-back-cut", source.span, "the model reads it back in the same prompt",
                                   source=replace(source, strong=True, flow=(*source.flow, reply, *reaches)))
            if reaches[-1].text.startswith(REWRITTEN):  # the turn a model reads, rewritten cut
                return Observation("message-cut", source.span, "a turn of the conversation is rewritten with it",
                                   source=replace(source, strong=True, flow=(*source.flow, *reaches)))
            window = window_sized(self.m, node, helped[0] if helped else None)  # made to fit the model's window
            if cut is not None and not window:  # an opt-in cap, or a backstop to a length a prompt asks for (cutgrades)
                source = replace(source, cut=graded(self, node, cut, fn))
            return Observation("window-cut" if window else cut_kind(reaches), source.span, "its text reaches a prompt",
                               source=replace(source, strong=True, flow=(*source.flow, *window, *reaches)))
        settled = self.settings.into_settings_template(node, fn)
        if settled is not None:  # filled into a template of the project's settings files, rendered and sent
            return Observation("settings-template-cut", source.span, "its text reaches a prompt", source=replace(
                source, strong=True, flow=(*source.flow, *settled)))
        if not context:
            return Observation("far-cut", source.span, goes, source=replace(source, strong=True)) if for_model else None
        if for_model and _excerpt(_subject(node)):
            # A retrieved chunk cut to fill a window: an excerpt, whose edge a model expects (if in its place).
            placed = misplaced_tail(self.m, node, fn) if cut is not None and cut.keeps == "end" else None
            return Observation("misplaced-cut" if placed else "excerpt-cut", source.span, goes, source=replace(
                source, strong=True, flow=(*source.flow, placed) if placed else source.flow))
        fallback = last_resort(self.m, node)  # cut only when this text alone overflows the whole budget
        return Observation("last-resort-cut" if fallback else "token-sized-cut" if in_tokens else "silent-cut",
                           source.span, goes, source=replace(source, strong=for_model, flow=source.flow + fallback))

    def known_text(self, node: ast.expr, env: Env, depth: int = 0) -> bool:
        """Positive evidence that a value is text: its name (``page_text``, ``content``), a ``str``
        annotation, a text-valued assignment, or third-party content of the catalogue."""
        last = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else \
            (self.m.dotted(node) or "").rsplit(".", 1)[-1]
        if (last and any(fnmatchcase(last.lower(), p) for p in STRING_NAMES)) or message_content(node):
            return True
        if last and matches(last.lower(), RAW_OUTPUT_NAMES) and self.flow.is_list(node, env) is not True:
            return True  # `stdout`, `result.stderr`: a process's stream, or a page's raw text
        if isinstance(node, ast.Call) and self.m.qualified(node.func) == "str" and len(node.args) == 1:
            return self.known_text(node.args[0], env, depth)  # `str(last_dialog["content"])`
        if isinstance(node, ast.Name) and (self.callees.param_annotation(node.id, env) or "").replace(" ", "") in (
                "str", "str|None", "Optional[str]"):
            return True
        if isinstance(node, (ast.JoinedStr, ast.Call)) and self.flow.is_list(node, env) is False and (
                isinstance(node, ast.JoinedStr) or self.strings.text(node, env) is not None
                or (isinstance(node.func, ast.Attribute) and node.func.attr in TEXT_METHODS)):
            return True
        if isinstance(node, ast.Name) and depth < 3:
            binding = self.scopes.resolve(node, env)
            if binding is not None and binding.owner is None and not binding.extras \
                    and self.m.follow_binding(binding, self.known_text, depth + 1):
                return True
        if isinstance(node, ast.Subscript) and unpacked_position(node) is not None:
            return self.flow.is_list(node, env) is False  # `ok, out = run(cell)`: what `run` returns there
        # A list of third-party items is counted, not measured: `len(out) >= LIMIT` is a count.
        return self.flow.is_list(node, env) is not True and self.sources.untrusted(node, env) is not None

    def marked_beside(self, node: ast.expr, env: Env) -> bool:
        """A marker written beside the cut: in the same expression (``text[:n] + "…"``), or room
        left for one (``text[:limit - 3]``, ``text[:limit - len(suffix)]``)."""
        parent = self.m.parents.get(id(node))
        while isinstance(parent, (ast.IfExp, ast.FormattedValue)):  # `f"{text[-n:] if n > 0 else ''}"`
            parent = self.m.parents.get(id(parent))
        if isinstance(parent, (ast.BinOp, ast.JoinedStr)):
            self.cuts.mark(parent, env)
        if id(node) in self.m.marked or listed_with_marker(node, self.m.parents):
            return True
        if isinstance(parent, ast.Dict) and any(  # {"content": text[:n], "truncated": len(text) > n}
                isinstance(k, ast.Constant) and isinstance(k.value, str) and "truncat" in k.value.lower()
                for k in parent.keys):
            return True
        bound = node.slice.upper if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) else None
        if isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Sub):
            room = bound.right
            if isinstance(room, ast.Constant) and isinstance(room.value, int) and 0 < room.value <= 3:
                return True
            return any(w in self.m.code(room).lower() for w in ("marker", "suffix", "ellipsis", "placeholder",
                                                                  "notice", "truncat"))
        return False

    def goes_to(self, node: ast.AST, fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> str | None:
        """Where the cut text goes, said for the finding; None when it goes nowhere a model
        reads (a log line, an error, a comparison, a measure, a label)."""
        parents = self.m.parents
        current = node
        while True:
            parent = parents.get(id(current))
            if parent is None or isinstance(parent, (ast.Compare, ast.Raise, ast.Assert)):
                return None
            if isinstance(parent, ast.Call) and current is not parent.func:
                func = parent.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in LOGGING or (self.m.qualified(func) or "") in MEASURES:
                    return None
            elif isinstance(parent, ast.keyword) and parent.arg and is_label(parent.arg):
                return None
            elif isinstance(parent, ast.Dict) and current in parent.values:
                key = parent.keys[parent.values.index(current)]
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and is_label(key.value):
                    return None
            elif isinstance(parent, (ast.If, ast.While, ast.IfExp)) and current is parent.test:
                return None
            if isinstance(parent, ast.Return):
                return f"returned by `{fn.name}`" if fn is not None else "returned"
            if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
                names = [self.m.dotted(t) or self.m.code(t) for t in targets]
                cut = self.m.dotted(_subject(node)) if isinstance(node, (ast.Subscript, ast.Call)) else None
                if any(is_label(n) and n != cut for n in names):
                    return None  # `query = query[:n]`: the name cut was judged where it is cut
                if fn is not None and isinstance(parent, ast.Assign) and len(targets) == 1 and \
                        isinstance(targets[0], ast.Name) and only_inspected(parents, fn, targets[0].id, parent):
                    return None  # `content = page[:1000].lower()` read only by `word in content`
                return f"kept in `{names[0]}`; no request of this module is seen to send it"
            if isinstance(parent, ast.stmt):
                return "passed on; no request of this module is seen to send it"
            current = parent

    # ---- loops that cut to a budget ----------------------------------------------------------------

    def budget_loop(self, loop: ast.For | ast.AsyncFor, env: Env, context: bool,
                    fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None) -> Observation | None:
        """``for item in items: ... if <over budget>: break`` with the items added on the way."""
        built = built_names(loop)
        after = [s for s in _after(self.m.parents, loop) if not logs_only(s)]
        if not any(adds(n) for n in loop_body(loop)) or says_cut(after) or records_keys(loop, fn) \
                or self.only_tested(loop, built, fn):
            return None  # a marker added after the loop (`f"{rest} more lines..."`), the kept keys handed back,
            # or what it kept read only to decide something
        # Turns of a conversation kept to a size in characters are a prompt's history, even in a
        # module that calls no model itself (a memory class): its name stands for the context. Not
        # in a function that splits a text into pieces: the turns it keeps overlap the next piece.
        iterated, keeps = loop_order(loop.iter)
        if any(fnmatchcase(name.rsplit(".", 1)[-1].lower(), pattern) for pattern in EXAMPLE_NAMES
               for name in (self.m.dotted(iterated) or "", *built)):
            return None  # few-shot examples kept to a budget: a model expects no complete set of them
        history = history_name(self.m.dotted(iterated) or "")
        conversation = not context and history and not (
            fn is not None and any(w in fn.name.lower() for w in ("split", "chunk", "overlap")))
        # A history walked oldest first into messages and cut to a number of them keeps the oldest
        # turns: a count is a deliberate window only when it keeps the newest.
        oldest_first = keeps == "start" and history
        kept = {ast.unparse(target) for target in map(added_to, loop_body(loop))
                if target is not None and history_name(ast.unparse(target))} if oldest_first else set()
        for statement in loop_body(loop):
            if not isinstance(statement, ast.If):
                continue
            sized_by_name = conversation and not self.budget_test(statement.test, env, False)
            counted = False
            if not self.budget_test(statement.test, env, context or conversation):
                if not (oldest_first and counts_items(statement.test, kept)):
                    continue
                counted = True
            over = over_in_body(statement.test)
            fits = fitted_only(statement, built)  # `if fits: add`, no else: each item that does not fit is left out
            for branch in ((statement.body,) if over else ()) + ((statement.orelse,) if over is not True else ()):
                stop = next((s for s in branch if isinstance(s, ast.Break)), None) or \
                    skips_rest(branch, statement.test, loop) or breaks_both_ways(branch) or fits
                if stop is None or says_cut([s for s in branch if not only_logs(s)]) \
                        or flags_cut(branch, fn) or cuts_last_item(branch, self.m.parents):
                    continue  # a marker added before it stops; or the last item cut, the finding that says both
                header = f"for {self.m.code(loop.target)} in {self.m.code(loop.iter)}"
                # sorted best first before the loop, or retrieved: a top-k fill, not a silent cut
                best_first = self.ranks.best_first(loop, fn)
                ranked = best_first is not None or is_ranked(self.m.code(loop.iter))
                how = "ranked-loop" if ranked else "fit-loop" if stop is fits else "budget-loop"
                cut = Cut("items", keeps, how, history)
                steps = (Evidence(EvidenceKind.FLOW, f"`{header}` adds items one by one", self.m.span(loop.iter)),
                         Evidence(EvidenceKind.FLOW, f"`{self.m.code(statement.test)}` ends the loop",
                                  self.m.span(statement.test)),
                         *((best_first,) if best_first is not None else ()),
                         *(place for name in sorted(built) for place in self.callers.going_on(fn, name)))
                source = Source(SourceKind.TRUNCATION, header, self.m.span(stop), cut=cut, flow=steps)
                kind = "oldest-turns-count" if counted else \
                    "history-size-loop" if sized_by_name and how in ("budget-loop", "fit-loop") else how
                return Observation(kind,
                                   self.m.span(stop), "no marker says what the loop left out", source=source)
        return None

    def only_tested(self, loop: ast.For | ast.AsyncFor, names: set[str],
                    fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
        """What the loop builds (``names``) is read after it only in a test, a measure or a log (``if
        looks_missing(content):`` after reading the first kilobytes of a page): none of it goes on."""
        end = loop.end_lineno or loop.lineno
        reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load)
                 and n.lineno > end] if fn is not None and names else []
        return bool(reads) and all(self.goes_to(n, fn) is None for n in reads)

    def drop_loop(self, loop: ast.While, env: Env, context: bool,
                  fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> list[Observation]:
        """``while <over budget>: items = items[1:]`` (or ``items.pop()``): items dropped until it fits;
        in a helper, each call whose caller goes on with what it returns is a place of the finding."""
        test, body = run_while(loop)
        if not self.budget_test(test, env, context) or \
                says_cut([s for s in _after(self.m.parents, loop) if not logs_only(s)]):
            return []
        found = []
        subjects: set[str] = set()
        for statement in statements_run(body):
            shortened = self.callers.shortened_item(statement, env) or self.callers.trimmed_text(statement, test, env)
            dropped = drop_of(statement) if shortened is None else (shortened[0], shortened[1].keeps)
            if shortened is not None:
                self.in_loops.add(id(shortened[2]))  # the loop's cut, not one of its own
            if dropped is None or ast.unparse(dropped[0]) in subjects or returns_record(self.flow, dropped[0], env):
                continue  # a second drop from the same collection is part of the first; or a record's fields
            subject, keeps = dropped
            subjects.add(ast.unparse(subject))
            how = "ranked-loop" if is_ranked(self.m.code(statement)) else "drop-loop"
            unit = shortened[1].unit if shortened is not None else "items"
            cut = Cut(unit, keeps, how, history_name(self.m.dotted(subject) or ""))
            step = Evidence(EvidenceKind.FLOW, f"`while {self.m.code(test)}` repeats it until the text fits",
                            self.m.span(test))
            callers = self.callers.going_on(fn, subject.id) if isinstance(subject, ast.Name) else ()
            source = Source(SourceKind.TRUNCATION, self.m.code(statement), self.m.span(statement), cut=cut,
                            flow=(step, *callers))
            found.append(Observation(how, self.m.span(statement), "no marker says what was dropped",
                                     source=source))
        return found

    def budget_test(self, test: ast.expr, env: Env, context: bool = True, inner: bool = False) -> bool:
        """A comparison of a size in tokens or characters with a limit (``total_tokens > budget``,
        ``len(prompt) > max_length``; without ``context``, in tokens only), written in the test or
        returned by a function of the project it calls (``while too_long(message):``); a count of
        items (``len(results) >= 5``) is not one."""
        for call in () if inner else called_as_test(test):  # `while too_long(message) and ...:`
            helper = self.callees.function_for(call, env, foreign=True)
            if helper is not None and all(self.budget_test(v, helper.env, context, True) for v in helper.returns):
                return True
        for node in ast.walk(test):
            if not isinstance(node, ast.Compare) or not all(isinstance(op, _ORDER) for op in node.ops):
                continue
            operands = (node.left, *node.comparators)
            if any(isinstance(o, ast.Constant) and isinstance(o.value, (int, float)) and o.value < 50
                   for o in operands):
                continue  # `len(span_tokens) > 1`: a count, not a budget
            for operand in operands:
                called = no_sizes(operand)  # a call's name, a collection an item is read from (`words[0]`)
                for part in ast.walk(operand):
                    if isinstance(part, ast.Call) and (self.m.qualified(part.func) or "") == "len" and part.args:
                        if context and self.known_text(part.args[0], env) or encoded(part.args[0]):
                            return True  # `len(encoding.encode(prompt))`: a size in tokens (or bytes)
                    elif isinstance(part, ast.Call) and counts_tokens(part.func):
                        return True  # `len_tokens(msgs, model) > model.context`: in tokens, whatever the limit's name
                    elif isinstance(part, (ast.Name, ast.Attribute)) and id(part) not in called:
                        last = (part.id if isinstance(part, ast.Name) else part.attr).lower()
                        if "token" in last or (context and (any(w in last for w in SIZE_WORDS)
                                                            or _WORD_SIZE.search(last) is not None)
                                               and not last.endswith("count")):
                            return True
                        if isinstance(part, ast.Name) and counted_in_tokens(self.scopes.resolve(part, env)):
                            return True  # a name given a count of tokens (`cost = count_tokens(item)`)
        return False


def _marked_after(m: Unit, node: ast.expr) -> bool:
    """A marker added to the cut text by the statements right after its assignment (``out =
    out[:n]`` then ``out += "\\n[output truncated]"``), or joined with it later (``notice + out``)."""
    statement = statement_of(m.parents, m.parents.get(id(node)))
    written: ast.expr
    if isinstance(statement, ast.AugAssign):  # `result += f"...{text[:n]}"`, then `result += "(truncated)"`
        written = statement.target
    elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        written = statement.targets[0]
    else:
        return False
    target = m.dotted(written)
    return target is not None and (joined_with_marker(node, m.parents) or any(
        (says_cut([s]) and any(m.dotted(n) == target for n in ast.walk(s))) or beside_named_marker(s, target)
        for s in _after(m.parents, statement)))


def _looped_over(node: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether ``node`` is what a loop or a comprehension walks (through ``enumerate``): a list of
    items, not a text."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "enumerate" \
            and parent.args and parent.args[0] is node:
        node, parent = parent, parents.get(id(parent))
    return isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node


def _flags_the_cut(fn: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
    """A function that records that it cut (``was_truncated = True``) and hands the flag back,
    so its callers can say so: the cut is not silent there."""
    return fn is not None and any(
        isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is True
        and any(isinstance(t, ast.Name) and "truncat" in t.id.lower() for t in node.targets)
        for node in ast.walk(fn))


def _subject(node: ast.Subscript | ast.Call) -> ast.expr:
    return node.value if isinstance(node, ast.Subscript) else node


def _content_budget(bound: ast.expr | None, kept: int | None, held: ast.expr | None = None) -> bool:
    """A budget for content: ``MIN_CONTENT`` characters or more, or a setting named for one
    (``max_chars``, ``MAX_PAGE_LENGTH``, ``keep_tokens - used``), or a name given one (``held``:
    ``end = int(len(text) * (max_tokens - used) / n)``); not a label's width, a chunk's size or
    a log line's limit."""
    names = [(n.id if isinstance(n, ast.Name) else n.attr).lower() for n in ast.walk(bound or ast.Pass())
             if isinstance(n, (ast.Name, ast.Attribute))]
    if any(w in n for n in names for w in _DISPLAY_WORDS):
        return False
    if kept is not None:
        return kept >= MIN_CONTENT
    return any(w in n or names_window(n) for n in names for w in _BUDGET_WORDS) or (  # or the model's window
        held is not None and _content_budget(held, None))


def _measures(value: ast.expr, text: ast.expr) -> bool:
    """Whether ``value`` holds ``len(text)``."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args
               and ast.dump(n.args[0]) == ast.dump(text) for n in ast.walk(value))


def _excerpt(node: ast.expr) -> bool:
    """Whether a name of what is cut says it holds an excerpt already (a chunk, a passage); the
    bounds of the cut (`tokens[:snippet_max_tokens]`) say nothing about it."""
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.Name, ast.Attribute)) and any(
                fnmatchcase((current.id if isinstance(current, ast.Name) else current.attr).lower(), p)
                for p in _EXCERPTS):
            return True
        stack.extend(c for c in ast.iter_child_nodes(current) if not isinstance(c, ast.Slice))
    return False


_EXCERPTS = ("*chunk*", "*passage*", "*snippet*", "*excerpt*")


def _after(parents: dict[int, ast.AST], statement: ast.stmt, climb: int = 2) -> list[ast.stmt]:
    """The statements that follow ``statement`` in its block (up to three), and those after the
    ``if``, ``with`` or ``try`` that holds it (``if too_long: while ...: lines.pop(0); truncated =
    True`` then, after the ``if``, ``if truncated: text = "(older entries truncated)" + text``)."""
    parent = parents.get(id(statement))
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and statement in block:
            following = block[block.index(statement) + 1:][:3]
            if climb and isinstance(parent, (ast.If, ast.With, ast.AsyncWith, ast.Try)):
                following += _after(parents, parent, climb - 1)
            return following
    return []
