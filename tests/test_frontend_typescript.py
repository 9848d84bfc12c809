"""The TypeScript/JavaScript front-end: the model it builds from real-looking modules, zod
conversion and its token counts, suppressions, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from ctxlint.analysis.accounting import tool_cost_breakdown
from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends import structured
from ctxlint.frontends.typescript import parse_file
from ctxlint.model import Role, SourceKind
from ctxlint.tokens import lookup_model


def parse(source: str, path: str = "service.ts"):
    return parse_file(textwrap.dedent(source), path)


def lint(source: str, path: str = "service.ts", select=("ALL",)):
    linter = Linter(Settings(root=__import__("pathlib").Path(".")), load_catalogue(), select=list(select))
    return linter.lint_text(textwrap.dedent(source), path, path, "typescript")


def test_openai_call_site_with_constant_and_template_literal():
    parsed = parse("""\
        import OpenAI from "openai";

        const client = new OpenAI();
        const SYSTEM = "You are the support assistant.\\nNever share internal notes.";

        export async function answer(question: string, customer: { name: string }) {
          return client.chat.completions.create({
            model: "gpt-4o-mini",
            max_completion_tokens: 300,
            messages: [
              { role: "system", content: SYSTEM },
              { role: "user", content: `Customer ${customer.name} asks: ${question}` },
            ],
          });
        }
        """)
    assert not parsed.errors
    [request] = parsed.requests
    assert request.model == "gpt-4o-mini"
    assert request.output_limit is not None and request.output_limit.value == 300
    assert request.anchor.line == 7
    roles = [(s.role, s.message_index, s.text) for s in request.segments]
    assert roles == [
        (Role.SYSTEM, 0, "You are the support assistant.\nNever share internal notes."),
        (Role.USER, 1, "Customer "),
        (Role.USER, 1, "customer.name"),
        (Role.USER, 1, " asks: "),
        (Role.USER, 1, "question"),
    ]
    system = request.segments[0]
    assert (system.span.line, system.span.column) == (4, 17)  # where the constant is written
    slot = request.segments[2]
    assert slot.slot is not None and slot.slot.names == ("customer.name",)
    assert (slot.span.line, slot.span.column, slot.span.end_column) == (12, 42, 58)  # `${customer.name}`


def test_ai_sdk_call_with_zod_tool_converts_the_schema():
    parsed = parse("""\
        import { generateText, tool } from "ai";
        import { anthropic } from "@ai-sdk/anthropic";
        import { z } from "zod";

        export const run = (prompt: string) =>
          generateText({
            model: anthropic("claude-sonnet-4-5"),
            system: "You plan trips.",
            prompt,
            maxTokens: 600,
            tools: {
              flights: tool({
                description: "Find flights between two airports.",
                parameters: z.object({
                  from: z.string().length(3).describe("IATA code of the departure airport"),
                  to: z.string().length(3).describe("IATA code of the arrival airport"),
                  cabin: z.enum(["economy", "business"]).default("economy"),
                  passengers: z.number().int().min(1).optional(),
                }),
              }),
            },
          });
        """)
    [request] = parsed.requests
    assert request.model == "claude-sonnet-4-5"
    assert request.output_limit is not None and (request.output_limit.key, request.output_limit.value) == ("maxTokens", 600)
    [tool] = request.tools
    assert tool.name == "flights" and tool.description == "Find flights between two airports."
    assert tool.schema == {
        "type": "object",
        "properties": {
            "from": {"type": "string", "minLength": 3, "maxLength": 3, "description": "IATA code of the departure airport"},
            "to": {"type": "string", "minLength": 3, "maxLength": 3, "description": "IATA code of the arrival airport"},
            "cabin": {"type": "string", "enum": ["economy", "business"], "default": "economy"},
            "passengers": {"type": "integer", "minimum": 1},
        },
        "required": ["from", "to"],
        "additionalProperties": False,
    }
    assert tool.schema_estimate == "converted from zod"
    assert [s.role for s in request.segments] == [Role.SYSTEM, Role.USER]


def test_zod_tool_costs_within_five_percent_of_the_same_tool_in_json_schema():
    """The same MCP tool, once with a zod shape and once written by hand as the JSON Schema the
    SDK lists for it (zod objects are closed: `additionalProperties: false`): the counts agree
    within 5% under OpenAI's and Anthropic's accounting."""
    zod = parse("""\
        import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
        import { z } from "zod";

        const server = new McpServer({ name: "crm", version: "1.0.0" });

        server.registerTool(
          "find_customer",
          {
            description: "Look up customers by name, e-mail or account number and return their profile.",
            inputSchema: {
              query: z.string().describe("Name, e-mail address or account number to search for"),
              status: z.enum(["active", "suspended", "closed"]).describe("Only customers in this state").optional(),
              limit: z.number().int().describe("Most results to return").default(10),
            },
          },
          async (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }),
        );
        """).requests[0].tools[0]
    by_hand = structured.parse_file(textwrap.dedent("""\
        {"tools": [{
          "name": "find_customer",
          "description": "Look up customers by name, e-mail or account number and return their profile.",
          "inputSchema": {
            "type": "object",
            "properties": {
              "query": {"type": "string", "description": "Name, e-mail address or account number to search for"},
              "status": {"type": "string", "enum": ["active", "suspended", "closed"],
                         "description": "Only customers in this state"},
              "limit": {"type": "integer", "description": "Most results to return", "default": 10}
            },
            "required": ["query"],
            "additionalProperties": false
          }
        }]}
        """), "tools.json").requests[0].tools[0]
    for model in ("gpt-4o", "claude-sonnet-4-5"):
        info = lookup_model(model, None)
        from_zod = tool_cost_breakdown(zod, info).tokens
        written = tool_cost_breakdown(by_hand, info).tokens
        assert abs(from_zod - written) <= 0.05 * written, (model, from_zod, written)


def test_mcp_server_tool_overloads():
    parsed = parse("""\
        import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
        import { z } from "zod";

        const server = new McpServer({ name: "x", version: "1" });
        server.tool("ping", async () => ({ content: [] }));
        server.tool("echo", { text: z.string() }, async ({ text }) => ({ content: [] }));
        server.tool("add", "Add two numbers.", { a: z.number(), b: z.number() }, async () => ({ content: [] }));
        """)
    [request] = parsed.requests
    names = [(t.name, t.description, sorted(t.schema["properties"])) for t in request.tools]
    assert names == [("ping", None, []), ("echo", None, ["text"]), ("add", "Add two numbers.", ["a", "b"])]
    assert all(t.span.line == n for t, n in zip(request.tools, (5, 6, 7)))


def test_fetched_page_flows_into_the_prompt_with_located_steps():
    parsed = parse("""\
        import OpenAI from "openai";
        const client = new OpenAI();

        export async function summarise(url: string) {
          const res = await fetch(url);
          const page = await res.text();
          const body = page;
          return client.chat.completions.create({
            model: "gpt-4o",
            max_completion_tokens: 200,
            messages: [{ role: "user", content: `Summarise:\\n${body}` }],
          });
        }
        """)
    [request] = parsed.requests
    slot = request.segments[-1].slot
    assert slot is not None
    [source] = slot.sources
    assert source.kind is SourceKind.UNTRUSTED and source.detail == "fetch(...).text()" and source.strong
    assert source.span.line == 6
    assert [(step.text, step.span.line) for step in source.flow] == [("`page` holds it", 6), ("`body` holds it", 7)]


def test_langchain_template_fields_are_slots():
    parsed = parse("""\
        import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";

        export const prompt = ChatPromptTemplate.fromMessages([
          ["system", "You answer questions about {product}. Use {{braces}} literally."],
          new MessagesPlaceholder("history"),
          ["human", "{question}"],
        ]);
        """, "chain.ts")
    [request] = parsed.requests
    texts = [(s.role, s.text, s.slot is not None) for s in request.segments]
    assert texts[:4] == [(Role.SYSTEM, "You answer questions about ", False), (Role.SYSTEM, "product", True),
                         (Role.SYSTEM, ". Use {braces} literally.", False), (Role.USER, 'new MessagesPlaceholder("history")', True)]
    assert texts[-1] == (Role.USER, "question", True)


def test_suppression_comment_in_typescript():
    source = """\
        import OpenAI from "openai";
        const client = new OpenAI();
        export const ask = (q: string) =>
          client.chat.completions.create({ // ctxlint: ignore[CTX201]
            model: "gpt-4o",
            messages: [{ role: "user", content: q }],
          });
        """
    assert [f.code for f in lint(source)] == []
    assert [f.code for f in lint(source.replace(" // ctxlint: ignore[CTX201]", ""))] == ["CTX201"]
    assert [f.code for f in lint(source.replace("// ctxlint: ignore[CTX201]", "/* ctxlint: ignore */"))] == []


def test_javascript_without_llm_names_is_skipped_before_tree_sitter_loads():
    code = textwrap.dedent("""\
        import sys
        from ctxlint.frontends.typescript import parse_file
        parsed = parse_file("export function add(a, b) { return a + b; }\\n", "math.js")
        print(len(parsed.requests), len(parsed.errors), "tree_sitter" in sys.modules)
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "0", "False"]


def test_what_makes_a_module_worth_reading_comes_from_the_catalogue():
    """The prefilter names no SDK of its own: an import of a package of a `typescript:` section, or
    a call the catalogue knows, lets a module in; a package named in a URL or a comment does not."""
    from ctxlint.frontends.typescript import might_hold_prompts

    assert might_hold_prompts('import { Ollama } from "ollama";\nconst o = new Ollama();\n')
    assert might_hold_prompts("const { text } = await generateText({ model });\n")
    assert might_hold_prompts("const r = await client.chat.completions.create(body);\n")
    assert might_hold_prompts("server.registerTool('add', config, handler);\n")
    assert not might_hold_prompts('const url = "https://api.openai.com/v1/models"; // see anthropic.com\n')
    assert not might_hold_prompts("const kind = 'ai';\n")


def test_a_loop_kept_to_a_token_budget_makes_a_module_worth_reading():
    """A module that calls no model but keeps items to a budget in tokens (budget_loops.py) is read;
    a loop with no token test, or a token test with no loop exit, is not reason enough."""
    from ctxlint.frontends.typescript import might_hold_prompts

    assert might_hold_prompts("for (const d of docs) {\n  if (usedTokens >= this.maxTokens) break;\n}\n")
    assert might_hold_prompts("for (const d of docs) {\n  if (total > maxTokens) continue;\n}\n")
    assert not might_hold_prompts("for (const d of docs) {\n  if (d.size > limit) break;\n}\n")
    assert might_hold_prompts("while (usedTokens > maxTokens) {\n  history.shift();\n}\n")
    assert not might_hold_prompts("const over = usedTokens > maxTokens;\n")


def test_a_length_over_a_constant_in_a_module_of_tokens_makes_it_worth_reading():
    """``text.length / CHARS_PER_TOKEN`` is the ``length / 4`` estimate through a name (estimates.py):
    read where the module speaks of tokens; a page count over a constant elsewhere is not reason enough."""
    from ctxlint.frontends.typescript import might_hold_prompts

    assert might_hold_prompts("const estimateTokens = (t: string) => Math.ceil(t.length / CHARS_PER_TOKEN);\n")
    assert might_hold_prompts("const tokens = Math.ceil(input.length / Tokenizer.DIVISOR);\n")
    assert not might_hold_prompts("const pages = Math.ceil(items.length / PAGE_SIZE);\n")


def test_malformed_typescript_is_a_located_error():
    parsed = parse("""\
        import OpenAI from "openai";
        const client = new OpenAI();
        const prompt = `You are ${role;
        """)
    assert not parsed.requests
    [(span, message)] = parsed.errors
    assert span.line == 3 and message.startswith("invalid syntax")


def test_type_syntax_the_grammar_lags_behind_is_a_notice_and_the_module_is_read():
    parsed = parse("""\
        import OpenAI from "openai";
        const client = new OpenAI();
        export function ask<in out T>(question: T) {
          const messages = [{ role: "user", content: `${question}` }];
          return client.chat.completions.create({ model: "gpt-4o", messages });
        }
        """)
    assert not parsed.errors
    assert parsed.notices == ["line 3: the TypeScript grammar does not read `out T` in a type (syntax newer than the "
                              "grammar, or a typo tsc reports); the rest of the module is read"]
    [request] = parsed.requests
    assert request.anchor.line == 5 and request.output_limit is None


def test_jsx_the_javascript_grammar_refuses_is_read_with_the_tsx_grammar():
    """tree-sitter-javascript refuses a JSX member tag named with a keyword (`<Skeleton.default />`),
    which Babel and tsc accept; the module is read, its request found, and no syntax error said."""
    parsed = parse("""\
        import OpenAI from "openai";
        const client = new OpenAI();
        export function PromptEditor({ systemPrompt, loading }) {
          return loading ? <Skeleton.default height={20} /> : <textarea defaultValue={systemPrompt} />;
        }
        export async function ask(question) {
          return client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: question }] });
        }
        """, "Loading.jsx")
    assert not parsed.errors and not parsed.notices
    [request] = parsed.requests
    assert request.anchor.line == 7 and request.output_limit is None


def test_javascript_neither_grammar_reads_is_still_a_located_error():
    parsed = parse("""\
        import OpenAI from "openai";
        const client = new OpenAI();
        const prompt = `You are ${role;
        """, "ask.js")
    [(span, message)] = parsed.errors
    assert span.line == 3 and message.startswith("invalid syntax")


def test_deep_nesting_is_refused_with_a_location():
    source = "const prompt = " + "(" * 1500 + '"x"' + ")" * 1500 + ";\n"
    parsed = parse_file(source, "deep.ts")
    [(span, message)] = parsed.errors
    assert span.line == 1 and "nests more than" in message


def test_a_long_concatenation_chain_gives_a_notice_not_a_crash():
    source = "const systemPrompt = " + " + ".join(['"word "'] * 5000) + ";\n"
    parsed = parse_file(source, "long.js")
    assert parsed.errors and parsed.errors[0][0].line == 1


def test_constants_imported_from_a_sibling_module_are_read_there(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "prompts.ts").write_text(
        'export const SYSTEM_PROMPT = "You are the billing assistant.";\nexport const MODEL = "gpt-4o-mini";\n',
        encoding="utf-8")
    (tmp_path / "lib" / "cycle.ts").write_text('import { X } from "../chat.js";\nexport const Y = X;\n', encoding="utf-8")
    chat = tmp_path / "chat.ts"
    source = textwrap.dedent("""\
        import OpenAI from "openai";
        import { SYSTEM_PROMPT, MODEL } from "./lib/prompts.js";
        import { Y } from "./lib/cycle";
        export const X = "x";
        const client = new OpenAI();
        export const ask = (q: string) => client.chat.completions.create({
          model: MODEL, max_completion_tokens: 200,
          messages: [{ role: "system", content: SYSTEM_PROMPT + Y }, { role: "user", content: q }],
        });
        """)
    parsed = parse_file(source, str(chat))
    [request] = parsed.requests
    assert request.model == "gpt-4o-mini"
    system = request.segments[0]
    assert (system.text, system.span.path, system.span.line) == (
        "You are the billing assistant.", str(tmp_path / "lib" / "prompts.ts"), 1)
    assert sorted(parsed.dependencies) == sorted([str(tmp_path / "lib" / "prompts.ts"), str(tmp_path / "lib" / "cycle.ts")])


def test_a_function_imported_from_a_sibling_module_is_read_there_with_its_parameters_as_slots(tmp_path):
    (tmp_path / "prompts.ts").write_text(textwrap.dedent("""\
        export const researcherPrompt = (topic: string) => `Today is ${new Date().toISOString()}.
        You research ${topic}. Cite every source by its number.`;
        export function plainPrompt(topic: string) {
          return `You research ${topic}.`;
        }
        """), encoding="utf-8")
    source = textwrap.dedent("""\
        import { researcherPrompt, plainPrompt } from "./prompts";
        export async function research(llm: { generate(x: object): Promise<string> }, topic: string) {
          return llm.generate({ messages: [
            { role: "system", content: researcherPrompt(topic) },
            { role: "user", content: plainPrompt(topic) },
          ] });
        }
        """)
    parsed = parse_file(source, str(tmp_path / "agent.ts"))
    [request] = parsed.requests
    prompts = str(tmp_path / "prompts.ts")
    assert [(s.role, s.text, s.slot is not None, s.span.path, s.span.line) for s in request.segments] == [
        (Role.SYSTEM, "Today is ", False, prompts, 1),
        (Role.SYSTEM, "new Date().toISOString()", True, prompts, 1),
        (Role.SYSTEM, ".\nYou research ", False, prompts, 1),
        (Role.SYSTEM, "topic", True, prompts, 2),
        (Role.SYSTEM, ". Cite every source by its number.", False, prompts, 2),
        (Role.USER, "You research ", False, prompts, 4),
        (Role.USER, "topic", True, prompts, 4),
        (Role.USER, ".", False, prompts, 4),
    ]


def test_mcp_union_schema_gets_the_object_root_the_sdk_sends_and_bedrock_specs_unwrap():
    parsed = parse("""\
        import { McpServer } from "@modelcontextprotocol/server";
        import * as z from "zod/v4";

        const server = new McpServer({ name: "x", version: "1" });
        const shape = z.discriminatedUnion("kind", [
          z.object({ kind: z.literal("a"), text: z.string() }),
          z.object({ kind: z.literal("b"), count: z.number() }),
        ]);
        server.registerTool("pick", { description: "Pick one.", inputSchema: shape }, async () => ({ content: [] }));

        export const spec = { toolSpec: { name: "lookup", inputSchema: { json: { type: "object", properties: {} } } } };
        """)
    tools = {t.name: t for r in parsed.requests for t in r.tools}
    assert tools["pick"].schema["type"] == "object" and len(tools["pick"].schema["oneOf"]) == 2
    assert tools["lookup"].schema == {"type": "object", "properties": {}}


def test_a_megabyte_module_of_prompts_is_read_without_error():
    block = textwrap.dedent("""\
        export const systemPrompt{n} = `You are assistant {n}. Never share notes. ${{topic{n}}}`;
        const client{n} = new OpenAI();
        client{n}.chat.completions.create({{ model: "gpt-4o", max_tokens: 10, messages: [{{ role: "system", content: systemPrompt{n} }}] }});
        """)
    source = 'import OpenAI from "openai";\n' + "".join(block.format(n=n) for n in range(4000))
    assert len(source) > 900_000
    parsed = parse_file(source, "big.ts")
    assert parsed.errors == [] and len(parsed.requests) == 4000


def test_a_message_content_is_read_once(monkeypatch):
    # Each call site's messages are read once: the named template behind `content: system` is
    # built once per call site, not once to test that it is text and again to use it.
    from ctxlint.frontends.typescript.strings import Strings

    unit = """\
        export async function answer{i}(question: string, page: string) {{
          const system = `You are the support assistant for team {i}. Page: ${{page}}`;
          return client.chat.completions.create({{
            model: "gpt-4o", max_tokens: 400,
            messages: [{{ role: "system", content: system }}, {{ role: "user", content: question }}],
          }});
        }}
        """
    source = 'import OpenAI from "openai";\nconst client = new OpenAI();\n' + "".join(
        textwrap.dedent(unit).format(i=i) for i in range(5))
    built = []
    template = Strings.template
    monkeypatch.setattr(Strings, "template", lambda self, node, env: built.append(node.start_byte)
                        or template(self, node, env))
    parsed = parse_file(source, "service.ts")
    assert len(parsed.requests) == 5
    assert [s.text for s in parsed.requests[0].segments if s.slot is None] == [
        "You are the support assistant for team 0. Page: "]
    assert len(built) == 5 and len(set(built)) == 5


def test_a_prompt_module_imported_through_a_tsconfig_alias_gets_the_callers_loop_counter_and_page(tmp_path):
    (tmp_path / "tsconfig.json").write_text(textwrap.dedent("""\
        {
          // Next.js writes comments and trailing commas here
          "compilerOptions": {"paths": {"@/*": ["./src/*"],},},
        }
        """), encoding="utf-8")
    (tmp_path / "src" / "prompts").mkdir(parents=True)
    (tmp_path / "src" / "prompts" / "research.ts").write_text(textwrap.dedent("""\
        export const researchPrompt = (pass: number, notes: string) => `You gather facts for a report.
        This is pass ${pass + 1}.
        Call one tool per pass and say in one sentence why it is the right one before calling it.
        Prefer primary sources, note the date of every figure, and stop once two sources agree.
        Never repeat a search you already made, and give up on a page that does not load at once.
        Keep every note to one line, quote the figure with its unit, name the page it comes from,
        and mark a figure you could not check against a second source as unconfirmed.
        Write dates as they appear in the source, spell out abbreviations the first time you use them,
        and when a page contradicts another, record both and say which one is more recent.
        Notes so far: ${notes}`;
        """), encoding="utf-8")
    agent = tmp_path / "src" / "agent.ts"
    findings = lint("""\
        import OpenAI from "openai";
        import { researchPrompt } from "@/prompts/research";

        const client = new OpenAI();

        export async function research(url: string, question: string) {
          const page = await (await fetch(url)).text();
          for (let i = 0; i < 4; i++) {
            await client.chat.completions.create({
              model: "gpt-4o",
              max_tokens: 300,
              messages: [
                { role: "system", content: researchPrompt(i, page) },
                { role: "user", content: question },
              ],
            });
          }
        }
        """, str(agent), select=("CTX101", "CTX402"))
    prompts = str(tmp_path / "src" / "prompts" / "research.ts")
    assert [(f.code, f.span.path, f.span.line, f.confidence.value, f.message.split(";")[0])
            for f in findings] == [
        ("CTX101", prompts, 2, "medium", "`pass + 1` changes on every pass of the loop that builds the prompt"),
        ("CTX402", prompts, 10, "high", "`notes` carries untrusted content (fetch(...).text()) in the system role, "
                                       "where text has the most authority. Move it to a user message, wrapped in a delimiter and "
                                       "escaped."),
    ]


def test_a_listing_of_the_projects_own_docs_read_through_an_aliased_prompt_module_is_not_third_party(tmp_path):
    (tmp_path / "tsconfig.json").write_text('{"compilerOptions": {"paths": {"@/*": ["./*"]}}}', encoding="utf-8")
    (tmp_path / "lib" / "docs").mkdir(parents=True)
    (tmp_path / "lib" / "docs" / "button.ts").write_text(
        'export const name = "Button";\nexport const usage = `<Button variant="outline">Save</Button>`;\n',
        encoding="utf-8")
    (tmp_path / "lib" / "docs" / "index.ts").write_text(
        'import * as button from "./button";\nexport default [button];\n', encoding="utf-8")
    (tmp_path / "lib" / "prompt.ts").write_text(textwrap.dedent("""\
        import docs from "./docs";
        export function codingPrompt() {
          const listed = docs.map((doc) => `- ${doc.name}: ${doc.usage}`).join("\\n");
          return `You write React components with Tailwind classes and no other styling library.
        Use only the components listed below, import each by its name, and never redefine one.
        ${listed}`;
        }
        """), encoding="utf-8")
    findings = lint("""\
        import OpenAI from "openai";
        import { codingPrompt } from "@/lib/prompt";

        const client = new OpenAI();

        export async function write(request: string) {
          return client.chat.completions.create({
            model: "gpt-4o",
            max_tokens: 2000,
            messages: [
              { role: "system", content: codingPrompt() },
              { role: "user", content: request },
            ],
          });
        }
        """, str(tmp_path / "app" / "route.ts"), select=("CTX401", "CTX402"))
    assert findings == []


def test_a_loop_counter_that_numbers_the_parts_of_one_prompt_is_no_volatile_value(tmp_path):
    (tmp_path / "fmt.ts").write_text(
        "export function source(index: number, title: string) {\n  return `Source ${index + 1}: ${title}`;\n}\n",
        encoding="utf-8")
    findings = lint("""\
        import OpenAI from "openai";
        import { source } from "./fmt";

        const client = new OpenAI();

        export async function answer(question: string, titles: string[]) {
          const lines: string[] = [];
          for (let i = 0; i < titles.length; i++) {
            lines.push(source(i, titles[i]));
          }
          return client.chat.completions.create({
            model: "gpt-4o",
            max_tokens: 400,
            messages: [
              { role: "system", content: `Answer from the sources below and cite them by number.
        ${lines.join("\\n")}
        Keep the answer under five sentences, say so when the sources disagree, and never invent a source.
        Quote the number of every source you use, and never cite a source that is not listed above.` },
              { role: "user", content: question },
            ],
          });
        }
        """, str(tmp_path / "answer.ts"), select=("CTX101",))
    assert findings == []


def test_no_tsconfig_above_the_linted_tree_is_read(tmp_path):
    """An alias declared in a tsconfig.json above the folder `ctxlint check` is run in names no
    module of the tree: neither the config nor the module it points to is read. The same config
    inside the tree is."""
    outer = tmp_path / "outer"
    (outer / "shared").mkdir(parents=True)
    (outer / "shared" / "prompts.ts").write_text(
        f"export const system = `Today is ${{new Date().toISOString()}}. {'Answer billing questions. ' * 60}`;\n",
        encoding="utf-8")
    app = outer / "app"
    app.mkdir()
    (app / "chat.ts").write_text(textwrap.dedent("""\
        import OpenAI from "openai";
        import { system } from "@shared/prompts";

        const client = new OpenAI();

        export async function ask(question: string) {
          return client.chat.completions.create({
            model: "gpt-4o",
            max_tokens: 300,
            messages: [{ role: "system", content: system }, { role: "user", content: question }],
          });
        }
        """), encoding="utf-8")
    config = '{"compilerOptions": {"paths": {"@shared/*": ["./shared/*"]}}}'
    (outer / "tsconfig.json").write_text(config, encoding="utf-8")

    def clocks(root: Path) -> list[str]:
        run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                              "--select", "CTX101", "."], capture_output=True, text=True, cwd=root)
        assert run.returncode in (0, 1), run.stderr
        return [f["path"] for f in json.loads(run.stdout)]

    assert clocks(app) == []
    assert clocks(outer) == ["shared/prompts.ts"]


MODEL_TREE = {
    "src/llm/model.ts": """\
        export interface ReplyRequest { prompt: string; maxTokens?: number }
        export interface Replier { reply(request: ReplyRequest): Promise<string> }
        """,
    "src/llm/openai.ts": """\
        import OpenAI from "openai";
        import { Replier, ReplyRequest } from "./model";

        export class OpenAIReplier implements Replier {
          private client = new OpenAI();
          async reply(request: ReplyRequest): Promise<string> {
            const res = await this.client.chat.completions.create({
              model: "gpt-4o-mini",
              messages: [{ role: "user", content: request.prompt }],
              max_tokens: request.maxTokens,
            });
            return res.choices[0].message.content ?? "";
          }
        }
        """,
    "src/support.ts": """\
        import { Replier } from "./llm/model";

        export async function answer(replier: Replier, question: string) {
          return replier.reply({ prompt: `Answer the customer: ${question}` });
        }
        """,
    "src/cli.ts": """\
        import { OpenAIReplier } from "./llm/openai";
        import { answer } from "./support";

        console.log(await answer(new OpenAIReplier(), process.argv[2]));
        """,
}


def _model_class_findings(root: Path) -> list[tuple[str, int, str]]:
    run = subprocess.run([sys.executable, "-m", "ctxlint.cli", "check", "--no-cache", "--output-format", "json",
                          "--select", "CTX201", "."], capture_output=True, text=True, cwd=root)
    assert run.returncode in (0, 1), run.stderr
    return [(f["path"], f["line"], f["kind"]) for f in json.loads(run.stdout)]


def test_a_project_model_class_is_followed_to_its_implementations_in_the_tree(tmp_path):
    """`replier.reply({...})` on a parameter typed with the project's interface runs the class of
    the tree that implements it, which takes its limit from the call: the call gives none. A mock
    in a test folder (it sends no request) does not hide the real implementation."""
    for name, text in MODEL_TREE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    (tmp_path / "src/__tests__").mkdir()
    (tmp_path / "src/__tests__/fake.ts").write_text(textwrap.dedent("""\
        import { Replier, ReplyRequest } from "../llm/model";

        export class FakeReplier implements Replier {
          async reply(request: ReplyRequest): Promise<string> { return "ok"; }
        }
        """), encoding="utf-8")
    assert _model_class_findings(tmp_path) == [("src/support.ts", 4, "model-class-unset")]


def _linked_packages(tmp_path, spec: str):
    """An extension that imports a helper of the monorepo's shared package by the package's name,
    declared in its package.json as a path (``"shared": "file:../shared"``)."""
    (tmp_path / "shared" / "text").mkdir(parents=True)
    (tmp_path / "shared" / "text" / "trim.ts").write_text(textwrap.dedent("""\
        export function keepLastLines(text: string, maxLines: number): string {
          const lines = text.split("\\n");
          if (lines.length <= maxLines) return text;
          return lines.slice(-maxLines).join("\\n");
        }
        """), encoding="utf-8")
    (tmp_path / "ext" / "src").mkdir(parents=True)
    (tmp_path / "ext" / "package.json").write_text(
        '{"name": "ext", "dependencies": {"shared": "%s", "openai": "^4.0.0"}}' % spec, encoding="utf-8")
    return lint("""\
        import OpenAI from "openai";
        import { keepLastLines } from "shared/text/trim";

        const client = new OpenAI();

        export async function edit(fileText: string, instruction: string) {
          const before = keepLastLines(fileText, 400);
          return client.chat.completions.create({
            model: "gpt-4o",
            max_tokens: 800,
            messages: [{ role: "user", content: `The file so far:\\n${before}\\n\\n${instruction}` }],
          });
        }
        """, str(tmp_path / "ext" / "src" / "edit.ts"), select=("CTX205",))


def test_a_helper_of_a_package_linked_by_path_is_read_as_a_module_of_the_tree(tmp_path):
    findings = _linked_packages(tmp_path, "file:../shared")
    assert [(f.code, f.span.line, f.message.split(" and ")[0]) for f in findings] == [
        ("CTX205", 7, "`keepLastLines(fileText, 400)` cuts the text to a fixed number of lines from its end "
                      "(the start is dropped)")]


def test_a_package_of_the_registry_is_not_read_as_one_of_the_tree(tmp_path):
    assert _linked_packages(tmp_path, "^1.2.0") == []


def test_tool_named_by_an_enum_member_is_named_as_written():
    # A name the front-end cannot read (an enum of another module) is shown as the source writes
    # it, so messages never call a named tool "unnamed".
    request = parse("""
        import OpenAI from "openai";
        import { ToolNames } from "./names";
        const client = new OpenAI();
        const editTool = {
          type: "function",
          function: { name: ToolNames.Edit, description: "Edit a file.",
                      parameters: { type: "object", properties: { path: { type: "string" } } } },
        };
        export async function run(q: string) {
          return client.chat.completions.create({ model: "gpt-4o", max_tokens: 100,
            messages: [{ role: "user", content: q }], tools: [editTool] });
        }
        """).requests[0]
    [tool] = request.tools
    assert tool.name is None and tool.written == "ToolNames.Edit"


def test_an_entry_of_a_log_the_loop_reads_and_appends_to_says_so():
    # A list declared before a loop, appended to on each pass and read in the same pass (an
    # agent's record of its steps), is a log: each request re-sends it with one entry more.
    # Filled in one loop and read after it, the same list is a single request's content.
    source = """
        import OpenAI from "openai";
        const client = new OpenAI();
        export async function run(task: string, files: string[]) {
          const tried: string[] = [];
          let pass = 0;
          while (pass < 4) {
            pass++;
            const reply = await client.chat.completions.create({ model: "gpt-4o", max_tokens: 200,
              messages: [{ role: "system", content: `Tried:\\n${tried.join("\\n")}` }, { role: "user", content: task }] });
            tried.push(`Pass ${pass}: ${reply.choices[0].message.content}`);
          }
          const listed: string[] = [];
          for (const file of files) {
            listed.push(`File ${file}`);
          }
          return client.chat.completions.create({ model: "gpt-4o", max_tokens: 200,
            messages: [{ role: "system", content: `Files:\\n${listed.join("\\n")}` }, { role: "user", content: task }] });
        }
        """
    looped, once = parse(source).requests
    logged = {s.text: src for s in looped.segments if s.slot
              for src in s.slot.sources if src.kind is SourceKind.LOG_ENTRY}
    assert {t: (s.detail, s.span.line) for t, s in logged.items()} == {
        "pass": ("the loop `while (pass < 4)` (line 7)", 11),
        "reply.choices[0].message.content": ("the loop `while (pass < 4)` (line 7)", 11)}
    assert not [s for s in once.segments if s.slot and any(x.kind is SourceKind.LOG_ENTRY for x in s.slot.sources)]


def test_items_of_a_type_another_module_renders_are_read_without_prompt_words(tmp_path):
    # No prompt word in the provider: it is read because the tree renders the `body` of its items.
    (tmp_path / "render.ts").write_text(textwrap.dedent("""\
        import type { Note } from "./types";

        export const notesText = (notes: Note[]) => notes.map((n) => n.body).join("\\n");
        """), encoding="utf-8")
    provider = textwrap.dedent("""\
        import type { Note } from "./types";
        import { Article } from "./article";

        export async function pageNotes(address: string): Promise<Note[]> {
          const html = await (await fetch(address)).text();
          const article = new Article(html);
          return [{ title: address, body: article.text }, { title: "note", body: "See the page." }];
        }
        """)
    path = str(tmp_path / "notes.ts")
    linter = Linter(Settings(root=tmp_path), load_catalogue(), select=["CTX401"])
    findings = linter.lint_text(provider, path, path, "typescript")
    assert [(f.code, f.span.line, f.span.column, f.confidence.value, f.message.split(" with ")[0])
            for f in findings] == [
        ("CTX401", 7, 35, "high", "`article.text` carries untrusted content (fetch(...).text(), line 5)")]
    # In a tree that renders no item's text, the same module is passed over before tree-sitter reads it.
    (tmp_path / "alone").mkdir()
    alone = str(tmp_path / "alone" / "notes.ts")
    linter = Linter(Settings(root=tmp_path / "alone"), load_catalogue(), select=["CTX401"])
    assert linter.lint_text(provider, alone, alone, "typescript") == []
