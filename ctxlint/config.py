"""Settings from ``[tool.ctxlint]`` in pyproject.toml or the same keys in ctxlint.toml.

The file is found by walking up from the first linted path; a ``ctxlint.toml`` wins over a
``pyproject.toml`` in the same directory, and a pyproject.toml without ``[tool.ctxlint]`` is
passed over. Every key is validated: a typo must stop the run (exit 2), not be ignored.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from ctxlint.frontends import FORMATS as REGISTRY_FORMATS
from ctxlint.frontends import default_include

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    """An invalid configuration; the message names the file and the key."""


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
    "test-data", "snapshots", "__snapshots__", "cassettes", "e2e", "mocks", "__mocks__", "conftest.py",
    "test_*.py", "*_test.py", "*.test.*", "*.spec.*", "*-test.*",
)

# Tables that set an option of every rule of a family at once: `[tool.ctxlint.trust]
# extend-untrusted = ["crawl_*"]` extends the `untrusted` option of CTX401, CTX402 and CTX403.
# The keys are checked against the catalogue when the rules load (engine.Linter).
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
    root: Path
    config_path: Path | None = None
    select: list[str] = field(default_factory=lambda: ["ALL"])
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

    def text_globs(self) -> list[str]:
        return self.formats.get("text", list(DEFAULT_TEXT_GLOBS))

    def all_globs(self) -> list[str]:
        globs = [*self.include, *self.text_globs()]
        for patterns in self.formats.values():
            globs.extend(patterns)
        return globs


def find_config(start: Path) -> Path | None:
    """The nearest ctxlint.toml, or pyproject.toml with a [tool.ctxlint] table, above ``start``."""
    directory = start if start.is_dir() else start.parent
    for candidate in [directory, *directory.parents]:
        own = candidate / "ctxlint.toml"
        if own.is_file():
            return own
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and _has_ctxlint_table(pyproject):
            return pyproject
    return None


def _has_ctxlint_table(path: Path) -> bool:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(data.get("tool"), dict) and "ctxlint" in data["tool"]


def load_settings(config_path: Path | None, root: Path) -> Settings:
    """Settings from ``config_path`` (or defaults when None), validated."""
    if config_path is None:
        return Settings(root=root)
    try:
        data = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{config_path}: cannot read: {error.strerror or error}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{config_path}: not valid TOML: {error}") from None
    if config_path.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("ctxlint", {}) if isinstance(tool, dict) else {}
        prefix = "tool.ctxlint"
        if not isinstance(table, dict):
            raise ConfigError(f"{config_path}: `tool.ctxlint` must be a table ([tool.ctxlint])")
    else:
        table = data
        prefix = ""
    settings = Settings(root=config_path.parent, config_path=config_path)
    apply_table(settings, table, config_path, prefix)
    return settings


def apply_table(settings: Settings, table: dict, path: Path, prefix: str = "") -> None:
    """Validate ``table`` (the keys of ``[tool.ctxlint]``) and apply it to ``settings``."""
    def where(key: str) -> str:
        return f"{path}: `{prefix + '.' if prefix else ''}{key}`"

    def strings(key: str, value) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where(key)} must be a list of strings")
        return list(value)

    for key, value in table.items():
        if key == "select":
            settings.select = strings(key, value)
        elif key in ("ignore", "extend-ignore"):
            settings.ignore += strings(key, value)
        elif key == "include":
            settings.include = strings(key, value)
        elif key == "extend-include":
            settings.include += strings(key, value)
        elif key in ("exclude", "extend-exclude"):
            settings.exclude += strings(key, value)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)} must be a table of glob = [codes]")
            settings.per_file_ignores = {glob: strings(f"{key}.{glob}", codes) for glob, codes in value.items()}
        elif key == "formats":
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)} must be a table of format = [globs]")
            for fmt, globs in value.items():
                if fmt not in FORMATS:
                    raise ConfigError(f"{where(key + '.' + fmt)}: unknown format; choose from {', '.join(FORMATS)}")
                settings.formats[fmt] = strings(f"{key}.{fmt}", globs)
        elif key == "model":
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{where(key)} must be a model name such as \"gpt-4o\"")
            settings.model = value
        elif key == "models":
            if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
                raise ConfigError(f"{where(key)} must be a table of model tables")
            settings.models = value
        elif key == "rules":
            if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
                raise ConfigError(f"{where(key)} must be a table of rule tables, e.g. [tool.ctxlint.rules.CTX101]")
            settings.rule_options = value
        elif key == "rule-packs":
            settings.rule_packs = [(path.parent / p).resolve() for p in strings(key, value)]
        elif key == "frameworks":
            settings.frameworks = [(path.parent / p).resolve() for p in strings(key, value)]
        elif key == "builtin-frameworks":
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)} must be true or false")
            settings.builtin_frameworks = value
        elif key == "fail-level":
            if value not in FAIL_LEVELS:
                raise ConfigError(f"{where(key)} must be one of {', '.join(FAIL_LEVELS)}")
            settings.fail_level = value
        elif key == "confidence":
            if value not in CONFIDENCE_LEVELS:
                raise ConfigError(f"{where(key)} must be one of {', '.join(CONFIDENCE_LEVELS)}")
            settings.confidence = value
        elif key == "test-paths":
            settings.test_paths = strings(key, value)
        elif key == "extend-test-paths":
            settings.test_paths += strings(key, value)
        elif key == "preview":
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)} must be true or false")
            settings.preview = value
        elif key in FAMILY_TABLES:
            if not isinstance(value, dict):
                raise ConfigError(f"{where(key)} must be a table")
            settings.family_options[key] = {name: strings(f"{key}.{name}", values) for name, values in value.items()}
        elif key == "cost":
            label = f"{prefix + '.' if prefix else ''}{key}"
            _apply_cost(settings, value, path, label)
        elif key == "budget":
            from ctxlint.budget.policy import PolicyError, parse_config

            try:
                settings.budget = parse_config(value, f"{prefix + '.' if prefix else ''}{key}", path.parent)
            except PolicyError as error:
                raise ConfigError(f"{path}: {error.message}") from None
        elif key == "max-file-bytes":
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"{where(key)} must be a positive integer")
            settings.max_file_bytes = value
        else:
            raise ConfigError(f"{where(key)}: unknown key")


_COST_KEYS = (*COST_LIMITS, "expected-output-tokens", "set-aside", "extend-set-aside", "include-set-aside")


def _apply_cost(settings: Settings, table, path: Path, label: str) -> None:
    """`[tool.ctxlint.cost]`: absolute token limits, the expected answer length, what to set aside."""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{label}` must be a table")
    limits = {}
    for key, value in table.items():
        where = f"{path}: `{label}.{key}`"
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
