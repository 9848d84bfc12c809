"""Whether the chat model a factory function returns is sent by the code that calls it, in any
module of the project: ``llm = get_llm()`` then ``build_agent(tools, llm)``, where
``build_agent`` runs its parameter (``llm.bind_tools(tools).ainvoke(...)``, or pipes it into a
chain: ``prompt | llm``). A function summary of each such parameter says whether it is sent;
one that is given a limit on its way (``llm.bind(max_tokens=...)``) is not. The factory may be a
method of a class (``config.initialize_google()``) whose name no other module defines, called
where the class is imported; a request is a runnable's call or one of the catalogue's sinks on
the class (``GenerativeModel().generate_content``)."""

from __future__ import annotations

import ast
from dataclasses import replace
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from ctxlint.frontends.python.knowledge import MODEL_KEYWORDS, RUNNABLE_CALLS
from ctxlint.frontends.python.nodes import enclosing, walk
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.registries import registry_getter
from ctxlint.frontends.python.sinks import in_test
from ctxlint.frontends.python.values import Env
from ctxlint.model import Evidence, EvidenceKind
from ctxlint.providers import LIMIT_NAMES

if TYPE_CHECKING:
    from ctxlint.frameworks import Holder
    from ctxlint.frontends.python.unit import Unit
    from ctxlint.frontends.python.values import Scope

# The calls that run a model (or a runnable built around it) with a request.
_SENDS = RUNNABLE_CALLS | {"predict", "apredict"}
# The calls that return the same model with more settings: its requests are still sent by it.
_DERIVES = frozenset({"bind_tools", "with_structured_output", "bind", "with_config", "with_retry",
                      "with_fallbacks"})
# The calls that send a request with a model, with the keywords that give one its limit.
Sends = dict[str, frozenset[str]]
# The factory's callers read in other modules, at most.
_MOST_CALLERS = 8
# How many project functions a model may pass through on its way to a request: wrappers that return
# what a factory returns (`initialize_llm()` returning `create_llm_client()`), and functions that
# hand their model parameter on (`run_agent(model)` calling `create_agent(model)`).
_MOST_STEPS = 3


def sent_by_callers(m: Unit, call: ast.Call, scope: Scope, holder: Holder) -> Evidence | None:
    """Where a caller of the module-level function that returns the model ``call`` builds hands
    that model to a function that sends requests with it, if one does (outside tests). Only for
    a class the catalogue names: one a package-wide glob matches (``langchain_community.chat_models.*``)
    may send a limit of its own (ChatFireworks' default ``model_kwargs``, BedrockChat's for Claude)."""
    built = m.analyzer.calls.path(call.func, Env(scope)) if m.analyzer is not None else None
    if built is None or not _named(holder, built):
        return None
    fn = scope.node
    project, file = m.project, m.file
    if project is None or file is None:
        return None
    if scope.kind == "module":
        return _constant_sent(m, call, holder, built)
    if scope.kind == "function" and (getter := registry_getter(m, call, scope)) is not None:
        sends = {**dict.fromkeys(_SENDS, frozenset[str]()), **_request_methods(m, built)}
        return _sent_where_called(m, getter, getter, sends, 0)  # the function that takes it out of a registry
    if scope.kind != "function" or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or scope.parent is None or not _returned(m, call, scope, fn):
        return None
    imported = fn.name  # what a calling module imports from this one: the function, or its class
    if scope.parent.kind != "module":
        cls = scope.parent.node
        if not (scope.parent.kind == "class" and isinstance(cls, ast.ClassDef) and cls in m.tree.body) \
                or project.method_definers(fn.name) != [file]:
            return None  # a method whose name another module defines may be another class's
        imported = cls.name
    sends = {**dict.fromkeys(_SENDS, frozenset[str]()), **_request_methods(m, built)}
    return _sent_where_called(m, fn.name, imported, sends, 0)


def _constant_sent(m: Unit, call: ast.Call, holder: Holder, built: str) -> Evidence | None:
    """Where a module of the project that imports the model a module-level name holds
    (``BUILDER_LLM = OpenAI(model=...)``, ``from app.config import BUILDER_LLM``) sends a request with
    it, or hands it to a function that does (``llm = BUILDER_LLM`` then ``llm.chat(...)``,
    ``load_agent(tools, llm=BUILDER_LLM)``), outside tests."""
    parent = m.parents.get(id(call))
    project, file = m.project, m.file
    if project is None or file is None or not isinstance(parent, ast.Assign) or parent not in m.tree.body \
            or len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name):
        return None
    name = parent.targets[0].id
    if len(m.module_scope.assigns.get(name, ())) != 1:
        return None
    sends = {**dict.fromkeys(_SENDS, frozenset[str]()), **_request_methods(m, built)}
    for path in project.mentioning(name)[:_MOST_CALLERS]:
        if path == file or in_tests(path, project.root):
            continue
        owner = getattr(project.analyzer(path), "unit", None)
        if owner is None or not _imports_from(owner, name, file):
            continue
        scopes = {id(scope.node): scope for scope in owner.all_scopes()}
        for node in walk(owner.tree):
            if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
                continue
            around = enclosing(node, owner.parents)
            scope = scopes.get(id(around)) if around is not None else owner.module_scope
            if scope is None or in_test(scope):
                continue
            found = _held_sent(owner, node, scope, sends)
            if found is not None:
                where = owner.span(node)
                return Evidence(EvidenceKind.FLOW, f"imported by {where.path.rsplit('/', 1)[-1]} line {where.line}, "
                                "where a request is sent with it", found[0].span(found[1]))
    return None


def _held_sent(owner: Unit, node: ast.Name, scope: Scope, sends: Sends) -> tuple[Unit, ast.expr] | None:
    """The module and node where the model ``node`` names is sent: by a call on it, by the one
    local name the function keeps it in, or by the function or framework it is handed to."""
    sent = _sender(owner, node, sends)
    if sent is not None:
        return owner, sent
    use = owner.parents.get(id(node))
    if isinstance(use, ast.keyword):
        use = owner.parents.get(id(use))
    if isinstance(use, ast.Assign) and len(use.targets) == 1 and isinstance(use.targets[0], ast.Name) \
            and scope.kind == "function" and not _rebound(scope, use.targets[0].id) \
            and not _limit_written(scope.node, use.targets[0].id):
        return _param_sender(owner, scope.node, use.targets[0].id, sends, 0)
    if isinstance(use, ast.Call) and node is not use.func:
        found = _parameter_sent(owner, use, node, scope, sends, 0)
        return (found[1], found[2]) if found is not None else None
    return None


def _sent_where_called(m: Unit, name: str, imported: str, sends: Sends, steps: int) -> Evidence | None:
    """Where a caller (in any module of the project that imports ``imported`` from ``m``'s) of the
    function ``name`` that returns a model sends a request with what it returns."""
    project, file = m.project, m.file
    if project is None or file is None:
        return None
    for path in project.callers(name)[:_MOST_CALLERS]:
        if in_tests(path, project.root):
            continue
        owner = m if path == file else getattr(project.analyzer(path), "unit", None)
        if owner is None or (owner is not m and not _imports_from(owner, imported, file)):
            continue
        found = _handed_to_sender(owner, name, imported != name, sends, steps)
        if found is not None:
            return found
    return None


def _request_methods(m: Unit, built: str) -> Sends:
    """The methods the catalogue's sinks call on an object of the class ``built`` names
    (``generate_content`` of ``google.generativeai.GenerativeModel().generate_content``, ``chat``
    of a glob's ``llama_index.llms.*()*.chat``), with
    the keywords that give such a call its limit (``generation_config``)."""
    prefix = f"{built}()."
    return {pattern.rsplit(".", 1)[-1]: frozenset(k for spec in sink.arguments.get("limit", ()) for k in spec.keywords)
            for framework in m.catalogue.frameworks.values() for sink in framework.sinks for pattern in sink.calls
            if pattern.rsplit(".", 1)[-1].isidentifier() and fnmatchcase(prefix + pattern.rsplit(".", 1)[-1], pattern)}


def _sent_without_limit(call: ast.Call, sends: Sends) -> bool:
    """Whether ``call`` (``x.<method>(...)``) sends a request and gives it no limit of its own
    (a limit keyword, or a spread that may hold one)."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in sends:
        return False
    own = sends[call.func.attr]
    return not any(k.arg is None or k.arg in own or k.arg in LIMIT_NAMES for k in call.keywords)


def _named(holder: Holder, path: str) -> bool:
    """Whether one of ``holder``'s patterns names the class ``path`` is (not ``module.*``)."""
    return any(fnmatchcase(path, pattern) for pattern in holder.calls if pattern.rsplit(".", 1)[-1] != "*")


def _returned(m: Unit, call: ast.Call, scope: Scope, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``fn`` returns the model ``call`` builds: ``return Chat(...)``, or ``llm = Chat(...)``
    and ``return llm`` (a name not given a value made from itself: ``llm = llm.bind(max_tokens=...)``)."""
    parent = m.parents.get(id(call))
    if isinstance(parent, ast.Return):
        return True
    if isinstance(parent, ast.AnnAssign) and isinstance(parent.target, ast.Name):  # `llm: LLM = OpenAI(...)`
        kept = parent.target.id
    elif isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        kept = parent.targets[0].id
    else:
        return False
    if _rebound(scope, kept):
        return False
    return any(isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and node.value.id == kept
               for node in walk(fn))


def _imports_from(owner: Unit, name: str, file: object) -> bool:
    """Whether ``owner`` imports ``name`` from the module at ``file`` (``from app.llms import name``)."""
    qualified = owner.imports.get(name)
    project = owner.project
    if qualified is None or name not in owner.from_imports or project is None or owner.file is None:
        return False
    module = qualified.rpartition(".")[0]
    return project.module_file(module, owner.file, owner.import_levels.get(name, 0)) == file


def _handed_to_sender(owner: Unit, factory: str, method: bool, sends: Sends, steps: int) -> Evidence | None:
    """Where ``owner`` passes what ``factory()`` (``x.factory()`` for a ``method``) returns
    (directly, or by the name it keeps it in) to a function that sends requests with that
    parameter, or sends one with it itself; or, where a module-level function returns it as it
    is (``return create_client(...)``), where that function's callers do."""
    for node, scope in owner.calls:
        called = node.func.attr if method and isinstance(node.func, ast.Attribute) \
            else node.func.id if not method and isinstance(node.func, ast.Name) else None
        if called != factory or in_test(scope):
            continue
        value_node: ast.expr = node
        parent = owner.parents.get(id(node))
        if isinstance(parent, ast.Await):  # `model = await get_model()`
            value_node, parent = parent, owner.parents.get(id(parent))
        held: list[ast.expr] = [value_node]
        sent_here = _sender(owner, value_node, sends)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
            kept = parent.targets[0].id
            if _rebound(scope, kept) or _limit_written(scope.node, kept):
                continue  # `model = model.bind(max_tokens=...)`, `model.max_tokens = 500`
            held = [n for n in walk(scope.node) if isinstance(n, ast.Name) and n.id == kept
                    and isinstance(n.ctx, ast.Load)]
            sent = _param_sender(owner, scope.node, kept, sends, steps)
        else:
            sent = (owner, sent_here) if sent_here is not None else None
        if sent is not None:  # `get_model().invoke(...)`, or `model = get_model()` then `model.invoke(...)`
            where = owner.span(value_node)
            return Evidence(EvidenceKind.FLOW, f"returned to {where.path.rsplit('/', 1)[-1]} line {where.line}, "
                            "where a request is sent with it", sent[0].span(sent[1]))
        for value in held:
            use = owner.parents.get(id(value))
            if isinstance(use, ast.keyword):
                use = owner.parents.get(id(use))
            if isinstance(use, ast.Return) and steps < _MOST_STEPS and scope.kind == "function" \
                    and isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and scope.parent is not None and scope.parent.kind == "module":
                found = _sent_where_called(owner, scope.node.name, scope.node.name, sends, steps + 1)
                if found is not None:
                    found = replace(found, text=f"returned through `{scope.node.name}()`, then {found.text}")
            elif not isinstance(use, ast.Call) or value is use.func:
                continue
            else:
                found = _sends_parameter(owner, use, value, scope, sends, steps)
            if found is not None:
                return found
    return None


def _rebound(scope: Scope, name: str) -> bool:
    """Whether ``scope`` gives ``name`` a value made from its own (``llm = llm.bind(...)``), or one
    the code does not show (``for llm in ...``, ``llm += ...``)."""
    return any(r.kind != "=" or r.value is None or any(isinstance(n, ast.Name) and n.id == name for n in walk(r.value))
               for r in scope.assigns.get(name, ()))


def _limit_written(body: ast.AST, name: str) -> bool:
    """Whether ``body`` writes a limit on the object ``name`` holds (``name.max_tokens = 500``)."""
    return any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and n.attr in LIMIT_NAMES
               and isinstance(n.value, ast.Name) and n.value.id == name for n in walk(body))


def _sends_parameter(owner: Unit, use: ast.Call, value: ast.expr, scope: Scope,
                     sends: Sends, steps: int) -> Evidence | None:
    """Where the function ``use`` calls sends requests with the parameter ``value`` is bound to."""
    found = _parameter_sent(owner, use, value, scope, sends, steps)
    if found is None:
        return None
    called, unit, sent = found
    where = owner.span(use)
    return Evidence(EvidenceKind.FLOW, f"returned to {where.path.rsplit('/', 1)[-1]} line {where.line}, which hands it "
                    f"to `{called}()`, where a request is sent with it", unit.span(sent))


def _parameter_sent(owner: Unit, use: ast.Call, value: ast.expr, scope: Scope, sends: Sends,
                    steps: int) -> tuple[str, Unit, ast.expr] | None:
    """What ``use`` is (a function of the project, or a framework's), the module and the node where
    a request is sent with the model ``value`` it is given: by the function, by one it hands its
    parameter on to, or by the framework that takes it as its model (``create_react_agent(model,
    tools)``, ``Agent(llm=model)``)."""
    analyzer = owner.analyzer
    if analyzer is None:
        return None
    if (value in use.args or any(k.value is value and k.arg in MODEL_KEYWORDS for k in use.keywords)) \
            and analyzer.reserves.framework_call(use):
        return owner.short(use.func), owner, use
    called = analyzer.callees.function_for(use, Env(scope), foreign=True, returns=False)
    if called is None:
        return None
    params = [a.arg for a in (*called.fn.args.posonlyargs, *called.fn.args.args)]
    if params[:1] in (["self"], ["cls"]):
        params = params[1:]
    if value in use.args:
        index = use.args.index(value)
        if any(isinstance(a, ast.Starred) for a in use.args[:index + 1]) or index >= len(params):
            return None
        param = params[index]
    else:
        param = next(k.arg for k in use.keywords if k.value is value and k.arg is not None) \
            if any(k.value is value and k.arg is not None for k in use.keywords) else ""
    unit = called.owner.unit if called.owner is not None else owner
    sent = _param_sender(unit, called.fn, param, sends, steps) if param else None
    return (called.fn.name, *sent) if sent is not None else None


def _sender(owner: Unit, value: ast.expr, sends: Sends) -> ast.expr | None:
    """The call that sends a request with the model ``value`` holds, where it is written:
    ``value.invoke(...)``, ``value.bind_tools(t).ainvoke(...)`` or ``prompt | value``; None
    when a limit is bound on the way."""
    parent = owner.parents.get(id(value))
    while isinstance(parent, ast.Attribute):
        call = owner.parents.get(id(parent))
        if not (isinstance(call, ast.Call) and call.func is parent):
            return None
        if parent.attr in sends:
            return call if _sent_without_limit(call, sends) else None
        if parent.attr not in _DERIVES or any(k.arg is None or k.arg in LIMIT_NAMES for k in call.keywords):
            return None
        parent = owner.parents.get(id(call))
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.BitOr):
        return parent
    return None


def _param_sender(unit: Unit, fn: ast.AST, param: str, sends: Sends, steps: int) -> tuple[Unit, ast.expr] | None:
    """The module and node where ``fn`` (a function of ``unit``'s module) sends a request with its
    parameter ``param`` (or a model derived from it by ``bind_tools``, ``with_structured_output``,
    ...): a call of ``invoke`` and its kin, or a pipe into a chain; or where a function or framework
    it hands the model on to does (up to ``_MOST_STEPS`` functions away). None when it gives the
    model a limit on the way, or sends none."""
    names = {param}
    kept = [(n.targets[0].id, n.value) for n in walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)]
    for _ in range(3):  # `a = llm.bind_tools(t)`, `b = a.with_retry()`
        names |= {name for name, value in kept if _model_of(value, names)}
    for node in walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _model_of(node.func.value, names) \
                and (node.func.attr == "configurable_fields"
                     or any(k.arg is None or k.arg in LIMIT_NAMES for k in node.keywords)):
            return None  # the limit is given on the way, or may be
    for node in walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _sent_without_limit(node, sends) \
                and _model_of(node.func.value, names):
            return unit, node
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) \
                and (_model_of(node.left, names) or _model_of(node.right, names)):
            return unit, node
    if steps >= _MOST_STEPS:
        return None
    for call, scope in unit.calls:  # handed on: `create_agent(model, tools)`
        if scope.node is not fn:
            continue
        for value in (*call.args, *(k.value for k in call.keywords)):
            if _model_of(value, names):
                found = _parameter_sent(unit, call, value, scope, sends, steps + 1)
                if found is not None:
                    return found[1], found[2]
    return None


def _model_of(node: ast.expr, names: set[str]) -> bool:
    """Whether ``node`` is one of ``names`` or a model derived from one (``llm.bind_tools(t)``, or
    either arm of ``llm.bind_tools(t) if t else llm``)."""
    if isinstance(node, ast.IfExp):
        return _model_of(node.body, names) or _model_of(node.orelse, names)
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DERIVES:
        node = node.func.value
    return isinstance(node, ast.Name) and node.id in names
