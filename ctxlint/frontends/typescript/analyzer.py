"""The analysis of one TypeScript or JavaScript module: its components, built in layers, run in order.

It mirrors the Python front-end's model on a tree-sitter tree. Values are followed through the
module's own constants, ``let``/``const`` bindings, ``+=`` and ``push``, object properties, array
spreads, simple local functions and constants imported from the tree's other modules; whatever
comes from elsewhere (a parameter, a package, an API result) is a slot with the facts its
expression shows.

Each component calls only those below it, which it is given when it is built:

    unit.Module          the module: its state, and questions about its syntax and the catalogue
    estimates            token estimates, from syntax alone
    scopes               the index: scopes, assignments, functions, calls       (estimates)
    names                what names, properties and calls refer to; other modules
    sources              third-party content, unordered collections              (names)
    truncators           the project's functions that cut their text             (names)
    strings              text and literal values                                 (names, truncators)
    slots                slots and their facts, cut text                         (names, sources, strings, truncators)
    messages, tools      messages and templates; tool definitions                (names, sources, strings, slots)
    reserves             what a call's unread options say of its output limit    (names)
    classes              declared types, the project's classes and subclasses    (names)
    layers               calls of a method of the project's model classes        (names, messages, classes)
    posted               chat requests posted over HTTP (fetch, axios), their body (names)
    sinks, standalone    the requests of call sites; of prompts no call sends    (the components above)
    chat_models          models built with no output limit and sent with         (names)
    dropped_options      request bodies translated from settings, their limit left behind (classes)
    rendered_parts       items of a declared type whose text field the tree renders into a message (sources, strings)
    container_fills      containers one function fills in a listing's order, read into a prompt (sources)
    budget_loops         loops that stop adding items once a budget in tokens or characters is spent

A text's unknown part is a slot, and a slot's facts read text in turn (the cut text of a
``slice``): ``Strings.slot_piece`` is the one call that runs up a layer, set here.
"""

from __future__ import annotations

from ctxlint.frameworks.typescript import TypeScriptCatalogue
from ctxlint.frontends.code.words import prompt_path
from ctxlint.frontends.typescript.budget_loops import budget_loops
from ctxlint.frontends.typescript.chat_models import ChatModels
from ctxlint.frontends.typescript.classes import Classes, tree_index
from ctxlint.frontends.typescript.completion_order import completion_order
from ctxlint.frontends.typescript.container_fills import container_fills
from ctxlint.frontends.typescript.dropped_options import dropped_options
from ctxlint.frontends.typescript.estimates import Estimates
from ctxlint.frontends.typescript.history_cuts import history_cuts, two_ends_returned
from ctxlint.frontends.typescript.knowledge import MAX_CHAIN, MAX_SOURCE_STEPS, Node
from ctxlint.frontends.typescript.layers import Layers
from ctxlint.frontends.typescript.messages import Messages
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.newest_drops import newest_drops
from ctxlint.frontends.typescript.page_cuts import page_cuts
from ctxlint.frontends.typescript.page_items import page_item_cuts
from ctxlint.frontends.typescript.posted import Posts
from ctxlint.frontends.typescript.project import Project
from ctxlint.frontends.typescript.rendered_parts import rendered_parts
from ctxlint.frontends.typescript.reserves import Reserves
from ctxlint.frontends.typescript.scopes import Scopes
from ctxlint.frontends.typescript.sinks import Sinks
from ctxlint.frontends.typescript.slots import Slots
from ctxlint.frontends.typescript.sources import Sources
from ctxlint.frontends.typescript.standalone import Standalone
from ctxlint.frontends.typescript.strings import Strings
from ctxlint.frontends.typescript.stripped_blocks import stripped_blocks
from ctxlint.frontends.typescript.syntax import Text
from ctxlint.frontends.typescript.system_drops import system_drops
from ctxlint.frontends.typescript.tools import Tools
from ctxlint.frontends.typescript.truncators import Truncators
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import TooDeep
from ctxlint.model import ParsedFile, Request


class Analyzer:
    def __init__(self, root: Node, text: Text, knowledge: TypeScriptCatalogue, grammar: str = "typescript",
                 project: Project | None = None, generation: int = 0, root_dir: str = ""):
        self.project = project if project is not None else Project(_reader(knowledge), root_dir)
        m = self.m = Module(root, text, knowledge, grammar, self.project, generation)
        self.estimates = Estimates(m)
        if self.project.root:
            root = self.project.root
            self.estimates.used_elsewhere = lambda name: _used_elsewhere(root, name, m.path)
        self.scopes = Scopes(m, self.estimates)
        self.names = Names(m)
        self.sources = Sources(m, self.names)
        self.truncators = Truncators(m, self.names)
        self.strings = Strings(m, self.names, self.truncators)
        self.slots = Slots(m, self.names, self.sources, self.strings, self.truncators)
        self.strings.slot_piece = self.slots.slot_piece
        self.messages = Messages(m, self.names, self.strings, self.slots)
        self.tools = Tools(m, self.names, self.sources, self.strings, self.slots)
        self.classes = Classes(m, self.names)
        self.sources.classes = self.classes
        layers = Layers(m, self.names, self.messages, self.classes)
        self.sinks = Sinks(m, self.names, self.strings, self.messages, self.tools, Reserves(m, self.names), layers,
                           Posts(m, self.names, self.classes))
        self.standalone = Standalone(m, self.strings, self.messages)

    def index(self) -> None:
        self.scopes.index(self.m.root, self.m.module_scope, (), 0, None)

    def run(self, parsed: ParsedFile) -> None:
        m = self.m
        self.index()
        requests = self.sinks.call_site_requests()
        requests.extend(self.messages.langchain_requests())
        requests.extend(ChatModels(m, self.names).requests())
        requests.extend(dropped_options(m, self.classes))
        used = set(m.consumed)
        groups = list(self.tools.mcp_tools().values())
        used |= m.consumed
        groups += list(self.tools.literal_tools().values())
        used |= m.consumed
        parsed.requests.extend(requests)
        parsed.requests.extend(rendered_parts(m, self.sources, self.strings))
        context = bool(m.llm or requests or any(g.tools for g in groups))
        parsed.requests.extend(self.standalone.standalone_requests(used, context))
        for group in groups:
            if group.tools:
                tools = sorted(group.tools, key=lambda t: t[0])
                parsed.requests.append(Request(m.path, tools[0][1].span, tuple(group.builder.segments),
                                               tuple(t for _, t in tools),
                                               breakpoints=tuple(group.builder.breakpoints)))
        self.estimates.commented_ratios()
        parsed.observations.extend(m.observations)
        # As the Python front-end has it: a module that sends requests, defines tools, holds prompts
        # or lives where prompts do builds context for a model.
        context = context or bool(parsed.requests) or prompt_path(m.path)
        parsed.observations.extend(self.truncators.unsent_cuts(context))
        parsed.observations.extend(history_cuts(m, requests))
        parsed.observations.extend(two_ends_returned(m))
        parsed.observations.extend(budget_loops(m, context))
        parsed.observations.extend(newest_drops(m, self.truncators))
        parsed.observations.extend(system_drops(m, self.truncators))
        parsed.observations.extend(stripped_blocks(m, requests))
        parsed.observations.extend(completion_order(m))
        parsed.observations.extend(container_fills(m, self.sources))
        parsed.observations.extend(page_cuts(m))
        parsed.observations.extend(page_item_cuts(m))
        if m.long_chain is not None:
            line, _ = m.src.position(m.long_chain.start_byte)
            parsed.notices.append(f"stopped following a chain of property accesses and calls after {MAX_CHAIN} "
                                  f"(line {line}); values and untrusted sources are not followed through longer chains")
        if m.source_steps > MAX_SOURCE_STEPS:
            parsed.notices.append(f"stopped following values to third-party sources after {MAX_SOURCE_STEPS:,} steps; "
                                  "content reached later in the module is not checked for its source")
        parsed.dependencies.extend(self.project.read_paths())

    def release(self) -> None:
        """Break the cycles the analysis is made of (scopes and their assignments, the components and
        the zod reader's methods, the modules it read constants from), so that the syntax trees they
        hold (up to 100 bytes per byte of a broken module) are freed as soon as the module is done,
        not at the collector's next pass (a few cyclic objects do not prompt one)."""
        project = self.project
        for analyzer in [self, *(a for a in project.modules.values() if a is not None and a is not self)]:
            for scope in analyzer.m.all_scopes():
                scope.assigns.clear()
                scope.functions.clear()
            for part in list(vars(analyzer).values()):
                if part is not project:
                    vars(part).clear()
            vars(analyzer).clear()
        project.modules.clear()


def _used_elsewhere(root: str, name: str, path: str) -> bool:
    """Whether another module of the tree imports or calls ``name``; the tree is scanned only when
    an estimate asks, which most runs never do (a single file linted in a large tree)."""
    index = tree_index(root)
    return index is None or index.used_elsewhere(name, path)


def _reader(knowledge: TypeScriptCatalogue):
    """How the project reads a module a constant is imported from: indexed, not run."""
    def read(project: Project, root: Node, source: Text, grammar: str, generation: int) -> Analyzer | None:
        analyzer = Analyzer(root, source, knowledge, grammar, project, generation)
        try:
            analyzer.index()
        except (TooDeep, RecursionError):
            return None
        return analyzer
    return read
