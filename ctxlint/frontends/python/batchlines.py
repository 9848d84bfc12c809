"""A request written as a line of a batch job: OpenAI's Batch API takes a file of lines
``{"custom_id": ..., "method": "POST", "url": "/v1/chat/completions", "body": {...}}`` and runs
each body as the request it is, as written. The code builds the line as a dict and never calls the
API with it; the body's keys are the request's settings, and a body with no output limit sends
none, for every line of the batch."""

from __future__ import annotations

import ast

from ctxlint.frontends.python.limitplaces import written_dict
from ctxlint.frontends.python.nodes import function_of, walk
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env, in_method
from ctxlint.model import Evidence, EvidenceKind, Request
from ctxlint.providers import BATCH_ENDPOINTS, BATCH_LINE_KEYS, LIMIT_KEYS

# The kind of evidence of a batch line's body with no limit (rules/**/CTX201).
BATCH_LINE = "batch-line"


def batch_requests(unit: Unit) -> list[Request]:
    """The lines of a batch job the module writes as dicts (every key written out, the url a
    literal naming an endpoint of the Batch API) whose body is a request of that endpoint's shape
    the code shows whole, with no output limit."""
    if "custom_id" not in unit.text:
        return []
    scopes = {id(scope.node): scope for scope in unit.all_scopes()}
    found = []
    for node in walk(unit.tree):
        if not isinstance(node, ast.Dict) or None in node.keys:
            continue
        keys = {k.value: v for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        if not BATCH_LINE_KEYS <= keys.keys():
            continue
        around = function_of(node, unit.parents)
        scope = scopes.get(id(around)) if around is not None else unit.module_scope
        if scope is None:
            continue
        env = Env(scope)
        url = unit.analyzer.flow.literal_str(keys["url"], env)
        shape = BATCH_ENDPOINTS.get(url or "")
        entries, _ = unit.analyzer.spreads.entries(keys["body"], env)
        if shape is None or entries is None or not shape.request_keys & entries.keys() or "model" not in entries \
                or any(key in entries for key in LIMIT_KEYS):
            continue
        model = unit.analyzer.flow.literal_str(entries["model"][0], entries["model"][1])
        line = f"a line of a batch job for `{url}` whose body sets no output limit"
        steps: tuple[Evidence, ...] = (Evidence(EvidenceKind.SOURCE, line, unit.span(node)),)
        body = keys["body"]
        if (written := written_dict(unit.analyzer.scopes, body, env, enclosing=True)) is not None:
            steps += (Evidence(EvidenceKind.FLOW, f"the body `{written[0]}` is written here with no output limit",
                               unit.span(written[1])),)
        found.append(Request(path=unit.path, anchor=unit.span(body), model=model, declares_settings=True,
                             settings_hint=f"`{shape.limit_keys[0]}` in the batch line's body",
                             in_method=in_method(scope), reserve_kind=BATCH_LINE, reserve_evidence=steps,
                             api=shape.name, provider="openai"))
    return found
