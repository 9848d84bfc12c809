"""Placeholders in plain-text and Markdown prompts, and what `ctxlint cost` makes of them."""

from __future__ import annotations

import pytest

from ctxlint.analysis.accounting import request_cost
from ctxlint.frontends import placeholders, text


@pytest.mark.parametrize(("source", "names"), [
    ("Hello {name}, today is {day}.", ["name", "day"]),
    ("Hello {{name}} and {{ user.email }}; {literal} braces stay.", ["name", "user.email"]),
    ("Ticket ${ticket_id} from $customer.", ["ticket_id", "customer"]),
    ("Costs $5 or $10.50; {\"json\": 1} and {} are not fields.", []),
    ("Mixed {question} and a $ dollar $amount in a format template.", ["question"]),
    ("Escaped \\{notafield} and \\$notavar.", []),
])
def test_placeholders_found_and_false_ones_left(source, names):
    assert [name for _, _, name in placeholders.find(source)] == names


def test_markdown_code_is_an_example_not_a_placeholder():
    source = "Use {tone}.\n\n```python\nprint(f\"{x}\")\n```\nInline `{y}` too. Then {question}.\n"
    assert [name for *_, name in placeholders.find(source, markdown=True)] == ["tone", "question"]
    assert [name for *_, name in placeholders.find(source, markdown=False)] == ["tone", "x", "y", "question"]


@pytest.mark.parametrize(("source", "names"), [
    ("```json\n{a}\n```\n{b}\n", ["b"]),  # a fence closes at the next bare ``` line
    ("```json\n{a}\n```json\n{b}\n", ["a", "b"]),  # never closed: not a fence
    ("~~~\n{a}\n```\n{b}\n~~~\n{c}\n", ["c"]),  # only the same three characters close it
    ("~~~\n{a}\n```\n{b}\n", ["a", "b"]),
    ("```\n{a}\n````\n{b}\n```\n{c} `{d}`\n", ["c"]),  # four backticks do not close three
    ("```\n{a}\n```\n{b}\n```\n{c}\n```\n", ["b"]),  # the closing line does not open the next
    ("```\nx `{a}` y\n```\n{b} `{c}`\n", ["b"]),  # inline code inside a fence or outside
])
def test_a_markdown_fence_runs_to_the_next_line_closing_it(source, names):
    assert [name for *_, name in placeholders.find(source, markdown=True)] == names


def test_slots_are_located_and_end_the_cacheable_prefix():
    source = "You are the support assistant for Northwind.\nCustomer: {customer}\nAnswer politely and briefly.\n"
    [request] = text.parse_file(source, "prompts/support.txt").requests
    slot = [s for s in request.segments if s.slot is not None]
    assert [(s.text, s.span.line, s.span.column, s.span.end_column) for s in slot] == [("{customer}", 2, 11, 21)]
    cost = request_cost(request, None, "gpt-4o", None)
    whole = request_cost(text.parse_file(source.replace("{customer}", "Ann"), "p.txt").requests[0], None,
                         "gpt-4o", None)
    assert cost.cacheable_prefix < cost.total_input  # the prefix stops at the placeholder
    assert whole.cacheable_prefix == whole.total_input
