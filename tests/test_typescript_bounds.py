"""The TypeScript front-end within bounds: tree-sitter parses that run away on broken syntax are
cancelled with a notice, and the analysis stays linear in the number of prompts. Work is bounded by
step counts, never by the clock."""

from __future__ import annotations

import pytest
from steps import count_steps, growth

from ctxlint.frameworks import cached_frameworks
from ctxlint.frontends.typescript import analyzer, knowledge, parse_file, standalone, syntax
from ctxlint.frontends.typescript.slots import Slots
from ctxlint.frontends.typescript.sources import Sources
from ctxlint.frontends.typescript.strings import Strings
from ctxlint.model import ParsedFile


class _Clock:
    """A stand-in for the CPU clock: counts its readings, and advances ``tick`` seconds at each one."""

    def __init__(self, tick: float = 0.0):
        self.tick = tick
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return self.readings * self.tick


def _stray_string_in_unclosed_tags(n: int) -> str:
    """An object literal broken by `<a>` runs around a stray string: tree-sitter's error recovery on it
    is quadratic in n (n = 800, 7 KB: about 150,000 progress steps)."""
    return ('const reply = ask({\n  model: pick("small"),\n  history,\n'
            + "<a>" * n + '"""' + "<a>" * (2 * n) + "  limit: 5,\n});\n")


def _call_sites(n: int) -> str:
    unit = ("export async function answer{i}(question: string) {{\n"
            "  return client.chat.completions.create({{\n"
            '    model: "gpt-4o", max_tokens: 400,\n'
            '    messages: [{{ role: "system", content: `You help team {i}.` }},\n'
            '               {{ role: "user", content: question }}],\n'
            "  }});\n}}\n")
    return 'import OpenAI from "openai";\nconst client = new OpenAI();\n' + "".join(unit.format(i=i) for i in range(n))


def test_runaway_error_recovery_is_cancelled_within_the_step_bound():
    data = _stray_string_in_unclosed_tags(800).encode()
    clock = _Clock()
    assert syntax.parse("typescript", data, clock) is None
    # one reading for the deadline, then one per progress step up to the first one past the bound
    assert clock.readings <= syntax.parse_steps_allowed(len(data)) + 2


def test_a_cancelled_module_gets_a_skip_notice_and_no_findings():
    text = ('import { generateText } from "ai";\n' + _stray_string_in_unclosed_tags(800))
    parsed = parse_file(text, "route.ts")
    assert not parsed.requests and not parsed.errors
    [notice] = parsed.notices
    assert notice.startswith("skipped: tree-sitter could not parse this module in bounded time and memory")
    assert f"{syntax.parse_steps_allowed(len(text.encode())):,} steps" in notice


def test_a_parse_past_its_cpu_budget_is_cancelled_and_the_parser_starts_afresh():
    data = _call_sites(200).encode()
    assert syntax.parse("typescript", data, _Clock(tick=10.0)) is None
    root = syntax.parse("typescript", b'const prompt = "Be brief.";\n')
    assert root is not None and not root.has_error
    assert [child.type for child in root.children] == ["lexical_declaration"]


class _Memory:
    """A stand-in for the process's memory: grows ``growth`` bytes at each reading."""

    def __init__(self, growth: int):
        self.growth = growth
        self.readings = 0

    def __call__(self) -> int:
        self.readings += 1
        return self.readings * self.growth


def test_a_parse_past_its_memory_budget_is_cancelled_within_a_few_readings():
    data = _call_sites(200).encode()  # valid, about 65 KB: within the step and time bounds
    budget = syntax.PARSE_MEMORY_BASE + syntax.PARSE_MEMORY_PER_BYTE * len(data)
    memory = _Memory(growth=budget // 3)
    assert syntax.parse("typescript", data, _Clock(), memory) is None
    assert memory.readings <= 5  # the reading before the parse, then one per MEMORY_EVERY steps
    root = syntax.parse("typescript", data, _Clock(), _Memory(growth=0))
    assert root is not None and not root.has_error


def test_the_process_memory_is_read():
    assert syntax.resident_memory() > 1 << 20


def test_valid_modules_stay_far_under_the_step_bound():
    data = _call_sites(300).encode()  # about 100 KB
    clock = _Clock()
    root = syntax.parse("typescript", data, clock)
    assert root is not None and not root.has_error
    assert clock.readings < syntax.parse_steps_allowed(len(data)) / 10


class _CountingSet(set):
    lookups = 0

    def __contains__(self, item: object) -> bool:
        _CountingSet.lookups += 1
        return super().__contains__(item)


def test_prompts_read_by_other_prompts_are_found_without_pairwise_lookups():
    # 3,000 prompt constants, each read by the next: the old check asked every candidate about every
    # other one (9 million lookups).
    candidates = [(key, _CountingSet({key - 1} if key else set())) for key in range(3_000)]
    _CountingSet.lookups = 0
    assert standalone._read_by_another(candidates) == set(range(2_999))
    assert _CountingSet.lookups == 0


def test_many_prompt_constants_each_become_one_request():
    lines = ['import OpenAI from "openai";']
    lines += [f'const prompt{i} = "You are assistant number {i}. Answer in one line.";' for i in range(2_000)]
    lines.append('const systemPrompt = prompt0 + " Be brief.";')
    parsed = parse_file("\n".join(lines) + "\n", "prompts.ts")
    anchors = {request.anchor.line for request in parsed.requests}
    # prompt0 is part of systemPrompt, so it is not a request of its own
    assert len(parsed.requests) == 2_000 and 2 not in anchors and 2_002 in anchors


def test_a_flat_broken_module_is_indexed_without_a_list_of_all_its_nodes():
    # `f(` then 25,000 `x y `: one ERROR node with 50,000 children. Indexing it used to hold a Python
    # object for every child at once (about 7 MB here; 211 MB for a 0.9 MB module).
    import tracemalloc

    from ctxlint.frontends.typescript.analyzer import Analyzer

    source = syntax.Text('import OpenAI from "openai";\nf(' + "x y " * 25_000, "flat.ts")
    root = syntax.parse("typescript", source.data)
    assert root is not None and max(child.child_count for child in root.children) >= 50_000
    tracemalloc.start()
    try:
        analyzer = Analyzer(root, source, cached_frameworks().typescript)
        analyzer.index()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


def _long_property_chain(n: int) -> str:
    """A message text read through n property accesses on an object literal, `{ type, a }.a.a...a`:
    following a value at each level of the chain, and from each level down again, was cubic in n
    (n = 100: about 3 million resolution calls, 7 s)."""
    return ('import { generateText } from "ai";\n'
            "export async function triage(ticket: string) {\n"
            '  const { text } = await generateText({ model: "claude-haiku-4-5", messages: [\n'
            '    { role: "user", content: [{ type: "text", text: { type: "text", a: ticket }' + ".a" * n + " }] },\n"
            "  ] });\n  return text;\n}\n")


def test_a_long_property_chain_is_followed_a_bounded_number_of_accesses_with_a_notice():
    def make(n: int):
        return lambda: parse_file(_long_property_chain(n), "triage.ts")

    steps, parsed = count_steps(make(320))
    assert steps < 400_000
    assert growth(make, 80) < 1.5
    [notice] = parsed.notices
    assert notice.startswith("stopped following a chain of property accesses and calls after "
                             f"{knowledge.MAX_CHAIN} (line 4)")
    assert len(parsed.requests) == 1


@pytest.mark.parametrize("shape", [lambda n: "ticket" + ".a()" * n, lambda n: "(await " * n + "ticket" + ")" * n],
                         ids=["method-calls", "awaits"])
def test_a_long_chain_of_calls_or_awaits_is_followed_a_bounded_number_of_levels_with_a_notice(shape):
    # `ticket.a().a()...`: each call looked for an untrusted source in its receiver, and each level
    # of the chain was asked again (n = 190, 1.3 KB: 36,000 calls of `untrusted`, 1 s); the same
    # for `(await (await ...))`.
    def make(n: int):
        text = ('import { generateText } from "ai";\n'
                'export const f = async (ticket: string) => generateText({ model: "m", prompt: ' + shape(n)
                + " });\n")
        return lambda: parse_file(text, "triage.ts")

    steps, parsed = count_steps(make(190))
    assert steps < 400_000
    assert growth(make, 45) < 1.5
    assert parsed.notices[0].startswith("stopped following a chain of property accesses and calls")
    assert len(parsed.requests) == 1


def test_a_short_property_chain_is_still_followed():
    text = ('import { generateText } from "ai";\n'
            'const PROMPTS = { triage: { system: { text: "Classify the ticket as billing, bug or other." } } };\n'
            'export const run = (t: string) => generateText({ model: "m", system: PROMPTS.triage.system.text, '
            "prompt: t });\n")
    parsed = parse_file(text, "triage.ts")
    [request] = parsed.requests
    assert not parsed.notices
    assert any("Classify the ticket" in segment.text for segment in request.segments)


def _statements_swallowed_by_a_substitution(n: int) -> str:
    """A `${` left open in a template: tree-sitter's error recovery puts the n statements after it into
    the substitution, as one ERROR node (a 1 MB module like this took 18 s, 9 of them in `facts`)."""
    return ('import fs from "node:fs";\nimport OpenAI from "openai";\nconst client = new OpenAI();\n'
            "export async function summarise(path: string) {\n"
            '  const doc = fs.readFileSync(path, "utf8");\n'
            "  const response = await client.responses.create({\n"
            '    model: "gpt-4.1",\n'
            "    input: `Document:\\n${doc.s\n" + '  const doc = fs.readFileSync(path, "utf8");\n' * n
            + "${doc.slice(0, 8000)}`,\n  });\n  return response.output_text;\n}\n")


def _count_calls(monkeypatch, name: str, component: type = analyzer.Analyzer) -> list[int]:
    """Count calls to the method ``name`` of the analyzer or one of its components: the returned
    list gains an item per call."""
    calls: list[int] = []
    method = getattr(component, name)

    def counting(self, *args, **kwargs):
        calls.append(1)
        return method(self, *args, **kwargs)

    monkeypatch.setattr(component, name, counting)
    return calls


def test_statements_error_recovery_put_in_a_slot_are_not_followed(monkeypatch):
    text = _statements_swallowed_by_a_substitution(2_000)
    [(span, message)] = parse_file(text, "summarise.ts").errors  # the broken request is not analysed at all
    assert (span.line, message[:30]) == (8, "invalid syntax: unexpected `do")

    calls = _count_calls(monkeypatch, "facts", Slots)
    source = syntax.Text(text, "summarise.ts")
    root = syntax.parse("typescript", source.data)
    parsed = ParsedFile("summarise.ts")
    analyzer.Analyzer(root, source, cached_frameworks().typescript).run(parsed)  # what the analysis would do with it
    assert len(parsed.requests) == 1
    assert len(calls) < 100  # was about 20 per swallowed statement


def _servers_reassigned_inside_their_own_declaration(n: int) -> str:
    """n servers bound to one name, each declaration assigning the name again inside itself: the inner
    assignment ends before the declaration does, so the name's records are not in the order of their ends,
    and every lookup of the name scanned all of them (quadratic in n)."""
    unit = ('let server = new McpServer({{ name: "notes{i}", version: "1" }}, () => {{ server = null; }});\n'
            'server.tool("read_note_{i}", "Read note {i}.", {{}}, async () => ({{ content: [] }}));\n')
    return ('import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
            + "".join(unit.format(i=i) for i in range(n)))


def test_a_name_whose_assignments_end_out_of_order_is_looked_up_by_bisection():
    small, _ = count_steps(lambda: parse_file(_servers_reassigned_inside_their_own_declaration(200), "server.ts"))
    large, parsed = count_steps(lambda: parse_file(_servers_reassigned_inside_their_own_declaration(800), "server.ts"))
    assert large < 4_000 * 800  # about 2,300 per server; the scan made it 6,000 here and more further on
    assert large / (4 * small) < 1.3
    assert sorted(len(request.tools) for request in parsed.requests) == [1] * 800


def test_lookups_in_a_name_assigned_many_times_see_the_last_assignment_before_them():
    # Assigned 20 times (past the point where lookups bisect), in a loop that pushes onto it.
    lines = ['import OpenAI from "openai";', "const client = new OpenAI();"]
    lines += [f'let prompt = "Version {i} of the instructions.";' for i in range(20)]
    lines += ["for (const note of notes) {", '  prompt += " Note: " + note;', "}",
              'client.chat.completions.create({ model: "gpt-4o", max_tokens: 300, '
              'messages: [{ role: "system", content: prompt }] });']
    [request] = parse_file("\n".join(lines) + "\n", "chat.ts").requests
    texts = [segment.text for segment in request.segments]
    assert texts[0] == "Version 19 of the instructions." and "Version 18" not in "".join(texts)
    assert any(segment.slot is not None and segment.slot.expression == "note" for segment in request.segments)


class _CountingBytes(bytes):
    """A module's bytes that count the slices taken of them (tree-sitter's reader takes one per read)."""

    slices = 0

    def __getitem__(self, key):
        if isinstance(key, slice):
            _CountingBytes.slices += 1
        return super().__getitem__(key)


def test_zod_schemas_are_read_without_reading_the_module_again():
    # `Node.text` on a tree parsed from a reader calls the reader, which copied 64 KB per zod method name.
    unit = ('server.registerTool("lookup_{i}", {{ description: "Find record {i}.", '
            "inputSchema: {{ id: z.string().min(1).describe(\"The id\") }} }}, async () => ({{ content: [] }}));\n")
    text = ('import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\nimport { z } from "zod";\n'
            'const server = new McpServer({ name: "records", version: "1" });\n'
            + "".join(unit.format(i=i) for i in range(300)))
    source = syntax.Text(text, "server.ts")
    root = syntax.parse("typescript", _CountingBytes(source.data))
    _CountingBytes.slices = 0
    parsed = ParsedFile("server.ts")
    analyzer.Analyzer(root, source, cached_frameworks().typescript).run(parsed)
    [request] = parsed.requests
    assert len(request.tools) == 300
    assert request.tools[0].schema["properties"]["id"] == {"type": "string", "minLength": 1, "description": "The id"}
    assert _CountingBytes.slices == 0  # was 3 per tool


def test_a_module_whose_prompt_code_is_broken_is_not_analysed(monkeypatch):
    # The analysis was run, then its requests thrown away for the syntax error: on a large module
    # that was most of the work.
    runs = _count_calls(monkeypatch, "run")
    text = _call_sites(3_000).replace('content: `You help team 0.` }', 'content: `You help team 0.` ]', 1)
    steps, parsed = count_steps(lambda: parse_file(text, "answer.ts"))
    [(span, message)] = parsed.errors
    assert span.line == 6 and message.startswith("invalid syntax")
    assert not parsed.requests and len(runs) == 0
    assert steps < 100_000  # the parse's progress callbacks; the analysis took about 2,000 per call site
    assert len(parse_file(_call_sites(3).replace("0.` }", "0.` ]"), "answer.ts").errors) == 1 and len(runs) == 0
    assert len(parse_file(_call_sites(3), "answer.ts").requests) == 3 and len(runs) == 1


def test_the_analysis_leaves_no_cycles_to_hold_the_syntax_tree(tmp_path):
    # Its scopes, assignments and zod reader referred to each other: the syntax tree they held (73 MB for
    # a broken 0.8 MB module) lived on until the collector's next pass, into the next module's parse.
    import gc

    (tmp_path / "prompts.ts").write_text('export const SYSTEM_PROMPT = "You sort support tickets.";\n')
    (tmp_path / "chat.ts").write_text(
        'import { generateText, tool } from "ai";\nimport { z } from "zod";\n'
        'import { SYSTEM_PROMPT } from "./prompts";\n'
        "export async function triage(tickets: string[]) {\n"
        "  let notes = '';\n"
        "  tickets.forEach((ticket) => { notes += ticket; });\n"
        '  return generateText({ model: "m", system: SYSTEM_PROMPT, prompt: notes, maxOutputTokens: 200,\n'
        '    tools: { label: tool({ description: "Label a ticket.",\n'
        "      inputSchema: z.object({ id: z.string() }) }) } });\n"
        "}\n")
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        parsed = parse_file((tmp_path / "chat.ts").read_text(), str(tmp_path / "chat.ts"))
        unreachable = gc.collect()
    finally:
        if was_enabled:
            gc.enable()
    [request] = parsed.requests
    assert "You sort support tickets." in request.segments[0].text and len(request.tools) == 1
    assert parsed.dependencies == [str(tmp_path / "prompts.ts")]
    assert unreachable == 0


def test_a_module_constant_named_at_every_call_site_is_read_once(monkeypatch):
    # Each function reads the constant's last value, the same for all: its text (here a list built by
    # `map` and `join`, with a slot per item) was read again at each of the 1,000 call sites.
    reads = _count_calls(monkeypatch, "bound_text", Strings)
    unit = ("export const plan{i} = (goal: string) => client.chat.completions.create({{\n"
            '  model: "gpt-4o", max_tokens: 300,\n'
            "  messages: [{{ role: \"system\", content: `Skills:\\n${{skills}}\\nPick one for plan {i}.` }},\n"
            '             {{ role: "user", content: goal }}],\n}});\n')
    text = ('import OpenAI from "openai";\nconst client = new OpenAI();\n'
            'const skills = ["search", "summarise"].map((s) => `- ${s}`).join("\\n");\n'
            + "".join(unit.format(i=i) for i in range(1_000)))
    parsed = parse_file(text, "planner.ts")
    assert len(parsed.requests) == 1_000
    assert len(reads) < 10  # was about 3 per call site
    first, last = ("".join(segment.text for segment in parsed.requests[i].segments) for i in (0, -1))
    assert first == last.replace("999", "0") == "Skills:\n- s\nPick one for plan 0.goal"
    for request in (parsed.requests[0], parsed.requests[-1]):  # each skill's slot, in the loop over them
        [item] = [segment for segment in request.segments if segment.slot is not None and segment.text == "s"]
        assert item.loop is not None and item.span.line == 3


def _broken_deep(levels: int) -> str:
    """An MCP tool whose zod schema holds a subscript chain ``levels`` deep with a syntax error
    at its bottom (a fuzzed module: the error's parent was asked for by climbing from it)."""
    return ('import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\nimport { z } from "zod";\n'
            'const server = new McpServer({ name: "notes", version: "1.0.0" });\n'
            'server.tool("search", "Search the notes.", { query: z.string' + "[" * levels + "x."
            + "]" * levels + "() }, async () => ({ content: [] }));\n")


def test_a_syntax_error_deeper_than_the_analysis_reads_is_refused_without_climbing_to_it():
    # 10,000 levels: asking tree-sitter for the error's parent overflowed the C stack (the process
    # died); a few thousand levels took seconds, each parent found by walking down from the root.
    [(span, message)] = parse_file(_broken_deep(10_000), "server.ts").errors
    assert (span.line, message) == (4, f"the module nests more than {knowledge.MAX_DEPTH} levels deep; "
                                       "ctxlint does not read it")
    steps, parsed = count_steps(lambda: parse_file(_broken_deep(3_000), "server.ts"))
    assert len(parsed.errors) == 1 and steps < 50_000


def test_a_page_quoted_in_every_message_is_followed_to_its_fetch_once(monkeypatch):
    # A fuzzed module quoting one fetched page in thousands of messages followed `page` back to
    # `fetch(url)` in each of them: 10 readings of what carries third-party content per message.
    carriers = _count_calls(monkeypatch, "carrier", Sources)
    messages = "".join(f'      {{ role: "user", content: `<page>${{escape(page)}}</page> {i}\\n${{question}}` }},\n'
                       for i in range(1_000))
    text = ('import OpenAI from "openai";\nconst client = new OpenAI();\n\n'
            "export async function answer(url: string, question: string) {\n"
            "  const page = await (await fetch(url)).text();\n"
            '  return client.chat.completions.create({\n    model: "gpt-4o", max_tokens: 400,\n    messages: [\n'
            + messages + "    ],\n  });\n}\n")
    [request] = parse_file(text, "answer.ts").requests
    pages = [s for s in request.segments if s.slot is not None and s.slot.sources]
    assert len(pages) == 1_000
    assert {(source.detail, source.span.line) for s in pages for source in s.slot.sources} == {
        ("fetch(...).text()", 5)}
    assert len(carriers) < 20
