"""What a configuration resolves to (``Settings``), the defaults, where each table of settings
was written (``Layer``), and the resolved settings written back as TOML."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxlint.catalogue import Rule
from ctxlint.discover import DEFAULT_EXAMPLE_PATHS, DEFAULT_TEST_PATHS
from ctxlint.frontends import FORMATS as REGISTRY_FORMATS
from ctxlint.frontends import LINKED_TEXT_GLOBS, default_include
from ctxlint.tomlpos import KeyPath, line_of


class ConfigError(Exception):
    """An invalid configuration; the message names the file, the line and the key."""


# In order of precedence within one directory, as ruff reads .ruff.toml, ruff.toml, pyproject.toml;
# a pyproject.toml counts only with a [tool.ctxlint] table.
CONFIG_FILES = (".ctxlint.toml", "ctxlint.toml", "pyproject.toml")


# Files ctxlint looks at by default: those a format takes by name or suffix (the registry in
# ctxlint/frontends). Python, JavaScript, JSON and YAML files are sniffed cheaply by their
# front-ends and give nothing unless they hold prompts. Plain-text prompts are only linted under
# prompt folders, where a .txt or .md file is likely to be a prompt.
DEFAULT_INCLUDE = default_include()
DEFAULT_TEXT_GLOBS = ("prompts/**/*.txt", "prompts/**/*.md", "**/prompts/**/*.txt", "**/prompts/**/*.md")
FORMATS = tuple(REGISTRY_FORMATS)
FAIL_LEVELS = ("error", "warning", "info")
CONFIDENCE_LEVELS = ("high", "medium", "low")

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
    example_paths: list[str] = field(default_factory=lambda: list(DEFAULT_EXAMPLE_PATHS))
    max_file_bytes: int = 2_000_000
    # The baseline `ctxlint check` leaves recorded findings out by (`--baseline` wins), absolute.
    baseline: Path | None = None
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
        globs = [*self.include, *self.text_globs(), *LINKED_TEXT_GLOBS]
        for patterns in self.formats.values():
            globs.extend(patterns)
        return globs


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
        "baseline": str(settings.baseline) if settings.baseline is not None else None,
        "rule-packs": [str(p) for p in settings.rule_packs],
        "frameworks": [str(p) for p in settings.frameworks],
        "builtin-frameworks": settings.builtin_frameworks,
        "test-paths": settings.test_paths,
        "example-paths": settings.example_paths,
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
