"""What a project's packaging ships from folders that otherwise hold examples and scripts.

A file under ``scripts/`` or ``examples/`` is read as a one-off script (its findings are low
confidence), unless the project installs it for its users: a console command of ``pyproject.toml``
(``[project.scripts]``, ``[project.gui-scripts]``, ``[tool.poetry.scripts]``) or of ``setup.cfg``
(``console_scripts``), a package Poetry includes (``packages = [{include = "scripts"}]``), or a
``bin`` of ``package.json``. open-interpreter's ``wtf`` command is ``scripts/wtf.py``: it runs for
every user who types it.

Only packaging files are read (TOML, INI and JSON, never code), each at most once per directory.
A packaging file that itself sits in an example folder (``examples/chatbot/pyproject.toml``)
describes an example, and is not asked.
"""

from __future__ import annotations

import configparser
import json
import sys
from functools import lru_cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

_MAX_BYTES = 1_000_000  # a packaging file larger than this is not a packaging file anyone writes


@lru_cache(maxsize=512)
def shipped(directory: Path) -> tuple[str, ...]:
    """Globs of the files and packages that the packaging files in ``directory`` install,
    anchored there (``/scripts/wtf.py``); unreadable or malformed files give none."""
    found: list[str] = []
    for name, read in (("pyproject.toml", _pyproject), ("setup.cfg", _setup_cfg), ("package.json", _package_json)):
        path = directory / name
        try:
            if not path.is_file() or path.stat().st_size > _MAX_BYTES:
                continue
            found.extend(read(path.read_text(encoding="utf-8", errors="replace")))
        except (OSError, ValueError, configparser.Error, tomllib.TOMLDecodeError):
            continue  # a hint, not what is linted: a broken file ships nothing
    return tuple(dict.fromkeys("/" + p for p in found if p and not p.startswith(("/", ".."))))


def _pyproject(text: str) -> list[str]:
    document = tomllib.loads(text)
    project, tool = _table(document, "project"), _table(document, "tool")
    poetry = _table(tool, "poetry")
    targets = [*_values(project.get("scripts")), *_values(project.get("gui-scripts")), *_values(poetry.get("scripts"))]
    found = [path for target in targets for path in _module_paths(target)]
    packages = poetry.get("packages")
    for package in packages if isinstance(packages, list) else []:
        include = package.get("include") if isinstance(package, dict) else None
        if isinstance(include, str):
            base = package.get("from")  # `{include = "helpers", from = "scripts"}`
            found.append("/".join(p.strip("/") for p in (base if isinstance(base, str) else "", include) if p))
    return found


def _table(document: dict, key: str) -> dict:
    value = document.get(key)
    return value if isinstance(value, dict) else {}


def _values(table: object) -> list[str]:
    """The targets of a scripts table: ``"pkg.mod:main"``, or Poetry's ``{callable = ...}`` and
    ``{reference = ...}`` forms."""
    if not isinstance(table, dict):
        return []
    found = []
    for value in table.values():
        if isinstance(value, dict):
            value = value.get("callable") or value.get("reference")
        if isinstance(value, str):
            found.append(value)
    return found


def _setup_cfg(text: str) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    lines = parser.get("options.entry_points", "console_scripts", fallback="")
    return [path for line in lines.splitlines() if "=" in line
            for path in _module_paths(line.split("=", 1)[1].strip())]


def _package_json(text: str) -> list[str]:
    document = json.loads(text)
    commands = document.get("bin") if isinstance(document, dict) else None
    paths = [commands] if isinstance(commands, str) else list(commands.values()) if isinstance(commands, dict) else []
    return [p.removeprefix("./") for p in paths if isinstance(p, str)]


def _module_paths(target: str) -> list[str]:
    """The files a ``"pkg.module:function"`` target may be: the module, or the package of that
    name, at the top or under ``src/``."""
    module = target.split(":", 1)[0].strip().split("[", 1)[0].strip()
    if not module or not all(part.isidentifier() for part in module.split(".")):
        return []
    path = module.replace(".", "/")
    return [f"{path}.py", path, f"src/{path}.py", f"src/{path}"]
