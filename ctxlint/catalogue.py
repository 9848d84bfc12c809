"""The rule catalogue: one YAML file per rule, shipped inside the package, and how rules are
chosen and configured.

A rule file is data: code, name, severity, the check function it runs with which options, its
docs and its examples. The same file feeds `ctxlint rule`, the SARIF rule metadata and the
example tests. Users add rule packs (directories of rule files) from their configuration.
Options that every rule of a family reads (the trust rules' vocabularies) are written once, in
the family's ``family.yaml`` (``family:`` and ``options:``); each rule of the family takes them,
before its own.

This layer knows the option types a check may declare and resolves rule selectors
(``--select CTX1``) and rule tables, but never imports the checks: whoever loads a catalogue to
run it hands over what each check declares (:func:`with_checks`), and the rules carry it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ctxlint.model import Confidence, Severity

DOC_SECTIONS = ("what", "why", "example", "instead", "options")
CODE_PATTERN = re.compile(r"^[A-Z]{2,8}[0-9]{3,4}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class CatalogueError(Exception):
    """A rule file that is malformed; the message names the file and the problem."""


class SelectionError(Exception):
    """A rule selector (``--select``, ``ignore``, ``per-file-ignores``) that names no rule."""


# Option types a check can declare (``options={"names": STRINGS}``).
STRINGS = "a list of strings"
STRING = "a string"
INTEGER = "an integer"
NUMBER = "a number"
BOOLEAN = "true or false"


def option_type_ok(kind: str, value: Any) -> bool:
    if kind == STRINGS:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == STRING:
        return isinstance(value, str)
    if kind == BOOLEAN:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == INTEGER:
        return isinstance(value, int)
    return isinstance(value, (int, float))


@dataclass(frozen=True)
class Example:
    id: str
    file: str
    source: str
    expect: tuple[dict, ...]
    config: dict = field(default_factory=dict)
    # Other files of the project the example's file is linted in (the code that renders a
    # template), by path.
    files: dict = field(default_factory=dict)


@dataclass(frozen=True)
class EvidenceKindSpec:
    """One kind of evidence a rule's findings rest on: what it is and how sure it makes them."""

    confidence: Confidence
    says: str
    measured: str = ""  # the precision measured on the corpus, as the README's table gives it


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    family: str
    severity: Severity
    check: str
    options: dict
    summary: str
    docs: dict
    path: Path
    fixable: bool = False
    # A preview rule runs only when asked for (`--preview`, or its code or name selected):
    # its precision on the development corpus is below the bar for the default set.
    preview: bool = False
    # How the rule measured on hand-judged findings of real repositories (benchmarks/judged/).
    precision: str = ""
    # The kinds of evidence its check reports on, each with the confidence it carries: a
    # finding's confidence comes from its kind, calibrated on the corpus (README, "Evidence and
    # confidence"). A rule without a table reports at the confidence its check gives.
    evidence: dict[str, EvidenceKindSpec] = field(default_factory=dict)
    # The options its check declares and their types; None until the catalogue is given the
    # checks (with_checks), which a configured rule needs.
    option_types: Mapping[str, str] | None = field(default=None, compare=False, repr=False)
    # The rule file's `examples:` block as written, read only when the examples are asked for:
    # they are most of a rule file's text and a lint run never needs them.
    examples_yaml: str = field(default="", compare=False, repr=False)

    @cached_property
    def examples(self) -> tuple[Example, ...]:
        """The rule's examples; a malformed one raises CatalogueError when they are first read."""
        if not self.examples_yaml:
            return ()
        data = _load_yaml(self.path, "rule file", self.examples_yaml)
        return tuple(_example(self.path, i, e) for i, e in enumerate(data.get("examples") or []))

    def with_overrides(self, overrides: dict) -> Rule:
        """This rule with the user's `[tool.ctxlint.rules.CODE]` table applied (validated).

        A list option can be replaced (``names = [...]``) or extended (``extend-names = [...]``).
        """
        types = self.option_types
        assert types is not None, f"{self.code} was loaded without its check's options (with_checks)"
        options = dict(self.options)
        severity = self.severity
        for key, value in overrides.items():
            name = key.removeprefix("extend-")
            if key == "severity":
                try:
                    severity = Severity(value)
                except ValueError:
                    raise CatalogueError(
                        f"`rules.{self.code}.severity` must be one of error, warning, info"
                    ) from None
            elif name not in types or (key != name and types[name] != STRINGS):
                known = ", ".join(sorted(types)) or "none"
                raise CatalogueError(f"`rules.{self.code}.{key}`: unknown option (options: {known}; "
                                     "a list option can also be extended with extend-NAME)")
            elif not option_type_ok(types[name], value):
                raise CatalogueError(
                    f"`rules.{self.code}.{key}` must be {types[name]}, like the default {options[name]!r}"
                )
            else:
                options[name] = options[name] + value if key != name else value
        return replace(self, options=options, severity=severity)


def builtin_rules_dir() -> Path:
    """The catalogue inside the installed wheel, or the repository's `rules/` in a checkout."""
    packaged = Path(__file__).parent / "rules"
    return packaged if packaged.is_dir() else Path(__file__).parent.parent / "rules"


# What each check declares: check name -> option name -> option type.
CheckOptions = Mapping[str, Mapping[str, str]]


def load_catalogue(packs: Sequence[Path] = (), checks: CheckOptions | None = None) -> dict[str, Rule]:
    """All rules by code: the built-in catalogue, then each user pack in order. With ``checks``,
    every rule is checked against its check as it loads (see :func:`with_checks`)."""
    rules: dict[str, Rule] = {}
    directories = [builtin_rules_dir(), *packs]
    for directory in directories:
        if not directory.is_dir():
            raise CatalogueError(f"{directory}: rule pack directory not found")
    # Family files first, from every pack: a pack's rule may belong to a built-in family.
    paths = [path for directory in directories for path in sorted(directory.rglob("*.yaml"))]
    families: dict[str, tuple[Path, dict]] = {}
    for path in (p for p in paths if p.name == FAMILY_FILE):
        name, options = load_family(path)
        if name in families:
            raise CatalogueError(f"{path}: family {name} is already defined by {families[name][0]}")
        families[name] = path, options
    for path in (p for p in paths if p.name != FAMILY_FILE):
        rule = load_rule(path)
        if rule.family in families:
            rule = replace(rule, options={**families[rule.family][1], **rule.options})
        if checks is not None:
            rule = with_check(rule, checks)
        if rule.code in rules:
            raise CatalogueError(f"{path}: code {rule.code} is already used by {rules[rule.code].path}")
        clash = next((r for r in rules.values() if r.name == rule.name), None)
        if clash:
            raise CatalogueError(f"{path}: name {rule.name} is already used by {clash.code}")
        rules[rule.code] = rule
    return rules


FAMILY_FILE = "family.yaml"


def load_family(path: Path) -> tuple[str, dict]:
    """A family file's name and the options every rule of the family takes."""
    data = _load_yaml(path, "family file")
    extra = sorted(set(data) - {"family", "options"})
    if extra:
        raise CatalogueError(f"{path}: a family file holds `family` and `options`, not `{extra[0]}`")
    name, options = data.get("family"), data.get("options")
    if not isinstance(name, str) or not name.strip():
        raise CatalogueError(f"{path}: `family` is required (str)")
    if not isinstance(options, dict):
        raise CatalogueError(f"{path}: `options` must be a mapping")
    return name, options


def with_checks(catalogue: Mapping[str, Rule], checks: CheckOptions) -> dict[str, Rule]:
    """The catalogue with each rule checked against its check (CatalogueError) and carrying the
    check's option types; rules that already carry them are kept as they are."""
    return {code: rule if rule.option_types is not None else with_check(rule, checks)
            for code, rule in catalogue.items()}


def with_check(rule: Rule, checks: CheckOptions) -> Rule:
    """The rule names a check that exists and gives it exactly the options it declares."""
    if rule.check not in checks:
        raise CatalogueError(f"{rule.path}: check `{rule.check}` does not exist")
    types = checks[rule.check]
    missing = [name for name in types if name not in rule.options]
    if missing:
        raise CatalogueError(f"{rule.path}: option `{missing[0]}` is required by check `{rule.check}` "
                             f"({types[missing[0]]})")
    for name, value in rule.options.items():
        if name not in types:
            known = ", ".join(sorted(types)) or "none"
            raise CatalogueError(f"{rule.path}: option `{name}` is not an option of check `{rule.check}` "
                                 f"(options: {known})")
        if not option_type_ok(types[name], value):
            raise CatalogueError(f"{rule.path}: option `{name}` must be {types[name]}")
    return replace(rule, option_types=dict(types))


def _load_yaml(path: Path, what: str, text: str | None = None) -> dict:
    """The mapping in the YAML file at ``path``, or in ``text`` (a part of that file, with its
    lines where they are in the file)."""
    from ctxlint import yamlsafe  # the catalogue is YAML; imported here so `ctxlint --help` stays fast

    try:
        data = yamlsafe.load_file(path, text)
    except yamlsafe.FileError as error:
        raise CatalogueError(f"{error.where}: cannot load {what}: {error.reason}") from None
    if not isinstance(data, dict):
        raise CatalogueError(f"{path}: a {what} must be a mapping")
    return data


# A rule file's top-level `examples:` key and the lines under it, up to the next top-level key
# (where ``re.compile(r"^examples:.*\n(?:(?:[ \t#-].*|)\n?)*", re.M)`` matches).
# Where that block ends: the first line after it that starts at the top level (not blank, not
# indented, not a comment or a list item).
_TOP_LEVEL_LINE = re.compile(r"\n[^ \t#\n-]")


def examples_block(text: str) -> tuple[int, int] | None:
    """Where the `examples:` block of a rule file's ``text`` is (start, end), or None: the span
    the pattern above matches, found without it. The block is most of a rule file (1.6 MB of
    examples in all), which the pattern steps through line by line; these searches skip over it."""
    start = 0 if text.startswith("examples:") else text.find("\nexamples:") + 1
    if start == 0 and not text.startswith("examples:"):
        return None
    first_end = text.find("\n", start)
    if first_end < 0:  # the key on the last line, with no line break: the pattern needs one
        return None
    following = _TOP_LEVEL_LINE.search(text, first_end)
    return start, following.start() + 1 if following else len(text)


def load_rule(path: Path) -> Rule:
    """One rule file, with its own options only (:func:`load_catalogue` adds its family's)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogueError(f"{path}: cannot load rule file: {error}") from None
    block = examples_block(text)
    examples_yaml = ""
    if block:  # kept apart, its lines where they are in the file, so its errors name them
        start, end = block
        examples_yaml = "\n" * text.count("\n", 0, start) + text[start:end]
        text = text[:start] + text[end:]
    data = _load_yaml(path, "rule file", text)

    def need(key: str, kind: type = str) -> Any:
        value = data.get(key)
        if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
            raise CatalogueError(f"{path}: `{key}` is required ({kind.__name__})")
        return value

    code, name = need("code"), need("name")
    if not CODE_PATTERN.match(code):
        raise CatalogueError(f"{path}: code {code!r} must look like CTX101")
    if not NAME_PATTERN.match(name):
        raise CatalogueError(f"{path}: name {name!r} must be kebab-case")
    try:
        severity = Severity(need("severity"))
    except ValueError:
        raise CatalogueError(f"{path}: severity must be error, warning or info") from None
    docs = need("docs", dict)
    missing = [s for s in DOC_SECTIONS if not isinstance(docs.get(s), str) or not docs[s].strip()]
    if missing:
        raise CatalogueError(f"{path}: docs section(s) missing: {', '.join(missing)}")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise CatalogueError(f"{path}: `options` must be a mapping")
    return Rule(
        code=code,
        name=name,
        family=need("family"),
        severity=severity,
        check=need("check"),
        options=options,
        summary=need("summary").strip(),
        docs=docs,
        path=path,
        fixable=bool(data.get("fixable", False)),
        preview=_flag(path, data, "preview"),
        precision=str(data.get("precision") or "").strip(),
        evidence=_evidence(path, data.get("evidence")),
        examples_yaml=examples_yaml,
    )


def _evidence(path: Path, data: object) -> dict[str, EvidenceKindSpec]:
    """The rule's `evidence:` table: ``kind: {confidence: high|medium|low, says: "...",
    measured: "..."}``."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CatalogueError(f"{path}: `evidence` must be a mapping of kinds")
    kinds = {}
    for kind, spec in data.items():
        if not isinstance(kind, str) or not NAME_PATTERN.match(kind):
            raise CatalogueError(f"{path}: evidence kind {kind!r} must be kebab-case")
        if not isinstance(spec, dict) or not isinstance(spec.get("says"), str):
            raise CatalogueError(f"{path}: evidence `{kind}` needs `confidence` and `says`")
        try:
            confidence = Confidence(spec.get("confidence"))
        except ValueError:
            raise CatalogueError(f"{path}: evidence `{kind}`: confidence must be high, medium or low") from None
        kinds[kind] = EvidenceKindSpec(confidence, spec["says"].strip(), str(spec.get("measured") or "").strip())
    return kinds


def _flag(path: Path, data: dict, key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise CatalogueError(f"{path}: `{key}` must be true or false")
    return value


def _example(path: Path, index: int, data) -> Example:
    if not isinstance(data, dict):
        raise CatalogueError(f"{path}: example {index + 1} must be a mapping")
    missing = [k for k in ("id", "file", "source", "expect") if k not in data]
    if missing:
        raise CatalogueError(f"{path}: example {index + 1} lacks {', '.join(missing)}")
    expect = data["expect"] or []
    if not isinstance(expect, list) or not all(isinstance(e, dict) and "line" in e for e in expect):
        raise CatalogueError(f"{path}: example {data['id']}: `expect` must be a list of {{line: N}} entries")
    files = data.get("files") or {}
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise CatalogueError(f"{path}: example {data['id']}: `files` must map paths to their text")
    return Example(str(data["id"]), str(data["file"]), str(data["source"]), tuple(expect), data.get("config") or {},
                   files)


# --- choosing and configuring rules ------------------------------------------------------------


def find_rule(catalogue: Mapping[str, Rule], key: str) -> Rule | None:
    """A rule by code (any case) or by name."""
    return catalogue.get(key.upper()) or next((r for r in catalogue.values() if r.name == key), None)


def resolve(selectors: Iterable[str], catalogue: Mapping[str, Rule], what: str, preview: bool = True) -> set[str]:
    """The codes that selectors name: ``ALL``, a code, a code prefix (``CTX1``) or a rule name.

    Without ``preview``, ``ALL`` and prefixes leave preview rules out; naming a preview rule by
    its full code or name still selects it (as ruff does for rules one opts into).
    """
    codes: set[str] = set()
    for selector in selectors:
        key = selector.strip()
        if not key:
            raise SelectionError(f"{what}: an empty rule selector selects nothing; remove it")
        exact = {c for c, r in catalogue.items() if c == key.upper() or r.name == key}
        if key.upper() == "ALL":
            matched = set(catalogue)
        else:
            matched = exact or {c for c in catalogue if c.startswith(key.upper())}
        if not matched:
            raise SelectionError(f"{what}: unknown rule code or name `{selector}` (see `ctxlint rule`)")
        codes |= {c for c in matched if preview or c in exact or not catalogue[c].preview}
    return codes


def merge_options(current: dict, table: Mapping) -> None:
    """Apply one layer's option table: `name` replaces (and drops what extended it before),
    `extend-name` adds to what earlier layers extended. Replacements apply first."""
    for option, value in sorted(table.items(), key=lambda item: item[0].startswith("extend-")):
        if option.startswith("extend-") and isinstance(current.get(option), list) and isinstance(value, list):
            current[option] = current[option] + value
        else:
            current[option] = value
            current.pop(f"extend-{option}", None)


def family_options(catalogue: Mapping[str, Rule], family: str) -> set[str]:
    """The options that some rule of ``family`` has (what ``[tool.ctxlint.trust]`` may set)."""
    return {name for rule in catalogue.values() if rule.family == family for name in rule.option_types or ()}


def rule_overrides(rule_options: Mapping[str, Mapping], families: Mapping[str, Mapping],
                   catalogue: Mapping[str, Rule]) -> dict[str, dict]:
    """Each rule's options and severity from the configuration, by code, in the order they
    apply: the family table's options that the rule has (``families``: ``[trust]``), then its own
    table (``rule_options``: tables keyed by code and by name, merged as written). The keys must
    name rules of the catalogue (the configuration validated them)."""
    merged: dict[str, dict] = {}
    for code, rule in catalogue.items():
        options = rule.option_types or {}
        shared = {key: value for key, value in families.get(rule.family, {}).items()
                  if key.removeprefix("extend-") in options}
        if shared:
            merged[code] = shared
    for key, options in rule_options.items():
        named = find_rule(catalogue, key)
        assert named is not None  # validated
        merge_options(merged.setdefault(named.code, {}), options)
    return merged
