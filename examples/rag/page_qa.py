"""Answers questions about a product page a customer links to."""

import anthropic
import requests

client = anthropic.Anthropic()


def answer(url: str, question: str) -> str:
    page = requests.get(url, timeout=10).text
    response = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=600,
        system=f"You answer questions about this product page:\n{page[:6000]}",
        messages=[{"role": "user", "content": question}],
    )
    return response.content[0].text
