"""Work per call site: a module of many call sites that share one client and build their
prompts the same way looks each name up a bounded number of times per site."""

from __future__ import annotations

import pytest

from ctxlint.frontends import python
from ctxlint.frontends.python.scopes import Scopes


def _call_sites(count: int) -> str:
    head = "from openai import OpenAI\nimport requests\n\nclient = OpenAI()\n\n"
    return head + "".join(
        f"def answer_{i}(question, url):\n"
        f"    page = requests.get(url, timeout=5).text\n"
        f'    system = "You are the support assistant for team {i}."\n'
        f"    return client.chat.completions.create(\n"
        f'        model="gpt-4o", max_tokens=400,\n'
        f'        messages=[{{"role": "system", "content": system + "<page>" + page + "</page>"}},\n'
        f'                  {{"role": "user", "content": question}}])\n\n'
        for i in range(count))


def test_each_name_of_a_call_site_is_looked_up_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch):
    sites = 300
    lookups = 0
    real = Scopes.binding

    def counted(self: Scopes, *args: object, **kwargs: object) -> object:
        nonlocal lookups
        lookups += 1
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Scopes, "binding", counted)
    parsed = python.parse_file(_call_sites(sites), "service.py")
    assert len(parsed.requests) == sites
    assert all(any(s.slot and s.slot.sources for s in r.segments) for r in parsed.requests)  # the page is still seen
    # Five names per site (client, page, system, question, url), each looked up in its own
    # function once; the analysis asked over 30 times per site when every part looked again.
    assert lookups <= 12 * sites
