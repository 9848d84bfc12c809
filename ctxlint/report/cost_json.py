"""`ctxlint cost --format json`: a stable, documented structure for scripts and dashboards.

Version 2. Keys are never renamed or removed within a version; new keys may be added. Token
counts are integers, shares fractions (0.25 = 25%), prices US dollars per 1,000 calls (null
when the model or its price is unknown). A count with ``"exact": false`` is an estimate and
``basis`` says on what it rests (codes explained in the top-level ``basis``); an exact count
reproduces published API counts.

```
{
  "version": 2,
  "files": [{
    "path": "prompts/agent.json",          # as given on the command line, relative to the cwd
    "tokens": 1234,                        # input tokens of its requests
    "errors": ["3:5: message"],            # parse errors that left part of it uncounted
    "set_aside": null | "test data or fixtures",   # why it is not in the totals
    "requests": [{
      "line": 1, "model": "gpt-4o", "model_known": true, "provider": "openai", "encoding": "o200k_base",
      "exact": true, "basis": ["openai-chat", "openai-functions"], "note": "",
      "lower_bound": false,                # the request sends values ctxlint cannot read: counts are at least
      "unseen": ["tools from `json.load(f)`"],   # what those values are
      "tokens": {"tools": 900, "system": 300, "messages": 28, "other": 6, "input": 1234, "reserve": 1024},
      "unpriced": ["web_search (hosted tool)"],   # sent but not counted
      "window": 128000, "window_share": 0.0176,   # (input + reserve) / window; null if unknown
      "cacheable_prefix": 1234,            # tokens before the first value that changes per call
      "price": {
        "input": 3.09,                     # the headline: 1,000 calls' input
        "cached_input": 2.29 | null,       # with prompt caching; null where it does not apply
        "cached_tokens": 1152, "cache_note": "" | "no cache_control breakpoint",
        "output_bound": 10.24, "output_bound_tokens": 1024, "output_bound_from": "max_tokens" | "model maximum",
        "expected_output": 4.0 | null, "expected_output_tokens": 400 | null
      },
      "delta": 120,                        # with --compare: input tokens since the ref (null: new)
      "tools": [{                          # most expensive first
        "name": "search", "tokens": 412, "share": 0.46,   # share of the request's tool tokens
        "biggest_field": "description", "biggest_field_tokens": 250,
        "line": 3, "column": 5,
        "delta": 40                        # with --compare (null: new tool)
      }],
      "what_if": [{...}]                   # with --model A,B: the same fields under each model, in order
    }]
  }],
  "totals": {"files", "requests", "tools", "input_tokens", "tool_tokens", "reserve", "input_price",
             "cached_price", "output_bound", "expected_output", "unpriced_requests", "estimated_requests",
             "lower_bound_requests"},
  "what_if": [{"model": "gpt-4o", "totals": {...}}],   # with --model A,B; else []
  "set_aside": {"included": false, "files": [{"path", "reason", "requests", "tokens"}]},
  "basis": {"openai-chat": "what the code means", ...},   # every code used above
  "models": [{"name", "provider", "window", "max_output", "encoding", "exact", "cache_min_tokens",
              "input_per_mtok", "output_per_mtok", "cached_input_per_mtok", "cache_write_multiplier",
              "source", "as_of"}],         # the model table entries used, with where they came from
  "comparison": null | {
    "ref": "origin/main", "commit": "<sha>" | null,
    "before": 5000, "after": 5250, "delta": 250, "percent": 5.0 | null,
    "price_before": 12.5 | null, "price_after": 13.1 | null, "price_delta": 0.6 | null,  # input $ per 1,000 calls
    "files": [{"path", "status", "before", "after", "delta", "price_delta",      # only what changed
               "requests": [{"index", "line", "status", "before", "after", "delta", "price_delta",
                             "tools": [{"name", "status", "before", "after", "delta"}]}]}]
  },                                       # status: added | removed | changed | unchanged
  "limits": {"max-increase": "10%" | "500" | null,   # the limits checked, named as the user sets them:
             "max-request-tokens": 8000, ...},       # --max-increase, and [tool.ctxlint.cost] keys
  "violations": [{"limit": "max-tool-tokens", "message", "path", "line"}],   # path/line null for max-increase
  "passed": true
}
```
"""

from __future__ import annotations

import json

from ctxlint.analysis.accounting import BASIS, RequestCost
from ctxlint.cost import Comparison, CostReport, Totals
from ctxlint.report.attributes import attributes

VERSION = 2


def request_dict(r: RequestCost) -> dict:
    """One request's costs under one model."""
    p = r.pricing
    return {
        "line": r.line,
        "model": r.model,
        "model_known": r.model_known,
        "provider": r.provider,
        "encoding": r.encoding,
        "exact": r.exact,
        "basis": list(r.basis),
        "note": r.note,
        "lower_bound": r.lower_bound,
        "unseen": list(r.unseen),
        "tokens": {"tools": r.tools, "system": r.system, "messages": r.messages, "other": r.other,
                   "input": r.total_input, "reserve": r.reserve},
        "unpriced": list(r.unpriced),
        "window": r.window,
        "window_share": _round(r.window_share, 6),
        "cacheable_prefix": r.cacheable_prefix,
        "price": {
            "input": _round(p.input, 6),
            "cached_input": _round(p.cached_input, 6),
            "cached_tokens": p.cached_tokens,
            "cache_note": p.cache_note,
            "output_bound": _round(p.output_bound, 6),
            "output_bound_tokens": p.output_bound_tokens,
            "output_bound_from": p.output_bound_from,
            "expected_output": _round(p.expected_output, 6),
            "expected_output_tokens": p.expected_output_tokens,
        },
        "tools": [{"name": c.name, "tokens": c.tokens, "share": _round(c.share, 6),
                   "biggest_field": c.biggest_field, "biggest_field_tokens": c.biggest_field_tokens,
                   "line": c.span.line, "column": c.span.column}
                  for c in sorted(r.tool_costs, key=lambda c: (-c.tokens, c.name))],
    }


def as_dict(report: CostReport) -> dict:
    comparison = report.comparison
    files = []
    used: set[str] = set()
    for f in report.files:
        requests = []
        for index, r in enumerate(f.requests):
            request = request_dict(r)
            used.update(r.basis)
            change = comparison.request(f.path, index) if comparison is not None and not f.set_aside else None
            if comparison is not None:
                request["delta"] = None if change is None or change.before is None else change.delta
                deltas: dict[str, int | None] = {}
                for tc in change.tools if change is not None else ():
                    deltas.setdefault(tc.name, None if tc.before is None else tc.delta)
                for tool in request["tools"]:
                    tool["delta"] = deltas.get(tool["name"], 0)
            if f.what_if:
                request["what_if"] = [request_dict(c) for c in f.what_if[index]]
                used.update(code for c in f.what_if[index] for code in c.basis)
            requests.append(request)
        files.append({"path": f.path, "tokens": f.tokens, "errors": list(f.errors),
                      "set_aside": f.set_aside or None, "requests": requests})
    limits: dict = {"max-increase": None if report.increase is None else _increase(report)}
    limits.update(report.limits)
    return {
        "version": VERSION,
        "files": files,
        "totals": _totals(report.totals),
        "what_if": [{"model": model, "totals": _totals(report.totals_for(i))}
                    for i, model in enumerate(report.what_if)],
        "set_aside": {"included": report.include_set_aside,
                      "files": [{"path": f.path, "reason": f.set_aside, "requests": len(f.requests), "tokens": f.tokens}
                                for f in report.files if f.set_aside]},
        "basis": {code: BASIS.get(code, code) for code in sorted(used)},
        "models": [attributes(m, "name", "provider", "window", "max_output", "encoding", "exact", "cache_min_tokens",
                              "input_per_mtok", "output_per_mtok", "cached_input_per_mtok", "cache_write_multiplier",
                              "source", "as_of") for m in report.models],
        "comparison": None if comparison is None else _comparison(comparison),
        "limits": limits,
        "violations": [{"limit": v.limit, "message": v.message, "path": v.path, "line": v.line}
                       for v in report.violations],
        "passed": report.passed,
    }


def _totals(t: Totals) -> dict:
    return {
        **attributes(t, "files", "requests", "tools", "input_tokens", "tool_tokens", "reserve"),
        "input_price": _round(t.input_price, 6), "cached_price": _round(t.cached_price, 6),
        "output_bound": _round(t.output_bound, 6), "expected_output": _round(t.expected_output, 6),
        **attributes(t, "unpriced_requests", "estimated_requests", "lower_bound_requests"),
    }


def _comparison(c: Comparison) -> dict:
    return {
        **attributes(c, "ref", "commit", "before", "after", "delta"),
        "percent": _round(c.percent, 4),
        "price_before": _round(c.price_before, 6),
        "price_after": _round(c.price_after, 6),
        "price_delta": _round(c.price_delta, 6),
        "files": [{
            **attributes(f, "path", "status", "before", "after", "delta"),
            "price_delta": _round(f.price_delta, 6),
            "requests": [{
                **attributes(r, "index", "line", "status", "before", "after", "delta"),
                "price_delta": _round(r.price_delta, 6),
                "tools": [attributes(t, "name", "status", "before", "after", "delta") for t in r.changed_tools],
            } for r in f.requests if r.status != "unchanged"],
        } for f in c.changed],
    }


def _increase(report: CostReport) -> str:
    inc = report.increase
    assert inc is not None
    return f"{inc.value:g}%" if inc.percent else f"{int(inc.value)}"


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def render(report: CostReport) -> str:
    return json.dumps(as_dict(report), indent=2, ensure_ascii=False) + "\n"
