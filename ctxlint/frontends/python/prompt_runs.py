"""Where a module runs a Dotprompt it loads by name, and what settings each run gives.

Genkit loads a prompt file by its name (``security = ai.prompt("analyze_security")``, the file
``prompts/analyze_security.prompt``) and runs it by calling what it returns (``await
security(input=code)``, ``security.stream(...)``); a run may add settings (``config={...}``) to
those of the file's front matter. Whether any run gives an output limit decides whether the file's
own lack of one matters: a prompt every run of which the code shows, none giving a limit, answers
without one.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from ctxlint.frontends.code.runs import LIMIT, NO_LIMIT, RUN_METHODS, UNKNOWN, Run
from ctxlint.providers import LIMIT_KEYS

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer


def prompt_runs(analyzer: Analyzer, names_prompt: Callable[[str], bool], variant: str | None) -> list[Run]:
    """The runs in ``analyzer``'s module of a prompt that ``ai.prompt(name)`` loads, for the names
    ``names_prompt`` accepts, of the file of ``variant`` (``ai.prompt("recipe", variant="robot")``
    loads ``recipe.robot.prompt``)."""
    unit = analyzer.unit
    parents = unit.parents
    runs: list[Run] = []
    reads: Counter[str | None] | None = None  # the names the module reads, counted once for every loader
    for literal, text in unit.strings:
        loader = parents.get(id(literal))
        if not (isinstance(loader, ast.Call) and loader.args and loader.args[0] is literal
                and isinstance(loader.func, ast.Attribute) and loader.func.attr == "prompt"
                and names_prompt(text)):
            continue
        chosen = next((k.value for k in loader.keywords if k.arg == "variant"), None)
        if (chosen.value if isinstance(chosen, ast.Constant) else chosen) != variant:
            continue  # another variant's file (or one chosen where the code does not show)
        given = _limit(loader, skip=1)
        if given != NO_LIMIT:  # settings at the load apply to every run
            runs.append(Run(unit.span(loader), ast.unparse(loader), given))
        loaded: ast.AST = loader
        holder = parents.get(id(loader))
        while isinstance(holder, ast.Await):
            loaded, holder = holder, parents.get(id(holder))
        if isinstance(holder, ast.Attribute) and holder.attr in RUN_METHODS:  # `ai.prompt("x").stream(...)`
            loaded, holder = holder, parents.get(id(holder))
        if isinstance(holder, ast.Call) and holder.func is loaded:  # `ai.prompt("x")(input=...)`
            runs.append(Run(unit.span(holder), ast.unparse(holder), _limit(holder, skip=1)))
            continue
        targets = holder.targets if isinstance(holder, ast.Assign) else [holder.target] \
            if isinstance(holder, ast.AnnAssign) else []
        held = {unit.dotted(t) for t in targets} - {None}
        if not held:
            runs.append(Run(unit.span(loader), ast.unparse(loader), UNKNOWN))  # passed on: its runs are elsewhere
            continue
        found = 0
        for call, _ in unit.calls:
            func = call.func
            if unit.dotted(func) in held or (isinstance(func, ast.Attribute) and func.attr in RUN_METHODS
                                             and unit.dotted(func.value) in held):
                found += 1
                runs.append(Run(unit.span(call), ast.unparse(call), _limit(call, skip=1)))
        # Each run reads the name once; any other read passes the prompt on (`helper(review)`).
        if reads is None:
            reads = Counter(unit.dotted(node) for node in ast.walk(unit.tree)
                            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load))
        if sum(reads[name] for name in held) > found:
            runs.append(Run(unit.span(loader), ast.unparse(loader), UNKNOWN))
    return runs


def _limit(call: ast.Call, skip: int) -> str:
    """What a call's settings say of the output limit: ``config`` with a limit, ``config`` without
    one (or none given), or settings the code does not show (``**options``, a config built
    elsewhere, arguments past the ``skip`` the prompt's own take)."""
    if len(call.args) > skip or any(k.arg is None for k in call.keywords):
        return UNKNOWN
    config = next((k.value for k in call.keywords if k.arg == "config"), None)
    if config is None:
        return NO_LIMIT
    if isinstance(config, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) else None for k in config.keys]
        return LIMIT if any(k in LIMIT_KEYS for k in keys) else UNKNOWN if None in keys else NO_LIMIT
    if isinstance(config, ast.Call):  # GenerationCommonConfig(max_output_tokens=...)
        if config.args or any(k.arg is None for k in config.keywords):
            return UNKNOWN
        return LIMIT if any(k.arg in LIMIT_KEYS for k in config.keywords) else NO_LIMIT
    return UNKNOWN
