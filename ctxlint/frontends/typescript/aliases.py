"""Import aliases a project declares in its ``tsconfig.json`` (or ``jsconfig.json``):
``"paths": {"@/*": ["./src/*"]}`` makes ``import { p } from "@/lib/prompts"`` a module of the tree,
as a relative import is. Next.js and Vite projects import almost everything this way, so without
the aliases a prompt module imported from elsewhere in the project was never read. A package of the
same repository a ``package.json`` depends on by a path (``"core": "file:../../core"``) is one too:
a monorepo's extension imports its shared code as ``core/llm/countTokens``."""

from __future__ import annotations

import json
import os
import re

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
MAX_CONFIG_BYTES = 200_000
# tsconfig is JSON with comments and trailing commas; strings are kept whole so a "//" in a
# path pattern is not taken for a comment.
_COMMENT_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")

# (prefix, suffix, targets): a pattern without "*" has suffix None and matches only itself;
# targets are absolute, with the "*" of the pattern's.
Aliases = list[tuple[str, str | None, list[str]]]


class AliasTable:
    def __init__(self, root: str = "") -> None:
        self.by_folder: dict[str, Aliases] = {}
        self.links_by_folder: dict[str, Aliases] = {}
        # The linted tree: for a module inside it, no config above it is read, as no module
        # outside it is (a file linted from elsewhere, or with no tree given, climbs to the top).
        self.root = os.path.abspath(root) if root else ""

    def resolve(self, importer: str, module: str) -> list[str]:
        """The absolute paths (without extension) ``module`` may name through the aliases of the
        closest config above ``importer``; empty when no alias matches. The longest prefix wins,
        as TypeScript chooses."""
        best: tuple[int, list[str]] = (-1, [])
        folder = os.path.dirname(os.path.abspath(importer))
        for prefix, suffix, targets in self._aliases(folder) + self._links(folder):
            if suffix is None:
                if module == prefix:
                    return targets
                continue
            if module.startswith(prefix) and module.endswith(suffix) and len(module) >= len(prefix) + len(suffix) \
                    and len(prefix) > best[0]:
                star = module[len(prefix):len(module) - len(suffix)]
                best = (len(prefix), [t.replace("*", star, 1) for t in targets])
        return best[1]

    def _aliases(self, folder: str) -> Aliases:
        if folder in self.by_folder:
            return self.by_folder[folder]
        found: Aliases | None = None
        for name in CONFIG_NAMES:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                found = _read_config(path)
                break
        if found is None:
            parent = os.path.dirname(folder)
            found = self._aliases(parent) if parent != folder and folder != self.root else []
        self.by_folder[folder] = found
        return found


    def _links(self, folder: str) -> Aliases:
        """The packages of the repository the closest ``package.json`` above ``folder`` depends on by
        a path (``"core": "file:../../core"``): ``core/llm/countTokens`` is a module of the tree, as
        a monorepo's extension imports its shared package."""
        if folder in self.links_by_folder:
            return self.links_by_folder[folder]
        path = os.path.join(folder, "package.json")
        parent = os.path.dirname(folder)
        if os.path.isfile(path):
            found = _read_links(path)
        else:
            found = self._links(parent) if parent != folder and folder != self.root else []
        self.links_by_folder[folder] = found
        return found


def _read_links(path: str) -> Aliases:
    """The dependencies of one ``package.json`` written as a path inside the tree (``file:../core``,
    ``link:../core``): each one's name, and the files under it, as aliases."""
    try:
        if os.path.getsize(path) > MAX_CONFIG_BYTES:
            return []
        with open(path, encoding="utf-8") as handle:
            manifest = json.load(handle)
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    aliases: Aliases = []
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        declared = manifest.get(key) if isinstance(manifest, dict) else None
        if not isinstance(declared, dict):
            continue
        for name, spec in declared.items():
            if not isinstance(name, str) or not isinstance(spec, str) or not spec.startswith(("file:", "link:")):
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(path), spec.partition(":")[2]))
            if os.path.isdir(target):
                aliases.append((f"{name}/", "", [os.path.join(target, "*")]))
                aliases.append((name, None, [os.path.join(target, "index")]))
    return aliases


def _read_config(path: str) -> Aliases:
    """The ``paths`` of one config, resolved against its ``baseUrl`` (its own folder without one).
    A config that cannot be read declares none (``extends`` is not followed)."""
    try:
        if os.path.getsize(path) > MAX_CONFIG_BYTES:
            return []
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        text = _COMMENT_OR_STRING.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
        config = json.loads(_TRAILING_COMMA.sub(r"\1", text))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    options = config.get("compilerOptions") if isinstance(config, dict) else None
    if not isinstance(options, dict) or not isinstance(options.get("paths"), dict):
        return []
    paths = options["paths"]
    base_url = options["baseUrl"] if isinstance(options.get("baseUrl"), str) else "."
    base = os.path.normpath(os.path.join(os.path.dirname(path), base_url))
    aliases: Aliases = []
    for pattern, targets in paths.items():
        if not isinstance(pattern, str) or pattern.count("*") > 1 or not isinstance(targets, list):
            continue
        prefix, star, rest = pattern.partition("*")
        suffix = rest if star else None
        written = [os.path.normpath(os.path.join(base, t)) for t in targets
                   if isinstance(t, str) and t.count("*") == pattern.count("*")]
        if prefix and written:
            aliases.append((prefix, suffix, written))
    return aliases
