"""Research agent on Anthropic's Messages API: cached system blocks and tools."""

import json
import os
import uuid

import anthropic

client = anthropic.Anthropic()

POLICY = """You are Atlas, the research assistant of Contoso.
Cite every source you use. Never invent a citation."""

TABLES = {"papers": ["id", "title", "year"], "authors": ["id", "name"]}

SEARCH_TOOL = {
    "name": "search_papers",
    "description": "Search the paper index. Tables: " + json.dumps(TABLES),
    "input_schema": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["query"],
    },
}

TOOLS = [
    SEARCH_TOOL,
    {
        "name": "fetch_paper",
        "description": "Fetch a paper's full text by id.",
        "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "cache_control": {"type": "ephemeral"},
    },
]


def research(question: str, notes: list[str]) -> str:
    run_id = uuid.uuid4().hex
    with client.messages.stream(
        model="claude-sonnet-4-5",
        max_tokens=2048,
        system=[
            {"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral", "ttl": "1h"}},
            {"type": "text", "text": f"Run {run_id}. Reference folder: " + ", ".join(os.listdir("refs"))},
        ],
        tools=TOOLS,
        messages=[
            *[{"role": "user", "content": note} for note in notes],
            {"role": "user", "content": [{"type": "text", "text": question}]},
        ],
    ) as stream:
        return stream.get_final_text()
