"""What the code says about a request's output limit beyond the call itself: a limit the code
accepts and never passes on (a ``max_tokens`` parameter, ``self.config.max_token``), a chat
model built with none (reported where it is built), a receiver of a configured type built out
of sight (whose own settings may hold the limit)."""

from __future__ import annotations

import ast
from fnmatch import fnmatchcase
from typing import cast

from ctxlint.frameworks import Holder
from ctxlint.frontends.python.calls import UNKNOWN
from ctxlint.frontends.python.flow import Entry
from ctxlint.frontends.python.frameworkdefaults import framework_default
from ctxlint.frontends.python.knowledge import MODEL_KEYWORDS
from ctxlint.frontends.python.modelreads import model_reads
from ctxlint.frontends.python.namedmodels import named_model
from ctxlint.frontends.python.nodes import function_of, none_written, walk
from ctxlint.frontends.python.sentbycallers import sent_by_callers
from ctxlint.frontends.python.sinks import (
    GIVEN_NONE,
    REMOVED,
    SET_FOR_SOME,
    Parts,
    in_method,
    in_test,
    limit_configurable,
)
from ctxlint.frontends.python.spreads import KWARGS, field_default
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Scope
from ctxlint.model import Evidence, EvidenceKind, Request, Span
from ctxlint.providers import LIMIT_NAMES, TOKEN_LIMIT_NAMES, WINDOW_KEYS

# The kind of evidence of a chat model built without a limit that a request of the same code is
# sent with, for a model whose client sets none of its own (rules/**/CTX201).
BUILT_AND_SENT = "built-and-sent"
# ... and of one built without a limit by a function that passes a limit it holds (not a number
# written there) to the other chat models it builds, in its other branches.
LIMIT_PASSED_TO_OTHERS = "passed-to-others"
# ... and of one given to an object or function of a framework the catalogue knows, which runs
# requests with it (`LLMPredictor(llm=ChatOpenAI(...))`), by the code that builds it.
HANDED_TO_FRAMEWORK = "handed-to-framework"
# ... and of one given its limit under a keyword its class does not take (`ChatOllama(max_tokens=...)`,
# whose limit is `num_predict`), or built from a spread that could bring it only under a name no
# code of the project writes.
NOT_ITS_LIMIT = "not-its-limit"
# The keywords by which a framework takes the chat model it runs requests with.
def _all_args(node: ast.AST) -> list[ast.arg]:
    args = getattr(node, "args", None)
    if not isinstance(args, ast.arguments):
        return []
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _input_budget(m: Unit, cls: ast.AST, name: str) -> bool:
    """Whether every read of ``self.<name>`` in the class bounds the input, not the answer: compared
    with a size (``len(encode(query)) > self.max_tokens``) or cutting a text (``query[:self.max_tokens]``).
    A limit used only so is the prompt's budget; a request that does not send it drops nothing."""
    reads = [n for n in walk(cls) if isinstance(n, ast.Attribute) and n.attr == name and isinstance(n.ctx, ast.Load)
             and isinstance(n.value, ast.Name) and n.value.id == "self"]
    return bool(reads) and all(_bounds_input(m.parents, read) for read in reads)


def _bounds_input(parents: dict[int, ast.AST], read: ast.AST) -> bool:
    """Whether the expression around ``read``, up to its statement, is a comparison or a slice, or
    ``read`` is sent as the size of the context window (``options.setdefault("num_ctx",
    self.max_tokens)``, ``{"num_ctx": self.max_tokens}``, ``n_ctx=self.max_tokens``): the window
    the prompt and answer share, not a bound of the answer."""
    if _sent_as_window(parents, read):
        return True
    node: ast.AST | None = read
    while node is not None and not isinstance(node, ast.stmt):
        node = parents.get(id(node))
        if isinstance(node, (ast.Compare, ast.Slice)):
            return True
    return False


def _sent_as_window(parents: dict[int, ast.AST], read: ast.AST) -> bool:
    """Whether ``read`` is the value of a context window's key: a dict entry, a keyword, the value
    of ``setdefault(key, read)`` or of ``settings[key] = read``."""
    parent = parents.get(id(read))
    key: ast.AST | None = None
    if isinstance(parent, ast.Dict):
        key = next((k for k, v in zip(parent.keys, parent.values, strict=True) if v is read), None)
    elif isinstance(parent, ast.keyword):
        return parent.arg in WINDOW_KEYS
    elif isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "setdefault" \
            and len(parent.args) == 2 and parent.args[1] is read:
        key = parent.args[0]
    elif isinstance(parent, ast.Assign) and parent.value is read and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Subscript):
        key = parent.targets[0].slice
    return isinstance(key, ast.Constant) and key.value in WINDOW_KEYS


class Reserves(Component):
    def accepted_limit(self, scope: Scope) -> tuple[str, Span] | None:
        """A parameter of the enclosing function, or an attribute its class sets, named like an
        output limit (``max_tokens``, ``self.max_output_tokens``): the code accepts a limit, so
        a call without one drops it."""
        current: Scope | None = scope
        while current is not None and current.kind == "function":
            for name, _param in current.params.items():
                if name in LIMIT_NAMES:
                    node = next((a for a in _all_args(current.node) if a.arg == name), None)
                    return name, self.m.span(node if node is not None else cast(ast.stmt, current.node))
            cls = current.cls
            if cls is not None:
                for name in LIMIT_NAMES:
                    records = cls.assigns.get(name)
                    if records and records[0].target is not None and not _input_budget(self.m, cls.node, name):
                        return f"self.{name}", self.m.span(records[0].target)
                read = self.limit_read(cls.node)
                if read is not None:
                    return read
            current = current.parent
        return None

    def unread_limit_parameter(self, scope: Scope) -> tuple[str, Span] | None:
        """A parameter named for an output limit (``max_tokens``; not ``max_length``, which may
        count characters) that the function sending the request takes and never reads: whatever
        a caller gives it is lost."""
        function: Scope | None = scope
        while function is not None and function.kind != "function":
            function = function.parent
        if function is None:
            return None
        limits = [arg for arg in _all_args(function.node) if arg.arg in TOKEN_LIMIT_NAMES]
        if not limits:
            return None
        read = {node.id for node in walk(function.node)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        if read & {"locals", "vars"}:
            return None  # `**locals()` passes every parameter on
        return next(((arg.arg, self.m.span(arg)) for arg in limits if arg.arg not in read), None)

    def removal(self, entry: Entry) -> Evidence | None:
        """What an entry of a request's settings says when it is the limit's removal (the
        entry ``containers.changed_entries`` makes of ``params.pop("max_tokens")``), and the
        condition under which it runs, if the code shows one."""
        node = entry[0]
        if node is not entry[2] or not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                                        and node.func.attr == "pop"):
            return None
        child: ast.AST = node
        parent = self.m.parents.get(id(node))
        when = ""
        while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if isinstance(parent, ast.If) and child is not parent.test:  # not `if params.pop(...):`
                test = self.m.code(parent.test)
                when = f" when `{test}`" if child in parent.body else f" unless `{test}`"
                break
            child, parent = parent, self.m.parents.get(id(parent))
        return Evidence(EvidenceKind.SOURCE, f"`{self.m.code(node)}` takes the limit out{when}", self.m.span(node))

    def taken_out(self, entry: Entry) -> tuple[str, Evidence] | None:
        """The kind and evidence of a limit entry that leaves some requests without it."""
        removed = self.removal(entry)
        if removed is not None:
            return REMOVED, removed
        only_some = self.set_for_some(entry)
        return (SET_FOR_SOME, only_some) if only_some is not None else None

    def set_for_some_in_spread(self, call: ast.Call, env: Env, keys: tuple[str, ...]) -> Evidence | None:
        """A limit set only for some models on a dict the call spreads (``**kwargs``) that holds
        what the code cannot read besides (a copy of the user's settings): the code has a limit
        at hand and withholds it from every other model."""
        for keyword in call.keywords:
            if keyword.arg is not None or not isinstance(keyword.value, ast.Name):
                continue
            binding = self.scopes.resolve(keyword.value, env)
            if binding is None:
                continue
            for extra in binding.extras:
                if extra.kind == "setitem" and isinstance(extra.target, ast.Subscript) and extra.value is not None \
                        and self.flow.literal_str(extra.target.slice, binding.env) in keys:
                    found = self.set_for_some((extra.value, binding.env, extra.target))
                    if found is not None:
                        return found
        return None

    def limit_withheld(self, key: str, entry: Entry) -> tuple[str, Evidence] | None:
        """The kind and evidence of a limit's key given no limit where it is written: None itself
        (``max_tokens=None``), or a choice between a number and None by the model or provider
        (``4096 if model == "gpt-4o" else None``), which sends none to every other model. A name
        is not followed: a field None by default is often set only when given (``if
        self.max_tokens is not None: params["max_tokens"] = self.max_tokens``)."""
        node = entry[0]
        if none_written(node):
            return GIVEN_NONE, Evidence(EvidenceKind.SOURCE, f"`{key}` is given None, which sends no limit",
                                        self.m.span(entry[2]))
        if isinstance(node, ast.IfExp) and _names_a_model(node.test):
            for kept, dropped in ((node.body, node.orelse), (node.orelse, node.body)):
                if none_written(dropped) and not none_written(kept):
                    when = self.m.code(node.test) if kept is node.body else f"not ({self.m.code(node.test)})"
                    return SET_FOR_SOME, Evidence(EvidenceKind.SOURCE, f"`{key}` is set only when `{when}`",
                                                  self.m.span(entry[2]))
        return None

    def set_for_some(self, entry: Entry) -> Evidence | None:
        """What an entry of a request's settings says when the limit is set only in a branch for
        some models or providers (``if provider == "anthropic": kwargs["max_tokens"] = n``, no
        ``else``, no other place that sets it): every other model is sent none. A test on the
        limit's own value (``if max_tokens:``) is a limit passed on when given, not this."""
        target = entry[2]
        if not (isinstance(target, ast.Subscript) and isinstance(target.ctx, ast.Store)):
            return _set_in_one_arm(self.m, entry)  # `**({"max_tokens": n} if model == "x" else {})`
        key = self.flow.literal_str(target.slice, entry[1])
        assign = self.m.parents.get(id(target))
        branch = self.m.parents.get(id(assign)) if isinstance(assign, ast.Assign) else None
        if key is None or not isinstance(branch, ast.If) or branch.orelse or assign not in branch.body \
                or not _names_a_model(branch.test):
            return None
        renamed = isinstance(entry[0], ast.Call) and isinstance(entry[0].func, ast.Attribute) \
            and entry[0].func.attr == "pop"  # `params["max_completion_tokens"] = params.pop("max_tokens")`
        if renamed or _whole_names(self.m, entry[0]) & _whole_names(self.m, branch.test):
            return None
        function = entry[1].scope.node
        dict_name = self.m.code(target.value)
        stores = [n for n in walk(function) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
                  and self.m.code(n.value) == dict_name and self.flow.literal_str(n.slice, entry[1]) == key]
        if stores != [target] or _built_with(self.m, function, dict_name, key):
            return None
        return Evidence(EvidenceKind.SOURCE, f"`{self.m.code(target)}` is set only when `{self.m.code(branch.test)}`",
                        self.m.span(target))

    def limit_read(self, cls: ast.AST) -> tuple[str, Span] | None:
        """A limit the object's configuration holds and a method of the class reads
        (``self.config.max_token``): the class has one to send. Looked for once per class."""
        key = id(cls)
        if key not in self.m.class_limits:
            found = None
            for node in walk(cls):
                if isinstance(node, ast.Attribute) and node.attr in LIMIT_NAMES + ("max_token",) \
                        and isinstance(node.ctx, ast.Load):
                    dotted = self.m.dotted(node)
                    if dotted and dotted.startswith("self.") and not (
                            dotted == f"self.{node.attr}" and _input_budget(self.m, cls, node.attr)):
                        found = (dotted, self.m.span(node))
                        break
            self.m.class_limits[key] = found
        return self.m.class_limits[key]

    def holder_requests(self) -> list[Request]:
        """Chat models built with no output limit, reported where they are built: every request
        they send has none, wherever it is sent from (a chain, an agent, another module)."""
        found = []
        # `model = ChatOpenAI(...)` in one branch and `model = AzureChatOpenAI(...)` in another:
        # a request sent with `model` is sent with either.
        sent = {self.assigned(call, scope) for call, scope, _ in self.m.holder_calls if id(call) in self.m.sent_holders}
        for call, scope, holder in self.m.holder_calls:
            env = Env(scope)
            named = named_model(self, call, env, holder)
            if named is not None:
                found.append(named)
            misnamed = self.misnamed_limit(call, env, holder)
            if misnamed is not None:
                found.append(Request(
                    path=self.m.path, anchor=self.m.span(call), model=None, declares_settings=True,
                    settings_hint=f"{holder.limit_hint or 'an output limit'} on `{self.m.short(call.func)}(...)`",
                    framework=holder.framework, in_method=in_method(scope), in_test=in_test(scope),
                    reserve_kind=NOT_ITS_LIMIT, reserve_evidence=(misnamed,)))
                continue
            if not self.built_without_limit(call, env, holder):
                continue
            parts = Parts(hint=holder.limit_hint)
            self.sinks.settings(holder.arguments, call, env, None, parts)
            # `ChatOpenAI(model=model, **kwargs)` in a factory: empty unless its caller fills it
            passed_on = tuple(step for kind, step in self.args.of(call, env).empty_by_default if kind == KWARGS)
            kind = KWARGS if passed_on else "built-without"
            sent_at: tuple[Evidence, ...] = ()
            others = () if passed_on else self.limit_passed_to_others(call, scope)
            if others:
                kind, sent_at = LIMIT_PASSED_TO_OTHERS, others
            elif not passed_on and not self.limited_model(call, env, holder):
                if id(call) in self.m.sent_holders or self.assigned(call, scope) in sent - {None} \
                        or self.passed_to_sender(call, scope):
                    kind = BUILT_AND_SENT  # the code sends with it, and its client sets no limit of its own
                    sent_at = tuple(Evidence(EvidenceKind.FLOW, "a request is sent with it", at)
                                    for at in self.m.sent_holders.get(id(call), ())[:3])
                elif (handed := framework_default(self.m, call) or self.handed_to_framework(call, scope)) is not None:
                    kind, sent_at = HANDED_TO_FRAMEWORK, (handed,)
                elif (elsewhere := sent_by_callers(self.m, call, scope, holder)) is not None:
                    kind, sent_at = BUILT_AND_SENT, (elsewhere,)
            found.append(Request(
                path=self.m.path, anchor=self.m.span(call), model=parts.model, declares_settings=True,
                settings_hint=f"{holder.limit_hint or 'an output limit'} on `{self.m.short(call.func)}(...)`",
                framework=holder.framework, in_method=in_method(scope), in_test=in_test(scope),
                reserve_kind=kind,
                reserve_evidence=(*passed_on, Evidence(EvidenceKind.SOURCE, f"`{self.m.short(call.func)}(...)` is "
                                                       "built without an output limit", self.m.span(call)),
                                  *sent_at)))
        return found

    def misnamed_limit(self, call: ast.Call, env: Env, holder: Holder) -> Evidence | None:
        """Where a chat model whose class takes its limit under a name of its own (ChatOllama's
        `num_predict`) is given one under a name it drops (`max_tokens=`, said in the call or in
        a dict it spreads), or is built from a spread (`**kwargs`) with no limit in sight when no
        code of the project writes that name: whatever limit its callers mean to give is lost."""
        if not holder.ignored_limits or limit_configurable(call, holder):
            return None
        own = [k for spec in holder.arguments.get("limit", ()) for k in spec.keywords]
        given = self.args.of(call, env)
        if any(k in given.keywords for k in own):
            return None
        short = self.m.short(call.func)
        named = next((k for k in holder.ignored_limits if k in given.keywords), None)
        if named is not None:
            return Evidence(EvidenceKind.SOURCE, f"`{named}` is not a setting of `{short}`, which drops it "
                            f"(its limit is `{own[0]}`)", self.m.span(given.keywords[named][2]))
        spread = next((k for k in call.keywords if k.arg is None), None)
        if spread is None or not own or any(self.names_anywhere(k) for k in own):
            return None
        return Evidence(EvidenceKind.FLOW, f"`**{self.m.code(spread.value)}` can bring `{short}` a limit only as "
                        f"`{own[0]}`, which no code of the project writes", self.m.span(spread))

    def names_anywhere(self, word: str) -> bool:
        """Whether the module, or any module of its project, has ``word`` in its text."""
        project = self.m.project
        return word in self.m.text or (project is not None and project.mentions(word))

    def limit_passed_to_others(self, call: ast.Call, scope: Scope) -> tuple[Evidence, ...]:
        """Where the function that builds ``call`` passes the other chat models it builds a limit
        it holds (``max_tokens=config.max_output_tokens``), when it does: one branch of a
        factory that leaves out what every other branch sends. A number written at one of
        them is a choice for that model (`max_tokens=20_000` with thinking), not a limit at hand."""
        if scope.kind != "function":
            return ()
        found = []
        for other, other_scope, holder in self.m.holder_calls:
            if other is call or other_scope is not scope:
                continue
            env = Env(other_scope)
            entry = next((e for e in (self.args.find(spec, other, env) for spec in holder.arguments.get("limit", ()))
                          if e is not None), None)
            if entry is None or self.flow.literal(entry[0], entry[1])[0]:
                continue
            said = f"`{self.m.code(entry[0])}` is passed to `{self.m.short(other.func)}(...)` built here"
            found.append(Evidence(EvidenceKind.FLOW, said, self.m.span(entry[2])))
        return tuple(found[:3])

    def assigned(self, call: ast.Call, scope: Scope) -> tuple[int, str] | None:
        """The variable of ``scope`` that ``name = call`` assigns, if that is how it is kept."""
        parent = self.m.parents.get(id(call))
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            return id(scope), parent.targets[0].id
        return None

    def passed_to_sender(self, call: ast.Call, scope: Scope) -> bool:
        """Whether the chat model ``call`` builds is handed to a function of the module that
        sends a request with it (``summarize(model, page)`` where ``summarize`` calls
        ``model.ainvoke(...)``)."""
        kept = self.assigned(call, scope)
        if kept is None:
            return False
        for use in walk(scope.node):
            if not isinstance(use, ast.Call) or not any(isinstance(a, ast.Name) and a.id == kept[1]
                                                        for a in (*use.args, *(k.value for k in use.keywords))):
                continue
            called = self.callees.function_for(use, Env(scope), returns=False)
            if called is None or called.owner is not None:
                continue
            for inner in walk(called.fn):
                if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                        and self.sinks.may_be_sink(inner)):
                    continue
                found = self.calls.holder(inner.func.value, called.env)
                if found is not None and found[1] is call:
                    return True
        return False

    def handed_to_framework(self, call: ast.Call, scope: Scope) -> Evidence | None:
        """Where the chat model ``call`` builds is given, as its model, to an object or function
        of a framework the catalogue knows, with no limit beside it (``LLMPredictor(llm=model)``,
        ``LLMChain(llm=model, prompt=prompt)``): the framework runs requests with the model's own
        settings. Looked for in the function that builds it, or where the module calls the
        function or method that only returns it (``LLMPredictor(llm=self._build_llm())``). One given
        by position is its model too (``load_summarize_chain(llm, ...)``)."""
        for value in self.holding(call, scope):
            keyword = self.m.parents.get(id(value))
            use = self.m.parents.get(id(keyword))
            if isinstance(keyword, ast.keyword) and keyword.arg in MODEL_KEYWORDS and isinstance(use, ast.Call) \
                    and self.framework_call(use) and result_kept(self.m, use):
                return Evidence(EvidenceKind.FLOW, f"given to `{self.m.short(use.func)}(...)` as `{keyword.arg}=`",
                                self.m.span(use))
            if isinstance(keyword, ast.Call) and any(arg is value for arg in keyword.args) \
                    and self.framework_call(keyword) and result_kept(self.m, keyword):
                return Evidence(EvidenceKind.FLOW, f"given to `{self.m.short(keyword.func)}(...)`",
                                self.m.span(keyword))
        return None

    def holding(self, call: ast.Call, scope: Scope) -> list[ast.expr]:
        """The expressions that hold the model ``call`` builds: the call, the reads of the one
        name it is kept in (or of the attribute of the class's objects that nothing else in the
        class sets, ``self.summary_llm``), or the calls of the function that returns it."""
        parent = self.m.parents.get(id(call))
        kept = self.assigned(call, scope)
        if kept is not None and scope.kind == "function" and len(scope.assigns.get(kept[1], ())) == 1:
            return [call, *(n for n in walk(scope.node) if isinstance(n, ast.Name) and n.id == kept[1]
                            and isinstance(n.ctx, ast.Load))]
        reads = model_reads(parent, scope)
        if reads is not None:
            return [call, *reads]
        fn = scope.node
        if not isinstance(parent, ast.Return) or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return [call]
        called = f"self.{fn.name}" if scope.cls is not None else fn.name
        return [call, *(n for n, _ in self.m.calls
                        if not n.args and not n.keywords and self.m.dotted(n.func) == called)]

    def framework_call(self, use: ast.Call) -> bool:
        """Whether ``use`` calls an object or function a framework of the catalogue exports (not
        one of the project's modules), given no limit, no settings of its own and no spread."""
        dotted, qualified = self.m.dotted(use.func), self.m.qualified(use.func)
        head = dotted.split(".")[0] if dotted else ""
        if head not in self.m.imports or not self.m.catalogue.from_library(qualified or ""):
            return False
        project, file = self.m.project, self.m.file
        level = self.m.import_levels.get(head, 0)
        if level or (project is not None and file is not None
                     and project.module_file(self.m.imports[head].split(".")[0], file, 0) is not None):
            return False  # the project's own package of that name
        if any(k.arg is None or k.arg in LIMIT_NAMES or "kwargs" in k.arg or "settings" in k.arg
               for k in use.keywords):
            return False  # `llm_kwargs=`, `model_settings=`: it may send a limit of its own
        return not any(isinstance(h, Holder) and h.arguments.get("limit")
                       for h in self.m.catalogue.holders.match(qualified or ""))

    def built_without_limit(self, call: ast.Call, env: Env, holder: Holder) -> bool:
        """Whether ``call`` builds a chat model that sends no output limit: one whose framework
        sets none by default, built with every argument visible and no limit among them."""
        if holder.standalone or holder.default_limit is not None or holder.model_carries_limit \
                or holder.limit_per_call or not holder.arguments.get("limit"):
            return False
        given = self.args.of(call, env)
        if given.opaque or limit_configurable(call, holder):
            return False
        parts = Parts()
        self.sinks.settings(holder.arguments, call, env, None, parts)
        return parts.limit is None

    def limited_model(self, call: ast.Call, env: Env, holder: Holder) -> bool:
        """Whether the model or provider ``call`` builds for, or its default, is one whose object
        sends a limit of its own (``init_chat_model(model=cfg.writer_model)`` where the
        settings class declares ``writer_model: str = "claude-..."``)."""
        if not holder.limited_models:
            return False
        for spec in (*holder.arguments.get("model", ()), *holder.arguments.get("provider", ())):
            entry = self.args.find(spec, call, env)
            if entry is not None and any(fnmatchcase(name.lower(), glob) for name in self.names_of(entry[0], entry[1])
                                         for glob in holder.limited_models):
                return True
        return False

    def names_of(self, node: ast.expr, env: Env, depth: int = 0) -> list[str]:
        """The model names a value holds or defaults to: a literal, a parameter's default, the
        default of ``os.getenv(name, default)``, of a settings class's field (``config.model``
        where ``config = Settings.from_env()``), through a helper that takes the value alone
        (``get_value(config.model)``)."""
        text = self.flow.literal_str(node, env)
        if text is not None or depth > 4:
            return [text] if text is not None else []
        node, env = self.scopes.deref(node, env)
        if isinstance(node, ast.Name) and env.scope.kind == "function" and node.id in env.scope.params \
                and env.bound(node.id) is None:
            default = env.scope.params[node.id].default
            return self.names_of(default, env, depth + 1) if default is not None else []
        if isinstance(node, ast.Call) and len(node.args) == 2 \
                and self.m.qualified(node.func) in ("os.getenv", "os.environ.get"):
            return self.names_of(node.args[1], env, depth + 1)
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            return self.names_of(node.args[0], env, depth + 1)
        if isinstance(node, ast.Attribute):
            owner = node.value
            binding = self.scopes.resolve(owner, env) if isinstance(owner, (ast.Name, ast.Attribute)) else None
            built = binding.value if binding is not None else None
            func = built.func if isinstance(built, ast.Call) else None
            cls = func.value if isinstance(func, ast.Attribute) else func  # Settings(...), Settings.from_env(...)
            if binding is not None and isinstance(cls, ast.Name):
                default = field_default(self.callees, self.callees.class_named(cls.id, binding.env.scope, True),
                                                     node.attr)
                if isinstance(default, ast.Constant) and isinstance(default.value, str):
                    return [default.value]
        return []

    def configured_type(self, receiver: ast.expr, env: Env) -> bool:
        """Whether ``receiver`` is of a type the catalogue builds with an output limit (a chat
        model, a generator) although the code does not show it being built: a parameter or an
        attribute given from outside, whose own settings may hold the limit."""
        path = self.calls.path(receiver, env)
        if path.startswith(UNKNOWN) or not path.endswith("()"):
            return False
        return any(isinstance(h, Holder) and h.arguments.get("limit")
                   for h in self.m.catalogue.holders.match(path[:-2]))



def result_kept(unit: Unit, use: ast.Call) -> bool:
    """Whether what the framework call ``use`` builds is kept for something to run: not a
    statement of its own, nor a local name of its function that nothing reads
    (``predictor = LLMPredictor(llm=...)`` then never used): a framework object nothing holds
    runs no request."""
    parent = unit.parents.get(id(use))
    while isinstance(parent, ast.Await):
        parent = unit.parents.get(id(parent))
    if isinstance(parent, ast.Expr):
        return False
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return True
    name, function = parent.targets[0].id, function_of(parent, unit.parents)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return True  # a module's name: other modules may import it
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in walk(function))


def _set_in_one_arm(m: Unit, entry: Entry) -> Evidence | None:
    """The limit written in a dict that is one arm only of a choice of models or providers
    (``**({"max_tokens": 4096} if model == "gpt-4o" else {})``), the other a dict with no limit
    of any name: every other model is sent none."""
    written = m.parents.get(id(entry[0]))
    choice = m.parents.get(id(written)) if isinstance(written, ast.Dict) else None
    if not isinstance(choice, ast.IfExp) or not _names_a_model(choice.test) or choice.test is written:
        return None
    assert isinstance(written, ast.Dict)
    other = choice.orelse if choice.body is written else choice.body
    key = next((k.value for k, v in zip(written.keys, written.values, strict=True)
                if v is entry[0] and isinstance(k, ast.Constant)), None)
    if not isinstance(other, ast.Dict) or key not in LIMIT_NAMES or any(
            k is None or (isinstance(k, ast.Constant) and k.value in LIMIT_NAMES) for k in other.keys):
        return None
    when = m.code(choice.test) if choice.body is written else f"not ({m.code(choice.test)})"
    return Evidence(EvidenceKind.SOURCE, f"`{key}` is set only when `{when}`", m.span(written))


def _names_a_model(test: ast.expr) -> bool:
    """Whether a branch's test compares a value with a name written there (``provider ==
    "anthropic"``, ``"claude" in model``, ``model.startswith("o1")``): a choice of models."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.In)) for op in node.ops) \
                and any(isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value
                        for v in (node.left, *node.comparators)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith") and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            return True
    return False


def _built_with(m: Unit, function: ast.AST, dict_name: str, key: str) -> bool:
    """Whether the function builds the dict with the key already in it (``kwargs =
    {"max_tokens": n}`` before the branch that raises it): every request has a limit."""
    for node in walk(function):
        if isinstance(node, ast.Assign) and any(m.code(t) == dict_name for t in node.targets):
            value = node.value
            if isinstance(value, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == key
                                                   for k in value.keys):
                return True
            if isinstance(value, ast.Call) and any(k.arg == key for k in value.keywords):
                return True
    return False


def _whole_names(m: Unit, node: ast.expr) -> set[str]:
    """The names and whole dotted paths ``node`` reads (``self.max_output``, not ``self``)."""
    return {m.code(n) for n in walk(node) if isinstance(n, (ast.Name, ast.Attribute))
            and not isinstance(m.parents.get(id(n)), ast.Attribute)}
