"""The Northwind order agent: one OpenAI call per step, with the tools in tools.json."""

import json
from datetime import datetime
from pathlib import Path

from openai import OpenAI

client = OpenAI()
TOOLS = json.loads(Path(__file__).with_name("tools.json").read_text())
STORE_POLICY = {"returns_days": 30, "free_shipping_over_eur": 50, "currency": "EUR"}
CATEGORIES = {"tents", "sleeping bags", "backpacks", "boots", "jackets", "stoves"}

SYSTEM_PROMPT = f"""Today is {datetime.now():%A %d %B %Y}.
You are the order agent for Northwind Outdoor. You can look up orders, refund them, search the
catalogue, find stores and change delivery addresses with the tools provided.
Categories we sell: {", ".join(CATEGORIES)}.
Store policy: {json.dumps(STORE_POLICY)}
Never issue a refund before lookup_order has confirmed the order is eligible.
"""


def estimate_tokens(text: str) -> int:
    return len(text) // 4


def step(history: list[dict], question: str):
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, *history, {"role": "user", "content": question}]
    if estimate_tokens(SYSTEM_PROMPT + question) > 100_000:
        raise ValueError("conversation too long")
    return client.chat.completions.create(model="gpt-4o", messages=messages, tools=TOOLS)
