"""Layout, trust and truncation rules (CTX205, CTX301-303, CTX401-403) on realistic files of
every format, and the Python data flow behind them: where untrusted content and cut text come
from, and what is not either."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends import format_for, python
from ctxlint.model import Role, SourceKind

DATA = Path(__file__).parent / "data" / "layout_trust"
CODES = ["CTX205", "CTX301", "CTX302", "CTX303", "CTX401", "CTX402", "CTX403"]
CATALOGUE = load_catalogue()


def findings(name: str, select=CODES) -> list[tuple[int, int, str]]:
    settings = Settings(root=DATA)
    linter = Linter(settings, CATALOGUE, select=list(select))
    found = linter.lint_text((DATA / name).read_text(encoding="utf-8"), name, name, format_for(name, settings))
    return sorted((f.span.line, f.span.column, f.code) for f in found)


# Every format: a file with the mistakes, and the same prompt done right.
EXPECTED = {
    # Jinja (a bare template: its role is decided by the code that sends it, so no CTX402)
    "rag_answer.j2": [
        (5, 11, "CTX303"),  # the question before the document loop
        (9, 1, "CTX403"),  # inside <document> but not escaped
        (11, 1, "CTX301"),  # a rule repeated inside the loop
    ],
    "rag_answer_clean.j2": [],
    # Prompty
    "research.prompty": [
        (21, 39, "CTX402"),  # search results in the system role
        (21, 39, "CTX403"),  # ... tagged but not escaped
        (26, 1, "CTX302"),  # "at most three sources" restated as "four"
    ],
    "research_clean.prompty": [],
    # Dotprompt (compiled with noEscape: {{this}} is raw)
    "answer.prompt": [
        (14, 1, "CTX401"),  # the page, unlabelled ...
        (14, 1, "CTX402"),  # ... in the system role
        (17, 11, "CTX303"),  # the question before {{#each docs}}
        (19, 26, "CTX403"),  # <document>{{this}}</document>
    ],
    "answer_clean.prompt": [],
    # Request files
    "agent_request.json": [
        (5, 107, "CTX401"),  # retrieved documents pasted into the system prompt ...
        (5, 107, "CTX402"),
        (6, 93, "CTX301"),  # a rule inside the history loop
        (7, 52, "CTX401"),  # the latest tool output, unlabelled, in a user message
    ],
    "agent_request_clean.yaml": [],  # the rule restated after the documents; a tool message needs no tags
    # Python
    "rag_service.py": [
        (22, 18, "CTX401"),  # the fetched page (requests.get(...).text, through fetch()) ...
        (22, 18, "CTX402"),  # ... raw in the system prompt
        (30, 55, "CTX302"),  # "at most four sentences" restated as "three"
    ],
    "rag_service_fixed.py": [],  # <untrusted_document> + html.escape in the user turn, marked cut
    "agent_loop.py": [
        (36, 44, "CTX401"),  # a tool's result appended to notes that go into the system prompt
        (36, 44, "CTX402"),
    ],
    "mcp_server.py": [
        (16, 53, "CTX401"),  # fetched help text in a tool description
        (16, 53, "CTX402"),
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_findings_per_file(name):
    assert findings(name) == EXPECTED[name]


def test_every_format_has_a_file_with_findings_and_a_clean_one():
    settings = Settings(root=DATA)
    by_format: dict[str, set[bool]] = {}
    for name, expected in EXPECTED.items():
        by_format.setdefault(format_for(name, settings), set()).add(bool(expected))
    assert set(by_format) == {"jinja", "prompty", "dotprompt", "structured", "python"}
    assert all(kinds == {True, False} for kinds in by_format.values()), by_format
    assert sorted(p.name for p in DATA.iterdir()) == sorted(EXPECTED)


def test_messages_name_the_source_and_the_place():
    settings = Settings(root=DATA, confidence="low")  # a plain cut is low confidence (measured: 5 of 10 right)
    linter = Linter(settings, CATALOGUE, select=["CTX402", "CTX205"])
    text = (DATA / "rag_service.py").read_text()
    messages = {f.code: f.message for f in linter.lint_text(text, "rag_service.py", "rag_service.py", "python")}
    assert messages["CTX402"].startswith(
        "`excerpt` carries untrusted content (requests.get(...).text, line 13) in the system role")
    assert messages["CTX205"].startswith("`page[:MAX_PAGE_CHARS]` cuts the text to its first 6,000 characters and leaves nothing")
    text = (DATA / "mcp_server.py").read_text()
    (message,) = [f.message for f in linter.lint_text(text, "mcp_server.py", "mcp_server.py", "python")]
    assert "(httpx.get(...).text, line 8) in a tool description" in message


# ---- Python data flow: untrusted content ---------------------------------------------------------


def untrusted(source: str) -> dict[str, str | None]:
    """Each slot of the module's requests, by its text: the detail of its untrusted source."""
    parsed = python.parse_file(source, "service.py")
    assert parsed.errors == []
    found = {}
    for request in parsed.requests:
        for segment in request.slots():
            details = [s.detail for s in segment.slot.sources if s.kind is SourceKind.UNTRUSTED]
            found[segment.text] = details[0] if details else None
    return found


CALL = '''
    return client.chat.completions.create(model="gpt-4o", max_completion_tokens=300,
                                          messages=[{"role": "user", "content": prompt}])
'''


def test_http_response_bodies_through_locals_clients_and_context_managers():
    source = '''import httpx, requests, aiohttp, urllib.request
from openai import AsyncOpenAI
client = AsyncOpenAI()

async def ask(url):
    resp = requests.get(url)
    body = resp.text
    data = requests.post(url, json={}).json()
    async with httpx.AsyncClient() as http:
        page = (await http.get(url)).content
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as r:
            html = await r.text()
    raw = urllib.request.urlopen(url).read().decode()
    status = resp.status_code
    prompt = f"{body}{data['items']}{page}{html}{raw}{status}{len(body)}"
''' + CALL
    assert untrusted(source) == {
        "body": "requests.get(...).text",
        "data['items']": "requests.post(...).json()",
        "page": "httpx.AsyncClient().get(...).content",
        "html": "aiohttp.ClientSession().get(...).text()",
        "raw": "urlopen(...).read()",
        "status": None,  # about the response, not its content
        "len(body)": None,  # a measure of the content
    }


def test_files_uploads_and_emails_but_not_the_repositorys_own_prompt_files():
    source = '''import email
from pathlib import Path
from flask import request
from fastapi import UploadFile
from openai import OpenAI
client = OpenAI()
PROMPTS = Path(__file__).parent / "prompts"
RULES = (PROMPTS / "rules.md").read_text()

def load_prompt(name):
    return (PROMPTS / f"{name}.md").read_text()

async def ask(path, upload: UploadFile, raw_mail):
    with open(path) as f:
        contract = f.read()
    notes = Path(path).read_text()
    attached = request.files["doc"].read()
    uploaded = await upload.read()
    mail = email.message_from_string(raw_mail)
    body = mail.get_payload()
    style = open("prompts/style.txt").read()
    system = load_prompt("system")
    prompt = f"{contract}{notes}{attached}{uploaded}{body}{RULES}{style}{system}"
''' + CALL
    assert untrusted(source) == {
        "contract": "open(...).read()",
        "notes": "Path(...).read_text()",
        "attached": "request.files[...]",
        "uploaded": "UploadFile.read()",
        "body": "email.message_from_string(...).get_payload()",
        "RULES": None,  # files of the repository: paths from literals and __file__
        "style": None,
        "system": None,
    }


def test_tool_results_from_runners_dispatch_tables_and_tool_messages():
    source = '''from openai import OpenAI
client = OpenAI()
available_functions = {}

def step(session, name, args, call, messages, tools_by_name):
    observation = run_tool(name, args)
    chained = tools_by_name[name].invoke(args)
    direct = available_functions[name](**args)
    mcp_result = session.call_tool(name, args)
    sent = fetch_from_somewhere()
    messages.append({"role": "tool", "tool_call_id": call.id, "content": sent})
    answer = client.chat.completions.create(model="gpt-4o", messages=messages).choices[0].message.content
    prompt = f"{observation}{chained}{direct}{mcp_result.content[0].text}{sent}{answer}"
''' + CALL
    found = untrusted(source)
    assert found["observation"] == "a tool result (run_tool(...))"
    assert found["chained"] == "a tool result (tools_by_name[...].invoke(...))"
    assert found["direct"] == "a tool result (available_functions[...](...))"
    assert found["mcp_result.content[0].text"] == "a tool result (session.call_tool(...))"
    assert found["sent"] == "a tool result"  # what the module sends as a tool message
    assert found["answer"] is None  # the model's own answer, whatever it was shown


def test_tool_results_appended_after_the_call_reach_it_on_the_next_turn():
    (request,) = python.parse_file((DATA / "agent_loop.py").read_text(), "agent_loop.py").requests
    tool = [s for s in request.segments if s.role is Role.TOOL]
    assert [(s.text, s.span.line, s.loop) for s in tool] == [("json.dumps(output)", 35, "reply.content")]
    # What the code sends as a tool result is known from the message it is sent in (strong); the
    # dispatch table it came from says so only by its name (weak), and is kept as the weaker lead.
    found = [(s.detail, s.span.line, s.span.column, s.strong) for s in tool[0].slot.sources
             if s.kind is SourceKind.UNTRUSTED]
    assert found == [("a tool result", 35, 103, True), ("a tool result (HANDLERS[...](...))", 34, 26, False)]


def test_a_prompt_constants_role_is_known_only_when_its_name_says_it():
    source = '''import requests
SUMMARY_PROMPT = f"Summarise: {requests.get('https://example.com').text}"
SYSTEM_PROMPT = f"Context: {requests.get('https://example.com').text}"
'''
    summary, system = python.parse_file(source, "prompts.py").requests
    assert not summary.roles_marked and system.roles_marked


# ---- Python data flow: truncation ----------------------------------------------------------------


def cuts(source: str) -> list[tuple[int, int, str]]:
    """CTX205's findings: the cuts with no marker after them, where each cut is made."""
    linter = Linter(Settings(root=DATA, confidence="low"), CATALOGUE, select=["CTX205"])
    found = linter.lint_text(source, "service.py", "service.py", "python")
    return sorted((f.span.line, f.span.column, f.message.split("`")[1]) for f in found)


def test_string_slices_are_cuts_list_slices_short_prefixes_and_marked_cuts_are_not():
    source = '''import html, textwrap
from openai import OpenAI
client = OpenAI()
LIMIT = 4000

def ask(text: str, history, docs, results: list[str], sha: str, n: int):
    a = text[:LIMIT]
    b = html.escape(text[:n] + "… [truncated]")
    c = textwrap.shorten(text, width=300, placeholder="")
    d = textwrap.shorten(text, width=300)
    prompt = (f"{a}{b}{c}{d}{text[0:500]}{history[-10:]}{docs[:5]}{results[:3]}{sha[:8]}{text[:-1]}"
              f"{text[:200]}… [cut]")
''' + CALL
    assert cuts(source) == [
        (7, 9, "text[:LIMIT]"),
        (9, 9, 'textwrap.shorten(text, width=300, placeholder="")'),
        (11, 30, "text[0:500]"),
    ]
