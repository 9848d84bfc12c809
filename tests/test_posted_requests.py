"""Chat requests posted over HTTP from TypeScript and JavaScript (fetch, axios, got, ky): the body
read as a request of the API shape its keys say, a body posted to the app's own route left alone."""

from __future__ import annotations

import textwrap

from ctxlint.catalogue import load_catalogue
from ctxlint.config import Settings
from ctxlint.engine import Linter
from ctxlint.frontends.typescript import might_hold_prompts, parse_file
from ctxlint.model import Role
from ctxlint.providers import (
    ANTHROPIC,
    COHERE_V1,
    GEMINI,
    OLLAMA_JS,
    OPENAI_COMPATIBLE_CHAT,
    OPENAI_COMPLETIONS,
    OPENAI_RESPONSES,
    posted_shape,
)


def parse(source: str, path: str = "client.ts"):
    return parse_file(textwrap.dedent(source), path)


def lint(source: str, path: str = "client.ts"):
    linter = Linter(Settings(root=__import__("pathlib").Path(".")), load_catalogue(), select=["ALL"])
    return linter.lint_text(textwrap.dedent(source), path, path, "typescript")


def test_the_keys_of_a_posted_body_say_its_api_shape():
    assert posted_shape({"contents", "generationConfig"}) is GEMINI
    assert posted_shape({"model", "messages", "options"}) is OLLAMA_JS
    assert posted_shape({"model", "message", "chat_history"}) is COHERE_V1
    assert posted_shape({"model", "input", "instructions"}) is OPENAI_RESPONSES
    assert posted_shape({"model", "messages", "system"}) is ANTHROPIC
    assert posted_shape({"model", "messages"}) is OPENAI_COMPATIBLE_CHAT
    assert posted_shape({"model", "prompt"}) is OPENAI_COMPLETIONS


def test_a_module_that_only_posts_a_chat_body_is_read():
    posting = "export const go = (url, history) => fetch(url, {body: JSON.stringify({model: 'm', messages: history})});"
    assert might_hold_prompts(posting)
    assert not might_hold_prompts("export const go = (url, rows) => fetch(url, {body: JSON.stringify({rows})});")
    assert not might_hold_prompts("export const show = (history) => history.messages;")
    # no model, so no chat request (the app's own route takes the settings): not read for this
    assert not might_hold_prompts("export const go = (history) => fetch('/api/chat', {body: JSON.stringify({messages: "
                                  "history})});")


def test_a_fetched_body_is_a_request_with_its_system_text_messages_and_limit():
    parsed = parse("""\
        export async function ask(history: { role: string; content: string }[], question: string) {
          const body = {
            model: "claude-sonnet-4-5",
            system: "You answer questions about the billing API.",
            messages: [...history, { role: "user", content: question }],
            max_tokens: 700,
          };
          const response = await fetch("https://api.anthropic.com/v1/messages", {
            method: "POST",
            body: JSON.stringify(body),
          });
          return response.json();
        }
        """)
    [request] = parsed.requests
    assert request.anchor.line == 8
    assert request.model == "claude-sonnet-4-5"
    assert request.output_limit is not None and (request.output_limit.key, request.output_limit.value) == \
        ("max_tokens", 700)
    assert [s.role for s in request.segments][:1] == [Role.SYSTEM]
    assert Role.USER in {s.role for s in request.segments}


def test_a_page_fetched_into_the_system_text_of_a_posted_body_is_untrusted_in_the_system_role():
    findings = lint("""\
        export async function summarise(url: string, key: string) {
          const page = await (await fetch(url)).text();
          const response = await fetch("https://api.openai.com/v1/chat/completions", {
            method: "POST",
            headers: { Authorization: `Bearer ${key}` },
            body: JSON.stringify({
              model: "gpt-4o-mini",
              max_tokens: 300,
              messages: [
                { role: "system", content: `Summarise this page:\\n${page}` },
                { role: "user", content: "Three bullet points." },
              ],
            }),
          });
          return (await response.json()).choices[0].message.content;
        }
        """)
    assert [(f.code, f.span.line) for f in findings if f.code in ("CTX201", "CTX401", "CTX402")] == \
        [("CTX401", 10), ("CTX402", 10)]


def test_posts_of_axios_got_and_ky_and_their_instances_without_a_limit():
    findings = lint("""\
        import axios from "axios";
        import got from "got";
        import ky from "ky";

        const llm = axios.create({ baseURL: process.env.LLM_BASE_URL });
        const local = ky.create({ prefixUrl: "http://localhost:11434" });

        export async function one(question: string) {
          const messages = [{ role: "user", content: question }];
          await axios.post("https://api.groq.com/openai/v1/chat/completions", { model: "llama-3.3-70b", messages });
          await llm.post("/chat/completions", { model: "gpt-4o-mini", messages });
          await got.post("https://api.mistral.ai/v1/chat/completions", { json: { model: "mistral-small", messages } });
          await local.post("api/generate", { json: { model: "llama3.2", prompt: question, options: { num_ctx: 8 } } });
          await axios.post("/api/chat", { model: "gpt-4o-mini", messages });
          await axios.post("https://hooks.example.com/notify", { text: question });
        }
        """)
    assert [(f.code, f.span.line, f.message.split(" Set ")[1].split(" to ")[0]) for f in findings
            if f.code == "CTX201"] == [
        ("CTX201", 10, "`max_tokens:`"),
        ("CTX201", 11, "`max_tokens:`"),
        ("CTX201", 12, "`max_tokens:`"),
        ("CTX201", 13, "`options.num_predict:`"),
    ]


def test_a_relative_path_on_an_instance_is_under_its_base_url_and_a_bare_relative_fetch_is_the_apps_own():
    parsed = parse("""\
        import axios from "axios";

        const api = axios.create({ baseURL: "https://api.together.xyz/v1" });

        export async function viaInstance(messages: object[]) {
          return api.post("/chat/completions", { model: "meta-llama/Llama-3-8b-chat-hf", messages });
        }

        export async function viaOwnRoute(messages: object[]) {
          return fetch(`/api/chat/${"openai"}`, { body: JSON.stringify({ model: "gpt-4o", messages }) });
        }

        export async function viaCompiledRoute(messages: object[]) {
          return fetch("".concat("/", "v1/chat/completions"), { body: JSON.stringify({ model: "m", messages }) });
        }
        """)
    assert [r.anchor.line for r in parsed.requests] == [6]


def test_a_limit_spread_into_a_posted_body_from_a_method_of_the_class_is_read():
    parsed = parse("""\
        export class LocalServer {
          constructor(private base: string, private model: string) {}

          private settings(options: { maxTokens?: number; temperature?: number }) {
            const settings = { n_predict: options.maxTokens, temperature: options.temperature };
            return settings;
          }

          async complete(prompt: string, options: { maxTokens?: number }) {
            return fetch(new URL("completion", this.base), {
              method: "POST",
              body: JSON.stringify({ model: this.model, prompt, stream: true, ...this.settings(options) }),
            });
          }
        }
        """)
    [request] = parsed.requests
    assert request.output_limit is not None and request.output_limit.key == "n_predict"
