"""A tool list copied from a set into an attribute (toolorder.py): reported only when some reader
of that attribute in the project keeps the copy's order; a reader that puts it through `set()`
again is itself what is reported, and the copy's order never reaches the model."""

from __future__ import annotations

from pathlib import Path

from projects import check_json

SUPPORT = '''\
from agents.registry import Registry


class SupportAgent:
    def __init__(self, config):
        self.config = config
        self.registry = Registry()
        self._tools = []
        self.register()

    def register(self):
        if not self.config.enabled_tools:
            return
        for name in READ:
            if tool := self.registry.build(name):
                self._tools.append(tool)
        return self._tools
'''

ESCALATION = '''\
from copy import copy

from agents.support import SupportAgent


def escalate(agent):
    config = copy(agent.config)
    config.enabled_tools = list(set(["handoff", "ticket"] + list(agent.config.enabled_tools)))
    return SupportAgent(config)
'''

REGISTRY = '''\
class Registry:
    def build(self, name):
        return {"name": name}
'''


def _project(root: Path, read: str) -> list[tuple[str, int]]:
    (root / "agents").mkdir()
    (root / "agents" / "__init__.py").write_text("")
    (root / "agents" / "registry.py").write_text(REGISTRY)
    (root / "agents" / "support.py").write_text(SUPPORT.replace("READ", read))
    (root / "agents" / "escalation.py").write_text(ESCALATION)
    (root / "main.py").write_text("from agents.escalation import escalate\nfrom agents.support import SupportAgent\n\n"
                                  "print(escalate(SupportAgent(object())))\n")
    found = [f for f in check_json(root, ".", "CTX104") if f["kind"] == "tool-order"]
    return sorted((f["path"], f["line"]) for f in found)


def test_a_copy_every_reader_puts_through_a_set_again_is_not_reported(tmp_path: Path):
    # The reader in the other module is what decides the order the model sees.
    assert _project(tmp_path, "set(self.config.enabled_tools)") == [("agents/support.py", 14)]


def test_a_copy_a_reader_keeps_in_its_order_is_reported(tmp_path: Path):
    assert _project(tmp_path, "self.config.enabled_tools") == [("agents/escalation.py", 8)]
