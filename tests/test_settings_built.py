"""CTX201 on a request whose limit belongs in a settings object the function builds
(sinks.py, ``settings_built``): the finding names that object's construction as a step."""

from __future__ import annotations

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter

CATALOGUE = load_catalogue()

BUILT = '''\
from google import genai
from google.genai import types


def summarise(client: genai.Client, text: str) -> str:
    settings = types.GenerateContentConfig(
        temperature=0.1,
    )
    reply = client.models.generate_content(model="gemini-2.5-flash", contents=text, config=settings)
    return reply.text
'''


def test_settings_object_built_without_a_limit_is_a_step(tmp_path):
    linter = Linter(Settings(root=tmp_path), CATALOGUE, select=["CTX201"])
    (finding,) = linter.lint_text(BUILT, "summary.py", "summary.py", "python")
    assert (finding.code, finding.span.line, finding.span.column) == ("CTX201", 9, 13)
    assert finding.message.startswith("No output limit is set, so the answer may take whatever the window leaves")
    assert [(e.kind.value, e.span.line if e.span else None) for e in finding.evidence] == [("sink", 9), ("flow", 6)]
    assert finding.evidence[1].text == "`settings` is built here with no `max_output_tokens`"
