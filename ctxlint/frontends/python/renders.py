"""Where a module renders a template file, and the facts of the values it passes.

A render site is found from the string literal that names the template (``"answer.j2"``,
``"prompts/chat.prompty"``, a Dotprompt's ``"summarise"``), in the shapes code loads and fills
templates with:

- chained: ``env.get_template("answer.j2").render(page=page)``,
  ``PromptTemplate.from_file("qa.txt").format(context=docs)``,
  ``Template(Path("answer.j2").read_text()).render(**values)``;
- through a name: ``template = env.get_template("answer.j2")`` and later
  ``template.render(...)``, ``template.invoke({...})`` or ``prompty.execute(template, inputs={...})``;
- in one call with the values: ``prompty.execute("chat.prompty", inputs={...})``, a project
  helper ``render_template("answer.j2", **values)`` (its other arguments are the values, whatever
  the helper does with them: a helper that renders the file it is given passes them on).

The values are keyword arguments, a dict passed positionally (``.invoke({...})``), ``**values``
and ``inputs=``/``variables=`` dicts, read with the module's own data flow (``Flow.dict_entries``,
``Flow.facts``), so a value's source is found however far the module's code carries it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxlint.frontends.code.pieces import Facts
from ctxlint.frontends.python.values import Env
from ctxlint.model import Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer

# Methods that fill a loaded template with values (Jinja, LangChain, Prompty, Dotprompt).
RENDER_METHODS = frozenset({"render", "render_async", "generate", "format", "format_messages", "format_prompt",
                            "invoke", "ainvoke", "stream", "astream", "batch", "execute", "prepare", "run"})
# Keywords whose dict holds the template's variables rather than being one of them.
VALUE_DICTS = frozenset({"inputs", "input", "variables", "template_vars", "values", "kwargs", "params"})
# The most render sites read for one template, and the wrappers climbed from its name.
MAX_SITES = 16
_MAX_CLIMB = 6


@dataclass(frozen=True)
class Value:
    """One value passed to a template variable at a render site."""

    key: str
    span: Span  # where the value is written
    facts: Facts
    text: str | None  # the value when it is literal text the project wrote


@dataclass(frozen=True)
class Site:
    """A place that renders the template, and what it passes."""

    span: Span
    values: tuple[Value, ...]


def render_sites(analyzer: Analyzer, names_template: Callable[[str], bool]) -> list[Site]:
    """The render sites in ``analyzer``'s module of a template that a string literal names when
    ``names_template(literal)`` says so."""
    return _Finder(analyzer).sites(names_template)


class _Finder:
    def __init__(self, analyzer: Analyzer) -> None:
        self.m = analyzer.unit
        self.flow, self.containers = analyzer.flow, analyzer.containers

    def sites(self, names_template: Callable[[str], bool]) -> list[Site]:
        unit = self.m
        scopes = {id(call): scope for call, scope in unit.calls}
        parents: dict[int, ast.AST] = {}
        literals = []
        for node in ast.walk(unit.tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and names_template(node.value):
                literals.append(node)
        found: list[Site] = []
        for literal in literals:
            for call in self._render_calls(literal, parents):
                scope = scopes.get(id(call))
                if scope is None:
                    continue
                values = tuple(self._values(call, Env(scope), literal))
                if values:
                    found.append(Site(unit.span(call), values))
                if len(found) >= MAX_SITES:
                    return found
        return found

    def _render_calls(self, node: ast.AST, parents: dict[int, ast.AST], depth: int = 0) -> list[ast.Call]:
        """The calls that fill the template ``node`` names or holds: the call that takes it,
        the calls on what that returns (directly or through the name it is assigned to), and
        the same for a name the template's file name itself is assigned to."""
        calls: list[ast.Call] = []
        current = node
        for _ in range(_MAX_CLIMB):
            parent = parents.get(id(current))
            if isinstance(parent, ast.Call) and current is not parent.func:
                current = parent  # the loader, or a wrapper: `Template(open(...).read())`
                calls.append(parent)
            elif isinstance(parent, ast.Attribute) and isinstance(parents.get(id(parent)), ast.Call):
                current = parents[id(parent)]  # `get_template(...).render(...)`, `.read_text()`
                calls.append(current)  # type: ignore[arg-type]
            elif isinstance(parent, (ast.Await, ast.keyword)):
                current = parent
            elif isinstance(parent, (ast.Assign, ast.AnnAssign)) and depth < 2:
                for use in self._uses(parent):
                    calls += [use, *self._render_calls(use, parents, depth + 1)]
                break
            else:
                break
        return calls

    def _uses(self, assign: ast.Assign | ast.AnnAssign) -> list[ast.Call]:
        """Calls on, or taking, the name a loaded template is assigned to."""
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        held = {self.m.dotted(t) for t in targets} - {None}
        if not held:
            return []
        uses = []
        for call, _ in self.m.calls:
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in RENDER_METHODS and self.m.dotted(func.value) in held:
                uses.append(call)
            elif self.m.dotted(func) in held or any(self.m.dotted(a) in held for a in call.args):
                uses.append(call)  # `template(...)`, `prompty.execute(template, inputs=...)`
        return uses

    def _values(self, call: ast.Call, env: Env, literal: ast.Constant):
        flow, containers = self.flow, self.containers
        entries: list[tuple[str, ast.expr, Env]] = []
        for keyword in call.keywords:
            if keyword.arg is None or keyword.arg in VALUE_DICTS:
                found = containers.dict_entries(keyword.value, env)
                if found is not None:
                    entries += [(key, value, value_env) for key, (value, value_env, _) in found.items()]
                    continue
            if keyword.arg is not None:
                entries.append((keyword.arg, keyword.value, env))
        for argument in call.args:
            if argument is literal or isinstance(argument, ast.Starred):
                continue
            found = containers.dict_entries(argument, env)
            if found is not None:
                entries += [(key, value, value_env) for key, (value, value_env, _) in found.items()]
        for key, value, value_env in entries:
            text = flow.literal_str(value, value_env)
            facts = Facts() if text is not None else flow.facts(value, value_env)
            yield Value(key, self.m.span(value), facts, text)
