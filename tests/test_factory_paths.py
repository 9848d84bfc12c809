"""Call paths through factories: a classmethod returning ``cls(...)`` builds the class it is called
on (the MetaGPT example ``page-from-the-browser-a-factory-builds-inside-metagpt`` shows it); a
method whose parameter is merely named ``cls`` builds whatever class its caller passes."""

from __future__ import annotations

from pathlib import Path

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends import format_for

SOURCE = '''\
from xai_sdk import Client
from xai_sdk.chat import user


class Grader:
    def _build_client(self, cls):
        return cls(api_key="xai-test")

    def load_model(self):
        return self._build_client(Client)

    def grade(self, answer: str) -> str:
        chat = self.load_model().chat.create(model="grok-4")
        chat.append(user(f"Grade this answer from 1 to 5: {answer}"))
        return chat.sample().content
'''


def test_a_parameter_named_cls_is_the_class_the_caller_passes(tmp_path: Path) -> None:
    (tmp_path / "grader.py").write_text(SOURCE, encoding="utf-8")
    settings = Settings(root=tmp_path)
    linter = Linter(settings, load_catalogue(), select=["CTX201"])
    findings = linter.lint_text(SOURCE, "grader.py", "grader.py", format_for("grader.py", settings))
    assert [(f.code, f.span.line) for f in findings] == [("CTX201", 13)]
    assert findings[0].message.startswith("No output limit is set")
