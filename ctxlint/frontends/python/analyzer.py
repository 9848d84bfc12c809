"""The analysis of one module: its parts wired together, run in order."""

from __future__ import annotations

import ast
from pathlib import Path

from ctxlint.frameworks import Catalogue, Holder, TemplateKind
from ctxlint.frontends.code.words import prompt_path
from ctxlint.frontends.python.arguments import Arguments
from ctxlint.frontends.python.basemethods import BaseMethods
from ctxlint.frontends.python.batchlines import batch_requests
from ctxlint.frontends.python.callees import Callees
from ctxlint.frontends.python.calls import Calls, last_name
from ctxlint.frontends.python.containers import Containers
from ctxlint.frontends.python.cutcallers import CutCallers
from ctxlint.frontends.python.cutreach import CutReach
from ctxlint.frontends.python.cuts import Cuts
from ctxlint.frontends.python.cutsites import CutSites
from ctxlint.frontends.python.descriptioncuts import DescriptionCuts
from ctxlint.frontends.python.estimates import Estimates
from ctxlint.frontends.python.factorydrops import FactoryDrops
from ctxlint.frontends.python.factorymodels import FactoryModels
from ctxlint.frontends.python.firstparts import FirstParts
from ctxlint.frontends.python.flaggedcuts import unflagged_cuts, unmarked_branches
from ctxlint.frontends.python.flow import Flow
from ctxlint.frontends.python.frontdrops import FrontDrops
from ctxlint.frontends.python.gateddrops import GatedDrops
from ctxlint.frontends.python.gatherorder import GatherOrder
from ctxlint.frontends.python.globalfills import GlobalFills
from ctxlint.frontends.python.lastdrops import LastDrops
from ctxlint.frontends.python.lastturncuts import LastTurnCuts
from ctxlint.frontends.python.linecuts import LineCuts
from ctxlint.frontends.python.listingcuts import ListingCuts
from ctxlint.frontends.python.loggedparts import LoggedParts
from ctxlint.frontends.python.messages import Messages
from ctxlint.frontends.python.middledrops import middle_removals
from ctxlint.frontends.python.modelflow import ModelFlow
from ctxlint.frontends.python.nodes import overwritten_before_read
from ctxlint.frontends.python.orderprompts import OrderPrompts
from ctxlint.frontends.python.ordersites import SURVIVORS_REACH_PROMPT, OrderSites
from ctxlint.frontends.python.outputcuts import OutputCuts
from ctxlint.frontends.python.overflows import Overflows
from ctxlint.frontends.python.partdrops import PartDrops
from ctxlint.frontends.python.prefilter import precheck
from ctxlint.frontends.python.probes import unread_answers
from ctxlint.frontends.python.project import MAX_MODULE_BYTES, Project, display_path
from ctxlint.frontends.python.rankedfills import RankedFills
from ctxlint.frontends.python.registered import registered_requests
from ctxlint.frontends.python.requestobjects import unset_request_objects
from ctxlint.frontends.python.reserves import Reserves
from ctxlint.frontends.python.schemachoices import SchemaChoices
from ctxlint.frontends.python.scopes import Scopes
from ctxlint.frontends.python.serialization import Serialization
from ctxlint.frontends.python.settingscuts import SettingsCuts
from ctxlint.frontends.python.shellcuts import ShellCuts
from ctxlint.frontends.python.sinks import Sinks
from ctxlint.frontends.python.sources import Sources
from ctxlint.frontends.python.splitprompts import SplitPrompts
from ctxlint.frontends.python.spreads import Spreads
from ctxlint.frontends.python.standalone import Standalone
from ctxlint.frontends.python.strings import Strings
from ctxlint.frontends.python.summarisedparts import SummarisedParts
from ctxlint.frontends.python.summarydrops import SummaryDrops
from ctxlint.frontends.python.systemdrops import SystemDrops
from ctxlint.frontends.python.systemwindows import SystemWindows
from ctxlint.frontends.python.taskdrops import TaskDrops
from ctxlint.frontends.python.templatecuts import template_tail_cuts
from ctxlint.frontends.python.toolorder import ToolOrder
from ctxlint.frontends.python.tools import Tools
from ctxlint.frontends.python.trimdrops import TrimDrops
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.unreadlimits import unread_limit_fields
from ctxlint.frontends.python.values import Env
from ctxlint.frontends.python.walkcuts import WalkCuts
from ctxlint.frontends.python.wrappers import Wrappers
from ctxlint.model import ParsedFile


class Analyzer:
    def __init__(self, tree: ast.Module, text: str, path: str, catalogue: Catalogue, project: Project | None = None,
                 file: Path | None = None) -> None:
        self.unit = Unit(tree, text, path, catalogue, project, file)
        self.unit.analyzer = self
        self.scopes = Scopes(self.unit)
        self.callees = Callees(self.unit)
        self.strings = Strings(self.unit)
        self.flow = Flow(self.unit)
        self.containers = Containers(self.unit)
        self.sources = Sources(self.unit)
        self.serialization = Serialization(self.unit)
        self.calls = Calls(self.unit)
        self.cuts = Cuts(self.unit)
        self.cut_sites = CutSites(self.unit)
        self.cut_reach = CutReach(self.unit)
        self.cut_sites.callers = CutCallers(self.unit)
        self.cut_sites.settings = SettingsCuts(self.unit)
        self.cut_sites.descriptions = DescriptionCuts(self.unit)
        self.cut_sites.outputs = OutputCuts(self.unit)
        self.ranked_fills = self.cut_sites.ranks = RankedFills(self.unit)
        self.order_sites = OrderSites(self.unit)
        self.line_cuts = LineCuts(self.unit)
        self.listing_cuts = ListingCuts(self.unit)
        self.shell_cuts = ShellCuts(self.unit)
        self.walk_cuts = WalkCuts(self.unit)
        self.walk_cuts.shell = self.shell_cuts
        self.gated_drops = GatedDrops(self.unit)
        self.logged_parts = LoggedParts(self.unit)
        self.schema_choices = SchemaChoices(self.unit)
        self.order_prompts = OrderPrompts(self.unit)
        self.order_sites.string_sets = self.order_prompts
        self.tool_order = ToolOrder(self.unit)
        self.gather_order = GatherOrder(self.unit)
        self.global_fills = GlobalFills(self.unit)
        self.first_parts = FirstParts(self.unit)
        self.overflows = Overflows(self.unit)
        self.system_drops = SystemDrops(self.unit)
        self.system_windows = SystemWindows(self.unit)
        self.task_drops = TaskDrops(self.unit)
        self.front_drops = FrontDrops(self.unit)
        self.part_drops = PartDrops(self.unit)
        self.trim_drops = TrimDrops(self.unit)
        self.summary_drops = SummaryDrops(self.unit)
        self.summarised_parts = SummarisedParts(self.unit)
        self.split_prompts = SplitPrompts(self.unit)
        self.split_prompts.first_parts = self.first_parts
        self.last_drops = LastDrops(self.unit)
        self.last_drops.overflows = self.overflows
        self.last_turn_cuts = LastTurnCuts(self.unit)
        self.messages = Messages(self.unit)
        self.args = Arguments(self.unit)
        self.sinks = Sinks(self.unit)
        self.standalone = Standalone(self.unit)
        self.tools = Tools(self.unit)
        self.estimates = Estimates(self.unit)
        self.wrappers = Wrappers(self.unit)
        self.base_methods = BaseMethods(self.unit)
        self.spreads = Spreads(self.unit)
        self.reserves = Reserves(self.unit)
        self.model_flow = ModelFlow(self.unit)
        self.factory_drops = FactoryDrops(self.unit)
        self.factory_models = FactoryModels(self.unit)
        # Each part reaches the shared ones through the attributes Component declares (`reach` is
        # `cut_reach` here); the parts are this analyser's and the three cut_sites holds for itself
        # (its settings cuts need none).
        # (Written into each part's attributes in one step: no Component declares these names as
        # properties, so this is what setting them one by one did, for 45 parts in every module.)
        shared = {name: getattr(self, "cut_reach" if name == "reach" else name) for name in Component.__annotations__}
        parts = [p for p in vars(self).values() if isinstance(p, Component)]
        for part in [*parts, self.cut_sites.callers, self.cut_sites.descriptions, self.cut_sites.outputs]:
            vars(part).update(shared)

    def run(self, parsed: ParsedFile) -> None:
        unit = self.unit
        self.scopes.index_module()
        self.framework_objects()
        calls = self.sinks.call_site_requests()
        calls += self.wrappers.requests()
        calls += self.reserves.holder_requests()
        calls += self.model_flow.requests()
        calls += self.factory_drops.requests()
        calls += self.factory_models.requests()
        calls += unread_limit_fields(unit)
        calls += batch_requests(unit)
        calls += unset_request_objects(unit)
        calls = unread_answers(unit, calls)
        used = set(unit.consumed)
        tools = self.tools.mcp_requests()
        context = bool(unit.llm or calls or tools or prompt_path(unit.path))
        parsed.requests.extend(calls)
        parsed.requests.extend(self.standalone.requests(used, context))
        parsed.requests.extend(tools)
        offered = {t.span for r in parsed.requests for t in r.tools}
        offered |= {e.span for r in parsed.requests for e in r.catalogue[1:2] if e.span is not None}
        parsed.requests.extend(self.tools.defined_requests(offered))
        self.estimates.char_budgets()
        self.estimates.drop_fallbacks()
        self.estimates.bookkeeping()
        parsed.observations.extend(unit.observations)
        context = context or bool(parsed.requests)
        parsed.observations.extend(self.cut_sites.observe(context))
        parsed.observations.extend(self.line_cuts.observe())
        parsed.observations.extend(self.listing_cuts.observe())
        parsed.observations.extend(self.shell_cuts.observe())
        parsed.observations.extend(self.walk_cuts.observe())
        parsed.observations.extend(self.gated_drops.observe())
        parsed.observations.extend(self.logged_parts.observe())
        parsed.observations.extend(unflagged_cuts(unit))
        parsed.observations.extend(unmarked_branches(unit))
        # stronger evidence for a site order_sites also sees
        reaching = self.order_prompts.observe() + self.tool_order.observe() + self.gather_order.observe() \
            + self.global_fills.observe()
        sites = self.order_sites.observe(context)
        # a batch of a listing followed into a prompt (`files = os.listdir()[:50]`, then joined into it):
        # the cut says which items survive and so the prompt's text, once, where the listing is cut
        cuts = [o.span for o in sites if o.kind == SURVIVORS_REACH_PROMPT]
        reaching = [r for r in reaching if r.source is None or not any(c.covers(r.source.span) for c in cuts)]
        # a walk left on a count (walkcuts.py) says where its order is lost, and what it decides
        reaching = [r for r in reaching if r.source is None or r.source.span not in self.walk_cuts.iterated]
        parsed.observations.extend(reaching)
        spans = {r.span for r in reaching}
        parsed.observations.extend(o for o in sites if o.span not in spans)
        parsed.observations.extend(self.schema_choices.observe())  # its own evidence of a model: the schema sent
        parsed.observations.extend(self.first_parts.observe(context))
        parsed.observations.extend(template_tail_cuts(unit))
        parsed.observations.extend(middle_removals(unit))
        parsed.observations.extend(self.overflows.observe(context))
        parsed.observations.extend(self.system_drops.observe(context))
        parsed.observations.extend(self.system_windows.observe(context))
        parsed.observations.extend(self.task_drops.observe())
        parsed.observations.extend(self.front_drops.observe())
        parsed.observations.extend(self.part_drops.observe())
        parsed.observations.extend(self.trim_drops.observe())
        parsed.observations.extend(self.summary_drops.observe())
        parsed.observations.extend(self.summarised_parts.observe())
        parsed.observations.extend(self.split_prompts.observe(parsed.requests))
        parsed.observations.extend(self.last_drops.observe(context))
        parsed.observations.extend(self.last_turn_cuts.observe())
        # Last: a tool a registry lists does not make the module code that talks to a model.
        parsed.requests.extend(registered_requests(self.tools))
        parsed.dependencies.extend(sorted(unit.dependencies))  # with the modules that pick those tools

    def run_registered(self, parsed: ParsedFile, orders: bool = False) -> None:
        """Only the tools a framework's registry lists (a module the rest of the analysis skips),
        and with ``orders`` the sets whose order reaches an object named for a model; the shell
        commands and the walks of a folder that cut what a tool returns (a sandbox's backend, which
        imports no model)."""
        self.scopes.index_module()
        walks = self.walk_cuts.observe()
        if orders:
            parsed.observations.extend(r for r in self.order_prompts.observe()
                                       if r.source is None or r.source.span not in self.walk_cuts.iterated)
        parsed.observations.extend(self.shell_cuts.observe())
        parsed.observations.extend(walks)
        parsed.requests.extend(registered_requests(self.tools))
        parsed.dependencies.extend(sorted(self.unit.dependencies))

    def close(self) -> None:
        """Let reference counting free this module's analysis: its parts refer to each other, to
        the unit and through it back to this analyser, so once unreachable it waited for the
        cyclic collector, was promoted to the oldest generation, and made the full collections
        that scan the whole heap (a third of the run's time on the largest projects). Called when
        nothing will ask the analysis again; the analyser is unusable after."""
        parts = [p for p in vars(self).values() if isinstance(p, Component)]
        seen = {id(p) for p in parts}  # each part is listed once: every part holds the shared ones
        while parts:
            part = parts.pop()
            for value in vars(part).values():
                if id(value) not in seen and isinstance(value, Component):
                    seen.add(id(value))
                    parts.append(value)
            vars(part).clear()
        self.unit.close()
        vars(self).clear()

    def framework_objects(self) -> None:
        """The calls that build framework objects (agents, chat models, templates)."""
        catalogue = self.unit.catalogue
        holder_names = catalogue.holders.last_names()
        template_names = catalogue.templates.last_names()
        subclasses: dict[str, bool] = {}  # the project's classes built as a library's object
        for call, scope in self.unit.calls:
            name = last_name(call.func)
            if name not in holder_names and name not in template_names:
                if not name or not name[:1].isupper() or not isinstance(call.func, ast.Name):
                    continue
                if name not in subclasses:
                    subclasses[name] = self.calls.inherited_path(name, Env(scope), 0) is not None
                if not subclasses[name]:
                    continue
            path = self.calls.path(call.func, Env(scope))
            for holder in catalogue.holders.match(path):
                assert isinstance(holder, Holder)
                # `model = ChatOpenAI(...)` then `model = ChatAnthropic(...)`: the first is never used
                if not overwritten_before_read(self.unit.parents, call):
                    self.unit.holder_calls.append((call, scope, holder))
                break
            for template in catalogue.templates.match(path):
                assert isinstance(template, TemplateKind)
                self.unit.template_calls.append((call, scope, template))
                break


def load_module(project: Project, path: Path) -> Analyzer | None:
    """Another module of ``project`` that the linted one reaches, parsed and indexed; None when
    it is too large, unreadable or not Python this interpreter (with the compatibility reader)
    can parse."""
    try:
        if path.stat().st_size > MAX_MODULE_BYTES:
            return None
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError):
        return None
    display = display_path(path)
    checked = precheck(text, display)
    if checked.tree is None:
        return None
    analyzer = Analyzer(checked.tree, checked.text, display, project.catalogue, project, path)
    analyzer.scopes.index_module()
    return analyzer
