"""YAML prompt files: values under keys that name a prompt, CrewAI agents and tasks, Semantic
Kernel and LangChain prompt YAML, and the small template syntaxes their values are written in."""

from __future__ import annotations

import re
from dataclasses import replace
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

from ctxlint.frontends.jsonpos import Node
from ctxlint.frontends.structured.context import JINJA_MARKERS, Context
from ctxlint.frontends.structured.requests import output_limit
from ctxlint.model import Request, Role, Segment
from ctxlint.providers import ROLE_NAMES

# Keys whose string values are prompt text in YAML prompt files: globs over lower snake case.
PROMPT_KEYS = (
    "*prompt", "*prompt_template", "*_template", "*prompt_text", "prompt_*", "*_prompt_*",
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
    if JINJA_MARKERS.search(value):
        return True
    return " " in value.strip() or "\n" in value.strip()


# An agent config's model that is a person at a terminal (`model: {name: human_thought}`): no
# model receives its templates.
_HUMAN_MODEL = re.compile(r"^human(?:[_-]\w*)?$", re.IGNORECASE)
# An agent config that parses the model's tool calls as the API's own function calls: the template
# that reports a step's result (`next_step_template`, `observation_template`) is then sent as the
# tool's message, in the tool role.
_NATIVE_TOOL_CALLS = re.compile(r"^(?:function|tool)_?call(?:ing|s)?$", re.IGNORECASE)
_STEP_RESULT_KEYS = ("next_step*", "*observation*", "*tool_result*", "*tool_output*")


def _agent_settings(root: Node) -> tuple[bool, bool]:
    """Whether the config's model is a person, and whether it parses tool calls natively."""
    human = native = False
    stack, seen = [root], 0
    while stack and seen < 10_000:  # a bound on a hostile document's size
        node = stack.pop()
        seen += 1
        if node.kind == "array":
            stack.extend(node.items or ())
        if node.kind != "object" or node.fields is None:
            continue
        for key, (_, value) in node.fields.items():
            if key in ("model", "model_name"):
                human = human or bool(_HUMAN_MODEL.match(_named(value, "name") or ""))
            elif key in ("parse_function", "parser"):
                native = native or bool(_NATIVE_TOOL_CALLS.match(_named(value, "type") or ""))
            if value.kind in ("object", "array"):
                stack.append(value)
    return human, native


def _named(value: Node, field: str) -> str | None:
    """A setting written as a string, or as a mapping's ``field`` (`model: {name: ...}`)."""
    named = value.value.get(field) if value.kind == "object" and isinstance(value.value, dict) else value.value
    return named if isinstance(named, str) else None


def yaml_prompts(ctx: Context, root: Node) -> list[Request]:
    if root.kind == "object":
        special = _langchain(ctx, root) or _semantic_kernel(ctx, root)
        if special is not None:
            return [special]
    human, native = _agent_settings(root)
    if human:
        return []
    requests: list[Request] = []
    # A file named for a prompt (`summary_prompt.yaml`) holds its text under a top-level `content`.
    prompt_file = "prompt" in PurePosixPath(ctx.path).stem.lower()
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
            listed = _yaml_messages(ctx, fields, value) if key == "messages" and value.kind == "array" else None
            if listed is not None:
                requests.append(listed)
            elif value.kind == "string" and (is_prompt_key(key) or key == "content" and node is root and prompt_file) \
                    and _is_prompt_text(value.value):
                sent = (Role.TOOL, True) if native and _matches(_normal(key), _STEP_RESULT_KEYS) else _role_for(key)
                requests.append(_prompt_request(ctx, fields, [key], sent, "template"))
            elif value.kind == "string" and isinstance(value.value, str) and _TURN.search(value.value):
                requests.append(_turns_request(ctx, fields, key))
            elif value.kind in ("object", "array"):
                children.append(value)
        stack.extend(reversed(children))
    return requests


def _yaml_messages(ctx: Context, fields: dict, messages: Node) -> Request | None:
    """A prompt file's list of messages (`messages: [{type: system, content: ...}]`, as NeMo
    Guardrails and other prompt libraries write them): one request, each message in its role.
    Entries that are not such a message (a `{{ history }}` expansion) are left out."""
    segments: list[Segment] = []
    for index, item in enumerate(messages.items or ()):
        entry = item.fields if item.kind == "object" else None
        if not entry:
            continue
        role = (entry.get("role") or entry.get("type") or (None, None))[1]
        content = entry.get("content", (None, None))[1]
        name = str(role.value).lower() if role is not None else ""
        if content is not None and content.kind == "string" and name in ROLE_NAMES:
            segments += ctx.segments(content, ROLE_NAMES[name], index, "template")
    if not segments:
        return None
    return Request(path=ctx.path, anchor=ctx.key_span(fields, "messages"), segments=tuple(segments),
                   output_limit=output_limit(ctx, fields))


def _crew_keys(node: Node) -> tuple[str, ...]:
    """CrewAI agents (role, goal, backstory) and tasks (description, expected_output)."""
    value = node.value
    if sum(isinstance(value.get(k), str) for k in ("role", "goal", "backstory")) >= 2:
        return tuple(k for k in ("role", "goal", "backstory") if k in value)
    if isinstance(value.get("description"), str) and isinstance(value.get("expected_output"), str):
        return ("description", "expected_output")
    return ()


# The turn markers of chat formats a prompt written as one text can carry (NeMo's
# `<extra_id_0>System`, ChatML's `<|im_start|>system`, Llama 3's `<|start_header_id|>system`): the
# model reads each turn in the role its marker names.
_TURN = re.compile(r"<extra_id_0>(System)|<extra_id_1>(User|Assistant)|<\|im_start\|>(system|user|assistant)\b"
                   r"|<\|start_header_id\|>(system|user|assistant)<\|end_header_id\|>")


def _turns_request(ctx: Context, fields: dict, key: str) -> Request:
    """A text that writes its own chat turns: one request, each segment in the role (and the
    message) of the last turn marker at or before it."""
    request = _prompt_request(ctx, fields, [key], (Role.USER, True), "template")
    role, index, segments = Role.USER, 0, []
    for segment in request.segments:
        start = 0
        for marker in _TURN.finditer(segment.text) if segment.slot is None else ():
            # The text before a marker stays in the turn it was written in.
            if segment.text[start:marker.start()]:
                segments.append(_part(segment, start, marker.start(), role, index))
            role, index = ROLE_NAMES[next(g for g in marker.groups() if g).lower()], index + 1
            start = marker.start()
        segments.append(_part(segment, start, len(segment.text), role, index) if start else
                        replace(segment, role=role, message_index=index))
    return replace(request, segments=tuple(segments))


def _part(segment: Segment, start: int, end: int, role: Role, index: int) -> Segment:
    """The static text ``segment.text[start:end]`` in its own turn. Its span is counted from the
    segment's start in the text (a YAML block scalar's indent is not in the text, so a column
    after a line break counts from the line's first character); the last part ends where the
    segment does."""
    def position(offset: int) -> tuple[int, int]:
        before = segment.text[:offset]
        breaks = before.count("\n")
        column = offset - before.rfind("\n") if breaks else segment.span.column + offset
        return segment.span.line + breaks, column

    line, column = position(start)
    end_line, end_column = (segment.span.end_line, segment.span.end_column) if end == len(segment.text) \
        else position(end)
    span = replace(segment.span, line=line, column=column, end_line=end_line, end_column=end_column)
    return replace(segment, span=span, text=segment.text[start:end], role=role, message_index=index)


def _prompt_request(ctx: Context, fields: dict, keys: list[str], role: tuple[Role, bool], syntax: str) -> Request:
    """One request whose single message is the text of ``keys``, in that order."""
    model = fields.get("model", (None, None))[1]
    model_name = model.value if model is not None and isinstance(model.value, str) else None
    return Request(
        path=ctx.path,
        anchor=ctx.key_span(fields, keys[0]),
        segments=tuple(s for key in keys for s in ctx.segments(fields[key][1], role[0], 0, syntax)),
        model=model_name if model_name and not JINJA_MARKERS.search(model_name) else None,
        output_limit=output_limit(ctx, fields),
        roles_marked=role[1],
        key=keys[0],
    )


def _string_template(root: Node) -> tuple[dict[str, tuple[Node, Node]], Node] | None:
    """A mapping's fields and its ``template`` when that is a string (a Semantic Kernel prompt
    or a serialised LangChain template may be one), or None."""
    fields = root.fields
    if fields is None:
        return None
    template = fields.get("template", (None, None))[1]
    if template is None or template.kind != "string":
        return None
    return fields, template


_SK_FORMATS = {"semantic-kernel": "sk", "handlebars": "handlebars", "jinja2": "jinja", "liquid": "jinja"}


def _semantic_kernel(ctx: Context, root: Node) -> Request | None:
    """Semantic Kernel prompt YAML: one template, its format and its execution settings."""
    found = _string_template(root)
    if found is None:
        return None
    fields, template = found
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
                limit = output_limit(ctx, service.fields or {})
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


def _langchain(ctx: Context, root: Node) -> Request | None:
    """A serialised LangChain ``PromptTemplate`` (``_type: prompt``), f-string by default."""
    found = _string_template(root)
    if found is None:
        return None
    fields, template = found
    variables = root.value.get("input_variables")
    if root.value.get("_type") != "prompt" and not (
            isinstance(variables, list) and all(isinstance(v, str) for v in variables)):
        return None
    fmt = root.value.get("template_format", "f-string")
    syntax = _LANGCHAIN_FORMATS.get(str(fmt).lower(), "format")
    return Request(ctx.path, ctx.key_span(fields, "template"),
                   segments=tuple(ctx.segments(template, Role.USER, 0, syntax)), roles_marked=False)
