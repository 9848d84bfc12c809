"""Audit logging: writes one JSON line per event. Talks to no model."""

import json
import os
from datetime import datetime

AUDIT_DIR = os.environ.get("AUDIT_DIR", "/var/log/app")


def record(event: str, payload: dict) -> None:
    entry = {"at": datetime.now().isoformat(), "event": event, "payload": payload}
    with open(os.path.join(AUDIT_DIR, "audit.jsonl"), "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")


def rotated_files() -> list[str]:
    return [name for name in os.listdir(AUDIT_DIR) if name.endswith(".jsonl")]
