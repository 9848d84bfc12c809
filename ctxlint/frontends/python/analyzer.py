"""The analysis of one module: its parts wired together, run in order."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.estimates import Estimates
from ctxlint.frontends.python.flow import Flow
from ctxlint.frontends.python.knowledge import prompt_path
from ctxlint.frontends.python.scopes import Scopes
from ctxlint.frontends.python.sinks import Sinks
from ctxlint.frontends.python.sources import Sources
from ctxlint.frontends.python.strings import Strings
from ctxlint.frontends.python.tools import Tools
from ctxlint.frontends.python.unit import Unit
from ctxlint.model import ParsedFile


class Analyzer:
    def __init__(self, tree: ast.Module, text: str, path: str) -> None:
        self.unit = Unit(tree, text, path)
        self.scopes = Scopes(self.unit)
        self.strings = Strings(self.unit)
        self.flow = Flow(self.unit)
        self.sources = Sources(self.unit)
        self.sinks = Sinks(self.unit)
        self.tools = Tools(self.unit)
        self.estimates = Estimates(self.unit)
        for part in (self.scopes, self.strings, self.flow, self.sources, self.sinks, self.tools, self.estimates):
            part.scopes, part.strings, part.flow, part.sources = self.scopes, self.strings, self.flow, self.sources
            part.sinks, part.tools, part.estimates = self.sinks, self.tools, self.estimates

    def run(self, parsed: ParsedFile) -> None:
        unit = self.unit
        self.scopes.index_module()
        calls = self.sinks.call_site_requests()
        used = set(unit.consumed)
        tools = self.tools.mcp_request()
        context = bool(unit.llm or calls or tools or prompt_path(unit.path))
        parsed.requests.extend(calls)
        parsed.requests.extend(self.sinks.standalone_requests(used, context))
        if tools is not None:
            parsed.requests.append(tools)
        parsed.observations.extend(unit.observations)
