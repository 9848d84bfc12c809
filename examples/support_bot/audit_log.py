"""Audit trail for support actions. Writes JSON lines; never talks to a model."""

import json
from datetime import datetime


def record(action: str, **details) -> str:
    line = json.dumps({"at": datetime.now().isoformat(), "action": action, **details})
    with open("audit.log", "a", encoding="utf-8") as log:
        log.write(line + "\n")
    return line
