"""Dotprompt files linked to the code that loads them by name and runs them (Genkit's
``ai.prompt("name")``): whether any run gives the output limit the front matter does not."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ctxlint.frontends.code.runs import LIMIT, NO_LIMIT, Run
from ctxlint.frontends.rendered import MAX_MODULES, linking_project, module_index, script_index
from ctxlint.model import Evidence, EvidenceKind, OutputLimit, ParsedFile
from ctxlint.results import real_directory

if TYPE_CHECKING:
    from ctxlint.frontends import ParseContext


def runs_linked(parsed: ParsedFile, context: ParseContext) -> ParsedFile:
    """A Dotprompt with no output limit in its front matter, linked to the code that loads it by
    name and runs it (``python/prompt_runs.py``, ``typescript/prompt_runs.py``) in the folder its
    prompts folder is in: when some run gives a limit, the prompt has one; when the code shows
    every run and none gives a limit, the runs are the evidence that it is sent without one."""
    unset = {id(r) for r in parsed.requests if r.declares_settings and r.output_limit is None and not r.reserve_kind}
    if not unset:
        return parsed
    template = PurePosixPath(context.relpath)
    root = real_directory(context.root)
    name, _, variant = template.stem.partition(".")  # `recipe.robot.prompt`: the variant `robot` of `recipe`
    key, home = f"{name}.prompt".lower(), root / template.parent.parent
    modules = [m for m in module_index(context.root).get(key, []) if m.resolve().is_relative_to(home)]
    scripts = [m for m in script_index(context.root).get(key, []) if m.resolve().is_relative_to(home)]
    if not modules and not scripts:
        return parsed
    runs: list[Run] = []
    if modules:
        from ctxlint.frontends.python.prompt_runs import prompt_runs

        project = linking_project(context)
        for module in modules[:MAX_MODULES]:
            analyzer = project.analyzer(module)
            found = prompt_runs(analyzer, lambda literal: literal.strip() == name, variant or None) \
                if analyzer is not None else []
            if found:
                runs += found
                parsed.dependencies.append(str(module))
    if scripts:
        from ctxlint.frontends.python.project import display_path
        from ctxlint.frontends.typescript import prompt_runs as script_runs

        for module in scripts[:MAX_MODULES]:
            found = script_runs.prompt_runs(display_path(module), name, variant or None)
            if found:
                runs += found
                parsed.dependencies.append(str(module))
    if not runs:
        return parsed
    given = next((run for run in runs if run.limit == LIMIT), None)
    if given is not None:
        limit = OutputLimit("config.maxOutputTokens (given where the prompt is run)", None, given.span)
        parsed.requests = [replace(r, output_limit=limit) if id(r) in unset else r for r in parsed.requests]
    elif all(run.limit == NO_LIMIT for run in runs):
        steps = tuple(Evidence(EvidenceKind.FLOW, f"`{_short(run.code)}` runs it with no output limit", run.span)
                      for run in runs)
        parsed.requests = [replace(r, reserve_kind="runs-without", reserve_evidence=steps) if id(r) in unset else r
                           for r in parsed.requests]
    return parsed


def _short(code: str) -> str:
    line = code.split("\n", 1)[0]
    return line if len(line) <= 60 and line == code else line[:57].rstrip() + "..."
