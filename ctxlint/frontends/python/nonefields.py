"""A limit read from a field of the project's own data class that is None by default, where the
project never gives the field a value: ``payload["max_tokens"] = request.max_tokens`` (under
``if request.max_tokens is not None``) of ``class ChatRequest(BaseModel): max_tokens: int | None =
Field(default=None)``, built by the project only without it, or from a field of its settings that
is None by default in turn (``ChatRequest(..., max_tokens=self.config.max_tokens)`` of
``AgentConfig.max_tokens = None``). The request sends a limit only when someone sets one, and the
project's own default sets none: the defaults are the finding's evidence places.

Kept out: a settings class read from the environment (``BaseSettings``), a class the project never
builds itself outside tests (a web framework's request body, filled from what a client sends), a
class built from a spread or loaded from data (``Config(**values)``, ``Config.model_validate(...)``),
and a field something writes (``request.max_tokens = 500``, ``self.max_tokens = ...`` in the class)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.classattrs import attribute_class
from ctxlint.frontends.python.nodes import base_name, empty_literal, walk
from ctxlint.frontends.python.owncode import built_outside_tests, module_in_tests
from ctxlint.frontends.python.project import MAX_CALLERS, attribute_write
from ctxlint.frontends.python.starimports import imported_value
from ctxlint.frontends.python.unit import Unit
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind
from ctxlint.providers import LIMIT_KEYWORDS

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.project import Project
    from ctxlint.frontends.python.scopes import Scope

# The kind of evidence of a limit taken from such a field (rules/**/CTX201).
FIELD_NONE = "field-none-by-default"
# How many classes the value may be followed through (the request, then the agent's settings).
_MAX_HOPS = 2
# How many of the constructions that leave the field unset are named.
_MAX_SHOWN = 2
# How many defaults objects a field's default may be followed through (`defaults.search.max_tokens`).
_MAX_DEFAULT_HOPS = 2
# The calls a field default is declared with that take the default first or as `default=`.
_FIELD_CALLS = frozenset({"Field", "field", "Param"})
# Bases whose fields the environment fills.
_ENVIRONMENT_BASES = frozenset({"BaseSettings"})


def none_field(m: Unit, node: ast.expr, env: Env, hops: int = 0) -> tuple[Evidence, ...] | None:
    """The evidence that ``node`` (``request.max_tokens``) is None unless the project sets it and
    the project never does: the field's default, and each field it is built from; None when any
    step may hold a value."""
    project = m.project
    if not isinstance(node, ast.Attribute) or hops > _MAX_HOPS or project is None or m.file is None:
        return None
    declared = _declared(m, _class_of(m, node.value, env), node.attr)
    if declared is None:
        return None
    owner, cls, statement = declared
    name, attr = cls.name, node.attr
    where = f"{_relative(owner, project.root)} line {statement.lineno}"
    default = f"`{m.code(node)}` is `{name}.{attr}`, None by default at {where}"
    found: tuple[Evidence, ...] = (Evidence(EvidenceKind.SOURCE, default, owner.span(statement)),)
    if _written(project, name, attr) or project.loaders(name):
        return None
    if not built_outside_tests(project, name):
        return None  # built by no code of the project's own: a framework fills it (a request's body)
    if attr in LIMIT_KEYWORDS and name not in project.limit_callees():
        return found  # no call of the class, of all the project's modules, gives it a limit keyword
    if len(project.callers(name)) >= MAX_CALLERS - 1:
        return None  # built too often to read every construction
    without: list[Evidence] = []  # the constructions outside tests that give it nothing
    for path in project.callers(name):
        analyzer = project.analyzer(Path(path))
        if analyzer is None:
            return None
        for call, scope in analyzer.unit.calls:
            if last_name(call.func) != name:
                continue
            given = _given(analyzer.unit, call, attr, Env(scope), hops)
            if given is None:
                return None
            found += tuple(step for step in given if step not in found)
            if not given and not module_in_tests(analyzer.unit):
                without.append(Evidence(EvidenceKind.FLOW, f"the project builds `{name}` without it at "
                                        f"{_relative(analyzer.unit, project.root)} line {call.lineno}",
                                        analyzer.unit.span(call)))
    return found + tuple(without[:_MAX_SHOWN])


def _class_of(m: Unit, node: ast.expr, env: Env) -> tuple[Analyzer | None, Scope] | None:
    """The class of the object ``node``; through an attribute of an object of a class the code
    shows (``self.context_builder.config``: the ``config`` of a ``DriftContextBuilder``)."""
    found = m.analyzer.callees.class_of(node, env, True)
    if found is not None or not isinstance(node, ast.Attribute):
        return found
    outer = m.analyzer.callees.class_of(node.value, env, True)
    if outer is None:
        return None
    reader = outer[0] or m.analyzer
    inner = attribute_class(reader.callees, node.attr, outer[1], True)
    return (inner[0] or reader, inner[1]) if inner is not None else None


def defaulted_field(steps: tuple[Evidence, ...]) -> str:
    """The last field of the chain, as its evidence names it (`` `AgentConfig.max_tokens` ``): where
    a default would bound every request."""
    fields = [step.text.split(" is ", 1)[1].split(",", 1)[0] for step in steps
              if step.kind is EvidenceKind.SOURCE and ", None by default at " in step.text]
    return fields[-1] if fields else "the field"


def _given(unit: Unit, call: ast.Call, attr: str, env: Env, hops: int) -> tuple[Evidence, ...] | None:
    """What one construction gives the field: nothing (no evidence), a field None by default
    (its evidence), or None when it may give a value."""
    if call.args or any(k.arg is None for k in call.keywords):
        return None  # a positional value or a spread may fill it
    value = next((k.value for k in call.keywords if k.arg == attr), None)
    if value is None or (isinstance(value, ast.Constant) and value.value is None):
        return ()
    further = none_field(unit, value, env, hops + 1)
    if further is None:
        return None
    built = Evidence(EvidenceKind.FLOW, f"the project builds `{last_name(call.func)}` with `{attr}={unit.code(value)}`",
                     unit.span(value))
    return (built, *further)


def none_by_default(m: Unit, node: ast.expr, env: Env) -> bool:
    """Whether ``node`` is a field of a class of the project declared None by default
    (``self.llm_config`` of ``llm_config: dict | None = None``), settings from the environment
    included: a value the user may set, unset unless they do."""
    return isinstance(node, ast.Attribute) and _declared(
        m, m.analyzer.callees.class_of(node.value, env, True), node.attr, environment=True) is not None


def unset_setting(m: Unit, node: ast.expr, env: Env) -> Evidence | None:
    """Where ``node`` (``Settings.model_settings.MAX_TOKENS``) is declared None by default, when it
    is a field of a class of the project that the project builds itself, settings from the
    environment included (the default is what ships), and that no code of the project writes and
    no loader fills."""
    project = m.project
    if not isinstance(node, ast.Attribute) or project is None:
        return None
    holder = _class_of(m, node.value, env) or _defaults_class(m, node.value)
    declared = _declared(m, holder, node.attr, environment=True)
    if declared is None:
        return None
    owner, cls, statement = declared
    if _written(project, cls.name, node.attr) or project.loaders(cls.name) \
            or not built_outside_tests(project, cls.name):
        return None  # set, loaded, or an object the framework builds (a request's body, a client's)
    return Evidence(EvidenceKind.SOURCE, f"`{m.code(node)}` (`{cls.name}.{node.attr}`) is None by default at "
                    f"{_relative(owner, project.root)} line {statement.lineno}, and no code of the project sets it",
                    owner.span(statement))


def empty_setting(m: Unit, node: ast.expr, env: Env) -> Evidence | None:
    """Where ``node`` (``SETTINGS.chat_model_map``) is declared an empty dict by default, a field of
    a class of the project that the project builds itself (settings from the environment
    included: the default is what ships), which no code of the project writes and no loader
    fills: a loop over it runs only when the user configures it."""
    project = m.project
    if not isinstance(node, ast.Attribute) or project is None:
        return None
    holder = _class_of(m, node.value, env) or _defaults_class(m, node.value)
    declared = _declared(m, holder, node.attr, environment=True, empty=True)
    if declared is None:
        return None
    owner, cls, statement = declared
    if _written(project, cls.name, node.attr) or project.loaders(cls.name) \
            or not built_outside_tests(project, cls.name):
        return None
    return Evidence(EvidenceKind.SOURCE, f"`{m.code(node)}` (`{cls.name}.{node.attr}`) is empty by default at "
                    f"{_relative(owner, project.root)} line {statement.lineno}, and no code of the project fills it",
                    owner.span(statement))


def _declared(m: Unit, found: tuple[Analyzer | None, Scope] | None, attr: str, environment: bool = False,
              depth: int = 0, empty: bool = False) -> tuple[Unit, ast.ClassDef, ast.AnnAssign] | None:
    """The module, class and statement that declare ``attr`` of the class ``found`` (or of a base
    class) with None as its default, when no class on the way is filled from the environment
    (unless ``environment``: a value the environment fills is still unset by default)."""
    owner: Unit = m
    first: ast.ClassDef | None = None
    for _ in range(4):
        if found is None or not isinstance(found[1].node, ast.ClassDef):
            return None
        owner = found[0].unit if found[0] is not None else owner
        cls = found[1].node
        first = first or cls
        if (not environment and any(base_name(b) in _ENVIRONMENT_BASES for b in cls.bases)) \
                or _names_key(cls, attr):
            return None  # the environment fills it, or a validator may (`values["max_tokens"] = 1024`)
        statement = next((s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                          and s.target.id == attr), None)
        if statement is not None and empty:  # `{}`, `dict()`, `Field(default_factory=dict)`
            return (owner, first, statement) if statement.value is not None and _empty(statement.value) else None
        if statement is not None:
            none = statement.value is not None and (_none(statement.value) or _none_elsewhere(
                owner, found[1], _default(statement.value), environment, depth))
            return (owner, first, statement) if none else None
        base = next((b for b in map(base_name, cls.bases) if b is not None), None)
        if base is None:
            return None
        found = owner.analyzer.callees.class_named(base, found[1].parent, True)
        if found is not None and found[0] is None:
            found = (owner.analyzer, found[1])
    return None


def _names_key(cls: ast.ClassDef, attr: str) -> bool:
    """Whether the class's code writes the field's name as a string (a validator's
    ``values["max_tokens"]``, ``data.setdefault("max_tokens", 1024)``), other than as the key the
    field's own value is sent under (``{"max_tokens": self.max_tokens}``, ``payload["max_tokens"] =
    self.max_tokens``): that sends the field, it fills nothing."""
    sent: set[int] = set()
    for node in walk(cls):
        if isinstance(node, ast.Dict):
            sent.update(id(k) for k, v in zip(node.keys, node.values, strict=True) if _reads(v, attr))
        elif isinstance(node, ast.Assign) and _reads(node.value, attr):
            sent.update(id(t.slice) for t in node.targets if isinstance(t, ast.Subscript))
    return any(isinstance(n, ast.Constant) and n.value == attr and id(n) not in sent for n in walk(cls))


def _reads(value: ast.expr, attr: str) -> bool:
    """Whether ``value`` is a read of the field ``attr`` of some object (``self.max_tokens``)."""
    return isinstance(value, ast.Attribute) and value.attr == attr and isinstance(value.ctx, ast.Load)


def _none(value: ast.expr) -> bool:
    """``None``, ``Field(default=None)``, ``Field(None, ...)`` (a dataclass's ``field``, theflow's ``Param``)."""
    default = _default(value)
    return isinstance(default, ast.Constant) and default.value is None


def _empty(value: ast.expr) -> bool:
    """``{}``, ``dict()``, ``Field(default={})``, ``Field(default_factory=dict)``."""
    if isinstance(value, ast.Call) and last_name(value.func) in _FIELD_CALLS:
        factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
        if isinstance(factory, ast.Name) and factory.id == "dict" and not any(
                k.arg in ("env", "validation_alias", "alias") for k in value.keywords):
            return True
    default = _default(value)
    return default is not None and not (isinstance(default, ast.Constant) and default.value is None) \
        and empty_literal(default)


def _default(value: ast.expr) -> ast.expr | None:
    """The default a field is declared with: the value itself, or what ``Field(...)`` is given
    as its default; None when something else may fill it (a factory, the environment)."""
    if not isinstance(value, ast.Call):
        return value
    if last_name(value.func) not in _FIELD_CALLS:
        return None
    if any(k.arg in ("default_factory", "env", "validation_alias", "alias") for k in value.keywords):
        return None
    return next((k.value for k in value.keywords if k.arg == "default"), value.args[0] if value.args else None)


def _none_elsewhere(owner: Unit, cls: Scope, default: ast.expr | None, environment: bool, depth: int) -> bool:
    """Whether a field's default is a field of a defaults object declared None in turn
    (``Field(default=app_defaults.search.max_tokens)`` of ``app_defaults = AppDefaults()``, whose
    ``search`` holds a ``SearchDefaults`` with ``max_tokens: int | None = None``)."""
    if not isinstance(default, ast.Attribute) or depth >= _MAX_DEFAULT_HOPS:
        return False
    holder = _defaults_class(owner, default.value)
    return _declared(owner, holder, default.attr, environment, depth + 1) is not None


def _defaults_class(unit: Unit, node: ast.expr, hops: int = 0) -> tuple[Analyzer | None, Scope] | None:
    """The class of the object ``node`` names: a module's own ``defaults = Defaults()`` (built with
    no arguments, its own or imported), or a field of one that a factory fills
    (``search: SearchDefaults = field(default_factory=SearchDefaults)``)."""
    if hops > 3:
        return None
    if isinstance(node, ast.Name):
        value = unit.analyzer.callees.module_value(node.id)
        reader = unit.analyzer
        if value is None:
            found = imported_value(unit, node.id)
            if found is None or not isinstance(found[1], ast.expr):
                return None
            reader, value = found[0], found[1]
        if not (isinstance(value, ast.Call) and not value.args and not value.keywords
                and isinstance(value.func, ast.Name)):
            return None
        built = reader.callees.class_named(value.func.id, reader.unit.module_scope, True)
        return (reader if built is not None and built[0] is None else built[0], built[1]) if built is not None else None
    if not isinstance(node, ast.Attribute):
        return None
    outer = _defaults_class(unit, node.value, hops + 1)
    if outer is None or not isinstance(outer[1].node, ast.ClassDef) or outer[0] is None:
        return None
    statement = next((s for s in outer[1].node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                      and s.target.id == node.attr), None)
    made = _made_by(statement.value) if statement is not None and statement.value is not None else None
    if made is None and statement is not None and isinstance(statement.annotation, ast.Name):
        made = statement.annotation.id  # `model_settings: ModelSettings = settings_property(...)`: its declared class
    if made is None:
        return None
    built = outer[0].callees.class_named(made, outer[1].parent, True)
    return (outer[0] if built[0] is None else built[0], built[1]) if built is not None else None


def _made_by(value: ast.expr) -> str | None:
    """The class a field's default builds with no arguments: ``field(default_factory=C)``,
    ``Field(default_factory=C)``, ``C()``."""
    if not isinstance(value, ast.Call):
        return None
    if last_name(value.func) in _FIELD_CALLS:
        factory = next((k.value for k in value.keywords if k.arg == "default_factory"), None)
        return factory.id if isinstance(factory, ast.Name) else None
    return value.func.id if isinstance(value.func, ast.Name) and not value.args and not value.keywords else None


def _written(project: Project, name: str, attr: str) -> bool:
    """Whether some module writes the field: ``x.attr = ...`` on anything but ``self``, or on
    ``self`` in the class itself or a class written as its subclass (or more modules than are read)."""
    paths = project.attribute_writers(attr)
    if len(paths) >= MAX_CALLERS:
        return True
    needle = re.compile(attribute_write(attr))
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError:
            return True
        for match in needle.finditer(data):
            if match.group(1) != b"self" or _enclosing_class_is(data, match.start(), name):
                return True
    return False


def _enclosing_class_is(data: bytes, at: int, name: str) -> bool:
    """Whether the nearest ``class`` line above ``at`` defines ``name`` or names it as a base."""
    classes = list(re.finditer(rb"^[ \t]*class[ \t]+(\w+)[ \t]*(\([^)]*\))?", data[:at], re.MULTILINE))
    if not classes:
        return True  # `self` outside a class: not known, taken as a write
    last = classes[-1]
    return last.group(1).decode("ascii", "replace") == name \
        or re.search(rb"\b" + re.escape(name.encode()) + rb"\b", last.group(2) or b"") is not None


def _relative(unit: Unit, root: Path) -> str:
    path = unit.file
    return path.relative_to(root).as_posix() if path is not None and path.is_relative_to(root) else str(unit.path)
