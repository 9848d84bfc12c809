"""Prompt constants shared by the services."""

import uuid
from datetime import date

PERSONA = "You are Nova, the travel assistant of Fabrikam."

SYSTEM_PROMPT = (
    f"{PERSONA}\n"
    "Only book flights the traveller confirmed.\n"
    "Never share passport numbers."
)

TRIAGE_TEMPLATE = """Session {session_id}
Classify the traveller's request into one of: booking, change, refund. Answer with the category name only, in lower case. A new trip is a booking; new dates, names or seats are a change; money back for a cancelled trip is a refund.
Request: {request}"""

GREETING_PROMPT = "Reference " + str(uuid.uuid4()) + ". Greet the traveller and ask how you can help, in one friendly sentence that mentions the loyalty programme."

DATE_INSTRUCTIONS = "Use ISO dates in every answer. Today is " + date.today().isoformat()

PROMPT_DIR = "prompts/"


def triage_prompt(request: str, session_id: str) -> str:
    return TRIAGE_TEMPLATE.format(request=request, session_id=session_id)
