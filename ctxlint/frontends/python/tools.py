"""Tools offered to the model: tool lists at call sites, MCP ``Tool(...)`` objects and
``@mcp.tool()`` functions with the schema their signature gives."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from ctxlint.frontends.code.pieces import Builder, description_text
from ctxlint.frontends.python.catalogues import uncapped, unsent_catalogues
from ctxlint.frontends.python.knowledge import TOOL_SCHEMA_KEYS, tool_shaped
from ctxlint.frontends.python.literals import clean, flatten_union, with_sources
from ctxlint.frontends.python.nodes import forward_reference
from ctxlint.frontends.python.registered import decorator_name
from ctxlint.frontends.python.scopes import FunctionNode
from ctxlint.frontends.python.tool_shapes import ShapeScan, keyword_entries
from ctxlint.frontends.python.toolbranches import widest_items
from ctxlint.frontends.python.toolgrowth import accumulated
from ctxlint.frontends.python.unit import Component, Unit
from ctxlint.frontends.python.values import Env, Item, Scope
from ctxlint.model import Breakpoint, Request, Role, Span, ToolDef

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.flow import Entry


class Tools(Component):
    def tool_list(self, node: ast.expr, env: Env, builder: Builder, legacy: bool) -> list[ToolDef]:
        if builder.accumulated is None:
            builder.accumulated = accumulated(self, node, env)
        items = widest_items(self, node, env, self.containers.items(node, env))
        if items is None:
            # A list built at run time: keep nothing of it, except an order that changes per call.
            sources = self.flow.iteration_sources(node, env)
            if sources:
                piece = self.strings.slot_piece(node, env, variable=True)
                builder.add([replace(piece, slot=with_sources(piece.slot, sources))], Role.TOOLS)
            builder.unseen.append(self.unseen(node, env))
            return []
        tools = []
        for item in items:
            if item.variable:
                if item.sources:
                    piece = self.strings.slot_piece(item.node, item.env, variable=True)
                    builder.add([replace(piece, slot=with_sources(piece.slot, item.sources))], Role.TOOLS)
                builder.unseen.append(self.unseen(item.node, item.env))
                continue
            found = self.item_tools(item, builder, legacy) if item.loop is None else []
            if not found and not builder.catalogue:
                builder.catalogue.extend(uncapped(self, item))
            if found:
                tools.extend(found)
            elif item.sources:  # tools picked in a loop over a collection in no fixed order
                piece = self.strings.slot_piece(item.node, item.env, variable=True)
                piece = replace(piece, span=item.sources[0].span)
                builder.add([replace(piece, slot=with_sources(piece.slot, item.sources))], Role.TOOLS, item.loop)
            elif item.loop is None and not item.repeats and isinstance(item.node, (ast.Name, ast.Attribute, ast.Call)):
                # one element of the list written out, one tool, defined where the analysis does not read
                builder.unread.append(self.m.span(item.node))
        return tools

    def item_tools(self, item: Item, builder: Builder, legacy: bool) -> list[ToolDef]:
        """The tools an element of a tool list defines: one, or each function a Gemini tool
        declares (``{"function_declarations": [...]}``, ``types.Tool(function_declarations=...)``)."""
        entries = self.entries(item.node, item.env)
        declared = next((entries[k] for k in _GEMINI_DECLARATIONS if k in entries), None) if entries else None
        if declared is None:
            tool = self.tool_dict(item, builder, legacy)
            return [tool] if tool is not None else []
        listed = self.containers.items(declared[0], declared[1]) or []
        return [t for element in listed if not element.variable
                for t in [self.tool_dict(element, builder, legacy)] if t is not None]

    def unseen(self, node: ast.expr, env: Env) -> str:
        """How the report names tools the code builds at run time: by the value a name holds
        when it is in this module (``json.load(f)``), else by the expression itself."""
        value, _ = self.scopes.deref(node, env)
        return f"tools from `{_short(self.m.code(value if value.__class__ is not ast.Name else node))}`"

    def tool_dict(self, item: Item, builder: Builder, legacy: bool) -> ToolDef | None:
        node, env = self.scopes.deref(item.node, item.env)
        if isinstance(node, ast.Call) and self.is_mcp_tool_call(node):
            return self.mcp_tool_call(node, env, builder)
        entries = self.containers.dict_entries(node, env)
        if entries is None:
            # A typed dict or model built by keywords (`ChatCompletionToolParam(type=..., function=...)`),
            # when it has a tool's shape: another object in a tool list is a framework's tool.
            entries = keyword_entries(node, env)
            if entries is not None and not tool_shaped(frozenset(entries)):
                entries = None
        if entries is None:
            function = self.function_tool(node, env)
            if function is not None:
                fn, scope, owner = function
                tools = owner.tools if owner is not None else self
                decorator = next((d for d in fn.decorator_list if tools.is_catalogue_tool(d, Env(scope))), None)
                tool = tools.decorated_tool(fn, scope, decorator, builder)
                return tool if owner is None else replace(tool, span=self.m.span(item.node))
            return None
        if set(entries) <= _GEMINI_HOSTED:
            return None  # `{"google_search": {}}`: a tool Gemini runs and defines, nothing to measure
        return self.entries_tool(node, env, entries, builder, legacy)

    def entries(self, node: ast.expr, env: Env) -> dict[str, Entry] | None:
        """The entries of a dict, or of a typed dict or model built by keywords."""
        node, env = self.scopes.deref(node, env)
        entries = self.containers.dict_entries(node, env)
        return entries if entries is not None else keyword_entries(node, env)

    def entries_tool(self, node: ast.expr, env: Env, entries: dict[str, Entry], builder: Builder,
                     legacy: bool) -> ToolDef:
        """The tool a dict (or keywords) defines: OpenAI's (chat, wrapped in ``function``, or flat),
        Anthropic's, MCP's, Amazon Bedrock's (``toolSpec``), Gemini's or Pydantic AI's."""
        if "cache_control" in entries:
            cache, cenv, element = entries["cache_control"]
            builder.breakpoints.append(Breakpoint(self.m.span(element), 0, self.messages.ttl(cache, cenv)))
        inner = entries
        for wrapper in ("function", "toolSpec"):  # OpenAI chat's and Amazon Bedrock Converse's shapes
            if not legacy and wrapper in entries:
                inner = self.entries(entries[wrapper][0], entries[wrapper][1]) or entries
                break
        name, written = self.tool_name(inner["name"][0], inner["name"][1]) if "name" in inner else (None, None)
        description = None
        if "description" in inner:
            description = self.tool_description(inner["description"][0], inner["description"][1], builder)
        schema = None
        for key in TOOL_SCHEMA_KEYS:
            if key in inner:
                found, value = self.flow.literal(inner[key][0], inner[key][1])
                schema = value if found else None
                if isinstance(schema, dict) and set(schema) == {"json"}:  # Bedrock: inputSchema={"json": {...}}
                    schema = schema["json"]
                break
        return ToolDef(name, description, schema, self.m.span(node), self.raw_of(entries), written=written)

    def raw_of(self, entries: dict[str, Entry]) -> dict[str, object] | None:
        """The tool as sent, when every part of it is a literal (an enum member's name as its value)."""
        raw: dict[str, object] = {}
        for key, (value, env, _) in entries.items():
            if key == "name":
                literal: object = self.tool_name(value, env)[0]
            else:
                ok, literal = self.flow.literal(value, env)
                if not ok and key in ("function", "toolSpec"):
                    inner = self.entries(value, env)
                    literal = self.raw_of(inner) if inner is not None else None
                elif not ok:
                    literal = None
            if literal is None:
                return None
            raw[key] = literal
        return raw

    def tool_name(self, node: ast.expr, env: Env) -> tuple[str | None, str | None]:
        """A tool's name and, when its value cannot be read, the name as written (for messages)."""
        name = self.flow.literal_str(node, env)
        if name is None:
            name = self.enum_value(node, env)
        return (name, None) if name is not None else (None, self.m.code(node))

    def enum_value(self, node: ast.expr, env: Env) -> str | None:
        """The string an enum member stands for (``ToolName.SEARCH``, ``ToolName.SEARCH.value``),
        when this module or one it imports from defines the class."""
        if isinstance(node, ast.Attribute) and node.attr == "value":
            node = node.value
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            return None
        found = self.callees.class_of(node.value, env, foreign=True)
        records = found[1].assigns.get(node.attr) if found is not None else None
        if not records or records[-1].kind != "=" or not isinstance(records[-1].value, ast.Constant):
            return None
        value = records[-1].value.value
        return value if isinstance(value, str) else None

    def tool_description(self, node: ast.expr, env: Env, builder: Builder) -> str | None:
        return description_text(self.strings.text(node, env), lambda: self.strings.slot_piece(node, env), builder)

    def defined_requests(self, offered: set[Span]) -> list[Request]:
        """Tool definitions found by their shape that no request of the module includes."""
        return ShapeScan(self).requests(offered) + unsent_catalogues(self, set(offered))

    def is_mcp_tool_call(self, call: ast.Call) -> bool:
        qualified = self.m.qualified(call.func) or ""
        if qualified.endswith(".Tool") and qualified.split(".")[0] in ("mcp", "fastmcp"):
            return True
        return qualified in ("Tool", "types.Tool") and any(k.arg == "inputSchema" for k in call.keywords)

    def mcp_tool_call(self, call: ast.Call, env: Env, builder: Builder) -> ToolDef:
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        name, written = self.tool_name(keywords["name"], env) if "name" in keywords else (None, None)
        description = None
        if "description" in keywords:
            description = self.tool_description(keywords["description"], env, builder)
        schema = None
        if "inputSchema" in keywords:
            ok, value = self.flow.literal(keywords["inputSchema"], env)
            schema = value if ok else None
        raw: dict[str, object] | None = None
        literal_description = self.flow.literal_str(keywords["description"], env) if "description" in keywords else None
        described = "description" not in keywords or literal_description is not None
        if name is not None and schema is not None and described:
            raw = {"name": name}
            if literal_description is not None:
                raw["description"] = literal_description
            raw["inputSchema"] = schema
        return ToolDef(name, description, schema, self.m.span(call), raw, written=written)

    def function_tool(self, node: ast.expr, env: Env) -> tuple[FunctionNode, Scope, Analyzer | None] | None:
        """The function a tool list names (``tools=[search_web]``), in this module or another."""
        if not isinstance(node, ast.Name):
            return None
        found = self.callees.callee(node, env, foreign=True)
        if found is None:
            return None
        owner, fn, scope, _ = found
        return fn, scope, owner

    def is_catalogue_tool(self, decorator: ast.expr, env: Env) -> bool:
        """A decorator the framework catalogue names as making a tool (``@tool``, ``@function_tool``)."""
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return bool(self.m.catalogue.tool_decorators.match(self.calls.path(target, env)))

    def mcp_requests(self) -> list[Request]:
        """The tools a module defines, one request per server or agent they are registered on:
        tools of different servers (each test function building its own) are never listed together."""
        groups: dict[tuple[int, str], tuple[Builder, list[ToolDef]]] = {}

        def group(where: Scope, registry: str) -> tuple[Builder, list[ToolDef]]:
            return groups.setdefault((id(where.node), registry), (Builder(), []))

        for call, scope in self.m.calls:
            if self.is_mcp_tool_call(call) and id(call) not in self.m.consumed:
                builder, tools = group(scope, "")
                tools.append(self.mcp_tool_call(call, Env(scope), builder))
        constructors = self.m.catalogue.tool_constructors
        anchors: dict[tuple[int, str], Span] = {}
        for call, scope in self.m.calls:
            if constructors.match(self.calls.path(call.func, Env(scope))):
                # one request per constructor call: nothing shows two constructed tools offered
                # together (a function that returns one of two variants makes both)
                registry = f"constructed@{call.lineno}:{call.col_offset}"
                builder, tools = group(scope, registry)
                made = self.constructed_tools(call, Env(scope), builder)
                if made:
                    anchors.setdefault((id(scope.node), registry), self.m.span(call))
                tools.extend(made)
        for fn, scope in self.m.functions:
            decorator = self.registering_decorator(fn, scope)
            if decorator is not None:
                builder, tools = group(scope.parent or self.m.module_scope, _registry(decorator))
                tools.append(self.decorated_tool(fn, scope, decorator, builder))
        requests = []
        for key, (builder, tools) in groups.items():
            if not tools:
                continue
            tools.sort(key=lambda t: (t.span.path != self.m.path, t.span.line, t.span.column))
            anchor = anchors.get(key, tools[0].span)
            requests.append(Request(self.m.path, anchor, tuple(builder.segments), tuple(tools)))
        return sorted(requests, key=lambda r: (r.anchor.line, r.anchor.column))

    def constructed_tools(self, call: ast.Call, env: Env, builder: Builder) -> list[ToolDef]:
        """The tools a framework's constructor makes of a function (``Tool.from_function(fn)``,
        ``FunctionTool.from_defaults(fn=search)``): its name, docstring and signature, as the
        framework derives them, unless the call gives its own name or description. No call is seen offering
        them to a model, so they count as tools found by their shape (``offered=False``)."""
        keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
        given = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) \
            else next((keywords[k] for k in ("fn", "func", "function", "async_fn") if k in keywords), None)
        if given is None:
            return []
        description = self.tool_description(keywords["description"], env, builder) \
            if "description" in keywords else None
        name = self.flow.literal_str(keywords["name"], env) if "name" in keywords else None
        made = []
        for fn, scope, owner in self.passed_functions(given, env, 0):
            tool = replace((owner.tools if owner is not None else self).decorated_tool(fn, scope, None, builder),
                           offered=False)
            if description is not None and isinstance(tool.raw, dict):
                tool = replace(tool, description=description, raw={**tool.raw, "description": description})
            if name is not None and isinstance(tool.raw, dict):
                tool = replace(tool, name=name, raw={**tool.raw, "name": name})
            made.append(tool)
        return made

    def passed_functions(self, node: ast.expr, env: Env, hops: int
                         ) -> list[tuple[FunctionNode, Scope, Analyzer | None]]:
        """The function an argument names (``search``, ``Searcher(...).search``, in this module or
        another) or, for a parameter of a helper that wraps the constructor (``def make_tool(fn)``),
        each function the helper's callers in this module pass it."""
        found = self.callees.callee(node, env, foreign=True) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if found is not None:
            owner, fn, scope, _ = found
            return [(fn, scope, owner)]
        helper = self.sources.unbound_parameter(node, env) if isinstance(node, ast.Name) and hops < 2 else None
        if helper is None:
            return []
        assert isinstance(node, ast.Name)
        return [f for _, bound in self.sources.callers(helper, node.id, env)
                for f in self.passed_functions(bound.node, bound.env, hops + 1)]

    def registering_decorator(self, fn: FunctionNode, scope: Scope) -> ast.expr | None:
        """The decorator that makes ``fn`` a tool a model can call (``@tool``, ``@function_tool``,
        FastMCP's ``@mcp.tool()``), if one does: a model reads what the function returns."""
        names = self.m.catalogue.tool_decorators.last_names()
        outer = Env(scope.parent or self.m.module_scope)
        return next((d for d in fn.decorator_list if (self.m.mcp and mcp_decorator(d, "tool")) or (
            decorator_name(d) in names and self.is_catalogue_tool(d, outer))), None)

    def decorated_tool(self, fn: FunctionNode, scope: Scope, decorator: ast.expr | None, builder: Builder) -> ToolDef:
        """A FastMCP tool: the function's name and docstring (as the SDK lists them: the raw
        ``__doc__``) and the schema pydantic derives from its signature."""
        env = Env(scope.parent or self.m.module_scope)
        name = fn.name
        description = ast.get_docstring(fn, clean=False)
        if description is not None:
            description = clean(description)
        if isinstance(decorator, ast.Call):
            positional = [a for a in decorator.args if not isinstance(a, ast.Starred)]
            keywords = {k.arg: k.value for k in decorator.keywords if k.arg is not None}
            given = keywords.get("name") or (positional[0] if positional else None)
            if given is not None:
                name = self.flow.literal_str(given, env) or name
            if "description" in keywords:
                description = self.tool_description(keywords["description"], env, builder)
        schema = self.signature_schema(fn, scope, env)
        raw = {"name": name, "description": description or "", "inputSchema": schema}
        return ToolDef(name, description, schema, self.m.name_span(fn), raw, renamed=_renamed(self.m))

    def signature_schema(self, fn: FunctionNode, scope: Scope, env: Env) -> dict[str, object]:
        """The input schema FastMCP (pydantic) derives from a signature, as far as it is static.

        Like pydantic, a parameter is required when it has no default (``Optional[str]``
        without a default is required, and may be null); keys are sorted as pydantic sorts them.
        """
        properties: dict[str, dict[str, object]] = {}
        required: list[str] = []
        args = fn.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            name = arg.arg
            if name in ("self", "cls"):
                continue
            annotation = arg.annotation
            if annotation is not None and self.mentions_context(annotation):
                continue  # FastMCP injects its Context; the model never sees it
            schema = dict(self.type_schema(annotation, env)) if annotation is not None else {}
            default = scope.params[name].default if name in scope.params else None
            has_default = default is not None
            field_call = self.field_call(default)
            default_node = default
            if field_call is not None:
                options = {k.arg: k.value for k in field_call.keywords if k.arg is not None}
                if "description" in options:
                    schema["description"] = self.flow.literal_str(options["description"], env)
                has_default = "default" in options
                default_node = options.get("default")
            if has_default:
                ok, value = self.flow.literal(default_node, env)
                if ok:
                    schema["default"] = value
            else:
                required.append(name)
            schema["title"] = name.replace("_", " ").title()
            properties[name] = dict(sorted(schema.items()))
        result: dict[str, object] = {"properties": properties}
        if required:
            result["required"] = required
        result["title"] = f"{fn.name}Arguments"
        result["type"] = "object"
        return result

    def field_call(self, node: ast.expr | None) -> ast.Call | None:
        if isinstance(node, ast.Call) and (self.m.qualified(node.func) or "").split(".")[-1] == "Field":
            return node
        return None

    def mentions_context(self, annotation: ast.expr) -> bool:
        target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        # FastMCP's Context, Pydantic AI's RunContext, LangChain's ToolRuntime: injected, never shown.
        return (self.m.dotted(target) or "").split(".")[-1] in ("Context", "RunContext", "ToolRuntime")

    def type_schema(self, node: ast.expr, env: Env) -> dict[str, object]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
            parsed = forward_reference(node)
            return self.type_schema(parsed, env) if parsed is not None else {}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return {"anyOf": [self.type_schema(o, env) for o in flatten_union(node)]}
        name = (self.m.dotted(node.value if isinstance(node, ast.Subscript) else node) or "").split(".")[-1]
        if isinstance(node, ast.Constant) and node.value is None:
            name = "None"
        if not isinstance(node, ast.Subscript):
            return dict(_SIMPLE.get(name, {}))
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name == "Optional" and args:
            return {"anyOf": [self.type_schema(args[0], env), {"type": "null"}]}
        if name == "Union":
            return {"anyOf": [self.type_schema(a, env) for a in args]}
        if name in ("list", "List", "Sequence", "Iterable", "tuple", "Tuple"):
            return {"items": self.type_schema(args[0], env) if args else {}, "type": "array"}
        if name in ("set", "Set", "frozenset", "FrozenSet"):
            return {"items": self.type_schema(args[0], env) if args else {}, "type": "array", "uniqueItems": True}
        if name in ("dict", "Dict", "Mapping"):
            return {"additionalProperties": self.type_schema(args[1], env) if len(args) > 1 else True,
                    "type": "object"}
        if name == "Literal":
            values = [v for ok, v in (self.flow.literal(a, env) for a in args) if ok]
            schema: dict[str, object] = {"enum": values}
            kinds = {type(v) for v in values}
            if kinds == {str}:
                schema["type"] = "string"
            elif kinds == {int}:
                schema["type"] = "integer"
            return schema
        if name == "Annotated" and args:
            schema = dict(self.type_schema(args[0], env))
            for meta in args[1:]:
                text = self.flow.literal_str(meta, env)
                field_call = self.field_call(meta)
                if text is not None:
                    schema["description"] = text
                elif field_call is not None:
                    options = {k.arg: k.value for k in field_call.keywords if k.arg is not None}
                    if "description" in options:
                        schema["description"] = self.flow.literal_str(options["description"], env)
            return dict(sorted(schema.items()))
        return {}


_GEMINI_DECLARATIONS = ("function_declarations", "functionDeclarations")
# Gemini's tools that the provider runs (`types.Tool(google_search=types.GoogleSearch())`).
_GEMINI_HOSTED = frozenset({"google_search", "google_search_retrieval", "code_execution", "url_context", "retrieval",
                            "file_search", "google_maps", "computer_use", "enterprise_web_search"})

_SIMPLE: dict[str, dict[str, object]] = {
    "str": {"type": "string"}, "int": {"type": "integer"}, "float": {"type": "number"},
    "bool": {"type": "boolean"}, "dict": {"additionalProperties": True, "type": "object"},
    "list": {"items": {}, "type": "array"}, "Any": {}, "None": {"type": "null"},
}


def _registry(decorator: ast.expr) -> str:
    """The object a decorator registers its tool on (``mcp`` in ``@mcp.tool()``), or ""."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target.value) if isinstance(target, ast.Attribute) else ""


def _short(code: str) -> str:
    """An expression as a report names it: its first line, at most 60 characters."""
    line = " ".join(code.split("\n", 1)[0].split())
    return line if len(line) <= 60 and "\n" not in code else line[:57].rstrip() + "…"


def mcp_decorator(node: ast.expr, name: str) -> bool:
    """``@x.tool``, ``@x.tool()``, ``@x.tool(name=...)`` (FastMCP's ``tool`` and ``prompt``)."""
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Attribute) and target.attr == name
            and isinstance(target.value, (ast.Name, ast.Attribute)))


def _renamed(m: Unit) -> bool:
    """Whether the module's tools go to a framework that rewrites every tool's name into one the
    provider takes (crewAI): the module or the project imports one."""
    roots = m.catalogue.tool_renamers
    if any(value.split(".")[0] in roots for value in m.imports.values()):
        return True
    project = m.project
    return project is not None and any(project.modules_matching(
        "import", root, rb"(?m)^[ \t]*(?:from|import)[ \t]+" + re.escape(root.encode()) + rb"\b", 1)
        for root in roots)
