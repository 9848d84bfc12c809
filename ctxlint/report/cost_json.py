"""`ctxlint cost --format json`: a stable, documented structure for scripts and dashboards.

Version 1. Keys are never renamed or removed within a version; new keys may be added. Token
counts are integers, shares fractions (0.25 = 25%), prices US dollars per 1,000 calls (null
when the model or its price is unknown). Counts with ``"exact": false`` are estimates made with
``encoding``; ``note`` says why.

```
{
  "version": 1,
  "files": [{
    "path": "prompts/agent.json",          # as given on the command line, relative to the cwd
    "tokens": 1234,                        # input tokens of its requests
    "errors": ["3:5: message"],            # parse errors that left part of it uncounted
    "requests": [{
      "line": 1, "model": "gpt-4o", "encoding": "o200k_base", "exact": true, "note": "",
      "tokens": {"tools": 900, "system": 300, "messages": 31, "other": 3, "input": 1234, "reserve": 1024},
      "window": 128000, "window_share": 0.0176,   # (input + reserve) / window; null if unknown
      "cacheable_prefix": 1234,
      "price_per_1k_calls": 5.33, "price_per_1k_calls_cached": 3.79,
      "delta": 120,                        # with --compare: input tokens since the ref (null: new)
      "tools": [{                          # most expensive first
        "name": "search", "tokens": 412, "share": 0.46,   # share of the request's tool tokens
        "biggest_field": "description", "biggest_field_tokens": 250,
        "line": 3, "column": 5,
        "delta": 40                        # with --compare (null: new tool)
      }]
    }]
  }],
  "totals": {"files", "requests", "tools", "input_tokens", "tool_tokens", "reserve",
             "price_per_1k_calls", "price_per_1k_calls_cached", "unpriced_requests", "estimated_requests"},
  "models": [{"name", "provider", "window", "max_output", "encoding", "exact", "cache_min_tokens",
              "input_per_mtok", "output_per_mtok", "cached_input_per_mtok", "cache_write_multiplier",
              "source", "as_of"}],         # the model table entries used, with where they came from
  "comparison": null | {
    "ref": "origin/main", "commit": "<sha>" | null,
    "before": 5000, "after": 5250, "delta": 250, "percent": 5.0 | null,
    "files": [{"path", "status", "before", "after", "delta",      # only what changed
               "requests": [{"index", "line", "status", "before", "after", "delta",
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

from ctxlint.cost import Comparison, CostReport, other_tokens

VERSION = 1


def as_dict(report: CostReport) -> dict:
    comparison = report.comparison
    files = []
    for f in report.files:
        requests = []
        for index, r in enumerate(f.requests):
            change = comparison.request(f.path, index) if comparison is not None else None
            tool_deltas: dict[str, int | None] = {}
            if change is not None:
                for tc in change.tools:
                    tool_deltas.setdefault(tc.name, None if tc.before is None else tc.delta)
            request = {
                "line": r.line,
                "model": r.model,
                "encoding": r.encoding,
                "exact": r.exact,
                "note": r.note,
                "tokens": {"tools": r.tools, "system": r.system, "messages": r.messages, "other": other_tokens(r),
                           "input": r.total_input, "reserve": r.reserve},
                "window": r.window,
                "window_share": _round(r.window_share, 6),
                "cacheable_prefix": r.cacheable_prefix,
                "price_per_1k_calls": _round(r.price_per_1k_calls, 6),
                "price_per_1k_calls_cached": _round(r.price_per_1k_calls_cached, 6),
                "tools": [],
            }
            if comparison is not None:
                request["delta"] = None if change is None or change.before is None else change.delta
            for c in sorted(r.tool_costs, key=lambda c: (-c.tokens, c.name)):
                tool = {"name": c.name, "tokens": c.tokens, "share": _round(c.share, 6),
                        "biggest_field": c.biggest_field, "biggest_field_tokens": c.biggest_field_tokens,
                        "line": c.span.line, "column": c.span.column}
                if comparison is not None:
                    tool["delta"] = tool_deltas.get(c.name, 0)
                request["tools"].append(tool)
            requests.append(request)
        files.append({"path": f.path, "tokens": f.tokens, "errors": list(f.errors), "requests": requests})
    t = report.totals
    limits: dict = {"max-increase": None if report.increase is None else _increase(report)}
    limits.update(report.limits)
    return {
        "version": VERSION,
        "files": files,
        "totals": {
            "files": t.files, "requests": t.requests, "tools": t.tools, "input_tokens": t.input_tokens,
            "tool_tokens": t.tool_tokens, "reserve": t.reserve,
            "price_per_1k_calls": _round(t.price_per_1k_calls, 6),
            "price_per_1k_calls_cached": _round(t.price_per_1k_calls_cached, 6),
            "unpriced_requests": t.unpriced_requests, "estimated_requests": t.estimated_requests,
        },
        "models": [{
            "name": m.name, "provider": m.provider, "window": m.window, "max_output": m.max_output,
            "encoding": m.encoding, "exact": m.exact, "cache_min_tokens": m.cache_min_tokens,
            "input_per_mtok": m.input_per_mtok, "output_per_mtok": m.output_per_mtok,
            "cached_input_per_mtok": m.cached_input_per_mtok, "cache_write_multiplier": m.cache_write_multiplier,
            "source": m.source, "as_of": m.as_of,
        } for m in report.models],
        "comparison": None if comparison is None else _comparison(comparison),
        "limits": limits,
        "violations": [{"limit": v.limit, "message": v.message, "path": v.path, "line": v.line}
                       for v in report.violations],
        "passed": report.passed,
    }


def _comparison(c: Comparison) -> dict:
    return {
        "ref": c.ref,
        "commit": c.commit,
        "before": c.before,
        "after": c.after,
        "delta": c.delta,
        "percent": _round(c.percent, 4),
        "files": [{
            "path": f.path, "status": f.status, "before": f.before, "after": f.after, "delta": f.delta,
            "requests": [{
                "index": r.index, "line": r.line, "status": r.status, "before": r.before, "after": r.after,
                "delta": r.delta,
                "tools": [{"name": t.name, "status": t.status, "before": t.before, "after": t.after,
                           "delta": t.delta} for t in r.changed_tools],
            } for r in f.requests if r.status != "unchanged"],
        } for f in c.changed],
    }


def _increase(report: CostReport) -> str:
    inc = report.increase
    return f"{inc.value:g}%" if inc.percent else f"{int(inc.value)}"


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def render(report: CostReport) -> str:
    return json.dumps(as_dict(report), indent=2, ensure_ascii=False) + "\n"
