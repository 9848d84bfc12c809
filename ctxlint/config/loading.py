"""Finding and reading configuration files: the TOML of each file, what it extends, command-line
overrides as layers, and the configuration closest above each path (``Resolver``)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ctxlint.config.keys import apply_layer
from ctxlint.config.settings import CONFIG_FILES, ConfigError, Layer, Settings
from ctxlint.tomlpos import key_lines, line_of

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


def read_toml(path: Path) -> tuple[dict, str]:
    """The parsed document and its text; a file that cannot be read or parsed is a ConfigError
    that says where (``ctxlint.toml:3:14: not valid TOML: ...``)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ConfigError(f"{path}:{line}: not valid TOML: the file is not UTF-8 "
                          f"(byte 0x{data[error.start]:02x})") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        at = re.search(r" \(at line (\d+), column (\d+)\)$", message)
        if at:
            message = message[: at.start()]
            raise ConfigError(f"{path}:{at.group(1)}:{at.group(2)}: not valid TOML: {message}") from None
        if message.endswith(" (at end of document)"):
            last = text.rstrip("\n").count("\n") + 1
            message = message.removesuffix(" (at end of document)")
            raise ConfigError(f"{path}:{last}: not valid TOML: {message} (at the end of the file)") from None
        raise ConfigError(f"{path}: not valid TOML: {message}") from None


def _file_layer(path: Path) -> Layer | None:
    """The ctxlint table of ``path``; None for a pyproject.toml without ``[tool.ctxlint]``."""
    data, text = read_toml(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool")
        if not isinstance(tool, dict) or "ctxlint" not in tool:
            return None
        lines = key_lines(text)
        if not isinstance(tool["ctxlint"], dict):
            line = line_of(lines, ("tool", "ctxlint"))
            raise ConfigError(f"{path}{f':{line}' if line else ''}: `tool.ctxlint` must be a table ([tool.ctxlint])")
        return Layer(str(path), tool["ctxlint"], ("tool", "ctxlint"), lines, path.parent)
    return Layer(str(path), data, (), key_lines(text), path.parent)


def file_layers(path: Path) -> list[Layer]:
    """The layers of a configuration file: what it extends (recursively, base first), then itself."""
    chain: list[Layer] = []
    seen: list[Path] = []
    current: Path | None = path.resolve()
    where = ""
    while current is not None:
        if current in seen:
            cycle = " -> ".join(str(p) for p in [*seen, current])
            raise ConfigError(f"{where} makes a cycle: {cycle}")
        if not current.is_file():
            raise ConfigError(f"{where}: no such configuration file {current}")
        seen.append(current)
        layer = _file_layer(current)
        if layer is None:
            raise ConfigError(f"{where}: {current} has no [tool.ctxlint] table to extend")
        chain.append(layer)
        base = layer.table.get("extend")
        if base is None:
            break
        where = layer.where("extend")
        if not isinstance(base, str) or not base.strip():
            raise ConfigError(f"{where} must be the path of another configuration file")
        assert layer.directory is not None
        current = (layer.directory / Path(base).expanduser()).resolve()
    return chain[::-1]


def override_layer(assignment: str) -> Layer:
    """``--config "KEY = VALUE"``: one TOML assignment applied over every configuration file."""
    try:
        table = tomllib.loads(assignment)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"--config {assignment!r}: not a file, and not a TOML `KEY = VALUE` "
                          f"assignment ({str(error).split(' (at ')[0]})") from None
    if "extend" in table:
        raise ConfigError(f"--config {assignment!r}: `extend` can only be used in a configuration file")
    return Layer("--config", table, directory=Path.cwd())


def flag_layer(option: str, key: str, value: Any) -> Layer:
    """A command-line option that sets one key (``--select`` sets ``select``)."""
    return Layer(option, {key: value}, directory=Path.cwd(), flag=True)


# --- finding the configuration of each file ---------------------------------------------------


# A table header of ctxlint's in a file that does not parse: `[tool.ctxlint]`, `[tool.ctxlint.rules]`.
_CTXLINT_TABLE = re.compile(rb"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*[\"']?ctxlint[\"']?[ \t]*[.\]]", re.MULTILINE)


def config_in(directory: Path, notices: list[tuple[Path, str]] | None = None) -> Path | None:
    """The configuration file of ``directory`` itself, if it has one (CONFIG_FILES, in order).

    With ``notices`` (a directory nested below the run's), a pyproject.toml that cannot be read
    as TOML and has no ``[tool.ctxlint]`` header is not a ctxlint configuration (a project
    template's ``name = "{{cookiecutter.name}}"``): it is passed over, with a notice. A broken
    one with the table, or the project's own, is an error that names the file.
    """
    for name in CONFIG_FILES[:-1]:
        own = directory / name
        if own.is_file():
            return own
    pyproject = directory / CONFIG_FILES[-1]
    if not pyproject.is_file():
        return None
    try:
        return pyproject if _file_layer(pyproject) is not None else None
    except ConfigError as error:
        try:
            data = pyproject.read_bytes()
            # TOML that parses raised over its tool.ctxlint (a value that is not a table); a file
            # that does not parse is ours when a [tool.ctxlint…] header is in it.
            ours = _CTXLINT_TABLE.search(data) is not None or _parses(data)
        except OSError:
            ours = False
        if ours or notices is None:
            raise
        located = re.match(r":(\d+)(?::(\d+))?: (.*)", str(error).removeprefix(str(pyproject)), re.DOTALL)
        why = f"{located.group(3)} (line {located.group(1)})" if located else str(error)
        notices.append((pyproject, f"passed over: {why}; it has no [tool.ctxlint] table, so it is not a "
                                   "ctxlint configuration"))
        return None


def _parses(data: bytes) -> bool:
    try:
        tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return True


def find_config(start: Path) -> Path | None:
    """The nearest configuration file (CONFIG_FILES) above ``start``."""
    directory = start if start.is_dir() else start.parent
    for candidate in [directory, *directory.parents]:
        found = config_in(candidate)
        if found is not None:
            return found
    return None


def project_root(start: Path) -> Path:
    """The root of the project holding ``start``: the nearest directory with a configuration
    file or a ``.git``, else ``start`` itself (where the result cache lives)."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists() or config_in(directory) is not None:
            return directory
    return start


def load_settings(config_path: Path | None, root: Path, overrides: Sequence[Layer] = ()) -> Settings:
    """Settings from ``config_path`` and what it extends (defaults when None), then ``overrides``."""
    layers = file_layers(config_path) if config_path is not None else []
    settings = Settings(root=root, config_path=config_path,
                        sources=[Path(layer.label) for layer in reversed(layers)])
    for layer in [*layers, *overrides]:
        apply_layer(settings, layer)
    return settings


class Resolver:
    """The settings of every directory: the closest configuration above it, as ruff finds it.

    ``explicit`` (``--config FILE``) is used for every file, with globs relative to the working
    directory. Otherwise a directory uses the nearest configuration file at or above it; a path
    with none above it uses the configuration found from the working directory, or the
    defaults. ``overrides`` (command-line options) apply over every configuration. Settings are
    loaded and validated once per file; ``check`` (given the catalogue loader) validates rule
    codes and options as each configuration is first loaded, before anything is linted.
    """

    def __init__(self, cwd: Path, explicit: Path | None = None, overrides: Sequence[Layer] = (),
                 check: Callable[[Settings], None] | None = None) -> None:
        self.cwd = cwd.resolve()
        self.overrides = list(overrides)
        self._check = check
        self._by_config: dict[Path | None, Settings] = {}
        self._by_dir: dict[Path, Path | None] = {}
        # Files passed over on the way (a template's pyproject.toml that is not TOML), for the run to show.
        self.notices: list[tuple[Path, str]] = []
        self.explicit = self._load(explicit.resolve(), self.cwd) if explicit is not None else None
        self.default = self.explicit or self._for_config(self._nearest(self.cwd))

    def for_path(self, path: Path) -> Settings:
        """The settings of a file or directory (symlinks resolved by the caller)."""
        return self.for_directory(path if path.is_dir() else path.parent)

    def for_directory(self, directory: Path) -> Settings:
        """The settings of the files in ``directory`` (known to be one: no stat)."""
        if self.explicit is not None:
            return self.explicit
        return self._for_config(self._nearest(directory))

    def loaded(self) -> list[Settings]:
        """Every configuration used so far (for --show-settings and the cache)."""
        return list(self._by_config.values())

    def _nearest(self, directory: Path) -> Path | None:
        walked = []
        current: Path | None = directory
        found = None
        while current is not None:
            if current in self._by_dir:
                found = self._by_dir[current]
                break
            walked.append(current)
            # Below the working directory a broken pyproject.toml may belong to a project template.
            found = config_in(current, self.notices if current.is_relative_to(self.cwd) and current != self.cwd
                              else None)
            if found is not None:
                break
            current = current.parent if current.parent != current else None
        for d in walked:
            self._by_dir[d] = found
        return found if found is not None or directory == self.cwd else self._nearest_to_cwd()

    def _nearest_to_cwd(self) -> Path | None:
        """Where a path with no configuration above it takes its settings from (as ruff does)."""
        return self._nearest(self.cwd)

    def _for_config(self, config: Path | None) -> Settings:
        cached = self._by_config.get(config)
        if cached is None:
            cached = self._load(config, config.parent if config is not None else self.cwd)
        return cached

    def _load(self, config: Path | None, root: Path) -> Settings:
        settings = load_settings(config, root, self.overrides)
        if self._check is not None:
            self._check(settings)
        self._by_config[config] = settings
        return settings
