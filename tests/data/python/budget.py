"""Context budgeting helpers, with the usual shortcuts."""

import math

MAX_CONTEXT_TOKENS = 8000


def estimate_tokens(text: str) -> int:
    return len(text) // 4


def fits(prompt: str) -> bool:
    return len(prompt) / 4 < MAX_CONTEXT_TOKENS


def trim(text: str, max_tokens: int) -> str:
    return text[: max_tokens * 4]


def history_tokens(messages: list[dict]) -> int:
    prompt_tokens = math.ceil(sum(len(m["content"]) for m in messages) / 4)
    word_tokens = int(len(" ".join(m["content"] for m in messages).split()) * 1.3)
    return max(prompt_tokens, word_tokens)


def pages(items: list) -> int:
    pages = len(items) // 4
    return pages
