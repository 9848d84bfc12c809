"""JSON and YAML files: chat requests, tool catalogues and YAML prompt templates.

Most JSON and YAML in a repository is not a prompt (package manifests, CI workflows, compose
files, Kubernetes manifests, OpenAPI documents, lock files). A cheap look at the raw text
decides first whether a file can be one of the shapes below; anything else returns an empty
result without being parsed, and its syntax errors are none of ctxlint's business.

Shapes recognised (parse only: nothing is rendered, YAML is loaded with the safe loader):

- a **chat request**: OpenAI chat completions (``model``, ``messages``, ``tools``,
  ``max_completion_tokens``/``max_tokens``), OpenAI Responses (``instructions``, ``input``,
  ``max_output_tokens``), Anthropic messages (``system`` as text or blocks, ``messages`` with
  content blocks, ``cache_control``, ``max_tokens``), GitHub Models ``.prompt.yml``
  (``modelParameters.maxTokens``);
- a **tool catalogue**: a list of tools, ``{"tools": [...]}``, an MCP ``tools/list`` result
  ``{"result": {"tools": [...]}}`` or legacy ``{"functions": [...]}``, each tool in the OpenAI
  (``type: function``, nested or flat), legacy function, Anthropic (``input_schema``) or MCP
  (``inputSchema``) shape;
- **YAML prompt files**: string values under keys that name a prompt (``system_prompt: |-``,
  ``instructions``, CrewAI ``role``/``goal``/``backstory``), Semantic Kernel prompt YAML
  (``template`` with ``template_format`` and ``execution_settings``) and LangChain prompt YAML
  (``_type: prompt``).

String values are parsed as templates (Jinja when they hold ``{{``/``{%``; ``{name}`` fields for
f-string formats; ``{{$var}}`` for Semantic Kernel and Handlebars) and every segment gets an
exact file span: offsets inside a decoded JSON string are mapped back through its escapes,
offsets inside a YAML scalar through its indentation and quoting.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from typing import TypeGuard

from ctxlint.frontends import jsonpos, limits
from ctxlint.frontends.jsonpos import Node
from ctxlint.frontends.locate import line_locator
from ctxlint.model import (
    Breakpoint,
    Message,
    OutputLimit,
    ParsedFile,
    Part,
    Request,
    Role,
    Segment,
    Slot,
    Span,
    ToolChoice,
    ToolDef,
)
from ctxlint.numbers import token_count

# --- configuration ------------------------------------------------------------------------

# Keys whose string values are prompt text in YAML prompt files: globs over lower snake case.
PROMPT_KEYS = (
    "*prompt", "*prompt_template", "*prompt_text", "prompt_*", "*_prompt_*",
    "*instructions", "*instruction", "system", "system_message", "system_msg", "developer_message",
    "template", "backstory", "persona", "preamble",
)
# Keys that mention a prompt but hold something else (a file name, an id, a token count).
NOT_PROMPT_KEYS = (
    "*_id", "*_ids", "*_name", "*_names", "*_file", "*_files", "*_path", "*_paths", "*_dir",
    "*_dirs", "*_key", "*_keys", "*_version", "*_tokens", "*_token_*", "*_type", "*_format",
    "*_url", "*_uri", "*_ref", "*_enabled", "*_count", "*_length", "*_size", "*_limit",
    "*_hash", "*_mode", "*_strategy", "*_cache*", "*_source", "*_language", "*_lang",
    "*_registry", "*_loader", "*_class", "*_module", "*_style", "*_timeout", "*_retries",
)
# Prompt keys whose text is sent as the system message, and keys that say it is user text. Any
# other prompt key (`prompt`, `template`) is taken as user text without the key saying so.
SYSTEM_KEYS = ("*system*", "*instruction*", "*developer*", "backstory", "goal", "role", "persona", "preamble")
USER_KEYS = ("*user*", "*human*", "*question*", "*query*")

LIMIT_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens", "maxOutputTokens", "maxTokens",
              "max_new_tokens")
_SETTINGS_TABLES = ("parameters", "model_parameters", "modelParameters", "model_settings", "settings",
                    "generationConfig", "options", "llm_config", "generation_config", "config")

# Files that are never prompts, whatever keys they contain.
_NEVER_NAMES = {
    "package.json", "package-lock.json", "npm-shrinkwrap.json", "composer.json", "pnpm-lock.yaml",
    "yarn.lock", "deno.json", "deno.lock", "bun.lock", ".eslintrc.json", ".babelrc.json",
    ".prettierrc.json", "renovate.json", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml",
    "mkdocs.yml", "mkdocs.yaml", "chart.yaml", "codecov.yml", "dependabot.yml", ".gitlab-ci.yml",
    "action.yml", "action.yaml", "environment.yml", "environment.yaml", "pubspec.yaml",
    "docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml",
}
_NEVER_NAME_GLOBS = ("tsconfig*.json", "jsconfig*.json", "*.lock.json", "docker-compose*.yml",
                     "docker-compose*.yaml",
                     # sample content for `ctxlint budget`, not a request or a tool catalogue
                     "*.fixtures.json", "*.fixtures.yaml", "*.fixtures.yml")
_NEVER_DIRS = (".github/workflows/", ".vscode/", ".idea/", ".devcontainer/", "node_modules/")

# --- cheap sniffing -------------------------------------------------------------------------

_JSON_OBJECT_KEYS = re.compile(
    r'"(?:messages|tools|functions|input_schema|inputSchema)"\s*:|"(?:input|contents)"\s*:\s*\[|"instructions"\s*:\s*"'
    r'|"(?:function|parameters)"\s*:\s*\{|"input"\s*:\s*"')
_JSON_LIST_KEYS = re.compile(r'"(?:parameters|function|input_schema|inputSchema)"\s*:')
_YAML_KEYS = re.compile(
    r"""(?:^|[{,])[ \t]*(?:-[ \t]+)*["']?(?:messages|tools|functions|input_schema|inputSchema|system|template|input|"""
    r"""backstory|persona|preamble|[\w-]*(?:[Pp]rompt|[Ii]nstruction)[\w-]*)["']?[ \t]*:(?:[ \t]|$)""",
    re.MULTILINE,
)
_YAML_WORDS = ("messages", "tools", "functions", "input", "system", "template", "backstory",
               "persona", "preamble", "rompt", "nstruction", "parameters", "function")  # cheaper than _YAML_KEYS
_YAML_LIST_KEYS = re.compile(r"^[ \t]*(?:-[ \t]+)*(?:parameters|function)[ \t]*:(?:[ \t]|$)", re.MULTILINE)
# Top-level keys that mark a YAML document as something else (CI, deployment, API description).
_YAML_FOREIGN = (
    (re.compile(r"^jobs[ \t]*:", re.M), re.compile(r"""^(?:on|"on"|'on'|true)[ \t]*:""", re.M)),  # GitHub Actions
    (re.compile(r"^apiVersion[ \t]*:", re.M), re.compile(r"^kind[ \t]*:", re.M)),  # Kubernetes
    (re.compile(r"^services[ \t]*:", re.M), re.compile(r"^[ \t]+(?:image|build)[ \t]*:", re.M)),  # compose
    (re.compile(r"^(?:openapi|swagger|asyncapi)[ \t]*:", re.M), None),  # OpenAPI / AsyncAPI
    (re.compile(r"^(?:AWSTemplateFormatVersion|Resources)[ \t]*:", re.M), None),  # CloudFormation
    (re.compile(r"^stages[ \t]*:", re.M), re.compile(r"^[ \t]+script[ \t]*:", re.M)),  # GitLab CI
    (re.compile(r"^-[ \t]+(?:hosts|import_playbook)[ \t]*:", re.M), None),  # Ansible
)
_JSON_FOREIGN = re.compile(r'"(?:openapi|swagger|asyncapi|compilerOptions)"\s*:\s*["{]')
_FIRST_SIGNIFICANT = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*(\S)")


def sniff(text: str, path: str) -> str | None:
    """``"json"`` or ``"yaml"`` when the file can hold a request, tools or prompts; else None."""
    suffix = PurePosixPath(path).suffix.lower()
    is_json = suffix == ".json"
    if not is_json and suffix not in (".yaml", ".yml"):
        # Only a configured glob sends any other file here (tool snapshots a test suite writes,
        # `*.tools`): its content says whether it is JSON or YAML.
        is_json = text.lstrip()[:1] in ("{", "[")
    posix = path.replace("\\", "/")
    name = posix.rsplit("/", 1)[-1].lower()
    if name in _NEVER_NAMES or any(fnmatchcase(name, g) for g in _NEVER_NAME_GLOBS):
        return None
    if any(d in "/" + posix for d in ("/" + d for d in _NEVER_DIRS)):
        return None
    if is_json:
        start = text.lstrip()[:1]
        if start == "{":
            found = _JSON_OBJECT_KEYS.search(text) is not None
            if found and _JSON_FOREIGN.search(text, 0, 4096):
                return None
            return "json" if found else None
        if start == "[":
            return "json" if _JSON_LIST_KEYS.search(text) else None
        return None
    if not any(word in text for word in _YAML_WORDS):
        return None
    if not _YAML_KEYS.search(text):
        first = _FIRST_SIGNIFICANT.match(text)
        if not (first and first.group(1) == "-" and _YAML_LIST_KEYS.search(text)):
            return None
    for marker, companion in _YAML_FOREIGN:
        if marker.search(text) and (companion is None or companion.search(text)):
            return None
    return "yaml"


# --- entry point ----------------------------------------------------------------------------


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    kind = sniff(text, path)
    if kind is None:
        return parsed
    ctx = _Context(text, path, parsed)
    try:
        root = ctx.load_json() if kind == "json" else ctx.load_yaml()
    except _Refused as refused:
        parsed.errors.append((ctx.point(refused.offset, refused.line_column), refused.message))
        return parsed
    if root is None:
        return parsed
    try:
        request = _chat_request(ctx, root) or _gemini_request(ctx, root) or _tool_file(ctx, root)
        requests = [request] if request is not None else _yaml_prompts(ctx, root) if kind == "yaml" else []
    except _Refused as refused:  # too big to analyse
        parsed.errors = [(ctx.point(refused.offset), refused.message)]
        return parsed
    parsed.requests.extend(requests)
    return parsed


class _Refused(Exception):
    def __init__(self, message: str, offset: int = 0, line_column: tuple[int, int] | None = None):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.line_column = line_column


class _Context:
    """One file: its text, where offsets are, and how string values become segments."""

    def __init__(self, text: str, path: str, parsed: ParsedFile):
        self.text = text
        self.path = path
        self.parsed = parsed
        self.locate = line_locator(text)
        self.scalars: dict[int, object] = {}  # id(Node) -> its YAML scalar node
        self.strings = 0  # string values turned into segments so far

    # positions
    def point(self, offset: int, line_column: tuple[int, int] | None = None) -> Span:
        line, column = line_column or self.locate(offset)
        return Span.point(self.path, line, column)

    def span(self, start: int, end: int) -> Span:
        line, column = self.locate(start)
        end_line, end_column = self.locate(end)
        return Span(self.path, line, column, end_line, end_column)

    def wrong_type(self, node: Node, what: str, expected: str) -> None:
        """A located error for a value of the wrong JSON type (a content part whose `type` is a list)."""
        self.parsed.errors.append((self.point(node.start), f"invalid request: {what} is {_describe_kind(node)}, "
                                                           f"where the API expects {expected}"))

    def key_span(self, fields: dict, key: str) -> Span:
        key_node = fields[key][0]
        return self.span(key_node.start, key_node.end)

    # loading
    def load_json(self) -> Node:
        try:
            return jsonpos.parse(self.text, detail=_DETAIL_KEYS)
        except jsonpos.JsonError as error:
            raise _Refused(f"invalid JSON: {error.message}", error.offset) from None

    def load_yaml(self) -> Node | None:
        from ctxlint.frontends import yamlsafe

        try:
            node = yamlsafe.compose(self.text)
        except yamlsafe.YamlError as error:
            raise _Refused(error.message, line_column=(error.line + 1, error.column + 1)) from None
        if node is None:
            return None
        return _from_yaml(node, self.scalars, self.text)

    # strings
    def offsets(self, node: Node) -> Callable[[int], int]:
        """From offsets in a string node's decoded value to offsets in the file."""
        scalar = self.scalars.get(id(node))
        if scalar is None:
            return jsonpos.string_offsets(node)
        return _yaml_offsets(self.text, scalar, node.value)

    def segments(self, node: Node, role: Role, index: int, syntax: str = "jinja") -> list[Segment]:
        """The segments of one string value (static text, or a template's slots and text).

        ``syntax``: ``jinja`` (request files: Jinja when the value has ``{{``/``{%``, else static
        text), ``template`` (YAML prompt values: Jinja, else ``{name}`` format fields),
        ``format`` (f-strings: LangChain, CrewAI), ``sk`` (Semantic Kernel), ``handlebars``.
        """
        value = node.value
        if not isinstance(value, str) or not value:
            return []
        # Each string is at least one segment; the analyses are linear in their number.
        self.strings += 1
        if self.strings > limits.MAX_SEGMENTS:
            raise _Refused(limits.too_many_segments(), node.start)
        offsets = self.offsets(node)

        def locate(offset: int) -> tuple[int, int]:
            return self.locate(offsets(offset))

        def span(start: int, end: int) -> Span:
            line, column = locate(start)
            end_line, end_column = locate(end)
            return Span(self.path, line, column, end_line, end_column)

        if syntax in ("jinja", "template") and _HANDLEBARS_BLOCK.search(value) and "{%" not in value:
            # `{{#each}}`, `{{/if}}`, `{{> partial}}` are Handlebars or Mustache, never Jinja: a
            # spec or test file that keeps such templates under a plain key.
            syntax = "handlebars"
        if syntax in ("jinja", "template") and _JINJA_MARKERS.search(value):
            from ctxlint.frontends import jinja

            try:
                found = jinja.parse_template(value, self.path, locate, role)
            except jinja.TemplateError as error:
                self.parsed.errors.append((self.point(offsets(error.offset)), error.message))
                return [Segment(role, span(0, len(value)), value, None, index)]
            return [_with_index(s, index) for s in found]
        if syntax in ("template", "format") and _FORMAT_FIELD.search(value):
            return _format_segments(value, role, index, span)
        if syntax in ("sk", "handlebars") and "{{" in value:
            return self._double_brace(value, role, index, syntax, offsets, locate, span)
        return [Segment(role, span(0, len(value)), value, None, index)]

    def _double_brace(self, value, role, index, syntax, offsets, locate, span) -> list[Segment]:
        """Semantic Kernel's own syntax (``{{$var}}``, ``{{time.Date}}``, ``<message role>``
        elements) or Handlebars (``{{#each history}}``), read by those front-ends' parsers."""
        from ctxlint.frontends import handlebars, semantic_kernel

        try:
            if syntax == "sk":
                found = semantic_kernel.parse_template(value, self.path, locate)
            else:
                found = handlebars.parse_template(value, self.path, locate, role)
        except (semantic_kernel.TemplateError, handlebars.HandlebarsError) as error:
            self.parsed.errors.append((self.point(offsets(error.offset)), error.message))
            return [Segment(role, span(0, len(value)), value, None, index)]
        return [_with_index(s, index + s.message_index) for s in found]


_JINJA_MARKERS = re.compile(r"\{\{|\{%|\{#")
_HANDLEBARS_BLOCK = re.compile(r"\{\{~?\s*[#/>^]")
# JSON values whose inner positions matter; the rest (schemas, data) is read without positions.
_DETAIL_KEYS = frozenset({"messages", "system", "tools", "functions", "content", "input", "instructions",
                          "result", *_SETTINGS_TABLES, "contents", "parts", "systemInstruction",
                          "system_instruction", "functionDeclarations", "function_declarations"})


def _is_null(node: Node) -> bool:
    return node.kind == "literal" and node.value is None


def _describe_kind(node: Node) -> str:
    if node.kind == "object":
        return "an object"
    if node.kind == "array":
        return "a list"
    if node.kind == "string":
        return "a string"
    if isinstance(node.value, bool):
        return f"`{str(node.value).lower()}`"
    return "null" if node.value is None else "a number"


def _with_index(segment: Segment, index: int) -> Segment:
    if segment.message_index == index:
        return segment
    return Segment(segment.role, segment.span, segment.text, segment.slot, index, segment.loop)


# --- YAML nodes as positioned nodes ------------------------------------------------------------


def _from_yaml(root, scalars: dict[int, object], text: str) -> Node:
    """Turn a composed YAML node graph into ``jsonpos.Node`` trees, without recursion.

    Aliases share one converted node, so a value reused through an anchor is located where the
    anchor defines it. A graph deeper than ``jsonpos.MAX_DEPTH`` is refused. A block node's
    extent ends at its last character, not at the next line's indentation.
    """
    import yaml

    from ctxlint.frontends import yamlsafe

    mapping, sequence, merge = yaml.MappingNode, yaml.SequenceNode, "tag:yaml.org,2002:merge"
    # Children before parents (a post-order walk): with aliases, one node has several parents.
    # A node is pushed once with its children, then again (as None, ynode) to be built after them.
    order: list = []
    seen: set[int] = set()
    stack: list = [root]
    while stack:
        ynode = stack.pop()
        if type(ynode) is tuple:
            order.append(ynode[1])
            continue
        if id(ynode) in seen:
            continue
        seen.add(id(ynode))
        stack.append((None, ynode))
        if isinstance(ynode, mapping):
            stack.extend([v for _, v in ynode.value])
        elif isinstance(ynode, sequence):
            stack.extend(ynode.value)
    scalar_node = yaml.ScalarNode
    built: dict[int, tuple[Node, int]] = {}  # each built node, with its height (1 for a scalar)
    for ynode in order:
        start, end = ynode.start_mark.index, ynode.end_mark.index
        while end > start and text[end - 1] in " \t\n":
            end -= 1
        tallest = 0
        if isinstance(ynode, mapping):
            fields: dict[str, tuple[Node, Node]] = {}
            values: dict[str, object] = {}
            for key, value in ynode.value:
                if not isinstance(key, scalar_node) or key.tag == merge:
                    continue
                child, child_height = built[id(value)]
                if child_height > tallest:
                    tallest = child_height
                name = key.value
                if name in fields:  # a repeated key: the later one wins (in its own place among the fields)
                    del fields[name]
                fields[name] = (Node("string", key.start_mark.index, key.end_mark.index, name), child)
                values[name] = child.value
            node = Node("object", start, end, values)
            node.fields = fields
        elif isinstance(ynode, sequence):
            children = [built[id(item)] for item in ynode.value]
            items = [item for item, _ in children]
            node = Node("array", start, end, [item.value for item in items])
            node.items = items
            tallest = max([item_height for _, item_height in children], default=0)
        else:
            value = yamlsafe.scalar(ynode)
            node = Node("string" if isinstance(value, str) else "literal", start, end, value)
            if isinstance(value, str):
                scalars[id(node)] = ynode
        if tallest + 1 > jsonpos.MAX_DEPTH:
            raise _Refused(f"the YAML nests more than {jsonpos.MAX_DEPTH} levels deep; not read",
                           line_column=(ynode.start_mark.line + 1, ynode.start_mark.column + 1))
        built[id(ynode)] = (node, tallest + 1)
    return built[id(root)][0]


def _yaml_offsets(text: str, scalar, value: str) -> Callable[[int], int]:
    """From offsets in a YAML scalar's value to file offsets.

    Plain and quoted scalars on one line without escapes map exactly. Otherwise each source
    line's text is found in the value in order (block scalars: the line minus its indentation),
    which is exact for literal blocks (``|``) and for every character written as itself in
    folded (``>``) and multi-line scalars; characters that folding or escapes changed map to the
    nearest written character on the same line.
    """
    start, end = scalar.start_mark.index, scalar.end_mark.index
    style = scalar.style or None
    if style in ("|", ">"):
        newline = text.find("\n", start, end)
        first = newline + 1 if newline >= 0 else end
    elif style in ('"', "'"):
        first, end = start + 1, max(start + 1, end - 1)
    else:
        first = start
    raw = text[first:end]
    if "\n" not in raw and raw == value:
        return lambda offset: first + min(max(offset, 0), len(value))
    anchors: list[tuple[int, int, int]] = []  # (offset in value, offset in file, length)
    cursor = 0
    line_start = first
    for line in raw.split("\n"):
        stripped = line.lstrip(" \t")
        piece_start = line_start + len(line) - len(stripped)
        piece = stripped if style in ("|", ">") else stripped.rstrip(" \t")
        # Runs of characters written as themselves, between escapes (`\n`, `''`).
        escape = _ESCAPE_BY_STYLE.get(style)
        runs = ([(piece, 0)] if piece else []) if escape is None else _runs(piece, escape)
        for run, at in runs:
            found = value.find(run, cursor)
            if found >= 0:
                anchors.append((found, piece_start + at, len(run)))
                cursor = found + len(run)
        line_start += len(line) + 1
    if not anchors:
        return lambda offset: first
    starts = [a[0] for a in anchors]

    def locate(offset: int) -> int:
        index = bisect.bisect_right(starts, offset) - 1
        if index < 0:
            return anchors[0][1]
        at, file_offset, length = anchors[index]
        return file_offset + min(offset - at, length)

    return locate


_ESCAPE_BY_STYLE: dict[str | None, re.Pattern[str]] = {  # by a scalar's style (None: plain, no escapes)
    '"': re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.|$)"),
    "'": re.compile("''"),
}


def _runs(piece: str, escape: re.Pattern) -> list[tuple[str, int]]:
    """The non-empty stretches of ``piece`` between escapes, with their offsets."""
    runs = []
    cursor = 0
    for match in escape.finditer(piece):
        if match.start() > cursor:
            runs.append((piece[cursor : match.start()], cursor))
        cursor = match.end()
    if cursor < len(piece):
        runs.append((piece[cursor:], cursor))
    return runs


# --- chat requests ------------------------------------------------------------------------

_ROLES = {
    "system": Role.SYSTEM, "developer": Role.DEVELOPER, "user": Role.USER, "human": Role.USER,
    "assistant": Role.ASSISTANT, "ai": Role.ASSISTANT, "model": Role.ASSISTANT,
    "tool": Role.TOOL, "function": Role.TOOL, "ipython": Role.TOOL,
}
_TEXT_PARTS = ("text", "input_text", "output_text")
_ANTHROPIC_PARTS = {"tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use",
                    "web_search_tool_result", "search_result"}
# Content parts that are not text, by the kind the accounting prices them as.
_MEDIA_PARTS = {"image_url": "image", "input_image": "image", "image": "image", "input_audio": "audio",
                "audio": "audio", "file": "file", "input_file": "file", "document": "document"}
# Responses API input items that are not messages but are sent (and billed) as turns.
_RESPONSES_ITEMS = ("function_call", "function_call_output", "message", "reasoning", "custom_tool_call",
                    "custom_tool_call_output", "computer_call", "computer_call_output", "web_search_call",
                    "file_search_call", "item_reference")


def _is_message_list(node: Node | None, items: tuple[str, ...] = ()) -> TypeGuard[Node]:
    """Objects that each have a `role` (of any type: a wrong one is reported) or are one of ``items``."""
    return (node is not None and node.items is not None
            and all(item.kind == "object" and item.fields is not None
                    and ("role" in item.fields or item.value.get("type") in items) for item in node.items))


# Requests that send a string `input` to a model that does not answer in text: embeddings,
# moderation, speech, transcription and images have the same shape as a Responses request.
_NOT_TEXT_MODEL = re.compile(r"embed|moderation|tts|whisper|transcri|dall-e|image|rerank", re.IGNORECASE)


def _generates_text(fields: dict) -> bool:
    """Whether a request with a string `input` is a Responses API request (a text model)."""
    model = fields["model"][1]
    return model.kind == "string" and isinstance(model.value, str) and not _NOT_TEXT_MODEL.search(model.value) \
        and not ({"voice", "dimensions", "encoding_format"} & fields.keys())


def _chat_request(ctx: _Context, root: Node) -> Request | None:
    if root.kind != "object" or root.fields is None:
        return None
    fields = root.fields
    messages = fields.get("messages", (None, None))[1]
    system = fields.get("system", (None, None))[1]
    responses_input = fields.get("input", (None, None))[1]
    responses = False
    if _is_message_list(messages):
        if not messages.items and not ({"model", "system"} & fields.keys()):
            return None
    elif "model" in fields and (_is_message_list(responses_input, _RESPONSES_ITEMS) or (
            responses_input is not None and responses_input.kind == "string"
            and ("instructions" in fields or _generates_text(fields)))):
        responses, messages = True, responses_input
    else:
        return None

    segments: list[Segment] = []
    breakpoints: list[Breakpoint] = []
    sent: list[Message] = []
    anthropic = system is not None or "anthropic_version" in fields
    index = 0

    def add_blocks(content: Node | None, role: Role, index: int, what: str = "content") -> list[Part]:
        """The content's text as segments; what is not text comes back as parts."""
        nonlocal anthropic
        parts: list[Part] = []
        if content is None or _is_null(content):
            return parts
        if content.kind == "string":
            segments.extend(ctx.segments(content, role, index))
            return parts
        if content.kind != "array":
            ctx.wrong_type(content, f"`{what}`", "text or a list of content parts")
            return parts
        for block in content.items or ():  # no items: a value read without positions
            if block.kind == "string":  # some SDKs accept bare strings in a content list
                segments.extend(ctx.segments(block, role, index))
                continue
            if block.kind != "object":
                ctx.wrong_type(block, f"a part of `{what}`", "an object with a `type`")
                continue
            if block.fields is None:
                continue
            kind_node = block.fields.get("type", (None, None))[1]
            if kind_node is not None and kind_node.kind != "string":
                ctx.wrong_type(kind_node, "the `type` of a content part", 'a string such as "text"')
                continue
            kind = kind_node.value if kind_node is not None else None
            text = block.fields.get("text", (None, None))[1]
            if kind in _ANTHROPIC_PARTS:
                anthropic = True
            if kind in (*_TEXT_PARTS, None) and text is not None:
                if text.kind == "string":
                    segments.extend(ctx.segments(text, role, index))
                elif not _is_null(text):
                    ctx.wrong_type(text, "the `text` of a content part", "a string")
            elif kind == "tool_result":
                parts += add_blocks(block.fields.get("content", (None, None))[1], Role.TOOL, index)
            elif kind in _MEDIA_PARTS:
                parts.append(_media_part(ctx, block, _MEDIA_PARTS[kind]))
            elif kind in ("tool_use", "server_tool_use"):
                parts.append(Part("tool_call", ctx.span(block.start, block.end), _text(block.value.get("name")),
                                  _json(block.value.get("input", {}))))
            elif kind in ("thinking", "redacted_thinking"):
                parts.append(Part("thinking", ctx.span(block.start, block.end),
                                  text=_text(block.value.get("thinking") or block.value.get("data"))))
            if "cache_control" in block.fields:
                anthropic = True
                breakpoints.append(_breakpoint(ctx, block, len(segments)))
        return parts

    if system is not None:
        add_blocks(system, Role.SYSTEM, index, "system")
        sent.append(Message(index, "system", ctx.span(system.start, system.end)))
        index += 1
    instructions = fields.get("instructions", (None, None))[1] if responses else None
    if instructions is not None:
        add_blocks(instructions, Role.SYSTEM, index, "instructions")
        sent.append(Message(index, "developer", ctx.span(instructions.start, instructions.end)))
        index += 1
    if messages.kind == "string":
        add_blocks(messages, Role.USER, index, "input")
        sent.append(Message(index, "user", ctx.span(messages.start, messages.end)))
    else:
        for message in messages.items or ():
            sent.append(_message(ctx, message, index, add_blocks))
            index += 1

    tools, tool_breakpoints = _request_tools(ctx, fields)
    anthropic = anthropic or any(t.raw and isinstance(t.raw, dict) and "input_schema" in t.raw for t in tools)
    model = fields.get("model", (None, None))[1]
    if model is not None and model.kind in ("object", "array"):
        ctx.wrong_type(model, "`model`", "a model name")
    model_name = model.value if model is not None and isinstance(model.value, str) else None
    if model_name and (_JINJA_MARKERS.search(model_name) or not model_name.strip()):
        model_name = None
    if model_name and model_name.lower().startswith(("claude", "anthropic")):
        anthropic = True

    limit = _output_limit(ctx, fields)
    if responses:
        hint = "`max_output_tokens`"
    elif "modelParameters" in fields or PurePosixPath(ctx.path).name.lower().endswith((".prompt.yml", ".prompt.yaml")):
        hint = "`modelParameters.maxTokens`"
    elif anthropic:
        hint = "`max_tokens`"
    else:
        hint = "`max_completion_tokens`"
    anchor = ctx.key_span(fields, "model") if "model" in fields else ctx.point(root.start)
    return Request(
        path=ctx.path,
        anchor=anchor,
        segments=tuple(segments),
        tools=tuple(tools),
        model=model_name,
        output_limit=limit,
        # A file that names no model is a message list (an MCP prompt result, a dataset row, a
        # test oracle), not a request whose settings it could carry.
        declares_settings="model" in fields or limit is not None,
        settings_hint=hint,
        breakpoints=tuple(tool_breakpoints + breakpoints),
        api="openai-responses" if responses else "anthropic" if anthropic else "openai-chat",
        messages=tuple(sent),
        tool_choice=_tool_choice(ctx, fields),
    )


def _message(ctx: _Context, node: Node, index: int,
             add_blocks: Callable[[Node | None, Role, int], list[Part]]) -> Message:
    """One entry of ``messages`` (or a Responses ``input`` item) and everything it sends."""
    value = node.value
    span = ctx.span(node.start, node.end)
    item = value.get("type") if value.get("role") is None else None
    item = item if isinstance(item, str) else None
    node_fields = node.fields or {}
    role_node = node_fields.get("role", (None, None))[1]
    if role_node is not None and role_node.kind != "string" and item is None:
        ctx.wrong_type(role_node, "`role`", 'a role such as "user"')
    if item in ("function_call", "custom_tool_call"):  # Responses: the model's earlier call
        call = Part("tool_call", span, _text(value.get("name")), _text(value.get("arguments") or value.get("input")))
        return Message(index, item, span, parts=(call,))
    if item is not None and item.endswith("_output"):  # Responses: a tool's result, sent as input
        output = node_fields.get("output", (None, None))[1]
        parts = add_blocks(output, Role.TOOL, index)
        return Message(index, item, span, parts=tuple(parts))
    if item is not None and item != "message":  # reasoning items, hosted tool calls: sent, not text
        return Message(index, item, span, parts=(Part(item, span, text=_json(value)),))
    role_name = str(value.get("role")).lower()
    role = _ROLES.get(role_name, Role.USER)
    parts = add_blocks(node_fields.get("content", (None, None))[1], role, index)
    calls = value.get("tool_calls")
    if isinstance(calls, list):
        for call in calls:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                parts.append(Part("tool_call", span, _text(function.get("name")), _text(function.get("arguments"))))
    legacy = value.get("function_call")
    if isinstance(legacy, dict):
        parts.append(Part("function_call", span, _text(legacy.get("name")), _text(legacy.get("arguments"))))
    name = value.get("name")
    return Message(index, role_name, span, name if isinstance(name, str) and name else None, tuple(parts))


def _media_part(ctx: _Context, block: Node, kind: str) -> Part:
    """An image, audio clip, file or document, with an image's detail and size when shown."""
    from ctxlint.frontends.media import data_url_image_size

    value = block.value
    span = ctx.span(block.start, block.end)
    if kind != "image":
        file = value.get("file")
        name = value.get("filename") or (file.get("filename") if isinstance(file, dict) else None)
        return Part(kind, span, name=_text(name))
    inner = value.get("image_url")
    url, detail = "", value.get("detail")
    if isinstance(inner, dict):
        url, detail = _text(inner.get("url")), inner.get("detail", detail)
    elif isinstance(inner, str):
        url = inner
    source = value.get("source")
    if isinstance(source, dict) and source.get("type") == "base64":  # Anthropic
        url = f"data:{_text(source.get('media_type'))};base64,{_text(source.get('data'))}"
    size = data_url_image_size(url) if url.startswith("data:") else None
    return Part("image", span, detail=detail if isinstance(detail, str) else None,
                width=size[0] if size else None, height=size[1] if size else None)


def _tool_choice(ctx: _Context, fields: dict) -> ToolChoice | None:
    """``tool_choice`` in the OpenAI or Anthropic spelling, or the legacy ``function_call``."""
    for key in ("tool_choice", "function_call"):
        if key not in fields:
            continue
        value = fields[key][1].value
        span = ctx.key_span(fields, key)
        if isinstance(value, str):
            return ToolChoice(key, value.lower(), span)
        if isinstance(value, dict):
            kind = value.get("type")
            function = value.get("function")
            name = function.get("name") if isinstance(function, dict) else value.get("name")
            if kind in ("auto", "any", "none", "required"):
                return ToolChoice(key, kind, span)
            if isinstance(name, str):
                return ToolChoice(key, "tool", span, name)
            if isinstance(kind, str):  # a hosted tool forced by type (Responses)
                return ToolChoice(key, "tool", span, kind)
    return None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _json(value: object) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, TypeError, RecursionError):
        return ""


def _gemini_request(ctx: _Context, root: Node) -> Request | None:
    """A Gemini ``generateContent`` or ``countTokens`` body: ``contents`` of turns with ``parts``,
    ``systemInstruction``, ``tools`` with ``functionDeclarations``, ``generationConfig``."""
    if root.kind != "object" or root.fields is None:
        return None
    fields = root.fields
    contents = fields.get("contents", (None, None))[1]
    if contents is None or contents.items is None or not all(
            item.kind == "object" and isinstance(item.value.get("parts"), list) for item in contents.items):
        return None
    segments: list[Segment] = []
    sent: list[Message] = []

    def add_parts(node: Node, role: Role, index: int) -> list[Part]:
        parts: list[Part] = []
        listing = node.fields.get("parts", (None, None))[1] if node.fields else None
        for block in listing.items if listing is not None and listing.items is not None else ():
            if block.kind != "object" or block.fields is None:
                continue
            value = block.value
            span = ctx.span(block.start, block.end)
            if "text" in block.fields:
                segments.extend(ctx.segments(block.fields["text"][1], role, index))
            elif isinstance(value.get("inlineData") or value.get("inline_data"), dict):
                data = value.get("inlineData") or value.get("inline_data")
                mime = _text(data.get("mimeType") or data.get("mime_type"))
                if mime.startswith("image/"):
                    from ctxlint.frontends.media import data_url_image_size

                    size = data_url_image_size(f"data:{mime};base64,{_text(data.get('data'))}")
                    parts.append(Part("image", span, width=size[0] if size else None,
                                      height=size[1] if size else None))
                else:
                    parts.append(Part("audio" if mime.startswith("audio/") else "file", span))
            elif isinstance(value.get("fileData") or value.get("file_data"), dict):
                data = value.get("fileData") or value.get("file_data")
                mime = _text(data.get("mimeType") or data.get("mime_type"))
                parts.append(Part("image" if mime.startswith("image/") else "file", span))
            elif isinstance(value.get("functionCall") or value.get("function_call"), dict):
                call = value.get("functionCall") or value.get("function_call")
                parts.append(Part("tool_call", span, _text(call.get("name")), _json(call.get("args", {}))))
            elif isinstance(value.get("functionResponse") or value.get("function_response"), dict):
                result = value.get("functionResponse") or value.get("function_response")
                parts.append(Part("tool_call", span, _text(result.get("name")), _json(result.get("response", {}))))
        return parts

    index = 0
    instruction = fields.get("systemInstruction", fields.get("system_instruction", (None, None)))[1]
    if instruction is not None and instruction.kind == "object":
        sent.append(Message(index, "system", ctx.span(instruction.start, instruction.end),
                            parts=tuple(add_parts(instruction, Role.SYSTEM, index))))
        index += 1
    for turn in contents.items:
        role_name = str(turn.value.get("role", "user")).lower()
        role = Role.ASSISTANT if role_name == "model" else Role.USER
        sent.append(Message(index, role_name, ctx.span(turn.start, turn.end),
                            parts=tuple(add_parts(turn, role, index))))
        index += 1
    tools: list[ToolDef] = []
    listed = fields.get("tools", (None, None))[1]
    declaration_keys = ("functionDeclarations", "function_declarations")
    for entry in listed.items or () if listed is not None else ():
        for key in declaration_keys:
            declarations = entry.fields.get(key, (None, None))[1] if entry.fields else None
            for item in declarations.items or () if declarations is not None else ():
                tool = _tool_def(ctx, item, strict=False)
                if tool is not None:
                    tools.append(tool)
        if entry.kind == "object" and not any(k in entry.value for k in declaration_keys):
            tool = _hosted_tool(ctx, entry) or (ToolDef(next(iter(entry.value), "tool"), None, None,
                                                        ctx.span(entry.start, entry.end), entry.value)
                                                if entry.value else None)
            if tool is not None:
                tools.append(tool)
    model = fields.get("model", (None, None))[1]
    model_name = model.value if model is not None and isinstance(model.value, str) else None
    return Request(
        path=ctx.path,
        anchor=ctx.key_span(fields, "model") if "model" in fields else ctx.key_span(fields, "contents"),
        segments=tuple(segments),
        tools=tuple(tools),
        model=model_name if model_name and not _JINJA_MARKERS.search(model_name) else None,
        output_limit=_output_limit(ctx, fields),
        declares_settings=True,
        settings_hint="`generationConfig.maxOutputTokens`",
        api="gemini",
        messages=tuple(sent),
    )


def _breakpoint(ctx: _Context, block: Node, covers: int) -> Breakpoint:
    assert block.fields is not None  # the caller found `cache_control` in them
    control = block.fields["cache_control"][1]
    ttl = control.value.get("ttl") if isinstance(control.value, dict) else None
    return Breakpoint(ctx.key_span(block.fields, "cache_control"), covers, ttl if isinstance(ttl, str) else None)


def _output_limit(ctx: _Context, fields: dict) -> OutputLimit | None:
    for table in (None, *_SETTINGS_TABLES):
        if table is None:
            scope = fields
        else:
            entry = fields.get(table)
            if entry is None or entry[1].fields is None:
                continue
            scope = entry[1].fields
        for key in LIMIT_KEYS:
            if key in scope:
                node = scope[key][1]
                if node.kind in ("object", "array") or isinstance(node.value, bool):
                    ctx.wrong_type(node, f"`{key}`", "a number of tokens")
                return OutputLimit(key, token_count(node.value), ctx.key_span(scope, key))
    return None


# --- tools ---------------------------------------------------------------------------------

_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema")
_DATED_TOOL_TYPE = re.compile(r"^[a-z_]+_\d{8}$")  # Anthropic's versioned tools: bash_20250124


def _tool_def(ctx: _Context, node: Node, strict: bool) -> ToolDef | None:
    """A tool in any of the known shapes; ``strict`` refuses objects that only look like one."""
    if node.kind != "object":
        return None
    value = node.value
    inner = value.get("function")
    if isinstance(inner, dict) and (value.get("type") in ("function", None)) and isinstance(inner.get("name"), str):
        source = inner
        schema = inner.get("parameters")
    elif any(k in value for k in _SCHEMA_KEYS) and "name" in value:
        source = value
        schema = next(value[k] for k in _SCHEMA_KEYS if k in value)
    elif isinstance(value.get("name"), str) and isinstance(value.get("type"), str) and (
            _DATED_TOOL_TYPE.match(value["type"]) or not strict):
        source, schema = value, None  # a provider-defined tool (Anthropic's bash, web_search)
    else:
        return None
    if strict and schema is not None and not isinstance(schema, dict):
        return None  # `parameters: [...]` of a CLI command or an API endpoint, not a JSON Schema
    name = source.get("name")
    description = source.get("description")
    return ToolDef(
        name=name if isinstance(name, str) else None,
        description=description if isinstance(description, str) else None,
        schema=schema,
        span=ctx.span(node.start, node.end),
        raw=value,
    )


def _request_tools(ctx: _Context, fields: dict) -> tuple[list[ToolDef], list[Breakpoint]]:
    tools: list[ToolDef] = []
    breakpoints: list[Breakpoint] = []
    for key in ("tools", "functions"):
        entry = fields.get(key)
        if entry is None or _is_null(entry[1]):
            continue
        if entry[1].items is None:
            ctx.wrong_type(entry[1], f"`{key}`", "a list of tool definitions")
            continue
        for item in entry[1].items:
            tool = _tool_def(ctx, item, strict=False) or _hosted_tool(ctx, item)
            if tool is None:
                if item.kind != "object":
                    ctx.wrong_type(item, f"an item of `{key}`", "a tool definition (an object)")
                continue
            tools.append(tool)
            if "cache_control" in item.fields:
                breakpoints.append(_breakpoint(ctx, item, 0))
    return tools, breakpoints


def _hosted_tool(ctx: _Context, node: Node) -> ToolDef | None:
    """A tool the provider runs and defines itself, named only by its type (Responses
    ``{"type": "web_search"}``, ``file_search``, ``code_interpreter``)."""
    kind = node.value.get("type") if node.kind == "object" else None
    if not isinstance(kind, str) or kind == "function" or not kind:
        return None
    return ToolDef(kind, None, None, ctx.span(node.start, node.end), node.value)


def _tool_file(ctx: _Context, root: Node) -> Request | None:
    """A file whose content is a list of tools (and nothing that makes it a request)."""
    listing, anchor = None, root
    single = _single_tool(ctx, root)
    if single is not None:
        return Request(ctx.path, ctx.point(root.start), tools=(single,),
                       breakpoints=(_breakpoint(ctx, root, 0),) if "cache_control" in (root.fields or {}) else ())
    if root.kind == "array":
        listing = root
    elif root.kind == "object" and root.fields is not None:
        fields = root.fields
        result = fields.get("result", (None, None))[1]
        if result is not None and result.fields is not None and "tools" in result.fields:
            fields, anchor = result.fields, result.fields["tools"][0]
        for key in ("tools", "functions"):
            if key in fields and fields[key][1].items is not None:
                listing, anchor = fields[key][1], fields[key][0]
                break
    if listing is None or not listing.items:
        return None
    found = [_tool_def(ctx, item, strict=True) for item in listing.items]
    tools = [t for t in found if t is not None]
    if len(tools) < len(found) or all(t.schema is None for t in tools):
        return None
    breakpoints = tuple(_breakpoint(ctx, item, 0) for item in listing.items if "cache_control" in (item.fields or {}))
    return Request(ctx.path, ctx.span(anchor.start, anchor.end) if anchor is not root else ctx.point(root.start),
                   tools=tuple(tools), breakpoints=breakpoints)


def _single_tool(ctx: _Context, root: Node) -> ToolDef | None:
    """A file that is one tool (MCP, OpenAI or Anthropic shape), whose schema reads as JSON Schema."""
    if root.kind != "object" or root.fields is None or any(
            key in root.fields for key in ("tools", "functions", "messages", "result")):
        return None
    tool = _tool_def(ctx, root, strict=True)
    schema = tool.schema if tool is not None else None
    if tool is None or tool.name is None or not isinstance(schema, dict):
        return None
    return tool if schema.get("type") == "object" or "properties" in schema else None


# --- YAML prompt files ---------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_REFERENCE = re.compile(r"^\s*\$\{[^}]*\}\s*$")  # promptflow `${inputs.question}`: a reference, not text


def _normal(key: str) -> str:
    return _CAMEL.sub("_", key).replace("-", "_").lower()


def _matches(key: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatchcase(key, p) for p in patterns)


def is_prompt_key(key: str) -> bool:
    normal = _normal(key)
    return _matches(normal, PROMPT_KEYS) and not _matches(normal, NOT_PROMPT_KEYS)


def _role_for(key: str) -> tuple[Role, bool]:
    """The role a prompt key's text is sent in, and whether the key says so."""
    normal = _normal(key)
    if _matches(normal, SYSTEM_KEYS):
        return Role.SYSTEM, True
    return Role.USER, _matches(normal, USER_KEYS)


def _is_prompt_text(value: object) -> bool:
    """Text worth treating as a prompt: words or a template, not a name, path or expression."""
    if not isinstance(value, str) or not value.strip():
        return False
    if "${{" in value or _REFERENCE.match(value):  # GitHub Actions / promptflow expressions
        return False
    if _JINJA_MARKERS.search(value):
        return True
    return " " in value.strip() or "\n" in value.strip()


def _yaml_prompts(ctx: _Context, root: Node) -> list[Request]:
    if root.kind == "object":
        special = _langchain(ctx, root) or _semantic_kernel(ctx, root)
        if special is not None:
            return [special]
    requests: list[Request] = []
    stack = [root]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # a YAML alias: its prompts were found where it was defined
            continue
        seen.add(id(node))
        if node.kind == "array":
            stack.extend(reversed(node.items or ()))
            continue
        fields = node.fields
        if node.kind != "object" or fields is None:
            continue
        # CrewAI builds one prompt from an agent's role, goal and backstory (the system prompt)
        # and one from a task's description and expected output (the user turn).
        crew = [k for k in _crew_keys(node) if fields[k][1].kind == "string"]
        if crew:
            role = Role.SYSTEM if crew[0] in ("role", "goal", "backstory") else Role.USER
            requests.append(_prompt_request(ctx, fields, crew, (role, True), "format"))
        children = []
        for key, (_, value) in fields.items():
            if key in crew:
                continue
            if value.kind == "string" and is_prompt_key(key) and _is_prompt_text(value.value):
                requests.append(_prompt_request(ctx, fields, [key], _role_for(key), "template"))
            elif value.kind in ("object", "array"):
                children.append(value)
        stack.extend(reversed(children))
    return requests


def _crew_keys(node: Node) -> tuple[str, ...]:
    """CrewAI agents (role, goal, backstory) and tasks (description, expected_output)."""
    value = node.value
    if sum(isinstance(value.get(k), str) for k in ("role", "goal", "backstory")) >= 2:
        return tuple(k for k in ("role", "goal", "backstory") if k in value)
    if isinstance(value.get("description"), str) and isinstance(value.get("expected_output"), str):
        return ("description", "expected_output")
    return ()


def _prompt_request(ctx: _Context, fields: dict, keys: list[str], role: tuple[Role, bool], syntax: str) -> Request:
    """One request whose single message is the text of ``keys``, in that order."""
    model = fields.get("model", (None, None))[1]
    model_name = model.value if model is not None and isinstance(model.value, str) else None
    return Request(
        path=ctx.path,
        anchor=ctx.key_span(fields, keys[0]),
        segments=tuple(s for key in keys for s in ctx.segments(fields[key][1], role[0], 0, syntax)),
        model=model_name if model_name and not _JINJA_MARKERS.search(model_name) else None,
        output_limit=_output_limit(ctx, fields),
        roles_marked=role[1],
    )


_SK_FORMATS = {"semantic-kernel": "sk", "handlebars": "handlebars", "jinja2": "jinja", "liquid": "jinja"}


def _semantic_kernel(ctx: _Context, root: Node) -> Request | None:
    """Semantic Kernel prompt YAML: one template, its format and its execution settings."""
    fields = root.fields
    if fields is None:
        return None
    template = fields.get("template", (None, None))[1]
    if template is None or template.kind != "string":
        return None
    if not ({"template_format", "execution_settings"} & fields.keys()):
        return None
    if "_type" in fields:
        return None
    template_format = fields.get("template_format", (None, None))[1]
    fmt = str(template_format.value).lower() if template_format is not None else "semantic-kernel"
    syntax = _SK_FORMATS.get(fmt, "sk")
    limit = None
    settings = fields.get("execution_settings", (None, None))[1]
    if settings is not None and settings.kind == "object":
        services = sorted((settings.fields or {}).items(), key=lambda item: item[0] != "default")
        for _, (_, service) in services:
            if service.kind == "object":
                limit = _output_limit(ctx, service.fields or {})
                if limit:
                    break
    anchor = ctx.key_span(fields, "execution_settings") if settings is not None else ctx.point(root.start)
    model = None
    if settings is not None and settings.kind == "object":
        for _, (_, service) in (settings.fields or {}).items():
            candidate = service.value.get("model_id") if isinstance(service.value, dict) else None
            if isinstance(candidate, str):
                model = candidate
                break
    return Request(
        path=ctx.path,
        anchor=anchor,
        segments=tuple(ctx.segments(template, Role.USER, 0, syntax)),
        model=model,
        output_limit=limit,
        declares_settings=True,
        settings_hint="`execution_settings.default.max_tokens`",
    )


_LANGCHAIN_FORMATS = {"f-string": "format", "jinja2": "jinja", "mustache": "handlebars"}


def _langchain(ctx: _Context, root: Node) -> Request | None:
    """A serialised LangChain ``PromptTemplate`` (``_type: prompt``), f-string by default."""
    fields = root.fields
    if fields is None:
        return None
    template = fields.get("template", (None, None))[1]
    if template is None or template.kind != "string":
        return None
    variables = root.value.get("input_variables")
    if root.value.get("_type") != "prompt" and not (
            isinstance(variables, list) and all(isinstance(v, str) for v in variables)):
        return None
    fmt = root.value.get("template_format", "f-string")
    syntax = _LANGCHAIN_FORMATS.get(str(fmt).lower(), "format")
    return Request(ctx.path, ctx.key_span(fields, "template"),
                   segments=tuple(ctx.segments(template, Role.USER, 0, syntax)), roles_marked=False)


# --- small template syntaxes -----------------------------------------------------------------

# `{name}`, `{user.name}`, `{items[0]}`, `{value!r:>10}`; `{{` and `}}` are literal braces.
_FORMAT_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\w+\])*)(?:![rsa])?(?::[^{}\n]*)?\}(?!\})")


def _format_segments(value: str, role: Role, index: int, span) -> list[Segment]:
    """Python ``str.format`` / f-string style fields (LangChain, CrewAI)."""
    segments: list[Segment] = []
    cursor = 0
    for match in _FORMAT_FIELD.finditer(value):
        if match.start() > cursor:
            segments.append(Segment(role, span(cursor, match.start()), value[cursor : match.start()], None, index))
        name = re.sub(r"\[(\w+)\]", r".\1", match.group(1))
        segments.append(Segment(role, span(match.start(), match.end()), match.group(1),
                                Slot(match.group(1), names=(name,)), index))
        cursor = match.end()
    if cursor < len(value):
        segments.append(Segment(role, span(cursor, len(value)), value[cursor:], None, index))
    return segments
