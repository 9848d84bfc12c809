"""The framework catalogue: what LLM SDKs and agent frameworks send, build and read, as data.

One YAML file per framework (``frameworks/`` at the top of the repository, shipped in the wheel
as ``ctxlint/framework_files``) names, by qualified name:

- ``sinks``: calls that send a request, and which argument carries what (system text, messages,
  user input, tools, the output limit, the model); the framework's default output limit;
- ``holders``: objects built once and used by a sink later (a chat model with its settings, an
  agent with its instructions and tools); ``standalone`` ones are prompts on their own;
  ``model_carries_limit`` says a model given as an object rather than a name may bring its own
  output limit (a Pydantic AI ``Model`` built with ``settings=``);
- ``messages`` and ``templates``: constructors of one message with a role, and of prompt
  templates whose fields are filled later;
- ``sources``: calls whose result is third-party content (HTTP bodies, parsed pages, retriever
  results, tool results, database rows ...);
- ``labels`` and ``escapes``: calls that delimit or escape content;
- ``tools``: decorators and constructors that turn a function into a tool the model sees;
- ``signatures``: classes whose docstring and field descriptions are instructions (DSPy).

Calls are matched by *call path*: the qualified name of the function called, resolved through
the module's imports (``litellm.completion``), or for a method the path of the object it is
called on followed by the method (``openai.OpenAI().chat.completions.create``: ``()`` marks an
instance of the class). A receiver whose type the code does not show is ``?``
(``?.chat.completions.create``); such calls match only a sink's ``shapes``, which are weaker
evidence. Patterns are shell globs (``*`` matches anything, dots included).

Users extend the catalogue from their configuration (``frameworks = ["my/frameworks/"]``): a
file whose ``framework`` name is already known replaces the shipped one, and
``builtin-frameworks = false`` starts from an empty catalogue. Every file is validated when it
loads; a bad entry is a load error that names the file and the key (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path

from ctxlint.catalogue import CatalogueError

ROLES = ("system", "developer", "user", "assistant", "tool")
SOURCE_KINDS = ("http", "web page", "browser", "file", "upload", "email", "retrieval", "search", "database",
                "tool", "subprocess", "memory", "message")
# What a sink's, holder's or template's argument can carry.
ARGUMENT_ROLES = ("model", "system", "messages", "input", "prompt", "tools", "limit", "agent", "variables",
                  "history")
TEMPLATE_SYNTAXES = ("format", "jinja", "mustache", "sk")


class FrameworkError(CatalogueError):
    """A framework file that is malformed; the message names the file and the key."""


@dataclass(frozen=True)
class Arg:
    """Where a value is found in a call: a keyword, a position, or either; ``key`` names the
    member of a dict or settings object given there (``config=GenerateContentConfig(
    max_output_tokens=...)``); ``json`` says the argument is ``json.dumps`` of that dict;
    ``method`` takes it from a call on the receiver instead (``llm.bind_tools(tools)``)."""

    keywords: tuple[str, ...] = ()
    position: int | None = None
    key: tuple[str, ...] = ()
    json: bool = False
    method: str | None = None

    def describe(self) -> str:
        where = " or ".join([f"`{k}=`" for k in self.keywords] + ([f"argument {self.position + 1}"]
                                                                  if self.position is not None else []))
        if self.key:
            where += f" (`{self.key[0]}`)"
        return where


# The wire formats a sink can send (Request.api) besides chat completions, the default.
APIS = ("openai-responses", "anthropic")


@dataclass(frozen=True)
class Sink:
    framework: str
    name: str
    calls: tuple[str, ...]
    shapes: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    arguments: dict[str, tuple[Arg, ...]] = field(default_factory=dict)
    limit_hint: str = ""
    default_limit: int | None = None
    no_limit: bool = False  # a call that takes no output limit (an embedding, an image)
    roles_marked: bool = True
    # The wire format the call sends (Request.api), when it is not chat completions: openai-responses.
    api: str | None = None


@dataclass(frozen=True)
class Holder:
    framework: str
    name: str
    calls: tuple[str, ...]
    arguments: dict[str, tuple[Arg, ...]] = field(default_factory=dict)
    standalone: bool = False
    limit_hint: str = ""
    default_limit: int | None = None
    model_carries_limit: bool = False


@dataclass(frozen=True)
class MessageKind:
    framework: str
    calls: tuple[str, ...]
    role: str | None = None  # a fixed role, or None when ``role_argument`` gives it
    role_argument: Arg | None = None
    content: Arg = field(default_factory=Arg)
    appends: bool = False  # a method that adds the message to its receiver (history.add_user_message)
    variable: bool = False  # a placeholder for messages given later (MessagesPlaceholder("history"))


@dataclass(frozen=True)
class TemplateKind:
    framework: str
    calls: tuple[str, ...]
    syntax: str = "format"
    text: Arg | None = None  # a single text
    messages: Arg | None = None  # a list of messages: (role, text) pairs, message objects
    role: str = "user"  # the role of a single-text template's message
    syntax_argument: Arg | None = None  # where the call says which syntax (template_format="jinja2")


@dataclass(frozen=True)
class SourceKindSpec:
    framework: str
    calls: tuple[str, ...]
    kind: str
    what: str
    attributes: tuple[str, ...] = ()  # the content is in these attributes of the result ...
    methods: tuple[str, ...] = ()  # ... or what these methods of the result return
    path: Arg | None = None  # a file read: content only when this path is not the repository's own
    path_receiver: bool = False  # the path is the receiver (`Path(p).read_text()`)
    strong: bool = True
    carrier: bool = False  # the result is an object (a response, a page) whose content is read later


@dataclass(frozen=True)
class Label:
    framework: str
    calls: tuple[str, ...]
    open: str
    close: str


@dataclass(frozen=True)
class ToolKinds:
    decorators: tuple[str, ...] = ()  # call paths of decorators that make a function a tool
    constructors: tuple[str, ...] = ()  # Tool.from_function(func, description=...)


@dataclass(frozen=True)
class PromptFunctions:
    """Decorators whose function returns prompt text (``@agent.system_prompt``), and its role."""

    framework: str
    decorators: tuple[str, ...]
    role: str = "system"


@dataclass(frozen=True)
class Signature:
    framework: str
    bases: tuple[str, ...]  # base classes (qualified) whose subclasses are signatures
    fields: tuple[str, ...]  # field constructors (qualified)
    description: Arg = field(default_factory=Arg)


@dataclass(frozen=True)
class Framework:
    name: str
    title: str
    path: Path
    imports: tuple[str, ...] = ()
    sinks: tuple[Sink, ...] = ()
    holders: tuple[Holder, ...] = ()
    messages: tuple[MessageKind, ...] = ()
    templates: tuple[TemplateKind, ...] = ()
    sources: tuple[SourceKindSpec, ...] = ()
    labels: tuple[Label, ...] = ()
    escapes: tuple[str, ...] = ()
    tools: ToolKinds = field(default_factory=ToolKinds)
    signatures: tuple[Signature, ...] = ()
    prompt_functions: tuple[PromptFunctions, ...] = ()
    examples: tuple[dict, ...] = ()


def builtin_frameworks_dir() -> Path:
    """The catalogue inside the installed wheel, or the repository's `frameworks/` in a checkout."""
    packaged = Path(__file__).parent / "framework_files"
    return packaged if packaged.is_dir() else Path(__file__).parent.parent / "frameworks"


def load_frameworks(extra: Iterable[Path] = (), builtin: bool = True) -> dict[str, Framework]:
    """Every framework by name: the shipped files, then each extra file or folder in order (a
    later file with the same ``framework`` name replaces the earlier one)."""
    found: dict[str, Framework] = {}
    sources = ([builtin_frameworks_dir()] if builtin else []) + list(extra)
    for source in sources:
        if source.is_dir():
            paths = sorted(source.glob("*.yaml"))
        elif source.is_file():
            paths = [source]
        else:
            raise FrameworkError(f"{source}: framework file or folder not found")
        for path in paths:
            framework = load_framework(path)
            found[framework.name] = framework
    return found


@lru_cache(maxsize=8)
def cached_frameworks(extra: tuple[Path, ...] = (), builtin: bool = True) -> Catalogue:
    return Catalogue(load_frameworks(extra, builtin))


def load_framework(path: Path) -> Framework:
    from ctxlint.frontends import yamlsafe  # imported here: only a run that lints Python needs the catalogue

    try:
        data = yamlsafe.load_file(path)
    except yamlsafe.FileError as error:
        raise FrameworkError(f"{error.where}: cannot load framework file: {error.reason}") from None
    return _Reader(path).framework(data)


_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


class _Reader:
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
        top = self.mapping(data, "", ("framework", "title", "docs", "imports", "sinks", "holders", "messages",
                                          "templates", "sources", "labels", "escapes", "tools", "signatures",
                                          "prompt_functions", "examples"))
        name = self.text(top.get("framework"), "framework")
        if not _NAME.match(name):
            raise self.fail("framework", "must be a lower-case name such as `openai`")
        sinks = tuple(self.sink(name, s, f"sinks[{i}]") for i, s in enumerate(self.items(top.get("sinks"), "sinks")))
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
        tools = self.mapping(top.get("tools") or {}, "tools", ("decorators", "constructors"))
        signatures = tuple(self.signature(name, s, f"signatures[{i}]")
                           for i, s in enumerate(self.items(top.get("signatures"), "signatures")))
        prompt_functions = tuple(self.prompt_functions(name, s, f"prompt_functions[{i}]")
                                 for i, s in enumerate(self.items(top.get("prompt_functions"), "prompt_functions")))
        examples = tuple(self.items(top.get("examples"), "examples"))
        for i, example in enumerate(examples):
            self.mapping(example, f"examples[{i}]", ("id", "rule", "file", "source", "files", "expect", "config"))
        return Framework(
            name=name,
            title=self.text(top.get("title", name), "title"),
            path=self.path,
            imports=self.texts(top.get("imports", []), "imports"),
            sinks=sinks,
            holders=holders,
            messages=messages,
            templates=templates,
            sources=sources,
            labels=labels,
            escapes=self.texts(top.get("escapes", []), "escapes"),
            tools=ToolKinds(self.texts(tools.get("decorators", []), "tools.decorators"),
                            self.texts(tools.get("constructors", []), "tools.constructors")),
            signatures=signatures,
            prompt_functions=prompt_functions,
            examples=examples,
        )

    def sink(self, framework: str, value: object, where: str) -> Sink:
        data = self.mapping(value, where, ("name", "calls", "shapes", "requires", "arguments", "limit_hint",
                                           "default_limit", "no_limit", "roles_marked", "api"))
        calls = self.texts(data.get("calls", []), f"{where}.calls")
        shapes = self.texts(data.get("shapes", []), f"{where}.shapes")
        if not calls and not shapes:
            raise self.fail(where, "must list `calls` or `shapes`")
        arguments = self.arguments(data.get("arguments"), f"{where}.arguments")
        requires = self.texts(data.get("requires", []), f"{where}.requires")
        return Sink(framework, self.text(data.get("name", calls[0] if calls else shapes[0]), f"{where}.name"),
                    calls, shapes, requires, arguments, str(data.get("limit_hint", "")),
                    self.limit(data.get("default_limit"), f"{where}.default_limit"),
                    self.flag(data.get("no_limit", False), f"{where}.no_limit"),
                    self.flag(data.get("roles_marked", True), f"{where}.roles_marked"),
                    self.api(data.get("api"), f"{where}.api"))

    def api(self, value: object, where: str) -> str | None:
        if value is not None and value not in APIS:
            raise self.fail(where, f"must be one of {', '.join(APIS)}")
        return value if isinstance(value, str) else None

    def holder(self, framework: str, value: object, where: str) -> Holder:
        data = self.mapping(value, where, ("name", "calls", "arguments", "standalone", "limit_hint", "default_limit",
                                           "model_carries_limit"))
        calls = self.texts(data.get("calls"), f"{where}.calls")
        return Holder(framework, self.text(data.get("name", calls[0]), f"{where}.name"), calls,
                      self.arguments(data.get("arguments"), f"{where}.arguments"),
                      self.flag(data.get("standalone", False), f"{where}.standalone"),
                      str(data.get("limit_hint", "")), self.limit(data.get("default_limit"), f"{where}.default_limit"),
                      self.flag(data.get("model_carries_limit", False), f"{where}.model_carries_limit"))

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


# How many call paths one set of patterns remembers matching before it starts over.
_MAX_MATCHED = 20_000


class Patterns:
    """A set of call-path globs, matched quickly: exact paths by lookup, the rest by their
    last part first."""

    def __init__(self, entries: Iterable[tuple[str, object]]) -> None:
        self.exact: dict[str, list[object]] = {}
        self.by_last: dict[str, list[tuple[str, object]]] = {}
        self.wild: list[tuple[str, object]] = []
        self._matched: dict[str, tuple[object, ...]] = {}
        for pattern, value in entries:
            if not any(c in pattern for c in "*?["):
                self.exact.setdefault(pattern, []).append(value)
                continue
            last = pattern.rsplit(".", 1)[-1]
            if any(c in last for c in "*?["):
                self.wild.append((pattern, value))
            else:
                self.by_last.setdefault(last, []).append((pattern, value))

    def match(self, path: str) -> list[object]:
        # A module asks about the same few call paths at every call site (and the catalogue
        # outlives the module): each path is matched against the globs once.
        known = self._matched.get(path)
        if known is None:
            if len(self._matched) >= _MAX_MATCHED:
                self._matched.clear()
            known = self._matched[path] = tuple(self._match(path))
        return list(known)

    def _match(self, path: str) -> list[object]:
        found = list(self.exact.get(path, ()))
        last = path.rsplit(".", 1)[-1]
        for pattern, value in (*self.by_last.get(last, ()), *self.wild):
            if fnmatchcase(path, pattern):
                found.append(value)
        return found

    def last_names(self) -> set[str]:
        """The last part of every pattern that has a fixed one (for the cheap test)."""
        names = {path.rsplit(".", 1)[-1].rstrip("()") for path in self.exact}
        names |= set(self.by_last)
        return {n for n in names if n}


class Catalogue:
    """Every framework's entries, indexed by call path."""

    def __init__(self, frameworks: dict[str, Framework]) -> None:
        self.frameworks = frameworks
        all_ = list(frameworks.values())
        self.sink_calls = Patterns((p, s) for f in all_ for s in f.sinks for p in s.calls)
        self.sink_shapes = Patterns((p, s) for f in all_ for s in f.sinks for p in s.shapes)
        self.holders = Patterns((p, h) for f in all_ for h in f.holders for p in h.calls)
        self.messages = Patterns((p, m) for f in all_ for m in f.messages for p in m.calls)
        self.templates = Patterns((p, t) for f in all_ for t in f.templates for p in t.calls)
        self.sources = Patterns((p, s) for f in all_ for s in f.sources for p in s.calls)
        self.labels = Patterns((p, s) for f in all_ for s in f.labels for p in s.calls)
        self.escapes = Patterns((p, p) for f in all_ for p in f.escapes)
        self.tool_decorators = Patterns((p, f.name) for f in all_ for p in f.tools.decorators)
        self.tool_constructors = Patterns((p, f.name) for f in all_ for p in f.tools.constructors)
        self.signatures = [s for f in all_ for s in f.signatures]
        self.prompt_decorators = Patterns((p, pf.role)
                                          for f in all_ for pf in f.prompt_functions for p in pf.decorators)
        self.imports = {i for f in all_ for i in f.imports}
        self.appenders = {name for f in all_ for m in f.messages if m.appends
                          for name in (p.rsplit(".", 1)[-1] for p in m.calls)}
        self._pattern: re.Pattern[str] | None = None

    def roots(self) -> frozenset[str]:
        """The libraries the catalogue knows (``openai``, ``google.genai``)."""
        return frozenset(self.imports)

    def library_pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            from ctxlint.frontends.python.prefilter import library_pattern

            self._pattern = library_pattern(self.roots())
        return self._pattern

    def names(self) -> set[str]:
        """Names whose absence from a module's text means no entry can match in it."""
        names = set(self.imports)
        for patterns in (self.sink_calls, self.sink_shapes, self.holders, self.messages, self.templates,
                         self.tool_decorators, self.prompt_decorators):
            names |= patterns.last_names()
        return names
