"""The entries of framework files, as the reader validates them (see ``ctxlint.frameworks``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.catalogue import CatalogueError

if TYPE_CHECKING:
    from ctxlint.frameworks.typescript import TsSection

ROLES = ("system", "developer", "user", "assistant", "tool")
SOURCE_KINDS = ("http", "web page", "browser", "file", "upload", "email", "retrieval", "search", "database",
                "tool", "subprocess", "memory", "message", "stdin")
# What a sink's, holder's or template's argument can carry.
# `named_model`: a model an agent or runtime takes by name (`model="openai:gpt-4o"`) and builds itself,
# with no settings (LangChain's `init_chat_model(name)`); a model object may be given there instead.
ARGUMENT_ROLES = ("model", "provider", "system", "messages", "input", "prompt", "tools", "limit", "agent",
                  "variables", "history", "named_model")
TEMPLATE_SYNTAXES = ("format", "jinja", "mustache", "sk")


class FrameworkError(CatalogueError):
    """A framework file that is malformed; the message names the file and the key."""


@dataclass(frozen=True)
class Arg:
    """Where a value is found in a call: a keyword, a position, or either; ``key`` names the
    member of a dict or settings object given there (``config=GenerateContentConfig(
    max_output_tokens=...)``), or a path into it (``model_list[].litellm_params.max_tokens``: ``[]``
    in every item of a list); ``json`` says the argument is ``json.dumps`` of that dict;
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
    provider: str | None = None  # whose API the call reaches, when the SDK says (google-genai: google)
    # The wire format the call sends (Request.api), when it is not chat completions: openai-responses.
    api: str | None = None
    # Where a call that sends any body (an HTTP client's `post`) takes it: the call is a request
    # only when that dict has a chat request's keys, and ``arguments`` name the dict's keys.
    payload: tuple[Arg, ...] = ()
    # A call that runs any kind of model by name (Replicate's `run`: images, audio or text): only a
    # limit given at the call shows a text model, so one given none is not a request to report.
    media_too: bool = False
    # The API rejects a call without its output limit (Anthropic's Messages: `max_tokens` is
    # required): a call that leaves the limit to the keywords its callers pass gets one from
    # every caller whose call succeeds, so it is not a request without a limit.
    limit_required: bool = False
    # Keywords the SDK's method does not take, which make the call raise before it sends anything
    # (OpenAI's v1 clients take no `engine=`, the v0 module's Azure keyword): no request is sent.
    rejects: tuple[str, ...] = ()


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
    # Globs of the model or provider names (the `model` and `provider` arguments) for which the
    # object built sends a limit of its own: `init_chat_model("claude-...")` builds a ChatAnthropic.
    limited_models: tuple[str, ...] = ()
    # Limit keywords other chat models take that this one silently ignores (ChatOllama has no
    # `max_tokens` field: its limit is `num_predict`).
    ignored_limits: tuple[str, ...] = ()
    # Each call of the object can give the limit (LMI's `model.call_single(..., max_tokens=...)`):
    # a model built without one is reported at the calls that send none, not where it is built.
    limit_per_call: bool = False
    # What the object does with a long run's history (deepagents' agent summarises the oldest
    # messages once the conversation nears the window, keeping the system prompt): the opening
    # messages a run is started with are what it rewrites first.
    summarises: str = ""
    # Keywords one of which the object cannot be built without (pydantic's required fields): a call
    # that gives none of them, nor `**values`, raises before anything is sent, and is no request.
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallEntry:
    """What the entries matched by a call share: their framework, and the patterns of the call
    paths that match them (``calls``)."""

    framework: str
    calls: tuple[str, ...]


@dataclass(frozen=True)
class MessageKind(CallEntry):
    role: str | None = None  # a fixed role, or None when ``role_argument`` gives it
    role_argument: Arg | None = None
    content: Arg = field(default_factory=Arg)
    appends: bool = False  # a method that adds the message to its receiver (history.add_user_message)
    variable: bool = False  # a placeholder for messages given later (MessagesPlaceholder("history"))


@dataclass(frozen=True)
class TemplateKind(CallEntry):
    syntax: str = "format"
    text: Arg | None = None  # a single text
    messages: Arg | None = None  # a list of messages: (role, text) pairs, message objects
    role: str = "user"  # the role of a single-text template's message
    syntax_argument: Arg | None = None  # where the call says which syntax (template_format="jinja2")


@dataclass(frozen=True)
class SourceKindSpec(CallEntry):
    kind: str
    what: str
    attributes: tuple[str, ...] = ()  # the content is in these attributes of the result ...
    methods: tuple[str, ...] = ()  # ... or what these methods of the result return
    path: Arg | None = None  # a file read: content only when this path is not the repository's own
    path_receiver: bool = False  # the path is the receiver (`Path(p).read_text()`)
    strong: bool = True
    carrier: bool = False  # the result is an object (a response, a page) whose content is read later


@dataclass(frozen=True)
class Label(CallEntry):
    open: str
    close: str


@dataclass(frozen=True)
class ToolKinds:
    decorators: tuple[str, ...] = ()  # call paths of decorators that make a function a tool
    constructors: tuple[str, ...] = ()  # Tool.from_function(func, description=...)
    # Decorators that list a class or function in a registry a prompt later picks tools from by
    # name (MetaGPT's ``@register_tool``): no call offering the tool is seen.
    registries: tuple[str, ...] = ()
    # The framework rewrites the name of every tool it is given, its own and other libraries'
    # (crewAI's `sanitize_tool_name`), into one any provider accepts.
    renames: bool = False


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
class RowQueries:
    """Database queries whose rows come in the order the database picks unless the query asks for
    one: ``builders`` are methods of a query object of an ORM (``objects.filter``: a queryset
    reached through an attribute named ``objects``, ``table.select``), ``sql_methods`` the methods
    that run the SQL text they are given first (``execute``, ``query``); ``ordered`` the methods
    of a query that fix the order or keep one row (``order_by``, ``get``, ``first``), and
    ``wrappers`` the calls that make an awaitable of the function they are given
    (``sync_to_async(list)(rows)`` lists the rows as ``list(rows)`` does); ``declared_order`` the
    attributes of a model class that order every query of it (``Meta.ordering``)."""

    managers: tuple[str, ...] = ()
    builders: tuple[str, ...] = ()
    sql_methods: tuple[str, ...] = ()
    ordered: tuple[str, ...] = ()
    wrappers: tuple[str, ...] = ()
    declared_order: tuple[str, ...] = ()


@dataclass(frozen=True)
class Framework:
    name: str
    title: str
    path: Path
    provider: str | None = None
    imports: tuple[str, ...] = ()
    llm: bool = True  # importing one of its libraries marks a module as code that talks to a model
    sinks: tuple[Sink, ...] = ()
    holders: tuple[Holder, ...] = ()
    messages: tuple[MessageKind, ...] = ()
    templates: tuple[TemplateKind, ...] = ()
    sources: tuple[SourceKindSpec, ...] = ()
    labels: tuple[Label, ...] = ()
    escapes: tuple[str, ...] = ()
    # Calls that drop messages of a conversation to a budget and leave nothing in their place.
    trimmers: tuple[str, ...] = ()
    rows: RowQueries | None = None
    tools: ToolKinds = field(default_factory=ToolKinds)
    signatures: tuple[Signature, ...] = ()
    prompt_functions: tuple[PromptFunctions, ...] = ()
    typescript: TsSection | None = None  # what the framework's TypeScript/JavaScript packages do
    # Names the library exports under a second name, to the name the entries use
    # (`openai.AsyncClient` is `openai.AsyncOpenAI`).
    exports: dict[str, str] = field(default_factory=dict)
    examples: tuple[dict, ...] = ()

    @property
    def tools_only(self) -> bool:
        """Whether the framework names how it makes tools (registries, constructors) and nothing
        else: importing it says only that a module may make tools. A module is read for its
        registered tools alone, and whole only where it names one of the constructors."""
        others = (self.sinks, self.holders, self.messages, self.templates, self.sources, self.labels, self.escapes,
                  self.trimmers, self.tools.decorators, self.signatures, self.prompt_functions)
        return bool(self.tools.registries or self.tools.constructors) and not any(others) and self.typescript is None
