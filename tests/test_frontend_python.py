"""The Python front-end turns real-looking modules into the shared model: call sites, prompt
constants and MCP tools become requests with exact spans, slot facts and data-flow sources."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends import python
from ctxlint.frontends.python.nodes import generic_alias
from ctxlint.model import Role, SourceKind

DATA = Path(__file__).parent / "data" / "python"


def parse(name: str):
    return python.parse_file((DATA / name).read_text(encoding="utf-8"), name)


def parse_text(source: str, name: str = "module.py"):
    return python.parse_file(source, name)


def source_at(text: str, span) -> str:
    """The source text a span covers (spans are 1-based, end column exclusive)."""
    lines = text.split("\n")
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]
    middle = lines[span.line : span.end_line - 1]
    first, last = lines[span.line - 1][span.column - 1 :], lines[span.end_line - 1][: span.end_column - 1]
    return "\n".join([first, *middle, last])


def slots(request):
    return [(s.role, s.span.line, s.span.column, s.text) for s in request.slots()]


def lint(source: str, name: str = "module.py", select=("ALL",), confidence: str = "medium"):
    linter = Linter(Settings(root=Path("."), confidence=confidence), load_catalogue(), select=list(select))
    return linter.lint_text(source, name, name, "python")


# ---- OpenAI chat service -------------------------------------------------------------------


def test_openai_call_site_with_constant_system_prompt_and_history():
    parsed = parse("openai_support.py")
    assert parsed.errors == []
    answer, _ = parsed.requests  # the prompt constants reach call sites: no request of their own
    assert (answer.anchor.line, answer.anchor.column) == (38, 16)
    assert answer.model == "gpt-4o-mini"  # resolved through the MODEL constant
    assert answer.declares_settings and answer.settings_hint == "`max_completion_tokens=`"
    assert (answer.output_limit.key, answer.output_limit.value) == ("max_completion_tokens", 600)
    assert answer.output_limit.span.line == 41
    # The system message is SYSTEM_PROMPT, with the constant's own spans (line 17, not 25).
    roles = [(s.role, s.message_index) for s in answer.segments]
    assert roles[:3] == [(Role.SYSTEM, 0)] * 3
    clock = answer.segments[1]
    assert (clock.span.line, clock.span.column, clock.text) == (17, 30, "datetime.now()")
    assert clock.slot.calls == ("datetime.datetime.now",)
    assert answer.segments[2].text.startswith(".\nYou are the support assistant for Northwind Traders.")


def test_history_appended_in_a_loop_is_variable_length_and_user_text_is_split_exactly():
    answer = parse("openai_support.py").requests[0]
    history = [s for s in answer.segments if s.loop]
    assert [(s.role, s.message_index, s.loop, s.text) for s in history] == [
        (Role.USER, 1, "history", 'turn["text"]')]
    assert history[0].slot.variable_length and history[0].slot.names == ("turn.text",)
    last = [s for s in answer.segments if s.message_index == 2]
    assert [(s.span.line, s.span.column, s.text) for s in last] == [
        (31, 26, "Account: "),
        (31, 35, "json.dumps(account)"),
        (31, 56, "\n"),
        (21, 18, "Answer in at most three short paragraphs."),  # ANSWER_FORMAT inlined, inside its quotes
        (31, 73, "\nQuestion: "),
        (31, 85, "question"),
    ]


def test_json_dumps_source_carries_an_exact_fix():
    text = (DATA / "openai_support.py").read_text()
    answer = python.parse_file(text, "openai_support.py").requests[0]
    (dumps,) = [s for s in answer.slots() if s.slot.sources]
    (source,) = dumps.slot.sources
    assert source.kind is SourceKind.UNSORTED_SERIALIZATION and source.detail == "json.dumps"
    assert source_at(text, source.span) == "json.dumps(account)"
    assert source.fix.span == source.span
    assert source.fix.replacement == "json.dumps(account, sort_keys=True)"


def test_call_without_limit_is_a_request_that_declares_settings():
    label = parse("openai_support.py").requests[1]
    assert label.output_limit is None and label.declares_settings
    assert slots(label) == [(Role.USER, 51, 76, "text")]


# ---- Anthropic agent ----------------------------------------------------------------------------


def test_anthropic_system_blocks_tools_and_breakpoints():
    parsed = parse("anthropic_agent.py")
    (request,) = parsed.requests
    assert request.model == "claude-sonnet-4-5" and request.settings_hint == "`max_tokens=`"
    assert (request.output_limit.key, request.output_limit.value) == ("max_tokens", 2048)
    assert [t.name for t in request.tools] == ["search_papers", "fetch_paper"]
    search, fetch = request.tools
    assert (search.span.line, search.span.column) == (16, 15)  # the SEARCH_TOOL literal itself
    assert search.schema["required"] == ["query"]
    assert search.raw is None  # its description is computed: not knowable statically
    assert search.description == "Search the paper index. Tables: {json.dumps(TABLES)}"
    assert fetch.raw["name"] == "fetch_paper" and fetch.raw["cache_control"] == {"type": "ephemeral"}
    # Request order: tools (the description's slot), then system, then messages.
    assert [s.role for s in request.segments] == [Role.TOOLS] + [Role.SYSTEM] * 5 + [Role.USER] * 2
    tool_slot = request.segments[0]
    assert tool_slot.slot.sources == ()  # a dict literal: json.dumps keeps the order the code writes
    policy = request.segments[1]
    assert policy.text.startswith("You are Atlas") and policy.span.line == 11
    # A breakpoint on a tool covers no segment; one on a system block covers up to that block.
    tool_bp, system_bp = request.breakpoints
    assert (tool_bp.span.line, tool_bp.covers, tool_bp.ttl) == (32, 0, None)
    assert (system_bp.span.line, system_bp.covers, system_bp.ttl) == (43, 2, "1h")


def test_anthropic_slot_facts_follow_locals_and_record_unordered_listings():
    (request,) = parse("anthropic_agent.py").requests
    by_text = {s.text: s for s in request.slots()}
    run_id = by_text["run_id"]
    assert run_id.slot.calls == ("uuid.uuid4",)  # through `run_id = uuid.uuid4().hex`
    listing = by_text['", ".join(os.listdir("refs"))']
    (source,) = listing.slot.sources
    assert (source.kind, source.detail, source.span.line, source.span.column) == (
        SourceKind.UNORDERED_ITERATION, "os.listdir", 44, 86)
    notes = by_text["note"]
    assert notes.loop == "notes" and notes.slot.variable_length and notes.message_index == 1
    assert by_text["question"].message_index == 2


# ---- LiteLLM -------------------------------------------------------------------------------------------


def test_litellm_positional_arguments_and_format_fields():
    summarise, with_params = parse("litellm_router.py").requests
    assert summarise.settings_hint == "`max_tokens=`" and summarise.output_limit.value == 200
    assert summarise.model is None  # a parameter
    system, *user = summarise.segments
    assert (system.role, system.text) == (Role.SYSTEM, "Summarise the ticket in two sentences. Do not include names.")
    assert [(s.span.line, s.span.column, s.text) for s in user] == [
        (16, 42, "Ticket:\n"), (16, 51, "ticket"), (16, 59, "\nSubmitted at "), (16, 74, "ts")]
    stamp = user[-1].slot
    assert stamp.names == ("started",) and stamp.calls == ("time.time",)
    # `**params` may carry the limit: no CTX201 for it.
    assert not with_params.declares_settings and with_params.output_limit is None


# ---- MCP servers -----------------------------------------------------------------------------------------


def test_mcp_lowlevel_tools_are_one_request_of_tools():
    (request,) = parse("mcp_lowlevel_server.py").requests
    assert not request.declares_settings
    assert [t.name for t in request.tools] == ["lookup_stock", "export_report"]
    lookup, export = request.tools
    assert (request.anchor.line, request.anchor.column) == (16, 9)
    assert lookup.raw == {
        "name": "lookup_stock",
        "description": "Look up stock levels for a SKU.",
        "inputSchema": {"type": "object",
                        "properties": {"sku": {"type": "string", "description": "Stock keeping unit"}},
                        "required": ["sku"]},
    }
    assert export.raw is None and export.schema == {"type": "object", "properties": {}}
    (description_slot,) = request.segments
    assert description_slot.role is Role.TOOLS and description_slot.text == "json.dumps(FIELDS)"


def test_fastmcp_schema_comes_from_the_signature_like_pydantic():
    (request,) = parse("fastmcp_server.py").requests
    find, book = request.tools
    assert (find.name, find.span.line, find.span.column) == ("find_slots", 12, 5)
    assert find.description == "Find free meeting slots shared by all attendees."
    assert find.schema == {
        "properties": {
            "attendees": {"items": {"type": "string"}, "title": "Attendees", "type": "array"},
            "duration_minutes": {"default": 30, "title": "Duration Minutes", "type": "integer"},
            "timezone": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Timezone"},
        },
        "required": ["attendees"],  # the Context parameter is injected, never shown
        "title": "find_slotsArguments",
        "type": "object",
    }
    assert find.raw == {"name": "find_slots", "description": find.description, "inputSchema": find.schema}
    assert book.name == "book-meeting" and book.description == "Book a meeting in a free slot."
    props = book.schema["properties"]
    assert props["title"]["description"] == "Shown in every invitation"
    assert props["visibility"] == {"default": "private", "enum": ["public", "private"], "title": "Visibility",
                                   "type": "string"}
    assert book.schema["required"] == ["slot", "title"]


# ---- prompt modules ------------------------------------------------------------------------------------


def test_prompt_constants_become_system_requests_unless_another_includes_them():
    parsed = parse("prompts.py")
    anchors = [(r.anchor.line, r.anchor.column) for r in parsed.requests]
    # SYSTEM_PROMPT (includes PERSONA), GREETING_PROMPT, DATE_INSTRUCTIONS, triage_prompt()
    # (fills TRIAGE_TEMPLATE); PERSONA, TRIAGE_TEMPLATE and PROMPT_DIR have no request.
    assert anchors == [(8, 1), (18, 1), (20, 1), (25, 5)]
    assert all(not r.declares_settings for r in parsed.requests)
    system = parsed.requests[0]
    assert {s.role for s in system.segments} == {Role.SYSTEM}
    assert system.segments[0].text == "You are Nova, the travel assistant of Fabrikam."
    assert system.segments[0].span.line == 6  # PERSONA's own line
    greeting = parsed.requests[1]
    assert slots(greeting) == [(Role.SYSTEM, 18, 34, "str(uuid.uuid4())")]
    triage = parsed.requests[3]
    # The template's fields are slots at their exact place in the template.
    assert slots(triage) == [(Role.SYSTEM, 14, 30, "session_id"), (Role.SYSTEM, 16, 10, "request")]


def test_weak_prompt_names_need_a_sign_of_llm_use():
    text = '''HTML_TEMPLATE = "<h1>{title}</h1><p>Generated on {date}</p>"
CONFIRM_PROMPT = "Delete {count} files? [y/N] "
UNSUPPORTED_SYSTEM_MESSAGE = "Only Ubuntu and Windows Server are supported."
'''
    assert parse_text(text, "cli.py").requests == []  # templates, terminal prompts: not LLM prompts
    assert len(parse_text(text, "app/prompts.py").requests) == 3  # kept where prompts live
    assert len(parse_text("import anthropic\n" + text, "cli.py").requests) == 3  # or beside an LLM import
    # Names only prompts carry need nothing else.
    (request,) = parse_text('SYSTEM_PROMPT = "You are the release assistant."\n', "cli.py").requests
    assert request.segments[0].role is Role.SYSTEM


def test_mcp_prompts_are_user_messages():
    text = '''from mcp.server.fastmcp import FastMCP
mcp = FastMCP("review")

@mcp.prompt()
def review_code(code: str) -> str:
    return f"Please review this code:\\n\\n{code}"
'''
    (request,) = parse_text(text, "server.py").requests
    assert [(s.role, s.text) for s in request.segments] == [(Role.USER, "Please review this code:\n\n"),
                                                            (Role.USER, "code")]


def test_audit_logger_gives_no_request_and_no_finding():
    text = (DATA / "audit_log.py").read_text()
    assert not python.might_hold_prompts(text)  # skipped before it is even parsed
    assert python.parse_file(text, "audit_log.py").requests == []
    assert lint(text, "audit_log.py") == []


def test_token_estimates_are_observed_only_where_they_count_tokens():
    parsed = parse("budget.py")
    assert parsed.requests == []
    assert [(o.span.line, o.span.column, o.detail) for o in parsed.observations] == [
        (9, 12, "len(text) // 4"),
        (13, 12, "len(prompt) / 4"),
        (17, 19, "max_tokens * 4"),
        (21, 21, 'math.ceil(sum(len(m["content"]) for m in messages) / 4)'),
        (22, 19, 'int(len(" ".join(m["content"] for m in messages).split()) * 1.3)'),
    ]  # and not `pages = len(items) // 4`
    assert {o.kind for o in parsed.observations} == {"char-token-estimate"}


# ---- smaller cases ---------------------------------------------------------------------------------------


def test_format_and_percent_fields_are_slots_and_constants_are_inlined():
    text = '''import openai
TEMPLATE = "You help {company} customers.\\nRules: {rules}\\nReply in {lang}."

def ask(q, rules):
    system = TEMPLATE.format(company="Northwind", rules=rules, lang=pick_language())
    return openai.chat.completions.create(
        model="gpt-4o", max_completion_tokens=100,
        messages=[{"role": "system", "content": system},
                  {"role": "user", "content": "Q: %s (priority %d)" % (q, 2)}])
'''
    (request,) = parse_text(text).requests
    # Each segment spans exactly its part of the template: static text, `{field}` or `%s`.
    assert [(s.span.line, s.text, s.slot is not None, source_at(text, s.span)) for s in request.segments] == [
        (2, "You help ", False, "You help "),
        (2, "Northwind", False, "{company}"),  # a constant argument is static text, spanning its field
        (2, " customers.\nRules: ", False, " customers.\\nRules: "),
        (2, "rules", True, "{rules}"),
        (2, "\nReply in ", False, "\\nReply in "),
        (2, "lang", True, "{lang}"),
        (2, ".", False, "."),
        (9, "Q: ", False, "Q: "),
        (9, "q", True, "%s"),
        (9, " (priority ", False, " (priority "),
        (9, "2", False, "%d"),
        (9, ")", False, ")"),
    ]
    assert (request.segments[3].span.column, request.segments[3].span.end_column) == (51, 58)
    lang = request.segments[5]
    assert lang.slot.calls == ("pick_language",)
    assert source_at(text, lang.span) == "{lang}"


def test_imports_qualify_calls_and_functions_inline_their_return_value():
    text = '''from datetime import datetime as dt
import time, uuid as u

def stamp():
    return dt.now().strftime("%H:%M")

def system_prompt(user):
    return f"[{stamp()} {time.time()} {u.uuid4()}] Hello {user.name}. Be brief."
'''
    (request,) = parse_text(text).requests
    assert request.anchor.line == 7
    first = request.slots()[0]
    # through the function's body; the format says how finely the clock is read
    assert first.slot.calls == ("stamp", "strftime('%H:%M')", "datetime.datetime.now")
    assert [s.slot.calls for s in request.slots()[1:3]] == [("time.time",), ("uuid.uuid4",)]
    assert request.slots()[3].slot.names == ("user.name",)


def test_attributes_of_imported_objects_are_names_but_modules_are_not():
    text = '''import datetime
from flask import request
SYSTEM_PROMPT = f"Request {request.id} at {datetime.datetime.now()} for {request.args.get('user')}. Be brief."
'''
    (request,) = parse_text(text).requests
    assert [(s.slot.names, s.slot.calls) for s in request.slots()] == [
        (("request.id",), ()),
        ((), ("datetime.datetime.now",)),
        (("request.args",), ("flask.request.args.get",)),
    ]


def test_self_attributes_responses_api_and_dedent():
    text = '''import textwrap
class Agent:
    def __init__(self, client):
        self.client = client
        self.instructions = textwrap.dedent(f"""
            You are the scheduling agent.
            Today is {today()}.
            """)

    def run(self, question):
        return self.client.responses.create(
            model="gpt-4.1",
            instructions=self.instructions,
            input=[{"role": "user", "content": [{"type": "input_text", "text": question}]}],
            max_output_tokens=300,
        )
'''
    (request,) = parse_text(text).requests
    assert request.settings_hint == "`max_output_tokens=`" and request.output_limit.value == 300
    assert [(s.role, s.message_index, s.text) for s in request.segments] == [
        (Role.SYSTEM, 0, "\nYou are the scheduling agent.\nToday is "),
        (Role.SYSTEM, 0, "today()"),
        (Role.SYSTEM, 0, ".\n"),
        (Role.USER, 1, "question"),
    ]


def test_unordered_sources_and_what_clears_them():
    text = '''import os, glob
ENABLED = {"search", "mail"}
SYSTEM_PROMPT = (
    "Tools: " + ", ".join(ENABLED) + "\\n"
    + "Files: " + ", ".join(sorted(glob.glob("*.md"))) + "\\n"
    + f"Count: {len(ENABLED)}. Listing: {os.listdir('.')}\\n"
    + "Follow the rules."
)
'''
    (request,) = parse_text(text).requests
    sources = [(x.detail, x.span.line, x.span.column) for s in request.slots() for x in s.slot.sources]
    assert sources == [("set", 4, 27), ("os.listdir", 6, 42)]


def test_tools_from_a_comprehension_over_a_set_keep_their_order_source():
    text = '''from openai import OpenAI
client = OpenAI()
TOOLS = {"a": {"type": "function", "function": {"name": "a"}}}
def run(enabled: set[str], messages):
    return client.chat.completions.create(model="gpt-4o", max_completion_tokens=10,
        tools=[TOOLS[n] for n in enabled], messages=messages)
'''
    (request,) = parse_text(text).requests
    assert request.tools == ()
    tools_slot, history = request.segments
    assert tools_slot.role is Role.TOOLS and tools_slot.loop == "enabled"
    assert [(x.detail, x.span.line, x.span.column) for x in tools_slot.slot.sources] == [("set", 6, 34)]
    assert history.role is Role.USER and history.slot.variable_length and history.text == "messages"


def test_serialization_precision():
    text = '''import json
def build_prompt(question: str, payload, items):
    return (f"Q: {json.dumps(question)} P: {json.dumps(payload, sort_keys=True)} "
            f"I: {json.dumps(['a', 'b'])} K: {json.dumps(payload, **opts)} X: {json.dumps(items, sort_keys=False)}"
            "Answer briefly.")
'''
    (request,) = parse_text(text, "prompts.py").requests
    sources = [x for s in request.slots() for x in s.slot.sources]
    assert [(x.span.line, x.fix.description, x.fix.replacement) for x in sources] == [
        (4, "set sort_keys=True", "json.dumps(items, sort_keys=True)")]


def test_fix_keeps_the_layout_of_a_multiline_call():
    text = '''import json
def system_prompt(rules):
    return f"""Rules:
    {json.dumps(
        rules,
        indent=2,
    )}
    Follow them."""
'''
    (request,) = parse_text(text).requests
    (source,) = [x for s in request.slots() for x in s.slot.sources]
    assert source_at(text, source.span) == "json.dumps(\n        rules,\n        indent=2,\n    )"
    assert source.fix.replacement == "json.dumps(\n        rules,\n        indent=2,\n        sort_keys=True,\n    )"
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    a = starts[source.span.line - 1] + source.span.column - 1
    b = starts[source.span.end_line - 1] + source.span.end_column - 1
    fixed = text[:a] + source.fix.replacement + text[b:]
    again = parse_text(fixed).requests[0]
    assert not [x for s in again.slots() for x in s.slot.sources]  # idempotent


def test_non_llm_calls_named_like_llm_calls_are_not_requests():
    text = '''from twilio.rest import Client
SYSTEM_STATUS = 3
def notify(client: Client, to):
    client.messages.create(to=to, from_="+100", body="Your order shipped.")
    client.beta.threads.messages.create("thread", role="user", content="hi")
'''
    assert parse_text(text).requests == []


def test_standalone_message_lists_and_system_dicts():
    text = '''def build(question, history):
    return [
        {"role": "system", "content": "You are the librarian. Never invent titles."},
        *history,
        {"role": "user", "content": question},
    ]
'''
    (request,) = parse_text(text).requests
    assert not request.declares_settings
    assert [(s.role, s.message_index, s.text) for s in request.segments] == [
        (Role.SYSTEM, 0, "You are the librarian. Never invent titles."),
        (Role.USER, 1, "history"),
        (Role.USER, 2, "question"),
    ]
    assert request.segments[1].slot.variable_length


def test_unicode_columns_are_code_points():
    text = 'SYSTEM_PROMPT = f"Bonjour été — {now()} puis des règles."\n'
    (request,) = parse_text(text).requests
    (slot,) = request.slots()
    assert source_at(text, slot.span) == "{now()}"


# ---- bad input --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "line", "message"),
    [
        ('SYSTEM_PROMPT = "hi"\ndef f(:\n    pass\n', 2, "invalid syntax"),
        ('PROMPT = ("a"\n', 1, "'(' was never closed"),
        ("PROMPT = " + "(" * 1500 + "1" + ")" * 1500 + "\n", 1, "too many nested parentheses"),
        ("PROMPT = " + '"a" + ' * 20000 + '"a"\n', 1, "nests too deeply"),
        ("SYSTEM_PROMPT = " + '"a" + ' * 400 + '"a"\n', 1, "ctxlint reads Python up to 200 levels"),
        ('PROMPT = "x"\nprint "hello"\n', 2, "Missing parentheses"),
    ],
    ids=["syntax", "unclosed", "deep-parentheses", "huge-chain", "deep-chain", "python2"],
)
def test_bad_input_is_a_located_error_never_a_crash(source, line, message):
    # The deep cases must stop at the parser or the depth check, never in the analysis. (The
    # depth is checked in modules the analysis reads: here a system prompt.)
    parsed = parse_text(source)
    assert parsed.requests == []
    ((span, text),) = parsed.errors
    assert span.line == line and message in text


def test_parse_error_is_reported_as_ctx001():
    (finding,) = lint('SYSTEM_PROMPT = "hi"\ndef f(:\n    pass\n', select=["CTX001"])
    assert (finding.code, finding.span.line, finding.span.column) == ("CTX001", 2, 7)


def test_cycles_and_recursion_terminate():
    text = '''A_PROMPT = B_PROMPT + "a"
B_PROMPT = A_PROMPT + "b"
PROMPT = PROMPT + "x"
def system_prompt(x):
    return system_prompt(x) + "again"
'''
    parsed = parse_text(text)
    assert parsed.errors == [] and parsed.requests


# ---- cost of a run ---------------------------------------------------------------------------------------


def test_linting_a_template_does_not_load_the_python_analysis(tmp_path):
    (tmp_path / "system.j2").write_text("You are the support assistant. {{ question }}\n")
    (tmp_path / "audit.py").write_text((DATA / "audit_log.py").read_text())
    script = (
        "import sys\n"
        "from ctxlint.cli import main\n"
        "try:\n"
        f"    main(['check', {str(tmp_path / 'system.j2')!r}, {str(tmp_path / 'audit.py')!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('LOADED' if 'ctxlint.frontends.python.analyzer' in sys.modules else 'NOT-LOADED')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert result.stdout.strip().splitlines()[-1] == "NOT-LOADED", result.stdout + result.stderr


# ---- findings on the realistic files ---------------------------------------------------------------------


def test_findings_on_the_realistic_files():
    found = []
    for path in sorted(DATA.glob("*.py")):
        for finding in lint(path.read_text(), path.name, select=["CTX101", "CTX102", "CTX103", "CTX104", "CTX201",
                                                                  "CTX204"]):
            found.append((path.name, finding.span.line, finding.span.column, finding.code))
    assert sorted(found) == [
        # anthropic_agent.py:18 serialises a dict literal (its keys keep the order the code writes), and
        # openai_support.py:31 a parameter whose key order the code does not show (low confidence).
        # anthropic_agent.py:44 has a run id before five static tokens: low confidence, not reported.
        ("budget.py", 9, 12, "CTX204"),
        ("budget.py", 13, 12, "CTX204"),
        ("budget.py", 17, 19, "CTX204"),
        ("budget.py", 21, 21, "CTX204"),
        ("budget.py", 22, 19, "CTX204"),
        ("mcp_lowlevel_server.py", 27, 69, "CTX103"),
        # openai_support.py:17 and prompts.py:18 put a clock and a uuid in module-level constants: they are
        # fixed when the module loads (low confidence, a different message), not new on every call.
        ("openai_support.py", 49, 16, "CTX201"),
        ("prompts.py", 14, 30, "CTX102"),
    ]


# ---- what decides the output limit's visibility and the confidence at a call site -----------------


GENAI_CALL = """\
{imports}


def describe(uri: str) -> str:
    client = {client}
    return client.models.generate_content(model="gemini-2.5-flash", contents=[uri, "Describe it."]).text
"""


@pytest.mark.parametrize(("imports", "client"), [
    ("from google import genai", "genai.Client()"),
    ("from google import genai as g", "g.Client()"),
    ("import google.genai", "google.genai.Client()"),
    ("from google.genai import Client", "Client()"),
])
def test_each_import_of_a_submodule_library_is_recognised(imports, client):
    requests = parse_text(GENAI_CALL.format(imports=imports, client=client)).requests
    assert [(r.anchor.line, r.framework, r.declares_settings) for r in requests] == [(6, "google-genai", True)]


def test_an_import_from_another_google_package_is_not_the_sdk():
    assert not python.might_hold_prompts("from google import auth\n\nauth.default()\n")


PYDANTIC_AGENT = """\
import os

from pydantic_ai import Agent
from pydantic_ai.models import Model

NAME = os.environ["TRIAGE_MODEL"]


def sort_ticket({params}) -> str:
    agent = Agent({model}, instructions="Sort the ticket into billing, bug or question.")
    return agent.run_sync(ticket).output
"""


@pytest.mark.parametrize(("params", "model", "reported"), [
    ("ticket: str", '"openai:gpt-4o"', True),
    ("ticket: str", "NAME", True),  # os.environ[...]: a name
    ("ticket: str", 'f"openai:{NAME}"', True),
    ("ticket: str, model: str", "model", True),
    ("ticket: str, model: Model | str = 'openai:gpt-4o'", "model", True),  # a name by default
    ("ticket: str, model: Model", "model", False),  # an object: its settings may hold the limit
    ("ticket: str, model=None", "model.with_settings()", False),
])
def test_a_pydantic_ai_model_object_may_carry_the_limit(params, model, reported):
    findings = lint(PYDANTIC_AGENT.format(params=params, model=model), select=("CTX201",))
    assert [(f.span.line, f.code) for f in findings] == ([(11, "CTX201")] if reported else [])


SCRIPT_CALL = """\
from openai import OpenAI

client = OpenAI()


{owner}
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=[{{"role": "user", "content": "Say hi"}}])
"""


@pytest.mark.parametrize(("owner", "confidence"), [
    ("def test_answers():", "low"),
    ("def test():", "low"),
    ("class TestModels:", "low"),  # in the class body: not a method, which is low anyway
    ("class Test_models:", "low"),
    ("def testimonial():", "high"),
    ("def latest_answer():", "high"),
    ("class Testimonials:", "high"),
])
def test_calls_in_test_functions_of_scripts_are_low_confidence(owner, confidence):
    linter = Linter(Settings(root=Path("."), confidence="low"), load_catalogue(), select=["CTX201"])
    source = SCRIPT_CALL.format(owner=owner)
    findings = linter.lint_text(source, "jobs/check.py", "jobs/check.py", "python")
    assert [f.confidence.value for f in findings] == [confidence]


def test_a_field_filled_in_place_shows_where_its_value_is_passed():
    source = '''from openai import OpenAI

client = OpenAI()

GRADE = """Grade the page against the question.

Question: {question}
Fetched webpage: {webpage_content}

Answer PASS or FAIL.
"""


def grade(question: str, webpage_content: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o-mini",
        max_tokens=5,
        messages=[{"role": "system",
                   "content": GRADE.format(question=question,
                                           webpage_content=webpage_content)}],
    )
    return reply.choices[0].message.content
'''
    findings = [f for f in lint(source, select=("CTX402",)) if f.code == "CTX402"]
    assert [(f.span.line, f.kind) for f in findings] == [(8, "name-and-words")]
    passed = [e for e in findings[0].evidence if e.span is not None and e.span.line == 20]
    assert [e.text for e in passed] == ["passed as `webpage_content` at module.py:20"]


def test_a_set_looped_in_a_helper_that_fills_two_requests_is_reported_once_with_the_call_as_a_step():
    source = '''\
from anthropic import Anthropic

client = Anthropic()
RULES = "Answer only from the pages above, name the page you quote, and say so when none of them answers it."


class Notebook:
    def __init__(self) -> None:
        self.open_pages = set()
        self.draft_pages = set()

    def pages_message(self, pages) -> dict:
        blocks = []
        for page in pages:
            blocks.append({"type": "text", "text": page})
        return {"role": "user", "content": blocks}

    def ask(self, question: str) -> str:
        reply = client.messages.create(
            model="claude-sonnet-4-5", max_tokens=500,
            messages=[self.pages_message(self.open_pages), {"role": "assistant", "content": RULES},
                      {"role": "user", "content": question}],
        )
        return reply.content[0].text

    def outline(self, topic: str) -> str:
        reply = client.messages.create(
            model="claude-sonnet-4-5", max_tokens=500,
            messages=[self.pages_message(self.draft_pages), {"role": "assistant", "content": RULES},
                      {"role": "user", "content": topic}],
        )
        return reply.content[0].text
'''
    found = lint(source, select=["CTX104"], confidence="low")  # returned-text is low: measured 0 of 3 right
    assert [(f.code, f.span.line, f.span.column, f.kind, f.confidence.value) for f in found] == [
        ("CTX104", 14, 21, "returned-text", "low")]
    assert found[0].message == (
        "`set` iterates in an order that changes with each process's hash seed, so the text built from it can differ "
        "between calls and the 23 static tokens after it are then sent uncached. Wrap it in `sorted(...)`.")
    steps = [(step.text, step.span.line) for step in found[0].evidence]
    assert ("`self.pages_message(self.open_pages)` returns text built from it", 21) in steps


def test_a_helper_call_spread_over_lines_is_named_in_its_step_without_its_arguments():
    source = '''\
from openai import OpenAI

client = OpenAI()


def tags_message(tags: set[str], prefix: str) -> dict:
    parts = []
    for tag in tags:
        parts.append({"type": "text", "text": prefix + tag})
    return {"role": "user", "content": parts}


def classify(text: str, tags: set[str]) -> str:
    header = tags_message(
        tags,
        "- ",
    )
    reply = client.chat.completions.create(
        model="gpt-4.1", max_tokens=20,
        messages=[header, {"role": "assistant", "content": "Noted. I will answer with exactly one tag from "
                           "the list above and never invent a new one."}, {"role": "user", "content": text}],
    )
    return reply.choices[0].message.content
'''
    found = lint(source, select=["CTX104"], confidence="low")
    assert [(f.span.line, f.kind) for f in found] == [(8, "returned-text")]
    assert ("`tags_message(...)` returns text built from it", 14) in [(s.text, s.span.line) for s in found[0].evidence]


def test_statements_after_a_return_are_gone_from_every_walk_even_after_a_depth_check():
    # The depth check lists each node's children first and keeps them; the statements dropped
    # after a `return` must be gone from those lists too, not only from the block.
    import ast

    from ctxlint.frontends.python.nodes import walk
    from ctxlint.frontends.python.prefilter import precheck

    source = "def f(x):\n    if x:\n        return 1\n        y = cut(x)[:10]\n    return 2\n"
    checked = precheck(source, "a.py", check_depth=True)
    assert checked.tree is not None
    assert not any(isinstance(node, ast.Subscript) for node in walk(checked.tree))
    assert [type(s).__name__ for s in checked.tree.body[0].body[0].body] == ["Return"]


def test_an_entry_of_a_log_the_loop_reads_and_appends_to_says_so():
    # The notes an agent's loop appends to on each pass and joins into the prompt of the same
    # pass are a log; notes gathered in one loop and sent after it are not.
    source = textwrap.dedent("""
        from openai import OpenAI

        client = OpenAI()


        def run(task, files):
            notes = []
            for attempt in range(3):
                reply = client.chat.completions.create(model="gpt-4o", max_tokens=200, messages=[
                    {"role": "system", "content": "Notes:\\n" + "\\n".join(notes)}, {"role": "user", "content": task}])
                notes.append(f"Attempt {attempt}: {reply.choices[0].message.content}")
            listed = []
            for name in files:
                listed.append(f"File {name}")
            return client.chat.completions.create(model="gpt-4o", max_tokens=200, messages=[
                {"role": "system", "content": "Files:\\n" + "\\n".join(listed)}, {"role": "user", "content": task}])
        """)
    looped, once = parse_text(source).requests
    logged = {s.text: (src.detail, src.span.line) for s in looped.segments if s.slot
              for src in s.slot.sources if src.kind is SourceKind.LOG_ENTRY}
    assert logged == {"attempt": ("the loop `range(3)` (line 9)", 12),
                      "reply.choices[0].message.content": ("the loop `range(3)` (line 9)", 12)}
    assert not [s for s in once.segments if s.slot and any(x.kind is SourceKind.LOG_ENTRY for x in s.slot.sources)]


@pytest.mark.parametrize(("code", "generic"), [
    ("Agent[Deps, str]", True),
    ("Agent[None, Output]", True),
    ("pydantic_ai.Agent[Deps]", True),
    ("Agent[list[str]]", True),
    ("MODELS[name]", False),  # a table of classes, indexed
    ("handlers[kind]", False),
    ("Registry[key]", False),  # a lower-case index is a value, not a type
    ('Agent["support"]', False),
])
def test_a_class_given_its_type_parameters_is_told_from_an_item_of_a_table(code: str, generic: bool) -> None:
    node = ast.parse(code, mode="eval").body
    assert isinstance(node, ast.Subscript) and generic_alias(node) is generic
