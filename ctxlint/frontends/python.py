"""Python modules that build prompts or call LLM APIs, read with libcst: never imported or run.

What the front-end finds in a module:

* **Call sites** -- OpenAI ``chat.completions.create``/``parse``, ``responses.create``,
  Anthropic ``messages.create``/``stream``, LiteLLM ``completion`` -- become requests with their
  tools, system text, messages, model and output limit.
* **Prompt text** is followed through string literals, f-strings, ``.format``, ``%``, ``+``,
  ``join``, ``textwrap.dedent`` and the names, simple functions, ``+=`` and list appends of the
  same module. Static text keeps the span where it is written (a constant used at a call site
  keeps the constant's own spans); each interpolated value is a slot spanning its field, with
  the facts of the value it holds: the names it reads, the calls it makes (resolved through the
  module's imports: ``datetime.datetime.now``) and what data flow shows about it (``json.dumps``
  without sorted keys, a set or a directory listing iterated in no fixed order, third-party
  content -- an HTTP response body, a file from a path that is not the repository's own, an
  upload, an e-mail, a tool's result -- and text cut to a fixed length, ``text[:4000]``).
  ``with ... as name`` binds the name; a list changed later in a loop around the call that
  sends it (an agent appending tool results) reaches that call on the next pass.
* **Prompt constants**, prompt-building functions and message lists that reach no call site in
  the module become requests of their own (system role, no settings), so prompt modules are
  checked too.
* **MCP tools** (``Tool(...)`` from ``mcp.types``, and ``@mcp.tool()`` functions whose docstring
  and signature form the schema) become one request made of tools.
* ``len(text) / 4``-style **token estimates** become observations.

Nothing outside the module is resolved: a name imported from elsewhere is a slot. A module that
mentions no LLM API, prompt name or token estimate is skipped before libcst is even imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase

from ctxlint.frontends.locate import line_locator
from ctxlint.model import (
    Breakpoint,
    Fix,
    Observation,
    OutputLimit,
    ParsedFile,
    Request,
    Role,
    Segment,
    Slot,
    Source,
    SourceKind,
    Span,
    ToolDef,
)

# --------------------------------------------------------------------------------------------
# The cheap test: a module that mentions none of these holds no prompt ctxlint can read.

_MARKERS_CI = re.compile(
    r"openai|anthropic|litellm|chat\.completions|responses\.create|prompt|instruction|template"
    r"|system_message|system_msg",
    re.IGNORECASE,
)
_MARKERS_CS = re.compile(r"SYSTEM|mcp|\bTool\(|\.tool\b|messages\s*=|\.messages\.|[\"']role[\"']")
_LEN = re.compile(r"\blen\(|tokens?\s*\*\s*\d", re.IGNORECASE)
_TOKEN = re.compile(r"token", re.IGNORECASE)


def might_hold_prompts(text: str) -> bool:
    """A regex-level test, run before libcst is imported: can this module hold anything we read?"""
    if _MARKERS_CS.search(text) or _MARKERS_CI.search(text):
        return True
    return bool(_LEN.search(text) and _TOKEN.search(text))


# The deepest syntax tree (in CPython ``ast`` levels) we hand to libcst: its native parser
# overflows the C stack on deeply nested input (about 1,500 nested brackets or a chain of
# 10,000 `+`), which would kill the whole run. Real code stays far below this.
MAX_DEPTH = 200


def parse_file(text: str, path: str) -> ParsedFile:
    parsed = ParsedFile(path)
    if not might_hold_prompts(text):
        return parsed
    problem, tree = _precheck(text, path)
    if problem is not None:
        parsed.errors.append(problem)
        return parsed
    if tree is not None and not _interesting(tree, path):
        return parsed  # CPython's parser is ten times faster than libcst: skip what holds nothing

    import libcst as cst  # imported here: linting a template must not pay for libcst

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        parsed.errors.append(
            (Span.point(path, max(error.raw_line, 1), error.raw_column + 1), _syntax_message(error.message))
        )
        return parsed
    except RecursionError:
        parsed.errors.append((Span.point(path, 1), "the module nests too deeply to parse"))
        return parsed
    try:
        _Analyzer(cst, module, path).run(parsed)
    except RecursionError:
        parsed.requests.clear()
        parsed.observations.clear()
        parsed.errors.append((Span.point(path, 1), "the module nests too deeply to analyse"))
    except Exception as error:  # noqa: BLE001 - a bug here must not stop the run over other files
        parsed.requests.clear()
        parsed.observations.clear()
        parsed.errors.append((Span.point(path, 1), f"ctxlint could not analyse this module ({type(error).__name__}: "
                                                   f"{error}); please report it"))
    return parsed


def _precheck(text: str, path: str):
    """Parse with CPython's own parser (no execution) to locate syntax errors and refuse input
    that would overflow libcst's native parser: ``(error or None, ast tree or None)``. Syntax
    newer than the running Python is left to libcst when its bracket nesting is shallow."""
    import ast

    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as error:
        where = Span.point(path, error.lineno or 1, max(error.offset or 1, 1))
        if _bracket_depth(text) <= MAX_DEPTH and _libcst_accepts(text):
            return None, None
        return (where, _syntax_message(error.msg)), None
    except (RecursionError, MemoryError):
        return (Span.point(path, 1), f"the module nests too deeply to parse (more than {MAX_DEPTH} levels)"), None
    except ValueError as error:  # null bytes
        return (Span.point(path, 1), f"cannot parse: {error}"), None
    deepest, where = _ast_depth(tree)
    if deepest > MAX_DEPTH:
        line = getattr(where, "lineno", 1)
        column = getattr(where, "col_offset", 0) + 1
        return (Span.point(path, line, column),
                f"the module nests {deepest} levels deep; ctxlint reads Python up to {MAX_DEPTH} levels"), None
    return None, tree


_API_PARENTS = {"completions", "responses", "messages", "ChatCompletion"}
_API_LEAVES = {"create", "parse", "stream", "acreate"}


def _ast_chain(node) -> list[str]:
    import ast

    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def _interesting(tree, path: str = "") -> bool:
    """Whether a parsed module has anything the front-end reads: an LLM-shaped call, a tool, a
    role/content dict, a prompt name (a weak one only where an LLM library is imported or the
    path says prompts), or a ``len(x) / 4``-shaped expression in a module that mentions tokens."""
    import ast

    tokens = estimate = weak = llm = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            chain = _ast_chain(node.func)
            if chain and (chain[-1] in ("completion", "acompletion", "Tool") or (
                chain[-1] in _API_LEAVES and len(chain) > 1 and chain[-2] in _API_PARENTS
            )):
                return True
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                chain = _ast_chain(decorator.func if isinstance(decorator, ast.Call) else decorator)
                if chain and chain[-1] in ("tool", "prompt"):
                    return True
            if _prompt_name(node.name):
                if _strong_prompt_name(node.name):
                    return True
                weak = True
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    name = (part.id if isinstance(part, ast.Name)
                            else part.attr if isinstance(part, ast.Attribute) else None)
                    if name and _prompt_name(name):
                        if _strong_prompt_name(name):
                            return True
                        weak = True
        elif isinstance(node, ast.Dict):
            if any(isinstance(k, ast.Constant) and k.value == "role" for k in node.keys):
                return True
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            llm = llm or any(m.split(".")[0] in _LLM_LIBRARIES or ".".join(m.split(".")[:2]) in _LLM_LIBRARIES
                             for m in modules if not getattr(node, "level", 0))
        elif isinstance(node, ast.BinOp):
            estimate = estimate or _ast_estimate_shape(node)
        if isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, (ast.arg, ast.keyword)):
            name = node.arg
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = node.name
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 40:
            name = node.value  # a dict key: {"tokens": ...}
        else:
            name = None
        if name and "token" in name.lower():
            tokens = True
        if tokens and estimate:
            return True
    return weak and (llm or _prompt_path(path))


def _ast_estimate_shape(node) -> bool:
    """``len(x) / 4``, ``n_chars // 4``, ``len(x.split()) * 1.3``, ``max_tokens * 4``: a count
    scaled by a small constant."""
    import ast

    if not isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mult)):
        return False
    for number, other in ((node.right, node.left), (node.left, node.right)):
        if not (isinstance(number, ast.Constant) and isinstance(number.value, (int, float))
                and not isinstance(number.value, bool) and 0 < number.value <= 6):
            continue
        if isinstance(other, ast.Call):
            chain = _ast_chain(other.func)
            if chain and chain[-1] in ("len", "sum"):
                return True
        name = other.id if isinstance(other, ast.Name) else other.attr if isinstance(other, ast.Attribute) else ""
        if any(word in name.lower() for word in ("char", "len", "word", "token")):
            return True
    return False


def _syntax_message(message: str) -> str:
    message = (message or "").strip()
    return "invalid syntax" if message in ("", "invalid syntax") else f"invalid syntax: {message}"


def _libcst_accepts(text: str) -> bool:
    import libcst as cst

    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return False
    return True


def _ast_depth(tree) -> tuple[int, object]:
    import ast

    deepest, where = 0, tree
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest, where = depth, node
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest, where


def _bracket_depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(depth - 1, 0)
    return deepest


# --------------------------------------------------------------------------------------------
# String literals: escapes, format fields and % conversions, located in the source text.

_ESCAPE = re.compile(
    r"\\(?:\n|[\\'\"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|N\{[^}\n]*\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})"
)


def _decode_escape(match: re.Match) -> str:
    import ast

    text = match.group(0)
    if text == "\\\n":
        return ""
    try:
        return ast.literal_eval('"' + text + '"')
    except (ValueError, SyntaxError):
        return text


def _unescape(text: str, raw: bool) -> str:
    return text if raw or "\\" not in text else _ESCAPE.sub(_decode_escape, text)


def _format_fields(body: str, raw: bool) -> list[tuple[int, int, str]] | None:
    """``(start, end, field)`` for each replacement field of a ``str.format`` template body."""
    fields = []
    i, n = 0, len(body)
    while i < n:
        char = body[i]
        if char == "\\" and not raw:
            if body.startswith("N{", i + 1):
                close = body.find("}", i)
                i = close + 1 if close > 0 else n
            else:
                i += 2
            continue
        if char == "{":
            if body.startswith("{", i + 1):
                i += 2
                continue
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(body[j], 0)
                j += 1
            if depth:
                return None
            inner = body[i + 1 : j - 1]
            fields.append((i, j, re.split(r"[!:]", inner, maxsplit=1)[0].strip()))
            i = j
        elif char == "}":
            if body.startswith("}", i + 1):
                i += 2
                continue
            return None
        else:
            i += 1
    return fields


_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?(?P<conv>[diouxXeEfFgGcrsa%])"
)


def _percent_fields(body: str) -> list[tuple[int, int, str | None]]:
    """``(start, end, key)`` for each ``%`` conversion (``key`` None for positional ones)."""
    return [(m.start(), m.end(), m.group("key")) for m in _PERCENT.finditer(body) if m.group("conv") != "%"]


# --------------------------------------------------------------------------------------------
# Internal values.


@dataclass
class _Piece:
    """Part of a string value: static text (``slot is None``) or a slot, with its span."""

    text: str
    span: Span
    slot: Slot | None = None
    loop: str | None = None


@dataclass
class _Loop:
    node: object
    text: str


@dataclass(eq=False)
class _Scope:
    kind: str  # "module", "class", "function"
    node: object
    parent: _Scope | None = None
    cls: _Scope | None = None  # for a method: its class's scope
    assigns: dict[str, list[_Assign]] = field(default_factory=dict)
    params: dict[str, object] = field(default_factory=dict)  # name -> cst.Param
    positional: list[str] = field(default_factory=list)  # positional parameter names in order
    functions: dict[str, tuple[object, _Scope]] = field(default_factory=dict)
    returns: list[object] = field(default_factory=list)
    tool_results: dict[str, Span] = field(default_factory=dict)  # names sent as a tool's result


@dataclass(eq=False)
class _Assign:
    kind: str  # "=", "+=", "append", "extend", "insert", "shuffle"
    value: object | None  # the expression; None when unknowable (a loop target, an unpacking)
    end: tuple[int, int]  # where the binding takes effect
    loops: tuple[_Loop, ...]
    scope: _Scope  # where the name lives
    target: object = None
    where: _Scope | None = None  # where the value is evaluated, when not ``scope`` (``self.X = ...``)

    @property
    def home(self) -> _Scope:
        return self.where or self.scope


@dataclass(frozen=True)
class _Env:
    scope: _Scope
    bindings: tuple[tuple[str, object, object], ...] = ()  # (parameter, argument node, caller env)
    depth: int = 0

    def bound(self, name: str):
        for param, node, env in self.bindings:
            if param == name:
                return node, env
        return None


@dataclass
class _Binding:
    """What a name holds at a point: its last plain assignment and the changes after it."""

    value: object
    env: _Env
    extras: list[_Assign]
    loops: int = 0  # loops around the base assignment (an extra inside more loops repeats)

    def loop_of(self, extra: _Assign) -> _Loop | None:
        return extra.loops[-1] if len(extra.loops) > self.loops else None


@dataclass
class _Item:
    """An element of a list value (a message, a tool): a node, or a run of unknown length."""

    node: object
    env: _Env
    loop: str | None = None
    variable: bool = False
    sources: tuple[Source, ...] = ()


@dataclass
class _Facts:
    names: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    variable_length: bool = False


class _Builder:
    """Collects one request's segments and cache breakpoints in provider order."""

    def __init__(self):
        self.segments: list[Segment] = []
        self.breakpoints: list[Breakpoint] = []
        self.message_index = -1

    def next_message(self) -> None:
        self.message_index += 1

    def add(self, pieces: list[_Piece], role: Role, loop: str | None = None) -> None:
        for piece in pieces:
            slot = piece.slot
            where = piece.loop or loop
            if slot is None and not piece.text:
                continue
            if slot is not None and where and not slot.variable_length:
                slot = replace(slot, variable_length=True)
            self.segments.append(Segment(role, piece.span, piece.text, slot, max(self.message_index, 0), where))


_ROLES = {
    "system": Role.SYSTEM,
    "developer": Role.DEVELOPER,
    "user": Role.USER,
    "human": Role.USER,
    "assistant": Role.ASSISTANT,
    "ai": Role.ASSISTANT,
    "model": Role.ASSISTANT,
    "tool": Role.TOOL,
    "function": Role.TOOL,
}
_LIMIT_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
_HINTS = {
    "chat": "`max_completion_tokens=`",
    "responses": "`max_output_tokens=`",
    "anthropic": "`max_tokens=`",
    "litellm": "`max_tokens=`",
}
_REQUEST_KEYS = {"model", "messages", "system", "input", "instructions"}
_PROMPT_NAMES = ("*prompt*", "*instruction*", "*template*", "*system_message*", "*system_msg*")
_NOT_PROMPT_NAMES = ("*_path", "*_dir", "*_file", "*_filename", "*_name", "*_id", "*_key", "*_url",
                     "*_tokens", "*_len", "*_length", "*_version", "*_count", "*_type", "*_cls",
                     "*_class", "*_loader", "*_env", "*_environment", "*_engine", "*_cache", "*_dict",
                     "*_map", "*_registry")
# Names that only LLM prompts carry; weaker ones (`template`, a bare `prompt`, `instructions`)
# also name HTML templates, script stubs and command-line prompts, so they count only in a
# module that shows some other sign of talking to a model.
# (`system_message` is weak too: operating-system messages use the name.)
_STRONG_PROMPT_NAMES = ("*system_prompt*", "*user_prompt*", "*prompt_template*", "*few_shot*")
_LLM_LIBRARIES = {
    "openai", "anthropic", "litellm", "langchain", "langchain_core", "langchain_openai", "langchain_anthropic",
    "langchain_community", "langgraph", "llama_index", "vertexai", "mistralai", "cohere", "groq", "ollama",
    "together", "fireworks", "instructor", "dspy", "guidance", "semantic_kernel", "autogen", "autogen_agentchat",
    "crewai", "pydantic_ai", "haystack", "mcp", "fastmcp", "smolagents", "marvin", "outlines", "google.generativeai",
    "google.genai", "agents",
}
_TEXT_BLOCK_TYPES = ("text", "input_text", "output_text")
_SERIALIZERS = {"json.dumps", "simplejson.dumps", "ujson.dumps"}
_YAML_DUMPERS = {"yaml.dump", "yaml.safe_dump"}
_UNORDERED_CALLS = {
    "set": "set", "frozenset": "set", "os.listdir": "os.listdir", "os.scandir": "os.scandir",
    "glob.glob": "glob.glob", "glob.iglob": "glob.iglob", "random.sample": "random.sample",
}
_PATH_METHODS = {"iterdir": "Path.iterdir", "glob": "Path.glob", "rglob": "Path.rglob"}
_SET_METHODS = {"union", "intersection", "difference", "symmetric_difference"}
# Calls whose result does not depend on the order of their argument's items.
_ORDER_FREE = {"sorted", "len", "min", "max", "sum", "any", "all", "set", "frozenset", "bool",
               "collections.Counter"}
_ITERATING = {"list", "tuple", "str", "repr", "enumerate", "iter", "reversed", "map", "filter", "zip",
              "next"}
_NOT_VARIABLES = {"True", "False", "None", "self", "cls"}
_WRAPPERS = ("int", "round", "ceil", "floor", "float")
_MAX_DEPTH = 40  # how deep name and function resolution may go

# Untrusted content: where third-party text enters a module. A *carrier* is an object that
# holds such text (an HTTP response, an open file, an upload, an e-mail); reading it gives the
# content. Everything derived from the content (an attribute, an item, a method's result, a
# function of it) is content too, except what only measures it (``len``, ``.count``).
_HTTP_CALLS = {
    f"{module}.{verb}" for module in ("requests", "httpx")
    for verb in ("get", "post", "put", "patch", "delete", "head", "request", "stream")
} | {"urllib.request.urlopen", "urllib2.urlopen", "urllib.urlopen"}
_HTTP_CLIENTS = {"requests.Session", "requests.session", "httpx.Client", "httpx.AsyncClient",
                 "aiohttp.ClientSession", "urllib3.PoolManager", "urllib3.PoolManager.request"}
_HTTP_VERBS = {"get", "post", "put", "patch", "delete", "head", "request", "send", "stream", "urlopen"}
_HTTP_CONTENT_ATTRS = {"text", "content", "body", "data"}
_HTTP_CONTENT_METHODS = {"json", "text", "read", "aread", "iter_text", "iter_lines", "iter_content", "aiter_text",
                         "aiter_lines", "iter_bytes", "aiter_bytes", "readlines", "readline"}
_FILE_OPENERS = {"open", "io.open", "codecs.open", "aiofiles.open", "gzip.open", "bz2.open"}
_FILE_CONTENT_METHODS = {"read", "readlines", "readline"}
_PATH_READERS = {"read_text", "read_bytes"}
_EMAIL_PARSERS = {"email.message_from_string", "email.message_from_bytes", "email.message_from_file",
                  "email.message_from_binary_file"}
_EMAIL_PARSER_METHODS = {"parse", "parsestr", "parsebytes"}
_EMAIL_CONTENT_METHODS = {"get_payload", "get_content", "get_body"}
# Executing a tool in an agent loop: `run_tool(...)`, `session.call_tool(...)`,
# `available_functions[name](**args)`, `tool.invoke(args)`.
_TOOL_RUNNERS = re.compile(r"(?:^|_)(?:call|run|execute|exec|invoke|dispatch|handle|perform|use)_(?:tool|function)s?"
                           r"(?:_calls?)?$|^(?:a?invoke|a?run|call|execute)$")
_TOOL_HOLDERS = re.compile(r"(?:^|_)(?:tools?|functions?|handlers?|tool_map|tool_registry)$", re.IGNORECASE)
# Calls and methods that measure a value rather than pass its text on.
_ADDS = ("+=", "append", "extend", "insert")
_MEASURES = {"len", "bool", "int", "float", "hash", "id", "isinstance", "type", "round", "callable", "hasattr"}
_DROPS_NAMES = {"len", "bool", "hash", "id", "isinstance", "type", "callable", "hasattr"}  # int(ts) is still a clock
_MEASURING_METHODS = {"count", "startswith", "endswith", "isdigit", "isalpha",
                      "isalnum", "isspace", "isupper", "islower", "isnumeric", "isdecimal", "isidentifier",
                      "raise_for_status", "close", "aclose"}
# Path expressions built only from these stay inside the repository (a prompt file next to the
# module), so their content is the developer's own text.
_PATH_BUILDERS = {"Path", "pathlib.Path", "pathlib.PurePath", "os.path.join", "os.path.dirname", "os.path.abspath",
                  "os.path.realpath", "os.path.expanduser", "os.path.normpath", "str", "os.fspath",
                  "importlib.resources.files", "importlib_resources.files", "importlib.resources.path",
                  "pkg_resources.resource_filename", "os.getenv", "os.environ.get"}
_PATH_METHODS_STATIC = {"with_name", "with_suffix", "with_stem", "joinpath", "resolve", "absolute", "expanduser",
                        "parent", "parents", "format"}
_CONFIG_NAMES = ("*prompt*", "*template*", "*instruction*", "*system*", "*persona*")
_UPLOAD_WORDS = re.compile(r"upload|download|inbox|attachment|incoming|user_files|tmp|temp", re.IGNORECASE)

# Truncation: `text[:4000]` cuts a string to a fixed length. A slice of a list (`history[-10:]`,
# `docs[:5]`) selects items instead; when the type is unknown, these names say it is a list.
_LIST_NAMES = ("*_list", "history", "*_history", "history_*", "conversation", "scratchpad", "few_shot*")
_STRING_NAMES = ("*text", "*_str", "*string", "*content", "*contents", "*body", "*html", "*markdown", "*page",
                 "*transcript", "*prompt", "*message", "*output", "*result", "*response", "*description",
                 "*summary", "*excerpt", "*doc", "*document", "*details", "*notes", "*news", "*status")
_MIN_CUT = 20  # `sha[:8]`, `name[:1]`: shortening an id or taking a prefix is not truncating text
# Text right after a cut that says something is missing (as CTX205's default markers), for cuts
# whose marker is part of the same value and so never becomes a segment of its own.
_CUT_MARKERS = ("…", "...", "[truncated", "(truncated", "<truncated", "[cut", "[more", "[…]")


def _prompt_name(name: str) -> bool:
    lower = name.lower()
    return any(fnmatchcase(lower, p) for p in _PROMPT_NAMES) and not any(
        fnmatchcase(lower, p) for p in _NOT_PROMPT_NAMES
    )


def _strong_prompt_name(name: str) -> bool:
    lower = name.lower()
    return any(fnmatchcase(lower, p) for p in _STRONG_PROMPT_NAMES)


def _system_name(name: str) -> bool:
    """A prompt name that says its text is sent as the system (or developer) message."""
    lower = name.lower()
    return any(fnmatchcase(lower, p) for p in ("*system*", "*developer*", "*instruction*", "*persona*", "*preamble*"))


def _token_name(name: str | None) -> bool:
    return bool(name) and "token" in name.rsplit(".", 1)[-1].lower()


# --------------------------------------------------------------------------------------------


class _Analyzer:
    def __init__(self, cst, module, path: str):
        from libcst.metadata import MetadataWrapper, PositionProvider

        self.cst = cst
        self.module = module
        self.path = path
        self.positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.imports: dict[str, str] = {}
        self.from_imports: set[str] = set()  # names bound by `from x import y` (objects, maybe)
        self.module_scope = _Scope("module", module)
        self.calls: list[tuple[object, _Scope]] = []
        self.functions: list[tuple[object, _Scope]] = []
        self.lists: list[tuple[object, _Scope]] = []
        self.dicts: list[tuple[object, _Scope]] = []
        self.format_receivers: set[str] = set()
        self.observations: list[Observation] = []
        self._observed: set[Span] = set()
        self._active: set[int] = set()
        self._consumed: set[int] = set()
        self._fixes: dict[int, Fix] = {}
        self._code: dict[int, str] = {}
        self._source: str | None = None
        self._line_starts: list[int] | None = None
        self._mcp = False
        self._llm = False  # the module imports an LLM library
        self._marked: set[int] = set()  # cuts followed by a marker in the same expression

    def run(self, parsed: ParsedFile) -> None:
        self.index(self.module, self.module_scope, (), None)
        calls = self.call_site_requests()
        used = set(self._consumed)
        tools = self.mcp_request()
        context = bool(self._llm or calls or tools or _prompt_path(self.path))
        parsed.requests.extend(calls)
        parsed.requests.extend(self.standalone_requests(used, context))
        if tools is not None:
            parsed.requests.append(tools)
        parsed.observations.extend(self.observations)

    # ---- positions, text and names -------------------------------------------------------------

    def span(self, node) -> Span:
        r = self.positions[node]
        return Span(self.path, r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)

    def start(self, node) -> tuple[int, int]:
        r = self.positions[node].start
        return r.line, r.column

    def end(self, node) -> tuple[int, int]:
        r = self.positions[node].end
        return r.line, r.column

    def code(self, node) -> str:
        """The source of an expression, without the parentheses around it (spans exclude them)."""
        # Rendering a node walks its whole subtree, and the same nodes are asked for repeatedly.
        cached = self._code.get(id(node))
        if cached is None:
            bare = node
            if getattr(node, "lpar", None) and not (isinstance(node, self.cst.Tuple) and not node.elements):
                bare = node.with_changes(lpar=[], rpar=[])
            cached = self._code[id(node)] = self.module.code_for_node(bare).strip()
        return cached

    def dotted(self, node) -> str | None:
        """``a.b.c`` for names and attribute chains (``a["key"]`` reads as ``a.key``)."""
        cst = self.cst
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr.value}" if base else None
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                key = _string_value(index.value)
                base = self.dotted(node.value)
                if base and isinstance(key, str) and key.isidentifier():
                    return f"{base}.{key}"
        return None

    def qualified(self, node) -> str | None:
        """The dotted name of ``node`` with its first part resolved through the imports."""
        dotted = self.dotted(node)
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            return self.imports[head] + ("." + rest if rest else "")
        return dotted

    def chain(self, node) -> list[str]:
        """Attribute names from the root down, whatever the root is
        (``OpenAI().chat.completions.create`` -> ``[chat, completions, create]``)."""
        cst = self.cst
        names = []
        while isinstance(node, cst.Attribute):
            names.append(node.attr.value)
            node = node.value
        if isinstance(node, cst.Name):
            names.append(node.value)
        return names[::-1]

    def is_variable(self, dotted: str) -> bool:
        """Whether a dotted name reads data: not a module (``datetime``), not ``self`` alone. An
        attribute of an object imported by name (``from flask import request``: ``request.id``)
        is data."""
        head = dotted.split(".")[0]
        if head in self.imports:
            return "." in dotted and head in self.from_imports
        return head not in _NOT_VARIABLES or ("." in dotted and head in ("self", "cls"))

    # ---- indexing: scopes, assignments, call sites, estimates ------------------------------------

    def index(self, node, scope: _Scope, loops: tuple[_Loop, ...], function: str | None) -> None:
        cst = self.cst
        if isinstance(node, cst.FunctionDef):
            self.index_function(node, scope, loops, function)
            return
        if isinstance(node, cst.ClassDef):
            inner = _Scope("class", node, scope)
            scope.functions.setdefault(node.name.value, (node, inner))
            for part in (*node.decorators, *node.bases, *node.keywords):
                self.index(part, scope, loops, function)
            self.index(node.body, inner, (), function)
            return
        if isinstance(node, cst.For):
            self.index(node.iter, scope, loops, function)
            self.unknowable(node.target, scope, node, loops)
            self.index(node.body, scope, (*loops, _Loop(node, self.code(node.iter))), function)
            if node.orelse is not None:
                self.index(node.orelse, scope, loops, function)
            return
        if isinstance(node, cst.While):
            self.index(node.test, scope, loops, function)
            self.index(node.body, scope, (*loops, _Loop(node, "while " + self.code(node.test))), function)
            if node.orelse is not None:
                self.index(node.orelse, scope, loops, function)
            return
        if isinstance(node, cst.Lambda):
            return
        if isinstance(node, cst.With):
            # `with open(p) as f`, `async with httpx.AsyncClient() as client`: the target holds
            # what the context manager gives, which for files, clients and responses is the
            # object itself; it is bound where the item ends, so the body sees it.
            for item in node.items:
                self.index(item.item, scope, loops, function)
                if item.asname is not None:
                    self.assign(item.asname.name, item.item, scope, item, loops)
            self.index(node.body, scope, loops, function)
            return
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self.assign(target.target, node.value, scope, node, loops)
            self.estimate_context([self.dotted(t.target) for t in node.targets], node.value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.assign(node.target, node.value, scope, node, loops)
                self.estimate_context([self.dotted(node.target)], node.value)
        elif isinstance(node, cst.AugAssign):
            if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
                self.record(node.target.value, _Assign("+=", node.value, self.end(node), loops, scope, node.target))
            self.estimate_context([self.dotted(node.target)], node.value)
        elif isinstance(node, cst.Return):
            if scope.kind == "function" and node.value is not None:
                scope.returns.append(node.value)
                if _token_name(function):
                    self.estimates_in(node.value)
        elif isinstance(node, cst.Import):
            for alias in node.names:
                name = alias.evaluated_name
                if alias.asname is not None:
                    self.imports[alias.evaluated_alias] = name
                else:
                    self.imports[name.split(".")[0]] = name.split(".")[0]
                self.imported(name)
        elif isinstance(node, cst.ImportFrom):
            base = self.dotted(node.module) if node.module is not None else ""
            if base and not node.relative:
                self.imported(base)
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    name = alias.evaluated_name
                    self.imports[alias.evaluated_alias or name] = f"{base}.{name}" if base else name
                    self.from_imports.add(alias.evaluated_alias or name)
        elif isinstance(node, cst.Call):
            self.calls.append((node, scope))
            self.mutation(node, scope, loops)
            for arg in node.args:
                if arg.keyword is not None and _token_name(arg.keyword.value):
                    self.estimates_in(arg.value)
        elif isinstance(node, cst.Comparison):
            self.estimate_comparison(node)
        elif isinstance(node, cst.DictElement):
            if isinstance(node.key, cst.SimpleString) and _token_name(_string_value(node.key)):
                self.estimates_in(node.value)
        elif isinstance(node, cst.Subscript):
            for element in node.slice:
                if isinstance(element.slice, cst.Slice):
                    for bound in (element.slice.lower, element.slice.upper):
                        if bound is not None:
                            self.scaled_tokens(bound)
        elif isinstance(node, cst.List):
            self.lists.append((node, scope))
        elif isinstance(node, cst.Dict):
            self.dicts.append((node, scope))
            self.tool_result_message(node, scope)
        for child in node.children:
            self.index(child, scope, loops, function)

    def imported(self, module: str) -> None:
        parts = module.split(".")
        self._mcp = self._mcp or parts[0] in ("mcp", "fastmcp")
        self._llm = self._llm or parts[0] in _LLM_LIBRARIES or ".".join(parts[:2]) in _LLM_LIBRARIES

    def index_function(self, node, scope: _Scope, loops, function) -> None:
        cst = self.cst
        for decorator in node.decorators:
            self.index(decorator, scope, loops, function)
        inner = _Scope("function", node, scope, cls=scope if scope.kind == "class" else None)
        params = node.params
        for group, positional in ((params.posonly_params, True), (params.params, True),
                                  (params.kwonly_params, False)):
            for param in group:
                inner.params[param.name.value] = param
                if positional:
                    inner.positional.append(param.name.value)
                if param.default is not None:
                    self.index(param.default, scope, loops, function)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                inner.params[star.name.value] = star
        scope.functions[node.name.value] = (node, inner)
        self.functions.append((node, inner))
        self.index(node.body, inner, (), node.name.value)

    def record(self, name: str, assign: _Assign) -> None:
        assign.scope.assigns.setdefault(name, []).append(assign)

    def assign(self, target, value, scope: _Scope, statement, loops) -> None:
        cst = self.cst
        end = self.end(statement)
        if isinstance(target, cst.Name):
            self.record(target.value, _Assign("=", value, end, loops, scope, target))
        elif (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
              and target.value.value == "self" and scope.cls is not None):
            self.record(target.attr.value, _Assign("=", value, end, (), scope.cls, target, where=scope))
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
            if values is not None and len(values) == len(target.elements) and not any(
                isinstance(e, cst.StarredElement) for e in (*values, *target.elements)
            ):
                for t, v in zip(target.elements, values):
                    self.assign(t.value, v.value, scope, statement, loops)
            else:
                self.unknowable(target, scope, statement, loops)

    def unknowable(self, target, scope: _Scope, statement, loops) -> None:
        """Names bound to values we cannot know: loop targets, unpacking."""
        cst = self.cst
        if isinstance(target, cst.Name):
            self.record(target.value, _Assign("=", None, self.start(statement), loops, scope, target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.unknowable(element.value, scope, statement, loops)
        elif isinstance(target, cst.StarredElement):
            self.unknowable(target.value, scope, statement, loops)

    def owner(self, name: str, scope: _Scope) -> _Scope:
        """The scope a mutated name lives in (``TOOLS.append`` in a function changes the module's)."""
        current = scope
        while current is not None:
            if name in current.assigns or name in current.params:
                return current
            current = current.parent
            while current is not None and current.kind == "class":
                current = current.parent
        return scope

    def mutation(self, call, scope: _Scope, loops) -> None:
        cst = self.cst
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            name, method = func.value.value, func.attr.value
            if method in ("append", "extend", "insert") and call.args:
                kind = method
                if kind == "insert" and not (len(call.args) == 2 and isinstance(call.args[0].value, cst.Integer)
                                             and call.args[0].value.value == "0"):
                    kind = "append"
                home = self.owner(name, scope)
                self.record(name, _Assign(kind, call.args[-1].value, self.end(call), loops, home, func.value,
                                          where=scope if home is not scope else None))
            elif method in ("format", "format_map"):
                self.format_receivers.add(name)
        if (isinstance(func, cst.Attribute) and func.attr.value in ("format", "format_map")
                and isinstance(func.value, cst.Attribute)):
            self.format_receivers.add(func.value.attr.value)
        if self.qualified(func) == "random.shuffle" and call.args and isinstance(call.args[0].value, cst.Name):
            target = call.args[0].value
            home = self.owner(target.value, scope)
            self.record(target.value, _Assign("shuffle", call, self.end(call), loops, home, target,
                                              where=scope if home is not scope else None))

    # ---- name resolution ---------------------------------------------------------------------------

    def binding(self, name: str, env: _Env, at: tuple[int, int] | None) -> _Binding | None:
        """What ``name`` holds at ``at`` in ``env``; None when unknowable (a parameter, a loop
        target, a name from another module)."""
        bound = env.bound(name)
        if bound is not None:
            return _Binding(bound[0], bound[1], [])
        scope, first = env.scope, True
        while scope is not None:
            if scope.kind == "class" and not first:
                scope = scope.parent
                continue
            records = scope.assigns.get(name)
            if records:
                visible = [r for r in records if not first or at is None or r.end <= at
                           or (r.kind != "=" and self.carried(r, at))]
                index = max((i for i, r in enumerate(visible) if r.kind == "="), default=None)
                if index is not None:
                    base = visible[index]
                    if base.value is None:
                        return None
                    home = base.home
                    benv = _Env(home, env.bindings if home is env.scope else (), env.depth + 1)
                    return _Binding(base.value, benv, visible[index + 1 :], len(base.loops))
                if first and scope.kind == "function" and any(r.kind == "=" for r in records):
                    return None  # assigned later in the function: a local we cannot see yet
            if first and name in scope.params:
                return None
            first = False
            scope = scope.parent
        return None

    def carried(self, record: _Assign, at: tuple[int, int]) -> bool:
        """Whether a change written after ``at`` reaches it on the next pass of a loop around
        both (``messages.append(tool_result)`` after the call that sends ``messages``)."""
        for loop in record.loops:
            r = self.positions[loop.node]
            if (r.start.line, r.start.column) <= at <= (r.end.line, r.end.column):
                return True
        return False

    def resolve(self, node, env: _Env) -> _Binding | None:
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.Name):
            return self.binding(node.value, env, self.start(node))
        if (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
                and node.value.value in ("self", "cls") and env.scope.cls is not None):
            records = env.scope.cls.assigns.get(node.attr.value) or []
            bases = [i for i, r in enumerate(records) if r.kind == "=" and r.value is not None]
            if bases:
                base = records[bases[-1]]
                return _Binding(base.value, _Env(base.home, (), env.depth + 1), records[bases[-1] + 1 :])
        return None

    def deref(self, node, env: _Env):
        """Follow names to the literal they hold (when nothing changed it since)."""
        seen = 0
        while seen < 10:
            binding = self.resolve(node, env)
            if binding is None or binding.extras:
                return node, env
            node, env = binding.value, binding.env
            seen += 1
        return node, env

    def function_for(self, call, env: _Env):
        """The module's own function (or ``self.`` method) that ``call`` calls, with its last
        return value and the parameters bound to the call's arguments; None if there is none."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        func = call.func
        found = None
        method = False
        if isinstance(func, cst.Name):
            scope = env.scope
            while scope is not None and found is None:
                if scope.kind != "class" or scope is env.scope:
                    found = scope.functions.get(func.value)
                scope = scope.parent
        elif (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
              and func.value.value in ("self", "cls") and env.scope.cls is not None):
            found = env.scope.cls.functions.get(func.attr.value)
            method = True
        if found is None or not isinstance(found[0], cst.FunctionDef) or not found[1].returns:
            return None
        fn, scope = found
        params = scope.positional[1:] if method and scope.positional[:1] in (["self"], ["cls"]) else scope.positional
        bindings = []
        positional = [a.value for a in call.args if not a.keyword and not a.star]
        for name, value in zip(params, positional):
            bindings.append((name, value, env))
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in scope.params:
                bindings.append((arg.keyword.value, arg.value, env))
        given = {b[0] for b in bindings}
        defaults = _Env(scope.parent or self.module_scope, (), env.depth + 1)
        for name, param in scope.params.items():
            if name not in given and param.default is not None:
                bindings.append((name, param.default, defaults))
        return fn, scope.returns[-1], _Env(scope, tuple(bindings), env.depth + 1)

    def param_annotation(self, name: str, env: _Env) -> str | None:
        scope = env.scope
        if scope.kind == "function" and name in scope.params and env.bound(name) is None:
            annotation = scope.params[name].annotation
            if annotation is not None:
                return self.code(annotation.annotation)
        return None

    def enter(self, node) -> bool:
        """Guard against cycles (``a = a + b``, recursive functions)."""
        if id(node) in self._active:
            return False
        self._active.add(id(node))
        return True

    def leave(self, node) -> None:
        self._active.discard(id(node))

    # ---- string values -----------------------------------------------------------------------------

    def text(self, node, env: _Env) -> list[_Piece] | None:
        """The pieces of a string-valued expression, or None if it is not one we can read."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.SimpleString):
            prefix = node.prefix.lower()
            if "b" in prefix:
                return None
            # The text's span starts after the prefix and quotes, where the text is written.
            return self.located(node).static(0, len(node.raw_value), "r" in prefix)
        if isinstance(node, cst.ConcatenatedString):
            left, right = self.text(node.left, env), self.text(node.right, env)
            return None if left is None or right is None else left + right
        if isinstance(node, cst.FormattedString):
            return self.fstring(node, env)
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.Add):
                left, right = self.text(node.left, env), self.text(node.right, env)
                if left is None and right is None:
                    return None
                return (left if left is not None else [self.slot_piece(node.left, env)]) + (
                    right if right is not None else [self.slot_piece(node.right, env)]
                )
            if isinstance(node.operator, cst.Modulo):
                return self.percent(node, env)
            return None
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self.name_text(node, env)
        if isinstance(node, cst.Call):
            return self.call_text(node, env)
        return None

    def pieces(self, node, env: _Env) -> list[_Piece]:
        found = self.text(node, env)
        return found if found is not None else [self.slot_piece(node, env)]

    def name_text(self, node, env: _Env) -> list[_Piece] | None:
        binding = self.resolve(node, env)
        if binding is None or not self.enter(binding.value):
            return None
        try:
            found = self.text(binding.value, binding.env)
            if found is None:
                return None
            found = list(found)
            for extra in binding.extras:
                if extra.kind != "+=":
                    return None
                more = self.pieces(extra.value, binding.env)
                loop = binding.loop_of(extra)
                if loop is not None:
                    sources = self.loop_sources(loop, binding.env)
                    more = [replace(p, slot=_with_sources(p.slot, sources)) if p.slot else p for p in more]
                    more = _in_loop(more, loop.text)
                found.extend(more)
            self._consumed.add(id(binding.value))
            self._consumed.update(id(e.value) for e in binding.extras)
            return found
        finally:
            self.leave(binding.value)

    def loop_sources(self, loop: _Loop, env: _Env) -> tuple[Source, ...]:
        return self.unordered_source(loop.node.iter, env) if isinstance(loop.node, self.cst.For) else ()

    def fstring(self, node, env: _Env) -> list[_Piece]:
        cst = self.cst
        raw = "r" in node.prefix.lower()
        pieces = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                text = _unescape(part.value.replace("{{", "{").replace("}}", "}"), raw)
                if text:
                    pieces.append(_Piece(text, self.span(part)))
            elif isinstance(part, cst.FormattedStringExpression):
                inline = None
                if part.conversion is None and part.format_spec is None and isinstance(
                    part.expression, (cst.Name, cst.Attribute, cst.Call)
                ):
                    inline = self.text(part.expression, env)  # a known constant: its own text and spans
                if inline is not None:
                    pieces.extend(inline)
                else:
                    pieces.append(self.slot_piece(part.expression, env, span_node=part))
        return pieces

    def call_text(self, call, env: _Env) -> list[_Piece] | None:
        cst = self.cst
        func = call.func
        qualified = self.qualified(func)
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in ("format", "format_map"):
                return self.format_call(call, env)
            if method == "join" and len(call.args) == 1 and self.text(func.value, env) is not None:
                return self.join(call, env)
            if method in ("strip", "lstrip", "rstrip") and not call.args:
                inner = self.text(func.value, env)
                return None if inner is None else _strip(inner, method)
        if qualified in ("textwrap.dedent", "inspect.cleandoc") and len(call.args) == 1:
            inner = self.text(call.args[0].value, env)
            return None if inner is None else _dedent(inner, clean=qualified == "inspect.cleandoc")
        if qualified == "str" and len(call.args) == 1:
            return self.text(call.args[0].value, env)
        target = self.function_for(call, env)
        if target is None or not self.enter(target[0]):
            return None
        try:
            found = self.text(target[1], target[2])
        finally:
            self.leave(target[0])
        if found is not None:
            self._consumed.add(id(target[1]))
        return found

    def template_parts(self, node, env: _Env) -> list | None:
        """The string literal(s) of a ``.format`` / ``%`` template, directly or through a name."""
        cst = self.cst
        parts = _string_parts(cst, node)
        if parts is not None:
            return parts
        if isinstance(node, cst.Name):
            binding = self.resolve(node, env)
            if binding is not None and not binding.extras:
                parts = _string_parts(cst, binding.value)
                if parts is not None:
                    self._consumed.add(id(binding.value))
                    return parts
        return None

    def format_call(self, call, env: _Env) -> list[_Piece] | None:
        parts = self.template_parts(call.func.value, env)
        if parts is None:
            return None
        # Fields whose argument cannot be found (``**context``) become slots named by the field.
        positional = [a.value for a in call.args if not a.keyword and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        for arg in call.args:
            if arg.star == "**":
                keywords.update({k: v[0] for k, v in (self.dict_entries(arg.value, env) or {}).items()})
        if call.func.attr.value == "format_map":
            entries = self.dict_entries(call.args[0].value, env) if call.args else None
            keywords, positional = {k: v[0] for k, v in (entries or {}).items()}, []
        auto = 0

        def field(name: str, span: Span) -> _Piece:
            nonlocal auto
            head = re.split(r"[.\[]", name, maxsplit=1)[0]
            if head == "":
                value = positional[auto] if auto < len(positional) else None
                auto += 1
            elif head.isdigit():
                value = positional[int(head)] if int(head) < len(positional) else None
            else:
                value = keywords.get(head)
            return self.field_piece(name, head, value, env, span)

        return self.template_fields(parts, field)

    def percent(self, node, env: _Env) -> list[_Piece] | None:
        cst = self.cst
        parts = self.template_parts(node.left, env)
        if parts is None:
            return None
        right = node.right
        entries: dict = {}
        if isinstance(right, cst.Tuple):
            positional = [e.value for e in right.elements if isinstance(e, cst.Element)]
        else:
            entries = self.dict_entries(right, env) or {}
            positional = [] if entries else [right]
        pieces: list[_Piece] = []
        index = 0
        for part in parts:
            raw = "r" in part.prefix.lower()
            located = self.located(part)
            cursor = 0
            for start, end, key in _percent_fields(part.raw_value):
                pieces.extend(located.static(cursor, start, raw, percent=True))
                if key is not None:
                    value = entries[key][0] if key in entries else None
                    name = key
                else:
                    value = positional[index] if index < len(positional) else None
                    index += 1
                    name = self.code(value) if value is not None else part.raw_value[start:end]
                pieces.append(self.field_piece(name, name, value, env, located.span(start, end)))
                cursor = end
            pieces.extend(located.static(cursor, len(part.raw_value), raw, percent=True))
        return pieces

    def field_piece(self, name: str, head: str, value, env: _Env, span: Span) -> _Piece:
        """A ``{field}`` or ``%s`` of a template: constant text inlined, anything else a slot."""
        if value is None:
            return _Piece(name, span, Slot(name, names=(name,) if name.isidentifier() else ()))
        if name == head:
            inline = self.text(value, env)
            if inline is not None and all(p.slot is None for p in inline):
                return _Piece("".join(p.text for p in inline), span)
            ok, constant = self.literal(value, env)
            if ok and isinstance(constant, (int, float)) and not isinstance(constant, bool):
                return _Piece(str(constant), span)
        expression = name or self.code(value)
        facts = self.facts(value, env)
        facts.sources.extend(self.iteration_sources(value, env))
        return _Piece(expression, span, self.make_slot(expression, facts))

    def located(self, part) -> _Located:
        line, column = self.start(part)
        return _Located(self.path, part, line_locator(part.value, line, column + 1))

    def join(self, call, env: _Env) -> list[_Piece]:
        cst = self.cst
        separator = "".join(p.text for p in self.text(call.func.value, env) or [] if p.slot is None)
        sep_span = self.span(call.func.value)
        iterable = call.args[0].value
        if isinstance(iterable, (cst.GeneratorExp, cst.ListComp)) and iterable.for_in.inner_for_in is None:
            loop = self.code(iterable.for_in.iter)
            sources = self.unordered_source(iterable.for_in.iter, env)
            element = [replace(p, slot=_with_sources(p.slot, sources)) if p.slot else p
                       for p in self.pieces(iterable.elt, env)]
            if sources and not any(p.slot for p in element):
                element.append(self.slot_piece(iterable, env, variable=True))
            pieces = _in_loop(element, loop)
            if separator:
                pieces.append(_Piece(separator, sep_span, loop=loop))
            return pieces
        items = self.items(iterable, env)
        if items is None or any(item.variable for item in items):
            return [self.slot_piece(call, env, variable=True)]
        pieces = []
        for i, item in enumerate(items):
            if i and separator:
                pieces.append(_Piece(separator, sep_span, loop=item.loop))
            pieces.extend(_in_loop(self.pieces(item.node, item.env), item.loop))
        return pieces

    # ---- slots and their facts ---------------------------------------------------------------------

    def slot_piece(self, node, env: _Env, span_node=None, variable: bool = False) -> _Piece:
        expression = self.code(node)
        facts = self.facts(node, env)
        facts.sources.extend(self.iteration_sources(node, env))
        if variable:
            facts.variable_length = True
        return _Piece(expression, self.span(span_node or node), self.make_slot(expression, facts))

    def make_slot(self, expression: str, facts: _Facts) -> Slot:
        sources, seen = [], set()
        for source in facts.sources:
            if (source.kind, source.span) not in seen:
                seen.add((source.kind, source.span))
                sources.append(source)
        return Slot(expression, _unique(facts.names), _unique(facts.calls), (), facts.variable_length, tuple(sources))

    def facts(self, node, env: _Env, acc: _Facts | None = None) -> _Facts:
        """Names read, calls made and serialisation sources of an expression, through the
        module's names and functions."""
        cst = self.cst
        acc = acc if acc is not None else _Facts()
        if env.depth > _MAX_DEPTH:
            return acc
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Await)):
            for source in (self.untrusted(node, env), self.truncation(node, env)):
                if source is not None:
                    acc.sources.append(source)
        elif isinstance(node, (cst.BinaryOperation, cst.FormattedString)):
            self.mark_cuts(node, env)
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
            dotted = self.dotted(node)
            if dotted is not None:
                if self.is_variable(dotted):
                    acc.names.append(dotted)
                    self.merge_binding(node, env, acc)
                return acc
            if isinstance(node, cst.Attribute):
                return self.facts(node.value, env, acc)
        if isinstance(node, cst.Call):
            self.call_facts(node, env, acc)
            return acc
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            acc.variable_length = True
        if isinstance(node, cst.Lambda):
            return acc
        for child in node.children:
            if isinstance(child, cst.BaseExpression) or isinstance(child, (
                cst.Element, cst.StarredElement, cst.DictElement, cst.StarredDictElement, cst.CompFor, cst.CompIf,
                cst.SubscriptElement, cst.Index, cst.Slice, cst.FormattedStringExpression, cst.Arg,
                cst.ComparisonTarget,
            )):
                self.facts(child, env, acc)
        return acc

    def merge_binding(self, node, env: _Env, acc: _Facts) -> None:
        binding = self.resolve(node, env)
        if binding is None or not self.enter(binding.value):
            return
        try:
            inner = self.facts(binding.value, binding.env)
            for extra in binding.extras:
                if extra.kind != "shuffle" and extra.value is not None:
                    self.facts(extra.value, binding.env, inner)
                if binding.loop_of(extra) is not None:
                    inner.variable_length = True
            acc.calls.extend(inner.calls)
            acc.sources.extend(inner.sources)
            acc.names.extend(inner.names)
            acc.variable_length = acc.variable_length or inner.variable_length
        finally:
            self.leave(binding.value)

    def call_facts(self, call, env: _Env, acc: _Facts) -> None:
        cst = self.cst
        func = call.func
        qualified = self.qualified(func)
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if qualified in _MEASURES or method in _MEASURING_METHODS:
            # `len(documents)`, `page.count("x")`: a number about the value, not its text. What
            # it reads is neither content nor a collection of the prompt; its clock calls are.
            inner = _Facts()
            if method is not None:
                self.facts(func.value, env, inner)
            for arg in call.args:
                self.facts(arg.value, env, inner)
            acc.calls.append(qualified or method)
            acc.calls.extend(inner.calls)
            acc.sources.extend(s for s in inner.sources if s.kind not in (SourceKind.UNTRUSTED, SourceKind.TRUNCATION))
            if qualified not in _DROPS_NAMES and method not in _MEASURING_METHODS:
                acc.names.extend(inner.names)
            return
        if qualified:
            acc.calls.append(qualified)
            if isinstance(func, cst.Attribute):
                receiver = self.dotted(func.value)
                if receiver and self.is_variable(receiver):
                    acc.names.append(receiver)
                    self.merge_binding(func.value, env, acc)
        else:
            self.facts(func, env, acc)
        if qualified in _SERIALIZERS or qualified in _YAML_DUMPERS:
            source = self.serialization_source(call, qualified, env)
            if source is not None:
                acc.sources.append(source)
        target = self.function_for(call, env)
        if target is not None and self.enter(target[0]):
            try:
                self.facts(target[1], target[2], acc)
            finally:
                self.leave(target[0])
            # The return value's facts say which arguments reach the result (its parameters are
            # bound to them): an argument the function only measures (`word_count(page)`) brings
            # it no name, content or cut; what the argument calls still runs.
            inner = _Facts()
            for arg in call.args:
                self.facts(arg.value, env, inner)
            acc.calls.extend(inner.calls)
            acc.sources.extend(s for s in inner.sources if s.kind not in (SourceKind.UNTRUSTED, SourceKind.TRUNCATION))
            acc.variable_length = acc.variable_length or inner.variable_length
            return
        for arg in call.args:
            self.facts(arg.value, env, acc)

    # ---- sources: serialisation --------------------------------------------------------------------

    def serialization_source(self, call, qualified: str, env: _Env) -> Source | None:
        cst = self.cst
        keyword = next((a for a in call.args if a.keyword is not None and a.keyword.value == "sort_keys"), None)
        if keyword is not None:
            if not (isinstance(keyword.value, cst.Name) and keyword.value.value == "False"):
                return None  # sort_keys=True, or a value we cannot know
        elif qualified in _YAML_DUMPERS:
            return None  # yaml.dump sorts keys unless told not to
        elif any(a.star == "**" for a in call.args):
            return None  # the options may hold sort_keys
        positional = [a.value for a in call.args if not a.keyword and not a.star]
        if not positional or not self.may_be_mapping(positional[0], env):
            return None
        return Source(SourceKind.UNSORTED_SERIALIZATION, qualified, self.span(call), self.sort_keys_fix(call, keyword))

    def may_be_mapping(self, node, env: _Env) -> bool:
        """False for values that certainly have no keys (text, numbers, lists of scalars)."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return True
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float)):
            return False
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return any(isinstance(e, cst.StarredElement) or self.may_be_mapping(e.value, env) for e in node.elements)
        if isinstance(node, cst.Call):
            qualified = self.qualified(node.func) or ""
            if qualified in ("str", "int", "float", "len", "repr", "bool", "sorted"):
                return False
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in (
                "strip", "lower", "upper", "format", "join", "isoformat", "strftime", "read", "read_text",
            ):
                return False
            return True
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return False
            annotation = self.param_annotation(node.value, env)
            if annotation is not None and annotation.replace(" ", "") in (
                "str", "int", "float", "bool", "list[str]", "List[str]", "str|None", "Optional[str]",
            ):
                return False
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.resolve(node, env)
            if binding is not None and not binding.extras and self.enter(binding.value):
                try:
                    return self.may_be_mapping(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
        return True

    def sort_keys_fix(self, call, keyword) -> Fix:
        """Add ``sort_keys=True`` (or turn ``sort_keys=False`` into True), rendered by libcst, as a
        replacement of exactly the call's span."""
        if id(call) in self._fixes:
            return self._fixes[id(call)]
        cst = self.cst
        true = cst.Name("True")
        args = list(call.args)
        if keyword is not None:
            args = [a.with_changes(value=true) if a is keyword else a for a in args]
            description = "set sort_keys=True"
        else:
            description = "add sort_keys=True"
            new = cst.Arg(value=true, keyword=cst.Name("sort_keys"),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))
            last = args[-1]
            comma = last.comma
            if isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace):
                # One argument per line with a trailing comma: add a line in the same style.
                previous = args[-2].comma if len(args) > 1 else None
                before = previous.whitespace_after if isinstance(previous, cst.Comma) else call.whitespace_before_args
                args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=before))
                args.append(new.with_changes(comma=comma))
            else:
                args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                args.append(new)
        fix = Fix(description, self.span(call), self.replacement(call, call.with_changes(args=args)))
        self._fixes[id(call)] = fix
        return fix

    def replacement(self, old, new) -> str:
        """The exact text that replaces ``old``'s span once ``old`` becomes ``new``.

        ``code_for_node`` renders continuation lines without the indentation of the enclosing
        block, so the node is rendered with that indentation (the leading whitespace of its first
        line), after checking that this reproduces the source of ``old`` exactly. Only when it
        does not is the whole module rendered and the changed range cut out: that costs a
        render of the module per fix.
        """
        from libcst._nodes.internal import CodegenState

        source = self.module_text()
        span = self.span(old)
        start = self._line_starts[span.line - 1] + span.column - 1
        end = self._line_starts[span.end_line - 1] + span.end_column - 1
        line_start = self._line_starts[span.line - 1]
        indent = source[line_start : line_start + len(source[line_start:]) - len(source[line_start:].lstrip(" \t"))]

        def render(node) -> str:
            state = CodegenState(default_indent=self.module.default_indent,
                                 default_newline=self.module.default_newline, indent_tokens=[indent])
            node._codegen(state)
            return "".join(state.tokens)

        if render(old) == source[start:end]:
            return render(new)
        after = self.module.deep_replace(old, new).code
        return after[start : len(after) - (len(source) - end)]

    def module_text(self) -> str:
        if self._source is None:
            self._source = self.module.code
            self._line_starts = [0] + [i + 1 for i, c in enumerate(self._source) if c == "\n"]
        return self._source

    # ---- sources: untrusted content -----------------------------------------------------------------

    def tool_result_message(self, node, scope: _Scope) -> None:
        """Record the name a ``{"role": "tool", "content": result}`` message (or an Anthropic
        ``tool_result`` block, a Responses ``function_call_output`` item) sends: it holds what a
        tool returned, wherever else the function uses it."""
        cst = self.cst
        entries = {}
        for element in node.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                entries[_string_value(element.key)] = element.value
        kind = entries.get("role") or entries.get("type")
        kind = _string_value(kind) if isinstance(kind, cst.SimpleString) else None
        key = {"tool": "content", "function": "content", "tool_result": "content",
               "function_call_output": "output"}.get(kind or "")
        value = entries.get(key) if key else None
        if isinstance(value, cst.Call) and len(value.args) >= 1 and not value.args[0].keyword:
            value = value.args[0].value  # json.dumps(result), str(result)
        if isinstance(value, cst.Name) and value.value not in _NOT_VARIABLES:
            scope.tool_results.setdefault(value.value, self.span(value))

    def untrusted(self, node, env: _Env) -> Source | None:
        """Where the value of ``node`` carries third-party content: a ``Source`` at the
        expression that produced it (``resp.text`` where ``resp = requests.get(url)``), or None."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.Await):
            return self.untrusted(node.expression, env)
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            dotted = self.dotted(node.value if isinstance(node, cst.Subscript) else node) or ""
            if re.match(r"(?:\w+\.)*request\.(?:files|FILES)\b", dotted):
                return Source(SourceKind.UNTRUSTED, "request.files[...]", self.span(node))
            if isinstance(node, cst.Attribute):
                carrier = self.carrier(node.value, env)
                if carrier is not None:
                    kind, what = carrier
                    if kind == "email" or (kind == "http" and node.attr.value in _HTTP_CONTENT_ATTRS):
                        return Source(SourceKind.UNTRUSTED, f"{what}.{node.attr.value}", self.span(node))
                    return None  # resp.status_code, f.name: about the content, not the content
                binding = self.resolve(node, env)  # self.page = ...
                if binding is not None and self.enter(binding.value):
                    try:
                        found = self.untrusted(binding.value, binding.env)
                    finally:
                        self.leave(binding.value)
                    if found is not None:
                        return found
            return self.untrusted(node.value, env)
        if isinstance(node, cst.Call):
            return self.untrusted_call(node, env)
        if isinstance(node, cst.Name):
            binding = self.resolve(node, env)
            if binding is not None and self.enter(binding.value):
                try:
                    found = self.untrusted(binding.value, binding.env)
                    for extra in binding.extras:  # a list or text that untrusted content was added to
                        if found is None and extra.value is not None and extra.kind in _ADDS:
                            found = self.untrusted(extra.value, binding.env)
                finally:
                    self.leave(binding.value)
                if found is not None:
                    return found
            scope = env.scope
            while scope is not None:
                if node.value in scope.tool_results:
                    return Source(SourceKind.UNTRUSTED, "a tool result", scope.tool_results[node.value])
                if node.value in scope.assigns or node.value in scope.params:
                    break  # a local of this scope, not the name sent from an outer one
                scope = scope.parent
            return None
        for child in _value_parts(cst, node):
            found = self.untrusted(child, env)
            if found is not None:
                return found
        return None

    def untrusted_call(self, call, env: _Env) -> Source | None:
        cst = self.cst
        func = call.func
        qualified = self.qualified(func) or ""
        last = qualified.rsplit(".", 1)[-1]
        if qualified in _MEASURES or self.api_of(call) is not None:
            return None  # a measure; or the model's own answer, whatever it was shown
        if isinstance(func, cst.Subscript):
            holder = self.dotted(func.value) or ""
            if _TOOL_HOLDERS.search(holder.rsplit(".", 1)[-1]):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({holder}[...](...))", self.span(call))
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in _MEASURING_METHODS:
                return None
            receiver = func.value
            carrier = self.carrier(receiver, env)
            if carrier is not None:
                kind, what = carrier
                if ((kind == "http" and method in _HTTP_CONTENT_METHODS)
                        or (kind in ("file", "upload") and method in _FILE_CONTENT_METHODS)
                        or kind == "email"):
                    return Source(SourceKind.UNTRUSTED, f"{what}.{method}()", self.span(call))
            if method in _PATH_READERS and not self.static_path(receiver, env):
                return Source(SourceKind.UNTRUSTED, f"Path(...).{method}()", self.span(call))
            if method in _EMAIL_CONTENT_METHODS:
                return Source(SourceKind.UNTRUSTED, f"an e-mail ({method}())", self.span(call))
            holder = receiver.value if isinstance(receiver, cst.Subscript) else receiver  # tools[name].invoke()
            receiver_name = (self.dotted(holder) or "").rsplit(".", 1)[-1].lower()
            if _TOOL_RUNNERS.search(method) and ("_" in method or "tool" in receiver_name):
                name = self.short(func) if holder is receiver else f"{self.dotted(holder)}[...].{method}"
                return Source(SourceKind.UNTRUSTED, f"a tool result ({name}(...))", self.span(call))
            found = self.untrusted(receiver, env)
            if found is not None:
                return found
        elif last and "_" in last and _TOOL_RUNNERS.search(last):
            return Source(SourceKind.UNTRUSTED, f"a tool result ({last}(...))", self.span(call))
        if qualified in _EMAIL_PARSERS:
            return Source(SourceKind.UNTRUSTED, f"{qualified}(...)", self.span(call))
        target = self.function_for(call, env)
        if target is not None:  # the module's own function: what it returns, given these arguments
            if not self.enter(target[0]):
                return None
            try:
                return self.untrusted(target[1], target[2])
            finally:
                self.leave(target[0])
        for arg in call.args:  # a function of untrusted content: a summary, a translation, a cleaned copy
            found = self.untrusted(arg.value, env)
            if found is not None:
                return found
        return None

    def carrier(self, node, env: _Env) -> tuple[str, str] | None:
        """``(kind, what)`` when ``node`` is an object holding third-party content: an HTTP
        response (``http``), a file opened from a path that is not the repository's own
        (``file``), an upload (``upload``) or a parsed e-mail (``email``)."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.Await):
            return self.carrier(node.expression, env)
        if isinstance(node, cst.Call):
            qualified = self.qualified(node.func) or ""
            if qualified in _HTTP_CALLS:
                return "http", ("urlopen" if "urlopen" in qualified else qualified) + "(...)"
            if qualified in _FILE_OPENERS:
                path = node.args[0].value if node.args else None
                if path is not None and not self.static_path(path, env):
                    return "file", "open(...)"
                return None
            if qualified in _EMAIL_PARSERS:
                return "email", f"{qualified}(...)"
            if isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                if method in _HTTP_VERBS:
                    client = self.http_client(node.func.value, env)
                    if client is not None:
                        return "http", f"{client}.{method}(...)"
                if method in _EMAIL_PARSER_METHODS and "Parser" in self.code(node.func.value):
                    return "email", f"{self.short(node.func)}(...)"
                if method == "open" and not self.static_path(node.func.value, env):
                    return "file", "Path(...).open()"
            return None
        if isinstance(node, cst.Attribute) and node.attr.value in ("file", "stream"):
            inner = self.carrier(node.value, env)  # UploadFile.file, FileStorage.stream
            return ("upload", inner[1] + "." + node.attr.value) if inner and inner[0] == "upload" else None
        if isinstance(node, cst.Name):
            annotation = self.param_annotation(node.value, env)
            if annotation is not None and "UploadFile" in annotation:
                return "upload", "UploadFile"
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.resolve(node, env)
            if binding is not None and self.enter(binding.value):
                try:
                    return self.carrier(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
        return None

    def http_client(self, node, env: _Env) -> str | None:
        """``httpx.AsyncClient()`` when ``node`` is (or names) an HTTP client object."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.Call):
            qualified = self.qualified(node.func) or ""
            return f"{qualified}()" if qualified in _HTTP_CLIENTS else None
        if isinstance(node, (cst.Name, cst.Attribute)):
            qualified = self.qualified(node) or ""
            if qualified in ("requests", "httpx", "urllib.request", "urllib3"):
                return qualified
            binding = self.resolve(node, env)
            if binding is not None and self.enter(binding.value):
                try:
                    return self.http_client(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
        return None

    def static_path(self, node, env: _Env) -> bool:
        """Whether a path is the repository's own: built only from literals, ``__file__``,
        configuration (``os.environ``) and names that say they hold a prompt or template. A
        path from a parameter or a loop over a folder is content someone else provides."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return False
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.Integer)):
            return True
        if isinstance(node, cst.FormattedString):
            return all(self.static_path(p.expression, env) for p in node.parts
                       if isinstance(p, cst.FormattedStringExpression))
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Divide, cst.Add)):
            # PROMPTS / f"{name}.md": a file in the repository's own folder, whatever its name.
            return self.static_path(node.left, env) and (self.static_path(node.right, env)
                                                         or not _UPLOAD_WORDS.search(self.code(node)))
        if isinstance(node, cst.Subscript):
            return (self.qualified(node.value) or "") == "os.environ"
        if isinstance(node, cst.Call):
            func = node.func
            qualified = self.qualified(func) or ""
            args = [a.value for a in node.args]
            if qualified in _PATH_BUILDERS:
                if qualified == "os.path.join" and args and self.static_path(args[0], env):
                    return all(self.static_path(a, env) for a in args) or not _UPLOAD_WORDS.search(self.code(node))
                return all(self.static_path(a, env) for a in args)
            if isinstance(func, cst.Attribute) and func.attr.value in _PATH_METHODS_STATIC:
                return self.static_path(func.value, env) and (all(self.static_path(a, env) for a in args)
                                                              or not _UPLOAD_WORDS.search(self.code(node)))
            return False
        if isinstance(node, (cst.Name, cst.Attribute)):
            dotted = self.dotted(node) or ""
            if dotted == "__file__" or (dotted.split(".")[0] in self.imports and dotted.split(".")[0]
                                        not in self.from_imports):
                return True  # settings.PROMPT_DIR: a module's configuration
            if isinstance(node, cst.Attribute) and node.attr.value in ("parent", "parents", "stem", "name"):
                return self.static_path(node.value, env)
            if any(fnmatchcase(dotted.rsplit(".", 1)[-1].lower(), p) for p in _CONFIG_NAMES):
                return True
            binding = self.resolve(node, env)
            if binding is not None and not binding.extras and self.enter(binding.value):
                try:
                    return self.static_path(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
        return False

    def short(self, func) -> str:
        """A call's name for a message: ``session.call_tool`` (its last two parts)."""
        return ".".join(self.chain(func)[-2:]) or self.code(func)

    # ---- sources: truncation ------------------------------------------------------------------------

    def truncation(self, node, env: _Env) -> Source | None:
        """``text[:4000]``: a string cut to a fixed length (not a list slice, a short prefix, or
        a cut followed by a marker in the same expression)."""
        cst = self.cst
        if isinstance(node, cst.Call) and (self.qualified(node.func) or "") == "textwrap.shorten":
            placeholder = next((a.value for a in node.args if a.keyword is not None
                                and a.keyword.value == "placeholder"), None)
            if placeholder is not None and self.literal_str(placeholder, env) == "":
                return Source(SourceKind.TRUNCATION, self.code(node), self.span(node))
            return None
        if not isinstance(node, cst.Subscript) or len(node.slice) != 1 or id(node) in self._marked:
            return None
        cut = node.slice[0].slice
        if not isinstance(cut, cst.Slice) or cut.upper is None or cut.step is not None:
            return None
        if cut.lower is not None and not (isinstance(cut.lower, cst.Integer) and cut.lower.value == "0"):
            return None
        upper = cut.upper
        if isinstance(upper, cst.UnaryOperation) or (isinstance(upper, cst.Call)
                                                     and (self.qualified(upper.func) or "") == "len"):
            return None  # text[:-1], text[:len(prefix)]
        ok, value = self.literal(upper, env)
        if ok and (not isinstance(value, int) or isinstance(value, bool) or value < _MIN_CUT):
            return None
        if self.is_list(node.value, env) is not False:
            return None
        # What is cut, where readable: constraints in it may be what the cut drops (CTX301).
        content = tuple(Segment(Role.SYSTEM, p.span, p.text) for p in self.text(node.value, env) or ()
                        if p.slot is None)
        return Source(SourceKind.TRUNCATION, self.code(node), self.span(node), content=content,
                      kept=value if ok else None)

    def is_list(self, node, env: _Env) -> bool | None:
        """False for a string, True for a list (or other collection), None when unknown. An
        unknown value is a string unless its name says it is a collection (``docs``)."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return False
        if isinstance(node, (cst.List, cst.Tuple, cst.ListComp, cst.Set, cst.SetComp, cst.Dict, cst.DictComp)):
            return True
        if isinstance(node, cst.BinaryOperation):
            if self.text(node, env) is not None:
                return False
            return self.is_list(node.left, env)
        if isinstance(node, cst.Await):
            return self.is_list(node.expression, env)
        if isinstance(node, cst.Call):
            qualified = self.qualified(node.func) or ""
            if qualified in ("list", "sorted", "tuple", "reversed", "re.findall", "re.split", "glob.glob"):
                return True
            if qualified in ("str", "repr", "json.dumps", "textwrap.dedent", "html.escape", "markupsafe.escape"):
                return False
            if isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                if method in ("split", "splitlines", "readlines", "items", "keys", "values", "rsplit", "findall"):
                    return True
                if method in ("strip", "lstrip", "rstrip", "read", "read_text", "join", "format", "decode", "lower",
                              "upper", "replace", "get_text", "text", "get_payload", "get_content", "as_string"):
                    return False
            return None if self.text(node, env) is None else False
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
            if isinstance(node, cst.Name):
                annotation = self.param_annotation(node.value, env)
                if annotation is not None:
                    plain = annotation.replace(" ", "")
                    if re.match(r"(typing\.)?(str|Optional\[str\]|str\|None)$", plain):
                        return False
                    if re.match(r"(typing\.)?([lL]ist|[sS]equence|[tT]uple|Iterable|[sS]et)\b", plain):
                        return True
            if isinstance(node, cst.Attribute) and node.attr.value in _HTTP_CONTENT_ATTRS | {"page_content"}:
                return False
            if isinstance(node, (cst.Name, cst.Attribute)):
                binding = self.resolve(node, env)
                if binding is not None and self.enter(binding.value):
                    try:
                        kind = self.is_list(binding.value, binding.env)
                    finally:
                        self.leave(binding.value)
                    if kind is not None:
                        return kind
                    if any(e.kind in ("append", "extend", "insert") for e in binding.extras):
                        return True
            name = (self.dotted(node) or "").rsplit(".", 1)[-1].lower()
            if name and any(fnmatchcase(name, p) for p in _STRING_NAMES):
                return False
            if name and (any(fnmatchcase(name, p) for p in _LIST_NAMES)
                         or (name.endswith("s") and not name.endswith(("ss", "us", "is")))):
                return True  # docs, results, messages: a plural names a collection
            return False
        return None

    def mark_cuts(self, node, env: _Env) -> None:
        """Cuts followed by a marker inside the same value (``text[:500] + "…"``,
        ``f"{text[:500]}… [truncated]"``) are not silent."""
        cst = self.cst
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left = node.left
            while isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Add):
                left = left.right
            if isinstance(left, cst.Subscript) and isinstance(left.slice[0].slice, cst.Slice):
                following = self.text(node.right, env)
                if following and following[0].slot is None and _marker(following[0].text):
                    self._marked.add(id(left))
        elif isinstance(node, cst.FormattedString):
            parts = list(node.parts)
            for part, after in zip(parts, parts[1:]):
                if (isinstance(part, cst.FormattedStringExpression) and isinstance(part.expression, cst.Subscript)
                        and isinstance(after, cst.FormattedStringText) and _marker(after.value)):
                    self._marked.add(id(part.expression))

    # ---- sources: iteration order ------------------------------------------------------------------

    def unordered(self, node, env: _Env) -> str | None:
        """What makes the value of ``node`` a collection in no fixed order, or None."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, (cst.Set, cst.SetComp)):
            return "set"
        if isinstance(node, cst.Call):
            qualified = self.qualified(node.func) or ""
            if qualified in _UNORDERED_CALLS:
                return _UNORDERED_CALLS[qualified]
            if qualified in ("list", "tuple") and len(node.args) == 1:
                return self.unordered(node.args[0].value, env)
            if isinstance(node.func, cst.Attribute):
                method = node.func.attr.value
                if method in _PATH_METHODS and not qualified.startswith(("glob.", "fnmatch.")):
                    return _PATH_METHODS[method]
                if method in _SET_METHODS:
                    return "set" if self.unordered(node.func.value, env) else None
            return None
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return self.unordered(node.for_in.iter, env)
        if isinstance(node, cst.BinaryOperation) and isinstance(
            node.operator, (cst.BitOr, cst.BitAnd, cst.Subtract, cst.BitXor)
        ):
            return self.unordered(node.left, env) or self.unordered(node.right, env)
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.resolve(node, env)
            if binding is None:
                annotation = self.param_annotation(node.value, env) if isinstance(node, cst.Name) else None
                if annotation is not None and re.match(r"(typing\.)?([sS]et|frozenset|FrozenSet|AbstractSet)\b",
                                                       annotation):
                    return "set"
                return None
            if any(e.kind == "shuffle" for e in binding.extras):
                return "random.shuffle"
            if not self.enter(binding.value):
                return None
            try:
                return self.unordered(binding.value, binding.env)
            finally:
                self.leave(binding.value)
        return None

    def unordered_source(self, node, env: _Env) -> tuple[Source, ...]:
        detail = self.unordered(node, env)
        return () if detail is None else (Source(SourceKind.UNORDERED_ITERATION, detail, self.span(node)),)

    def iteration_sources(self, node, env: _Env) -> list[Source]:
        """Where a collection in no fixed order is rendered or iterated into this value."""
        found = list(self.unordered_source(node, env))
        if not found:
            self._iteration_walk(node, env, found)
        return found

    def _iteration_walk(self, node, env: _Env, found: list[Source]) -> None:
        cst = self.cst
        if env.depth > _MAX_DEPTH or isinstance(node, cst.Lambda):
            return
        if isinstance(node, cst.Call):
            qualified = self.qualified(node.func) or ""
            if qualified in _ORDER_FREE:
                return
            method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
            if method == "join" or qualified in _ITERATING or qualified in _SERIALIZERS:
                for arg in node.args[:1]:
                    found.extend(self.unordered_source(arg.value, env))
        elif isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp)):
            comp = node.for_in
            while comp is not None:
                found.extend(self.unordered_source(comp.iter, env))
                comp = comp.inner_for_in
        elif isinstance(node, cst.StarredElement):
            found.extend(self.unordered_source(node.value, env))
        elif isinstance(node, cst.FormattedStringExpression):
            found.extend(self.unordered_source(node.expression, env))
        elif isinstance(node, cst.Name):
            binding = self.resolve(node, env)
            if binding is not None and self.enter(binding.value):
                try:
                    self._iteration_walk(binding.value, binding.env, found)
                    for extra in binding.extras:
                        if extra.kind in ("+=", "append", "extend") and extra.value is not None:
                            self._iteration_walk(extra.value, binding.env, found)
                            loop = binding.loop_of(extra)
                            if loop is not None:
                                found.extend(self.loop_sources(loop, binding.env))
                finally:
                    self.leave(binding.value)
            return
        for child in node.children:
            if isinstance(child, cst.CSTNode):
                self._iteration_walk(child, env, found)

    # ---- literals, dicts and lists -------------------------------------------------------------------

    def literal(self, node, env: _Env):
        """``(True, value)`` for an expression whose value is a JSON-like literal; ``(False, None)``."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return False, None
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.BinaryOperation)):
            if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.Add):
                return False, None
            found = self.text(node, env)
            if found is None or any(p.slot for p in found):
                return False, None
            return True, "".join(p.text for p in found)
        if isinstance(node, (cst.Integer, cst.Float)):
            return True, node.evaluated_value
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            ok, value = self.literal(node.expression, env)
            return (True, -value) if ok and isinstance(value, (int, float)) else (False, None)
        if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
            return True, {"True": True, "False": False, "None": None}[node.value]
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.resolve(node, env)
            if binding is None or binding.extras or not self.enter(binding.value):
                return False, None
            try:
                return self.literal(binding.value, binding.env)
            finally:
                self.leave(binding.value)
        if isinstance(node, (cst.List, cst.Tuple)):
            values = []
            for element in node.elements:
                if not isinstance(element, cst.Element):
                    return False, None
                ok, value = self.literal(element.value, env)
                if not ok:
                    return False, None
                values.append(value)
            return True, values
        if isinstance(node, cst.Dict) or (isinstance(node, cst.Call) and self.qualified(node.func) == "dict"):
            entries = self.dict_entries(node, env)
            if entries is None:
                return False, None
            result = {}
            for key, (value_node, value_env, _) in entries.items():
                ok, value = self.literal(value_node, value_env)
                if not ok:
                    return False, None
                result[key] = value
            return True, result
        return False, None

    def literal_str(self, node, env: _Env) -> str | None:
        ok, value = self.literal(node, env)
        return value if ok and isinstance(value, str) else None

    def dict_entries(self, node, env: _Env) -> dict[str, tuple[object, _Env, object]] | None:
        """String-keyed entries of a dict literal or ``dict(...)`` call, through names:
        key -> (value node, its env, the element that sets it)."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.resolve(node, env)
            if binding is None or binding.extras or not self.enter(binding.value):
                return None
            try:
                return self.dict_entries(binding.value, binding.env)
            finally:
                self.leave(binding.value)
        entries: dict[str, tuple[object, _Env, object]] = {}
        if isinstance(node, cst.Dict):
            for element in node.elements:
                if isinstance(element, cst.StarredDictElement):
                    inner = self.dict_entries(element.value, env)
                    if inner is None:
                        return None
                    entries.update(inner)
                    continue
                key = self.literal_str(element.key, env)
                if key is None:
                    return None
                entries[key] = (element.value, env, element)
            return entries
        if isinstance(node, cst.Call) and self.qualified(node.func) == "dict":
            for arg in node.args:
                if arg.keyword is not None:
                    entries[arg.keyword.value] = (arg.value, env, arg)
                elif arg.star in ("**", ""):
                    inner = self.dict_entries(arg.value, env)
                    if inner is None:
                        return None
                    entries.update(inner)
                else:
                    return None
            return entries
        return None

    def items(self, node, env: _Env, loop: str | None = None) -> list[_Item] | None:
        """The elements of a list-valued expression in order; None if it is not one we can read."""
        cst = self.cst
        if env.depth > _MAX_DEPTH:
            return None
        if isinstance(node, (cst.List, cst.Tuple)):
            self._consumed.add(id(node))
            items = []
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    inner = self.items(element.value, env, loop)
                    items.extend(inner if inner is not None else [
                        _Item(element.value, env, loop, True, self.unordered_source(element.value, env))])
                else:
                    items.append(_Item(element.value, env, loop))
            return items
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)) and node.for_in.inner_for_in is None:
            # One element per item of the iterable: a message or tool repeated in a loop.
            iterable = node.for_in.iter
            return [_Item(node.elt, env, self.code(iterable), False, self.unordered_source(iterable, env))]
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left, right = self.items(node.left, env, loop), self.items(node.right, env, loop)
            if left is None and right is None:
                return None
            return (left if left is not None else [_Item(node.left, env, loop, True)]) + (
                right if right is not None else [_Item(node.right, env, loop, True)]
            )
        if isinstance(node, (cst.Name, cst.Attribute)):
            binding = self.resolve(node, env)
            if binding is None or not self.enter(binding.value):
                return None
            try:
                items = self.items(binding.value, binding.env, loop)
                if items is None:
                    return None
                for extra in binding.extras:
                    inner = binding.loop_of(extra)
                    where = inner.text if inner is not None else loop
                    sources = self.loop_sources(inner, binding.env) if inner is not None else ()
                    if extra.kind in ("append", "insert"):
                        item = _Item(extra.value, binding.env, where, bool(sources), sources)
                        items.insert(0, item) if extra.kind == "insert" else items.append(item)
                    elif extra.kind in ("extend", "+="):
                        more = self.items(extra.value, binding.env, where)
                        items.extend(more if more is not None else [_Item(extra.value, binding.env, where, True)])
                    elif extra.kind == "shuffle":
                        return None
                self._consumed.add(id(binding.value))
                return items
            finally:
                self.leave(binding.value)
        if isinstance(node, cst.Call):
            if self.qualified(node.func) in ("list", "tuple") and len(node.args) == 1:
                return self.items(node.args[0].value, env, loop)
            target = self.function_for(node, env)
            if target is not None and self.enter(target[0]):
                try:
                    found = self.items(target[1], target[2], loop)
                finally:
                    self.leave(target[0])
                if found is not None:
                    self._consumed.add(id(target[1]))
                return found
        return None

    # ---- requests at call sites ----------------------------------------------------------------------

    def api_of(self, call) -> str | None:
        qualified = self.qualified(call.func) or ""
        if qualified in ("litellm.completion", "litellm.acompletion"):
            return "litellm"
        chain = [n for n in self.chain(call.func) if n not in ("with_raw_response", "with_streaming_response")]
        if len(chain) < 2:
            return None
        leaf, parent = chain[-1], chain[-2]
        if chain[-3:-1] == ["chat", "completions"] and leaf in ("create", "parse", "stream"):
            return "chat"
        if parent == "ChatCompletion" and leaf in ("create", "acreate"):
            return "chat"
        if parent == "responses" and leaf in ("create", "parse", "stream"):
            return "responses"
        if parent == "messages" and leaf in ("create", "stream") and "threads" not in chain:
            return "anthropic"
        return None

    def call_site_requests(self) -> list[Request]:
        requests = []
        for call, scope in self.calls:
            api = self.api_of(call)
            if api is not None:
                request = self.call_request(call, api, _Env(scope))
                if request is not None:
                    requests.append(request)
        return requests

    def call_request(self, call, api: str, env: _Env) -> Request | None:
        keywords: dict[str, tuple[object, _Env, object]] = {}
        opaque = False
        if api == "litellm":
            positional = [a for a in call.args if not a.keyword and not a.star]
            for name, arg in zip(("model", "messages"), positional):
                keywords[name] = (arg.value, env, arg)
        for arg in call.args:
            if arg.keyword is not None:
                keywords[arg.keyword.value] = (arg.value, env, arg)
            elif arg.star == "**":
                entries = self.dict_entries(arg.value, env)
                if entries is None:
                    opaque = True
                else:
                    for key, entry in entries.items():
                        keywords.setdefault(key, entry)
            elif arg.star == "*":
                opaque = True
        if not _REQUEST_KEYS & set(keywords) and not opaque:
            return None  # `x.messages.create(...)` of something that is not an LLM client
        builder = _Builder()
        tools: list[ToolDef] = []
        for key in ("tools", "functions"):
            if key in keywords:
                node, kenv, _ = keywords[key]
                tools.extend(self.tool_list(node, kenv, builder, legacy=key == "functions"))
        if api == "anthropic" and "system" in keywords:
            node, kenv, _ = keywords["system"]
            builder.next_message()
            self.content(node, kenv, builder, Role.SYSTEM, None)
        if api == "responses" and "instructions" in keywords:
            node, kenv, _ = keywords["instructions"]
            builder.next_message()
            builder.add(self.pieces(node, kenv), Role.SYSTEM)
        if "messages" in keywords:
            node, kenv, _ = keywords["messages"]
            self.messages(node, kenv, builder)
        if api == "responses" and "input" in keywords:
            node, kenv, _ = keywords["input"]
            if self.text(node, kenv) is not None:
                builder.next_message()
                builder.add(self.pieces(node, kenv), Role.USER)
            else:
                self.messages(node, kenv, builder)
        model = self.literal_str(keywords["model"][0], keywords["model"][1]) if "model" in keywords else None
        limit = None
        for key in _LIMIT_KEYS:
            if key in keywords:
                node, kenv, element = keywords[key]
                ok, value = self.literal(node, kenv)
                value = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
                limit = OutputLimit(key, value, self.span(element))
                break
        return Request(
            path=self.path,
            anchor=self.span(call),
            segments=tuple(builder.segments),
            tools=tuple(tools),
            model=model,
            output_limit=limit,
            declares_settings=not opaque or limit is not None,
            settings_hint=_HINTS[api],
            breakpoints=tuple(builder.breakpoints),
        )

    def messages(self, node, env: _Env, builder: _Builder) -> None:
        items = self.items(node, env)
        if items is None:
            items = [_Item(node, env, None, True, self.unordered_source(node, env))]
        for item in items:
            self.message(item, builder)

    def message(self, item: _Item, builder: _Builder) -> None:
        builder.next_message()
        if item.variable:
            piece = self.slot_piece(item.node, item.env, variable=True)
            builder.add([replace(piece, slot=_with_sources(piece.slot, item.sources))], Role.USER, item.loop)
            return
        first = len(builder.segments)
        self.message_content(item, builder)
        if item.sources:  # the messages come in an order that changes between calls
            builder.segments[first:] = [
                replace(s, slot=_with_sources(s.slot, item.sources)) if s.slot else s for s in builder.segments[first:]
            ]

    def message_content(self, item: _Item, builder: _Builder) -> None:
        entries = self.dict_entries(item.node, item.env)
        if entries is None:
            builder.add(self.pieces(item.node, item.env), Role.USER, item.loop)
            return
        target, _ = self.deref(item.node, item.env)
        self._consumed.update((id(item.node), id(target)))
        role = Role.USER
        if "role" in entries:
            name = self.literal_str(entries["role"][0], entries["role"][1])
            role = _ROLES.get(name.lower(), Role.USER) if name else Role.USER
        if "content" in entries:
            node, env, _ = entries["content"]
            self.content(node, env, builder, role, item.loop)

    def content(self, node, env: _Env, builder: _Builder, role: Role, loop: str | None) -> None:
        """A message's content (or Anthropic's ``system``): text, or a list of content blocks."""
        cst = self.cst
        if self.text(node, env) is None and isinstance(node, (cst.List, cst.Tuple, cst.Name, cst.Attribute)):
            blocks = self.items(node, env)
            if blocks and not any(b.variable for b in blocks):
                for block in blocks:
                    self.block(block, builder, role, loop)
                return
        builder.add(self.pieces(node, env), role, loop)

    def block(self, item: _Item, builder: _Builder, role: Role, loop: str | None) -> None:
        entries = self.dict_entries(item.node, item.env)
        loop = item.loop or loop
        if entries is None:
            builder.add(self.pieces(item.node, item.env), role, loop)
            return
        kind = self.literal_str(entries["type"][0], entries["type"][1]) if "type" in entries else "text"
        if kind in _TEXT_BLOCK_TYPES and "text" in entries:
            node, env, _ = entries["text"]
            builder.add(self.pieces(node, env), role, loop)
        elif kind == "tool_result" and "content" in entries:
            node, env, _ = entries["content"]
            self.content(node, env, builder, Role.TOOL, loop)
        if "cache_control" in entries:
            node, env, element = entries["cache_control"]
            builder.breakpoints.append(Breakpoint(self.span(element), len(builder.segments), self.ttl(node, env)))

    def ttl(self, node, env: _Env) -> str | None:
        entries = self.dict_entries(node, env) or {}
        return self.literal_str(entries["ttl"][0], entries["ttl"][1]) if "ttl" in entries else None

    # ---- tools -------------------------------------------------------------------------------------------

    def tool_list(self, node, env: _Env, builder: _Builder, legacy: bool) -> list[ToolDef]:
        items = self.items(node, env)
        if items is None:
            # A list built at run time: keep nothing of it, except an order that changes per call.
            sources = self.iteration_sources(node, env)
            if sources:
                piece = self.slot_piece(node, env, variable=True)
                builder.add([replace(piece, slot=_with_sources(piece.slot, sources))], Role.TOOLS)
            return []
        tools = []
        for item in items:
            if item.variable:
                if item.sources:
                    piece = self.slot_piece(item.node, item.env, variable=True)
                    builder.add([replace(piece, slot=_with_sources(piece.slot, item.sources))], Role.TOOLS)
                continue
            tool = self.tool_dict(item, builder, legacy) if item.loop is None else None
            if tool is not None:
                tools.append(tool)
            elif item.sources:  # tools picked in a loop over a collection in no fixed order
                piece = self.slot_piece(item.node, item.env, variable=True)
                piece = replace(piece, span=item.sources[0].span)
                builder.add([replace(piece, slot=_with_sources(piece.slot, item.sources))], Role.TOOLS, item.loop)
        return tools

    def tool_dict(self, item: _Item, builder: _Builder, legacy: bool) -> ToolDef | None:
        cst = self.cst
        node, env = self.deref(item.node, item.env)
        entries = self.dict_entries(node, env)
        if entries is None:
            if isinstance(node, cst.Call) and self.is_mcp_tool_call(node):
                return self.mcp_tool_call(node, env, builder)
            return None
        ok, raw = self.literal(node, env)
        if "cache_control" in entries:
            cache, cenv, element = entries["cache_control"]
            builder.breakpoints.append(Breakpoint(self.span(element), 0, self.ttl(cache, cenv)))
        inner = entries
        if not legacy and "function" in entries:
            inner = self.dict_entries(entries["function"][0], entries["function"][1]) or entries
        name = self.literal_str(inner["name"][0], inner["name"][1]) if "name" in inner else None
        description = None
        if "description" in inner:
            description = self.tool_description(inner["description"][0], inner["description"][1], builder)
        schema = None
        for key in ("parameters", "input_schema", "inputSchema"):
            if key in inner:
                found, value = self.literal(inner[key][0], inner[key][1])
                schema = value if found else None
                break
        return ToolDef(name, description, schema, self.span(node), raw if ok else None)

    def tool_description(self, node, env: _Env, builder: _Builder) -> str | None:
        """The description's text (slots shown as ``{expression}``); its slots become
        tools-role segments, so what flows into a description is checked like prompt text."""
        pieces = self.text(node, env)
        if pieces is None:
            builder.add([self.slot_piece(node, env)], Role.TOOLS)
            return None
        slots = [p for p in pieces if p.slot is not None]
        if slots:
            builder.add(slots, Role.TOOLS)
        return "".join(p.text if p.slot is None else "{" + p.text + "}" for p in pieces)

    def is_mcp_tool_call(self, call) -> bool:
        qualified = self.qualified(call.func) or ""
        if qualified.endswith(".Tool") and qualified.split(".")[0] in ("mcp", "fastmcp"):
            return True
        return qualified in ("Tool", "types.Tool") and any(
            a.keyword is not None and a.keyword.value == "inputSchema" for a in call.args
        )

    def mcp_tool_call(self, call, env: _Env, builder: _Builder) -> ToolDef:
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        name = self.literal_str(keywords["name"], env) if "name" in keywords else None
        description = None
        if "description" in keywords:
            description = self.tool_description(keywords["description"], env, builder)
        schema = None
        if "inputSchema" in keywords:
            ok, value = self.literal(keywords["inputSchema"], env)
            schema = value if ok else None
        raw = None
        literal_description = self.literal_str(keywords["description"], env) if "description" in keywords else None
        described = "description" not in keywords or literal_description is not None
        if name is not None and schema is not None and described:
            raw = {"name": name}
            if literal_description is not None:
                raw["description"] = literal_description
            raw["inputSchema"] = schema
        return ToolDef(name, description, schema, self.span(call), raw)

    def mcp_request(self) -> Request | None:
        builder = _Builder()
        tools: list[tuple[tuple[int, int], ToolDef]] = []
        for call, scope in self.calls:
            if self.is_mcp_tool_call(call) and id(call) not in self._consumed:
                tools.append((self.start(call), self.mcp_tool_call(call, _Env(scope), builder)))
        if self._mcp:
            for fn, scope in self.functions:
                decorator = next((d.decorator for d in fn.decorators if self.is_tool_decorator(d.decorator)), None)
                if decorator is not None:
                    tools.append((self.start(fn.name), self.decorated_tool(fn, scope, decorator, builder)))
        if not tools:
            return None
        tools.sort(key=lambda t: t[0])
        return Request(self.path, tools[0][1].span, tuple(builder.segments), tuple(t for _, t in tools))

    def is_tool_decorator(self, node) -> bool:
        return self.is_decorator(node, "tool")

    def is_decorator(self, node, name: str) -> bool:
        """``@x.tool``, ``@x.tool()``, ``@x.tool(name=...)`` (FastMCP's ``tool`` and ``prompt``)."""
        cst = self.cst
        target = node.func if isinstance(node, cst.Call) else node
        return (isinstance(target, cst.Attribute) and target.attr.value == name
                and isinstance(target.value, (cst.Name, cst.Attribute)))

    def decorated_tool(self, fn, scope: _Scope, decorator, builder: _Builder) -> ToolDef:
        """A FastMCP tool: the function's name and docstring (as the SDK lists them: the raw
        ``__doc__``) and the schema pydantic derives from its signature."""
        cst = self.cst
        env = _Env(scope.parent or self.module_scope)
        name = fn.name.value
        description = fn.get_docstring(clean=False)
        if isinstance(decorator, cst.Call):
            positional = [a.value for a in decorator.args if not a.keyword and not a.star]
            keywords = {a.keyword.value: a.value for a in decorator.args if a.keyword is not None}
            given = keywords.get("name") or (positional[0] if positional else None)
            if given is not None:
                name = self.literal_str(given, env) or name
            if "description" in keywords:
                description = self.tool_description(keywords["description"], env, builder)
        schema = self.signature_schema(fn, env)
        raw = {"name": name, "description": description or "", "inputSchema": schema}
        return ToolDef(name, description, schema, self.span(fn.name), raw)

    def signature_schema(self, fn, env: _Env) -> dict:
        """The input schema FastMCP (pydantic) derives from a signature, as far as it is static.

        Like pydantic, a parameter is required when it has no default (``Optional[str]``
        without a default is required, and may be null); keys are sorted as pydantic sorts them.
        """
        properties: dict[str, dict] = {}
        required: list[str] = []
        params = fn.params
        for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
            name = param.name.value
            if name in ("self", "cls"):
                continue
            annotation = param.annotation.annotation if param.annotation is not None else None
            if annotation is not None and self.mentions_context(annotation):
                continue  # FastMCP injects its Context; the model never sees it
            schema = dict(self.type_schema(annotation, env)) if annotation is not None else {}
            has_default = param.default is not None
            field_call = self.field_call(param.default) if has_default else None
            if field_call is not None:
                options = {a.keyword.value: a.value for a in field_call.args if a.keyword is not None}
                if "description" in options:
                    schema["description"] = self.literal_str(options["description"], env)
                has_default = "default" in options
                default_node = options.get("default")
            else:
                default_node = param.default
            if has_default:
                ok, value = self.literal(default_node, env)
                if ok:
                    schema["default"] = value
            else:
                required.append(name)
            schema["title"] = name.replace("_", " ").title()
            properties[name] = dict(sorted(schema.items()))
        result: dict = {"properties": properties}
        if required:
            result["required"] = required
        result["title"] = f"{fn.name.value}Arguments"
        result["type"] = "object"
        return result

    def field_call(self, node):
        cst = self.cst
        if isinstance(node, cst.Call) and (self.qualified(node.func) or "").split(".")[-1] == "Field":
            return node
        return None

    def mentions_context(self, annotation) -> bool:
        cst = self.cst
        target = annotation.value if isinstance(annotation, cst.Subscript) else annotation
        return (self.dotted(target) or "").split(".")[-1] == "Context"

    def type_schema(self, node, env: _Env) -> dict:
        cst = self.cst
        simple = {"str": {"type": "string"}, "int": {"type": "integer"}, "float": {"type": "number"},
                  "bool": {"type": "boolean"}, "dict": {"additionalProperties": True, "type": "object"},
                  "list": {"items": {}, "type": "array"}, "Any": {}, "None": {"type": "null"}}
        if isinstance(node, cst.SimpleString):  # a string annotation
            try:
                return self.type_schema(cst.parse_expression(_string_value(node) or ""), env)
            except (cst.ParserSyntaxError, RecursionError):
                return {}
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            return {"anyOf": [self.type_schema(o, env) for o in _flatten_union(cst, node)]}
        name = (self.dotted(node.value if isinstance(node, cst.Subscript) else node) or "").split(".")[-1]
        if not isinstance(node, cst.Subscript):
            return dict(simple.get(name, {}))
        args = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
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
            values = [v for ok, v in (self.literal(a, env) for a in args) if ok]
            schema: dict = {"enum": values}
            kinds = {type(v) for v in values}
            if kinds == {str}:
                schema["type"] = "string"
            elif kinds == {int}:
                schema["type"] = "integer"
            return schema
        if name == "Annotated" and args:
            schema = dict(self.type_schema(args[0], env))
            for meta in args[1:]:
                text = self.literal_str(meta, env)
                field_call = self.field_call(meta)
                if text is not None:
                    schema["description"] = text
                elif field_call is not None:
                    options = {a.keyword.value: a.value for a in field_call.args if a.keyword is not None}
                    if "description" in options:
                        schema["description"] = self.literal_str(options["description"], env)
            return dict(sorted(schema.items()))
        return {}

    # ---- prompts that reach no call site ---------------------------------------------------------------

    def standalone_requests(self, used: set[int], context: bool) -> list[Request]:
        """Prompt constants, prompt functions and message lists that no call site of the module
        sends: one request each, unless another one already includes it.

        Without ``context`` (an LLM import, a call site, a tool, a prompt path) only strong
        signs count: message dicts with a role, and names only prompts carry (``SYSTEM_PROMPT``).
        """
        cst = self.cst
        candidates: list[tuple[int, Span, _Builder, set[int], bool]] = []
        # Whether the source says which role the text is sent in: message dicts and MCP prompts
        # do, and so does a name such as SYSTEM_PROMPT; a SUMMARY_PROMPT's role is a guess.
        marked: dict[int, bool] = {}

        def add(key: int, anchor: Span, build, strong: bool, says_role: bool = True) -> None:
            self._consumed = set()
            builder = _Builder()
            build(builder)
            if builder.segments:
                candidates.append((key, anchor, builder, self._consumed, strong))
                marked[key] = says_role

        for scope in self.scopes():
            for name, records in scope.assigns.items():
                bases = [i for i, r in enumerate(records) if r.kind == "=" and r.value is not None]
                if not bases or not _prompt_name(name):
                    continue
                base = records[bases[-1]]
                pieces = self.assigned_text(name, base, records[bases[-1] + 1 :])
                if pieces and any(p.slot is not None or p.text.strip() for p in pieces):
                    add(id(base.value), self.span(base.target), lambda b, p=pieces: _system(b, p, Role.SYSTEM),
                        _strong_prompt_name(name), _system_name(name))
        for fn, scope in self.functions:
            mcp_prompt = self._mcp and any(self.is_decorator(d.decorator, "prompt") for d in fn.decorators)
            if (mcp_prompt or _prompt_name(fn.name.value)) and scope.returns:
                value = scope.returns[-1]
                pieces = self.text(value, _Env(scope))
                role = Role.USER if mcp_prompt else Role.SYSTEM  # an MCP prompt is a user message
                if pieces:
                    add(id(value), self.span(fn.name), lambda b, p=pieces, r=role: _system(b, p, r),
                        mcp_prompt or _strong_prompt_name(fn.name.value), mcp_prompt or _system_name(fn.name.value))
        for node, scope in self.lists:
            env = _Env(scope)
            if any(self.is_message_dict(e.value, env) for e in node.elements if isinstance(e, cst.Element)):
                add(id(node), self.span(node), lambda b, n=node, e=env: self.messages(n, e, b), True)
        for node, scope in self.dicts:
            env = _Env(scope)
            if self.is_message_dict(node, env, roles=("system", "developer")):
                add(id(node), self.span(node), lambda b, n=node, e=env: self.message(_Item(n, e), b), True)
        context = context or any(strong for *_, strong in candidates)
        requests = []
        for key, anchor, builder, _, _ in candidates:
            if key in used or any(key in consumed for other, _, _, consumed, _ in candidates if other != key):
                continue
            if not context or not any(s.has_words for s in builder.segments):
                continue
            requests.append(Request(self.path, anchor, tuple(builder.segments), breakpoints=tuple(builder.breakpoints),
                                    roles_marked=marked[key]))
        return requests

    def assigned_text(self, name: str, base: _Assign, extras: list[_Assign]) -> list[_Piece] | None:
        """The text a prompt name holds once its scope has run (every ``+=`` included). A
        template that is filled elsewhere (``.format``) keeps its fields as slots."""
        cst = self.cst
        env = _Env(base.home)
        parts = _string_parts(cst, base.value)
        if parts is not None and not extras and (name in self.format_receivers or "template" in name.lower()):
            fields = self.template_fields(parts)
            if fields is not None:
                return fields
        found = self.text(base.value, env)
        if found is None:
            return None
        found = list(found)
        binding = _Binding(base.value, env, extras, len(base.loops))
        for extra in extras:
            if extra.kind != "+=":
                return None
            more = self.pieces(extra.value, _Env(extra.home))
            loop = binding.loop_of(extra)
            found.extend(_in_loop(more, loop.text if loop else None))
        return found

    def template_fields(self, parts, field=None) -> list[_Piece] | None:
        """The pieces of ``{name}`` templates: static text, and for each field ``field(name,
        span)`` (by default a slot named by the field, its value unknown)."""
        pieces = []
        for part in parts:
            raw = "r" in part.prefix.lower()
            fields = _format_fields(part.raw_value, raw)
            if fields is None:
                return None
            located = self.located(part)
            cursor = 0
            for start, end, name in fields:
                pieces.extend(located.static(cursor, start, raw, braces=True))
                span = located.span(start, end)
                pieces.append(field(name, span) if field else
                              _Piece(name, span, Slot(name, names=(name,) if name.isidentifier() else ())))
                cursor = end
            pieces.extend(located.static(cursor, len(part.raw_value), raw, braces=True))
        return pieces

    def is_message_dict(self, node, env: _Env, roles=tuple(_ROLES)) -> bool:
        cst = self.cst
        if not isinstance(node, cst.Dict):
            return False
        entries = self.dict_entries(node, env)
        if not entries or "role" not in entries or "content" not in entries:
            return False
        role = self.literal_str(entries["role"][0], entries["role"][1])
        return role is not None and role.lower() in roles

    def scopes(self):
        stack = [self.module_scope]
        seen = set()
        while stack:
            scope = stack.pop(0)
            if id(scope) in seen:
                continue
            seen.add(id(scope))
            yield scope
            stack.extend(inner for _, inner in scope.functions.values())

    # ---- token estimates -------------------------------------------------------------------------------

    def estimate_context(self, targets: list[str | None], value) -> None:
        if any(_token_name(t) for t in targets):
            self.estimates_in(value)

    def estimate_comparison(self, node) -> None:
        operands = [node.left, *[c.comparator for c in node.comparisons]]
        if any(self.mentions_tokens(o) for o in operands):
            for operand in operands:
                self.estimates_in(operand)
        if any(self.is_len_like(o) for o in operands):
            for operand in operands:
                self.scaled_tokens(operand)

    def mentions_tokens(self, node) -> bool:
        cst = self.cst
        for current in _walk(cst, node):
            if isinstance(current, (cst.Name, cst.Attribute)) and _token_name(self.dotted(current)):
                return True
        return False

    def scaled_tokens(self, node) -> None:
        """``max_tokens * 4`` set against a length: a token budget turned into characters."""
        cst = self.cst
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                number = _number(cst, b)
                if _token_name(self.dotted(a)) and number is not None and 2 <= number <= 6:
                    self.observe(node)
                    return

    def estimates_in(self, node) -> None:
        """Observe each ``len(x) / 4``-style estimate inside an expression used as a token count."""
        cst = self.cst
        if isinstance(node, cst.Call):
            last = (self.qualified(node.func) or "").split(".")[-1]
            if last in _WRAPPERS and len(node.args) >= 1 and self.is_estimate(node.args[0].value):
                self.observe(node)
                return
            if last in (*_WRAPPERS, "max", "min", "sum"):
                for arg in node.args:
                    self.estimates_in(arg.value)
        elif isinstance(node, cst.BinaryOperation):
            if self.is_estimate(node):
                self.observe(node)
                return
            self.estimates_in(node.left)
            self.estimates_in(node.right)
        elif isinstance(node, cst.UnaryOperation):
            self.estimates_in(node.expression)
        elif isinstance(node, cst.IfExp):
            self.estimates_in(node.body)
            self.estimates_in(node.orelse)
        elif isinstance(node, cst.GeneratorExp):
            self.estimates_in(node.elt)

    def is_estimate(self, node) -> bool:
        cst = self.cst
        if not isinstance(node, cst.BinaryOperation):
            return False
        left, right, op = node.left, node.right, node.operator
        if isinstance(op, (cst.Divide, cst.FloorDivide)):
            number = _number(cst, right)
            if number is None:
                return False
            if self.is_word_count(left):
                return 0.5 <= number < 1
            return self.is_len_like(left) and 2 <= number <= 6
        if isinstance(op, cst.Multiply):
            for a, b in ((left, right), (right, left)):
                number = _number(cst, b)
                if number is None:
                    continue
                if self.is_word_count(a):
                    return 1 < number <= 2
                if self.is_len_like(a):
                    return 0 < number <= 0.5
        return False

    def is_len_like(self, node) -> bool:
        """A character count: ``len(x)``, ``sum(len(m) for m in ...)``, ``num_chars``."""
        cst = self.cst
        if isinstance(node, cst.Call):
            qualified = self.qualified(node.func)
            if qualified == "len":
                return not self.is_word_count(node)
            if qualified == "sum" and node.args:
                return any(isinstance(n, cst.Call) and self.qualified(n.func) == "len"
                           for n in _walk(cst, node.args[0].value))
            return False
        if isinstance(node, (cst.Name, cst.Attribute)):
            last = (self.dotted(node) or "").rsplit(".", 1)[-1].lower()
            return "char" in last or last.endswith(("_len", "_length"))
        return False

    def is_word_count(self, node) -> bool:
        cst = self.cst
        if isinstance(node, cst.Call) and self.qualified(node.func) == "len" and node.args:
            inner = node.args[0].value
            return (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute)
                    and inner.func.attr.value == "split")
        if isinstance(node, (cst.Name, cst.Attribute)):
            return "word" in (self.dotted(node) or "").rsplit(".", 1)[-1].lower()
        return False

    def observe(self, node) -> None:
        span = self.span(node)
        if span not in self._observed:
            self._observed.add(span)
            self.observations.append(Observation("char-token-estimate", span, self.code(node)))


# --------------------------------------------------------------------------------------------
# Small helpers.


class _Located:
    """Offsets inside a string literal's token, mapped to spans and decoded static pieces."""

    def __init__(self, path: str, part, locate):
        self.path = path
        self.locate = locate
        self.body_start = len(part.prefix) + len(part.quote)
        self.body = part.raw_value

    def span(self, start: int, end: int) -> Span:
        line, column = self.locate(self.body_start + start)
        end_line, end_column = self.locate(self.body_start + end)
        return Span(self.path, line, column, end_line, end_column)

    def static(self, start: int, end: int, raw: bool, braces: bool = False, percent: bool = False) -> list[_Piece]:
        text = self.body[start:end]
        if not text:
            return []
        if braces:
            text = text.replace("{{", "{").replace("}}", "}")
        if percent:
            text = text.replace("%%", "%")
        return [_Piece(_unescape(text, raw), self.span(start, end))]


def _system(builder: _Builder, pieces: list[_Piece], role: Role) -> None:
    builder.next_message()
    builder.add(pieces, role)


def _prompt_path(path: str) -> bool:
    """A module kept where prompts live (``prompts.py``, ``prompts/``, ``llm/``)."""
    parts = re.split(r"[\\/]", path.lower())
    stems = [p.rsplit(".", 1)[0] for p in parts[-3:]]
    return any("prompt" in p or p in ("llm", "llms") for p in stems)


def _string_value(node) -> str | None:
    try:
        value = node.evaluated_value
    except Exception:  # noqa: BLE001 - libcst raises on odd literals; treat them as unknown
        return None
    return value if isinstance(value, str) else None


def _string_parts(cst, node) -> list | None:
    """The SimpleString parts of a (possibly implicitly concatenated) text literal."""
    if isinstance(node, cst.SimpleString):
        return None if "b" in node.prefix.lower() else [node]
    if isinstance(node, cst.ConcatenatedString):
        left, right = _string_parts(cst, node.left), _string_parts(cst, node.right)
        return None if left is None or right is None else left + right
    return None


def _number(cst, node) -> float | None:
    if isinstance(node, (cst.Integer, cst.Float)):
        try:
            return float(node.evaluated_value)
        except (ValueError, TypeError):
            return None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
        a, b = _number(cst, node.left), _number(cst, node.right)
        return a / b if a is not None and b else None
    return None


def _walk(cst, node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(c for c in current.children if isinstance(c, cst.CSTNode))


def _flatten_union(cst, node) -> list:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _flatten_union(cst, node.left) + _flatten_union(cst, node.right)
    return [node]


def _value_parts(cst, node) -> list:
    """The sub-expressions whose value becomes part of ``node``'s value (not a condition, not
    what a measuring call such as ``len`` reads)."""
    if isinstance(node, cst.FormattedString):
        return [p.expression for p in node.parts if isinstance(p, cst.FormattedStringExpression)]
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return [e.value for e in node.elements]
    if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        return [node.elt]
    if isinstance(node, cst.Dict):
        return [e.value for e in node.elements]
    return []


def _marker(text: str) -> bool:
    return text.lstrip().lower().startswith(_CUT_MARKERS)


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _in_loop(pieces: list[_Piece], loop: str | None) -> list[_Piece]:
    return pieces if loop is None else [replace(p, loop=p.loop or loop) for p in pieces]


def _with_sources(slot: Slot | None, sources) -> Slot | None:
    if slot is None or not sources:
        return slot
    known = {(s.kind, s.span) for s in slot.sources}
    extra = tuple(s for s in sources if (s.kind, s.span) not in known)
    return replace(slot, sources=slot.sources + extra) if extra else slot


def _strip(pieces: list[_Piece], method: str) -> list[_Piece]:
    pieces = list(pieces)
    if method in ("strip", "lstrip"):
        while pieces and pieces[0].slot is None:
            text = pieces[0].text.lstrip()
            if text:
                pieces[0] = replace(pieces[0], text=text)
                break
            pieces.pop(0)
    if method in ("strip", "rstrip"):
        while pieces and pieces[-1].slot is None:
            text = pieces[-1].text.rstrip()
            if text:
                pieces[-1] = replace(pieces[-1], text=text)
                break
            pieces.pop()
    return pieces


_INDENT = re.compile(r"[ \t]*")


def _dedent(pieces: list[_Piece], clean: bool) -> list[_Piece]:
    """``textwrap.dedent`` (or ``inspect.cleandoc``) applied to the static text, each slot
    standing in as one non-blank character."""
    joined = "".join("\x00" if p.slot is not None else p.text for p in pieces)
    lines = joined.split("\n")
    measured = lines[1:] if clean else lines
    indents = [_INDENT.match(line).group() for line in measured if line.strip(" \t")]
    margin = indents[0] if indents else ""
    for indent in indents[1:]:
        while not indent.startswith(margin):
            margin = margin[:-1]
    keep = []
    for number, line in enumerate(lines):
        if not line.strip(" \t"):
            drop = len(line)
        elif clean and number == 0:
            drop = len(_INDENT.match(line).group())
        else:
            drop = len(margin) if line.startswith(margin) else 0
        keep.extend([False] * drop + [True] * (len(line) - drop))
        keep.append(True)  # the newline
    result, offset = [], 0
    for piece in pieces:
        width = 1 if piece.slot is not None else len(piece.text)
        if piece.slot is not None:
            result.append(piece)
        else:
            text = "".join(c for c, k in zip(piece.text, keep[offset : offset + width]) if k)
            if text:
                result.append(replace(piece, text=text))
        offset += width
    if clean:
        result = _strip(result, "strip")
    return result
