"""What a check is given: its rule (with the user's options), a way to report and count, and the
passes over its request that the checks share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ctxlint.analysis import constraints, regions, trust
from ctxlint.analysis.delimiters import Label
from ctxlint.analysis.volatility import Volatility
from ctxlint.catalogue import Rule
from ctxlint.config import Settings
from ctxlint.directives import Directives
from ctxlint.model import Confidence, Evidence, EvidenceKind, Finding, Fix, ParsedFile, Request, Segment, Span

if TYPE_CHECKING:
    from ctxlint.analysis.accounting import ToolCost
    from ctxlint.model import ToolDef
    from ctxlint.tokens import ModelInfo


class RequestAnalysis:
    """The passes over one request that several of its checks read (its sentences, its regions,
    its labels, the slots that carry third-party content), each made once however many checks
    ask: the engine makes one per request of a file, hands it to every check of that request
    (``CheckContext.analysis``) and drops it with the file. Results are shared: a caller must
    not change them."""

    def __init__(self, request: Request, directives: Directives) -> None:
        self.request = request
        self.directives = directives
        self._done: dict[tuple, Any] = {}

    def _once(self, key: tuple, make: Callable[[], Any]) -> Any:
        if key not in self._done:
            self._done[key] = make()
        return self._done[key]

    def sentences(self) -> list[constraints.Constraint]:
        """Every sentence of static text, as a candidate constraint."""
        return self._once(("sentences",), lambda: constraints.sentences(self.request, self.directives))

    def layout(self, collections: list[str]) -> regions.Layout:
        """HEAD, MIDDLE and TAIL, with ``collections`` (a rule option) naming variable-length content."""
        return self._once(("layout", *collections),
                          lambda: regions.analyse(self.request, self.directives, collections))

    def labels(self) -> dict[int, Label]:
        """The innermost trust label around each slot that has one, by segment index."""
        return self._once(("labels",), lambda: trust.labels(self.request))

    def untrusted(self, options: trust.TrustOptions) -> list[tuple[int, Segment, trust.Untrusted]]:
        """The slots that carry third-party content, under the trust rules' ``options`` (the three
        rules ask in turn, usually with equal options)."""
        return self._once(("untrusted", options),
                          lambda: trust.untrusted_slots(self.request, options, self.directives))

    def tool_cost(self, tool: ToolDef, model: ModelInfo | None, bound: bool = False) -> ToolCost:
        """One of the request's tools measured under ``model`` (``tool_cost_breakdown``), or with
        UTF-8 bytes for tokens when ``bound``: the tool checks ask both of every tool."""
        from ctxlint.analysis.accounting import tool_cost_breakdown
        from ctxlint.analysis.budget import utf8_bytes

        return self._once(("tool cost", id(tool), model, bound),
                          lambda: tool_cost_breakdown(tool, model, count=utf8_bytes if bound else None))


class CheckContext:
    def __init__(self, rule: Rule, settings: Settings, volatility: Volatility, directives: Directives,
                 sink: Callable[[Finding], None], notice: Callable[[str], None] | None = None):
        self.rule = rule
        self.options = rule.options
        self.settings = settings
        self.volatility = volatility
        self.directives = directives  # the file's `ctxlint:` comments: pinned text, regions, trust
        self._sink = sink
        self._notice = notice
        self._encodings: dict[str | None, str] = {}  # request.model -> the encoding its tokens are counted in
        # The request being checked: findings about one made in a test function are low confidence.
        self.request: Request | None = None
        self._analysis: RequestAnalysis | None = None
        # The engine's passes over each request of the file, by the request's id: a file check that
        # walks the requests itself reads the same ones.
        self.shared: dict[int, RequestAnalysis] = {}

    def checking(self, request: Request, analysis: RequestAnalysis) -> None:
        """The request the next findings are about, with the passes over it its checks share."""
        self.request = request
        self._analysis = analysis

    @property
    def analysis(self) -> RequestAnalysis:
        """The shared passes over the request being checked: those the engine made for all its
        checks, or new ones for a caller that runs one check on its own."""
        assert self.request is not None, "a request check reads the passes over its request"
        if self._analysis is None or self._analysis.request is not self.request:
            shared = self.shared.get(id(self.request))
            self._analysis = shared if shared is not None and shared.request is self.request else \
                RequestAnalysis(self.request, self.directives)
        return self._analysis

    def notice(self, message: str) -> None:
        """Tell the user something about this file that is not a finding (a check that stopped
        at its bound of work), prefixed with the rule's code."""
        if self._notice is not None:
            self._notice(f"{self.rule.code}: {message}")

    def report(self, span: Span, message: str, fix: Fix | None = None, *, kind: str = "",
               confidence: Confidence = Confidence.HIGH, evidence: tuple[Evidence, ...] = ()) -> None:
        """Report a finding resting on evidence of ``kind``: its confidence is the one the rule's
        evidence table gives that kind. A rule with no table (a user's rule pack) reports at
        ``confidence``."""
        table = self.rule.evidence
        if table:
            spec = table.get(kind)
            if spec is None:
                raise KeyError(f"{self.rule.code} reports evidence of kind {kind!r}, which its rule file "
                               f"does not list (kinds: {', '.join(table)})")
            confidence = spec.confidence
        finding = Finding(self.rule.code, self.rule.name, self.rule.severity, span, message, fix, confidence,
                          evidence, kind)
        self._sink(in_scope(finding, "test") if self.request is not None and self.request.in_test else finding)

    def model_name(self, request: Request) -> str:
        """The request's model, the configured one, or the default the checks size windows by."""
        from ctxlint.tokens import DEFAULT_MODEL

        return request.model or self.settings.model or DEFAULT_MODEL

    def known_model(self, request: Request) -> ModelInfo | None:
        """The model whose window and output cap the request is held to: its own or the
        configured one. None when neither is known (a model given as a variable, with no
        `model` configured): checks of those numbers abstain rather than assume gpt-4o's."""
        from ctxlint import tokens

        name = request.model or self.settings.model
        return tokens.lookup_model(name, self.settings.models) if name else None

    def count_tokens(self, text: str, request: Request) -> int:
        """Exact tokens of ``text`` in the encoding of the request's model (o200k_base if unknown)."""
        from ctxlint import tokens  # the tokenizer loads only when a finding needs a count

        # The model is looked up once per model: CTX203 counts every static segment of a request.
        encoding = self._encodings.get(request.model)
        if encoding is None:
            info = tokens.lookup_model(self.model_name(request), self.settings.models)
            encoding = self._encodings[request.model] = info.encoding if info else "o200k_base"
        return tokens.count_tokens(text, encoding)


_SCOPES = {"test": "in test code, where requests are fixtures",
           "example": "in example, demo or script code, run by hand rather than for users"}


def in_scope(finding: Finding, scope: str) -> Finding:
    """A finding in test or example code is low confidence: its requests are fixtures or one-off
    scripts, made to exercise or show code, not code that runs for users."""
    if finding.scope != "code":
        return finding
    step = Evidence(EvidenceKind.SINK, _SCOPES[scope], None, strong=False)
    return replace(finding, confidence=Confidence.LOW, evidence=(*finding.evidence, step), scope=scope)


def in_main_block(finding: Finding, parsed: ParsedFile) -> Finding:
    """A finding in a package module's ``if __name__ == "__main__":`` block is example code: the
    block is a self-test someone runs by hand (``python -m pkg.module``), never what runs when the
    application imports the module."""
    block = parsed.run_by_hand
    if block is None or finding.span.path != parsed.path or not block[0] <= finding.span.line <= block[1]:
        return finding
    step = Evidence(EvidenceKind.SINK, f"in the `if __name__ == \"__main__\":` block (line {block[0]}) of a module "
                    "of a package: it runs only when the module is run by hand, not when the application imports "
                    "it", Span.point(parsed.path, block[0]), strong=False)
    return replace(finding, confidence=Confidence.LOW, evidence=(*finding.evidence, step), scope="example")


def in_function(finding: Finding, parsed: ParsedFile) -> Finding:
    """The finding with the function it is in, when that function (of ``parsed.named_functions``)
    is reached only by a call of its name: the run then asks whether any file calls it
    (``filters.uncalled``). Only a finding that is reported by default is asked about."""
    if finding.span.path != parsed.path or finding.confidence.rank < Confidence.MEDIUM.rank:
        return finding
    inner = None
    for function in parsed.named_functions:
        if function.line <= finding.span.line <= function.end_line and (inner is None or function.line > inner.line):
            inner = function
    if inner is not None and parsed.run_by_hand is not None:
        inner = replace(inner, by_hand=parsed.run_by_hand)
    return replace(finding, function=inner) if inner is not None else finding

