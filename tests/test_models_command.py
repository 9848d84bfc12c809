"""`ctxlint models`: the model table with the source and date of every figure, and model names
in any provider's spelling."""

from __future__ import annotations

import json
import re

from ctxlint.tokens import MODELS
from ctxlint.tokens.models import FIGURES

ISSUE_FAMILIES = ["claude-3-5-sonnet", "claude-3-7-sonnet", "o3", "o4-mini", "gpt-4.1", "gpt-4.1-mini",
                  "gpt-4.1-nano", "gemini-2.5-pro", "gemini-2.5-flash"]


def test_models_lists_every_model_with_its_figures_and_where_each_was_read(project):
    result = project.run("models")
    assert result.code == 0, result.stderr
    rows = {line.split()[0]: line.split() for line in result.lines if line and not line.startswith(" ")}
    assert rows["model"][:3] == ["model", "provider", "window"]
    for info in MODELS:
        assert info.name in rows, info.name
    # The row of gpt-4.1-nano, every figure from OpenAI's own page (no † mark).
    assert rows["gpt-4.1-nano"] == ["gpt-4.1-nano", "openai", "1,047,576", "32,768", "0.10", "0.025", "0.40",
                                    "estimate"]
    assert rows["gpt-4"][5] == "none"  # no prompt caching, so no cached price to know
    assert rows["o3"][5] == "?"  # a figure not found is shown unknown, not guessed
    assert rows["claude-3-7-sonnet"][2:7] == ["200,000†", "64,000†", "3.00", "0.30", "15.00"]
    # Each model's sources: every figure, a page and the date it was read.
    sources = result.stdout.split("\nSources:\n", 1)[1]
    blocks = re.split(r"\n  (?=\S)", "\n" + sources)[1:]
    assert len(blocks) == len(MODELS)
    for block in blocks:
        lines = block.splitlines()
        named = [label for line in lines[1:] for label in line.strip().split(": ", 1)[0].split(", ")]
        assert sorted(named) == sorted(["window", "output limit", "input", "cached input", "output",
                                        "cache minimum"]), block
        assert all(re.search(r": https://\S+, read \d{4}-\d{2}(-\d{2})?$", line) for line in lines[1:]), block
    assert "claude-3-5-sonnet (also claude-3-5-sonnet-20241022" in sources and "retired 2025-10-28" in sources


def test_models_json_gives_each_figure_its_value_source_date_and_whether_the_provider_published_it(project):
    data = json.loads(project.run("models", "--output-format", "json").stdout)
    entries = {entry["name"]: entry for entry in data["models"]}
    assert set(ISSUE_FAMILIES) <= set(entries)
    for entry in entries.values():
        assert set(entry["figures"]) == set(FIGURES)
        for figure in entry["figures"].values():
            assert figure["source"].startswith("https://") and re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", figure["as_of"])
    nano = entries["gpt-4.1-nano"]["figures"]
    assert {f: (v["value"], v["provider_page"]) for f, v in nano.items() if f != "cache-min"} == {
        "window": (1_047_576, True), "max-output": (32_768, True), "input": (0.10, True),
        "cached": (0.025, True), "output": (0.40, True)}
    assert nano["input"]["source"].startswith("https://developers.openai.com/")
    # A figure read from a reseller's copy says so.
    assert entries["o3"]["figures"]["window"]["provider_page"] is False
    assert entries["claude-3-7-sonnet"]["figures"]["input"]["source"] == \
        "https://docs.anthropic.com/en/docs/about-claude/pricing"


def test_provider_prefixed_names_resolve(project):
    names = ["googleai/gemini-2.5-pro", "vertexai/gemini-2.5-flash", "vertex_ai/claude-3-7-sonnet@20250219",
             "openai/gpt-4.1-nano", "anthropic/claude-3-5-sonnet-20241022",
             "bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0",
             "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
             "openai:gpt-4o", "google-gla:gemini-2.5-pro", "azure/gpt-4.1-mini", "openrouter/openai/o4-mini"]
    result = project.run("models", *names, "--output-format", "json")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["resolved"] == {
        "googleai/gemini-2.5-pro": "gemini-2.5-pro", "vertexai/gemini-2.5-flash": "gemini-2.5-flash",
        "vertex_ai/claude-3-7-sonnet@20250219": "claude-3-7-sonnet", "openai/gpt-4.1-nano": "gpt-4.1-nano",
        "anthropic/claude-3-5-sonnet-20241022": "claude-3-5-sonnet",
        "bedrock/anthropic.claude-3-7-sonnet-20250219-v1:0": "claude-3-7-sonnet",
        "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0": "claude-sonnet-4-5", "openai:gpt-4o": "gpt-4o",
        "google-gla:gemini-2.5-pro": "gemini-2.5-pro", "azure/gpt-4.1-mini": "gpt-4.1-mini",
        "openrouter/openai/o4-mini": "o4-mini"}
    text = project.run("models", "vertex_ai/claude-3-7-sonnet@20250219")
    assert text.lines[0] == "vertex_ai/claude-3-7-sonnet@20250219: claude-3-7-sonnet"
    unknown = project.run("models", "claude-3-opus-20240229")
    assert unknown.code == 2 and unknown.stdout == ""
    assert "`claude-3-opus-20240229` is not a model ctxlint knows (the name says Claude)" in unknown.stderr


def test_a_provider_prefixed_model_in_a_request_is_priced(project):
    project.write({"review.json": json.dumps({
        "model": "vertex_ai/claude-3-7-sonnet@20250219", "max_tokens": 500,
        "messages": [{"role": "user", "content": "Review this change."}]})})
    data = json.loads(project.run("cost", "--output-format", "json").stdout)
    request = data["files"][0]["requests"][0]
    # $ per 1,000 calls at $3 per million input tokens
    assert request["model"] == "claude-3-7-sonnet" and request["price"]["input"] == 0.033, request


def test_configured_models_are_listed_as_from_the_configuration(project):
    project.write({"ctxlint.toml": '[models."acme-llm"]\nwindow = 32000\nmax-output = 4000\nprovider = "openai"\n'
                                   'input-price = 1.5\n\n[models."gpt-4o"]\ninput-price = 2.0\n'})
    data = json.loads(project.run("models", "--output-format", "json").stdout)
    entries = {entry["name"]: entry for entry in data["models"]}
    assert entries["acme-llm"]["figures"]["input"] == {"value": 1.5, "source": "config", "as_of": "",
                                                       "provider_page": False}
    assert entries["gpt-4o"]["figures"]["input"]["value"] == 2.0
    assert len(entries) == len(MODELS) + 1
