"""A cut kept in a value that a module fills into a template whose text lives in a settings file.

``self.vars = {"history": self.history_text}`` then ``Environment().from_string(
get_settings().digest_prompt.user).render(self.vars)`` passed to the project's model call: the
template is not in the Python code, so no request of the module shows the slot. The project's
TOML settings files hold it (``user = \"\"\"...{{ history }}...\"\"\"``); when one writes the slot
with no marker beside it, the cut demonstrably reaches a prompt and nothing tells the model.

The settings files are found once per project root (a bounded scan of its ``*.toml`` files, the
packaging files left out) and read as text, never rendered.
"""

from __future__ import annotations

import ast
import os
import re
from functools import lru_cache
from pathlib import Path

from ctxlint.frontends.python.nodes import function_of
from ctxlint.frontends.python.project import display_path
from ctxlint.frontends.python.unit import Component
from ctxlint.markers import cut_marker, cut_noted
from ctxlint.model import Evidence, EvidenceKind

MAX_FILES = 300
MAX_FILE_BYTES = 400_000
_SKIPPED_DIRS = frozenset({"node_modules", "site-packages", "__pycache__", "venv", "env", "build", "dist", "tests"})
_PACKAGING = frozenset({"pyproject.toml", "poetry.lock", "Cargo.toml", "uv.lock", "ruff.toml", "setup.toml"})
# A Jinja slot that prints one variable, filters allowed: `{{ name }}`, `{{- name | trim }}`.
_SLOT = re.compile(r"\{\{-?\s*(\w+)\s*(?:\|[^}]*)?-?\}\}")
# How many lines around a slot a note of a cut may sit (as for a cut in a template).
_NEAR = 6
_KEY = re.compile(r"\s*([\w-]+)\s*=")
_TABLE = re.compile(r"\s*\[\s*([\w.-]+)\s*\]\s*$")


@lru_cache(maxsize=4)
def settings_slots(root: str) -> dict[tuple[str, str], tuple[str, int, bool]]:
    """Each variable the project's TOML settings files print in a slot, by its name and the
    setting that holds the template (``pr_prompt.user`` for ``user = '''...{{ diff }}...'''`` under
    ``[pr_prompt]``): the file (relative to ``root``), the line, and whether the slot is marked as
    cut (a marker right after it, or a note of a cut within a few lines)."""
    found: dict[tuple[str, str], tuple[str, int, bool]] = {}
    files = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(names):
            if not name.endswith(".toml") or name in _PACKAGING:
                continue
            files += 1
            if files > MAX_FILES:
                return found
            path = Path(folder, name)
            try:
                if path.stat().st_size > MAX_FILE_BYTES:
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            lines = text.splitlines()
            for match in _SLOT.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                setting = _setting_at(lines, line)
                if setting is None:
                    continue
                near = "\n".join(_value_around(lines, line))
                marked = cut_marker(text[match.end():match.end() + 200]) or cut_noted(near)
                key = (match.group(1), setting)
                before = found.get(key)
                if before is None or (before[2] and not marked):
                    found[key] = (os.path.relpath(path, root), line, marked)
    return found


def _value_around(lines: list[str], line: int) -> list[str]:
    """The lines of the setting's value within a few lines of ``line`` (1-based): a note in the
    value of another setting is about another text."""
    start, end = max(0, line - 1 - _NEAR), min(len(lines), line + _NEAR)
    above = next((i for i in range(line - 1, start - 1, -1) if _KEY.match(lines[i]) or _TABLE.match(lines[i])),
                 None)
    below = next((i for i in range(line, end) if _KEY.match(lines[i]) or _TABLE.match(lines[i])), None)
    return lines[start if above is None else above:end if below is None else below]


def _setting_at(lines: list[str], line: int) -> str | None:
    """The dotted setting (``table.key``) whose value holds the text at ``line`` (1-based): the
    last ``key =`` at the start of a line above it, under the last ``[table]`` header."""
    key = None
    for text in reversed(lines[:line]):
        if key is None:
            assigned = _KEY.match(text)
            if assigned is not None:
                key = assigned.group(1)
            continue
        header = _TABLE.match(text)
        if header is not None:
            return f"{header.group(1)}.{key}"
    return None


class SettingsCuts(Component):
    def into_settings_template(self, node: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef | None
                               ) -> tuple[Evidence, ...] | None:
        """The steps by which the cut ``node``, kept in a name or an attribute, is filled into a
        template of the project's settings files that the module renders and passes to a call."""
        project = self.m.project
        statement = self.m.parents.get(id(node))
        if project is None or not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                                   and statement.value is node):
            return None
        kept = self.m.dotted(statement.targets[0])
        if kept is None or (kept.count(".") == 0 and fn is not None):
            return None  # a local name lives only in its function; the variables are built elsewhere
        for entry, key, holder in self.variables_holding(kept):
            for call, template in self.renders_of(holder):  # the settings files read only once a render is found
                slot = settings_slots(str(project.root)).get((key, _setting_read(template)))
                if slot is None or slot[2]:
                    continue
                path, line, _ = slot
                self.m.dependencies.add(display_path(project.root / path))  # an edit there changes the result
                return (Evidence(EvidenceKind.FLOW, f"kept in `{kept}`, filled as `{key}` into `{holder}`",
                                 self.m.span(entry)),
                        Evidence(EvidenceKind.FLOW, f"rendered into the settings template `{self.m.code(template)}` "
                                 f"and passed to `{self.m.code(call.func)}`", self.m.span(call)),
                        Evidence(EvidenceKind.SINK, f"{path}:{line} writes `{{{{ {key} }}}}` with no marker beside "
                                 "it", self.m.span(call)))
        return None

    def rendered_slot(self, target: ast.expr) -> tuple[ast.Call, ast.expr, str, int] | None:
        """``self.vars["pages"] = text``: where a template of the project's settings files prints
        that entry of the dict, when the module renders the template from the dict and passes what
        it makes to a call: the call, the template read, and the settings file and line of the slot."""
        project = self.m.project
        if project is None or not (isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
                                   and isinstance(target.slice.value, str)):
            return None
        holder, key = self.m.dotted(target.value), target.slice.value
        if holder is None:
            return None
        home = self.function_of(target)
        renders = [*self.renders_of(holder), *self.constructed_renders(holder)]
        # the template read next after the entry is set, in its function, first: the one it is set for
        renders.sort(key=lambda r: (self.function_of(r[1]) is not home, r[1].lineno < target.lineno,
                                    abs(r[1].lineno - target.lineno)))
        for call, template in renders:
            # the settings files read only once a render is found
            slot = settings_slots(str(project.root)).get((key, _setting_read(template)))
            if slot is not None:
                self.m.dependencies.add(display_path(project.root / slot[0]))  # an edit there changes the result
                return call, template, slot[0], slot[1]
        return None

    def function_of(self, node: ast.AST) -> ast.AST | None:
        return function_of(node, self.m.parents)

    def variables_holding(self, kept: str) -> list[tuple[ast.expr, str, str]]:
        """Each entry of a dict of the module kept in a name (``self.vars = {"k": self.x}``) whose
        value is ``kept``: the value, its key and the name the dict is kept in."""
        found = []
        for node in ast.walk(self.m.tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Dict)):
                continue
            holder = self.m.dotted(node.targets[0])
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if holder and isinstance(key, ast.Constant) and isinstance(key.value, str) and \
                        self.m.dotted(value) == kept:
                    found.append((value, key.value, holder))
        return found

    def renders_of(self, holder: str) -> list[tuple[ast.Call, ast.expr]]:
        """Each call of the module given what a render of a template read from elsewhere makes
        (``env.from_string(settings.x.user).render(variables)``, with ``variables`` the dict kept in
        ``holder`` or a copy of it): the call and the template's text."""
        found = []
        for fn, _ in self.m.functions:
            rendered: dict[str, ast.expr] = {}
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                        and isinstance(node.targets[0], ast.Name)):
                    continue
                template = _settings_render(node.value)
                if template is not None and isinstance(node.value, ast.Call) and \
                        self.fills_from(node.value, holder, fn):
                    rendered[node.targets[0].id] = template
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and rendered:
                    passed = [*node.args, *(k.value for k in node.keywords)]
                    found += [(node, rendered[a.id]) for a in passed if isinstance(a, ast.Name) and a.id in rendered]
        return found

    def constructed_renders(self, holder: str) -> list[tuple[ast.Call, ast.expr]]:
        """``Preparator(self.handler, self.vars, get_settings().p.system, ...)`` of a class of the
        module whose ``__init__`` renders a template it is given from the dict it is given
        (``self.user = env.from_string(user).render(copy.deepcopy(vars))``) and a method of which
        passes what it keeps to a call: that call, and the settings read given as the template."""
        found = []
        classes = {node.name: node for node in self.m.tree.body if isinstance(node, ast.ClassDef)}
        for call, _ in self.m.calls:
            cls = classes.get(call.func.id) if isinstance(call.func, ast.Name) else None
            init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None) \
                if cls is not None else None
            if cls is None or init is None:
                continue
            params = [a.arg for a in init.args.args[1:]]
            given = {params[i]: a for i, a in enumerate(call.args) if i < len(params)}
            given.update({k.arg: k.value for k in call.keywords if k.arg is not None})
            dicts = [name for name, value in given.items() if self.m.dotted(value) == holder]
            for node in ast.walk(init):
                text = _render_text(node.value) if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
                if not (isinstance(node, ast.Assign) and isinstance(text, ast.Name) and text.id in given
                        and _settings_read(given[text.id]) and isinstance(node.value, ast.Call)
                        and any(self.fills_from(node.value, name, init) for name in dicts)):
                    continue
                kept = self.m.dotted(node.targets[0])
                found += [(used, given[text.id]) for used in _calls_given(cls, kept)] if kept else []
        return found

    def fills_from(self, render: ast.Call, holder: str, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether the render is given the dict kept in ``holder``: as itself, or through a name
        of its function given it (``variables = copy.deepcopy(self.vars)``)."""
        given = [*render.args, *(k.value for k in render.keywords if k.arg is None)]
        if any(self.m.dotted(a) == holder for a in given):
            return True
        names = {a.id for a in given if isinstance(a, ast.Name)}
        return any(isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                   and n.targets[0].id in names and any(self.m.dotted(part) == holder for part in ast.walk(n.value))
                   for n in ast.walk(fn))


def _settings_render(value: ast.expr) -> ast.expr | None:
    """``<env>.from_string(<text read from elsewhere>).render(...)``: the template's text, when it
    is not written in the code (a literal would be a request of the module already)."""
    text = _render_text(value)
    return text if text is not None and _settings_read(text) else None


def _render_text(value: ast.expr) -> ast.expr | None:
    """``<env>.from_string(<text>).render(...)``: the template's text."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "render"):
        return None
    loaded = value.func.value
    if not (isinstance(loaded, ast.Call) and isinstance(loaded.func, ast.Attribute)
            and loaded.func.attr == "from_string" and len(loaded.args) == 1):
        return None
    return loaded.args[0]


def _settings_read(text: ast.expr) -> bool:
    return isinstance(text, (ast.Attribute, ast.Subscript, ast.Call))


def _calls_given(cls: ast.ClassDef, kept: str) -> list[ast.Call]:
    """The calls the methods of ``cls`` give what ``self.<name>`` (``kept``) holds."""
    return [node for method in cls.body if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
            for node in ast.walk(method) if isinstance(node, ast.Call)
            and any(isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and f"{a.value.id}.{a.attr}" == kept
                    for a in (*node.args, *(k.value for k in node.keywords)))]


def _setting_read(template: ast.expr) -> str:
    """The table and key a settings read names last (``pr_prompt.user`` in
    ``get_settings().pr_prompt.user``, or ``settings["pr_prompt"]["user"]``)."""
    parts: list[str] = []
    node = template
    while len(parts) < 2:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
                isinstance(node.slice.value, str):
            parts.append(node.slice.value)
            node = node.value
        else:
            break
    return ".".join(reversed(parts))
