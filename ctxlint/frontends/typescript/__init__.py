"""TypeScript and JavaScript modules that build prompts, call LLM APIs or define tools.

Parsed with tree-sitter (the ``tree-sitter-typescript`` and ``tree-sitter-javascript``
grammars), never executed. What the front-end reads (see ``analyzer.py``):

* **Call sites** of the sinks of the framework catalogue's ``typescript:`` sections
  (``ctxlint/frameworks/typescript.py``): the OpenAI SDK (``chat.completions.create``,
  ``responses.create``), the Anthropic SDK (``messages.create``/``stream``) and the Vercel AI SDK
  (``generateText``, ``streamText``, ``generateObject``, ``streamObject``). Tools, system text,
  messages, model and output limit become a request, read where the provider's API shape
  (``ctxlint/providers.py``) puts them.
* **Prompt text** through string and template literals, ``+``, ``concat``, ``join``, ``trim``,
  ``dedent`` tags, the module's constants and simple functions; every ``${...}`` that is not a
  known constant is a slot with the names and calls it reads.
* **LangChain.js** templates (``ChatPromptTemplate.fromMessages``, ``PromptTemplate.fromTemplate``),
  whose ``{name}`` fields are slots.
* **Tools**: MCP servers (``server.tool(...)``, ``server.registerTool(...)``), AI SDK ``tool({...})``
  and object literals in the OpenAI, Anthropic or MCP shape; zod schemas are converted to the
  JSON Schema the SDK sends (an estimate: see ``zod.py``).
* **Untrusted content**: HTTP responses (``fetch(...).text()``, axios ``.data``), files read
  from paths that are not the repository's own, request bodies in route handlers, retriever
  results and tool results, followed through the module to the prompt that shows them.

A file that mentions no LLM API, tool or prompt word is passed over before tree-sitter is even
imported: most JavaScript in a repository is not prompt code. tree-sitter recovers from syntax
errors (and the grammar may lag behind the newest TypeScript syntax), so a syntax error is
reported only when the statement it breaks is prompt code; elsewhere the module is still read.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ctxlint.frameworks import Catalogue, cached_frameworks
from ctxlint.frontends.typescript import syntax
from ctxlint.frontends.typescript.knowledge import MAX_DEPTH, RAW_CUT
from ctxlint.frontends.typescript.named import named_functions
from ctxlint.frontends.typescript.values import TooDeep
from ctxlint.model import ParsedFile, Span
from ctxlint.providers import API_SHAPES

if TYPE_CHECKING:
    from ctxlint.frontends import ParseContext

# What makes a module worth parsing besides the framework catalogue's packages and calls
# (TypeScriptCatalogue.mentions): prompt words and names, a system message, messages and roles, a
# tool's input schema, a `length / 4` estimate; a tool's `execute` that runs tasks with `Promise.all`;
# a loop kept to a budget in tokens.
_MARKERS_CI = re.compile(r"prompt|instruction", re.IGNORECASE)
_MARKERS_CS = re.compile(r"inputSchema|input_schema|SYSTEM|\.messages\."
                         r"|\brole\b['\"]?\s*:\s*['\"](?:system|user|developer)|\.length\s*/\s*[3-5]\b")

# A tool, or a function that runs the model's tool calls (`run(call.name, call.arguments)`), whose
# tasks run with `Promise.all` (completion_order.py): what it returns is the model's to read.
_CONCURRENT_TOOL = re.compile(r"\bexecute\s*:|\.name\s*,\s*\w+\.(?:arguments|args|input)\b")

# A loop that stops adding items once a budget in tokens is spent, or drops them until the text fits
# (budget_loops.py): a test of a count of tokens beside a `break`, a `continue` or a `while`; a module
# that calls no model keeps them for one.
_TOKEN_TEST = re.compile(r"[tT]okens\w*\s*[<>]=?|[<>]=?\s*(?:this\.)?\w*[tT]okens\b")
_LOOP_EXITS = re.compile(r"\b(?:break|continue|while)\b")
# A length divided by a constant (`text.length / CHARS_PER_TOKEN`, `Tokenizer.DIVISOR`) in a module
# that speaks of tokens: the `length / 4` estimate through a name (estimates.py).
_LENGTH_OVER_NAME = re.compile(r"\.length\s*/\s*[A-Za-z_][\w.]*")
# The first elements of an array a page script collected (`actions.slice(0, 150)`, page_items.py).
_FIRST_ITEMS = re.compile(r"\w\.slice\(\s*0\s*,\s*\d{2}")


# The keys of the turns a chat request posted over HTTP carries (every posted API shape's `messages`),
# with its model (or Gemini's settings, the model being in the URL: providers.chat_payload) and a
# call that posts (`fetch(`, `.post(`): a module that may post one (posted.py).
_CHAT_TURNS = re.compile(r"\b(?:" + "|".join(sorted({k for s in API_SHAPES.values() if s.posted for k in s.messages}))
                         + r")\b")
_CHAT_MODEL = re.compile(r"\bmodel\b|\bgenerationConfig\b")
# An import from a module of the tree (a relative path or the usual aliases of the project's root):
# with a chat request's keys, a module that may hand the body to a function of the tree that posts
# it (``TogetherAIStream(payload)``, posted.py).
_TREE_IMPORT = re.compile(r"""\b(?:from|require\()\s*["'](?:\.{1,2}/|@/|~/)""")

# What makes a statement prompt code: a call the catalogue knows (its mentions), a tool's input
# schema, a prompt or a message.
_PROMPT_CODE = re.compile(r"inputSchema|input_schema|prompt|instruction|\brole\b['\"]?\s*:", re.IGNORECASE)


def might_hold_prompts(text: str, catalogue: Catalogue | None = None) -> bool:
    """A regex-level test, run before tree-sitter is loaded: prompt words, or what the framework
    catalogue (the shipped one unless given) knows of TypeScript packages."""
    if _MARKERS_CS.search(text) or _MARKERS_CI.search(text):
        return True
    if "Promise.all" in text and _CONCURRENT_TOOL.search(text):
        return True
    if _TOKEN_TEST.search(text) and _LOOP_EXITS.search(text):
        return True
    if "oken" in text and _LENGTH_OVER_NAME.search(text):
        return True
    if RAW_CUT.search(text):  # a page's raw text or a process's stream cut (page_cuts.py)
        return True
    if "document." in text and ".push(" in text and _FIRST_ITEMS.search(text):  # a page's elements cut (page_items.py)
        return True
    knowledge = (catalogue if catalogue is not None else cached_frameworks()).typescript
    if knowledge.posting is not None and _CHAT_TURNS.search(text) and _CHAT_MODEL.search(text) \
            and (knowledge.posting.search(text) or _TREE_IMPORT.search(text)):
        return True
    return bool(knowledge.mentions.search(text))


def parse_file(text: str, path: str, context: ParseContext | None = None) -> ParsedFile:
    parsed = ParsedFile(path)
    catalogue = (cached_frameworks(context.framework_files, context.builtin_frameworks) if context is not None
                 else cached_frameworks())
    root = str(context.root) if context is not None else ""
    if not might_hold_prompts(text, catalogue) and not _returns_rendered_items(text, root):
        return parsed
    grammar = syntax.GRAMMARS.get(PurePosixPath(path).suffix.lower(), "typescript")
    return parse_source(text, path, grammar, parsed, catalogue, root)


def _returns_rendered_items(text: str, root: str) -> bool:
    """Whether the module returns items of a type another module of the tree renders into text
    (rendered_parts.py): it builds part of a prompt with no prompt word in it."""
    if not root or "[]" not in text:
        return False
    from ctxlint.frontends.typescript.rendered_parts import rendered_types  # reads the tree: only past the text test

    return bool(rendered_types(root, text))


def parse_source(text: str, path: str, grammar: str, parsed: ParsedFile, catalogue: Catalogue | None = None,
                 root_dir: str = "") -> ParsedFile:
    """Analyse ``text`` as a module of ``grammar`` into ``parsed`` (notebooks call this too), with
    what the framework catalogue (the shipped one unless given) says of TypeScript packages."""
    from ctxlint.frontends.typescript.analyzer import Analyzer  # imported here: its parts are read only for prompt code

    source = syntax.Text(text, path)
    root = syntax.parse(grammar, source.data)
    if root is not None and root.has_error and grammar == "javascript":
        # The JavaScript grammar lags the TSX one on JSX that Babel and tsc accept
        # (`<Skeleton.default />`); TSX reads JavaScript too, so a module it reads whole is read so.
        retried = syntax.parse("tsx", source.data)
        if retried is not None and not retried.has_error:
            root, grammar = retried, "tsx"
    if root is None:
        parsed.notices.append(syntax.unparsable(len(source.data)))
        return parsed
    bad, deep = syntax.first_error(root, MAX_DEPTH) if root.has_error else (None, False)
    if bad is not None and deep:  # the analysis would refuse the nesting too
        parsed.errors.append((Span.point(path, *source.position(bad.start_byte)), _too_deep()))
        return parsed
    if bad is not None and _in_type_syntax(bad, MAX_DEPTH):
        # Type syntax is what the grammar lags behind the language in (`<in out T>`), and it carries
        # no prompt text: a notice, and the module is read, never an error on code tsc accepts.
        line, _ = source.position(bad.start_byte)
        parsed.notices.append(f"line {line}: the TypeScript grammar does not read `{_excerpt(source.code(bad))}` "
                              "in a type (syntax newer than the grammar, or a typo tsc reports); the rest of the "
                              "module is read")
        bad = None
    statement = _statement(bad, MAX_DEPTH) if bad is not None else None
    knowledge = (catalogue if catalogue is not None else cached_frameworks()).typescript
    if bad is not None and statement is not None and (
            _PROMPT_CODE.search(code := source.code(statement)) or knowledge.mentions.search(code)):
        # tree-sitter recovers from errors, so the rest of a module is still read; but a broken
        # statement that is prompt code would be misread, so it is reported instead, and the module
        # is not analysed at all (on a large broken module that is most of the work).
        line, column = source.position(bad.start_byte)
        what = f"missing `{bad.type}`" if bad.is_missing else f"unexpected `{_excerpt(source.code(bad))}`"
        parsed.errors.append((Span.point(path, line, column), f"invalid syntax: {what}"))
        return parsed
    analyzer = Analyzer(root, source, knowledge, grammar, root_dir=root_dir)
    try:
        analyzer.run(parsed)
    except TooDeep as too_deep:
        parsed.requests.clear()
        parsed.observations.clear()
        parsed.errors.append((Span.point(path, *source.position(too_deep.node.start_byte)), _too_deep()))
    except RecursionError:
        parsed.requests.clear()
        parsed.observations.clear()
        parsed.errors.append((Span.point(path, 1), "the module nests too deeply to analyse"))
    finally:
        analyzer.release()
    if parsed.requests or parsed.observations:  # what a finding can be drawn from
        parsed.named_functions.extend(named_functions(root, source))
    return parsed


def _too_deep() -> str:
    return f"the module nests more than {MAX_DEPTH} levels deep; ctxlint does not read it"


def _statement(node, levels: int):
    """The innermost statement or declaration around ``node`` (what a syntax error breaks), or None
    when it is more than ``levels`` levels up: a node finds its parent by walking down from the
    root, so climbing 10,000 nested brackets took seconds (the analysis refuses such nesting)."""
    current, parent = node, node.parent
    for _ in range(levels):
        if parent is None or parent.type == "program" or (
                current is not node and current.type.endswith(("statement", "declaration"))
                and current.type != "expression_statement"):
            return current
        current, parent = parent, parent.parent
    return None


# Syntax of types and type parameters, which holds no values.
_TYPE_SYNTAX = frozenset({"type_parameters", "type_arguments", "type_annotation", "type_alias_declaration",
                          "interface_declaration", "constraint", "default_type", "type_predicate_annotation",
                          "asserts_annotation", "opting_type_annotation", "omitting_type_annotation",
                          "adding_type_annotation", "implements_clause", "extends_type_clause", "index_signature"})


def _in_type_syntax(node, levels: int) -> bool:
    """Whether ``node`` (an error) lies inside a type, within ``levels`` levels up."""
    current = node.parent
    for _ in range(levels):
        if current is None or current.type in ("program", "statement_block", "class_body"):
            return False
        if current.type in _TYPE_SYNTAX or current.type.endswith("_type"):
            return True
        current = current.parent
    return False


def _excerpt(code: str) -> str:
    code = " ".join(code.split())
    return code if len(code) <= 30 else code[:27] + "..."
