"""Budget declarations: per-segment policies, key fields, the minimum budget and the fixtures.

Three places declare them, applied in this order (a later one wins key by key):

1. the configuration, by file glob (``[tool.ctxlint.budget."prompts/*.prompty"]``);
2. the prompt's front matter (Prompty ``ctxlint: {budget: …}``; Dotprompt also takes its
   extension spelling ``ctxlint.budget: …``);
3. ``ctxlint: budget …`` and ``ctxlint: key-field …`` directives in the file's comment syntax.

Every form has the same keys. A segment policy: ``policy`` (pin, compress, summarize, truncate,
drop), ``priority`` (a weight, 0-1000), ``min`` (tokens granted before the rest is shared),
``ref`` (where the content can be fetched again), ``size`` (tokens to fill when no fixture gives
content), ``turns`` (summarize: the last turns kept whole) and ``head`` (truncate: the percent
of the grant kept from the start). A key field: a name, the segment it lives in, and either a
literal ``text`` or a ``regex``. The request: ``min-budget`` (the smallest budget at which every
key field must survive; rule CTX206 checks it) and ``fixtures`` (a file of sample content,
relative to the file that names it).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ctxlint.model import Span

POLICIES = ("pin", "compress", "summarize", "truncate", "drop")
SEGMENT_KEYS = ("policy", "priority", "min", "ref", "size", "turns", "head")
REQUEST_KEYS = ("min-budget", "fixtures", "segments", "key-fields")
FIELD_KEYS = ("name", "segment", "text", "regex")
# Integer keys: their bounds (inclusive) and what a message calls them.
_INTEGERS = {
    "priority": (0, 1000, "a weight from 0 to 1000"),
    "min": (0, 10_000_000, "a number of tokens"),
    "size": (0, 10_000_000, "a number of tokens"),
    "turns": (1, 1000, "a number of turns, at least 1"),
    "head": (1, 99, "a percent from 1 to 99"),
    "min-budget": (1, 10_000_000, "a positive number of tokens"),
}
# The longest words a directive may have: shlex reads more in time that grows faster than their
# length, and a directive this long is a comment that never closes.
MAX_DIRECTIVE_CHARS = 20_000
_SEGMENT_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")


class PolicyError(Exception):
    """A budget declaration that cannot be used; ``where`` locates it (``path:line`` or a config key)."""

    def __init__(self, message: str, where: str = "", span: Span | None = None):
        super().__init__(message)
        self.message = message
        self.where = where or (f"{span.path}:{span.line}" if span is not None else "")
        self.span = span

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


@dataclass(frozen=True)
class SegmentPolicy:
    """What one declaration says about a segment; None leaves the default (or an earlier one)."""

    policy: str | None = None
    priority: int | None = None
    minimum: int | None = None
    ref: str | None = None
    size: int | None = None
    turns: int | None = None
    head: int | None = None
    span: Span | None = None

    def over(self, base: SegmentPolicy) -> SegmentPolicy:
        """This declaration applied on top of ``base``: what is set here wins."""
        changes = {name: getattr(self, name) for name in _POLICY_FIELDS if getattr(self, name) is not None}
        return replace(base, **changes)


_POLICY_FIELDS = ("policy", "priority", "minimum", "ref", "size", "turns", "head", "span")


@dataclass(frozen=True)
class KeyField:
    """A must-survive field: a literal or a regular expression, in one named segment."""

    name: str
    segment: str
    literal: str | None = None
    regex: re.Pattern[str] | None = None
    span: Span | None = None  # where it is declared; None when it comes from the configuration

    @property
    def pattern(self) -> str:
        """How the field is shown: ``"in cents"`` or ``/\\b429\\b/``."""
        return f'"{self.literal}"' if self.literal is not None else f"/{self.regex.pattern if self.regex else ''}/"

    def search(self, text: str) -> tuple[int, int] | None:
        """Where the field first occurs in ``text``, or None."""
        if self.literal is not None:
            start = text.find(self.literal)
            return (start, start + len(self.literal)) if start >= 0 else None
        match = self.regex.search(text) if self.regex is not None else None
        return match.span() if match else None


@dataclass
class Declarations:
    """Everything declared about one prompt's budget, merged from every place that declares it."""

    segments: dict[str, SegmentPolicy] = field(default_factory=dict)
    fields: list[KeyField] = field(default_factory=list)
    min_budget: int | None = None
    min_budget_span: Span | None = None
    fixtures: Path | None = None
    # Prompty's `sample:` inputs from the front matter: fixtures when no fixture file is found.
    samples: Mapping[str, object] | None = None
    samples_line: int = 1
    # Names the configuration declares: they apply to every prompt its glob matches, so a name
    # one prompt lacks is no mistake (a name in the prompt's own declarations is).
    lenient: frozenset[str] = frozenset()

    def merge(self, later: Declarations) -> None:
        """Apply ``later`` on top: its segment keys, budget and fixtures win; fields add up (a
        field declared again under the same name replaces the earlier one)."""
        for name, policy in later.segments.items():
            self.segments[name] = policy.over(self.segments.get(name, SegmentPolicy()))
        names = {f.name for f in later.fields}
        self.fields = [f for f in self.fields if f.name not in names] + list(later.fields)
        if later.min_budget is not None:
            self.min_budget, self.min_budget_span = later.min_budget, later.min_budget_span
        if later.fixtures is not None:
            self.fixtures = later.fixtures
        if later.samples is not None:
            self.samples, self.samples_line = later.samples, later.samples_line
        self.lenient = frozenset(self.lenient | later.lenient) - (set(later.segments) - later.lenient)


# --- directives ------------------------------------------------------------------------------


def parse_directive(kind: str, arguments: str, span: Span, base_dir: Path) -> Declarations:
    """One ``ctxlint: budget …`` or ``ctxlint: key-field …`` comment.

    ``budget SEGMENT key=value …`` declares a segment policy; ``budget min-budget=N
    fixtures=FILE`` the request's settings; ``key-field NAME segment=S text="…"|regex="…"`` a key
    field (quote values with spaces; backslashes in double quotes are kept as written).
    """
    if len(arguments) > MAX_DIRECTIVE_CHARS:
        raise PolicyError(f"`ctxlint: {kind}`: its words run {len(arguments):,} characters, past the "
                          f"{MAX_DIRECTIVE_CHARS:,} a directive is read to, so it was not read (is its comment "
                          "closed?)", span=span)
    try:
        words = shlex.split(arguments, posix=True)
    except ValueError as error:
        raise PolicyError(f"`ctxlint: {kind}`: {error} (close the quotes)", span=span) from None
    positional = [w for w in words if "=" not in w]
    pairs: dict[str, object] = {}
    for word in words:
        if "=" in word:
            key, _, value = word.partition("=")
            if key in pairs:
                raise PolicyError(f"`ctxlint: {kind}`: `{key}` is given twice", span=span)
            pairs[key] = value
    if kind == "key-field":
        if len(positional) > 1 or (positional and "name" in pairs):
            raise PolicyError("`ctxlint: key-field` takes one name (quote a name with spaces)", span=span)
        if positional:
            pairs["name"] = positional[0]
        return Declarations(fields=[_field(pairs, "`ctxlint: key-field`", span)])

    declared = Declarations()
    if not positional:
        unknown = [k for k in pairs if k not in ("min-budget", "fixtures")]
        if unknown or not pairs:
            raise PolicyError(
                "`ctxlint: budget` needs a segment name (`ctxlint: budget history policy=summarize`) "
                f"or the request's `min-budget=N` / `fixtures=FILE`{_unknown_note(unknown)}", span=span)
        if "min-budget" in pairs:
            declared.min_budget = _integer("min-budget", _number(pairs["min-budget"]), "`ctxlint: budget`", span)
            declared.min_budget_span = span
        if "fixtures" in pairs:
            declared.fixtures = _path(pairs["fixtures"], base_dir, "`ctxlint: budget`", span)
        return declared
    if len(positional) > 1:
        raise PolicyError(f"`ctxlint: budget` names one segment, got {', '.join(positional)}", span=span)
    name = _segment_name(positional[0], "`ctxlint: budget`", span)
    values = {k: _number(v) if k in _INTEGERS else v for k, v in pairs.items()}
    declared.segments[name] = _segment_policy(values, f"`ctxlint: budget {name}`", span)
    return declared


def _unknown_note(unknown: list[str]) -> str:
    return f"; unknown key `{unknown[0]}`" if unknown else ""


def _number(value: object) -> object:
    """A directive's number (``800``, ``1_200``, ``1,200``) as an int; anything else unchanged."""
    if not isinstance(value, str):
        return value
    text = value.replace("_", "").replace(",", "")
    return int(text) if text.isdigit() else value


# --- mappings: front matter and configuration ---------------------------------------------------

Locator = Callable[[tuple[object, ...]], Span | None]


def parse_mapping(data: object, where: str, base_dir: Path, locate: Locator | None = None,
                  lenient: bool = False) -> Declarations:
    """The ``budget`` table of the front matter or of one config glob (keys in REQUEST_KEYS).

    ``locate`` maps a key path (``("segments", "history")``, ``("key-fields", 2)``) to its span
    in the source; ``where`` names the table in messages.
    """
    def at(*path: object) -> Span | None:
        return locate(path) if locate is not None else None

    if not isinstance(data, Mapping):
        raise PolicyError(f"{where} must be a table of {', '.join(REQUEST_KEYS)}", span=at())
    declared = Declarations()
    for key, value in data.items():
        if key == "min-budget":
            declared.min_budget = _integer(key, value, where, at(key))
            declared.min_budget_span = at(key)
        elif key == "fixtures":
            declared.fixtures = _path(value, base_dir, f"{where}.fixtures", at(key))
        elif key == "segments":
            if not isinstance(value, Mapping):
                raise PolicyError(f"{where}.segments must be a table of segment name = policy table",
                                  span=at(key))
            for name, table in value.items():
                label = f"{where}.segments.{name}"
                span = at(key, name)
                name = _segment_name(name, label, span)
                if not isinstance(table, Mapping):
                    raise PolicyError(f"{label} must be a table of {', '.join(SEGMENT_KEYS)}", span=span)
                declared.segments[name] = _segment_policy(dict(table), label, span)
        elif key == "key-fields":
            if not isinstance(value, list):
                raise PolicyError(f"{where}.key-fields must be a list of tables with name, segment and "
                                  "text or regex", span=at(key))
            for index, item in enumerate(value):
                label = f"{where}.key-fields[{index}]"
                if not isinstance(item, Mapping):
                    raise PolicyError(f"{label} must be a table with name, segment and text or regex",
                                      span=at(key, index))
                declared.fields.append(_field(dict(item), label, at(key, index)))
        else:
            raise PolicyError(f"{where}.{key}: unknown key (keys: {', '.join(REQUEST_KEYS)})", span=at(key))
    names = {f.name for f in declared.fields}
    if len(names) < len(declared.fields):
        raise PolicyError(f"{where}.key-fields: two key fields have the same name", span=at("key-fields"))
    if lenient:
        declared.lenient = frozenset(declared.segments)
    return declared


def parse_config(table: object, label: str, base_dir: Path, locate: Locator | None = None) -> list[
        tuple[str, Declarations]]:
    """``[tool.ctxlint.budget]``: one budget table per file glob, validated now (at config load).
    ``locate`` gives the span of a key path below the table (``(glob, "segments", name)``)."""
    if not isinstance(table, Mapping):
        raise PolicyError(f"`{label}` must be a table of file glob = budget table, "
                          f'e.g. [{label}."prompts/*.prompty"]', span=locate(()) if locate else None)
    globs = []
    for glob, data in table.items():
        def at(keys: tuple[object, ...], glob: str = str(glob)) -> Span | None:
            return locate((glob, *keys)) if locate is not None else None

        globs.append((str(glob), parse_mapping(data, f"`{label}.\"{glob}\"`", base_dir, at, lenient=True)))
    return globs


def front_matter(header: str, first_line: int, path: str, base_dir: Path) -> Declarations | None:
    """The budget declared in YAML front matter (``header``, starting on ``first_line``): under
    ``ctxlint: {budget: …}`` or Dotprompt's extension key ``ctxlint.budget``, with Prompty's
    ``sample:`` inputs. None when there is neither, or when the YAML does not load (the
    front-end reports that as CTX001)."""
    import yaml

    from ctxlint import yamlsafe

    try:
        document = yamlsafe.load(header)
    except yamlsafe.YamlError:
        return None
    data = document.data
    if not isinstance(data, Mapping):
        return None
    samples = _samples(data.get("sample"))
    prefix: tuple[str, ...]
    if "ctxlint.budget" in data:
        budget, prefix = data["ctxlint.budget"], ("ctxlint.budget",)
    elif isinstance(data.get("ctxlint"), Mapping) and "budget" in data["ctxlint"]:
        budget, prefix = data["ctxlint"]["budget"], ("ctxlint", "budget")
    elif samples is not None:
        return Declarations(samples=samples, samples_line=_line(document.node, "sample", first_line))
    else:
        return None

    def locate(keys: tuple[object, ...]) -> Span | None:
        node = _yaml_node(document.node, (*prefix, *keys))
        if node is None:
            return None
        start = node.start_mark
        return Span(path, start.line + first_line, start.column + 1, start.line + first_line,
                    start.column + 1 + (len(node.value) if isinstance(node, yaml.ScalarNode) else 0))

    label = "`" + ".".join(prefix) + "`"
    declared = parse_mapping(budget, label, base_dir, locate)
    if samples is not None:
        declared.samples, declared.samples_line = samples, _line(document.node, "sample", first_line)
    return declared


def _samples(sample: object) -> Mapping[str, object] | None:
    """Prompty's sample inputs, without values that point elsewhere (``${file:sample.json}``)."""
    if not isinstance(sample, Mapping):
        return None
    kept = {k: v for k, v in sample.items()
            if isinstance(k, str) and not (isinstance(v, str) and v.lstrip().startswith("${"))}
    return kept or None


def _line(node, key: str, first_line: int) -> int:
    found = _yaml_node(node, (key,))
    return found.start_mark.line + first_line if found is not None else first_line


def _yaml_node(node, keys: tuple[object, ...]):
    """The node at ``keys`` (mapping keys give their key node, list indices their item)."""
    import yaml

    found = node
    for position, key in enumerate(keys):
        if isinstance(found, yaml.MappingNode) and isinstance(key, str):
            for k, v in found.value:
                if isinstance(k, yaml.ScalarNode) and k.value == key:
                    if position == len(keys) - 1:
                        return k
                    found = v
                    break
            else:
                return None
        elif isinstance(found, yaml.SequenceNode) and isinstance(key, int) and key < len(found.value):
            found = found.value[key]
        else:
            return None
    return found


# --- values --------------------------------------------------------------------------------------


def _segment_policy(values: dict[str, object], label: str, span: Span | None) -> SegmentPolicy:
    for key in values:
        if key not in SEGMENT_KEYS:
            raise PolicyError(f"{label}: unknown key `{key}` (keys: {', '.join(SEGMENT_KEYS)})", span=span)
    policy = values.get("policy")
    if policy is not None and policy not in POLICIES:
        raise PolicyError(f"{label}: policy `{policy}` is not one of {', '.join(POLICIES)}", span=span)
    ref = values.get("ref")
    if ref is not None and (not isinstance(ref, str) or not ref.strip()):
        raise PolicyError(f"{label}: `ref` must be a non-empty string (a URL, path or id)", span=span)
    numbers = {key: _integer(key, values[key], label, span) for key in _INTEGERS if key in values}
    return SegmentPolicy(
        policy=policy if isinstance(policy, str) else None,
        priority=numbers.get("priority"),
        minimum=numbers.get("min"),
        ref=ref if isinstance(ref, str) else None,
        size=numbers.get("size"),
        turns=numbers.get("turns"),
        head=numbers.get("head"),
        span=span,
    )


def _field(values: dict[str, object], label: str, span: Span | None) -> KeyField:
    for key in values:
        if key not in FIELD_KEYS:
            raise PolicyError(f"{label}: unknown key `{key}` (keys: {', '.join(FIELD_KEYS)})", span=span)
    name, segment = values.get("name"), values.get("segment")
    if not isinstance(name, str) or not name.strip():
        raise PolicyError(f"{label}: a key field needs a `name`", span=span)
    if not isinstance(segment, str) or not segment.strip():
        raise PolicyError(f"{label}: key field `{name}` needs the `segment` it lives in", span=span)
    segment = _segment_name(segment, label, span)
    text, regex = values.get("text"), values.get("regex")
    if (text is None) == (regex is None):
        raise PolicyError(f"{label}: key field `{name}` needs exactly one of `text` (a literal) or `regex`",
                          span=span)
    if text is not None:
        if not isinstance(text, str) or not text:
            raise PolicyError(f"{label}: key field `{name}`: `text` must be a non-empty string", span=span)
        return KeyField(name.strip(), segment, literal=text, span=span)
    if not isinstance(regex, str) or not regex:
        raise PolicyError(f"{label}: key field `{name}`: `regex` must be a non-empty string", span=span)
    try:
        compiled = re.compile(regex)
    except re.error as error:
        raise PolicyError(f"{label}: key field `{name}`: invalid regex: {error}", span=span) from None
    except RecursionError:  # Python's regex parser recurses once per nested group
        raise PolicyError(f"{label}: key field `{name}`: the regex nests its groups too deeply to compile",
                          span=span) from None
    if compiled.search(""):
        raise PolicyError(f"{label}: key field `{name}`: the regex matches empty text, so it proves nothing",
                          span=span)
    return KeyField(name.strip(), segment, regex=compiled, span=span)


def _integer(key: str, value: object, label: str, span: Span | None) -> int:
    low, high, what = _INTEGERS[key]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise PolicyError(f"{label}: `{key}` must be {what}, got {value!r}", span=span)
    return value


def _path(value: object, base_dir: Path, label: str, span: Span | None) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise PolicyError(f"{label}: `fixtures` must be a file path", span=span)
    return base_dir / value


def _segment_name(name: object, label: str, span: Span | None) -> str:
    if not isinstance(name, str) or not _SEGMENT_NAME.match(name):
        raise PolicyError(f"{label}: {name!r} is not a segment name (a variable name, `tools`, "
                          "`system`, `user`)", span=span)
    return name
