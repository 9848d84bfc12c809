"""Chat requests in the providers' wire shapes: OpenAI chat completions and Responses, Anthropic
messages, Gemini's generateContent, GitHub Models' prompt files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import TypeGuard

from ctxlint.frontends.jsonpos import Node
from ctxlint.frontends.media import media_answer
from ctxlint.frontends.structured.context import JINJA_MARKERS, SETTINGS_TABLES, Context, breakpoint_at, is_null
from ctxlint.frontends.structured.tools import hosted_tool, request_tools, tool_def
from ctxlint.model import (
    Breakpoint,
    Message,
    OutputLimit,
    Part,
    Request,
    Role,
    Segment,
    ToolChoice,
    ToolDef,
)
from ctxlint.numbers import token_count
from ctxlint.providers import (
    ANTHROPIC,
    GEMINI,
    LIMIT_KEYS,
    NOT_TEXT_KEYS,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    ROLE_NAMES,
    TEXT_PARTS,
    answers_in_text,
)

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


def _generates_text(fields: dict) -> bool:
    """Whether a request with a string `input` is a Responses API request (a text model)."""
    model = fields["model"][1]
    return model.kind == "string" and isinstance(model.value, str) and answers_in_text(model.value) \
        and not (NOT_TEXT_KEYS & fields.keys())


def chat_request(ctx: Context, root: Node) -> Request | None:
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
        if content is None or is_null(content):
            return parts
        if content.kind == "string":
            segments.extend(ctx.segments(content, role, index))
            return parts
        if content.kind == "object" and content.fields is not None and "type" in content.fields:
            blocks: list[Node] = [content]  # one content part on its own (MCP's messages)
        elif content.kind != "array":
            ctx.wrong_type(content, f"`{what}`", "text or a list of content parts")
            return parts
        else:
            blocks = list(content.items or ())  # no items: a value read without positions
        for block in blocks:
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
            if kind in (*TEXT_PARTS, None) and text is not None:
                if text.kind == "string":
                    segments.extend(ctx.segments(text, role, index))
                elif not is_null(text):
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
                breakpoints.append(breakpoint_at(ctx, block, len(segments)))
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

    tools, tool_breakpoints = request_tools(ctx, fields)
    anthropic = anthropic or any(t.raw and isinstance(t.raw, dict) and "input_schema" in t.raw for t in tools)
    model = fields.get("model", (None, None))[1]
    if model is not None and model.kind in ("object", "array"):
        ctx.wrong_type(model, "`model`", "a model name")
    model_name = model.value if model is not None and isinstance(model.value, str) else None
    if model_name and (JINJA_MARKERS.search(model_name) or not model_name.strip()):
        model_name = None
    if model_name and model_name.lower().startswith(("claude", "anthropic")):
        anthropic = True

    limit = output_limit(ctx, fields)
    if responses:
        hint = OPENAI_RESPONSES.hint()
    elif "modelParameters" in fields or PurePosixPath(ctx.path).name.lower().endswith((".prompt.yml", ".prompt.yaml")):
        hint = "`modelParameters.maxTokens`"
    elif anthropic:
        hint = ANTHROPIC.hint()
    else:
        hint = OPENAI_CHAT.hint()
    anchor = ctx.key_span(fields, "model") if "model" in fields else ctx.point(root.start)
    modalities = fields["modalities"][1].value if "modalities" in fields else None
    return Request(
        path=ctx.path,
        anchor=anchor,
        segments=tuple(segments),
        tools=tuple(tools),
        model=model_name,
        output_limit=limit,
        # A file that names no model is a message list (an MCP prompt result, a dataset row, a
        # test oracle), not a request whose settings it could carry.
        # A chat completion asking for an image (`"modalities": ["image", "text"]`) has no text
        # answer for a limit to bound.
        declares_settings=("model" in fields or limit is not None) and not media_answer(modalities),
        settings_hint=hint,
        breakpoints=tuple(tool_breakpoints + breakpoints),
        api="openai-responses" if responses else "anthropic" if anthropic else "openai-chat",
        messages=tuple(sent),
        tool_choice=_tool_choice(ctx, fields),
    )


def _message(ctx: Context, node: Node, index: int,
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
    role = ROLE_NAMES.get(role_name, Role.USER)
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


def _media_part(ctx: Context, block: Node, kind: str) -> Part:
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


def _tool_choice(ctx: Context, fields: dict) -> ToolChoice | None:
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


def gemini_request(ctx: Context, root: Node) -> Request | None:
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
                tool = tool_def(ctx, item, strict=False)
                if tool is not None:
                    tools.append(tool)
        if entry.kind == "object" and not any(k in entry.value for k in declaration_keys):
            tool = hosted_tool(ctx, entry) or (ToolDef(next(iter(entry.value), "tool"), None, None,
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
        model=model_name if model_name and not JINJA_MARKERS.search(model_name) else None,
        output_limit=output_limit(ctx, fields),
        declares_settings=not media_answer(_generation_config(fields).get("responseModalities")),
        settings_hint=GEMINI.hint(),
        api="gemini",
        messages=tuple(sent),
    )


def _generation_config(fields: dict) -> dict:
    config = fields.get("generationConfig", fields.get("generation_config", (None, None)))[1]
    return config.value if config is not None and isinstance(config.value, dict) else {}


def output_limit(ctx: Context, fields: dict) -> OutputLimit | None:
    for table in (None, *SETTINGS_TABLES):
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
