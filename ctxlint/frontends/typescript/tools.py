"""Tools: lists of tool objects in the OpenAI, Anthropic or MCP shape, the AI SDK's ``tools: {name:
tool({...})}``, MCP servers' registrations, and tool-shaped objects no call site sends; zod schemas
are converted to the JSON Schema the SDK sends (``zod.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ctxlint.frontends.code.pieces import description_text
from ctxlint.frontends.typescript.knowledge import FUNCTIONS, Node
from ctxlint.frontends.typescript.names import Names
from ctxlint.frontends.typescript.slots import Slots
from ctxlint.frontends.typescript.sources import Sources
from ctxlint.frontends.typescript.strings import Strings
from ctxlint.frontends.typescript.unit import Module
from ctxlint.frontends.typescript.values import Env, RequestBuilder, Scope
from ctxlint.frontends.typescript.zod import ZodReader
from ctxlint.model import Breakpoint, Role, ToolDef


@dataclass
class ToolGroup:
    """The tools one server (or one list) offers, and the slots of their descriptions."""

    tools: list[tuple[int, ToolDef]] = field(default_factory=list)
    builder: RequestBuilder = field(default_factory=RequestBuilder)


@dataclass(eq=False)
class Tools:
    """Reads tool definitions from what the values below read."""

    m: Module
    names: Names
    sources: Sources
    strings: Strings
    slots: Slots
    zod: ZodReader = field(init=False)

    def __post_init__(self) -> None:
        self.zod = ZodReader(self.m.code, self.names.deref, self.strings.literal, self.names.entries,
                             self.m.is_zod_name)

    def tool_list(self, node: Node, env: Env, builder: RequestBuilder) -> list[ToolDef]:
        items = self.names.items(node, env)
        if items is None:
            sources = self.sources.iteration_sources(node, env)
            if sources:
                piece = self.slots.slot_piece(node, env, variable=True)
                builder.add([piece], Role.TOOLS)
            return []
        tools = []
        for item in items:
            if item.variable:
                continue
            tool = self.tool_object(item.node, item.env, builder) if item.loop is None else None
            if tool is not None:
                tools.append(tool)
        return tools

    def tool_map(self, node: Node, env: Env, builder: RequestBuilder) -> list[ToolDef]:
        """The AI SDK's ``tools: { name: tool({...}), ... }``."""
        entries = self.names.entries(node, env)
        if entries is None:
            return []
        tools = []
        for name, (value, venv, pair) in entries.items():
            tool = self.ai_sdk_tool(value, venv, builder, name, pair)
            if tool is not None:
                tools.append(tool)
        return tools

    def ai_sdk_tool(self, node: Node, env: Env, builder: RequestBuilder, name: str | None,
                    anchor: Node) -> ToolDef | None:
        node, env = self.names.deref(node, env)
        if node.type == "call_expression":
            callee = self.m.unwrap(self.m.field(node, "function"))
            called = (self.m.dotted(callee) or "") if callee is not None else ""
            if called.rsplit(".", 1)[-1] not in self.m.ts.tool_constructors:
                return None
            args = self.m.args(node)
            if not args:
                return None
            self.m.consumed.add(node.id)
            node = self.m.unwrap(args[0])
        config = self.names.entries(node, env)
        if config is None:
            return None
        self.m.consumed.add(node.id)
        if not any(k in config for k in ("description", "parameters", "inputSchema", "execute")):
            return None
        if "name" in config:
            name = self.strings.literal_str(config["name"][0], config["name"][1]) or name
        key = "inputSchema" if "inputSchema" in config else "parameters"
        return self.make_tool(name, config, key, env, builder, anchor)

    def make_tool(self, name: str | None, config: dict, schema_key: str, env: Env, builder: RequestBuilder,
                  anchor: Node) -> ToolDef:
        description = None
        literal_description = None
        if "description" in config:
            value, venv, _ = config["description"]
            description = self.tool_description(value, venv, builder)
            literal_description = self.strings.literal_str(value, venv)
        schema, estimate = None, None
        if schema_key in config:
            value, venv, _ = config[schema_key]
            schema, estimate = self.schema_of(value, venv)
        raw: dict | None = None
        if name is not None and schema is not None and ("description" not in config or literal_description is not None):
            raw = {"name": name}
            if literal_description is not None:
                raw["description"] = literal_description
            raw[schema_key] = schema
        return ToolDef(name, description, schema, self.m.span(anchor), raw, schema_estimate=estimate)

    def schema_of(self, node: Node, env: Env) -> tuple[object, str | None]:
        """A tool's input schema as JSON: a literal, ``jsonSchema({...})``, or zod converted."""
        target, tenv = self.names.deref(node, env)
        ok, value = self.strings.literal(target, tenv)
        if ok and isinstance(value, dict):
            if list(value) == ["json"] and isinstance(value["json"], dict):
                return value["json"], None  # Amazon Bedrock's toolSpec: inputSchema: {json: {...}}
            return value, None
        if target.type == "call_expression":
            callee = self.m.unwrap(self.m.field(target, "function"))
            called = (self.m.qualified(callee) or "") if callee is not None else ""
            args = self.m.args(target)
            if called.rsplit(".", 1)[-1] in self.m.ts.zod_schemas and args:
                target, tenv = self.names.deref(args[0], tenv)
        if target.type == "object":
            conversion = self.zod.object_schema(target, tenv)
        elif self.zod.looks_like_zod(target, tenv):
            conversion = self.zod.convert(target, tenv)
        else:
            return None, None
        schema = dict(conversion.schema)
        guesses = ", ".join(dict.fromkeys(conversion.approximate))
        note = "converted from zod" + (f"; not read: {guesses}" if guesses else "")
        return schema, note

    def tool_object(self, node: Node, env: Env, builder: RequestBuilder) -> ToolDef | None:
        """A tool written as an object literal: OpenAI (``function: {name, parameters}``, or
        flat), Anthropic (``input_schema``) or MCP (``inputSchema``)."""
        node, env = self.names.deref(node, env)
        entries = self.names.entries(node, env)
        if entries is None:
            return None
        self.m.consumed.add(node.id)
        if "cache_control" in entries:
            builder.breakpoints.append(Breakpoint(self.m.span(entries["cache_control"][2]), 0, None))
        inner = entries
        if "function" in entries:
            nested = self.names.entries(entries["function"][0], entries["function"][1])
            if nested is not None:
                inner = nested
        name = self.strings.literal_str(inner["name"][0], inner["name"][1]) if "name" in inner else None
        key = next((k for k in ("parameters", "input_schema", "inputSchema") if k in inner), "parameters")
        tool = self.make_tool(name, inner, key, env, builder, node)
        if name is None and "name" in inner:  # `name: ToolNames.Edit`: messages name the tool as written
            tool = replace(tool, written=self.m.code(inner["name"][0]))
        ok, raw = self.strings.literal(node, env)
        if ok and isinstance(raw, dict):
            tool = replace(tool, raw=raw)
        return tool

    def tool_description(self, node: Node, env: Env, builder: RequestBuilder) -> str | None:
        return description_text(self.strings.text(node, env), lambda: self.slots.slot_piece(node, env), builder)

    def mcp_tools(self) -> dict[object, ToolGroup]:
        """MCP SDK registrations: ``server.tool(name, description?, shape?, ..., handler)`` and
        ``server.registerTool(name, {description, inputSchema}, handler)``, grouped by server:
        each server lists its own tools (a test file may build a dozen servers)."""
        groups: dict[object, ToolGroup] = {}
        if not self.m.mcp:
            return groups
        for call, scope in self.m.calls:
            if call.type != "call_expression":
                continue
            callee = self.m.unwrap(self.m.field(call, "function"))
            if callee is None or callee.type != "member_expression":
                continue
            method = self.m.code(self.m.field(callee, "property"))
            if method not in self.m.ts.tool_servers:
                continue
            env = Env(scope)
            args = self.m.args(call)
            name = self.strings.literal_str(args[0], env) if args else None
            if name is None:
                continue
            group = groups.setdefault(self.server_of(self.m.field(callee, "object"), env), ToolGroup())
            builder = group.builder
            if self.m.ts.tool_servers[method] == "config":
                config = self.names.entries(args[1], env) if len(args) > 1 else None
                if config is None:
                    continue
                tool = self.make_tool(name, config, "inputSchema", env, builder, call)
                tool = _object_root(tool)
            else:
                config = {}
                for arg in args[1:]:
                    bare = self.m.unwrap(arg)
                    if bare.type in FUNCTIONS:
                        break
                    if ("description" not in config and self.strings.text(arg, env) is not None
                            and bare.type != "object"):
                        config["description"] = (arg, env, arg)
                    elif "inputSchema" not in config:
                        config["inputSchema"] = (arg, env, arg)
                if "inputSchema" not in config:
                    config["inputSchema"] = (call, env, call)  # no parameters: an empty object schema
                tool = _object_root(self.make_tool(name, config, "inputSchema", env, builder, call))
                if tool.schema is None:
                    empty = {"type": "object", "properties": {}}
                    raw = dict(tool.raw) if isinstance(tool.raw, dict) else {"name": name}
                    raw["inputSchema"] = empty
                    tool = replace(tool, schema=empty, schema_estimate="converted from zod", raw=raw)
            group.tools.append((call.start_byte, tool))
        return groups

    def server_of(self, receiver: Node | None, env: Env) -> object:
        """What identifies the server a registration is made on: the declaration its name is
        bound to, or the name within the function that receives it as a parameter."""
        if receiver is None:
            return None
        binding = self.names.resolve(receiver, env)
        if binding is not None:
            return binding.target.id
        code = self.m.code(receiver)
        scope: Scope | None = env.scope
        while scope is not None and code not in scope.params:
            scope = scope.parent
        return (code, id(scope))

    def literal_tools(self) -> dict[object, ToolGroup]:
        """Object literals in a tool's shape that no call site sends (an MCP ``tools/list``
        handler's result, a tool catalogue constant): one group per array that lists them."""
        groups: dict[object, ToolGroup] = {}
        for node, scope in self.m.objects:
            if node.id in self.m.consumed:
                continue
            keys = self.m.raw_pairs(node)
            shaped = ("name" in keys and any(k in keys for k in ("inputSchema", "input_schema"))) or (
                "function" in keys and keys["function"].type == "object"
                and "parameters" in self.m.raw_pairs(keys["function"]))
            if not shaped:
                continue
            parent = node.parent
            group = groups.setdefault(parent.id if parent is not None and parent.type == "array" else node.id,
                                      ToolGroup())
            tool = self.tool_object(node, Env(scope), group.builder)
            if tool is not None and (tool.name is not None or tool.schema is not None):
                group.tools.append((node.start_byte, tool))
        return groups


def _object_root(tool: ToolDef) -> ToolDef:
    """The MCP SDK lists a zod schema without a root ``type`` (a union of objects) as
    ``type: object``; the schema here says what the SDK sends."""
    schema = tool.schema
    if not tool.schema_estimate or not isinstance(schema, dict) or "type" in schema:
        return tool
    stamped = {"type": "object", **schema}
    raw = dict(tool.raw) if isinstance(tool.raw, dict) else tool.raw
    if isinstance(raw, dict):
        raw["inputSchema"] = stamped
    return replace(tool, schema=stamped, raw=raw)
