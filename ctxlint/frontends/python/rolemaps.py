"""Role maps that send tool output as system messages.

An agent framework keeps roles of its own (`environment`, `observation`, `function`) and a table
that says which role of the API each is sent as: rows of a template
(``dict(role="environment", api_role="system")``) or a plain mapping
(``{"user": "user", "assistant": "assistant", "tool": "system"}``). A table that maps the role
tool results come back in to ``system`` sends every search result, fetched page and command
output the agent reads in the system role, with the authority of the developer's own
instructions. The table is the evidence: no request of the module needs to show it.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.nodes import walk
from ctxlint.model import Observation, Source, SourceKind, Span

TOOL_ROLE_AS_SYSTEM = "tool-role-as-system"

# The roles agents give what a tool, a function or the environment returns.
_TOOL_ROLES = frozenset({"tool", "tools", "function", "environment", "observation", "ipython", "tool_result",
                         "tool_response", "function_result", "function_response"})
# The conversation's own roles: a table that maps them too is a table of roles, not of something else.
_CHAT_ROLES = frozenset({"user", "assistant", "human", "ai", "bot", "model"})
_ROLES = _TOOL_ROLES | _CHAT_ROLES | {"system", "developer"}
# The cheap test on the module's text: a tool's role written just before `"system"`, as a key
# (`"tool": "system"`) or in a row (`role="environment", api_role="system"`).
_MAY_MAP = re.compile(r"[\"'](?:" + "|".join(sorted(_TOOL_ROLES)) + r")[\"']\s*(?::|,\s*[\"']?\w*role[\"']?\s*[:=])"
                      r"\s*[\"']system[\"']", re.IGNORECASE)


# Model clients whose default role template sends a tool's role as ``system``, and that role: one
# built with no template of its own keeps it (a library's default: a list of names, kept short).
# lagent's GPTAPI maps `environment`, the role its agents give action results, to `system`.
DEFAULT_MAPS = {"lagent.llms.GPTAPI": "environment", "lagent.llms.AsyncGPTAPI": "environment",
                "lagent.llms.openai.GPTAPI": "environment", "lagent.llms.openai.AsyncGPTAPI": "environment",
                "lagent.GPTAPI": "environment"}
DEFAULT_TOOL_ROLE_AS_SYSTEM = "default-tool-role-as-system"
# The keyword that gives such a client its own template.
_TEMPLATE_KEY = "meta_template"


def tool_roles_as_system(tree: ast.Module, text: str, path: str) -> list[Observation]:
    """Each entry of a role map of the module that sends a tool's role as ``system``; and each
    model client of a class whose default map does so, built with no map of its own."""
    defaults = _default_maps(tree, text, path)
    if _MAY_MAP.search(text) is None:
        return defaults
    lines = text.splitlines()
    found: list[tuple[str, ast.expr]] = []
    for node in walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            found.extend(_template_rows(node))
        elif (table := _strings(node)) is not None:
            found.extend(_mapping(table))
    return defaults + [_observed(role, _span(value, lines, path)) for role, value in found]


def _default_maps(tree: ast.Module, text: str, path: str) -> list[Observation]:
    """Clients of a class of DEFAULT_MAPS built with no template: ``GPTAPI(model_type=...)``, or
    the config dict a factory builds one from (``dict(type=GPTAPI, model_type=...)``). A spread
    (``GPTAPI(**config)``) may hold a template: it is read where the dict is written."""
    if "lagent" not in text:
        return []
    imported = {alias.asname or alias.name: f"{node.module}.{alias.name}" for node in walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module and not node.level for alias in node.names}
    classes = {name: DEFAULT_MAPS[qualified] for name, qualified in imported.items() if qualified in DEFAULT_MAPS}
    if not classes:
        return []
    lines = text.splitlines()
    found = []
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        keys = {keyword.arg for keyword in node.keywords}
        if None in keys or _TEMPLATE_KEY in keys:
            continue
        built = node.func if isinstance(node.func, ast.Name) and node.func.id != "dict" else \
            next((k.value for k in node.keywords if k.arg == "type"), None) \
            if isinstance(node.func, ast.Name) and not node.args else None
        if not (isinstance(built, ast.Name) and built.id in classes):
            continue
        named = built
        role = classes[named.id]
        found.append(Observation(DEFAULT_TOOL_ROLE_AS_SYSTEM, _span(named, lines, path), f"{named.id}:{role}",
                                 source=Source(SourceKind.UNTRUSTED, f"what the `{role}` role carries (tool and "
                                               f"search results), sent as `system` by {named.id}'s default "
                                               f"`{_TEMPLATE_KEY}`", _span(named, lines, path), strong=False)))
    return found


def _template_rows(rows: ast.List | ast.Tuple) -> list[tuple[str, ast.expr]]:
    """Rows of a role template, each naming a role and the API's role it is sent as
    (``dict(role="environment", api_role="system")``): every row has the same two keys,
    ``role`` and one other that ends in ``role``, and one of the rows maps a role of the
    conversation."""
    tables = [_strings(row) for row in rows.elts]
    if len(tables) < 2 or any(t is None or len(t) != 2 or "role" not in t for t in tables):
        return []
    keys = {frozenset(t) for t in tables if t is not None}
    if len(keys) != 1:
        return []
    target = next(k for k in next(iter(keys)) if k != "role")
    if not target.endswith("role"):
        return []
    pairs = [(t["role"][0], t[target][0], t[target][1]) for t in tables if t is not None]
    if not any(source in _CHAT_ROLES for source, _, _ in pairs):
        return []
    return [(source, value) for source, sent, value in pairs if source in _TOOL_ROLES and sent == "system"]


def _mapping(table: dict[str, tuple[str, ast.expr]]) -> list[tuple[str, ast.expr]]:
    """A mapping from roles to roles (``{"user": "user", "tool": "system"}``): every key and
    value a role, a role of the conversation among the keys."""
    if len(table) < 3 or not all(key in _ROLES and sent in _ROLES for key, (sent, _) in table.items()):
        return []
    if not _CHAT_ROLES & set(table):
        return []
    return [(key, value) for key, (sent, value) in table.items() if key in _TOOL_ROLES and sent == "system"]


def _strings(node: ast.AST) -> dict[str, tuple[str, ast.expr]] | None:
    """A dict literal or ``dict(...)`` call whose keys and values are all strings: key ->
    (value, its node); None for anything else."""
    pairs: list[tuple[object, ast.expr]] = []
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            return None
        pairs = [(key.value if isinstance(key, ast.Constant) else None, value)
                 for key, value in zip(node.keys, node.values, strict=True)]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        pairs = [(keyword.arg, keyword.value) for keyword in node.keywords]
    else:
        return None
    table: dict[str, tuple[str, ast.expr]] = {}
    for key, value in pairs:
        if not (isinstance(key, str) and isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return None
        table[key] = (value.value.lower(), value)
    return table


def _observed(role: str, span: Span) -> Observation:
    return Observation(TOOL_ROLE_AS_SYSTEM, span, role, source=Source(
        SourceKind.UNTRUSTED, f"what the `{role}` role carries (tool and search results)", span, strong=False))


def _span(node: ast.expr, lines: list[str], path: str) -> Span:
    """Where a one-line node is written (``ast`` counts columns in UTF-8 bytes)."""
    line = lines[node.lineno - 1].encode() if node.lineno <= len(lines) else b""
    start = len(line[:node.col_offset].decode(errors="replace")) + 1
    end = len(line[:node.end_col_offset or node.col_offset].decode(errors="replace")) + 1
    return Span(path, node.lineno, start, node.lineno, end)
