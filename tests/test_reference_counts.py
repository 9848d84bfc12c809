"""ctxlint's counts against published API counts (tests/reference/counts.json).

Each entry is a request as its source published it, with the input tokens the provider's API
counted for it. A count ctxlint labels exact must equal the published count; an estimate must
stay within the entry's bound. The label itself is part of the entry, so a change that widens
or narrows what ctxlint calls exact shows up here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlint.analysis.accounting import request_cost
from ctxlint.frontends.structured import parse_file

TABLE = json.loads((Path(__file__).parent / "reference" / "counts.json").read_text(encoding="utf-8"))["counts"]


def test_the_table_has_at_least_fifty_sourced_counts():
    assert len(TABLE) >= 50
    assert len({entry["id"] for entry in TABLE}) == len(TABLE)
    for entry in TABLE:
        assert entry["source"].startswith("https://"), entry["id"]
        assert isinstance(entry["count"], int) and entry["count"] > 0, entry["id"]
        assert entry["label"] in ("exact", "estimate"), entry["id"]
        assert ("bound" in entry) == (entry["label"] == "estimate"), entry["id"]
    providers = {entry["request"]["model"].split("-")[0] for entry in TABLE}
    assert {"gpt", "claude", "gemini"} <= providers


@pytest.mark.parametrize("entry", TABLE, ids=[entry["id"] for entry in TABLE])
def test_published_count(entry):
    parsed = parse_file(json.dumps(entry["request"], indent=2), "request.json")
    assert not parsed.errors and len(parsed.requests) == 1
    cost = request_cost(parsed.requests[0], None, None, None)
    assert ("exact" if cost.exact else "estimate") == entry["label"], cost.basis
    if cost.exact:
        assert cost.total_input == entry["count"]
    else:
        bound = max(entry["bound"]["tokens"], entry["bound"]["percent"] * entry["count"] / 100)
        assert abs(cost.total_input - entry["count"]) <= bound, (cost.total_input, entry["count"], bound)
        assert cost.basis and any(code not in ("openai-chat", "openai-functions", "openai-images")
                                  for code in cost.basis)
