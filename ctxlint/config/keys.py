"""Every key of a configuration table, validated and applied to the settings, and the checks of
rule codes and options that wait for the rule catalogue."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

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
from ctxlint.config.settings import (
    CONFIDENCE_LEVELS,
    COST_LIMITS,
    FAIL_LEVELS,
    FAMILY_TABLES,
    FORMATS,
    ConfigError,
    Layer,
    Settings,
)
from ctxlint.tomlpos import line_of

# Top-level list options: `key` replaces, `extend-key` adds.
_LISTS = ("select", "ignore", "include", "exclude", "rule-packs", "frameworks", "test-paths", "example-paths",
          "per-file-ignores")


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
        elif name in ("test-paths", "example-paths"):
            globs = _strings(layer, key, value)
            attribute = name.replace("-", "_")
            setattr(settings, attribute, getattr(settings, attribute) + globs if extending else globs)
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
        elif key == "baseline":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where(key)} must be the path of a baseline file (written by --write-baseline)")
            settings.baseline = ((layer.directory or Path.cwd()) / Path(value).expanduser()).resolve()
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
