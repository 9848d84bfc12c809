"""Python modules that build prompts or call LLM APIs, read with CPython's `ast`: never imported or run.

What the front-end finds in a module:

* **Call sites** -- the sinks of the framework catalogue (``ctxlint/frameworks/``, one YAML
  file per SDK or agent framework: OpenAI, Anthropic, LiteLLM, LangChain, Pydantic AI ...),
  matched by call path -- become requests with their tools, system text, messages, model and
  output limit, including what the agents and chat models they are given carry.
* **Prompt text** is followed through string literals, f-strings, ``.format``, ``%``, ``+``,
  ``join``, ``textwrap.dedent``, names, functions (every return), ``+=`` and list appends, and
  through imports into the other modules of the linted tree (``project.py``). Static text keeps
  the span where it is written; each interpolated value is a slot spanning its field, with the
  facts of the value it holds: the names it reads, the calls it makes (resolved through the
  imports: ``datetime.datetime.now``), which of them run once per process, and what data flow
  shows about it (``json.dumps`` without sorted keys, a collection iterated in no fixed order,
  third-party content from a source of the catalogue -- an HTTP body, a file from a path that
  is not the repository's own, an upload, an e-mail, a tool's result -- and text cut to a fixed
  length). A tool result known only by a function's name is weak evidence.
* **Prompt constants**, prompt-building functions, message lists, agents, templates and DSPy
  signatures that no call site sends become requests of their own, so prompt modules are
  checked too.
* **Tools** (MCP ``Tool(...)``, ``@mcp.tool()`` and the catalogue's tool decorators) become one
  request per server or agent they are registered on.
* ``len(text) / 4``-style **token estimates** become observations, unless the function counts
  with a tokenizer too.

A module that names no catalogue library, LLM call, prompt name or token estimate is skipped
before it is parsed; generated code (a "Code generated" header) is skipped with a notice.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ctxlint.frontends.python.fieldreads import returns_set_copy
from ctxlint.frontends.python.knowledge import ASKS_NAMED_MODEL
from ctxlint.frontends.python.named import main_block, named_functions, program_module
from ctxlint.frontends.python.prefilter import (
    cuts_a_walk,
    generated,
    interesting,
    might_hold_prompts,
    precheck,
    reads_listed_files,
    registers_tools,
    template_tag,
    too_deep,
)
from ctxlint.frontends.python.rolemaps import tool_roles_as_system
from ctxlint.frontends.python.shellcuts import PIPED_CUT
from ctxlint.frontends.python.wholenames import returns_cut_whole
from ctxlint.model import ParsedFile, Span

if TYPE_CHECKING:
    from pathlib import Path

    from ctxlint.frontends import ParseContext
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.project import Project

__all__ = ["might_hold_prompts", "parse_file"]


def parse_file(text: str, path: str, context: ParseContext | None = None) -> ParsedFile:
    from ctxlint.frameworks import cached_frameworks

    parsed = ParsedFile(path)
    catalogue = (cached_frameworks(context.framework_files, context.builtin_frameworks) if context is not None
                 else cached_frameworks())
    if not might_hold_prompts(text, catalogue.library_patterns()):
        return parsed
    header = generated(text)
    if header is not None:
        parsed.notices.append(f"skipped: generated code (its header says \"{header}\")")
        return parsed
    checked = precheck(text, path, check_depth=False)
    problem, tree, text = checked.problem, checked.tree, checked.text
    if problem is not None:
        tag = template_tag(text, problem[0].line)
        if tag is not None:
            parsed.notices.append(f"skipped: a template that renders to Python (`{tag}` at line {problem[0].line}"
                                  " is not Python); lint the generated project instead")
        elif checked.newer:
            # Not a finding: the module may be valid for the Python its project targets.
            parsed.notices.append(f"skipped: line {problem[0].line} uses syntax Python "
                                  f"{sys.version_info.major}.{sys.version_info.minor} cannot read ({problem[1]}); "
                                  "run ctxlint on the project's Python to lint this module")
        else:
            parsed.errors.append(problem)
        return parsed
    if tree is None:
        return parsed
    # A role map is evidence of its own, whatever else the module holds (rolemaps.py).
    role_maps = tool_roles_as_system(tree, text, path)
    # A module of none of the libraries the analysis models, that registers tools with a
    # framework's registry, is read for those tools alone: the other rules know nothing of it.
    tools_only = not interesting(tree, path, catalogue.roots_for(text), catalogue.request_chains)
    project = file = None
    if context is not None:
        from ctxlint.frontends.python.layercalls import calls_llm_layer
        from ctxlint.frontends.python.project import project_for

        project = project_for(context.root, catalogue, _load_module, context.not_shipped)
        file = (context.root / context.relpath).resolve()
        # ... unless it reaches a model through the project's own LLM layer
        tools_only = tools_only and not project.imports_llm_layer(tree, text, file) \
            and not calls_llm_layer(project, tree, text, file)
    # ... and a cut returned by a function named for the whole text is read as any cut (wholenames.py)
    tools_only = tools_only and not returns_cut_whole(text)
    registries = catalogue.tool_registries.last_names()
    # ... and for a set's order reaching an object named for a model (`self.llm.aask(prompt)`),
    # the one request such a module shows (orderprompts.py).
    # ... or for files a listing gives, read into text its callers in other modules may send.
    # ... or a list made of a set it returns, which a caller in another module may put in a prompt.
    asks_named_model = tools_only and (ASKS_NAMED_MODEL.search(text) is not None or reads_listed_files(text)
                                       or returns_set_copy(text))
    # A decorator's fixed name is in the text: the cheap test first, the walk only when it may pass.
    # ... or for a command whose output it cuts, which a tool of the project may return (shellcuts.py).
    # ... or for a walk of a folder it leaves on a count, whose result a tool of the project may return (walkcuts.py).
    if tools_only and not asks_named_model and not PIPED_CUT.search(text) and not cuts_a_walk(text) and not (
            (registries.globs or any(n in text for n in registries)) and registers_tools(tree, registries)):
        parsed.observations.extend(role_maps)
        return parsed
    problem = too_deep(tree, path)  # only a module the analysis will follow needs the bound
    if problem is not None:
        parsed.errors.append(problem)
        return parsed

    from ctxlint.frontends.python.analyzer import Analyzer  # here: a template run never loads it
    from ctxlint.frontends.python.project import MAX_MODULES
    from ctxlint.frontends.python.unit import MAX_LOOKUPS

    if project is not None:
        project.begin()
    analyzer = Analyzer(tree, text, path, catalogue, project, file)
    try:
        if tools_only:
            analyzer.run_registered(parsed, orders=asks_named_model)
        else:
            analyzer.run(parsed)
    except RecursionError:
        parsed.requests.clear()
        parsed.observations.clear()
        parsed.errors.append((Span.point(path, 1), "the module nests too deeply to analyse"))
        return parsed
    finally:
        exhausted, max_steps = analyzer.unit.exhausted, analyzer.unit.max_steps
        analyzer.close()  # freed now, not by a full collection of the cyclic collector
    parsed.observations.extend(role_maps)
    if parsed.requests or parsed.observations:  # what a finding can be drawn from
        parsed.named_functions.extend(named_functions(tree))
        # A module of a package is imported by the application; its main block runs only by hand.
        if file is not None and (file.parent / "__init__.py").is_file():
            parsed.run_by_hand = main_block(tree)
        parsed.program = program_module(tree)
    if exhausted:
        parsed.notices.append(f"stopped following values after {max_steps:,} steps; "
                              "findings that need more of this module's data flow may be missing")
    if project is not None and project.lookups > MAX_LOOKUPS:
        parsed.notices.append(f"stopped looking up names in other modules after {MAX_LOOKUPS:,} lookups; "
                              "findings that need values defined there may be missing")
    if project is not None and project.refused:
        parsed.notices.append(f"stopped reading other modules of the project after {MAX_MODULES}; findings that "
                              "need functions or values defined in more may be missing")
    return parsed


def _load_module(project: Project, path: Path) -> Analyzer | None:
    """The project's reader of another module: the analysis, imported only when a module is read
    (a run whose Python files hold nothing to analyse never loads it)."""
    from ctxlint.frontends.python.analyzer import load_module

    return load_module(project, path)
