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
  the helper does with them: a helper that renders the file it is given passes them on);
- a placeholder replaced in the loaded text, in the function that loads it:
  ``prompt = read_prompt("review.txt")`` then ``prompt = prompt.replace("{diff}", diff)``.

Where the function sends the rendered text as a message (``{"role": "system", "content":
prompt}``, there or in a function of the module that calls it and takes its return), the site
also says in which role: a bare template gets the role its code gives it.

The values are keyword arguments, a dict passed positionally (``.invoke({...})``), ``**values``
and ``inputs=``/``variables=`` dicts, read with the module's own data flow (``Flow.dict_entries``,
``Flow.facts``), so a value's source is found however far the module's code carries it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.frontends.code.pieces import Facts
from ctxlint.frontends.python.knowledge import UNSTABLE, prompt_name
from ctxlint.frontends.python.literals import keyed_fields
from ctxlint.frontends.python.nodes import enclosing
from ctxlint.frontends.python.values import Env
from ctxlint.model import Source, Span

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.containers import Containers
    from ctxlint.frontends.python.flow import Flow
    from ctxlint.frontends.python.scopes import Scopes
    from ctxlint.frontends.python.unit import Unit
    from ctxlint.frontends.python.values import Binding

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
    """A place that renders the template, and what it passes; ``role`` is the role of the message
    the function sends the rendered text in, when the code shows it (``{"role": "system",
    "content": prompt}``)."""

    span: Span
    values: tuple[Value, ...]
    role: str | None = None
    sent_at: Span | None = None  # the message that sends it in ``role``


def render_sites(analyzer: Analyzer, names_template: Callable[[str], bool], stem: str | None = None) -> list[Site]:
    """The render sites in ``analyzer``'s module of a template that a string literal names when
    ``names_template(literal)`` says so, or, given the template's ``stem``, that a call named for
    a prompt takes by that name alone as its first argument (``load_prompt("match-email", ...)``)."""
    finder = _Finder(analyzer.unit, analyzer.flow, analyzer.containers)
    finder.string_items = analyzer.order_prompts.string_items
    return finder.sites(names_template, stem)


def format_values(unit: Unit, flow: Flow, containers: Containers, scopes: Scopes, name: str,
                  template: ast.expr) -> dict[str, list[Value]]:
    """The values passed to the fields of the prompt constant ``name`` (whose text is
    ``template``, in ``unit``'s module) where code fills it with ``.format(...)`` or
    ``.format_map(...)``: in its own module, and in the project's modules that import it. Where
    every site shows the message it sends the text in, the module keeps that role for the
    constant (``Unit.format_roles``): the code's role, not the name's guess."""
    sites = format_sites(unit, flow, containers, scopes, name, template)
    sent = one_role(sites)
    if sent is not None:
        unit.format_roles[id(template)] = sent
    return values_by_key(sites)


def format_sites(unit: Unit, flow: Flow, containers: Containers, scopes: Scopes, name: str,
                 template: ast.expr) -> list[Site]:
    """The calls that fill the prompt constant ``name`` (see ``format_values``), each with the
    values it passes and the role of the message it sends the text in, where the code shows it."""
    here = (unit.file, template.lineno, template.col_offset)

    def holds(resolve: Callable[..., Binding | None], own: Path | None, receiver: ast.expr, env: Env) -> bool:
        binding = resolve(receiver, env, foreign=True)
        if binding is None:
            return False
        value = binding.value
        file = binding.owner.unit.file if binding.owner is not None else own
        return value is template or (file, getattr(value, "lineno", 0), getattr(value, "col_offset", 0)) == here

    sites: list[Site] = []
    if name in unit.format_receivers:
        sites += _format_sites(unit, _Finder(unit, flow, containers), name, partial(holds, scopes.resolve, unit.file))
    project = unit.project
    if project is not None and unit.file is not None:
        for path in project.formatters(name):
            if len(sites) >= MAX_SITES:
                break
            if path == unit.file:
                continue
            other = project.analyzer(path)
            if other is None:
                continue
            try:
                found = _format_sites(other.unit, _Finder(other.unit, other.flow, other.containers), name,
                                      partial(holds, other.scopes.resolve, other.unit.file))
            except RecursionError:  # a module too deep to follow: its sites are not read
                continue
            if found:
                sites += found
                unit.dependencies.add(other.unit.path)  # a change there changes this module's result
    if not sites:
        sites = _registered_sites(unit, flow, containers, scopes, name, template)
    return sites


def filled_elsewhere(unit: Unit, scopes: Scopes, func: ast.expr, env: Env) -> bool:
    """Whether ``func`` is ``PROMPT.format`` (or ``format_map``) of a text constant another module
    of the project defines under a prompt's name, filled here where that module finds it: it reads
    the constant as a prompt, each field with the facts of the values passed (``format_values``)."""
    if not (isinstance(func, ast.Attribute) and func.attr in ("format", "format_map")):
        return False
    node = func.value
    if isinstance(node, ast.Name):
        defined, written = unit.imports.get(node.id, "").rsplit(".", 1)[-1], node.id
    elif isinstance(node, ast.Attribute):
        defined = written = node.attr
    else:
        return False
    # That module finds a fill site only by the constant's own name, in the modules the project's
    # index lists for the name: under an alias, or in a module past the index's cap, it is not found.
    project = unit.project
    if defined != written or not prompt_name(defined) or project is None or unit.file is None \
            or unit.file not in project.formatters(defined):
        return False
    binding = scopes.resolve(node, env, foreign=True)
    return binding is not None and binding.owner is not None and isinstance(binding.value, ast.Constant) \
        and isinstance(binding.value.value, str)


# Methods that fill a prompt object built from a template text (LangChain's prompt templates).
FILL_METHODS = frozenset({"format", "format_map", "format_prompt", "format_messages", "invoke", "ainvoke"})


def _named_for_prompt(literal: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether a literal is the first argument of a call named for a prompt (``load_prompt(...)``,
    ``get_prompt(...)``): a loader of the project's own that finds the file by its name."""
    call = parents.get(id(literal))
    if not isinstance(call, ast.Call) or not call.args or call.args[0] is not literal:
        return False
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return "prompt" in name.lower()


def _registered_sites(unit: Unit, flow: Flow, containers: Containers, scopes: Scopes, name: str,
                      template: ast.expr) -> list[Site]:
    """The calls that fill a prompt object built from the text ``name`` holds
    (``PROMPT = ChatPromptTemplate.from_messages([SystemMessagePromptTemplate.from_template(name),
    ...])``): on the object's name in its module, or, when the object is kept in a registry at a
    named key (``registry[Names.KEY] = PROMPT``), on what a module reads at that key
    (``template = registry[Names.KEY]``, then ``template.format_prompt(**inputs)``)."""
    home = _function_of(template, unit.parents) or unit.tree
    holders = _holders(home, name, template)
    if not holders:
        return []
    keys = {(_last(unit.code(node.targets[0].value)), unit.code(node.targets[0].slice))
            for node in ast.walk(home) if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Subscript) and isinstance(node.value, ast.Name)
            and node.value.id in holders}

    def here(receiver: ast.expr, env: Env) -> bool:
        binding = scopes.resolve(receiver, env) if isinstance(receiver, ast.Name) else None
        return binding is not None and any(binding.value is value for value in holders.values())

    sites = _filled(unit, _Finder(unit, flow, containers), here, FILL_METHODS)
    project = unit.project
    if project is None or not keys:
        return sites
    for path in sorted({p for _, key in keys for p in project.key_readers(_last(key).strip("\"'"))}):
        if len(sites) >= MAX_SITES:
            break
        other = unit.analyzer if path == unit.file else project.analyzer(path)
        if other is None:
            continue
        reads = partial(_reads_registry, other.unit, other.scopes, keys)
        try:
            found = _filled(other.unit, _Finder(other.unit, other.flow, other.containers), reads, FILL_METHODS)
        except RecursionError:  # a module too deep to follow: its sites are not read
            continue
        if found:
            sites += found
            if other.unit is not unit:
                unit.dependencies.add(other.unit.path)  # a change there changes this module's result
    return sites


def _holders(home: ast.AST, name: str, template: ast.expr) -> dict[str, ast.expr]:
    """The names ``home`` assigns a prompt object built from the text ``name`` holds (a call
    that takes it, at any depth: ``from_messages([from_template(name)])``), and those built from
    them in turn; a use after ``name`` is given another text does not count."""
    assigns = [node for node in ast.walk(home) if isinstance(node, ast.Assign) and len(node.targets) == 1]
    defined = sorted(node.lineno for node in assigns if isinstance(node.targets[0], ast.Name)
                     and node.targets[0].id == name)
    ours = max((line for line in defined if line <= template.lineno), default=template.lineno)
    later = min((line for line in defined if line > ours), default=None)
    builds = [node for node in assigns if isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)]
    held: dict[str, ast.expr] = {}
    for _ in range(3):
        before = len(held)
        for node in builds:
            target = node.targets[0]
            assert isinstance(target, ast.Name) and isinstance(node.value, ast.Call)
            if target.id in held:
                continue
            for use in ast.walk(node.value):
                if isinstance(use, ast.Name) and ((use.id == name and ours < use.lineno
                                                   and (later is None or use.lineno < later)) or use.id in held) \
                        and use is not node.value.func:
                    held[target.id] = node.value
                    break
        if len(held) == before:  # nothing new to build from
            break
    return held


def _reads_registry(unit: Unit, scopes: Scopes, keys: set[tuple[str, str]], receiver: ast.expr, env: Env,
                    depth: int = 0) -> bool:
    """Whether ``receiver`` is what a registry holds at one of ``keys`` (``registry[Names.KEY]``),
    directly or through the name it is assigned to."""
    if isinstance(receiver, ast.Subscript):
        return (_last(unit.code(receiver.value)), unit.code(receiver.slice)) in keys
    if isinstance(receiver, ast.Name) and depth < _MAX_CLIMB:
        binding = scopes.resolve(receiver, env)
        return binding is not None and not binding.extras and _reads_registry(unit, scopes, keys, binding.value,
                                                                              binding.env, depth + 1)
    return False


def _last(dotted: str) -> str:
    """The last name of a dotted expression's code (``self.prompts`` -> ``prompts``)."""
    return dotted.rsplit(".", 1)[-1].strip()


def _format_sites(unit: Unit, finder: _Finder, name: str, holds: Callable[[ast.expr, Env], bool]) -> list[Site]:
    """The calls of ``unit``'s module that fill the constant ``name`` (or ``module.name``)."""
    def fills(receiver: ast.expr, env: Env) -> bool:
        named = (isinstance(receiver, ast.Name) and receiver.id == name) or (
            isinstance(receiver, ast.Attribute) and receiver.attr == name)
        return named and holds(receiver, env)

    return _filled(unit, finder, fills)


def keyed_sites(analyzer: Analyzer, key: str) -> list[Site]:
    """The calls of ``analyzer``'s module that fill the text a loaded prompt file holds under
    ``key`` (``self.template = data["instruction_template"]``, later
    ``self.template.format(context=...)``), with the values they pass."""
    unit = analyzer.unit
    return _filled(unit, _Finder(unit, analyzer.flow, analyzer.containers),
                   partial(_reads_key, analyzer, key=key))


def _filled(unit: Unit, finder: _Finder, fills: Callable[[ast.expr, Env], bool],
            methods: frozenset[str] = frozenset({"format", "format_map"})) -> list[Site]:
    """The ``.format(...)``/``.format_map(...)`` calls (or other ``methods``) of ``unit``'s
    module on a receiver that ``fills`` accepts, with the values they pass."""
    found: list[Site] = []
    for call, scope in unit.calls:
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in methods):
            continue
        env = Env(scope)
        if not fills(func.value, env):
            continue
        values = tuple(finder.values(call, env, None))
        if values:
            sent = finder.sent_role(call, unit.parents)
            found.append(Site(unit.span(call), values, *(sent if sent else (None, None))))
        if len(found) >= MAX_SITES:
            break
    return found


def one_role(sites: list[Site]) -> tuple[str, Span] | None:
    """The role every site sends the text in, when the code shows one for each, and the first
    message that sends it."""
    roles = {site.role for site in sites}
    if len(roles) != 1 or None in roles or sites[0].sent_at is None:
        return None
    role = roles.pop()
    assert role is not None
    return role, sites[0].sent_at


def values_by_key(sites: list[Site]) -> dict[str, list[Value]]:
    """The values the sites pass, by the template variable they fill."""
    values: dict[str, list[Value]] = {}
    for site in sites:
        for value in site.values:
            values.setdefault(value.key, []).append(value)
    return values


def _reads_key(analyzer: Analyzer, node: ast.expr, env: Env, key: str = "", depth: int = 0) -> bool:
    """Whether ``node`` is the value of ``key`` read from a mapping (``data["key"]``,
    ``data.get("key")``), directly or through the names it is assigned to."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == key
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Attribute) and node.func.attr == "get" and bool(node.args) \
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == key
    if isinstance(node, (ast.Name, ast.Attribute)) and depth < _MAX_CLIMB:
        binding = analyzer.scopes.resolve(node, env)
        return binding is not None and not binding.extras and _reads_key(analyzer, binding.value, binding.env, key,
                                                                         depth + 1)
    return False


class _Finder:
    # Whether a set holds strings (stringsets.py), when a template file's render sites are read:
    # its order, printed by the template, is then the hash seed's.
    string_items: Callable[[ast.expr, Env], bool] | None = None

    def __init__(self, unit: Unit, flow: Flow, containers: Containers) -> None:
        self.m = unit
        self.flow, self.containers = flow, containers

    def sites(self, names_template: Callable[[str], bool], stem: str | None = None) -> list[Site]:
        unit = self.m
        scopes = {id(call): scope for call, scope in unit.calls}
        parents = unit.parents  # kept by the module for the next template it renders
        literals = [node for node, text in unit.strings
                    if names_template(text) or (text == stem and _named_for_prompt(node, parents))]
        found: list[Site] = []
        seen: set[int] = set()
        for literal in literals:
            for call in self._render_calls(literal, parents):
                scope = scopes.get(id(call))
                if scope is None or id(call) in seen:
                    continue
                seen.add(id(call))
                values = tuple(self.values(call, Env(scope), literal))
                if values:
                    sent = self.sent_role(call, parents)
                    found.append(Site(unit.span(call), values, *(sent if sent else (None, None))))
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
                for use in self._uses(parent, parents):
                    calls += [use, *self._render_calls(use, parents, depth + 1)]
                break
            else:
                break
        return calls

    def _uses(self, assign: ast.Assign | ast.AnnAssign, parents: dict[int, ast.AST]) -> list[ast.Call]:
        """Calls on, or taking, the name a loaded template is assigned to; a placeholder replaced
        in it (``prompt.replace("{page}", page)``) only in the function that loaded it."""
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        held = {self.m.dotted(t) for t in targets} - {None}
        if not held:
            return []
        uses = []
        home = _function_of(assign, parents)
        for call, _ in self.m.calls:
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in RENDER_METHODS and self.m.dotted(func.value) in held:
                uses.append(call)
            elif isinstance(func, ast.Attribute) and replaced_key(call) is not None \
                    and self.m.dotted(func.value) in held and _function_of(call, parents) is home:
                uses.append(call)
            elif self.m.dotted(func) in held or any(self.m.dotted(a) in held for a in call.args):
                uses.append(call)  # `template(...)`, `prompty.execute(template, inputs=...)`
        return uses

    def sent_role(self, call: ast.Call, parents: dict[int, ast.AST]) -> tuple[str, Span] | None:
        """The role of the message the text ``call`` renders is sent in: the name the result is
        assigned to, as the content of a ``{"role": ..., "content": name}`` dict in the same
        function (alone, or with more text added), or, when the function returns that name, in
        a function of the module that calls it. None when no message shows it, or two differ."""
        name = _assigned_name(call, parents)
        home = _function_of(call, parents)
        if name is None or not isinstance(home, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        roles = roles_sending(home, name)
        if not roles and any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id == name
                             for n in ast.walk(home)):
            for caller, _ in self.m.calls:
                if (isinstance(caller.func, ast.Attribute) and caller.func.attr == home.name) or (
                        isinstance(caller.func, ast.Name) and caller.func.id == home.name):
                    held = _assigned_name(caller, parents)
                    outer = _function_of(caller, parents)
                    if held is not None and isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        roles = {**roles_sending(outer, held), **roles}
        if len(roles) != 1:
            return None
        role, message = roles.popitem()
        return role, self.m.span(message)

    def values(self, call: ast.Call, env: Env, literal: ast.Constant | None):
        flow, containers = self.flow, self.containers
        entries: list[tuple[str, ast.expr, Env]] = []
        key = replaced_key(call)
        if key is not None:
            entries.append((key, call.args[1], env))
            call = ast.Call(call.func, [], [])  # nothing else of `.replace(...)` is a value
        for keyword in call.keywords:
            if keyword.arg is None or keyword.arg in VALUE_DICTS:
                found = containers.dict_entries(keyword.value, env, returned=True)
                if found is not None:
                    entries += [(key, value, value_env) for key, (value, value_env, _) in found.items()]
                    continue
            if keyword.arg is not None:
                entries.append((keyword.arg, keyword.value, env))
        for argument in call.args:
            if argument is literal or isinstance(argument, ast.Starred):
                continue
            found = containers.dict_entries(argument, env, returned=True)
            if found is not None:
                entries += [(key, value, value_env) for key, (value, value_env, _) in found.items()]
        for key, value, value_env in entries:
            text = flow.literal_str(value, value_env)
            facts = Facts() if text is not None else flow.facts(value, value_env)
            if text is None:
                facts.sources += self.unordered(value, value_env)
            yield Value(key, self.m.span(value), facts, text)

    def unordered(self, value: ast.expr, env: Env) -> list[Source]:
        """A collection in no fixed order passed whole (``relevant_files=names``, a set of paths):
        a directory listing, a shuffle, or a set shown to hold strings."""
        if self.string_items is None:
            return []
        found = self.flow.unordered_source(value, env)  # the cheap question before the walk below
        if not found or _still_empty(value, self.m.parents):
            return []
        return [s for s in found if s.detail in UNSTABLE or s.detail.startswith("random.")
                or (s.detail in ("set", "frozenset") and self.string_items(value, env))]


def _still_empty(value: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """``chosen = set()`` and nothing written to ``chosen`` before ``value`` reads it, nor after it
    in a loop around it: the set is empty where it is passed, with no order to give."""
    if not isinstance(value, ast.Name):
        return False
    fn, loops, node = None, [], parents.get(id(value))
    while node is not None and fn is None:
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            loops.append(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = node
        node = parents.get(id(node))
    if fn is None:
        return False
    name, at = value.id, (value.lineno, value.col_offset)
    writes = sorted(((n.lineno, n.col_offset, n) for n in ast.walk(fn)
                     if isinstance(n, (ast.stmt, ast.expr)) and _writes(n, name)), key=lambda w: w[:2])
    before = [n for line, col, n in writes if (line, col) < at]
    if not before or not (isinstance(before[-1], ast.Assign) and isinstance(before[-1].value, ast.Call)
                          and isinstance(before[-1].value.func, ast.Name)
                          and before[-1].value.func.id in ("set", "frozenset") and not before[-1].value.args):
        return False
    return not any(loop.lineno <= line <= (loop.end_lineno or line) and (line, col) > at
                   for loop in loops for line, col, _ in writes)


def _writes(node: ast.AST, name: str) -> bool:
    """An assignment to ``name`` or a call that changes the set it holds (``name.add(...)``)."""
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
        and node.func.attr in ("add", "update", "discard", "remove", "pop", "clear", "difference_update",
                               "intersection_update", "symmetric_difference_update")


# A placeholder written as a string, as code replaces it: `{name}`, `{{name}}`, `{{ name }}`.
_PLACEHOLDER = re.compile(r"\{\{?\s*([A-Za-z_]\w*)\s*\}\}?")


def replaced_key(call: ast.Call) -> str | None:
    """The template variable ``text.replace("{page}", value)`` fills: a placeholder, written as
    a string literal, replaced with a value (a plain text replacement fills nothing)."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "replace" and len(call.args) == 2 and not call.keywords):
        return None
    first = call.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    match = _PLACEHOLDER.fullmatch(first.value)
    return match.group(1) if match else None


def _function_of(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST | None:
    """The function or lambda whose body holds ``node`` (None outside any)."""
    return enclosing(node, parents, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))


def _assigned_name(call: ast.Call, parents: dict[int, ast.AST]) -> str | None:
    """The name ``name = call(...)`` (or ``name = await call(...)``) assigns the result to."""
    parent = parents.get(id(call))
    while isinstance(parent, ast.Await):
        parent = parents.get(id(parent))
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return parent.targets[0].id
    return None


def roles_sending(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> dict[str, ast.expr]:
    """The roles of the messages of ``function`` whose content holds ``name``, each with the first
    such message: a ``{"role": ..., "content": ...}`` dict, or a message object built with those
    keywords (``Message(role="user", content=prompt)``, whatever library's class it is)."""
    roles: dict[str, ast.expr] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Dict):
            entries = keyed_fields(node)
        elif isinstance(node, ast.Call):
            entries = {k.arg: k.value for k in node.keywords if k.arg is not None}
        else:
            continue
        role, content = entries.get("role"), entries.get("content")
        if isinstance(role, ast.Constant) and isinstance(role.value, str) and content is not None and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(content)):
            roles.setdefault(role.value, node)
    return roles


# A Jinja template made from its text.
_JINJA_TEMPLATES = frozenset({"jinja2.Template", "jinja2.environment.Template"})


def template_text(m: Unit, scopes: Scopes, func: ast.expr, env: Env) -> ast.expr | None:
    """The text a Jinja template is made from, when ``func`` renders it (``env.from_string(text).render``,
    ``Template(text).render``, or a name given either): the program's instructions wherever the text
    was read from, so what is untrusted in the result comes in through the values rendered."""
    if not (isinstance(func, ast.Attribute) and func.attr in ("render", "render_async")):
        return None
    made = scopes.deref(func.value, env)[0] if isinstance(func.value, ast.Name) else func.value
    if not (isinstance(made, ast.Call) and len(made.args) == 1 and not made.keywords):
        return None
    if isinstance(made.func, ast.Attribute) and made.func.attr == "from_string" \
            or m.qualified(made.func) in _JINJA_TEMPLATES:
        return made.args[0]
    return None
