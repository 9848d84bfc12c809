"""The cheap tests run before the analysis: can a module hold anything the front-end reads,
and does CPython's parser accept it within the depth the analysis follows?"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Collection
from dataclasses import dataclass

from ctxlint.frontends.code.words import prompt_path
from ctxlint.frontends.python.compat import downlevel
from ctxlint.frontends.python.fieldreads import copies_set, hands_field_copy, stores_set_copy
from ctxlint.frontends.python.flaggedcuts import MARKED_CUT, head_bound, marks_cut
from ctxlint.frontends.python.knowledge import (
    ASKS_NAMED_MODEL,
    RAW_OUTPUT_NAMES,
    prompt_name,
    reads_output,
    strong_prompt_name,
    tool_shaped,
)
from ctxlint.frontends.python.linecuts import line_cut
from ctxlint.frontends.python.literals import written_scale
from ctxlint.frontends.python.nodes import LEAVES, children, drop_unreachable, walk
from ctxlint.frontends.python.nodes import chain as attribute_chain
from ctxlint.frontends.python.shellcuts import PIPED_CUT
from ctxlint.frontends.python.unreadlimits import settings_limit_fields
from ctxlint.frontends.python.wholenames import returns_cut_whole
from ctxlint.model import Span

# The cheap test: a module that mentions none of these holds no prompt ctxlint can read.

_MARKERS_CI = re.compile(
    r"openai|anthropic|litellm|chat\.completions|responses\.create|prompt|instruction|template"
    r"|system_message|system_msg",
    re.IGNORECASE,
)
_MARKERS_CS = re.compile(r"SYSTEM|mcp|\bTool\(|\.tool\b|messages\s*=|\.messages\.|[\"']role[\"']"
                         # a chat message of the project's own class (`UserMessage(content=...)`)
                         r"|Message\((?:[^()]*,)?\s*(?:content|role)\s*="
                         # a stored row with a stated role, which the project may replay as a message
                         r"|\brole\s*=\s*[\"'](?:system|user|assistant|developer)[\"']"
                         # tool definitions: a schema key, OpenAI's wrapper, Gemini's declarations
                         r"|input_?[sS]chema|parameters_json_schema|args_schema|[\"']function[\"']\s*:|FunctionDeclaration"
                         # a description cut where a tool or its schema is built (descriptioncuts.py)
                         r"|[\"']description[\"']\s*:[^\n]*\[\s*:"
                         # a conversation's length tested, to trim it (trimdrops.py)
                         r"|\blen\(\w+\.messages\)")
_LEN = re.compile(r"\blen\(|token\w*\s*\*\s*\w|\b\d\s*\*\s*\w*token", re.IGNORECASE)
_TOKEN = re.compile(r"token", re.IGNORECASE)
# A text split to a number of tokens (`split_by_tokens(text, n)`, `TokenSplitter(chunk_size=n)`), whose
# first piece may be all that is kept (firstparts.py).
_TOKEN_SPLIT = re.compile(r"(?:split|chunk)\w*token|token\w*(?:split|chunk)", re.IGNORECASE)
# A slice of a program's or a page's output (`result.stdout)[:LIMIT]`, `inner_text[:4000]`): what an
# agent reads back, cut (cutsites.py).
_OUTPUT_CUT = re.compile(r"(?:stdout|stderr|output|observation|raw_content|inner_text|webpage|html)\w*\)?\s*"
                         r"\[\s*-?\s*:?\s*-?\w", re.IGNORECASE)
# A process's streams handed to a function of one argument (`_tail(result.stdout)`): a helper that
# may cut what an agent reads back (the parse then asks whether the module defines it and slices).
_OUTPUT_HELPER = re.compile(r"\b(?!print\b)[A-Za-z_]\w*\(\s*\w+(?:\.\w+)*\.(?:stdout|stderr)\s*\)")
# A directory listing whose files the module reads: text it returns in the file system's order,
# which its callers in other modules may put in a prompt (orderprompts.py).
_LISTING = re.compile(r"\bos\.(?:walk|listdir|scandir)\(|\bglob\.i?glob\(|\.(?:r?glob|iterdir)\(")
_READ = re.compile(r"\.read(?:_text)?\(")
# A result that says it was cut (`"truncated": ...`), beside which an unflagged cut is told apart
# (flaggedcuts.py).
_FLAG = re.compile(r"[\"']truncated[\"']\s*:")
# Every line of a text cut to a width (`line[:100] for line in text.splitlines()`): linecuts.py.
_LINE_CUT = re.compile(r"\[\s*:\s*\d+\s*\]\s+for\s+\w+\s+in\s+[^\n]*\.split(?:lines)?\(")
# A field of a settings class named as an output limit (`reduce_max_tokens: int = 800`): one the
# project may never read (unreadlimits.py).
_LIMIT_FIELD_LINE = re.compile(r"^[ \t]+\w*max_\w*tokens[ \t]*:", re.MULTILINE)
_SETTINGS_CLASS = re.compile(r"^class \w+\([^)]*\b(?:BaseModel|BaseSettings)\b|^@[\w.]*\bdataclass\b",
                             re.MULTILINE)
# The same patterns without IGNORECASE, for an ASCII text lower-cased once: there lower-casing is
# exact (the patterns' letters are all lower case), and the regex engine searches several times
# faster than case-insensitively.
_FOLDED = {pattern: re.compile(pattern.pattern) for pattern in (_MARKERS_CI, _LEN, _TOKEN, _OUTPUT_CUT, _TOKEN_SPLIT)}


def might_hold_prompts(text: str, libraries: tuple[re.Pattern[str], ...] = ()) -> bool:
    """A regex-level test, run before parsing: can this module hold anything we read? A module
    that names a library of the framework catalogue or calls a sink's shape (one of the
    ``libraries`` patterns finds it) may."""
    folded = text.lower() if text.isascii() else None

    def found(pattern: re.Pattern[str]) -> bool:
        return bool(pattern.search(text) if folded is None else _FOLDED[pattern].search(folded))

    if found(_MARKERS_CI) or any(pattern.search(text) for pattern in libraries) or _MARKERS_CS.search(text) \
            or ASKS_NAMED_MODEL.search(text) or (_LIMIT_FIELD_LINE.search(text) and _SETTINGS_CLASS.search(text)):
        return True
    token = found(_TOKEN)  # a token split says "token" too: asked only where the word is
    return (token and (found(_LEN) or found(_TOKEN_SPLIT))) or found(_OUTPUT_CUT) \
        or bool(_LINE_CUT.search(text)) \
        or bool(_LISTING.search(text) and (_READ.search(text) or _COUNTED.search(text))) \
        or bool(_FLAG.search(text) and found(_LEN)) \
        or bool(MARKED_CUT.search(text)) or bool(_OUTPUT_HELPER.search(text)) or bool(PIPED_CUT.search(text)) \
        or copies_set(text) \
        or returns_cut_whole(text)


def reads_listed_files(text: str) -> bool:
    """Whether a module lists a directory and reads files: text in the file system's order."""
    return bool(_LISTING.search(text) and _READ.search(text))


# A length compared with a bound (`if len(matches) >= max_results:`).
_COUNTED = re.compile(r"\blen\(\s*\w+\s*\)\s*(?:>=|>|==)")


def cuts_a_walk(text: str) -> bool:
    """Whether a module lists a directory and compares a length with a bound: a walk it may leave
    once a list holds enough entries, which then come in the file system's order (walkcuts.py)."""
    return bool(_LISTING.search(text) and _COUNTED.search(text))


# A header that says a tool wrote the module (protobuf, OpenAPI and AutoRest clients, ORMs):
# such modules hold no prompt a person writes, and can be megabytes long.
_GENERATED = re.compile(
    r"code generated|auto-?generated|autogenerated|do not edit|generated by the protocol buffer compiler"
    r"|# autorest|generated by (?:openapi|swagger|datamodel-codegen|sqlacodegen|the protocol)",
    re.IGNORECASE,
)
_HEADER_CHARS = 2_000
_HEADER_LINES = 15


# ... and a `<placeholder>` glued to a name (`def test_<area>_offloads(...)`), of a file to copy and adapt.
_TEMPLATE_TAG = re.compile(r"\{\{-?\s*[\w.]+|\{%-?\s*\w+|\w*(?:\w<[a-z][a-z0-9_]*>|<[a-z][a-z0-9_]*>\w)\w*")


def template_tag(text: str, line: int) -> str | None:
    """A Jinja tag or a ``<placeholder>`` in a name on ``line`` (where CPython stopped), or a
    cookiecutter variable anywhere: the file is a template that renders to Python (a cookiecutter
    tree, a file to copy and fill in), not Python itself."""
    cookiecutter = re.search(r"\{\{\s*cookiecutter\.\w+\s*\}\}", text)
    if cookiecutter:
        return cookiecutter.group(0)
    lines = text.split("\n", line)
    found = _TEMPLATE_TAG.search(lines[line - 1]) if 0 < line <= len(lines) else None
    return found.group(0) if found else None


def generated(text: str) -> str | None:
    """The words of a generated-code header, or None. Only the comment lines at the very top
    count: a docstring or a string that says "do not edit" (a prompt telling a model not to
    edit files, a module about auto-generated filenames) is the project's own code."""
    for line in text[:_HEADER_CHARS].split("\n")[:_HEADER_LINES]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return None
        match = _GENERATED.search(stripped)
        if match:
            return match.group(0)
    return None


# The deepest syntax tree (in ``ast`` levels) the analysis follows: it recurses through
# expressions, and real code stays far below this.
MAX_DEPTH = 200

Problem = tuple[Span, str]


# The most parts of a dotted name in an import that CPython's parser is handed. It reads such a
# name with a left-recursive rule whose memo grows with the square of its parts: an import of
# 10,000 parts takes it over 400 MB. Real module paths have a handful.
MAX_DOTTED_PARTS = 200
# An import statement's logical line (backslash continuations included), and its dotted names.
_IMPORT_LINE = re.compile(r"^[ \t]*(?:import|from)\b(?:[^\n\\]|\\.)*+", re.MULTILINE | re.DOTALL)
_DOTTED = re.compile(r"\w++(?:[\s\\]*+\.[\s\\]*+\w++)++")


def long_import(text: str, path: str) -> Problem | None:
    """A located error when an import names a module of more than ``MAX_DOTTED_PARTS`` parts."""
    if text.count(".") <= MAX_DOTTED_PARTS:
        return None
    for statement in _IMPORT_LINE.finditer(text):
        if statement.group().count(".") <= MAX_DOTTED_PARTS:
            continue
        for name in _DOTTED.finditer(statement.group()):
            parts = name.group().count(".") + 1
            if parts > MAX_DOTTED_PARTS:
                start = statement.start() + name.start()
                line = text.count("\n", 0, start) + 1
                column = start - text.rfind("\n", 0, start)
                return (Span.point(path, line, column),
                        f"the import names a module of {parts:,} parts; "
                        f"ctxlint reads module names of up to {MAX_DOTTED_PARTS} parts")
    return None


@dataclass(frozen=True)
class Checked:
    """What :func:`precheck` found: the tree and the text it was parsed from (rewritten, with
    every character at its place, where the module uses syntax newer than the running Python),
    or the problem that stopped it. ``newer`` says the problem may be syntax of a newer Python
    rather than a broken module."""

    problem: Problem | None
    tree: ast.Module | None
    text: str
    newer: bool = False


def precheck(text: str, path: str, check_depth: bool = True) -> Checked:
    """Parse with CPython's own parser (nothing is executed).

    Syntax newer than the running Python that is only a spelling its parser lacks (PEP 695 type
    parameters, PEP 701 f-strings, t-strings, ``except A, B:``) is rewritten first
    (``compat.py``); what is left is a located error. Without ``check_depth`` the caller runs
    :func:`too_deep` itself, once it knows the module is worth analysing.
    """
    problem = long_import(text, path)
    if problem is not None:
        return Checked(problem, None, text)
    tree: ast.Module | None
    try:
        tree = parse_module(text, path)
    except PieceTooLong as error:
        return Checked((Span.point(path, error.line), str(error)), None, text)
    except SyntaxError as error:
        rewritten = downlevel(text)
        if rewritten is not None:
            try:
                tree = parse_module(rewritten, path)
            except (SyntaxError, PieceTooLong) as again:
                error = again if isinstance(again, SyntaxError) else error
                tree = None
        else:
            tree = None
        if tree is None:
            where = Span.point(path, error.lineno or 1, max(error.offset or 1, 1))
            # An f-string error left after the rewrite may be 3.12 syntax it does not cover.
            newer = sys.version_info < (3, 12) and (error.msg or "").startswith("f-string")
            return Checked((where, syntax_message(error.msg)), None, text, newer)
        assert rewritten is not None
        text = rewritten
    except (RecursionError, MemoryError):
        return Checked((Span.point(path, 1), f"the module nests too deeply to parse (more than {MAX_DEPTH} levels)"),
                       None, text)
    except ValueError as error:  # null bytes
        return Checked((Span.point(path, 1), f"cannot parse: {error}"), None, text)
    problem = too_deep(tree, path) if check_depth else None
    if problem is not None:
        return Checked(problem, None, text)
    drop_unreachable(tree)
    return Checked(None, tree, text)


# A module longer than this is parsed in pieces of about this many characters.
PIECE_CHARS = 64_000
# Where a piece may start: a line that begins a statement at the module's top level (letters
# at column 0), except the clauses that continue the statement before it.
_PIECE_START = re.compile(r"^(?=[A-Za-z_])(?!(?:else|elif|except|finally)\b)", re.MULTILINE)
# Errors that may come from the end of a piece rather than from the code: what the rest of the
# module would have closed.
_OPEN_AT_END = ("never closed", "unterminated", "unexpected EOF", "EOF while")

# The most tokens handed to CPython's parser at once. Its memory grows with the tokens it parses
# (about 750 bytes each when it reports a syntax error, for its second, explaining pass), and a
# piece cannot be shorter than one top-level statement. The longest statement of the development
# corpus has about 50,000 tokens (a class of 500 KB).
MAX_PIECE_TOKENS = 150_000
# Python's tokens, roughly: a string literal (any quotes, any prefix) or a comment counts one, as
# does a word or a punctuation character. Possessive: an unclosed quote costs no backtracking.
_ROUGH_TOKEN = re.compile(
    r"""[rRbBuUfF]{0,2}(?:'''(?:[^'\\]|\\.|'(?!''))*+'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*+\"\"\""""
    r"""|'(?:[^'\\\n]|\\.)*+'|"(?:[^"\\\n]|\\.)*+")|\#[^\n]*+|\w++|[^\w\s]""",
    re.DOTALL,
)


class PieceTooLong(Exception):
    """Code too long to hand to CPython's parser at once, with nowhere to split it."""

    def __init__(self, line: int, last_line: int, tokens: int) -> None:
        super().__init__(f"lines {line:,}-{last_line:,} hold about {tokens:,} tokens without a top-level "
                         f"statement boundary; ctxlint parses at most {MAX_PIECE_TOKENS:,} tokens at a time")
        self.line = line


def parse_module(text: str, path: str) -> ast.Module:
    """``ast.parse(text)``, a long module in pieces of about ``PIECE_CHARS`` characters.

    CPython's parser keeps every token and memoised rule of its input until it returns, and on a
    syntax error parses it all a second time to explain the error, so one megabyte of short
    statements with an error at the end peaks at over 150 MB. Parsed piece by piece, each piece
    of top-level statements (padded with blank lines, so that lines keep their numbers) costs
    only its own share. A piece that fails where the rest of the module might have continued it
    (a string or bracket still open at its end) is parsed again, twice as long, until it parses
    or the error is its own; a piece that parses starts the next one at a statement boundary, so
    the tree and any error are those of the whole module. A piece of more than
    ``MAX_PIECE_TOKENS`` tokens is not parsed at all: :class:`PieceTooLong`."""
    if len(text) <= PIECE_CHARS:
        return ast.parse(text, filename=path)
    module: ast.Module | None = None
    start = lines = 0
    while start < len(text):
        end = _piece_end(text, start + PIECE_CHARS)
        while True:
            try:
                piece = _parse_piece(text, start, end, lines, path)
                break
            except SyntaxError as error:
                if end == len(text) or not _open_at_end(error, lines + text.count("\n", start, end)):
                    raise
                end = _piece_end(text, start + 2 * (end - start))
        if module is None:
            module = piece
        else:
            module.body.extend(piece.body)
            module.type_ignores.extend(piece.type_ignores)
        lines += text.count("\n", start, end)
        start = end
    assert module is not None
    return module


def _piece_end(text: str, at: int) -> int:
    """Where a piece meant to reach ``at`` ends: the next statement boundary from there, or the
    end of the module. A short tail joins the piece before it: an error at the end of a long
    last statement would otherwise have that statement parsed twice (alone, then with the tail)."""
    found = _PIECE_START.search(text, at) if at < len(text) else None
    return found.start() if found is not None and len(text) - found.start() > PIECE_CHARS // 4 else len(text)


def _parse_piece(text: str, start: int, end: int, lines: int, path: str) -> ast.Module:
    if end - start > MAX_PIECE_TOKENS:  # else it cannot hold that many: a token has a character
        tokens = sum(1 for _ in _ROUGH_TOKEN.finditer(text, start, end))
        if tokens > MAX_PIECE_TOKENS:
            last_line = lines + text.count("\n", start, end - 1) + 1
            raise PieceTooLong(lines + 1, last_line, tokens)
    return ast.parse("\n" * lines + text[start:end], filename=path)


def _open_at_end(error: SyntaxError, last_line: int) -> bool:
    """Whether a piece's syntax error may be the piece's end cutting a statement short (an
    error on its last line, or something left open), not an error of the module's own."""
    message = error.msg or ""
    return (error.lineno or 0) >= last_line or any(words in message for words in _OPEN_AT_END)


def too_deep(tree: ast.Module, path: str) -> Problem | None:
    """A located error when the tree nests deeper than the analysis follows, else None."""
    deepest, deepest_node = _ast_depth(tree)
    if deepest <= MAX_DEPTH:
        return None
    line = getattr(deepest_node, "lineno", 1)
    column = getattr(deepest_node, "col_offset", 0) + 1
    return (Span.point(path, line, column),
            f"the module nests {deepest} levels deep; ctxlint reads Python up to {MAX_DEPTH} levels")


def registers_tools(tree: ast.Module, names: Collection[str]) -> bool:
    """Whether a function or class of the module has a decorator of one of these last names
    (a framework's tool registry: ``@register_tool(...)``)."""
    for node in walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                chain = attribute_chain(decorator.func if isinstance(decorator, ast.Call) else decorator)
                if chain and chain[-1] in names:
                    return True
    return False


def _trims_messages(node: ast.If) -> bool:
    """``if len(x.messages) > n: x.trim(3, 2)``: a conversation trimmed at an index by a method."""
    test = node.test
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name)
            and test.left.func.id == "len" and len(test.left.args) == 1 and isinstance(test.left.args[0], ast.Attribute)
            and test.left.args[0].attr == "messages" and isinstance(test.left.args[0].value, ast.Name)):
        return False
    holder = test.left.args[0].value.id
    return any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
               and isinstance(s.value.func.value, ast.Name) and s.value.func.value.id == holder
               and len(s.value.args) == 2 and all(isinstance(a, ast.Constant) and type(a.value) is int
                                                  for a in s.value.args) for s in node.body)


def interesting(tree: ast.Module, path: str = "", roots: frozenset[str] = frozenset(),
                shapes: frozenset[tuple[str, ...]] = frozenset()) -> bool:
    """Whether a parsed module has anything the front-end reads: an import of a library of the
    framework catalogue (``roots``), a call of a sink's shape (``shapes``: the fixed trailing names
    of ``*.chat.completions.create``) or of LiteLLM's, a tool, a role/content dict, a prompt
    name (a weak one only where an LLM library is imported or the path says prompts), or a
    ``len(x) / 4``-shaped expression or a loop that stops at a token budget in a module that
    mentions tokens."""
    def imports_library(node: ast.Import | ast.ImportFrom) -> bool:
        if isinstance(node, ast.ImportFrom) and node.level:
            return False
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] + [
            f"{node.module}.{a.name}" for a in node.names if node.module]  # from google import genai
        return any(m.split(".")[0] in roots or ".".join(m.split(".")[:2]) in roots for m in modules)

    if any(isinstance(n, (ast.Import, ast.ImportFrom)) and imports_library(n) for n in tree.body):
        return True
    if any(isinstance(n, ast.ClassDef) and settings_limit_fields(n) for n in tree.body):
        return True
    tokens = estimate = weak = renders = sliced = choices = settings_render = listing = marked = bare = False
    streamed: set[str] = set()  # functions given a process's streams or a page's raw text (`_tail(result.stdout)`)
    defined: set[str] = set()
    by_last: dict[str, list[tuple[str, ...]]] = {}  # every call is tested: only the shapes ending in its name
    for shape in shapes:
        by_last.setdefault(shape[-1], []).append(shape)
    for node in walk(tree):
        if isinstance(node, ast.Assign) and stores_set_copy(node):
            return True  # `context.state.matches = list(set(...))`, read back by other modules: fieldreads.py
        if isinstance(node, ast.Call):
            chain = attribute_chain(node.func)
            if chain and (chain[-1] in ("completion", "acompletion", "Tool") or any(
                    len(chain) > 1 and tuple(chain[-len(shape):]) == shape for shape in by_last.get(chain[-1], ()))):
                return True
            if chain and chain[-1] in ("import_module", "__import__") and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                    and imports_library(ast.Import([ast.alias(node.args[0].value)])):
                return True  # `importlib.import_module("ollama")`: a library imported by name
            if chain and chain[-1] == "join" and line_cut(node) is not None:
                return True  # every line of a text cut to a width (linecuts.py)
            if chain and chain[-1].endswith("Message") and (any(k.arg == "content" for k in node.keywords) or (
                    len(node.args) == 2 and isinstance(node.args[0], ast.Constant))):
                return True  # a project's own message: `UserMessage(content=...)`, `Message("system", out)`
            if chain and chain[-1][:1].isupper() and any(
                    k.arg == "role" and isinstance(k.value, ast.Constant) for k in node.keywords):
                return True  # a stored row with a stated role: `Feed(feed=out, role="system")` (messages.replayed_row)
            if hands_field_copy(node, chain):
                return True  # `Context(terms=list(state.terms))`, `self.matcher.analyze(terms=...)`: fieldreads.py
            if node.keywords and tool_shaped({k.arg for k in node.keywords if k.arg is not None}):
                return True  # a tool built by keywords: `ToolDefinition(name=..., parameters_json_schema=...)`
            # a prompt filled by keywords (`self._get_prompt("judge", context=text)`) or by a function
            # of a collection of prompts (`prompt_library.nodes.summarise(context)`; not a list of
            # prompts, `prompts.append(p)`): what a cut in the module may reach (cutreach.py)
            renders = renders or bool(chain and ((node.keywords and prompt_name(chain[-1])) or (
                node.args and len(chain) > 2 and any(prompt_name(part) for part in chain[:-1]))))
            # a directory listing or a set, and a template read from the settings (`env.from_string(...)`):
            # its order may reach the prompt rendered from it (orderprompts.py)
            settings_render = settings_render or bool(chain and chain[-1] == "from_string")
            listing = listing or (isinstance(node.func, ast.Attribute) and node.func.attr in _LISTING_CALLS) \
                or (isinstance(node.func, ast.Name) and node.func.id == "set")
            # a text split to a token limit, whose first piece may be all that is sent (firstparts.py):
            # `split_by_tokens(text, n)`, or a splitter class built for tokens (`TokenSplitter(chunk_size=n)`)
            last = chain[-1].lower() if chain else ""
            estimate = estimate or (("split" in last or "chunk" in last) and "token" in last)
            if len(node.args) == 1 and not node.keywords and isinstance(node.func, ast.Name) \
                    and reads_output(node.args[0], RAW_OUTPUT_NAMES):
                streamed.add(node.func.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(node.name)
            for decorator in node.decorator_list:
                chain = attribute_chain(decorator.func if isinstance(decorator, ast.Call) else decorator)
                if chain and chain[-1] in ("tool", "prompt"):
                    return True
            if prompt_name(node.name):
                if strong_prompt_name(node.name):
                    return True
                weak = True
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in walk(target):
                    name = (part.id if isinstance(part, ast.Name)
                            else part.attr if isinstance(part, ast.Attribute) else None)
                    if name and prompt_name(name):
                        if strong_prompt_name(name):
                            return True
                        weak = True
        elif isinstance(node, ast.ClassDef):
            fields = {t.id for s in node.body for t in (s.targets if isinstance(s, ast.Assign) else [s.target]
                                                        if isinstance(s, ast.AnnAssign) else [])
                      if isinstance(t, ast.Name)}
            if {"description", "args_schema"} <= fields:
                return True  # a tool class (LangChain's shape): what it returns is read back by an agent
        elif isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if "role" in keys or tool_shaped(keys) or "truncated" in keys:
                return True  # a result that says it was cut: its module's other results are read (flaggedcuts.py)
            if "description" in keys and ("type" in keys or "name" in keys) and any(
                    isinstance(k, ast.Constant) and k.value == "description" and isinstance(v, ast.Subscript)
                    and isinstance(v.slice, ast.Slice) for k, v in zip(node.keys, node.values, strict=True)):
                return True  # a description cut where a tool or its schema is built (descriptioncuts.py)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if imports_library(node):
                return True  # an import inside a function
        elif isinstance(node, (ast.Set, ast.SetComp)):
            listing = True  # a collection in no fixed order, as a listing is
        elif isinstance(node, ast.BinOp):
            estimate = estimate or _ast_estimate_shape(node)
            marked = marked or (isinstance(node.op, ast.Add) and head_bound(node.left) is not None
                                and marks_cut(node.right))
        elif isinstance(node, ast.Return):
            bare = bare or (node.value is not None and head_bound(node.value) is not None)
        elif isinstance(node, ast.If):
            if _trims_messages(node):
                return True  # a conversation trimmed at an index once it grows (trimdrops.py)
            estimate = estimate or _ast_budget_shape(node)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            if reads_output(node.value):
                return True  # a cut of what an agent reads back (cutsites.py)
            sliced = True
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Call):
            # allowed values computed for a schema (`Literal[tuple(options)]`): schemachoices.py
            choices = choices or (attribute_chain(node.value) or [""])[-1] == "Literal"
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
        # a cut marked on one path and returned bare on another (flaggedcuts.py)
        if (tokens and estimate) or (renders and (sliced or choices)) or (settings_render and listing) \
                or (marked and bare):
            return True
    # a function of the module that may cut what it is given, given a process's output (cutsites.py)
    return (weak and prompt_path(path)) or (sliced and bool(streamed & defined))


_LISTING_CALLS = frozenset({"listdir", "scandir", "walk", "glob", "iglob", "rglob", "iterdir"})


def _ast_estimate_shape(node) -> bool:
    """``len(x) / 4``, ``n_chars // 4``, ``len(x.split()) * 1.3``, ``max_tokens * 4``,
    ``len(text) // CHARS_PER_TOKEN``, ``120_000 * 3.5``: a count scaled by a small constant."""

    if not isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mult)):
        return False
    if written_scale(node) is not None:
        return True  # `120_000 * 3.5`: a token count written out in characters
    for number, other in ((node.right, node.left), (node.left, node.right)):
        if not (isinstance(number, ast.Constant) and isinstance(number.value, (int, float))
                and not isinstance(number.value, bool) and 0 < number.value <= 6) and not (
                isinstance(number, ast.Name) and "char" in number.id.lower()):
            continue
        while isinstance(other, ast.BinOp) and isinstance(other.op, ast.Add):
            other = other.left  # (len(a) + len(b)) // 4
        if isinstance(other, ast.Call):
            chain = attribute_chain(other.func)
            if chain and chain[-1] in ("len", "sum"):
                return True
        name = other.id if isinstance(other, ast.Name) else other.attr if isinstance(other, ast.Attribute) else ""
        if any(word in name.lower() for word in ("char", "len", "word", "token")):
            return True
    return False


def _ast_budget_shape(node: ast.If) -> bool:
    """``if used_tokens > budget: break`` (or ``continue``, skipping every later item): a loop that
    stops once a token budget is spent."""
    if not any(isinstance(s, (ast.Break, ast.Continue)) for s in (*node.body, *node.orelse)):
        return False
    return any("token" in (n.id if isinstance(n, ast.Name) else n.attr).lower()
               for n in walk(node.test) if isinstance(n, (ast.Name, ast.Attribute)))


def syntax_message(message: str) -> str:
    message = (message or "").strip()
    return "invalid syntax" if message in ("", "invalid syntax") else f"invalid syntax: {message}"


def _ast_depth(tree) -> tuple[int, object]:
    """How many levels the tree nests, and its deepest node, exact whenever that is over
    ``MAX_DEPTH`` (below it, only a lower bound). Names and constants, most of the nodes, are
    counted where they stand and never visited: they have no children. Nor is a node written on
    one line that could not reach the limit: no node nests more levels than it has characters
    (each level of an expression adds at least one: ``-``, ``.a``, ``()``, ``[``), so a short
    one-line expression, the bulk of any module, is skipped whole."""
    deepest, where = 0, tree
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest, where = depth, node
        for child in children(node):
            if type(child) in LEAVES:
                if depth + 1 > deepest:
                    deepest, where = depth + 1, child
                continue
            line = getattr(child, "lineno", None)
            if line is not None and line == getattr(child, "end_lineno", None):
                width = getattr(child, "end_col_offset", 0) - getattr(child, "col_offset", 0)
                if depth + width < MAX_DEPTH:
                    continue
            stack.append((child, depth + 1))
    return deepest, where


