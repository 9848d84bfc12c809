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

# How the layout and trust analyses read a prompt. Name patterns are globs over lower snake case
# variable names (see analysis/volatility.py); each list can be replaced (`collections = [...]`)
# or extended (`extend-collections = [...]`) under [tool.ctxlint.layout] / [tool.ctxlint.trust].
LAYOUT_DEFAULTS = {
    # Variables holding collections whose size varies: what budgets truncate or summarise first.
    "collections": [
        "history", "*_history", "history_*", "messages", "chat_messages", "conversation", "turns",
        "documents", "*_documents", "docs", "*_docs", "passages", "chunks", "*_chunks", "context",
        "contexts", "search_results", "results", "*_results", "snippets", "observations",
        "tool_results", "tool_outputs", "scratchpad", "memories", "memory", "examples", "few_shot*",
    ],
    # Words and phrases that make a sentence a hard constraint (English and Chinese).
    "constraints": [
        "never", "must", "must not", "do not", "don't", "only", "at most", "at least", "always",
        "exactly", "no more than", "no fewer than", "under no circumstances", "is forbidden",
        "not allowed", "required to",
        "不得", "必须", "禁止", "只能", "不要", "严禁", "务必", "不允许", "切勿", "不可", "最多", "至少",
    ],
    # Variables holding the current user turn, which belongs after all variable-length content.
    "questions": [
        "question", "query", "user_question", "user_query", "user_input", "user_request",
        "user_message", "current_question", "current_message", "latest_message", "input",
    ],
}
TRUST_DEFAULTS = {
    # Variables holding third-party content: web pages, retrieved documents, tool output, uploads.
    "untrusted": [
        "page", "*_page", "page_content", "page_text", "page_html", "html", "*_html", "web_*", "webpage*",
        "url_content", "scraped*",
        "document", "documents", "*_document", "*_documents", "doc", "docs", "*_docs", "context",
        "contexts", "passage", "passages", "chunk", "chunks", "*_chunks", "snippet", "snippets",
        "search_results", "*_search_results", "search_result", "retrieved*", "tool_output*",
        "tool_result*", "observation", "observations", "*_observation", "upload*", "attachment*",
        "email_body", "email_text", "email_content", "emails", "inbound_email", "raw_email",
        "file_content*", "*_file_content",
    ],
    "trusted": [],
    # Attributes of an untrusted item that are metadata, not content (ids, scores).
    "metadata": ["id", "*_id", "score", "rank", "index", "loop.*", "@*", "source", "url", "uri", "path",
                 "filename", "date", "*_at", "timestamp"],
    # Tag names (XML-style) and fence info strings that mark content as data.
    "delimiters": [
        "*document*", "*untrusted*", "*search_result*", "*tool_result*", "*tool_output*",
        "*observation*", "*context*", "*source*", "*email*", "*page*", "*snippet*", "*passage*",
        "*quote*", "*excerpt*", "*attachment*", "*article*", "*result*", "*data*", "*file*",
    ],
    # Filters and calls that escape or encode content so it cannot close its delimiter.
    "escapes": [
        "e", "escape", "forceescape", "tojson", "urlencode", "b64encode", "*datamark*", "*spotlight*",
        "html.escape", "markupsafe.escape", "xml.sax.saxutils.escape", "saxutils.escape", "json.dumps",
        "base64.b64encode", "quoteattr", "escape_html", "escape_xml", "*.escape", "he.encode", "json.stringify",
    ],
}

# Absolute limits that `ctxlint cost` enforces (exit 1 when crossed), with or without --compare:
# the input tokens of one request, of one tool definition, and of all tools offered in one request.
COST_LIMITS = {
    "max-request-tokens": "input tokens of one request",
    "max-tool-tokens": "tokens of one tool definition",
    "max-total-tool-tokens": "tokens of all the tools offered in one request",
}


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
    model: str = "gpt-4o"
    models: dict[str, dict] = field(default_factory=dict)
    rule_options: dict[str, dict] = field(default_factory=dict)
    rule_packs: list[Path] = field(default_factory=list)
    fail_level: str = "warning"
    # The least confidence a finding needs to be reported: by default only what rests on more
    # than a variable's name (see model.Confidence).
    confidence: str = "medium"
    preview: bool = False
    max_file_bytes: int = 2_000_000
    layout: dict[str, list[str]] = field(default_factory=lambda: {k: list(v) for k, v in LAYOUT_DEFAULTS.items()})
    trust: dict[str, list[str]] = field(default_factory=lambda: {k: list(v) for k, v in TRUST_DEFAULTS.items()})
    # Absolute limits for `ctxlint cost` ([tool.ctxlint.cost]), keyed as in COST_LIMITS; unset = no limit.
    cost_limits: dict[str, int] = field(default_factory=dict)

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
        elif key == "fail-level":
            if value not in FAIL_LEVELS:
                raise ConfigError(f"{where(key)} must be one of {', '.join(FAIL_LEVELS)}")
            settings.fail_level = value
        elif key == "confidence":
            if value not in CONFIDENCE_LEVELS:
                raise ConfigError(f"{where(key)} must be one of {', '.join(CONFIDENCE_LEVELS)}")
            settings.confidence = value
        elif key == "preview":
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)} must be true or false")
            settings.preview = value
        elif key in ("layout", "trust"):
            label = f"{prefix + '.' if prefix else ''}{key}"
            _apply_patterns(getattr(settings, key), value, path, label,
                            LAYOUT_DEFAULTS if key == "layout" else TRUST_DEFAULTS)
        elif key == "cost":
            label = f"{prefix + '.' if prefix else ''}{key}"
            settings.cost_limits = _cost_limits(value, path, label)
        elif key == "max-file-bytes":
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(f"{where(key)} must be a positive integer")
            settings.max_file_bytes = value
        else:
            raise ConfigError(f"{where(key)}: unknown key")


def _cost_limits(table, path: Path, label: str) -> dict[str, int]:
    """`[tool.ctxlint.cost]`: absolute token limits, each a positive integer."""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{label}` must be a table")
    limits = {}
    for key, value in table.items():
        if key not in COST_LIMITS:
            raise ConfigError(f"{path}: `{label}.{key}`: unknown key (keys: {', '.join(COST_LIMITS)})")
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"{path}: `{label}.{key}` must be a positive number of tokens")
        limits[key] = value
    return limits


def _apply_patterns(target: dict[str, list[str]], table, path: Path, label: str, defaults: dict) -> None:
    """`[tool.ctxlint.layout]` / `[tool.ctxlint.trust]`: replace (`key`) or extend (`extend-key`) lists."""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: `{label}` must be a table")
    for key, value in table.items():
        name = key.removeprefix("extend-")
        if name not in defaults:
            raise ConfigError(f"{path}: `{label}.{key}`: unknown key (keys: {', '.join(defaults)}, "
                              "each also as extend-KEY)")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: `{label}.{key}` must be a list of strings")
        target[name] = target[name] + value if key.startswith("extend-") else list(value)
