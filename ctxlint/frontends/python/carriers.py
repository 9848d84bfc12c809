"""Objects that carry third-party content (a browser driver, an HTTP response), known where
the module builds them out of the call that makes them: a project function whose return
annotation names one (``def create_driver() -> webdriver.Chrome``), the module's own call of
a class that gives one to its ``__init__`` (``Browser(driver)``), a helper of the project that
returns a process's result (``def run(cmd): return subprocess.run(cmd, ...)``), or an ``except``
clause that catches one (``except subprocess.CalledProcessError as e``)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ctxlint.frameworks import SourceKindSpec
from ctxlint.frontends.python.ownpaths import prints_users_history
from ctxlint.frontends.python.values import Bound, Env
from ctxlint.model import Source, SourceKind

if TYPE_CHECKING:
    from ctxlint.frontends.python.scopes import FunctionNode
    from ctxlint.frontends.python.sources import Sources


def annotated_carrier(sources: Sources, annotation: ast.expr, what: str) -> tuple[SourceKindSpec, str] | None:
    """The catalogue's carrier an annotation names (``webdriver.Chrome``), said as ``what``."""
    path = sources.calls.annotation_path(annotation)
    for found in sources.m.catalogue.sources.match(path):
        if isinstance(found, SourceKindSpec) and found.carrier:
            return found, what
    return None


def caught_carrier(sources: Sources, node: ast.Name, env: Env) -> tuple[SourceKindSpec, str] | None:
    """The catalogue's carrier the ``except`` clause that binds ``node`` catches (``except
    subprocess.CalledProcessError as e``, whose ``e.stdout`` is what the failed process printed):
    the exception raised is an instance of the class, as a call of it would build. Not when every
    process the ``try`` starts prints what the user typed (a command of their shell history run
    again): its failure prints the user's own command's output, as the process's success would."""
    handler = sources.m.parents.get(id(node))
    while handler is not None and not isinstance(handler, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(handler, ast.ExceptHandler) and handler.name == node.id:
            break
        handler = sources.m.parents.get(id(handler))
    if not isinstance(handler, ast.ExceptHandler) or handler.type is None:
        return None
    caught = handler.type
    for kind in (caught.elts if isinstance(caught, ast.Tuple) else (caught,)):
        for found in sources.m.catalogue.sources.match(sources.m.qualified(kind) or ""):
            if isinstance(found, SourceKindSpec) and found.carrier:
                return None if _runs_users_history(sources, handler, env) else (found, node.id)
    return None


def _runs_users_history(sources: Sources, handler: ast.ExceptHandler, env: Env) -> bool:
    """Whether the processes the ``try`` of ``handler`` starts all print what the user typed."""
    attempt = sources.m.parents.get(id(handler))
    if not isinstance(attempt, ast.Try):
        return False
    started = [n for statement in attempt.body for n in ast.walk(statement) if isinstance(n, ast.Call)
               and (sources.m.qualified(n.func) or "").startswith("subprocess.")]
    return bool(started) and all(prints_users_history(sources.m, sources.scopes, call, env) for call in started)


def built_carrier(sources: Sources, call: ast.Call, env: Env) -> tuple[SourceKindSpec, str] | None:
    """What a project function the module shows builds, by its return annotation
    (``def create_driver(...) -> webdriver.Chrome``)."""
    target = sources.callees.function_for(call, env, foreign=False)
    returns = target.fn.returns if target is not None else None
    return annotated_carrier(sources, returns, f"{sources.m.short(call.func)}(...)") if returns is not None else None


def carrier_from_callers(sources: Sources, node: ast.Name, env: Env) -> tuple[SourceKindSpec, str] | None:
    """A parameter no call binds here, given a browser driver by the module's own calls of its
    function (``Browser(driver)`` after ``driver = create_driver()``, for ``__init__(self, driver)``).
    Only drivers: a driver's pages are read later, where a response handed to a helper is as often
    an error path's (its text cut into an exception's detail; haystack's and deepagents' were so)."""
    with parameter_callers(sources, node, env, constructors=True) as bound_by:
        for _, bound in bound_by[1] if bound_by is not None else ():
            found = sources.carrier(bound.node, bound.env)
            if found is not None and found[0].kind == "browser":
                return found
    return None


@contextmanager
def parameter_callers(sources: Sources, node: ast.Name, env: Env, constructors: bool = False
                      ) -> Iterator[tuple[FunctionNode, list[tuple[ast.Call, Bound]]] | None]:
    """The function whose parameter ``node`` is, when no call binds it in ``env``, and the
    module's calls of it with the argument each binds to the parameter (``Sources.callers``),
    while the function is entered: what is asked of those arguments does not come back to it.
    None when a call binds it, or the function is being followed already."""
    fn = sources.unbound_parameter(node, env)
    if fn is None or not sources.m.enter(fn):
        yield None
        return
    try:
        yield fn, sources.callers(fn, node.id, env, constructors=constructors)
    finally:
        sources.m.leave(fn)


# Annotations that declare a number: a parameter so declared holds a count or a measure, never text.
_NUMBERS = {"int", "float", "bool", "complex", "Decimal", "decimal.Decimal"}


def number_parameter(node: ast.Name, env: Env) -> bool:
    """Whether ``node`` reads a parameter its function declares a number (``declares_number``)."""
    scope = env.scope
    return scope.kind == "function" and node.id in scope.params and isinstance(
        scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and declares_number(scope.node, node.id)


def declares_number(fn: FunctionNode, param: str) -> bool:
    """Whether ``fn`` declares its parameter ``param`` a number (``file_tokens: int``): whatever its
    callers compute it from (`get_tokens(text)`), it carries no text of anyone's."""
    every = (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)
    annotation = next((arg.annotation for arg in every if arg.arg == param), None)
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        written = annotation.value.strip()  # a forward reference, `"int"`
    elif isinstance(annotation, (ast.Name, ast.Attribute)):
        written = ast.unparse(annotation)
    else:
        return False
    return written in _NUMBERS


def called_names(parents: dict[int, ast.AST], fn: FunctionNode, constructors: bool) -> set[str]:
    """The names a call of ``fn`` is written with: its own, and with ``constructors`` for an
    ``__init__``, its class's (``Browser(driver)`` binds the parameters of ``Browser.__init__``)."""
    owner = parents.get(id(fn))
    if constructors and fn.name == "__init__" and isinstance(owner, ast.ClassDef):
        return {fn.name, owner.name}
    return {fn.name}


def constructor_argument(call: ast.Call, init: FunctionNode, param: str, env: Env) -> list[Bound]:
    """The argument a call of a class gives its ``__init__``'s parameter ``param``, by keyword or
    by position after ``self``; none when a spread may give it."""
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return []
    keyword = next((k.value for k in call.keywords if k.arg == param), None)
    if keyword is not None:
        return [Bound(param, keyword, env)]
    names = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    index = names.index(param) if param in names else -1
    return [Bound(param, call.args[index], env)] if 0 <= index < len(call.args) else []


def returned_process(sources: Sources, call: ast.Call, env: Env) -> tuple[SourceKindSpec, str] | None:
    """What a helper of the project returns when every way out of it gives the result of a process
    it starts with a command the caller hands it (``def run(cmd): return subprocess.run(cmd, ...)``,
    then ``run(cmd).stdout``): the caller reads the output out of it as from the call itself. Only
    processes: a helper that returns an HTTP response is as often the project's own API client
    (deepeval's metric definitions pulled from its server were read so as web pages)."""
    target = sources.callees.function_for(call, env, foreign=True)
    if target is None or not target.returns or not sources.m.enter(target.fn):
        return None
    reader = target.owner.sources if target.owner is not None else sources
    try:
        held = [reader.carrier(value, target.env) for value in target.returns]
    finally:
        sources.m.leave(target.fn)
    if not held or any(h is None or h[0].kind != "subprocess" for h in held):
        return None
    first = held[0]
    assert first is not None
    return first[0], f"{sources.m.short(call.func)}(...), which returns {first[1]}"


def iterated_source(sources: Sources, node: ast.expr, env: Env) -> Source | None:
    """``for line in sys.stdin:``, ``for page in fitz.open(path):``: an object whose items the
    catalogue says are third-party content (its path followed by ``.__iter__()``, as a
    subscript's by ``.__getitem__()``)."""
    path = sources.calls.path(node, env) if isinstance(node, (ast.Name, ast.Attribute, ast.Call)) else ""
    spec = next((s for s in sources.m.catalogue.sources.match(f"{path}.__iter__()") if path
                 and isinstance(s, SourceKindSpec) and not s.carrier), None)
    return None if spec is None else Source(SourceKind.UNTRUSTED, f"{spec.what} ({path})", sources.m.span(node),
                                            strong=spec.strong, origin=spec.kind)

