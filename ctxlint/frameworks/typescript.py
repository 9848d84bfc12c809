"""The ``typescript:`` section of a framework file: what a TypeScript or JavaScript SDK sends,
builds and reads, for the TypeScript front-end.

JavaScript is matched by what the code writes, not by resolved types: a call site by the end of
its property chain (``chat.completions.create`` on whatever client) or by a function's name and
the module it is imported from (``generateText`` from ``ai``), a message by its class's name.

- ``imports``: the modules of the framework's packages; ``@scope/`` stands for every package of a
  scope, and a module stands for its subpaths too (``openai`` for ``openai/resources``);
- ``passthrough``: names in a call chain that return the same client (``withResponse``);
- ``sinks``: calls that send a request of one of the providers' API shapes
  (``ctxlint/providers.py``: where the system text, messages, tools and output limit are);
  ``methods`` are ends of the property chain, ``functions`` are called by their name or on their
  module, imported from a module that starts with one of ``modules`` (or not imported at all);
  ``not_through`` names a property the chain must not pass (``threads.messages.create`` is
  OpenAI's, not Anthropic's); with ``factories``, the ``methods`` are called on an object one of
  those functions builds (``ai.generate(...)`` where ``const ai = genkit({...})``, in the module or
  in one it imports), imported from ``modules``, or on a parameter typed with one of ``types``
  (the class they build, ``ai: Genkit``); ``limited_providers`` makes models whose provider's name holds the
  word send an output limit by default, and ``mock_models`` models no request is sent for;
  ``classes`` are commands whose constructor takes the request (``new ConverseCommand({...})``,
  sent by a client's ``send``); with ``loaded``, the ``methods`` (words too common to match on
  any receiver: ``chat``) count only in a module that imports one of ``modules`` or loads it by
  name (``await import("ollama")``, a helper given the package's name); with ``after_id``, the
  request's options are the second argument, after the id of what the call acts on
  (``runs.stream(threadId, {...})``); ``positional`` names the keys of the request the call's
  first arguments stand for, its options (if any) the argument after them
  (``client.getChatCompletions(deployment, messages, {maxTokens})``: ``[model, messages]``);
- ``posts``: HTTP calls that post a body (``fetch(url, {body})``, ``axios.post(url, body)``):
  ``functions`` called by name (not imported, or imported from ``modules``), or ``methods`` of
  ``clients`` (the package's default export, or an instance one of its ``factories`` built:
  ``axios.create(...)``); ``body`` says where the body is: the ``argument`` and the ``key`` of it
  (``init.body``), ``JSON.stringify`` seen through. A body with a chat request's keys makes the
  call a request (see ``ctxlint/frontends/typescript/posted.py``);
- ``messages``: message classes by name and the role they give (``variable`` ones stand for
  messages given later); ``template`` names the static method that builds one from a template
  whose ``{name}`` fields are slots;
- ``templates``: calls (globs on the name as written) that build a prompt template from a list of
  messages (``messages``) or from one text (``text``);
- ``sources``: where third-party content enters, by mechanism: ``http`` (calls, client objects and
  their verbs, the methods and attributes that give the body, and the names the fetch function is
  handed around by: ``extras.fetch(url)``, ``fetchFn(url)``), ``files`` (readers, the read
  methods of the file modules, and the paths that name standard input: ``readFileSync(0)``),
  ``processes`` (commands run: the calls that return their output, those whose result holds it in
  an attribute, those whose promisified form does, and those whose result emits it on a stream:
  ``spawn(...).stdout.on("data", ...)``), ``requests`` (the request a route handler
  receives: its type names, handler names, parameter pairs, body methods and attributes),
  ``retrievers``, and ``tool_results``;
- ``models``: chat models built with their settings, which hold the output limit of every request
  sent with them (LangChain's ``new ChatOpenAI({model, maxTokens})``, ``initChatModel(name, {...})``):
  the ``classes`` or ``functions`` that build one, imported from ``modules``, the argument that
  holds the settings (``options``), the ``limits`` keys, the ``limited_models`` whose class sets a
  limit of its own, the methods that send a request with the model or a runnable made of it
  (``sent_by``: ``invoke``, ``withStructuredOutput``), and those that make a runnable of it that
  keeps its settings (``derived_by``: ``bindTools``, ``withConfig``);
- ``tools``: ``constructors`` that make a tool of an object (``tool({...})``), ``servers``' methods
  that register one (with the form of their arguments), and the calls a tool's input schema is
  written with (``json`` for a JSON Schema, ``zod`` for a zod schema to convert).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from ctxlint.providers import API_SHAPES, ApiShape

if TYPE_CHECKING:
    from ctxlint.frameworks.entries import Framework
    from ctxlint.frameworks.reader import Reader

# The lists each mechanism of `sources` may hold.
SOURCE_LISTS = {
    "http": ("calls", "clients", "verbs", "methods", "attributes", "fetchers"),
    "files": ("calls", "modules", "methods", "handles", "stdin"),
    "processes": ("calls", "results", "promisified", "streams", "attributes"),
    "requests": ("types", "handlers", "parameters", "methods", "attributes", "names"),
    "retrievers": ("methods", "receivers", "receiver_methods"),
    "tool_results": ("methods",),
}
TOOL_FORMS = ("config", "arguments")  # registerTool(name, {description, inputSchema}, handler); tool(name, ...)


@dataclass(frozen=True)
class TsSink:
    framework: str
    name: str
    shape: ApiShape
    methods: tuple[tuple[str, ...], ...] = ()  # each an end of the property chain, split at its dots
    functions: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    not_through: tuple[str, ...] = ()
    limited_providers: tuple[str, ...] = ()
    mock_models: tuple[str, ...] = ()
    factories: tuple[str, ...] = ()
    types: tuple[str, ...] = ()  # the class the factories build, for a parameter typed with it
    classes: tuple[str, ...] = ()  # `new ConverseCommand({...})`: the command is the request
    loaded: bool = False  # the methods count where the module imports or loads one of `modules`
    # The methods that build the object the sink is called on, whose options set the limit for
    # every call on it (`genAI.getGenerativeModel({model, generationConfig})`).
    built_by: tuple[str, ...] = ()
    # The request's options are the call's second argument, after the id of what it acts on
    # (`client.beta.threads.runs.stream(threadId, {...})`).
    after_id: bool = False
    # The request's keys the call's first arguments stand for, its options the argument after them.
    positional: tuple[str, ...] = ()


@dataclass(frozen=True)
class TsPost:
    framework: str
    functions: tuple[str, ...] = ()  # `fetch(url, init)`
    modules: tuple[str, ...] = ()  # what the functions may be imported from (a global otherwise)
    clients: tuple[str, ...] = ()  # `axios.post(url, body)`: the packages whose export posts
    methods: tuple[str, ...] = ()
    factories: tuple[str, ...] = ()  # `axios.create(...)`: an instance that posts with the same methods
    argument: int = 1  # the argument that holds the body ...
    key: str | None = None  # ... under this key (`init.body`), or whole


@dataclass(frozen=True)
class TsMessage:
    framework: str
    classes: tuple[str, ...]
    role: str | None = None
    variable: bool = False
    template: str | None = None


@dataclass(frozen=True)
class TsTemplate:
    framework: str
    calls: tuple[str, ...]
    messages: bool  # from a list of messages, or from one text


@dataclass(frozen=True)
class TsModel:
    framework: str
    classes: tuple[str, ...]  # `new ChatOpenAI({...})`
    functions: tuple[str, ...]  # `initChatModel("gpt-4o", {...})`
    modules: tuple[str, ...]
    options: int  # the argument that holds the settings
    limits: tuple[str, ...]
    sent_by: frozenset[str]
    derived_by: frozenset[str] = frozenset()
    limited_models: tuple[str, ...] = ()


@dataclass(frozen=True)
class TsSection:
    imports: tuple[str, ...] = ()
    passthrough: tuple[str, ...] = ()
    sinks: tuple[TsSink, ...] = ()
    posts: tuple[TsPost, ...] = ()
    messages: tuple[TsMessage, ...] = ()
    templates: tuple[TsTemplate, ...] = ()
    models: tuple[TsModel, ...] = ()
    sources: dict[str, dict[str, tuple]] = field(default_factory=dict)
    tool_constructors: tuple[str, ...] = ()
    tool_servers: dict[str, str] = field(default_factory=dict)  # method -> form of its arguments
    schemas: dict[str, tuple[str, ...]] = field(default_factory=dict)  # "json"/"zod" -> calls


def read_section(reader: Reader, framework: str, value: object) -> TsSection:
    """The ``typescript:`` section of a framework file, validated."""
    data = reader.mapping(value, "typescript", ("imports", "passthrough", "sinks", "posts", "messages", "templates",
                                                "models", "sources", "tools"))
    sinks = tuple(_sink(reader, framework, s, f"typescript.sinks[{i}]")
                  for i, s in enumerate(reader.items(data.get("sinks"), "typescript.sinks")))
    posts = tuple(_post(reader, framework, p, f"typescript.posts[{i}]")
                  for i, p in enumerate(reader.items(data.get("posts"), "typescript.posts")))
    messages = tuple(_message(reader, framework, m, f"typescript.messages[{i}]")
                     for i, m in enumerate(reader.items(data.get("messages"), "typescript.messages")))
    templates = tuple(_template(reader, framework, t, f"typescript.templates[{i}]")
                      for i, t in enumerate(reader.items(data.get("templates"), "typescript.templates")))
    models = tuple(_model(reader, framework, m, f"typescript.models[{i}]")
                   for i, m in enumerate(reader.items(data.get("models"), "typescript.models")))
    sources = reader.mapping(data.get("sources") or {}, "typescript.sources", SOURCE_LISTS)
    read_sources = {kind: _lists(reader, lists, f"typescript.sources.{kind}", SOURCE_LISTS[kind])
                    for kind, lists in sources.items()}
    tools = reader.mapping(data.get("tools") or {}, "typescript.tools", ("constructors", "servers", "schemas"))
    servers = reader.mapping(tools.get("servers") or {}, "typescript.tools.servers",
                             [str(k) for k in tools.get("servers") or {}])
    for method, form in servers.items():
        if form not in TOOL_FORMS:
            raise reader.fail(f"typescript.tools.servers.{method}", f"must be one of {', '.join(TOOL_FORMS)}")
    schemas = reader.mapping(tools.get("schemas") or {}, "typescript.tools.schemas", ("json", "zod"))
    return TsSection(
        imports=reader.texts(data.get("imports", []), "typescript.imports"),
        passthrough=reader.texts(data.get("passthrough", []), "typescript.passthrough"),
        sinks=sinks, posts=posts, messages=messages, templates=templates, models=models, sources=read_sources,
        tool_constructors=reader.texts(tools.get("constructors", []), "typescript.tools.constructors"),
        tool_servers={str(k): str(v) for k, v in servers.items()},
        schemas={kind: reader.texts(calls, f"typescript.tools.schemas.{kind}") for kind, calls in schemas.items()})


def _sink(reader: Reader, framework: str, value: object, where: str) -> TsSink:
    data = reader.mapping(value, where, ("name", "api", "methods", "functions", "modules", "not_through",
                                         "limited_providers", "mock_models", "factories", "types", "classes",
                                         "loaded", "built_by", "after_id", "positional"))
    api = data.get("api")
    if api not in API_SHAPES:
        raise reader.fail(f"{where}.api", f"must be one of {', '.join(API_SHAPES)}")
    methods = reader.texts(data.get("methods", []), f"{where}.methods")
    functions = reader.texts(data.get("functions", []), f"{where}.functions")
    classes = reader.texts(data.get("classes", []), f"{where}.classes")
    if not methods and not functions and not classes:
        raise reader.fail(where, "must list `methods`, `functions` or `classes`")
    loaded = reader.flag(data.get("loaded", False), f"{where}.loaded")
    if loaded and not (methods and data.get("modules")):
        raise reader.fail(f"{where}.loaded", "needs the `methods` and the `modules` that must be loaded")
    factories = reader.texts(data.get("factories", []), f"{where}.factories")
    if factories and not (methods and data.get("modules")):
        raise reader.fail(f"{where}.factories", "needs the `methods` called on what they build and their `modules`")
    return TsSink(framework, reader.text(data.get("name", (methods or functions or classes)[0]), f"{where}.name"),
                  API_SHAPES[str(api)], tuple(tuple(m.split(".")) for m in methods), functions,
                  reader.texts(data.get("modules", []), f"{where}.modules"),
                  reader.texts(data.get("not_through", []), f"{where}.not_through"),
                  reader.texts(data.get("limited_providers", []), f"{where}.limited_providers"),
                  reader.texts(data.get("mock_models", []), f"{where}.mock_models"),
                  factories, reader.texts(data.get("types", []), f"{where}.types"), classes, loaded,
                  reader.texts(data.get("built_by", []), f"{where}.built_by"),
                  reader.flag(data.get("after_id", False), f"{where}.after_id"),
                  reader.texts(data.get("positional", []), f"{where}.positional"))


def _post(reader: Reader, framework: str, value: object, where: str) -> TsPost:
    data = reader.mapping(value, where, ("functions", "modules", "clients", "methods", "factories", "body"))
    functions = reader.texts(data.get("functions", []), f"{where}.functions")
    clients = reader.texts(data.get("clients", []), f"{where}.clients")
    methods = reader.texts(data.get("methods", []), f"{where}.methods")
    if not functions and not (clients and methods):
        raise reader.fail(where, "must list `functions`, or `clients` and their `methods`")
    body = reader.mapping(data.get("body"), f"{where}.body", ("argument", "key"))
    argument = body.get("argument")
    if not isinstance(argument, int) or isinstance(argument, bool) or argument < 0:
        raise reader.fail(f"{where}.body.argument", "must be the position of an argument (0, 1, ...)")
    return TsPost(framework, functions, reader.texts(data.get("modules", []), f"{where}.modules"), clients, methods,
                  reader.texts(data.get("factories", []), f"{where}.factories"), argument,
                  reader.text(body["key"], f"{where}.body.key") if "key" in body else None)


def _model(reader: Reader, framework: str, value: object, where: str) -> TsModel:
    data = reader.mapping(value, where, ("classes", "functions", "modules", "options", "limits", "sent_by",
                                         "derived_by", "limited_models"))
    classes = reader.texts(data.get("classes", []), f"{where}.classes")
    functions = reader.texts(data.get("functions", []), f"{where}.functions")
    if not classes and not functions:
        raise reader.fail(where, "must list `classes` or `functions`")
    options = data.get("options", 0)
    if not isinstance(options, int) or isinstance(options, bool) or options < 0:
        raise reader.fail(f"{where}.options", "must be the position of an argument (0, 1, ...)")
    return TsModel(framework, classes, functions, reader.texts(data.get("modules"), f"{where}.modules"), options,
                   reader.texts(data.get("limits"), f"{where}.limits"),
                   frozenset(reader.texts(data.get("sent_by"), f"{where}.sent_by")),
                   frozenset(reader.texts(data.get("derived_by", []), f"{where}.derived_by")),
                   reader.texts(data.get("limited_models", []), f"{where}.limited_models"))


def _message(reader: Reader, framework: str, value: object, where: str) -> TsMessage:
    data = reader.mapping(value, where, ("classes", "role", "variable", "template"))
    variable = reader.flag(data.get("variable", False), f"{where}.variable")
    if not variable and "role" not in data:
        raise reader.fail(f"{where}.role", "is required for a message that is not `variable`")
    return TsMessage(framework, reader.texts(data.get("classes"), f"{where}.classes"),
                     reader.role(data["role"], f"{where}.role") if "role" in data else None, variable,
                     reader.text(data["template"], f"{where}.template") if "template" in data else None)


def _template(reader: Reader, framework: str, value: object, where: str) -> TsTemplate:
    data = reader.mapping(value, where, ("calls", "form"))
    form = data.get("form")
    if form not in ("messages", "text"):
        raise reader.fail(f"{where}.form", "must be messages or text")
    return TsTemplate(framework, reader.texts(data.get("calls"), f"{where}.calls"), form == "messages")


def _lists(reader: Reader, value: object, where: str, keys: tuple[str, ...]) -> dict[str, tuple]:
    data = reader.mapping(value, where, keys)
    found: dict[str, tuple] = {}
    for key, listed in data.items():
        if key == "parameters":  # pairs of parameter names: [[req, res], ...]
            pairs = reader.items(listed, f"{where}.{key}")
            found[key] = tuple(reader.texts(pair, f"{where}.{key}[{i}]") for i, pair in enumerate(pairs))
        else:
            found[key] = reader.texts(listed, f"{where}.{key}")
    return found


def _mentions(imports: tuple[str, ...], functions: frozenset[str], methods: set[tuple[str, ...]],
              servers: set[str], constructors: frozenset[str], loaded: tuple[str, ...]) -> re.Pattern[str]:
    """What a module must write for the catalogue to say anything of it, tested on its text before
    it is parsed: an import of one of the packages (``from "openai"``, ``require("@ai-sdk/openai")``,
    ``import("ai/rsc")``), a call given the name of a package a ``loaded`` sink needs
    (``importOptional("ollama")``), a sink's function or command class, the end of a sink's property
    chain, a method called (a tool server's, or one called on what a sink's factory built) or a tool
    constructor called."""
    modules = "|".join(sorted(re.escape(m) + r"[^'\"\s]*" if m.endswith("/") else re.escape(m) + r"(?:/[^'\"\s]*)?"
                              for m in imports))
    chains = "|".join(sorted(r"\.".join(map(re.escape, chain)) for chain in methods))
    words = "|".join(sorted(map(re.escape, functions)))
    calls = "|".join(sorted(map(re.escape, constructors)))
    served = "|".join(sorted(map(re.escape, servers)))
    return re.compile(rf"(?:\bfrom|\bimport|\brequire)\s*\(?\s*['\"](?:{modules})['\"]|{loaded_by_name(loaded)}"
                      rf"|\b(?:{chains})\b|\b(?:{words})\b|\.(?:{served})\(|\b(?:{calls})\(")


def loaded_by_name(modules: tuple[str, ...]) -> str:
    """A pattern for a call given one of ``modules``' names (``await import("ollama")``,
    ``importOptional("ollama", "Ollama")``): how a module loads a package it does not import."""
    by_name = "|".join(sorted(re.escape(m) + r"(?:/[^'\"\s]*)?" for m in modules)) or "(?!)"
    return rf"\(\s*['\"](?:{by_name})['\"]"


def _merged(values: list[tuple]) -> tuple:
    return tuple(dict.fromkeys(v for listed in values for v in listed))


class TypeScriptCatalogue:
    """Every framework's ``typescript:`` section merged: what the TypeScript front-end reads."""

    def __init__(self, frameworks: list[Framework]) -> None:
        sections = [(f, f.typescript) for f in frameworks if f.typescript is not None]
        self.llm_imports = _merged([s.imports for f, s in sections if f.llm])
        self.server_imports = _merged([s.imports for _, s in sections if s.tool_servers])
        self.passthrough = frozenset(_merged([s.passthrough for _, s in sections]))
        self.sinks = tuple(sink for _, s in sections for sink in s.sinks)
        self.posts = tuple(post for _, s in sections for post in s.posts)
        self.sink_functions = frozenset(_merged([sink.functions for sink in self.sinks]))
        self.sink_classes = frozenset(_merged([sink.classes for sink in self.sinks]))
        # The last names of the methods called on an object a factory builds (`generate`).
        self.factory_methods = frozenset(m[-1] for sink in self.sinks if sink.factories for m in sink.methods)
        self.messages = {name: m for _, s in sections for m in s.messages for name in m.classes if not m.variable}
        self.variable_messages = _merged([m.classes for _, s in sections for m in s.messages if m.variable])
        self.template_methods = frozenset(m.template for _, s in sections for m in s.messages if m.template)
        self.templates = tuple(t for _, s in sections for t in s.templates)
        self.models = tuple(model for _, s in sections for model in s.models)
        self.model_builders = frozenset(_merged([m.classes + m.functions for m in self.models]))
        # The methods that send with a model, and those that make a runnable of it that keeps its settings.
        self.model_senders = frozenset(name for m in self.models for name in m.sent_by)
        self.model_derivers = frozenset(name for m in self.models for name in m.derived_by)
        self.tool_constructors = frozenset(_merged([s.tool_constructors for _, s in sections]))
        self.tool_servers = {method: form for _, s in sections for method, form in s.tool_servers.items()}
        self.json_schemas = frozenset(_merged([s.schemas.get("json", ()) for _, s in sections]))
        self.zod_schemas = frozenset(_merged([s.schemas.get("zod", ()) for _, s in sections]))
        lists: dict[str, dict[str, list[tuple]]] = {kind: {key: [] for key in keys}
                                                    for kind, keys in SOURCE_LISTS.items()}
        for _, section in sections:
            for kind, found in section.sources.items():
                for key, listed in found.items():
                    lists[kind][key].append(listed)
        self.sources = {kind: {key: _merged(values) for key, values in keys.items()} for kind, keys in lists.items()}
        # The names a call that posts is made with (`fetch(`, `.post(`, the fetch function handed
        # around as `fetchFn(`): a module that writes none posts no chat request.
        handed = self.sources["http"]["fetchers"]
        self.fetchers = frozenset(f for p in self.posts if p.functions for f in (*p.functions, *handed))
        posting = sorted(self.fetchers | {m for p in self.posts for m in p.methods})
        self.posting = re.compile(r"\b(?:" + "|".join(map(re.escape, posting)) + r")\s*(?:<[^>()]*>\s*)?\(") \
            if posting else None
        types = self.sources["requests"]["types"]
        # A parameter annotated with one of these types receives a request.
        self.request_types = re.compile(r"\b(?:" + "|".join(map(re.escape, types)) + r")\b") if types else None
        # A method called on what a factory built (`ai.generate(`) is a method call, as a tool
        # server's are: the word alone (`generate`) is in too many modules.
        self.mentions = _mentions(self.llm_imports, self.sink_functions | self.sink_classes | self.model_builders,
                                  {m for sink in self.sinks if not (sink.factories or sink.loaded)
                                   for m in sink.methods},
                                  set(self.tool_servers) | set(self.factory_methods), self.tool_constructors,
                                  _merged([sink.modules for sink in self.sinks if sink.loaded]))

    def source(self, kind: str, key: str) -> tuple:
        return self.sources[kind][key]

    def imports(self, module: str, libraries: tuple[str, ...]) -> bool:
        """Whether ``module`` is one of ``libraries`` (``@scope/`` for a whole scope) or below one."""
        return any(module == m or (m.endswith("/") and module.startswith(m)) or module.startswith(m + "/")
                   for m in libraries)

    def template(self, written: str) -> TsTemplate | None:
        """The template a call makes, by its name as written."""
        return next((t for t in self.templates if any(fnmatchcase(written, p) for p in t.calls)), None)
