"""Answers questions about a web page the customer links to (the version with the bugs)."""

import requests
from openai import OpenAI

client = OpenAI()
MAX_PAGE_CHARS = 6000


def fetch(url: str) -> str:
    resp = requests.get(url, timeout=10)
    resp.raise_for_status()
    return resp.text


def answer(url: str, question: str, history: list[dict]) -> str:
    page = fetch(url)
    excerpt = page[:MAX_PAGE_CHARS]
    system = (
        "You answer questions about the page below for Northwind Outdoor customers.\n"
        "Answer in at most four sentences.\n"
        f"Page:\n{excerpt}\nQuote it where you can."
    )
    response = client.chat.completions.create(
        model="gpt-4o",
        max_completion_tokens=500,
        messages=[
            {"role": "system", "content": system},
            *history[-10:],
            {"role": "user", "content": f"{question}\nAnswer in at most three sentences."},
        ],
    )
    return response.choices[0].message.content
