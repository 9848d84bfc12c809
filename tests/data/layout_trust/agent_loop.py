"""A ReAct-style agent on Anthropic's Messages API: tool results flow back into the prompt."""

import json

import anthropic

client = anthropic.Anthropic()
TOOLS = [
    {
        "name": "search_orders",
        "description": "Search the customer's orders by free text.",
        "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
]
HANDLERS = {"search_orders": lambda query: [{"id": "A-1", "status": "shipped"}]}


def run(question: str) -> str:
    messages = [{"role": "user", "content": question}]
    notes = ""
    while True:
        reply = client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=1024,
            system=f"You are the order agent of Northwind Outdoor. Notes so far:\n{notes}",
            tools=TOOLS,
            messages=messages,
        )
        if reply.stop_reason != "tool_use":
            return reply.content[0].text
        results = []
        for block in reply.content:
            if block.type == "tool_use":
                output = HANDLERS[block.name](**block.input)
                results.append({"type": "tool_result", "tool_use_id": block.id, "content": json.dumps(output)})
                notes += f"- {block.name}: {output}\n"
        messages.append({"role": "assistant", "content": reply.content})
        messages.append({"role": "user", "content": results})
