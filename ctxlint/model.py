"""The shared model of a request: what front-ends produce and what checks read.

A request is what one API call sends, in provider order: tools, then system/developer text,
then messages. Front-ends turn a file into requests made of segments (static text or slots),
each with an exact source span. Checks see only these types, never the file format.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from ctxlint.numbers import token_count


class Role(str, Enum):
    TOOLS = "tools"
    SYSTEM = "system"
    DEVELOPER = "developer"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class Region(str, Enum):
    HEAD = "head"
    MIDDLE = "middle"
    TAIL = "tail"


class _Ranked(str, Enum):
    """An enum whose members are listed from the highest to the lowest."""

    @property
    def rank(self) -> int:
        members = list(type(self))
        return len(members) - 1 - members.index(self)


class Severity(_Ranked):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Confidence(_Ranked):
    """How sure a finding is, from the strength of its evidence (Bandit's and CodeQL's model).

    HIGH: a known source, sink or construct the rule is about (``datetime.now()`` at the top of a
    system prompt; an HTTP body in a system message). MEDIUM: a structural fact with one weak
    link (a loop over a collection the code fills per call). LOW: a variable's name is the only
    evidence (``context`` may be the user's topic or a retrieved page).
    """

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class EvidenceKind(str, Enum):
    SOURCE = "source"  # where the content comes from: a call, a loop item, a clock
    FLOW = "flow"  # how it gets there: an assignment, a call, a return, an import
    SINK = "sink"  # where it lands: a message and role of a request, a region
    NAME = "name"  # what a variable is called: weak on its own


@dataclass(frozen=True, slots=True)
class Evidence:
    """One located step of the reasoning behind a finding; ``strong`` is False for guesses."""

    kind: EvidenceKind
    text: str
    span: Span | None = None
    strong: bool = True

    @classmethod
    def adopted_from(cls, where: Span, strong: bool = True) -> Evidence:
        """The step back to another module where a request's text was made (``in x.py, line 9``)."""
        return cls(EvidenceKind.FLOW, f"in {where.path}, line {where.line}", where, strong)

    @property
    def is_adopted_from(self) -> bool:
        """Whether this is such a step: the engine says a finding once, where that text is made."""
        return self.span is not None and self == Evidence.adopted_from(self.span, self.strong)


@dataclass(frozen=True, slots=True)
class Accumulated:
    """A tool added on every call to a list an object keeps (toolgrowth.py): the list as the code
    names it (``self.tools``) and the located steps that show it, the list first."""

    held_in: str
    steps: tuple[Evidence, ...]


@dataclass(frozen=True, slots=True)
class Span:
    """A source range: 1-based lines and columns, end column exclusive.

    In a Jupyter notebook ``cell`` is the 1-based number of the code cell and the lines count
    from the top of that cell (ruff's notebook locations); elsewhere it is None.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    cell: int | None = None

    @classmethod
    def point(cls, path: str, line: int, column: int = 1) -> Span:
        return cls(path, line, column, line, column)

    def covers(self, inner: Span) -> bool:
        """Whether ``inner`` lies within this span (same file and cell)."""
        return self.path == inner.path and self.cell == inner.cell and \
            (self.line, self.column) <= (inner.line, inner.column) and \
            (inner.end_line, inner.end_column) <= (self.end_line, self.end_column)


class SourceKind(str, Enum):
    """What a front-end learned about where a slot's value comes from."""

    UNSORTED_SERIALIZATION = "unsorted-serialization"  # json.dumps without sort_keys
    UNORDERED_ITERATION = "unordered-iteration"  # a set, os.listdir, glob, shuffle
    TRUNCATION = "truncation"  # text[:n], | truncate
    UNTRUSTED = "untrusted"  # a web page, a file's content, a tool's result
    DELIMITED = "delimited"  # text that wraps every value it prints in a tag pair (detail: the tag)
    PER_ITERATION = "per-iteration"  # a loop's counter, where the loop builds one prompt per pass
    MODEL_OUTPUT = "model-output"  # the answer of a request the module sends: the model's own text
    # An entry of a list that a loop appends to on every pass and reads in the same pass (an agent's
    # log of its steps, sent with each request): the earlier entries are re-sent unchanged, one more
    # each pass (detail: the loop, `the loop `while (...)` (line 20)`).
    LOG_ENTRY = "log-entry"
    # The value fills a field that a prompt template of another module sets apart as a block under
    # a heading of its own (detail: the heading's words;
    # why: the names the value passed reads, space-separated).
    HEADED_FIELD = "headed-field"
    # One of a few texts the code writes, picked at random (`random.choice(OPENINGS)`): each is a
    # prefix of its own, cached apart, not a value that is new on every call (detail: the call;
    # why: how many texts it picks from).
    PICKED = "picked"


# The detail of an UNORDERED_ITERATION that is the rows of a database query asking for no order.
QUERY_ROWS = "query rows"


@dataclass(frozen=True, slots=True)
class Source:
    """A located fact about a slot's value: ``detail`` names it (``json.dumps``, ``os.listdir``).

    For a TRUNCATION whose input the front-end can read, ``content`` holds that input's
    segments (with their own spans) and ``kept`` how many characters the cut keeps, if known;
    ``cut`` says how it cuts (its unit and which end it keeps).
    """

    kind: SourceKind
    detail: str
    span: Span
    fix: Fix | None = None
    content: tuple[Segment, ...] = ()
    kept: int | None = None
    # False when the front-end inferred the fact from a name or a loose pattern rather than from
    # a known call (a variable called `uploaded_file` vs `requests.get(url).text`).
    strong: bool = True
    # How the value travelled from the source to the slot (assignments, calls, returns).
    flow: tuple[Evidence, ...] = ()
    cut: Cut | None = None
    # Why the fact holds, for the message: what makes a serialised dict's key order vary.
    why: str = ""
    # Found in what the module's callers of a function pass for one of its parameters: a
    # summary applied backwards, evidence of its own kind.
    from_caller: bool = False
    # Found in the text a function of the module returns, where a call of it fills the slot
    # (``self.files_text()``, which loops over a set): a summary applied at the call.
    returned: bool = False
    # For third-party content, the catalogue's kind of it (`http`, `subprocess`, `search`).
    origin: str = ""
    # The words printed before the value on its way to the slot, where it ends the f-string that
    # prints it (`f"Tool {name} returned: {out}"` in the function that returns it): a label the
    # trust analysis reads as if the value were written out in the message.
    introduced_by: str = ""
    # The delimiter an f-string wraps the value in on its way to the slot (`f"```{lang}\n{content}\n```"`
    # in a helper that returns it): a label wherever the text lands.
    wrapped_in: str = ""
    # The value is the content as it was read, with nothing added (`question = sys.stdin.read()`).
    whole: bool = False


@dataclass(frozen=True, slots=True)
class Cut:
    """How a truncation cuts: the unit it counts (characters, words, tokens, items of a list),
    which end it keeps ("start" or "end"), the mechanism that found it (its evidence kind:
    ``slice``, ``word-cut``, ``helper-cut`` ...), whether what it cuts is a conversation's
    history (keeping its start drops the newest turns), and whether its name says it is a whole
    document or the context gathered for a question (``document``, ``search_context``), and whether
    the branch that cuts says so to a log (``if len(text) > n: log.warning("truncating")``), and
    whether it cuts the text of a turn of a conversation a loop writes out (``msg["content"][:500]``),
    or of one exchange written under a speaker's name (``f"User: {text[:12000]}"``)."""

    unit: str = "characters"
    keeps: str = "start"
    how: str = "slice"
    history: bool = False
    document: bool = False
    logged: bool = False
    turn: bool = False  # the text of a turn, cut while a loop writes the conversation out as a transcript
    spoken: bool = False  # one exchange written under a speaker's name (`f"User: {text[:12000]}"`)
    optional: bool = False  # made only under a test that its bound is set (`if self.max_size:`): a cap asked for
    told: bool = False  # to a length a prompt asks the model to keep to (`{MAX_CHARS} characters`): a backstop
    reply: bool = False  # a slice of a model's answer (`llm.generate(prompts.notes(...)).get("summary")[:n]`)


@dataclass(frozen=True, slots=True)
class Slot:
    """Facts about an interpolated value, gathered by the front-end without evaluating it.

    ``names`` are the dotted variable paths the expression reads (``user.name``), ``calls`` the
    dotted names of functions it calls (``datetime.now``), ``filters`` the template filters
    applied (``random``, ``tojson``). ``variable_length`` marks a collection whose size varies
    between calls (a loop body, history, retrieved documents). ``sources`` are what data flow
    showed about the value (serialised without sorted keys, iterated in no fixed order, ...).
    """

    expression: str
    names: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()
    variable_length: bool = False
    sources: tuple[Source, ...] = ()
    # Nothing says what fills the slot or how often it changes (a `{placeholder}` in a plain-text
    # prompt that code fills in): the cacheable prefix is taken to end there.
    opaque: bool = False
    # The calls among ``calls`` that run once per process, not per call: read through a
    # module-level constant (`const STARTED = new Date()`), they fix the text when the module loads.
    once: tuple[str, ...] = ()
    # A field of a prompt constant in code whose facts are those of the values passed where code
    # fills it (`PROMPT.format(date=today())` in another module): where, and evidence of its own kind.
    filled_at: tuple[Span, ...] = ()
    # Where code passes the value of a field of a template it fills in place
    # (`PROMPT.format(page=text)` a screen below PROMPT): a step to show with the field.
    passed_at: Span | None = None
    # Where each of ``calls`` is made, when the front-end saw it (a clock read in a helper
    # another module defines): evidence a finding can point at.
    called_at: tuple[tuple[str, Span], ...] = ()
    # Names among ``names`` whose every assignment the front-end read is a lookup of data held
    # elsewhere (`notes = row["notes"]`): what their own words say of the value is not evidence.
    looked_up: tuple[str, ...] = ()
    # Where the prompt templates the value passed is built with are written (a document prompt
    # each retrieved item is rendered through before it fills ``{context}``): steps to show.
    built_with: tuple[tuple[str, Span], ...] = ()
    # The slot stands for a run of messages of varying number (`*history`, a messages placeholder),
    # not for text inside one message (a text built in a loop varies in length, not in turns).
    turns: bool = False
    # Where the value the slot is part of enters the prompt, when it was built elsewhere as text with
    # no words of its own (`f"Explain: {text}"`, `text` a join of a fetched page's paragraphs made in
    # a helper): where a finding about what it carries is reported, the slot's own span a step.
    entered_at: Span | None = None
    entered_as: str = ""  # the expression of the field it enters by (`text`)
    # The collections whose items the slot reads one by one, in their order (`p` of `paths.forEach`).
    walks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Segment:
    """A contiguous piece of a request: static text (``slot is None``) or a slot.

    ``text`` is the static text itself, or the slot's source expression. ``loop`` names the
    iterable of the innermost enclosing loop (static text in a loop repeats per item).
    ``sent_in`` is where code writes the message the segment is sent in (``{"role": "system",
    "content": prompt}``), when that is not where its text is: the step a finding names as the
    message that sends it.
    """

    role: Role
    span: Span
    text: str
    slot: Slot | None = None
    message_index: int = 0
    loop: str | None = None
    sent_in: Span | None = None

    @property
    def is_static(self) -> bool:
        return self.slot is None

    @property
    def has_words(self) -> bool:
        """Static text that says something: letters or CJK, not just punctuation or blanks."""
        return self.slot is None and _WORD.search(self.text) is not None


_WORD = re.compile(r"[^\W\d_]", re.UNICODE)


@dataclass(frozen=True, slots=True)
class ToolDef:
    """One tool definition offered to the model, as written in the source."""

    name: str | None
    description: str | None
    schema: object
    span: Span
    raw: object = None
    # Why ``schema`` is only an estimate of what is sent, when it is one (a zod schema converted
    # the way the SDK converts it): token counts of this tool are then labelled approximate.
    schema_estimate: str | None = None
    # The name as the source writes it when its value cannot be read (a constant of another
    # package): messages name the tool by it; ``name`` stays None.
    written: str | None = None
    # False for a definition found by its shape that no call site or server is seen offering
    # (a module constant, a helper's return): its findings rest on evidence of their own kind.
    offered: bool = True
    # True for a class or function a framework's tool registry lists (MetaGPT's
    # ``@register_tool``), which prompts pick by name: its findings are measured apart.
    registered: bool = False
    # For a registered tool: a module of the project, outside tests and examples, that names it
    # in a string (``tools = ["Editor", "Bash:run"]``), where a prompt may pick it; with its line.
    picked_at: Span | None = None
    renamed: bool = False  # a framework rewrites its name into one the provider takes (crewAI)


@dataclass(frozen=True, slots=True)
class Breakpoint:
    """An Anthropic ``cache_control`` marker: the cache prefix covers ``segments[:covers]``."""

    span: Span
    covers: int
    ttl: str | None = None


@dataclass(frozen=True, slots=True)
class OutputLimit:
    """The request's output reserve (``max_tokens`` and its spellings) and where it is set.

    ``value`` is None when the code gives no number ctxlint can use: whatever a front-end read,
    a value that is not a token count (``10**5000``, thousands of digits) is kept as None, so no
    check or report does arithmetic on it or prints it.
    """

    key: str
    value: int | None
    span: Span

    def __post_init__(self) -> None:
        if self.value is not None and token_count(self.value) is None:
            object.__setattr__(self, "value", None)


@dataclass(frozen=True, slots=True)
class Part:
    """Content a message sends that is not prompt text, as the request writes it.

    ``kind`` is one of ``image``, ``audio``, ``file``, ``document``, ``tool_call`` (an assistant's
    call: ``name`` and the ``text`` of its arguments as sent), ``function_call`` (the legacy
    single call) or ``thinking`` (an earlier turn's reasoning). Images carry their ``detail``
    and, when the request shows it (a ``data:`` URL's image header), their size in pixels.
    """

    kind: str
    span: Span
    name: str = ""
    text: str = ""
    detail: str | None = None
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a request as its wire format sends it, with what is not text.

    ``index`` is the ``message_index`` of the message's text segments (a message with no text,
    such as an assistant turn that only calls a tool, has no segments but is still sent and
    framed). ``role`` is spelled as the request spells it (``function``, ``tool``,
    ``developer``; a Responses ``function_call`` or ``function_call_output`` item).
    """

    index: int
    role: str
    span: Span
    name: str | None = None
    parts: tuple[Part, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """``tool_choice`` (or legacy ``function_call``): ``mode`` is auto, none, required, any or
    tool (one named tool, ``name``); a hosted tool forced by type is mode tool with that type."""

    key: str
    mode: str
    span: Span
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Request:
    """What one API call sends, as far as the source shows it.

    ``anchor`` is where request-level findings (a missing output limit) are reported.
    ``declares_settings`` says whether the source is a place where an output limit can be set
    (a Prompty file or a call site can; a bare Jinja template cannot), and ``settings_hint``
    how that format spells it (``model.parameters.max_tokens``). ``roles_marked`` is False when
    the source does not say which role its text is sent in (a bare template: the role of its
    segments is then only a default).
    """

    path: str
    anchor: Span
    segments: tuple[Segment, ...] = ()
    tools: tuple[ToolDef, ...] = ()
    model: str | None = None
    output_limit: OutputLimit | None = None
    declares_settings: bool = False
    settings_hint: str = ""
    breakpoints: tuple[Breakpoint, ...] = ()
    roles_marked: bool = True
    # The wire format when the source is a request body: openai-chat, openai-responses,
    # anthropic (None for templates and code). With it, ``messages`` lists every message sent,
    # text or not, and ``tool_choice`` how the model must use the tools.
    api: str | None = None
    messages: tuple[Message, ...] = ()
    tool_choice: ToolChoice | None = None
    # For a call site: the framework of the catalogue's sink that was called (``openai``,
    # ``langchain``); None for requests found otherwise. For reports, not for checks.
    framework: str | None = None
    # Whose API the request reaches when the source says it but names no known model (the SDK
    # called: google-genai is Gemini; a request file's wire format): one of tokens.PROVIDERS.
    provider: str | None = None
    # For a call site: it is made inside a method of a class (an adapter or component whose
    # settings usually come from the object's configuration, which the call site does not show).
    in_method: bool = False
    # For a call site: it is made in a test function or class (``test_*``, ``Test*``) outside
    # the test paths (a check script); its findings are low confidence, as in a test file.
    in_test: bool = False
    # For a call site: some code reads its answer (not a probe of access, `if r.status_code == 200`).
    answer_read: bool = True
    # For a call site with no output limit, or one whose limit is not the one the code holds
    # (`ignored`, `field-dropped`), when more than "none is set" is known: the kind of evidence
    # (CTX201's `evidence:` table: `dropped`, a limit the code accepts and never passes on;
    # `wrapper-call`, a call of the project's own wrapper that leaves its limit unset) and the
    # located steps that show it.
    reserve_kind: str = ""
    reserve_evidence: tuple[Evidence, ...] = ()
    # Parts the request sends from a value the source does not show (``tools=json.load(f)``),
    # each as the report names it: ``tools from `json.load(f)```. Counts are then lower bounds.
    unseen: tuple[str, ...] = ()
    # Tools the request offers one per item of a collection whose size nothing on the way caps
    # (every tool an MCP server lists, every function a registry holds): the located steps, the
    # collection first. Their number is not known statically; CTX503 reports the catalogue.
    catalogue: tuple[Evidence, ...] = ()
    # Elements of a tool list written out that each name one tool whose definition is not read
    # (a function of a module past the analysis's reach): counted by CTX503, not measured.
    unread_tools: tuple[Span, ...] = ()
    accumulated: Accumulated | None = None  # a tool added to an object's list on every call (toolgrowth.py)
    # For a bare template whose role the code that renders it shows: the message that sends it.
    sent_at: Span | None = None
    # For a partial (a template others include), where an including template prints a loop before
    # it: what comes first differs per call, so its own prefix is not the request's start.
    included_after: Span | None = None
    # For a prompt a YAML or JSON file holds under a key (`instruction_template: |-`): the key.
    # Code that reads that key of the loaded file and fills it is the prompt's render site.
    key: str | None = None

    def slots(self) -> list[Segment]:
        return [s for s in self.segments if s.slot is not None]

    def indexed_slots(self) -> list[tuple[int, Segment]]:
        """Slots with their positions: one text can appear twice in a request, so a segment's
        position, not its value, says what follows it."""
        return [(i, s) for i, s in enumerate(self.segments) if s.slot is not None]

    def static_after(self, index: int) -> list[Segment]:
        """Static segments that follow the segment at ``index`` in request order."""
        return [s for s in self.segments[index + 1 :] if s.slot is None]


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule's conclusion at a place, with the evidence it was drawn from and how sure it is."""

    code: str
    name: str
    severity: Severity
    span: Span
    message: str
    fix: Fix | None = None
    confidence: Confidence = Confidence.HIGH
    evidence: tuple[Evidence, ...] = ()
    # The kind of evidence the finding rests on (a rule's `evidence:` table names each kind and
    # gives it the confidence measured on real code), and where the code is: "code", or "test"
    # and "example" code, whose findings are fixtures and one-off scripts (low confidence).
    kind: str = ""
    scope: str = "code"
    # The function the finding is in, when only a call by its name reaches it: a run that finds
    # the name written nowhere else in the project says so, and lowers the finding.
    function: NamedFunction | None = None


@dataclass(frozen=True, slots=True)
class NamedFunction:
    """A function of a module that only a call by its name reaches, with the lines it spans:
    defined at the top of the module or as a method of a class with no base (not decorated, so
    nothing registers it; not an override, so no base class or framework calls it by a name of
    its own); or a subclass, which stands for its methods, since only code that names it makes one;
    or a module's constant, which only code that names it reads."""

    name: str
    line: int
    end_line: int
    # Defined at the top of its module (a function or a subclass, not a method): another module
    # reaches it only through an import of this one, so a file that never names the module does
    # not call it, whatever it writes (`tools.run_shell_command(...)` is another object's method).
    top_level: bool = False
    # A constant at the top of its module (`PROMPT_TEMPLATE = """..."""`, `MAX_CHARS = 4096 * 4`),
    # not a function: a template nothing reads is never rendered, a limit nothing reads cuts nothing.
    constant: bool = False
    # The module's other such functions through whose bodies alone it may be reached: those that
    # name it, those that name them, and so on (a template read only by `build_prompt`, which only
    # `ask` calls). When no line outside all their bodies names any of them, none of them runs.
    readers: tuple[NamedFunction, ...] = ()
    # The lines of its module's `if __name__ == "__main__":` block, when the module is a package's:
    # a call there runs only when someone runs the module by hand, never when the application imports it.
    by_hand: tuple[int, int] | None = None
    # For a method of a class with no base: the class, which stands for it too. Only code that names
    # the class makes an object whose method runs, so when no line outside the class names it, the
    # method never runs, whatever other objects' methods of the same name are called.
    within: NamedFunction | None = None


@dataclass(frozen=True, slots=True)
class Fix:
    """A replacement of the source range ``span`` by ``replacement``."""

    description: str
    span: Span
    replacement: str


@dataclass(frozen=True, slots=True)
class Observation:
    """A fact about code that is not part of any request (a ``len(text) / 4`` token estimate, a
    cut whose text no request of the file is seen to include: then ``source`` describes it)."""

    kind: str
    span: Span
    detail: str
    fix: Fix | None = None
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class Embedded:
    """Code a front-end read out of a container file (a notebook's code cells, joined into one
    module): ``text`` in format ``fmt`` is where directives are read, and every span the
    front-end produced is a position in ``text`` until ``relocate`` maps it into the container."""

    text: str
    fmt: str
    relocate: Callable[[Span], Span]
    # Rewrites "line N" (a line of ``text``) in a message about a place in the container.
    retell: Callable[[str, Span], str] = lambda message, span: message


@dataclass(slots=True)
class ParsedFile:
    """A front-end's result for one file: its requests, or the errors that stopped parsing.

    ``dependencies`` are the other files the result was read from (a Prompty file's
    ``${file:tools.json}``, a flow's templates), as paths like ``path``: a cached result is
    stale when any of them changes.
    """

    path: str
    requests: list[Request] = field(default_factory=list)
    errors: list[tuple[Span, str]] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    embedded: Embedded | None = None
    # What the user should know about how the file was read that is not a finding (a generated
    # module skipped, an analysis that stopped at its bound); printed on stderr.
    notices: list[str] = field(default_factory=list)
    # The module's functions that only a call by their name reaches (code front-ends).
    named_functions: list[NamedFunction] = field(default_factory=list)
    # The lines (first, last) of a package module's `if __name__ == "__main__":` block: a self-test
    # run by hand, never when the application imports the module (Python front-end).
    run_by_hand: tuple[int, int] | None = None
    # A program of its own (a script with a main block that holds no test and imports no test
    # framework), wherever its folder is: a pipeline step kept in `test/` is not a test's fixture.
    program: bool = False
