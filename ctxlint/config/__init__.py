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

``settings`` holds what a configuration resolves to and the defaults, ``keys`` validates and
applies each key of a table, ``loading`` finds and reads the files and picks each path's.
"""

# What the rest of ctxlint imports; the other names stay in their modules.
from ctxlint.config.keys import apply_table, configured_rules, validate_rules
from ctxlint.config.loading import (
    Resolver,
    find_config,
    flag_layer,
    load_settings,
    override_layer,
    project_root,
)
from ctxlint.config.settings import (
    COST_LIMITS,
    DEFAULT_INCLUDE,
    DEFAULT_TEXT_GLOBS,
    FORMATS,
    ConfigError,
    Layer,
    Settings,
    dump_toml,
    settings_table,
)

__all__ = [  # by module, as imported above
    "apply_table", "configured_rules", "validate_rules",
    "Resolver", "find_config", "flag_layer", "load_settings", "override_layer", "project_root",
    "COST_LIMITS", "DEFAULT_INCLUDE", "DEFAULT_TEXT_GLOBS", "FORMATS", "ConfigError", "Layer", "Settings", "dump_toml",
    "settings_table",
]
