"""Reads one framework file, validating every entry; an error names the file and the key."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path

from ctxlint.frameworks.entries import (
    APIS,
    ARGUMENT_ROLES,
    ROLES,
    SOURCE_KINDS,
    TEMPLATE_SYNTAXES,
    Arg,
    Framework,
    FrameworkError,
    Holder,
    Label,
    MessageKind,
    PromptFunctions,
    RowQueries,
    Signature,
    Sink,
    SourceKindSpec,
    TemplateKind,
    ToolKinds,
)
from ctxlint.frameworks.typescript import read_section
from ctxlint.providers import posted_limits

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


def posted_limit_args() -> tuple[Arg, ...]:
    """The output limit of a posted body where the API shapes keep it (``providers.posted_limits``,
    the table the TypeScript front-end reads too): the body's own keys, then a key of the object
    that holds a shape's settings (``options.num_predict``, ``generationConfig.maxOutputTokens``)."""
    places = posted_limits()
    return (Arg(keywords=tuple(key for holder, key in places if not holder)),
            *(Arg(keywords=(holder,), key=(key,)) for holder, key in places if holder))


class Reader:
    """Validates one framework file; every error names the file and the key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> FrameworkError:
        return FrameworkError(f"{self.path}: `{where}` {problem}")

    def mapping(self, value: object, where: str, keys: Iterable[str]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(where, "must be a mapping")
        allowed = set(keys)
        unknown = sorted(str(k) for k in value if k not in allowed)
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}" if where else unknown[0],
                            f"is not a known key (keys: {', '.join(sorted(allowed))})")
        return value

    def text(self, value: object, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, "must be a non-empty string")
        return value

    def texts(self, value: object, where: str) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(where, "must be a list of strings")
        return tuple(value)

    def items(self, value: object, where: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(where, "must be a list")
        return value

    def flag(self, value: object, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, "must be true or false")
        return value

    def limit(self, value: object, where: str) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise self.fail(where, "must be a positive number of tokens")
        return value

    def role(self, value: object, where: str) -> str:
        if value not in ROLES:
            raise self.fail(where, f"must be one of {', '.join(ROLES)}")
        return str(value)

    def arg(self, value: object, where: str) -> Arg:
        if isinstance(value, str):
            return Arg(keywords=(value,))
        data = self.mapping(value, where, ("keyword", "position", "key", "json", "method"))
        keywords = self.texts(data["keyword"], f"{where}.keyword") if "keyword" in data else ()
        position = data.get("position")
        if position is not None and (not isinstance(position, int) or isinstance(position, bool) or position < 0):
            raise self.fail(f"{where}.position", "must be a position counted from 0")
        if not keywords and position is None and "method" not in data:
            raise self.fail(where, "must name a `keyword`, a `position` or a `method`")
        return Arg(keywords, position, self.texts(data["key"], f"{where}.key") if "key" in data else (),
                   self.flag(data.get("json", False), f"{where}.json"),
                   self.text(data["method"], f"{where}.method") if "method" in data else None)

    def arguments(self, value: object, where: str) -> dict[str, tuple[Arg, ...]]:
        data = self.mapping(value or {}, where, ARGUMENT_ROLES)
        result = {}
        for role, specs in data.items():
            listed = specs if isinstance(specs, list) else [specs]
            result[role] = tuple(self.arg(spec, f"{where}.{role}") for spec in listed)
        return result

    def framework(self, data: object) -> Framework:
        top = self.mapping(data, "", ("framework", "title", "docs", "provider", "imports", "llm", "sinks", "holders",
                                          "messages", "templates", "sources", "labels", "escapes", "trimmers", "rows",
                                          "tools", "signatures", "prompt_functions", "typescript", "examples",
                                          "exports"))
        name = self.text(top.get("framework"), "framework")
        if not _NAME.match(name):
            raise self.fail("framework", "must be a lower-case name such as `openai`")
        provider = self.provider(top.get("provider"))
        sinks = tuple(self.sink(name, s, f"sinks[{i}]", provider)
                      for i, s in enumerate(self.items(top.get("sinks"), "sinks")))
        holders = tuple(self.holder(name, h, f"holders[{i}]")
                        for i, h in enumerate(self.items(top.get("holders"), "holders")))
        messages = tuple(self.message(name, m, f"messages[{i}]")
                         for i, m in enumerate(self.items(top.get("messages"), "messages")))
        templates = tuple(self.template(name, t, f"templates[{i}]")
                          for i, t in enumerate(self.items(top.get("templates"), "templates")))
        sources = tuple(self.source(name, s, f"sources[{i}]")
                        for i, s in enumerate(self.items(top.get("sources"), "sources")))
        labels = tuple(self.label(name, s, f"labels[{i}]")
                       for i, s in enumerate(self.items(top.get("labels"), "labels")))
        tools = self.mapping(top.get("tools") or {}, "tools", ("decorators", "constructors", "registries", "renames"))
        signatures = tuple(self.signature(name, s, f"signatures[{i}]")
                           for i, s in enumerate(self.items(top.get("signatures"), "signatures")))
        prompt_functions = tuple(self.prompt_functions(name, s, f"prompt_functions[{i}]")
                                 for i, s in enumerate(self.items(top.get("prompt_functions"), "prompt_functions")))
        exports = top.get("exports") or {}
        if not isinstance(exports, dict):
            raise self.fail("exports", "must be a mapping of a name to the name it stands for")
        examples = tuple(self.items(top.get("examples"), "examples"))
        for i, example in enumerate(examples):
            self.mapping(example, f"examples[{i}]", ("id", "rule", "file", "source", "files", "expect", "config"))
        return Framework(
            name=name,
            title=self.text(top.get("title", name), "title"),
            path=self.path,
            provider=provider,
            imports=self.texts(top.get("imports", []), "imports"),
            llm=self.flag(top.get("llm", True), "llm"),
            sinks=sinks,
            holders=holders,
            messages=messages,
            templates=templates,
            sources=sources,
            labels=labels,
            escapes=self.texts(top.get("escapes", []), "escapes"),
            trimmers=self.texts(top.get("trimmers", []), "trimmers"),
            rows=self.rows(top["rows"]) if "rows" in top else None,
            tools=ToolKinds(self.texts(tools.get("decorators", []), "tools.decorators"),
                            self.texts(tools.get("constructors", []), "tools.constructors"),
                            self.texts(tools.get("registries", []), "tools.registries"),
                            self.flag(tools.get("renames", False), "tools.renames")),
            signatures=signatures,
            prompt_functions=prompt_functions,
            typescript=read_section(self, name, top["typescript"]) if "typescript" in top else None,
            exports={self.text(k, "exports"): self.text(v, f"exports.{k}") for k, v in exports.items()},
            examples=examples,
        )

    def rows(self, value: object) -> RowQueries:
        names = [f.name for f in fields(RowQueries)]
        rows = self.mapping(value, "rows", names)
        return RowQueries(**{f: self.texts(rows.get(f, []), f"rows.{f}") for f in names})

    def provider(self, value: object) -> str | None:
        """``provider``: whose API every sink of an SDK reaches (an agent framework that calls any
        provider names none)."""
        from ctxlint.tokens import PROVIDERS

        if value is None:
            return None
        if value not in PROVIDERS:
            raise self.fail("provider", f"must be one of {', '.join(PROVIDERS)}")
        return str(value)

    def sink(self, framework: str, value: object, where: str, provider: str | None = None) -> Sink:
        data = self.mapping(value, where, ("name", "calls", "shapes", "requires", "arguments", "limit_hint",
                                           "default_limit", "no_limit", "roles_marked", "api", "payload",
                                           "media_too", "limit_required", "rejects"))
        calls = self.texts(data.get("calls", []), f"{where}.calls")
        shapes = self.texts(data.get("shapes", []), f"{where}.shapes")
        if not calls and not shapes:
            raise self.fail(where, "must list `calls` or `shapes`")
        arguments = self.arguments(data.get("arguments"), f"{where}.arguments")
        payload = self.payload(data.get("payload"), f"{where}.payload")
        if payload and "limit" not in arguments:
            arguments["limit"] = posted_limit_args()
        requires = self.texts(data.get("requires", []), f"{where}.requires")
        return Sink(framework, self.text(data.get("name", calls[0] if calls else shapes[0]), f"{where}.name"),
                    calls, shapes, requires, arguments, str(data.get("limit_hint", "")),
                    self.limit(data.get("default_limit"), f"{where}.default_limit"),
                    self.flag(data.get("no_limit", False), f"{where}.no_limit"),
                    self.flag(data.get("roles_marked", True), f"{where}.roles_marked"), provider,
                    self.api(data.get("api"), f"{where}.api"),
                    payload,
                    self.flag(data.get("media_too", False), f"{where}.media_too"),
                    self.flag(data.get("limit_required", False), f"{where}.limit_required"),
                    self.texts(data.get("rejects", []), f"{where}.rejects"))

    def payload(self, value: object, where: str) -> tuple[Arg, ...]:
        """``payload``: where a call that posts any body takes it. Unless the sink names its own,
        the keys of the body that hold the output limit are the providers' (``posted_limit_args``)."""
        listed = [] if value is None else value if isinstance(value, list) else [value]
        return tuple(self.arg(spec, where) for spec in listed)

    def api(self, value: object, where: str) -> str | None:
        if value is not None and value not in APIS:
            raise self.fail(where, f"must be one of {', '.join(APIS)}")
        return value if isinstance(value, str) else None

    def holder(self, framework: str, value: object, where: str) -> Holder:
        data = self.mapping(value, where, ("name", "calls", "arguments", "standalone", "limit_hint", "default_limit",
                                           "model_carries_limit", "limited_models", "ignored_limits",
                                           "limit_per_call", "summarises", "requires"))
        calls = self.texts(data.get("calls"), f"{where}.calls")
        return Holder(framework, self.text(data.get("name", calls[0]), f"{where}.name"), calls,
                      self.arguments(data.get("arguments"), f"{where}.arguments"),
                      self.flag(data.get("standalone", False), f"{where}.standalone"),
                      str(data.get("limit_hint", "")), self.limit(data.get("default_limit"), f"{where}.default_limit"),
                      self.flag(data.get("model_carries_limit", False), f"{where}.model_carries_limit"),
                      self.texts(data.get("limited_models", []), f"{where}.limited_models"),
                      self.texts(data.get("ignored_limits", []), f"{where}.ignored_limits"),
                      self.flag(data.get("limit_per_call", False), f"{where}.limit_per_call"),
                      self.text(data["summarises"], f"{where}.summarises") if "summarises" in data else "",
                      self.texts(data.get("requires", []), f"{where}.requires"))

    def message(self, framework: str, value: object, where: str) -> MessageKind:
        data = self.mapping(value, where, ("calls", "role", "content", "appends", "variable"))
        calls = self.texts(data.get("calls"), f"{where}.calls")
        role = data.get("role")
        fixed = role_arg = None
        if isinstance(role, str):
            fixed = self.role(role, f"{where}.role")
        elif role is not None:
            role_arg = self.arg(role, f"{where}.role")
        else:
            raise self.fail(f"{where}.role", "is required: a role, or where the call gives it")
        if "content" not in data:
            raise self.fail(f"{where}.content", "is required: where the call gives the text")
        return MessageKind(framework, calls, fixed, role_arg, self.arg(data["content"], f"{where}.content"),
                           self.flag(data.get("appends", False), f"{where}.appends"),
                           self.flag(data.get("variable", False), f"{where}.variable"))

    def template(self, framework: str, value: object, where: str) -> TemplateKind:
        data = self.mapping(value, where, ("calls", "syntax", "text", "messages", "role", "syntax_argument"))
        calls = self.texts(data.get("calls"), f"{where}.calls")
        syntax = data.get("syntax", "format")
        if syntax not in TEMPLATE_SYNTAXES:
            raise self.fail(f"{where}.syntax", f"must be one of {', '.join(TEMPLATE_SYNTAXES)}")
        text = self.arg(data["text"], f"{where}.text") if "text" in data else None
        messages = self.arg(data["messages"], f"{where}.messages") if "messages" in data else None
        if (text is None) == (messages is None):
            raise self.fail(where, "must give exactly one of `text` and `messages`")
        syntax_argument = (self.arg(data["syntax_argument"], f"{where}.syntax_argument")
                           if "syntax_argument" in data else None)
        return TemplateKind(framework, calls, str(syntax), text, messages,
                            self.role(data.get("role", "user"), f"{where}.role"), syntax_argument)

    def source(self, framework: str, value: object, where: str) -> SourceKindSpec:
        data = self.mapping(value, where, ("calls", "kind", "what", "attributes", "methods", "path", "strong",
                                           "carrier"))
        kind = data.get("kind")
        if kind not in SOURCE_KINDS:
            raise self.fail(f"{where}.kind", f"must be one of {', '.join(SOURCE_KINDS)}")
        path = data.get("path")
        path_arg = None if path in (None, "receiver") else self.arg(path, f"{where}.path")
        attributes = self.texts(data.get("attributes", []), f"{where}.attributes")
        methods = self.texts(data.get("methods", []), f"{where}.methods")
        return SourceKindSpec(framework, self.texts(data.get("calls"), f"{where}.calls"), str(kind),
                              self.text(data.get("what", kind), f"{where}.what"), attributes, methods, path_arg,
                              path == "receiver", self.flag(data.get("strong", True), f"{where}.strong"),
                              self.flag(data.get("carrier", bool(attributes or methods)), f"{where}.carrier"))

    def label(self, framework: str, value: object, where: str) -> Label:
        data = self.mapping(value, where, ("calls", "open", "close"))
        return Label(framework, self.texts(data.get("calls"), f"{where}.calls"),
                     self.text(data.get("open"), f"{where}.open"), self.text(data.get("close"), f"{where}.close"))

    def prompt_functions(self, framework: str, value: object, where: str) -> PromptFunctions:
        data = self.mapping(value, where, ("decorators", "role"))
        return PromptFunctions(framework, self.texts(data.get("decorators"), f"{where}.decorators"),
                               self.role(data.get("role", "system"), f"{where}.role"))

    def signature(self, framework: str, value: object, where: str) -> Signature:
        data = self.mapping(value, where, ("bases", "fields", "description"))
        return Signature(framework, self.texts(data.get("bases"), f"{where}.bases"),
                         self.texts(data.get("fields"), f"{where}.fields"),
                         self.arg(data.get("description", "desc"), f"{where}.description"))
