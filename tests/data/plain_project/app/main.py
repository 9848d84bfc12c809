"""The support assistant's command line: `python -m app.main triage "My parcel is late"`."""

import sys

from app.agent import answer, plan, summarise, triage

COMMANDS = {"answer": answer, "triage": triage, "plan": plan, "summarise": summarise}

if __name__ == "__main__":
    print(COMMANDS[sys.argv[1]](sys.argv[2]))
