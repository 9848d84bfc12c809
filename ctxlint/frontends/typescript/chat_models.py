"""Chat models a TypeScript module builds with their settings and sends requests with.

LangChain's models keep their output limit in the settings they are built with
(``new ChatOpenAI({ model, maxTokens })``, ``await initChatModel("gpt-4o", { maxTokens })``): every
request sent with one (``model.invoke(messages)``, ``model.withStructuredOutput(schema).invoke(...)``,
``prompt.pipe(model)``) has that limit, and one built with none has every answer unbounded. As the
Python front-end reports such a model (``built-and-sent``), the request is reported:

- where the model is built, when this module builds it and sends with it (once per model, the
  sends its evidence places);
- where it is sent, when a function of the module or of one it imports builds it and returns it
  (``const model = await loadChatModel(name)``): each of the function's builds is an evidence
  place, and every return of the function must be such a model.

A model the code only hands to a function of the framework (``createReactAgent({ llm: model })``)
or to a class of it (``new LLMChain({ llm, prompt })``) is reported as handed to it
(``handed-to-framework``): the framework runs requests with it.

Settings the code cannot read whole (a spread, options from a parameter) may hold a limit: no report.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from ctxlint.frameworks.typescript import TsModel
from ctxlint.frontends.typescript.knowledge import Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env
from ctxlint.model import Evidence, EvidenceKind, Request

# The evidence kinds the Python front-end gives the same findings.
BUILT_AND_SENT = "built-and-sent"
HANDED_TO_FRAMEWORK = "handed-to-framework"
# Calls that put a model into a runnable sequence, which is then run: `prompt.pipe(model)`,
# `RunnableSequence.from([prompt, model])`.
SEQUENCES = {"pipe", "from"}
MAX_SENDS_SHOWN = 3
MAX_WRAPPERS = 5  # `model.bindTools(...).withConfig(...)`: runnables made of runnables, followed this deep
# The properties an options object gives a framework its model under (`createReactAgent({ llm })`);
# a model given otherwise may only count tokens (`trimMessages(messages, { tokenCounter: model })`).
MODEL_KEYS = {"llm", "model", "chatModel", "llmModel"}


@dataclass(frozen=True)
class Build:
    """A chat model built with no output limit: the building call and what it knows of the model."""

    call: Node
    module: Module
    model: TsModel
    name: str | None  # the model's name, when written


@dataclass(eq=False)
class ChatModels:
    m: Module
    names: Names

    def requests(self) -> list[Request]:
        if not self.m.ts.models:
            return []
        # builds of this module -> the calls that send with them, and those that hand them to the framework
        here: dict[int, tuple[Build, list[Node], list[Evidence]]] = {}
        found: list[Request] = []
        for call, scope in self.m.calls:
            uses: list[tuple[Node, Evidence | None]]
            if call.type == "new_expression":  # `new LLMChain({ llm, prompt })`: a chain built on the model
                uses = list(self.handed_values(call))
            elif call.type == "call_expression":
                uses = [(value, None) for value in self.sent_values(call)] or list(self.handed_values(call))
            else:
                continue
            for value, handed in uses:
                builds, via = self.builds(value, Env(scope))
                if not builds:
                    continue
                if via is None and builds[0].module is self.m:
                    _, sends, hands = here.setdefault(builds[0].call.id, (builds[0], [], []))
                    if handed is None:
                        sends.append(call)
                    else:
                        hands.append(handed)
                else:
                    found.append(self.request(call, builds, (), (handed,) if handed else (), via))
                break
        for build, sends, hands in here.values():
            found.append(self.request(build.call, [build], tuple(sends), tuple(hands), None))
        return found

    def handed_values(self, call: Node) -> list[tuple[Node, Evidence]]:
        """The names a call of a framework's function is given as a model, with what says so: an
        argument, or a property of an object argument (``createReactAgent({ llm: model, tools })``).
        The framework runs requests with the model's own settings; a class of the framework built
        on the model (``new LLMChain({ llm, prompt })``) runs them too."""
        callee = self.m.unwrap(self.m.field(call, "constructor" if call.type == "new_expression" else "function"))
        name = self.m.code(callee) if callee is not None and callee.type == "identifier" else ""
        imported = self.m.imports.get(name, "").rsplit(".", 1)[0]
        if not imported or not self.m.ts.imports(imported, self.m.ts.llm_imports):
            return []
        found = []
        for arg in self.m.args(call):
            arg = self.m.unwrap(arg)
            if arg.type == "identifier":
                found.append((arg, Evidence(EvidenceKind.FLOW, f"given to `{name}(...)`", self.m.span(call))))
            elif arg.type == "object":
                for key, value in self.m.raw_pairs(arg).items():
                    value = self.m.unwrap(value)
                    if key in MODEL_KEYS and value.type in ("identifier", "shorthand_property_identifier"):
                        found.append((value, Evidence(EvidenceKind.FLOW, f"given to `{name}(...)` as `{key}`",
                                                      self.m.span(value))))
        return found

    def sent_values(self, call: Node) -> list[Node]:
        """The values a call sends a request with, or puts in a sequence that is run: the base of
        its property chain when the chain names a sending method (``model.invoke(...)``,
        ``model.withStructuredOutput(s).invoke(...)``), the arguments of ``pipe`` and
        ``RunnableSequence.from([...])``."""
        callee = self.m.unwrap(self.m.field(call, "function"))
        if callee is None or self.m.too_long(callee):  # each level of a long chain would walk it again
            return []
        methods: list[str] = []
        node = callee
        while node is not None and node.type in ("member_expression", "call_expression", "await_expression"):
            if node.type == "member_expression":
                prop = self.m.field(node, "property")
                methods.append(self.m.code(prop) if prop is not None else "")
                node = self.m.unwrap(self.m.field(node, "object"))
            elif node.type == "call_expression":
                node = self.m.unwrap(self.m.field(node, "function"))
            else:
                node = self.m.unwrap(next((c for c in node.named_children if c.type != "comment"), None))
        found: list[Node] = []
        if node is not None and node.type == "identifier" and self.m.ts.model_senders.intersection(methods):
            found.append(node)
        if methods and methods[0] in SEQUENCES:
            for arg in self.m.args(call):
                arg = self.m.unwrap(arg)
                found.extend(arg.named_children if arg.type == "array" else [arg])
        return [n for n in found if n.type == "identifier"]

    def builds(self, value: Node, env: Env) -> tuple[list[Build], str | None]:
        """The models with no limit ``value`` is, and the name of the project function that returns
        them (None: built where the name is bound); no models when it may be anything else or
        have a limit."""
        node, node_env = self.names.deref(value, env)
        node = underlying(self.m, awaited(self.m, node))
        build = built(self.names, node, node_env)
        if build is not None:
            return [build], None
        if node.type != "call_expression":
            return [], None
        builds = []
        for names, ret, ret_env in self.returns(node, node_env):
            inner, inner_env = names.deref(ret, ret_env)
            found = built(names, underlying(names.m, awaited(names.m, inner)), inner_env)
            if found is None:
                return [], None
            builds.append(found)
        return builds, self.m.code(self.m.field(node, "function") or node)

    def returns(self, call: Node, env: Env) -> list[tuple[Names, Node, Env]]:
        """Every value the project function ``call`` calls returns, with the names of its module."""
        found = self.names.project_function(call, env.scope)
        if found is None:
            return []
        owner, function = found
        names = self.names if owner is None else owner.names
        return [(names, r, Env(function.scope, (), env.depth + 1)) for r in function.scope.returns]

    def request(self, at: Node, builds: list[Build], sends: tuple[Node, ...], hands: tuple[Evidence, ...],
                via: str | None) -> Request:
        first = builds[0]
        shown = first.module.code(first.module.field(first.call, "constructor") or
                                  first.module.field(first.call, "function") or first.call)
        says = f"`{shown}(...)` is built without an output limit" if via is None else \
            f"`{via}(...)` returns a model built without an output limit (`{shown}(...)`)"
        evidence = tuple(Evidence(EvidenceKind.SOURCE, says, b.module.span(b.call)) for b in builds)
        evidence += tuple(Evidence(EvidenceKind.FLOW, "a request is sent with it", self.m.span(named_method(self.m, s)))
                          for s in sends[:MAX_SENDS_SHOWN])
        kind = BUILT_AND_SENT
        if not sends and hands:  # handed to the framework, never sent here: it runs the requests
            kind, evidence = HANDED_TO_FRAMEWORK, evidence[:len(builds)] + hands[:MAX_SENDS_SHOWN]
        elif not sends:
            evidence += (Evidence(EvidenceKind.FLOW, "a request is sent with it", self.m.span(at)),)
        return Request(path=self.m.path, anchor=self.m.span(at), model=first.name, declares_settings=True,
                       settings_hint=f"`{first.model.limits[0]}` in the settings of `{shown}(...)`",
                       framework=first.model.framework, reserve_kind=kind, reserve_evidence=evidence)


def named_method(m: Module, call: Node) -> Node:
    """Where a call names the method it sends with: ``invoke`` of ``model.withConfig({...})
    .invoke([...])``, which a chain written over many lines puts lines below the model's name."""
    function = m.field(call, "function") if call.type == "call_expression" else None
    named = m.field(function, "property") if function is not None and function.type == "member_expression" else None
    return named if named is not None else call


def awaited(m: Module, node: Node) -> Node:
    while node is not None and node.type == "await_expression":
        node = m.unwrap(next((c for c in node.named_children if c.type != "comment"), node))
    return node


def underlying(m: Module, node: Node) -> Node:
    """The model a runnable made of it stands for: ``new ChatOpenAI({...}).bindTools(tools)`` and
    ``(await initChatModel(...)).withConfig(...)`` send with the settings of the model they wrap."""
    for _ in range(MAX_WRAPPERS):
        callee = m.unwrap(m.field(node, "function")) if node.type == "call_expression" else None
        prop = m.field(callee, "property") if callee is not None and callee.type == "member_expression" else None
        if prop is None or m.code(prop) not in m.ts.model_derivers:
            break
        node = awaited(m, m.unwrap(m.field(callee, "object")))
    return node


def built(names: Names, node: Node, env: Env) -> Build | None:
    """The chat model ``node`` builds with no output limit, in settings read whole, or None."""
    module = names.m
    if node.type == "new_expression":
        callee = module.field(node, "constructor")
    elif node.type == "call_expression":
        callee = module.unwrap(module.field(node, "function"))
    else:
        return None
    name = module.code(callee) if callee is not None and callee.type == "identifier" else ""
    imported = module.imports.get(name, "").rsplit(".", 1)[0]
    model = next((m for m in module.ts.models if name in (m.classes if node.type == "new_expression" else m.functions)
                  and module.ts.imports(imported, m.modules)), None)
    if model is None:
        return None
    args = module.args(node)
    settings: dict = {}
    if len(args) > model.options:
        opaque = [False]
        entries = names.entries(args[model.options], env, opaque)
        if entries is None or opaque[0]:
            return None
        settings = entries
    if any(key in settings for key in model.limits):
        return None
    written = next((module.string_value(module.unwrap(settings[k][0])) for k in ("model", "modelName")
                    if k in settings), None)
    if written is None and model.functions and args and model.options > 0:
        written = module.string_value(module.unwrap(args[0]))
    provider = module.string_value(module.unwrap(settings["modelProvider"][0])) if "modelProvider" in settings else None
    full = f"{provider}:{written or ''}" if provider else written
    if full is not None and any(fnmatchcase(full, p) for p in model.limited_models):
        return None
    return Build(node, module, model, written)
