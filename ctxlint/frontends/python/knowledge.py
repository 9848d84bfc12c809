"""What the front-end knows about Python code that builds prompts: names and calls of Python.

Lists of names and calls that decide what a value is: a call that only measures its argument, a
path that stays inside the repository, a collection in no fixed order. The words Python shares
with TypeScript (prompt names, tool runners, cut markers) are in ``frontends/code/words.py``.
"""

from __future__ import annotations

import ast
import builtins
import re
from fnmatch import translate

from ctxlint.frontends.code import words
from ctxlint.frontends.code.words import RAW_OUTPUT_NAMES
from ctxlint.frontends.python.nodes import walk
from ctxlint.model import QUERY_ROWS

# Names of Python objects that hold something about a prompt, not its text.
NOT_PROMPT_NAMES = (*words.NOT_PROMPT_NAMES, "*_cls", "*_class", "*_env", "*_environment", "*_engine", "*_cache",
                    "*_dict")
# Executing a tool in an agent loop (`run_tool(...)`, `session.call_tool(...)`): in Python, also
# one plain verb of a tool object (`tool.invoke(args)`).
TOOL_RUNNERS = re.compile(words.TOOL_RUNNER_WORDS + r"|^(?:a?invoke|a?run|call|execute)$")
# The keys a tool's parameter schema is given under: OpenAI and Gemini, Anthropic, MCP, Pydantic AI.
TOOL_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "parameters_json_schema")


def tool_shaped(keys: set[str] | frozenset[str]) -> bool:
    """Whether a dict's keys (or a call's keywords) can be a tool definition's, before anything
    is followed: a name and a schema, or OpenAI's or Bedrock's wrapper; not a tool call."""
    if "arguments" in keys:
        return False
    return bool({"function", "toolSpec"} & keys) or ("name" in keys and bool(keys.intersection(TOOL_SCHEMA_KEYS)))


SERIALIZERS = {"json.dumps", "simplejson.dumps", "ujson.dumps"}
YAML_DUMPERS = {"yaml.dump", "yaml.safe_dump"}
UNORDERED_CALLS = {
    "set": "set", "frozenset": "set", "os.listdir": "os.listdir", "os.scandir": "os.scandir",
    "glob.glob": "glob.glob", "glob.iglob": "glob.iglob", "random.sample": "random.sample", "os.walk": "os.walk",
    # the tasks in the order they finish, which changes from run to run, whatever they hold
    "concurrent.futures.as_completed": "as_completed", "asyncio.as_completed": "as_completed",
}
PATH_METHODS = {"iterdir": "Path.iterdir", "glob": "Path.glob", "rglob": "Path.rglob"}
# The details of UNORDERED_CALLS and PATH_METHODS that list a folder: the file system gives its
# entries in no fixed order.
LISTINGS = frozenset({"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob", *PATH_METHODS.values()})
# The details of UNORDERED_CALLS whose order is that of tasks finishing, of a list put in a random
# order (`random.shuffle(items)`, recorded beside a name's assignments), and those in no fixed
# order whatever their items (a folder's entries, finished tasks, a shuffle; a set's order
# changes only for text).
COMPLETIONS = frozenset({"as_completed"})
SHUFFLES = frozenset({"random.shuffle", "random.sample"})
# Calls that pick one item of a collection at random: of a list of the project's own texts, the
# value is one of a few fixed prefixes, not a new one on every call.
PICKS = frozenset({"random.choice", "secrets.choice"})
# The rows of a database query that asks for no order (queryrows.py: model.QUERY_ROWS), in the
# order the database picks.
ANY_ITEMS = LISTINGS | COMPLETIONS | SHUFFLES | {QUERY_ROWS}
# Sources whose order is followed to a prompt whatever their items, as a directory listing's is.
UNSTABLE = LISTINGS | {QUERY_ROWS}
# How a module writes one of LISTINGS: a cheap test of its text before a pass looks for one.
LISTING_WORDS = ("listdir", "scandir", "walk(", "glob(", "iterdir(")
# Calls whose items hash by identity, their address in memory (`re.Match`): a set of them iterates in
# an order that changes from run to run, as a set of strings does with the hash seed.
IDENTITY_HASHED = frozenset({"re.finditer", "regex.finditer"})
SET_METHODS = {"union", "intersection", "difference", "symmetric_difference"}
# Calls whose result does not depend on the order of their argument's items.
ORDER_FREE = {"sorted", "len", "min", "max", "sum", "any", "all", "set", "frozenset", "bool",
               "collections.Counter"}
ITERATING = {"list", "tuple", "str", "repr", "enumerate", "iter", "reversed", "map", "filter", "zip",
              "next"}
NOT_VARIABLES = {"True", "False", "None", "self", "cls"}
# Methods of text, by what they give back: those only text (and bytes) has, whose result is text
# again (`name.strip()`: a set of them is a set of text); those whose result is text when what
# they are called on is (`"\n".join(lines)`, `text.replace(a, b)`); those whose result is text
# whatever they are called on (`raw.decode()`, `"{}".format(x)`); and those of files, pages and
# mails that read their text (`path.read_text()`, `soup.get_text()`).
STR_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "capitalize",
                         "removeprefix", "removesuffix"})
KEEP_TEXT = STR_METHODS | {"join", "replace"}
MAKE_TEXT = frozenset({"decode", "format"})
READ_TEXT = frozenset({"read", "read_text", "get_text", "text", "get_payload", "get_content", "as_string"})
# The names Python binds in every module (`len`, `print`, `Exception`).
BUILTINS = frozenset(dir(builtins))
# Calls that return the results of the awaitables they are given, one per argument: a starred
# list of tasks (`asyncio.gather(*[client.search(q) for q in queries])`) is read too.
GATHERS = {"asyncio.gather"}
# Calls that run the function they are handed on a worker thread and give back what it returns
# (`await asyncio.to_thread(parse, path)`, `loop.run_in_executor(None, parse, path)`), by the last
# name of the call: the position of the function among their arguments; those after it are its own.
THREAD_RUNNERS = {"to_thread": 0, "run_in_executor": 1, "run_in_threadpool": 0, "run_sync": 0}
# The attributes of a response that say how its request went, not what it answered: its HTTP
# status, and the flags a client's response or a run's result sets (`resp.ok`, `result.is_success`).
RESPONSE_STATUS = frozenset({"status_code", "status"})
RESPONSE_FLAGS = frozenset({"ok", "is_error", "is_success"})
# The calls that run a LangChain runnable (a chat model, a chain built on one) with a request.
RUNNABLE_CALLS = frozenset({"invoke", "ainvoke", "stream", "astream", "batch", "abatch"})
# The keywords a framework's object or function takes its chat model under (`LLMChain(llm=model)`).
MODEL_KEYWORDS = frozenset({"llm", "model", "chat_model", "language_model"})
# Variables named for a fact about content, not the content (globs): what a program parses out
# of a page or a file into one of these (`url = line.partition("=")[2]`) is a location or a key.
LOCATOR_NAMES = ("url", "*_url", "uri", "*_uri", "href", "link", "*_link", "path", "*_path", "filename",
                 "*_filename", "file_name", "id", "*_id")
# The same as one pattern, matched on a lower-cased name: every name of every value a prompt is
# built from is tested.
LOCATOR = re.compile("|".join(translate(p) for p in LOCATOR_NAMES))
WRAPPERS = ("int", "round", "ceil", "floor", "float")
# Calls that count tokens with a real tokenizer; a function that makes one uses any
# characters-per-token guess beside it only as a fallback.
TOKENIZER_CALLS = {"count_tokens", "num_tokens_from_string", "num_tokens_from_messages", "get_num_tokens",
                   "get_num_tokens_from_messages", "encoding_for_model", "get_encoding", "tokenize"}
MAX_DEPTH = 40  # how deep name and function resolution may go

# Attributes that hold an object's text (a response's body, a document's content): a slice of
# one cuts text, not a list.
TEXT_ATTRIBUTES = {"text", "content", "body", "data", "page_content"}
# Calls and methods that measure a value rather than pass its text on.
ADDS = ("+=", "append", "extend", "insert")
# The origin of a process's output whose command the code writes out whole (ownpaths.run_by).
FIXED_COMMAND = "fixed-command"
MEASURES = {"len", "bool", "int", "float", "hash", "id", "isinstance", "type", "round", "callable", "hasattr"}
DROPS_NAMES = {"len", "bool", "hash", "id", "isinstance", "type", "callable", "hasattr"}  # int(ts) is still a clock
MEASURING_METHODS = {"count", "startswith", "endswith", "isdigit", "isalpha",
                      "isalnum", "isspace", "isupper", "islower", "isnumeric", "isdecimal", "isidentifier",
                      "raise_for_status", "close", "aclose"}
# Path expressions built only from these stay inside the repository (a prompt file next to the
# module), so their content is the developer's own text.
PATH_BUILDERS = {"Path", "pathlib.Path", "pathlib.PurePath", "os.path.join", "os.path.dirname", "os.path.abspath",
                  "os.path.realpath", "os.path.expanduser", "os.path.normpath", "str", "os.fspath",
                  "importlib.resources.files", "importlib_resources.files", "importlib.resources.path",
                  "pkg_resources.resource_filename", "os.getenv", "os.environ.get"}
# Calls that make a file's location out of their arguments: a path named by content is not content.
LOCATION_CALLS = {"pathlib.Path", "pathlib.PurePath", "pathlib.PurePosixPath", "os.path.join", "os.path.dirname",
                  "os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.expanduser"}
PATH_METHODS_STATIC = {"with_name", "with_suffix", "with_stem", "joinpath", "resolve", "absolute", "expanduser",
                        "parent", "parents", "format"}

# What a program's or a page's output is called: what an agent reads back after it runs code or
# fetches a page (a cut of it is made for a model even where no model call is seen).
# Of those, the names that can only be a process's streams or a fetched page's raw text (RAW_OUTPUT_NAMES,
# shared with the TypeScript front-end): `*output` is also what an agent or a model itself produced
# (`done_output`, `final_output`). (`outs, errs = proc.communicate()` is how the subprocess
# documentation names the streams.)
OUTPUT_NAMES = (*RAW_OUTPUT_NAMES, "*output", "output_*", "observation*")


def reads_output(node: ast.AST, names: tuple[str, ...] = OUTPUT_NAMES) -> bool:
    """Whether an expression reads a program's or a page's output (``result.stdout``,
    ``"\\n".join(outputs)``, ``page.inner_text``, ``result["raw_content"]``): a name, an
    attribute or a key in it is called so (one of ``names``)."""
    return any(words.matches(name.lower(), names) for n in walk(node) for name in _names(n))


def _names(node: ast.AST) -> tuple[str, ...]:
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        return (node.attr,)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return (node.slice.value,)
    return ()

# Truncation: `text[:4000]` cuts a string to a fixed length. A slice of a list (`history[-10:]`,
# `docs[:5]`) selects items instead; when the type is unknown, these names say it is a list.
LIST_NAMES = ("*_list", "history", "*_history", "history_*", "conversation", "scratchpad", "few_shot*",
              "*embedding", "*vector", "*_ids", "*_tokens", "tokens", "*logits")
STRING_NAMES = ("*text", "*_str", "*string", "*content", "*contents", "*body", "*html", "*markdown", "*page",
                 "*transcript", "*prompt", "*message", "*output", "*result", "*response", "*description",
                 "*summary", "*excerpt", "*doc", "*document", "*details", "*notes", "*news", "*status")


def prompt_name(name: str) -> bool:
    return words.prompt_name(name.lower(), NOT_PROMPT_NAMES)


def strong_prompt_name(name: str) -> bool:
    # (`system_message` is weak: operating-system messages use the name.)
    return words.matches(name.lower(), words.STRONG_PROMPT_NAMES)


def system_name(name: str) -> bool:
    """A prompt name that says its text is sent as the system (or developer) message; in
    Python, ``instructions`` does too."""
    return words.matches(name.lower(), (*words.SYSTEM_NAMES, "*instruction*"))


def token_name(name: str | None) -> bool:
    return name is not None and "token" in name.rsplit(".", 1)[-1].lower()


# Calls that show text to a person at a terminal and read the answer: a `prompt` passed to
# them is a question for a human, not text for a model.
HUMAN_PROMPTS = {
    "input", "getpass.getpass", "click.prompt", "click.confirm", "typer.prompt", "typer.confirm",
    "rich.prompt.Prompt.ask", "rich.prompt.Confirm.ask", "rich.prompt.IntPrompt.ask", "prompt_toolkit.prompt",
    "prompt_toolkit.PromptSession().prompt", "questionary.text", "questionary.confirm", "questionary.select",
    "questionary.password", "inquirer.prompt", "pwinput.pwinput",
}


# What a system prompt is called where it is passed on: `llm.ask(msg, system_msgs=[...])`,
# `complete(query, [SYSTEM_PROMPT])`; not `file_system` or `system_info`.
_SYSTEM_PROMPT = re.compile(r"^system$|^(?:.*_)?system_(?:prompts?|messages?|msgs?|instructions?|content|text)$")
# A call named for building a prompt or messages (`render(...)`, `build_messages(...)`): what it
# returns is built from its arguments, a system prompt among them.
_BUILDS = re.compile(r"(?:^|_)(?:build|make|format|render|compose|construct|assemble|prepare)(?:_|$)")


def hands_a_system_prompt(call: ast.Call) -> bool:
    """Whether a call is handed a system prompt: it asks a model, and what it gives back is the
    model's answer, not a copy of the text it was shown. A class (`Agent(model, instructions=system)`)
    is configured, not asked: the object it builds keeps what it was given; so is a call named for
    building the prompt (`render("qa", system_prompt=SYSTEM, page=page)`)."""
    func = call.func
    callee = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if callee[:1].isupper() or _BUILDS.search(callee.lower()):
        return False
    passed = [k.arg for k in call.keywords if k.arg is not None]
    for value in [*call.args, *(k.value for k in call.keywords)]:
        for item in value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]:
            name = item.attr if isinstance(item, ast.Attribute) else item.id if isinstance(item, ast.Name) else None
            passed += [name] if name is not None else []
    return any(_SYSTEM_PROMPT.match(name.lower()) for name in passed)


# Methods of an object named for a model that send it a prompt (``self.llm.aask(text)``).
MODEL_ASKS = frozenset({"aask", "ask", "invoke", "ainvoke", "generate", "agenerate", "chat", "achat", "complete",
                        "acomplete", "predict", "apredict", "run", "arun", "call", "acall", "stream", "astream",
                        "completion", "acompletion"})
# The cheap text test for such a call: a module whose only model is an object named for one,
# which the rest of the analysis skips, is still read for a set's order reaching it (orderprompts.py).
ASKS_NAMED_MODEL = re.compile(r"(?<![^\W_])llm\s*\.\s*(?:" + "|".join(sorted(MODEL_ASKS)) + r")\s*\(", re.IGNORECASE)
