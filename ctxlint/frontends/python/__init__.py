"""Python modules that build prompts or call LLM APIs, read with CPython's `ast`: never imported or run.

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
mentions no LLM API, prompt name or token estimate is skipped before it is even parsed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxlint.frontends.python.prefilter import (
    generated,
    interesting,
    might_hold_prompts,
    precheck,
    template_tag,
    too_deep,
)
from ctxlint.model import ParsedFile, Span

if TYPE_CHECKING:
    from ctxlint.frontends import ParseContext

__all__ = ["might_hold_prompts", "parse_file"]


def parse_file(text: str, path: str, context: ParseContext | None = None) -> ParsedFile:
    from ctxlint.frameworks import cached_frameworks

    parsed = ParsedFile(path)
    catalogue = (cached_frameworks(context.framework_files, context.builtin_frameworks) if context is not None
                 else cached_frameworks())
    if not might_hold_prompts(text, catalogue.library_pattern()):
        return parsed
    header = generated(text)
    if header is not None:
        parsed.notices.append(f"skipped: generated code (its header says \"{header}\")")
        return parsed
    problem, tree = precheck(text, path, check_depth=False)
    if problem is not None:
        tag = template_tag(text, problem[0].line)
        if tag is not None:
            parsed.notices.append(f"skipped: a template that renders to Python (`{tag}` at line {problem[0].line}"
                                  " is not Python); lint the generated project instead")
        else:
            parsed.errors.append(problem)
        return parsed
    if tree is None or not interesting(tree, path, catalogue.roots()):
        return parsed
    problem = too_deep(tree, path)  # only a module the analysis will follow needs the bound
    if problem is not None:
        parsed.errors.append(problem)
        return parsed

    from ctxlint.frontends.python.analyzer import Analyzer  # imported here: a template run never loads it

    project = file = None
    if context is not None:
        from ctxlint.frontends.python.project import project_for

        project = project_for(context.root, catalogue)
        project.begin()
        file = (context.root / context.relpath).resolve()
    try:
        analyzer = Analyzer(tree, text, path, catalogue, project, file)
        analyzer.run(parsed)
    except RecursionError:
        parsed.requests.clear()
        parsed.observations.clear()
        parsed.errors.append((Span.point(path, 1), "the module nests too deeply to analyse"))
        return parsed
    if analyzer.unit.exhausted:
        parsed.notices.append(f"stopped following values after {analyzer.unit.max_steps:,} steps; "
                              "findings that need more of this module's data flow may be missing")
    return parsed
