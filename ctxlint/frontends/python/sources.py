"""Where a value's content comes from: third-party content (HTTP bodies, files from paths that
are not the repository's own, uploads, e-mails, tool results), text cut to a length, and
serialisation without sorted keys (with the fix that sorts it)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import replace

from ctxlint.frameworks import SourceKindSpec
from ctxlint.frontends.code.words import TOOL_HOLDERS, WEB_FETCHERS
from ctxlint.frontends.python.callees import indexed_result
from ctxlint.frontends.python.calls import UNKNOWN, last_name
from ctxlint.frontends.python.carriers import (
    annotated_carrier,
    built_carrier,
    called_names,
    carrier_from_callers,
    caught_carrier,
    constructor_argument,
    iterated_source,
    number_parameter,
    parameter_callers,
    returned_process,
)
from ctxlint.frontends.python.data_parts import SENT_AS_TOOL_RESULT, encodes, result_block, sent_in_its_own_role
from ctxlint.frontends.python.delimiters import enclosing, wrapped_by_adds
from ctxlint.frontends.python.flow import joined, overridden_to_send
from ctxlint.frontends.python.knowledge import (
    ADDS,
    GATHERS,
    LOCATION_CALLS,
    LOCATOR,
    MAX_DEPTH,
    MEASURES,
    MEASURING_METHODS,
    NOT_VARIABLES,
    TOOL_RUNNERS,
    hands_a_system_prompt,
)
from ctxlint.frontends.python.literals import keyed_fields, string_value, value_parts
from ctxlint.frontends.python.nodes import arguments, item_names
from ctxlint.frontends.python.ownpaths import edited_by_user, own_path, prints_own_text, run_by
from ctxlint.frontends.python.receivers import field_given
from ctxlint.frontends.python.renders import filled_elsewhere, template_text
from ctxlint.frontends.python.scopes import FunctionNode, Scopes, other_branches, shared_branches, stored_by_key
from ctxlint.frontends.python.toolcalls import runs_called_tool, tool_call_result, tool_message_content
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.unread_templates import filled_unread_template
from ctxlint.frontends.python.values import Bound, Env, Scope, unpacked_position
from ctxlint.frontends.python.wrappers import MAX_WRAPPING
from ctxlint.model import Evidence, EvidenceKind, Source, SourceKind, Span


def carried_arguments(unit: Unit, scopes: Scopes, call: ast.Call, env: Env) -> list[ast.expr]:
    """The values whose content the result of a call the code does not show carries: its arguments
    (a function of untrusted content), with the awaitables ``asyncio.gather(*tasks)`` gives the
    results of. None for another module's prompt constant filled here: that module reports its
    fields, beside its own labels. None either for a call handed a system prompt: it asks a model,
    and gives back the model's answer, not a copy of what it was shown."""
    if filled_elsewhere(unit, scopes, call.func, env) or hands_a_system_prompt(call):
        return []
    if unit.qualified(call.func) in GATHERS:
        return [*arguments(call), *(a.value for a in call.args if isinstance(a, ast.Starred))]
    return arguments(call)


# The calls of a function read for what they pass one of its parameters, at most.
_MAX_CALLERS = 8


class Sources(Component):
    # ---- untrusted content ---------------------------------------------------------------------------

    def tool_result_message(self, node: ast.Dict, scope: Scope) -> None:
        """Record the name a ``{"role": "tool", "content": result}`` message (or an Anthropic
        ``tool_result`` block, a Responses ``function_call_output`` item) sends: it holds what a
        tool returned, wherever else the function uses it."""
        entries = keyed_fields(node)
        kind = string_value(entries.get("role")) or string_value(entries.get("type"))
        field = {"tool": "content", "function": "content", "tool_result": "content",
                 "function_call_output": "output"}.get(kind or "")
        sent = entries.get(field) if field else None
        if isinstance(sent, ast.Call) and sent.args and not isinstance(sent.args[0], ast.Starred):
            sent = sent.args[0]  # json.dumps(result), str(result)
        if isinstance(sent, ast.Name) and sent.id not in NOT_VARIABLES:
            scope.tool_results.setdefault(sent.id, self.m.span(sent))

    def untrusted(self, node: ast.AST, env: Env) -> Source | None:
        """Where the value of ``node`` carries third-party content: a ``Source`` at the
        expression that produced it (``resp.text`` where ``resp = requests.get(url)``), or None."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, ast.Await):
            return self.untrusted(node.value, env)
        if isinstance(node, (ast.Subscript, ast.Attribute)) and LOCATOR.match(_field_name(node)):
            return None  # `entry["filename"]`, `hit.url`: where content is, not the content
        if isinstance(node, (ast.Subscript, ast.Attribute, ast.Call)) and (
                tool_call_result(self.scopes, node, env) or tool_message_content(self.scopes, node, env)):
            return Source(SourceKind.UNTRUSTED, f"a tool result ({self.m.code(node)})", self.m.span(node))
        if isinstance(node, ast.Subscript):
            position = unpacked_position(node)
            if position is not None:
                return self.unpacked(node, position, env)
            found = self.read_source(node, env)  # request.files["doc"]
            if found is not None:
                return found
            held = indexed_result(self.callees, node, env)
            if held is not None:
                return self.item_of(*held, node)
            return self.untrusted(node.value, env)
        if isinstance(node, ast.Attribute):
            carrier = self.carrier(node.value, env)
            if carrier is not None:
                return _carried(carrier, node.attr, self.m.span(node), call=False)
            found = self.bound_untrusted(node, env) or field_given(self, node, env)  # self.page = ...
            if found is not None:
                return found
            return self.untrusted(node.value, env)
        if isinstance(node, ast.Call):
            return self.untrusted_call(node, env)
        if isinstance(node, ast.Name):
            if LOCATOR.match(node.id.lower()) or number_parameter(node, env):
                return None  # where content is; a parameter declared a number (`file_tokens: int`)
            found = self.bound_untrusted(node, env)
            if found is not None and found.strong:
                return found
            scope: Scope | None = env.scope
            while scope is not None:  # sent back as a tool's result: the structure says what it is
                if node.id in scope.tool_results:
                    return Source(SourceKind.UNTRUSTED, SENT_AS_TOOL_RESULT, scope.tool_results[node.id])
                if node.id in scope.assigns or node.id in scope.params:
                    break  # a local of this scope, not the name sent from an outer one
                scope = scope.parent
            if found is None:
                found = self.loop_item(node, env)
            return found if found is not None else self.from_callers(node, env)
        if isinstance(node, ast.Dict) and result_block(node):
            return None  # a tool_result block: the API's own structure says what it holds
        own_role = isinstance(node, ast.Dict) and sent_in_its_own_role(node)
        for child in value_parts(node):
            found = self.untrusted(child, env)
            if found is not None and not (own_role and found.detail == SENT_AS_TOOL_RESULT):
                if isinstance(node, ast.JoinedStr):
                    found = replace(found, introduced_by=_printed_before(node, child, found.introduced_by),
                                    wrapped_in=found.wrapped_in or enclosing(node, child))
                return replace(found, whole=False)  # a part of the value
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            # `[tag.text for tag in soup.find_all("p")]`, `{hit["url"]: hit for hit in hits}`: the
            # items of untrusted content, read
            shown = node.value if isinstance(node, ast.DictComp) else node.elt
            read = {n.id for n in ast.walk(shown) if isinstance(n, ast.Name)}
            for generator in node.generators:
                if read & item_names(generator.target, generator.iter):
                    found = self.untrusted(generator.iter, env)
                    if found is not None:
                        return found
        return None

    def unpacked(self, node: ast.Subscript, position: int, env: Env) -> Source | None:
        """``content`` of ``content, mime = fetch(url)``: what the text item of the tuples
        ``fetch`` returns carries (a list item, such as messages whose tool results are sent in
        their own role, is not read). A call the code does not show is read whole
        (``stdout, stderr = proc.communicate()``)."""
        return self.item_of(node.value, position, env, node)

    def item_of(self, call: ast.expr, position: int, env: Env, at: ast.expr) -> Source | None:
        """What the ``position``-th item of the tuples ``call`` returns carries, the flow shown at ``at``."""
        items = self.callees.items_returned_by(call, position, env)
        if not items:
            return self.untrusted(call, env)
        for item, item_env, target in items:
            reader = target.owner if target.owner is not None else self.m.analyzer
            if reader.flow.is_list(item, item_env) is True or not self.m.enter(target.fn):
                continue
            try:
                found = reader.sources.untrusted(item, item_env)
            finally:
                self.m.leave(target.fn)
            if found is not None:
                if target.owner is not None:
                    found = self.m.adopt_source(found, self.m.span(at))
                step = Evidence(EvidenceKind.FLOW, f"returned by `{self.m.code(call)}`", self.m.span(at))
                return replace(found, flow=(*found.flow, step))
        # the first item, the text, of what a helper named for reading gives (`text, pages = read_pdf_text(fp)`)
        return self.text_of_carrier(call, env) if position == 0 and isinstance(call, ast.Call) else None

    def loop_item(self, node: ast.Name, env: Env) -> Source | None:
        """An item of a loop over third-party content (``for hit in results:``, the value of
        ``enumerate(results)`` or ``pages.items()``) is third-party content too; an index or a
        key is not."""
        target = self.scopes.unknowable_target(node, env)
        loop = loop_giving(target, self.m.parents) if target is not None else _comprehension_giving(node,
                                                                                                   self.m.parents)
        if loop is None or not self.m.enter(loop):
            return None
        try:
            found = iterated_source(self, loop.iter, env) or self.untrusted(loop.iter, env)
        finally:
            self.m.leave(loop)
        if found is None:
            return None
        step = Evidence(EvidenceKind.FLOW, f"an item of `{self.m.short(loop.iter)}`", self.m.span(loop.iter))
        return replace(found, flow=(*found.flow, step))

    def from_callers(self, node: ast.Name, env: Env) -> Source | None:
        """A parameter no call binds here: the third-party content the module's own callers of
        its function pass for it (``self.summarise(query, results)`` where ``results`` holds
        fetched pages), with the call as a step of the flow. A parameter of an ``__init__`` is
        filled by the calls of its class (``Digest(title, page)``): what a method reads of
        ``self.material`` after ``self.material = material`` is what the object was built with."""
        with parameter_callers(self, node, env, constructors=True) as bound_by:
            if bound_by is None:
                return None
            fn, calls = bound_by
            for call, bound in calls:
                found = self.untrusted(bound.node, bound.env)
                if found is None:
                    continue
                summary = self.wrappers.summary(fn, env.scope, MAX_WRAPPING)
                if summary is not None and summary.fills(node.id):
                    return None  # the function sends it: each call is a request of its caller, reported there
                built = f" to `{last_name(call.func)}(...)`" if last_name(call.func) != fn.name else ""
                step = Evidence(EvidenceKind.FLOW, f"passed as `{node.id}`{built} by the call at line {call.lineno}",
                                self.m.span(call))
                return replace(found, flow=(*found.flow, step), from_caller=True)
            return None

    def own_text_from_callers(self, node: ast.Name, env: Env) -> bool:
        """Whether every call of its function the module shows passes this parameter text (or
        other constants) the project wrote itself: its name then says nothing about content."""
        with parameter_callers(self, node, env) as bound_by:
            if bound_by is None:
                return False
            passed = [self.flow.literal(bound.node, bound.env)[0] for _, bound in bound_by[1]]
        return bool(passed) and all(passed)

    def unbound_parameter(self, node: ast.Name, env: Env) -> FunctionNode | None:
        """The function whose parameter ``node`` is, when no call binds it in ``env``."""
        scope, fn = env.scope, env.scope.node
        if (scope.kind != "function" or node.id not in scope.params or env.bound(node.id) is not None
                or env.depth > MAX_DEPTH or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))):
            return None
        return fn

    def callers(self, fn: FunctionNode, param: str, env: Env, constructors: bool = False,
                most: int = _MAX_CALLERS) -> list[tuple[ast.Call, Bound]]:
        """The calls of ``fn`` in this module (at most ``most``), with the argument each binds
        to ``param`` (worked out once: a parameter's sources and its name are both asked about);
        with ``constructors``, for an ``__init__``, the calls of its class too."""
        key = (id(fn), param, env.depth, constructors and fn.name == "__init__", most)  # the same list for any other
        known = self.m.callers_memo.get(key)
        if known is not None:
            return known
        found: list[tuple[ast.Call, Bound]] = []
        self.m.callers_memo[key] = found
        names = called_names(self.m.parents, fn, constructors)
        for call, home in self.m.calls_named(names)[:most]:
            if last_name(call.func) != fn.name:  # the class called: its arguments are `__init__`'s after `self`
                found.extend((call, b) for b in constructor_argument(call, fn, param, Env(home, (), env.depth + 1)))
                continue
            target = self.callees.function_for(call, Env(home, (), env.depth + 1), returns=False)
            bound = target.env.bound(param) if target is not None and target.fn is fn else None
            if bound is not None and bound.owner is None:
                found.append((call, bound))
        return found

    def bound_untrusted(self, node: ast.Name | ast.Attribute, env: Env) -> Source | None:
        """The untrusted content of the value a name holds, or of what was added to it."""
        binding = self.scopes.resolve(node, env, foreign=True)
        if binding is None:
            return None
        if binding.owner is not None:
            found = self.m.follow_binding(binding, binding.owner.sources.untrusted)
            return None if found is None else self.m.adopt_source(found, self.m.span(node))
        shared = shared_branches(node, binding.value, self.m.parents) if isinstance(node, ast.Name) else frozenset()
        key = ("untrusted", *self.m.binding_key(binding), shared)
        if key in self.m.source_memo:
            return self.m.source_memo[key]
        if not self.m.enter(binding.value):
            return None
        try:
            found = self.untrusted(binding.value, binding.env)
            if found is not None and isinstance(node, ast.Name):
                found = joined(self.m, found, node, binding.value)
            for extra in binding.extras:  # a list or text that untrusted content was added to
                if found is None and extra.value is not None and extra.kind in ADDS:
                    found = wrapped_by_adds(self.untrusted(extra.value, binding.extras_env), binding, extra)
            if found is None and isinstance(node, ast.Name):  # `if ...: out = run(tool) else: out = "none"`
                for other in other_branches(node, binding, self.m.parents, shared):
                    if found is None:
                        found = self.untrusted(other, binding.env)
                        found = joined(self.m, found, node, other) if found is not None else None
            if found is None and isinstance(node, ast.Name) and isinstance(binding.value, ast.Dict):
                for stored in stored_by_key(binding.env.scope.node, node.id):  # `pages[url] = text`
                    found = found or self.untrusted(stored, binding.env)
        finally:
            self.m.leave(binding.value)
        self.m.source_memo[key] = found
        return found

    def specs(self, node: ast.expr, env: Env) -> tuple[str, list[SourceKindSpec]]:
        """The call path of ``node`` (a call's callee, or a subscript) and the catalogue's
        sources it matches."""
        path = self.calls.path(node, env)
        found = [s for s in self.m.catalogue.sources.match(path) if isinstance(s, SourceKindSpec)]
        return path, found

    def read_source(self, node: ast.Call | ast.Subscript, env: Env) -> Source | None:
        """A call (or subscript) whose value is third-party content itself, per the catalogue."""
        path, specs = self.specs(node.func if isinstance(node, ast.Call) else node, env)
        for spec in specs:
            if spec.carrier:
                continue
            if isinstance(node, ast.Call) and not self.outside(spec, node, env):
                return None  # a file of the repository: the developer's own text
            return Source(SourceKind.UNTRUSTED, self.describe(node, path, spec), self.m.span(node),
                          strong=spec.strong, origin=run_by(self.scopes, spec, node, env).kind, whole=True)
        return None

    def outside(self, spec: SourceKindSpec, call: ast.Call, env: Env) -> bool:
        """Whether a file source reads a path someone else provides (not the repository's own), or
        a process prints what someone else wrote (not the user's typed text, nor this run's own)."""
        if spec.kind == "subprocess":
            return not prints_own_text(self.m, self.scopes, call, env)
        if spec.path_receiver:
            return not (isinstance(call.func, ast.Attribute) and own_path(self.m, self.scopes, call.func.value, env))
        if spec.path is not None:
            entry = self.args.find(spec.path, call, env)
            return entry is not None and not own_path(self.m, self.scopes, entry[0], entry[1]) \
                and not edited_by_user(self.m, entry[0], entry[1])
        return True

    def describe(self, node: ast.expr, path: str, spec: SourceKindSpec) -> str:
        """How a message names a source: ``requests.get(...)``, ``Path(...).read_text()``,
        ``retrieved documents (store.similarity_search(...))``."""
        short = self.m.short(node.func) if isinstance(node, ast.Call) else ""
        if spec.kind not in _NAMED_BY_CALL and not spec.carrier:
            return f"{spec.what} ({_call_name(node, path, short)})"
        if isinstance(node, ast.Subscript):
            return f"{self.m.dotted(node.value) or self.m.short(node.value)}[...]"
        return _call_name(node, path, short, spec)

    def untrusted_call(self, call: ast.Call, env: Env) -> Source | None:
        func = call.func
        qualified = self.m.qualified(func) or ""
        last = qualified.rsplit(".", 1)[-1]
        if qualified in MEASURES or qualified in LOCATION_CALLS or self.sinks.is_sink(call, env):
            return None  # a measure, a file's location; or the model's own answer, whatever it was shown
        if isinstance(func, ast.Attribute) and func.attr in MEASURING_METHODS:
            return None
        if isinstance(func, ast.Attribute):
            carrier = self.carrier(func.value, env)
            found = _carried(carrier, func.attr, self.m.span(call), call=True) if carrier is not None else None
            if found is not None:
                return found
        found = self.read_source(call, env)
        if found is not None:
            return found
        if template_text(self.m, self.scopes, func, env) is not None:  # the values rendered in, not the template's text
            return _strongest(self.untrusted(value, env) for value in arguments(call))
        target = self.callees.function_for(call, env, foreign=True)
        if target is not None:  # a function the code shows: what any of its returns gives, with these arguments
            if not self.m.enter(target.fn):
                return None
            reader = target.owner.sources if target.owner is not None else self
            fetch_named = _fetch_named(func, last)
            try:
                found = _strongest(reader.untrusted(v, target.env) for v in target.returns)
                own_text = found is None and fetch_named \
                    and all(reader.flow.literal(v, target.env)[0] for v in target.returns)
            finally:
                self.m.leave(target.fn)
            if found is None:  # named for fetching pages, unless it returns text the project wrote
                return _fetched_page(self.m, call) if fetch_named and not own_text else self.text_of_carrier(call, env)
            if target.owner is not None:
                found = self.m.adopt_source(found, self.m.span(call))
            step = Evidence(EvidenceKind.FLOW, f"returned by `{self.m.short(call.func)}()`", self.m.span(call))
            return replace(found, flow=(*found.flow, step))
        # Calls the catalogue does not know and the code does not show, named like a tool runner (`run_tool(...)`,
        # `tools[name](...)`) or a web fetch: the name is the only evidence, so the source is weak.
        if runs_called_tool(self.scopes, call, env):  # handed the name of the tool the model called
            return Source(SourceKind.UNTRUSTED, f"a tool result ({self.m.short(func)}(...))", self.m.span(call))
        taken = _dispatched(self.scopes, func, env)
        if taken is not None:
            holder_name = self.m.dotted(taken.value) or ""
            if TOOL_HOLDERS.search(holder_name.rsplit(".", 1)[-1]):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({holder_name}[...](...))", self.m.span(call),
                              strong=False)
        if isinstance(func, ast.Attribute):
            method, receiver = func.attr, func.value
            holder = receiver.value if isinstance(receiver, ast.Subscript) else receiver  # tools[name].invoke()
            receiver_name = (self.m.dotted(holder) or "").rsplit(".", 1)[-1].lower()
            if TOOL_RUNNERS.search(method) and ("_" in method or "tool" in receiver_name):
                name = self.m.short(func) if holder is receiver else f"{self.m.dotted(holder)}[...].{method}"
                return Source(SourceKind.UNTRUSTED, f"a tool result ({name}(...))", self.m.span(call), strong=False)
            found = self.untrusted(receiver, env)
            if found is not None:
                return found
        elif last and "_" in last and TOOL_RUNNERS.search(last):
            return Source(SourceKind.UNTRUSTED, f"a tool result ({last}(...))", self.m.span(call), strong=False)
        if encodes(call, last):
            return None  # base64 text, or an image or audio part: nothing in it reads as instructions
        if overridden_to_send(self, call, env):
            return None  # the answer a subclass's request gets, whatever it was shown
        for arg in carried_arguments(self.m, self.scopes, call, env):  # a summary, a translation, a cleaned copy
            found = self.untrusted(arg, env)
            if found is None:
                continue
            field, built = next((k.arg for k in call.keywords if k.value is arg), None), self.m.short(func)
            if field is not None and built.rsplit(".", 1)[-1][:1].isupper():
                # Packed into an object (`Reply(result=f"Tool returned: {out}")`): the step shows the wrapping.
                kept = Evidence(EvidenceKind.FLOW, f"kept as `{field}` of `{built}(...)`", self.m.span(arg))
                return replace(found, flow=(*found.flow, kept))
            return filled_unread_template(self.m, call, arg, found)
        # the name last: `pd.read_html(urlopen(url).read())` shows where its page comes from
        return _fetched_page(self.m, call) if _fetch_named(func, last) else None

    def text_of_carrier(self, call: ast.Call, env: Env) -> Source | None:
        """What a helper of the project named for reading text returns when it is handed an
        object that holds third-party content (``read_and_clean_pdf_text(fp)``, ``fp`` a file
        opened from a path someone else provides): the text it reads out of it, by a library
        the catalogue does not know. The name is the evidence of the reading, so the source is weak."""
        name = self.m.short(call.func)
        if not _READS_TEXT.search(name.rsplit(".", 1)[-1]):
            return None
        for arg in call.args:
            held = self.carrier(arg, env)
            if held is not None:
                spec, described = held
                return Source(SourceKind.UNTRUSTED, f"{spec.what} read by `{name}()` ({described})",
                              self.m.span(call), strong=False, origin=spec.kind)
        return None

    def carrier(self, node: ast.expr, env: Env) -> tuple[SourceKindSpec, str] | None:
        """The catalogue source and its description when ``node`` is an object holding
        third-party content (an HTTP response, a file opened from a path that is not the
        repository's own, a parsed e-mail, a browser driver), through names and ``with``."""
        if env.depth > MAX_DEPTH or not self.m.step():
            return None
        if isinstance(node, ast.Await):
            return self.carrier(node.value, env)
        if isinstance(node, (ast.Call, ast.Subscript)):  # or an item that holds content (a notebook's `nb.cells[-1]`)
            path, specs = self.specs(node.func if isinstance(node, ast.Call) else node, env)
            if isinstance(node, ast.Call):  # what the call builds, as the catalogue writes it: `selenium.webdriver.*()`
                specs += [s for s in self.m.catalogue.sources.match(f"{path}()") if isinstance(s, SourceKindSpec)]
            for spec in specs:
                if spec.carrier and isinstance(node, ast.Call) and self.sinks.posts_chat_request(node, env):
                    return None  # a request to a model posted over HTTP: its response is the model's answer
                if spec.carrier and (isinstance(node, ast.Subscript) or self.outside(spec, node, env)):
                    return run_by(self.scopes, spec, node, env), self.describe(node, path, spec)
            if not isinstance(node, ast.Call):  # else what a project function builds (its annotation says) or returns
                return None
            return built_carrier(self, node, env) or (returned_process(self, node, env) if not specs else None)
        if isinstance(node, (ast.Name, ast.Attribute)):
            binding = self.scopes.resolve(node, env)
            if binding is not None:
                return self.m.follow_binding(binding, self.carrier)
            if isinstance(node, ast.Name):
                caught = caught_carrier(self, node, env)
                if caught is not None:  # except subprocess.CalledProcessError as e
                    return caught
                annotation = self.calls.annotation(node.id, env)  # driver: webdriver.Chrome
                if annotation is not None:
                    carried = annotated_carrier(self, annotation, node.id)
                    if carried is not None:
                        return carried
                return carrier_from_callers(self, node, env)
        return None


def _carried(carrier: tuple[SourceKindSpec, str], member: str, span: Span, call: bool) -> Source | None:
    """What is read of a carrier at ``span``: its ``member`` attribute, or with ``call`` what its
    ``member`` method returns; None for what is about the content, not the content
    (``resp.status_code``, ``f.name``)."""
    spec, what = carrier
    if not _reads(member, spec.methods if call else spec.attributes):
        return None
    return Source(SourceKind.UNTRUSTED, f"{what}.{member}{'()' if call else ''}", span, strong=spec.strong,
                  origin=spec.kind)


def _call_name(node: ast.expr, path: str, short: str, spec: SourceKindSpec | None = None) -> str:
    """A call as a message names it (``short``: how the code writes its callee)."""
    last = path.rsplit(".", 1)[-1]
    if spec is not None and spec.path_receiver:
        return f"Path(...).{last}()"
    if path.endswith("urlopen"):
        return "urlopen(...)"
    if path.startswith(UNKNOWN):
        return f"{short if isinstance(node, ast.Call) else last}(...)"
    instance = path.rsplit("().", 1)
    if ".__getitem__()" in path or ".__iter__()" in path:  # `reader.pages[0].extract_text()`: of an item
        return path.replace(".__getitem__()", "[...]").replace(".__iter__()", "[...]").replace("()", "(...)") + "()"
    if len(instance) == 2 and spec is not None and not spec.carrier:  # upload.read() where upload: UploadFile
        return f"{instance[0].rsplit('.', 1)[-1]}.{instance[1]}()"
    return f"{path}(...)"


def _dispatched(scopes: Scopes, func: ast.expr, env: Env) -> ast.Subscript | None:
    """The table lookup a called function comes from: ``tools[name](...)``, or a name the
    function was taken out into first (``tool = self.tool_map[name]``, then ``tool(**args)``)."""
    if isinstance(func, ast.Name):
        binding = scopes.resolve(func, env)
        func = binding.value if binding is not None and not binding.extras else func
    return func if isinstance(func, ast.Subscript) else None


def _printed_before(text: ast.JoinedStr, value: ast.expr, inner: str) -> str:
    """The words an f-string prints before ``value`` (and before what ``inner`` printed before it
    on the way) when ``value`` ends the string; empty when more follows it. Other values read
    as a word (`Tool {name} returned:`)."""
    parts = text.values
    at = next((i for i, p in enumerate(parts) if isinstance(p, ast.FormattedValue) and p.value is value), None)
    if at is None or any(not (isinstance(p, ast.Constant) and not str(p.value).strip()) for p in parts[at + 1:]):
        return ""
    words = "".join(str(p.value) if isinstance(p, ast.Constant) else "x" for p in parts[:at])
    return words + inner


# A helper named for reading the text out of what it is given: a verb of reading and a noun of text
# (`read_and_clean_pdf_text`, `extract_docx_content`, `parse_page`).
_READS_TEXT = re.compile(r"(?:^|_)(?:read|parse|extract|load|convert)_(?:\w+_)?"
                         r"(?:text|content|pdf|docx?|page|markdown|html)s?$", re.IGNORECASE)


def _fetch_named(func: ast.expr, last: str) -> bool:
    """Whether a call is named for fetching web pages (`self.browser.fetch_web_contents(urls)`)."""
    return WEB_FETCHERS.search((func.attr if isinstance(func, ast.Attribute) else last).lower()) is not None


def _fetched_page(m: Unit, call: ast.Call) -> Source:
    """What a call named for fetching web pages gives: a page, as weak as a tool runner's name.
    Also a function the code shows whose returns show no source: its page comes from a callback
    or a plug-in it picks at run time (`self.run_func(url)`)."""
    return Source(SourceKind.UNTRUSTED, f"a web page ({m.short(call.func)}(...))", m.span(call), strong=False)


def _strongest(found: Iterable[Source | None]) -> Source | None:
    """The first source of a catalogue among what a function's returns carry, else the first
    loose one: `if api == "tavily": return tool.invoke(...)` before `return fetch_pages(...)`
    is still a function that returns fetched pages."""
    weak = None
    for source in found:
        if source is not None and source.strong:
            return source
        weak = weak or source
    return weak


def _field_name(node: ast.Subscript | ast.Attribute) -> str:
    """The lower-cased name of the field an attribute or a subscript by a written key reads."""
    if isinstance(node, ast.Attribute):
        return node.attr.lower()
    return (string_value(node.slice) or "").lower()


# Kinds of source a message names by the call alone (`requests.get(...).text`); others say what it is first.
_NAMED_BY_CALL = ("http", "file", "upload", "email")


def loop_giving(target: ast.expr, parents: dict[int, ast.AST]) -> ast.For | ast.AsyncFor | None:
    """The loop whose target ``target`` is when it is bound to an item of what the loop goes over."""
    loop = parents.get(id(target))
    if isinstance(loop, (ast.Tuple, ast.List)):
        loop = parents.get(id(loop))
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(target, ast.Name):
        return None
    return loop if target.id in item_names(loop.target, loop.iter) else None


def _comprehension_giving(node: ast.Name, parents: dict[int, ast.AST]) -> ast.comprehension | None:
    """The ``for`` of a comprehension around ``node`` that binds its name to an item
    (``[judge(passage) for passage in passages]``): comprehension targets are no assignment."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for generator in current.generators:
                if node.id in item_names(generator.target, generator.iter):
                    return generator
        current = parents.get(id(current))
    return None


def _reads(name: str, names: tuple[str, ...]) -> bool:
    """Whether an attribute or method of a carrier is its content (``*``: all are)."""
    return name in names or ("*" in names and name not in MEASURING_METHODS)
