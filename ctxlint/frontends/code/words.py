"""Names and words that decide what a value is, the same in Python and in TypeScript.

Each front-end brings a name to one form before matching (Python lower-cases it, TypeScript
also splits camelCase: ``systemPrompt`` is ``system_prompt``) and may add words of its own
language (``*_cls`` in Python, ``use_*`` hooks in React).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fnmatch import translate
from functools import lru_cache

PROMPT_NAMES = ("*prompt*", "*instruction*", "*template*", "*system_message*", "*system_msg*")
# Names that hold something about a prompt, not its text.
NOT_PROMPT_NAMES = ("*_path", "*_dir", "*_file", "*_filename", "*_name", "*_id", "*_key", "*_url", "*_tokens",
                    "*_len", "*_length", "*_version", "*_count", "*_type", "*_loader", "*_map", "*_registry")
# Names that only LLM prompts carry; weaker ones (`template`, a bare `prompt`, `instructions`)
# also name HTML templates, script stubs and command-line prompts, so they count only in a
# module that shows some other sign of talking to a model.
STRONG_PROMPT_NAMES = ("*system_prompt*", "*user_prompt*", "*prompt_template*", "*few_shot*")
# What a prompt's worked examples are called (few-shot demonstrations): the project's own
# illustrations, of which a model expects no complete set.
EXAMPLE_NAMES = ("*example*", "*few_shot*", "*fewshot*", "*demonstration*", "*exemplar*", "shots", "*_shots")
# A prompt name that says its text is sent as the system (or developer) message.
SYSTEM_NAMES = ("*system*", "*developer*", "*persona*", "*preamble*")
# Configuration names a path may be built from and stay the repository's own.
CONFIG_NAMES = ("*prompt*", "*template*", "*instruction*", "*system*", "*persona*")
# Words in a path that say its files come from outside (a download, an upload, a scratch folder;
# not a template: `tmpl_name`, `templates_dir`).
UPLOAD_WORDS = re.compile(r"upload|download|inbox|attachment|incoming|user_?files|tmp(?!l)|temp(?!lat)", re.IGNORECASE)

# Executing a tool in an agent loop: `run_tool(...)`, `call_tools(...)`, `execute_function_call(...)`.
TOOL_RUNNER_WORDS = (r"(?:^|_)(?:call|run|execute|exec|invoke|dispatch|handle|perform|use)_(?:tool|function)s?"
                     r"(?:_calls?)?$")
TOOL_RUNNERS = re.compile(TOOL_RUNNER_WORDS)
# What holds the functions a tool call is dispatched to: `tools[name](...)`, `handlers[name](...)`.
# A table named for tools may say what it maps them by (`tool_execution_map`, `tool_name_dict`).
TOOL_HOLDERS = re.compile(r"(?:^|_)(?:tools?|functions?|handlers?|tools?_(?:[a-z]+_)?(?:map|registry|table|dict))$",
                          re.IGNORECASE)

# Fetching a web page in a call the code does not show: `fetch_web_contents(urls)`,
# `scraper.scrape(url)`, `download_html(link)`. Only verbs of fetching with objects of the web:
# `get_page` pages through an API and `get_url` gives an address, not a page's text.
WEB_FETCHERS = re.compile(r"^_*(?:scrape|crawl)(?:_|$)"
                          r"|(?:^|_)(?:fetch|download|browse|read|load|get)_(?:web_?(?:pages?|sites?|contents?)"
                          r"|websites?|html|page_(?:contents?|texts?|html))(?:_(?:contents?|texts?))?$"
                          r"|(?:^|_)(?:fetch|download|browse|scrape|crawl)_urls?(?:_(?:contents?|texts?))?$")

# Searching a vector store in a call the code does not show: `performSimilaritySearch(...)`,
# `vector_search(query)`, `semanticSearch(q)`. What it returns is retrieved text, not the operator's.
SIMILARITY_SEARCHERS = re.compile(r"(?:^|_)(?:similarity|semantic|vector|embedding)_search(?:_|$)")

# Names of a model's window or a token budget: a share of one (`context_length / 4`,
# `this.contextLength / 4`) is a part of the window, not characters turned into tokens.
WINDOW_WORDS = ("context", "window", "ctx", "token")


def names_context_window(code: str) -> bool:
    """Code that names a model's context window as a size (``self.max_context_length``,
    ``llm.contextLength / 4``, ``MAX_CONTEXT_LEN``, ``context_window``): a text cut to it, or to a
    share of it, is fitted to what a model reads. A chunk's or a page's size is not one."""
    words = re.sub(r"[^a-z0-9]", "", code.lower())
    return "context" in words and any(w in words for w in ("length", "len", "window", "size"))


# What a process printed or a page holds, raw (`result.stdout`, `page.inner_text`, `result["raw_content"]`,
# `innerText` read as `inner_text`): what an agent reads back, made for a model wherever it goes.
RAW_OUTPUT_NAMES = ("stdout", "stderr", "*_stdout", "*_stderr", "outs", "errs", "traceback", "raw_content",
                    "*page_content", "*webpage*", "inner_text", "*_html", "html", "scraped*")
MIN_CUT = 20  # `sha[:8]`, `name[:1]`: shortening an id or taking a prefix is not truncating text
# Text right after a cut that says something is missing (as CTX205's default markers), for cuts
# whose marker is part of the same value and so never becomes a segment of its own.
CUT_MARKERS = ("…", "...", "[truncated", "(truncated", "<truncated", "[cut", "[more", "[…]")


def matches(name: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``name`` matches one of the globs (case-sensitive, as ``fnmatchcase``)."""
    return _globs(patterns if isinstance(patterns, tuple) else tuple(patterns)).match(name) is not None


@lru_cache(maxsize=256)
def _globs(patterns: tuple[str, ...]) -> re.Pattern[str]:
    # All globs of a list as one regex: names are matched against lists of a dozen globs, one
    # fnmatchcase call (and cache look-up) per glob before.
    return re.compile("|".join(translate(p) for p in patterns) or "(?!)")


def prompt_name(name: str, not_names: tuple[str, ...] = NOT_PROMPT_NAMES) -> bool:
    """Whether a name (in the front-end's form) says it holds a prompt's text."""
    return matches(name, PROMPT_NAMES) and not matches(name, not_names)


def qualify(dotted: str | None, imports: Mapping[str, str]) -> str | None:
    """A dotted name with its first part resolved through the module's imports (``dt.now`` after
    ``import datetime as dt`` is ``datetime.now``)."""
    if not dotted:
        return None
    head, _, rest = dotted.partition(".")
    if head in imports:
        return imports[head] + ("." + rest if rest else "")
    return dotted


def cut_marker(text: str) -> bool:
    return text.lstrip().lower().startswith(CUT_MARKERS)


def prompt_path(path: str) -> bool:
    """A module kept where prompts live (``prompts.py``, ``prompts/``, ``llm/``)."""
    parts = re.split(r"[\\/]", path.lower())
    stems = [p.rsplit(".", 1)[0] for p in parts[-3:]]
    return any("prompt" in p or p in ("llm", "llms") for p in stems)


# Collections whose items come ranked (search results, retrieved documents and chunks): keeping
# the best that fit a budget is selection, and a model does not expect the complete set.
RANKED = re.compile(r"result|hits\b|webpage|snippet|\bdocs\b|documents|chunks|passages|candidates|matches",
                    re.IGNORECASE)
# The same read word by word, so a qualified name (``docs_temp``, ``group_docs``, ``chunk_ids``,
# ``retrieved_docs``) is ranked like the bare one; a collection named as ranked (``rankedMemories``,
# ``reranked``) says so itself.
RANKED_WORDS = {"doc", "docs", "document", "documents", "chunk", "chunks", "passage", "passages", "snippet",
                "snippets", "hits", "candidates", "matches", "retrieved", "ranked", "reranked"}


def is_ranked(code: str) -> bool:
    """Whether the code names a collection of ranked items (search results, retrieved documents)."""
    words = re.sub(r"([a-z])([A-Z])", r"\1_\2", code).lower()
    return bool(RANKED.search(code)) or not RANKED_WORDS.isdisjoint(re.split(r"[^a-z]+", words))
