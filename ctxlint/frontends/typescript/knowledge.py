"""What the front-end knows about the TypeScript and JavaScript language and runtime: syntax kinds,
globals, calls that only measure a value, paths that stay the repository's own, collections in no
fixed order, template tags; and its bounds.

What SDKs, frameworks and I/O libraries do is the framework catalogue's (the ``typescript:``
sections of ``frameworks/*.yaml``); the words TypeScript shares with Python (prompt names, tool
runners, cut markers) are in ``frontends/code/words.py``.
"""

from __future__ import annotations

import re
from typing import Any

from ctxlint.frontends.code import words

Node = Any  # tree_sitter.Node; the library is imported lazily, so it is not named in annotations

MAX_DEPTH = 400  # syntax-tree levels; deeper input is refused with a located error
MAX_RESOLVE = 40  # how deep name and function resolution may go
# Steps one module's analysis may spend following values to third-party sources: a long module
# that reassigns its names in many branches made the search try every path (millions of steps).
MAX_SOURCE_STEPS = 100_000
MAX_ANSWER_DEPTH = 32  # syntax steps from a value back to the request whose answer it is built from
MAX_CHAIN = 24  # property accesses, calls and awaits (`a.b[c].d()`) a value or a source is followed through
MAX_IMPORT_DEPTH = 2  # how many imports away constants are read from
# A name assigned more often than this in one scope is looked up by bisection: generated or
# repeated code assigns one name thousands of times, and every lookup scanned every assignment.
TIMELINE_FROM = 16

CHAINED = {"member_expression": "object", "subscript_expression": "object", "call_expression": "function",
           "await_expression": ""}  # the kinds a chain is made of, and the field that goes down it
FUNCTIONS = {"function_declaration", "function_expression", "arrow_function", "method_definition",
             "generator_function_declaration", "generator_function", "function"}
WRAPPERS = {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
            "type_assertion"}
LOOP_CALLBACKS = {"forEach", "map", "flatMap", "filter", "reduce", "some", "every", "find"}
GLOBALS = {"Math", "Date", "JSON", "Object", "Array", "String", "Number", "Boolean", "Promise", "console",
           "crypto", "process", "Symbol", "Reflect", "Intl", "undefined", "null", "true", "false", "this",
           "globalThis", "window", "document", "fs", "path", "Buffer", "performance"}

# Tags of template literals whose text is the text as written (`dedent`, common-tags, `String.raw`),
# and those of them that remove the common indentation.
TEMPLATE_TAGS = ("dedent", "raw", "outdent", "stripIndent", "stripIndents", "oneLine", "html", "md", "markdown",
                 "prompt", "endent")
DEDENT_TAGS = ("dedent", "outdent", "stripIndent", "endent")

# Properties, calls and methods that measure a value rather than pass its text on.
MEASURES = {"length", "size", "byteLength"}
MEASURING_CALLS = {"Boolean", "Number", "parseInt", "parseFloat", "Array.isArray", "isNaN", "Object.keys"}
MEASURING_METHODS = {"startsWith", "endsWith", "includes", "indexOf", "lastIndexOf", "test", "has", "some",
                     "every", "localeCompare", "charCodeAt", "codePointAt", "search"}
# Path expressions built only from these stay inside the repository (a prompt file next to the
# module), so their content is the developer's own text.
STATIC_PATH_CALLS = {"path.join", "path.resolve", "path.dirname", "path.basename", "node:path.join",
                     "node:path.resolve", "node:path.dirname", "fileURLToPath", "url.fileURLToPath",
                     "node:url.fileURLToPath", "process.cwd", "URL", "String"}
STATIC_PATH_NAMES = {"__dirname", "__filename", "import.meta.dirname", "import.meta.filename", "import.meta.url"}
# Listings in whatever order the file system gives. Not Node's `fs.readdir`/`readdirSync`: libuv's
# scandir sorts the names (strcmp), so they come back in one order everywhere (nodejs/node#3232); a
# `Dir` from `fs.opendir` streams them unsorted.
UNORDERED_CALLS = {"fs.opendirSync": "fs.opendirSync", "fs.opendir": "fs.opendir",
                   "fs.promises.opendir": "fs.promises.opendir", "fs/promises.opendir": "fs.opendir",
                   "node:fs.opendirSync": "fs.opendirSync", "node:fs/promises.opendir": "fs.opendir",
                   "glob.sync": "glob.sync", "glob.globSync": "globSync", "glob.glob": "glob",
                   "fast-glob": "fast-glob", "fast-glob.sync": "fast-glob", "globby.globby": "globby",
                   "globby.globbySync": "globby"}

# Names of UI and configuration objects that hold something about a prompt, not its text.
_NOT_PROMPT_NAMES = (*words.NOT_PROMPT_NAMES, "*_schema", "*_props", "*_component", "*_element", "*_ref", "*_input",
                     "*_button", "*_state", "set_*", "use_*", "*_options", "*_config")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake(name: str) -> str:
    """A name in the form the word lists are written in: ``systemPrompt`` is ``system_prompt``."""
    return _CAMEL.sub("_", name).lower()


def prompt_name(name: str) -> bool:
    return words.prompt_name(snake(name), _NOT_PROMPT_NAMES)


def strong_prompt_name(name: str) -> bool:
    return words.matches(snake(name), words.STRONG_PROMPT_NAMES)


def system_name(name: str) -> bool:
    """A name that says its text is the system message (`instructions` alone does not: in
    TypeScript it as often names text added to the user's turn)."""
    return words.matches(snake(name), words.SYSTEM_NAMES)


# A cut of a page's raw text, a fetched body or a process's stream as the code writes it
# (`el.innerText.slice(`, `result.stdout.substring(`, `(el.innerText || "").slice(`,
# `xhr.responseText.substring(`, `el.innerText?.trim().slice(`, `rawContent.slice(`): what makes a
# module worth reading for page_cuts.py, and a template string worth parsing as the script it holds.
# The names are page_cuts' (RAW_OUTPUT_NAMES, camel- or snake-cased, and the DOM's); between the name
# and the cut, only what page_cuts reads through: `?.`, `)`, a `|| ""` default, `.trim()`.
RAW_CUT = re.compile(r"(?i:innerText|textContent|outerHTML|innerHTML|responseText|std(?:out|err)|raw_?content"
                     r"|page_?content|webpage\w*|\w*html|scraped\w*|outs|errs|traceback)"
                     r"(?:\?|\)|\s*(?:\|\||\?\?)\s*(?:\"\"|''|``)\)|\??\.trim(?:Start|End)?\(\))*"
                     r"\??\.(?:slice|substring|substr)\(")
