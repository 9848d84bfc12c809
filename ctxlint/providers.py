"""What the providers' APIs are made of, written once for every front-end.

Request files, prompt formats and code that calls an SDK all name the same things: the roles
of messages, the types of a message's text parts, and for each API shape the keys that carry
the system text, the messages, the tools and the output limit. Every front-end reads them here:
a provider that renames a key (``max_tokens`` became ``max_completion_tokens``, then
``max_output_tokens`` in the Responses API, ``maxOutputTokens`` in the AI SDK 5) is changed in one
place. Which SDK call sends which shape is the framework catalogue's knowledge
(``frameworks/*.yaml``), not this table's.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ctxlint.model import Role

# Every name a provider or framework gives a message's role.
ROLE_NAMES: dict[str, Role] = {
    "system": Role.SYSTEM,
    "developer": Role.DEVELOPER,
    "user": Role.USER,
    "human": Role.USER,  # LangChain
    "placeholder": Role.USER,  # LangChain's ("placeholder", "{history}"): the turns given later
    "assistant": Role.ASSISTANT,
    "ai": Role.ASSISTANT,  # LangChain
    "model": Role.ASSISTANT,  # Gemini
    "tool": Role.TOOL,
    "function": Role.TOOL,  # OpenAI's older function results
    "ipython": Role.TOOL,  # Llama 3's tool results
    # Model-native document turns (Granite's `document` role): the API marks their text as data,
    # as it does a tool result's.
    "document": Role.TOOL,
    "documents": Role.TOOL,
}


def roles(*names: str) -> dict[str, Role]:
    """The roles a format accepts by name (Dotprompt's `{{role "model"}}` knows no "human")."""
    return {name: ROLE_NAMES[name] for name in names}


# The types of a content part that holds text (Chat Completions, Responses input and output).
TEXT_PARTS = ("text", "input_text", "output_text")
# The types of a content part that carries a tool's result (Anthropic's, the AI SDK's), and the
# keys its result may be under, the first present read.
TOOL_RESULT_PARTS = ("tool_result", "tool-result")
TOOL_RESULT_KEYS = ("content", "output")


def part_text(kind: str | None, keys: Collection[str]) -> tuple[str, bool] | None:
    """The key under which a content part of type ``kind`` holding ``keys`` keeps its text, and
    whether that text is a tool's result; None for a part that holds no text (an image)."""
    if kind in TEXT_PARTS and "text" in keys:
        return "text", False
    if kind in TOOL_RESULT_PARTS:
        key = next((k for k in TOOL_RESULT_KEYS if k in keys), None)
        return (key, True) if key is not None else None
    return None


@dataclass(frozen=True)
class ApiShape:
    """The keys of one API's request: those that make an object such a request, where the
    system text, the messages, a text input and the tools are, and the output-limit keys in
    order of preference (the first is the one to suggest; ``older`` names an older key still
    accepted, with the version that used it)."""

    name: str
    request_keys: frozenset[str]
    limit_keys: tuple[str, ...]
    system: tuple[str, ...] = ()
    messages: tuple[str, ...] = ("messages",)
    input: tuple[str, ...] = ()
    tools: str = "tools"
    tools_by_name: bool = False  # `tools: {name: tool, ...}` rather than a list
    settings: str = ""  # the object the limit is set in (`generationConfig.`)
    bare_prompt: bool = False  # the call may be given the prompt text alone, with no options (`ai.generate("Hi")`)
    older: tuple[str, str] | None = None
    posted: bool = True  # an HTTP API's body may have this shape (not a session's options)

    def hint(self, written: str = "") -> str:
        """How to set the limit, as the host writes a key: ``=`` for a Python keyword, ``:`` for
        a property of a JavaScript object, nothing for a key of a request file."""
        hint = f"`{self.settings}{self.limit_keys[0]}{written}`"
        if self.older is not None:
            version, key = self.older
            hint += f" ({version}: `{key}{written}`)"
        return hint


OPENAI_CHAT = ApiShape("openai-chat", frozenset({"model", "messages"}), ("max_completion_tokens", "max_tokens"))
OPENAI_RESPONSES = ApiShape("openai-responses", frozenset({"model", "input", "instructions"}), ("max_output_tokens",),
                            system=("instructions",), input=("input",))
ANTHROPIC = ApiShape("anthropic", frozenset({"model", "messages", "system"}), ("max_tokens",), system=("system",))
GEMINI = ApiShape("gemini", frozenset({"contents"}), ("maxOutputTokens", "max_output_tokens"),
                  system=("systemInstruction",), messages=("contents",), settings="generationConfig.")
# The Vercel AI SDK's options (`generateText({...})`): one shape whatever the provider.
AI_SDK = ApiShape("ai-sdk", frozenset({"model", "prompt", "messages", "system"}), ("maxOutputTokens", "maxTokens"),
                  system=("system",), input=("prompt",), tools_by_name=True, older=("AI SDK 4", "maxTokens"))
# Genkit's `ai.generate({...})`: the limit is in `config`, whatever the model's provider.
GENKIT = ApiShape("genkit", frozenset({"prompt", "messages", "system"}), ("maxOutputTokens",), system=("system",),
                  input=("prompt",), settings="config.", bare_prompt=True)
# The Google Gen AI SDK for JavaScript (`ai.models.generateContent({model, contents, config})`): the
# limit and the system text are in `config`.
GOOGLE_GENAI_JS = ApiShape("google-genai", frozenset({"contents"}), ("maxOutputTokens",), messages=("contents",),
                           settings="config.")
# A chat session of Google's older JavaScript SDK (`model.startChat({history, generationConfig})`,
# @google/generative-ai): the turns so far in `history`, the limit in `generationConfig`.
GEMINI_CHAT_JS = ApiShape("gemini-chat", frozenset({"history", "generationConfig"}), ("maxOutputTokens",),
                          system=("systemInstruction",), messages=("history",), settings="generationConfig.",
                          posted=False)
# A model of Google's older JavaScript SDK (`genAI.getGenerativeModel({model, generationConfig})`,
# @google/generative-ai) asked once: `model.generateContent({contents, generationConfig})`, or
# the prompt alone (`model.generateContent("...")`, read as `prompt`); the model's own settings
# may hold the limit.
GEMINI_MODEL_JS = ApiShape("gemini-model", frozenset({"contents", "prompt"}), ("maxOutputTokens",),
                           system=("systemInstruction",), messages=("contents",), input=("prompt",),
                           settings="generationConfig.", bare_prompt=True, posted=False)
# Ollama's JavaScript client (`ollama.chat({model, messages, options})`): the limit is `num_predict`
# in `options`, and Ollama sets none by default.
OLLAMA_JS = ApiShape("ollama", frozenset({"messages", "prompt"}), ("num_predict",), system=("system",),
                     input=("prompt",), settings="options.")
# Cohere's v1 chat (`{model, message, chat_history, preamble}` posted to `/v1/chat`): the latest
# message alone, the turns before it in `chat_history`.
COHERE_V1 = ApiShape("cohere-v1", frozenset({"model", "message", "chat_history"}), ("max_tokens",),
                     system=("preamble",), messages=("chat_history",), input=("message",))
# Amazon Bedrock's Converse API (`new ConverseCommand({modelId, messages, system, inferenceConfig})`).
BEDROCK_CONVERSE = ApiShape("bedrock-converse", frozenset({"messages"}), ("maxTokens",), system=("system",),
                            settings="inferenceConfig.")
# A run of OpenAI's Assistants API (`client.beta.threads.runs.stream(threadId, {assistant_id, ...})`):
# the assistant's instructions may be replaced or added to, turns added before it runs.
OPENAI_ASSISTANTS_RUN = ApiShape("openai-assistants-run", frozenset({"assistant_id"}), ("max_completion_tokens",),
                                 system=("instructions", "additional_instructions"),
                                 messages=("additional_messages",), posted=False)
# A text completion (`{model, prompt}`, OpenAI's legacy Completions and the servers that copy it;
# llama.cpp's server names its limit `n_predict`).
# A text completion (a prompt, no turns): OpenAI's, llama.cpp's server (`n_predict`), and Anthropic's
# legacy Text Completions API (`/v1/complete`), which requires `max_tokens_to_sample`.
OPENAI_COMPLETIONS = ApiShape("openai-completions", frozenset({"model", "prompt"}),
                              ("max_tokens", "n_predict", "max_tokens_to_sample"), messages=(), input=("prompt",))
# A chat completion posted over HTTP, to OpenAI or to any of the servers that copy its API (vLLM,
# Groq, OpenRouter, LM Studio...): `max_tokens` is the limit they all take, OpenAI's newer key too
# (MiniMax's, whose messages are its own, takes `tokens_to_generate`).
OPENAI_COMPATIBLE_CHAT = ApiShape("openai-compatible-chat", frozenset({"model", "messages"}),
                                  ("max_tokens", "max_completion_tokens", "tokens_to_generate"))
# Azure's older JavaScript SDK (@azure/openai 1.0 betas: `client.getChatCompletions(deployment,
# messages, {maxTokens})`): the deployment and the messages are arguments, the settings after them.
AZURE_OPENAI_JS = ApiShape("azure-openai-js", frozenset({"model", "messages"}), ("maxTokens",), posted=False)
API_SHAPES = {shape.name: shape for shape in (OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, GEMINI, AI_SDK, GENKIT,
                                               GOOGLE_GENAI_JS, GEMINI_CHAT_JS, GEMINI_MODEL_JS, OLLAMA_JS,
                                               BEDROCK_CONVERSE, COHERE_V1, OPENAI_ASSISTANTS_RUN, OPENAI_COMPLETIONS,
                                               OPENAI_COMPATIBLE_CHAT, AZURE_OPENAI_JS)}

# OpenAI's Batch API: a line of a batch job's input file is `{"custom_id", "method", "url", "body"}`,
# and the body is a request to the endpoint the url names, run as written (platform.openai.com/docs/
# guides/batch, 2026-12): its own API shape.
BATCH_LINE_KEYS = frozenset({"custom_id", "url", "body"})
BATCH_ENDPOINTS = {"/v1/chat/completions": OPENAI_CHAT, "/v1/responses": OPENAI_RESPONSES,
                   "/v1/completions": OPENAI_COMPLETIONS}

# Keys of a request to a model that does not answer in text (speech, embeddings, images), which
# may otherwise have a chat request's shape (`model` with `input` or `prompt`).
NOT_TEXT_KEYS = frozenset({"voice", "dimensions", "encoding_format", "size", "width", "height", "quality",
                           "aspect_ratio", "negative_prompt"})


# Paths of a provider's API that give no text answer, whatever the body looks like: images,
# vectors, speech, moderation, and the context caches a request only refers to.
_NOT_TEXT_ENDPOINT = re.compile(r"/images/|/embeddings?\b|:(?:batchE|e)mbedContents?\b|/audio/|/moderations\b|"
                                r"/cachedContents\b|/rerank\b", re.IGNORECASE)


def not_text_endpoint(url_text: str) -> bool:
    """Whether the static text of a URL a body is posted to names an endpoint that answers in
    something other than text (``/v1/images/generations``, ``.../cachedContents``)."""
    return _NOT_TEXT_ENDPOINT.search(url_text) is not None


def gemini_body(keys: Collection[str]) -> bool:
    """Whether a posted body is Gemini's REST request, which names the model in the URL
    (`models/gemini-2.0-flash:generateContent`): its turns with its generation settings."""
    return "contents" in keys and bool({"generationConfig", "generation_config"} & set(keys))


def chat_payload(keys: Collection[str]) -> bool:
    """Whether a dict with these keys, sent as a body, is a chat request: a model, and messages
    of one of the API shapes (``messages``, Gemini's ``contents``, Cohere's ``chat_history``), or
    a prompt or Responses ``input`` with nothing that
    makes it a request for media or vectors; or Gemini's turns with its ``generationConfig``,
    the model being in the URL. An ``input`` alone is an embedding's too: it counts
    with instructions or tools."""
    if NOT_TEXT_KEYS & set(keys):
        return False
    if "model" not in keys:
        return gemini_body(keys)
    if any(key in keys for shape in API_SHAPES.values() if shape.posted for key in shape.messages):
        return True
    return "prompt" in keys or ("input" in keys and bool({"instructions", "tools"} & set(keys)))


# The shapes a posted body may have (what ``posted_shape`` answers).
POSTED_SHAPES = (GEMINI, OLLAMA_JS, COHERE_V1, OPENAI_RESPONSES, ANTHROPIC, OPENAI_COMPATIBLE_CHAT, OPENAI_COMPLETIONS)


def posted_limits() -> tuple[tuple[str, str], ...]:
    """Every place a posted body may hold its output limit, whatever its shape: the object that
    holds it (``""`` for the body itself, ``generationConfig``, ``options``) and the key, each once,
    in the shapes' order. Both front-ends read a body's limit from this one table."""
    places: dict[tuple[str, str], None] = {}
    for shape in POSTED_SHAPES:
        for key in shape.limit_keys:
            places[shape.settings.rstrip("."), key] = None
    return tuple(places)


def posted_shape(keys: Collection[str]) -> ApiShape:
    """The API shape a body that ``chat_payload`` takes for a chat request is written for, as its
    keys say: Gemini's turns (``contents``); Ollama's ``options`` (which no other API's body has);
    Cohere's ``chat_history`` or lone ``message``; a Responses ``input``; Anthropic's ``system``
    beside the messages; the messages of a chat completion (to OpenAI or a server that copies its
    API); else a text completion's ``prompt``."""
    keys = set(keys)
    if "contents" in keys:
        return GEMINI
    if "options" in keys:
        return OLLAMA_JS
    if "chat_history" in keys or ("message" in keys and "messages" not in keys):
        return COHERE_V1
    if "input" in keys:
        return OPENAI_RESPONSES
    if "messages" in keys:
        return ANTHROPIC if "system" in keys else OPENAI_COMPATIBLE_CHAT
    return OPENAI_COMPLETIONS


# Every key a request file or prompt format may set the output limit with, in the order a file
# that sets two is read: the providers' own first, then the frameworks' (Hugging Face's
# `max_new_tokens`).
LIMIT_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens", "maxOutputTokens", "maxTokens",
              "max_new_tokens")

# The output limit as Python code passes it, a keyword argument of an SDK or framework call: the
# keys above as Python spells them, and Ollama's `num_predict`...
LIMIT_KEYWORDS = (*(key for key in LIMIT_KEYS if key.islower()), "num_predict")
# ... and the names of a parameter or attribute that holds one, also Anthropic's older
# `max_tokens_to_sample` and Hugging Face's `max_length`.
LIMIT_NAMES = (*LIMIT_KEYWORDS, "max_tokens_to_sample", "max_length")
# The same without `max_length`, which may count characters: the names that surely count tokens.
TOKEN_LIMIT_NAMES = frozenset(name for name in LIMIT_NAMES if name != "max_length")
# The keys that size the context window the prompt and the answer share (Ollama's `num_ctx`,
# llama.cpp's `n_ctx`): a value sent under one is the window, not a bound of the answer.
WINDOW_KEYS = frozenset({"num_ctx", "n_ctx", "context_window", "context_length"})


# Models that do not answer in text: an output-token limit means nothing for embeddings,
# moderation, speech, transcription, images and rerankers, whatever shape their request has.
_NOT_TEXT_MODEL = re.compile(r"embed|moderation|tts|whisper|transcri|dall-e|imagen?\b|image-|rerank", re.IGNORECASE)


def answers_in_text(model: str) -> bool:
    """Whether the model a request names (a literal) answers in text, as far as its name says."""
    return not _NOT_TEXT_MODEL.search(model)

