"""A request object of the project built without its output limit and handed to the method that
sends it: ``request = LLMRequest(messages=messages, temperature=0)`` then
``self.model.call_stream(request)``, where ``LLMRequest.__init__`` takes ``max_tokens=None`` and
keeps it on the object, and ``call_stream(self, request)`` passes ``request.max_tokens`` on as the
limit (often only when set: ``if request.max_tokens is not None: kwargs["max_tokens"] =
request.max_tokens``), or hands it on in those ``**kwargs`` to the method that builds the request
(``self.bot.call_with_tools(**kwargs)``: each definition of the project that takes it out of its
own ``**kwargs`` is named as a step, relayedlimits.py). The same reading as a call of a wrapper
that leaves its limit parameter unset (``wrapper-call``), for a limit carried by the object the
wrapper is given: other constructions of the class may give one (a summary's ``max_tokens=500``),
this one sends none.

The class is the project's and holds a chat request (its constructor takes ``messages`` or a
``prompt``); its limit is an ``__init__`` parameter None by default kept on ``self``, or a field
declared None by default (a dataclass's, a pydantic model's). Kept out: a construction that may
give the limit (a positional value where it stands, a ``**`` spread), an object whose limit the
function writes (``request.max_tokens = 500``), and a sending method that falls back on a limit of
its own (``request.max_tokens or 1024``, a limit key it sets from anything else)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Literal

from ctxlint.frontends.python.callerunits import method_definitions
from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.nodes import none_written, walk
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.relayedlimits import relayed_limits
from ctxlint.frontends.python.sinks import in_test
from ctxlint.frontends.python.values import Env, in_method
from ctxlint.model import Evidence, EvidenceKind, Request
from ctxlint.providers import LIMIT_NAMES

if TYPE_CHECKING:
    from ctxlint.frontends.python.unit import Unit
    from ctxlint.frontends.python.values import Scope

# The kind of evidence of such a construction (rules/**/CTX201).
OBJECT_UNSET = "object-unset"
# The parameters or fields that make an object a chat request.
_REQUEST_FIELDS = frozenset({"messages", "prompt"})
# The calls a field's default is declared with, the default first or as `default=`.
_FIELD_CALLS = frozenset({"Field", "field"})
# How many sending methods are named in a finding's evidence.
_MAX_SHOWN = 2

# The attribute, the keyword, its position, the declaration.
Limit = tuple[str, str, int | None, ast.arg | ast.AnnAssign]


def unset_request_objects(unit: Unit) -> list[Request]:
    """The constructions of the module of a request class of the project that leave its output
    limit unset and hand the object to a method of the project that sends that limit on."""
    project = unit.project
    if project is None or unit.file is None or in_tests(unit.file, project.root):
        return []
    found = []
    for call, scope in unit.calls:
        name = last_name(call.func)
        if not name or not name[:1].isupper() or in_test(scope) or any(k.arg is None for k in call.keywords) \
                or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        env = Env(scope)
        cls = unit.analyzer.callees.class_of(call, env, True)
        if cls is None or not isinstance(cls[1].node, ast.ClassDef):
            continue
        owner = cls[0].unit if cls[0] is not None else unit
        limit = _limit_of(cls[1].node)
        if limit is None:
            continue
        attr, keyword, position, declared = limit
        if any(k.arg == keyword for k in call.keywords) or (
                call.args and (position is None or len(call.args) > position)):
            continue  # given the limit, or perhaps by position
        handed = _handed(unit, call, scope, attr)
        if handed is None:
            continue
        use, index, key = handed
        senders = _senders(unit, last_name(use.func) or "", index, key, attr)
        if not senders:
            continue
        said = (f"`{name}(...)` is built without `{keyword}` (None by default) and handed to "
                f"`{unit.short(use.func)}(...)`, which sends that field as the limit")
        steps: tuple[Evidence, ...] = (Evidence(EvidenceKind.SOURCE, said, unit.span(call)),
                                       Evidence(EvidenceKind.FLOW, f"it is handed to `{unit.short(use.func)}(...)`",
                                                unit.span(use)))
        for sender, read in senders[:_MAX_SHOWN]:
            at = sender.span(read)
            steps += (Evidence(EvidenceKind.FLOW, f"`{last_name(use.func)}` sends `{sender.code(read)}` as the "
                               f"limit ({at.path.rsplit('/', 1)[-1]} line {at.line})", at),)
        for sender, read in senders:
            for relay, method, place in relayed_limits(sender, read):
                at = relay.span(place)
                steps += (Evidence(EvidenceKind.FLOW, f"`{method}` takes it from its `**kwargs` into the request it "
                                   f"builds ({at.path.rsplit('/', 1)[-1]} line {at.line})", at),)
        steps += (Evidence(EvidenceKind.SOURCE, f"`{keyword}` of `{name}` is None by default", owner.span(declared)),)
        found.append(Request(path=unit.path, anchor=unit.span(call), declares_settings=True,
                             settings_hint=f"`{keyword}=` on `{name}(...)`", in_method=in_method(scope),
                             reserve_kind=OBJECT_UNSET, reserve_evidence=steps))
    return found


def _limit_of(cls: ast.ClassDef) -> Limit | None:
    """The output limit a chat request class keeps, None by default: an ``__init__`` parameter
    kept on ``self`` (with its position after ``self``), or a field declared with no value."""
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is not None:
        args = [*init.args.posonlyargs, *init.args.args][1:]
        if not _REQUEST_FIELDS & {a.arg for a in (*args, *init.args.kwonlyargs)}:
            return None
        defaults = dict(zip([a.arg for a in args][len(args) - len(init.args.defaults):], init.args.defaults,
                            strict=True))
        defaults.update({a.arg: d for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults, strict=True)
                         if d is not None})
        for index, arg in enumerate([*args, *init.args.kwonlyargs]):
            if arg.arg not in LIMIT_NAMES or not none_written(defaults.get(arg.arg)):
                continue
            kept = next((t.attr for s in walk(init) if isinstance(s, ast.Assign) and isinstance(s.value, ast.Name)
                         and s.value.id == arg.arg for t in s.targets if isinstance(t, ast.Attribute)
                         and isinstance(t.value, ast.Name) and t.value.id == "self"), None)
            if kept is not None:
                return kept, arg.arg, index if index < len(args) else None, arg
        return None
    fields = [s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    if not _REQUEST_FIELDS & {f.target.id for f in fields if isinstance(f.target, ast.Name)}:
        return None
    for field in fields:
        assert isinstance(field.target, ast.Name)
        if field.target.id in LIMIT_NAMES and _declared_none(field.value):
            return field.target.id, field.target.id, None, field
    return None


def _declared_none(value: ast.expr | None) -> bool:
    """``= None``, ``= Field(None, ...)``, ``= Field(default=None)``, ``= field(default=None)``."""
    if none_written(value):
        return True
    if not (isinstance(value, ast.Call) and last_name(value.func) in _FIELD_CALLS):
        return False
    default = next((k.value for k in value.keywords if k.arg == "default"), value.args[0] if value.args else None)
    return none_written(default)


def _handed(unit: Unit, call: ast.Call, scope: Scope, attr: str) -> tuple[ast.Call, int | None, str | None] | None:
    """The call the object ``call`` builds is handed to (directly, or by the one name the function
    keeps it in), with its position or keyword there; None when the function writes the limit on
    it (``request.max_tokens = 500``, ``setattr``) or is handed it nowhere."""
    parent = unit.parents.get(id(call))
    held: list[ast.expr] = [call]
    if isinstance(parent, ast.Assign):
        if len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name):
            return None
        kept = parent.targets[0].id
        if len(scope.assigns.get(kept, ())) != 1:
            return None
        body = scope.node
        if any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and n.attr == attr
               and isinstance(n.value, ast.Name) and n.value.id == kept for n in walk(body)) \
                or any(isinstance(n, ast.Call) and last_name(n.func) == "setattr" for n in walk(body)):
            return None
        held = [n for n in walk(body) if isinstance(n, ast.Name) and n.id == kept and isinstance(n.ctx, ast.Load)]
    for value in held:
        use = unit.parents.get(id(value))
        if isinstance(use, ast.keyword) and use.arg is not None:
            owner = unit.parents.get(id(use))
            if isinstance(owner, ast.Call):
                return owner, None, use.arg
        if isinstance(use, ast.Call) and value in use.args and isinstance(use.func, ast.Attribute):
            index = use.args.index(value)
            if not any(isinstance(a, ast.Starred) for a in use.args[:index]):
                return use, index, None
    return None


def _senders(unit: Unit, method: str, index: int | None, key: str | None, attr: str) -> list[tuple[Unit, ast.expr]]:
    """Each method ``method`` of the project that takes the object (at ``index`` after ``self``, or
    as ``key``) and sends its field ``attr`` on as the limit, with that read; none when any of them
    falls back on a limit of its own."""
    found = []
    for owner, fn in method_definitions(unit, method):
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)][1:]
        param = key if key is not None and key in params + [a.arg for a in fn.args.kwonlyargs] \
            else params[index] if index is not None and index < len(params) else None
        if param is None:
            continue
        read = _sent_on(owner, fn, param, attr)
        if read is False:
            return []  # a limit of its own
        if read is not None:
            found.append((owner, read))
    return found


def _sent_on(owner: Unit, fn: ast.AST, param: str, attr: str) -> ast.expr | Literal[False] | None:
    """The read of ``param.attr`` that ``fn`` sends on as a limit (a limit keyword, a limit key of a
    dict it writes); False when it falls back on a limit of its own (``param.attr or 1024``, a
    limit key given anything else); None when it sends none."""
    sent = None
    for node in walk(fn):
        value = _limit_value(owner, node)
        if value is None:
            continue
        if _reads(value, param, attr):
            sent = value
        elif not none_written(value):
            return False
    for node in walk(fn):
        if _reads(node, param, attr) and isinstance(owner.parents.get(id(node)), (ast.BoolOp, ast.IfExp)):
            return False
    return sent


def _limit_value(owner: Unit, node: ast.AST) -> ast.expr | None:
    """The value ``node`` gives a limit: ``max_tokens=value``, ``"max_tokens": value`` in a dict,
    ``body["max_tokens"] = value``."""
    if isinstance(node, ast.keyword) and node.arg in LIMIT_NAMES:
        return node.value
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values, strict=True):
            if isinstance(k, ast.Constant) and k.value in LIMIT_NAMES:
                return v
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                                            and t.slice.value in LIMIT_NAMES for t in node.targets):
        return node.value
    return None


def _reads(node: ast.AST, param: str, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == param and isinstance(node.ctx, ast.Load)
