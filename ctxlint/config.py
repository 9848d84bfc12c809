"""Settings from ``[tool.ctxlint]`` in pyproject.toml or the same keys in ctxlint.toml.

Configuration is hierarchical, as in ruff: each file is linted with the configuration closest
above it (a ``ctxlint.toml`` wins over a ``pyproject.toml`` in the same directory, and a
pyproject.toml without ``[tool.ctxlint]`` is passed over), so the result never depends on the
order of the paths given. Files are not merged implicitly; ``extend = "../base.toml"`` inherits
from another file explicitly. A file is a *layer*: the defaults, then each extended file from
the base up, then the command line's overrides are applied in turn. In every layer a list option
``key`` replaces what came before and ``extend-key`` adds to it.

Every key is validated as the settings load, and an error names the file, the line and the key
(``pyproject.toml:12: `tool.ctxlint.selekt`: unknown key``): a typo must stop the run (exit 2)
before anything is linted, not be ignored or found halfway through.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxlint.catalogue import (
    CatalogueError,
    Rule,
    SelectionError,
    family_options,
    find_rule,
    merge_options,
    resolve,
    rule_overrides,
)
from ctxlint.frontends import FORMATS as REGISTRY_FORMATS
from ctxlint.frontends import default_include
from ctxlint.tomlpos import KeyPath, key_lines, line_of

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    """An invalid configuration; the message names the file, the line and the key."""


CONFIG_FILES = ("ctxlint.toml", "pyproject.toml")  # in order of precedence within one directory


# Files ctxlint looks at by default: those a format takes by name or suffix (the registry in
# ctxlint/frontends). Python, JavaScript, JSON and YAML files are sniffed cheaply by their
# front-ends and give nothing unless they hold prompts. Plain-text prompts are only linted under
# prompt folders, where a .txt or .md file is likely to be a prompt.
DEFAULT_INCLUDE = default_include()
DEFAULT_TEXT_GLOBS = ("prompts/**/*.txt", "prompts/**/*.md", "**/prompts/**/*.txt", "**/prompts/**/*.md")
FORMATS = tuple(REGISTRY_FORMATS)
FAIL_LEVELS = ("error", "warning", "info")
CONFIDENCE_LEVELS = ("high", "medium", "low")
# Test code: requests there are fixtures (deliberately without limits, with duplicate or invalid
# tools, with fake ids), so findings in it are low confidence. Globs as in `exclude`.
DEFAULT_TEST_PATHS = (
    "test", "tests", "__tests__", "fixtures", "__fixtures__", "__testfixtures__", "testdata", "test_data",
    "test-data", "snapshots", "__snapshots__", "cassettes", "e2e", "mock", "mocks", "__mocks__", "conftest.py",
    "test_*.py", "*_test.py", "*.test.*", "*.spec.*", "*-test.*",
)

# Tables that set an option of every rule of a family at once: `[tool.ctxlint.trust]
# extend-untrusted = ["crawl_*"]` extends the `untrusted` option of CTX401, CTX402 and CTX403.
# The keys are checked against the catalogue as the settings load (validate_rules).
FAMILY_TABLES = ("layout", "trust")

# Absolute limits that `ctxlint cost` enforces (exit 1 when crossed), with or without --compare:
# the input tokens of one request, of one tool definition, and of all tools offered in one request.
COST_LIMITS = {
    "max-request-tokens": "input tokens of one request",
    "max-tool-tokens": "tokens of one tool definition",
    "max-total-tool-tokens": "tokens of all the tools offered in one request",
}
# What `ctxlint cost` keeps out of its totals by default and lists apart: requests in test data
# and fixtures (globs over paths relative to the root). `set-aside` replaces the list,
# `extend-set-aside` adds to it; templates that are not prompts (HTML pages, Dockerfiles,
# documentation) are recognised by name and content. `include-set-aside = true` counts them all.
COST_SET_ASIDE = DEFAULT_TEST_PATHS


@dataclass
class Settings:
    root: Path  # configuration globs match paths relative to this directory
    config_path: Path | None = None
    # The files this configuration was read from: the one in use, then what it extends.
    sources: list[Path] = field(default_factory=list)
    select: list[str] = field(default_factory=lambda: ["ALL"])
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    include: list[str] = field(default_factory=lambda: list(DEFAULT_INCLUDE))
    exclude: list[str] = field(default_factory=list)
    # Globs per format from the config, e.g. {"jinja": ["templates/*.tmpl"]}; they win over file
    # names and suffixes. `text` replaces DEFAULT_TEXT_GLOBS, which otherwise apply last.
    formats: dict[str, list[str]] = field(default_factory=dict)
    # The model of requests that name none; None: such requests are reported as naming no model.
    model: str | None = None
    models: dict[str, dict] = field(default_factory=dict)
    # Rule tables by code or name as written (`[rules.CTX101]`), in the order the layers gave
    # them; `configured_rules` resolves them against the catalogue.
    rule_options: dict[str, dict] = field(default_factory=dict)
    rule_packs: list[Path] = field(default_factory=list)
    # Framework catalogue files or folders that extend (or, by framework name, replace) the
    # shipped catalogue; with builtin_frameworks False only these apply.
    frameworks: list[Path] = field(default_factory=list)
    builtin_frameworks: bool = True
    fail_level: str = "warning"
    # The least confidence a finding needs to be reported: by default only what rests on more
    # than a variable's name (see model.Confidence).
    confidence: str = "medium"
    preview: bool = False
    test_paths: list[str] = field(default_factory=lambda: list(DEFAULT_TEST_PATHS))
    max_file_bytes: int = 2_000_000
    # [tool.ctxlint.layout] / [tool.ctxlint.trust]: family -> option (or extend-option) -> values.
    family_options: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # Absolute limits for `ctxlint cost` ([tool.ctxlint.cost]), keyed as in COST_LIMITS; unset = no limit.
    cost_limits: dict[str, int] = field(default_factory=dict)
    # [tool.ctxlint.cost] expected-output-tokens: the answer length to price output at, besides its bound.
    expected_output_tokens: int | None = None
    set_aside: list[str] = field(default_factory=lambda: list(COST_SET_ASIDE))
    include_set_aside: bool = False
    # `ctxlint budget` declarations per file glob ([tool.ctxlint.budget."GLOB"]), validated at load
    # by ctxlint.budget.policy: a list of (glob, Declarations).
    budget: list = field(default_factory=list)
    # Checks that need the rule catalogue (rule codes and options), run by `validate_rules` as soon
    # as the catalogue is loaded: (where the value was written, what to check).
    pending: list[tuple[str, Callable[[dict[str, Rule]], None]]] = field(
        default_factory=list, repr=False, compare=False)

    def text_globs(self) -> list[str]:
        return self.formats.get("text", list(DEFAULT_TEXT_GLOBS))

    def all_globs(self) -> list[str]:
        globs = [*self.include, *self.text_globs()]
        for patterns in self.formats.values():
            globs.extend(patterns)
        return globs


# --- layers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layer:
    """One table of settings and where it was written: a file, or a command-line option."""

    label: str  # the file's path, or the option (`--select`, `--config`)
    table: dict
    prefix: KeyPath = ()  # ("tool", "ctxlint") in a pyproject.toml
    lines: dict[KeyPath, int] = field(default_factory=dict)
    directory: Path | None = None  # relative paths in the table (rule packs, extend) start here
    flag: bool = False  # a single command-line option: errors name the option, not a key

    def where(self, *key: str) -> str:
        """``file:line: `dotted.key``` for error messages."""
        if self.flag:
            return self.label
        path = self.prefix + key
        line = line_of(self.lines, path)
        return f"{self.label}{f':{line}' if line else ''}: `{'.'.join(path)}`"


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


# --- applying a layer -----------------------------------------------------------------------

# Top-level list options: `key` replaces, `extend-key` adds.
_LISTS = ("select", "ignore", "include", "exclude", "rule-packs", "frameworks", "test-paths", "per-file-ignores")


def apply_table(settings: Settings, table: dict, path: Path, prefix: str = "") -> None:
    """Validate ``table`` (the keys of ``[tool.ctxlint]``) and apply it to ``settings``."""
    apply_layer(settings, Layer(str(path), table, tuple(prefix.split(".")) if prefix else (),
                                directory=path.parent))


def apply_layer(settings: Settings, layer: Layer) -> None:
    """Apply one layer: within it, replacements (`key`) before extensions (`extend-key`)."""
    where = layer.where
    for key, value in sorted(layer.table.items(), key=lambda item: item[0].startswith("extend-")):
        name = key.removeprefix("extend-")
        extending = name != key
        if key == "extend":
            continue  # followed when the file was read (file_layers)
        if extending and name not in _LISTS:
            raise ConfigError(f"{where(key)}: unknown key (`extend-` works with {', '.join(_LISTS)})")
        if name in ("select", "ignore"):
            codes = _strings(layer, key, value)
            _check_selectors(settings, layer.where(key), codes)
            if name == "select" and extending:
                settings.extend_select += codes
            elif name == "select":
                settings.select, settings.extend_select = codes, []
            else:
                settings.ignore = settings.ignore + codes if extending else codes
        elif name in ("include", "exclude"):
            values = _strings(layer, key, value)
            setattr(settings, name, getattr(settings, name) + values if extending else values)
        elif name == "rule-packs":
            packs = [((layer.directory or Path.cwd()) / Path(p).expanduser()).resolve()
                     for p in _strings(layer, key, value)]
            missing = next((p for p in packs if not p.is_dir()), None)
            if missing is not None:
                raise ConfigError(f"{where(key)}: {missing}: rule pack directory not found")
            settings.rule_packs = settings.rule_packs + packs if extending else packs
        elif name == "per-file-ignores":
            table = _table(layer, key, value, "a table of glob = [codes]")
            merged = {g: list(c) for g, c in settings.per_file_ignores.items()} if extending else {}
            for glob, codes in table.items():
                codes = _strings(layer, (key, glob), codes)
                _check_selectors(settings, layer.where(key, glob), codes)
                merged[glob] = merged.get(glob, []) + codes
            settings.per_file_ignores = merged
        elif key == "formats":
            _apply_formats(settings, layer, value)
        elif key == "model":
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{where(key)} must be a model name such as \"gpt-4o\"")
            settings.model = value
        elif key == "models":
            _apply_models(settings, layer, value)
        elif key == "rules":
            _apply_rules(settings, layer, value)
        elif name == "frameworks":
            paths = [((layer.directory or Path.cwd()) / Path(p).expanduser()).resolve()
                     for p in _strings(layer, key, value)]
            settings.frameworks = settings.frameworks + paths if extending else paths
        elif key == "builtin-frameworks":
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)} must be true or false")
            settings.builtin_frameworks = value
        elif key == "fail-level":
            settings.fail_level = _choice(layer, key, value, FAIL_LEVELS)
        elif key == "confidence":
            settings.confidence = _choice(layer, key, value, CONFIDENCE_LEVELS)
        elif name == "test-paths":
            globs = _strings(layer, key, value)
            settings.test_paths = settings.test_paths + globs if extending else globs
        elif key == "preview":
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)} must be true or false")
            settings.preview = value
        elif key in FAMILY_TABLES:
            _apply_family(settings, layer, key, value)
        elif key == "cost":
            _apply_cost(settings, layer, value)
        elif key == "budget":
            from ctxlint.budget.policy import PolicyError, parse_config
            from ctxlint.model import Span

            def locate(keys: tuple, layer: Layer = layer) -> Span | None:
                line = line_of(layer.lines, (*layer.prefix, "budget", *(str(k) for k in keys)))
                return Span(layer.label, line, 1, line, 1) if line else None

            try:
                settings.budget = parse_config(value, ".".join((*layer.prefix, key)), layer.directory or Path.cwd(),
                                               locate)
            except PolicyError as error:
                line = error.span.line if error.span is not None else None
                raise ConfigError(f"{layer.label}{f':{line}' if line else ''}: {error.message}") from None
        elif key == "max-file-bytes":
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"{where(key)} must be a positive integer")
            settings.max_file_bytes = value
        else:
            raise ConfigError(f"{where(key)}: unknown key")


def _strings(layer: Layer, key: str | tuple[str, ...], value: object) -> list[str]:
    path = (key,) if isinstance(key, str) else key
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{layer.where(*path)} must be a list of strings")
    return list(value)


def _table(layer: Layer, key: str, value: object, shape: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{layer.where(key)} must be {shape}")
    return value


def _choice(layer: Layer, key: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"{layer.where(key)} must be one of {', '.join(choices)}")
    assert isinstance(value, str)
    return value


def _check_selectors(settings: Settings, where: str, selectors: list[str]) -> None:
    def check(catalogue: dict[str, Rule]) -> None:
        try:
            resolve(selectors, catalogue, where)
        except SelectionError as error:
            raise ConfigError(str(error)) from None

    settings.pending.append((where, check))


def _apply_formats(settings: Settings, layer: Layer, value: object) -> None:
    """`[formats]`: globs per format; `fmt = [...]` replaces, `extend-fmt = [...]` adds."""
    table = _table(layer, "formats", value, "a table of format = [globs]")
    for key, globs in sorted(table.items(), key=lambda item: item[0].startswith("extend-")):
        fmt = key.removeprefix("extend-")
        if fmt not in FORMATS:
            raise ConfigError(f"{layer.where('formats', key)}: unknown format; choose from {', '.join(FORMATS)}")
        patterns = _strings(layer, ("formats", key), globs)
        if fmt != key:
            current = settings.text_globs() if fmt == "text" else settings.formats.get(fmt, [])
            patterns = current + patterns
        settings.formats[fmt] = patterns


def _apply_models(settings: Settings, layer: Layer, value: object) -> None:
    """`[models."name"]`: entries of the model table, validated now; a later layer's keys win."""
    from ctxlint.tokens import load_extra_models

    table = _table(layer, "models", value, "a table of model tables")
    for name, entry in table.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"{layer.where('models', name)} must be a table")
        merged = {**settings.models.get(name, {}), **entry}
        try:
            load_extra_models({name: merged})
        except ValueError as error:
            bad = re.search(r"\] (\S+):", str(error))
            key = (bad.group(1),) if bad and bad.group(1) in entry else ()
            line = line_of(layer.lines, layer.prefix + ("models", name, *key))
            raise ConfigError(f"{layer.label}{f':{line}' if line else ''}: {error}") from None
        settings.models[name] = merged


def _apply_rules(settings: Settings, layer: Layer, value: object) -> None:
    """`[rules.CODE]`: options and severity per rule, checked against the catalogue later."""
    table = value if isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()) else None
    if table is None:
        raise ConfigError(f"{layer.where('rules')} must be a table of rule tables, e.g. [tool.ctxlint.rules.CTX101]")
    for rule_key, options in table.items():
        merge_options(settings.rule_options.setdefault(rule_key, {}), options)
        settings.pending.append((layer.where("rules", rule_key), _rule_check(layer, rule_key, dict(options))))


def _apply_family(settings: Settings, layer: Layer, family: str, value: object) -> None:
    """`[layout]` / `[trust]`: an option for every rule of the family that has it."""
    table = _table(layer, family, value, "a table of option = [values]")
    for key, values in table.items():
        _strings(layer, (family, key), values)
    merge_options(settings.family_options.setdefault(family, {}), table)

    def check(catalogue: dict[str, Rule]) -> None:
        known = family_options(catalogue, family)
        for key in table:
            if key.removeprefix("extend-") not in known:
                raise ConfigError(f"{layer.where(family, key)}: no {family} rule has this option (options: "
                                  f"{', '.join(sorted(known)) or 'none'}; each also as extend-NAME)")

    settings.pending.append((layer.where(family), check))


def _rule_check(layer: Layer, rule_key: str, options: dict) -> Callable[[dict[str, Rule]], None]:
    def check(catalogue: dict[str, Rule]) -> None:
        rule = find_rule(catalogue, rule_key)
        if rule is None:
            raise ConfigError(f"{layer.where('rules', rule_key)}: no such rule")
        for option, value in options.items():
            try:
                rule.with_overrides({option: value})
            except CatalogueError as error:
                line = line_of(layer.lines, layer.prefix + ("rules", rule_key, option))
                raise ConfigError(f"{layer.label}{f':{line}' if line else ''}: {error}") from None

    return check


def validate_rules(settings: Settings, catalogue: dict[str, Rule]) -> None:
    """Check every rule code, name and option the configuration gives (ConfigError)."""
    for _, check in settings.pending:
        check(catalogue)


def configured_rules(settings: Settings, catalogue: dict[str, Rule]) -> dict[str, Rule]:
    """Every rule with the configuration's options and severity applied: the family tables'
    options first (``[trust]``), then each rule's own table. Validates first (ConfigError); the
    catalogue's rules must carry their checks' option types (catalogue.with_checks)."""
    validate_rules(settings, catalogue)
    overrides = rule_overrides(settings.rule_options, settings.family_options, catalogue)
    return {code: rule.with_overrides(overrides.get(code, {})) for code, rule in catalogue.items()}


_COST_KEYS = (*COST_LIMITS, "expected-output-tokens", "set-aside", "extend-set-aside", "include-set-aside")


def _apply_cost(settings: Settings, layer: Layer, table: object) -> None:
    """`[tool.ctxlint.cost]`: absolute token limits, the expected answer length, what to set aside.
    A later layer's limits add to (or replace) the ones before it."""
    if not isinstance(table, dict):
        raise ConfigError(f"{layer.where('cost')} must be a table")
    limits = dict(settings.cost_limits)
    for key, value in sorted(table.items(), key=lambda item: item[0].startswith("extend-")):
        where = layer.where("cost", key)
        if key not in _COST_KEYS:
            raise ConfigError(f"{where}: unknown key (keys: {', '.join(_COST_KEYS)})")
        if key in ("set-aside", "extend-set-aside"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where} must be a list of globs")
            settings.set_aside = settings.set_aside + value if key.startswith("extend-") else list(value)
        elif key == "include-set-aside":
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false")
            settings.include_set_aside = value
        elif not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"{where} must be a positive number of tokens")
        elif key == "expected-output-tokens":
            settings.expected_output_tokens = value
        else:
            limits[key] = value
    settings.cost_limits = limits


# --- finding the configuration of each file ---------------------------------------------------


def config_in(directory: Path) -> Path | None:
    """The configuration file of ``directory`` itself, if it has one."""
    own = directory / "ctxlint.toml"
    if own.is_file():
        return own
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file() and _file_layer(pyproject) is not None:
        return pyproject
    return None


def find_config(start: Path) -> Path | None:
    """The nearest ctxlint.toml, or pyproject.toml with a [tool.ctxlint] table, above ``start``."""
    directory = start if start.is_dir() else start.parent
    for candidate in [directory, *directory.parents]:
        found = config_in(candidate)
        if found is not None:
            return found
    return None


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
        self.explicit = self._load(explicit.resolve(), self.cwd) if explicit is not None else None
        self.default = self.explicit or self._for_config(self._nearest(self.cwd))

    def for_path(self, path: Path) -> Settings:
        """The settings of a file or directory (symlinks resolved by the caller)."""
        if self.explicit is not None:
            return self.explicit
        directory = path if path.is_dir() else path.parent
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
            found = config_in(current)
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


def settings_table(settings: Settings) -> dict[str, Any]:
    """The resolved settings as a configuration table (``--show-settings``, the cache key); rule
    and family tables as the configuration files wrote them."""
    return {
        "select": settings.select,
        "extend-select": settings.extend_select,
        "ignore": settings.ignore,
        "per-file-ignores": settings.per_file_ignores,
        "include": settings.include,
        "exclude": settings.exclude,
        "formats": {**settings.formats, "text": settings.text_globs()},
        "model": settings.model,
        "fail-level": settings.fail_level,
        "confidence": settings.confidence,
        "preview": settings.preview,
        "max-file-bytes": settings.max_file_bytes,
        "rule-packs": [str(p) for p in settings.rule_packs],
        "frameworks": [str(p) for p in settings.frameworks],
        "builtin-frameworks": settings.builtin_frameworks,
        "test-paths": settings.test_paths,
        "rules": settings.rule_options,
        "models": settings.models,
        **settings.family_options,
        "cost": {**settings.cost_limits, "expected-output-tokens": settings.expected_output_tokens,
                 "set-aside": settings.set_aside, "include-set-aside": settings.include_set_aside},
    }


def dump_toml(table: dict[str, Any], prefix: tuple[str, ...] = ()) -> str:
    """A small TOML writer for settings tables: scalars and lists first, then sub-tables."""
    lines: list[str] = []
    subtables = []
    for key, value in table.items():
        if value is None:  # unset (TOML has no null)
            continue
        if isinstance(value, dict):
            subtables.append((key, value))
        else:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    out = "\n".join(lines)
    for key, value in subtables:
        path = (*prefix, key)
        body = dump_toml(value, path)
        header = "[" + ".".join(_toml_key(p) for p in path) + "]"
        has_scalars = any(not isinstance(v, dict) for v in value.values())
        if not value:
            block = header
        else:
            block = f"{header}\n{body}" if has_scalars else body
        out = f"{out}\n\n{block}" if out else block
    return out


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_value(key)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        import json

        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Iterable):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")
