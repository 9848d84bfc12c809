"""Templates linked to the Python code that renders them: each slot takes the facts of the value
passed at its render sites (frontends/rendered.py, frontends/python/renders.py)."""

from __future__ import annotations

from pathlib import Path

from ctxlint.frontends import ParseContext, parse
from ctxlint.model import SourceKind

SERVICE = '''\
import datetime

import requests
from jinja2 import Environment, FileSystemLoader

env = Environment(loader=FileSystemLoader("prompts"))
TEMPLATE = "answer.j2"


def page_of(url: str) -> str:
    return requests.get(url, timeout=10).text


def build(url: str, question: str) -> str:
    template = env.get_template(TEMPLATE)
    return template.render(page=page_of(url), question=question, today=datetime.date.today(),
                           rules="Answer in English.")
'''

TEMPLATE = """\
Rules: {{ rules }}
Today is {{ today }}.
{% for hit in page %}{{ hit }}{% endfor %}
Question: {{ question }}
"""


def slots_of(root: Path, relpath: str, text: str, fmt: str = "jinja") -> dict:
    parsed = parse(fmt, text, relpath, ParseContext(root, relpath))
    return {segment.text: (segment, parsed) for request in parsed.requests for segment in request.segments
            if segment.slot is not None}


def test_a_slot_takes_the_source_of_the_value_passed(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "service.py").write_text(SERVICE, encoding="utf-8")
    slots = slots_of(tmp_path, "prompts/answer.j2", TEMPLATE)
    hit, parsed = slots["hit"]
    (source,) = hit.slot.sources  # an item of the collection passed as `page`
    assert source.kind is SourceKind.UNTRUSTED and source.strong
    assert source.detail.startswith("requests.get(...).text in ") and source.detail.endswith("service.py:11")
    assert source.flow[-1].text.startswith("passed as `page` where the template is rendered, ")
    assert (source.flow[-1].span.line, source.flow[-1].span.column) == (16, 33)
    assert parsed.dependencies == [str(tmp_path / "app" / "service.py")]
    # A call made where it is rendered (a clock) is the slot's call.
    assert "datetime.date.today" in slots["today"][0].slot.calls
    # The project's own text, whatever the slot is called, says nothing about content.
    assert slots["rules"][0].slot.names == ()
    # A value with no known source keeps its name and nothing more.
    assert slots["question"][0].slot.sources == () and slots["question"][0].slot.names == ("question",)


def test_a_template_no_code_renders_keeps_its_own_facts(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "service.py").write_text(SERVICE.replace('"answer.j2"', '"other.j2"'), encoding="utf-8")
    slots = slots_of(tmp_path, "prompts/answer.j2", TEMPLATE)
    assert all(not segment.slot.sources and not segment.slot.calls for segment, _ in slots.values())
    assert slots["rules"][0].slot.names == ("rules",)


def test_a_dotprompt_called_by_name_with_a_dict(tmp_path):
    (tmp_path / "flows.py").write_text(
        "import httpx\n\n\nasync def summarise(ai, url):\n    prompt = ai.prompt('summarise')\n"
        "    page = httpx.get(url).text\n    return await prompt({'text': page})\n", encoding="utf-8")
    text = "---\nmodel: googleai/gemini-2.5-flash\n---\n{{role \"user\"}}\nSummarise: {{text}}\n"
    slots = slots_of(tmp_path, "prompts/summarise.prompt", text, fmt="dotprompt")
    (source,) = slots["text"][0].slot.sources
    assert source.detail.startswith("httpx.get(...).text")


TRIAGE = '''\
from openai import OpenAI

client = OpenAI()


def load(name):
    with open("prompts/" + name, encoding="utf-8") as handle:
        return handle.read()


def triage(ticket_text, note):
    prompt = load("triage.txt")
    prompt = prompt.replace("{ticket}", ticket_text)
    prompt = prompt.replace("Northwind", note)
    messages = [{"role": "system", "content": prompt}]
    return client.chat.completions.create(model="gpt-4o", max_tokens=200, messages=messages)
'''


def test_a_placeholder_replaced_in_a_loaded_text_prompt_and_the_role_it_is_sent_in(tmp_path):
    (tmp_path / "triage.py").write_text(TRIAGE, encoding="utf-8")
    text = "Sort the Northwind ticket:\n{ticket}\nReply with one queue.\n"
    relpath = "prompts/triage.txt"
    parsed = parse("text", text, relpath, ParseContext(tmp_path, relpath))
    (request,) = parsed.requests
    # The code sends the filled text as its system message: the template takes that role.
    assert request.roles_marked and {segment.role.value for segment in request.segments} == {"system"}
    assert request.sent_at.path.endswith("triage.py") and request.sent_at.line == 15
    (ticket,) = [segment for segment in request.segments if segment.slot is not None]
    # A plain text replacement ("Northwind") fills no variable; the placeholder's value is located.
    assert ticket.text == "{ticket}" and (ticket.slot.passed_at.line, ticket.slot.passed_at.column) == (13, 41)


def test_a_template_named_by_its_stem_from_the_module_beside_its_folder(tmp_path):
    (tmp_path / "metric").mkdir()
    (tmp_path / "metric" / "grader.py").write_text(
        "import httpx\n\n\nclass Grader:\n    def run(self, url):\n        page = httpx.get(url).text\n"
        "        return self._prompt('summarise', page=page)\n", encoding="utf-8")
    (tmp_path / "other").mkdir()  # the same stem from a module elsewhere is another template's
    (tmp_path / "other" / "grader.py").write_text(
        "def run(self, notes):\n    return self._prompt('summarise', page=notes)\n", encoding="utf-8")
    slots = slots_of(tmp_path, "metric/prompts/summarise.txt", "Summarise:\n{page}\n", fmt="text")
    segment, parsed = slots["{page}"]
    (source,) = segment.slot.sources
    assert source.detail.startswith("httpx.get(...).text") and segment.slot.passed_at.line == 7
    assert parsed.dependencies == [str(tmp_path / "metric" / "grader.py")]


def test_a_text_file_in_a_templates_folder_is_a_prompt_only_when_code_fills_it(tmp_path):
    from ctxlint.config import Settings, apply_table
    from ctxlint.frontends import format_for, linked_only

    settings = Settings(root=tmp_path)
    assert format_for("evals/templates/grade.txt", settings) == "text"
    assert linked_only("evals/templates/grade.txt", settings)
    assert not linked_only("evals/prompts/grade.txt", settings)  # a prompt folder's file is one anyway
    assert format_for("evals/notes/grade.txt", settings) is None
    apply_table(settings, {"formats": {"extend-text": ["**/templates/*.txt"]}}, tmp_path / "ctxlint.toml")
    assert not linked_only("evals/templates/grade.txt", settings)  # the user said so: linted as it is

    text = "Grade the page.\n{{ page }}\nReply with a score.\n"
    (tmp_path / "evals" / "templates").mkdir(parents=True)
    context = ParseContext(tmp_path, "evals/templates/grade.txt", linked_only=True)
    assert parse("text", text, "evals/templates/grade.txt", context).requests == []
    (tmp_path / "evals" / "grader.py").write_text(
        "def grade(self, notes):\n    return self._prompt('grade', page=notes)\n", encoding="utf-8")
    (request,) = parse("text", text, "evals/templates/grade.txt", context).requests
    assert [s.slot.passed_at.line for s in request.segments if s.slot] == [2]


LOADER = '''\
from jinja2 import Environment, FileSystemLoader


class PromptEngine:
    def __init__(self, model: str):
        self.env = Environment(loader=FileSystemLoader("prompts"))
        self.model = model

    def load_prompt(self, name: str, **values) -> str:
        return self.env.get_template(f"{self.model}/{name}.j2").render(**values)


engine = PromptEngine("default")
'''

MAIL = '''\
from app.prompting import engine

BODY_LIMIT = 4000


def match_prompt(criteria: str, body: str) -> str:
    return engine.load_prompt("match-email", criteria=criteria, body=body[:BODY_LIMIT])
'''


def test_a_cut_passed_to_a_loader_that_names_the_template_by_its_stem(tmp_path):
    # `load_prompt("match-email", ...)` fills prompts/default/match-email.j2: the cut made where
    # it is called is a fact of the slot, located at the cut, with the call as a step.
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "prompting.py").write_text(LOADER, encoding="utf-8")
    (tmp_path / "app" / "mail.py").write_text(MAIL, encoding="utf-8")
    slots = slots_of(tmp_path, "prompts/default/match-email.j2", "Criteria: {{ criteria }}\nBody:\n{{ body }}\n")
    body, parsed = slots["body"]
    (cut,) = body.slot.sources
    assert cut.kind is SourceKind.TRUNCATION
    assert cut.span.path.endswith("app/mail.py") and (cut.span.line, cut.span.column) == (7, 70)
    assert cut.flow[-1].text.startswith("passed as `body` where the template is rendered, ")
    assert parsed.dependencies == [str(tmp_path / "app" / "mail.py")]

    # The same stem in a call not named for a prompt is no render site.
    other = tmp_path / "other"
    (other / "app").mkdir(parents=True)
    (other / "app" / "prompting.py").write_text(LOADER, encoding="utf-8")
    (other / "app" / "mail.py").write_text(MAIL.replace("engine.load_prompt", "engine.record"), encoding="utf-8")
    assert not slots_of(other, "prompts/default/match-email.j2", "{{ body }}\n")["body"][0].slot.sources
