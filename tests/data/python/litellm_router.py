"""Route summaries through LiteLLM so the provider can change by configuration."""

import time

from litellm import completion

SUMMARY_INSTRUCTIONS = "Summarise the ticket in two sentences. Do not include names."


def summarise(ticket: str, model: str = "gpt-4o") -> str:
    started = time.time()
    response = completion(
        model,
        [
            {"role": "system", "content": SUMMARY_INSTRUCTIONS},
            {"role": "user", "content": "Ticket:\n{ticket}\nSubmitted at {ts}".format(ticket=ticket, ts=started)},
        ],
        max_tokens=200,
    )
    return response.choices[0].message.content


def summarise_with(params: dict, ticket: str) -> str:
    return completion(messages=[{"role": "user", "content": ticket}], **params).choices[0].message.content
