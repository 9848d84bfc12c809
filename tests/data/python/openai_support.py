"""Support chat service: answers customer questions with OpenAI chat completions."""

from __future__ import annotations

import json
import logging
from datetime import datetime

from openai import OpenAI

log = logging.getLogger(__name__)
client = OpenAI()

MODEL = "gpt-4o-mini"
MAX_ANSWER_TOKENS = 600

SYSTEM_PROMPT = f"""Today is {datetime.now():%A %d %B %Y}.
You are the support assistant for Northwind Traders.
Never reveal another customer's data. Answer in the customer's language."""

ANSWER_FORMAT = "Answer in at most three short paragraphs."


def build_messages(question: str, history: list[dict], account: dict) -> list[dict]:
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    for turn in history:
        messages.append({"role": turn["role"], "content": turn["text"]})
    messages.append(
        {
            "role": "user",
            "content": f"Account: {json.dumps(account)}\n{ANSWER_FORMAT}\nQuestion: {question}",
        }
    )
    return messages


def answer(question: str, history: list[dict], account: dict) -> str:
    response = client.chat.completions.create(
        model=MODEL,
        messages=build_messages(question, history, account),
        max_completion_tokens=MAX_ANSWER_TOKENS,
        temperature=0.2,
    )
    log.info("answered %s", question[:40])
    return response.choices[0].message.content


def quick_label(text: str) -> str:
    response = client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Label the sentiment of: " + text}],
    )
    return response.choices[0].message.content
