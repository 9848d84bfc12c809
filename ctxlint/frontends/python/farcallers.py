"""What the project's other modules pass for a parameter of a function of this one.

``Sources.from_callers`` reads the calls of a function in its own module. A helper that formats a
prompt is as often called from another module: ``summarise_text(content)`` in ``llm.py``, given a
transcript by ``tools/video.py``. The modules whose text calls the function's name (for an
``__init__``, its class's) are read, at most ``MAX_CALLER_MODULES`` of them: a name more modules
call is a common one, whose calls are not all this function's. A call counts only when the
callee it resolves to, from the calling module, is this very function.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ctxlint.frontends.python.calls import last_name
from ctxlint.frontends.python.carriers import called_names, constructor_argument
from ctxlint.frontends.python.owncode import in_tests
from ctxlint.frontends.python.values import Bound, Env
from ctxlint.model import Evidence, EvidenceKind, Source

if TYPE_CHECKING:
    from ctxlint.frontends.python.analyzer import Analyzer
    from ctxlint.frontends.python.callees import Called
    from ctxlint.frontends.python.scopes import FunctionNode
    from ctxlint.frontends.python.sources import Sources

# The other modules that may call a function's name for their calls to be read, at most; and the
# calls read in each.
MAX_CALLER_MODULES = 6
_MAX_CALLS = 8


def passed_from_other_modules(sources: Sources, fn: FunctionNode, param: ast.Name, env: Env) -> Source | None:
    """The third-party content a call of ``fn`` in another module of the project passes as
    the parameter ``param`` reads, adopted where it is read, with the call as a step of the flow; None when no module
    shows one, or too many modules call the name."""
    m = sources.m
    project, file = m.project, m.file
    if project is None or file is None:
        return None
    names = {name for name in called_names(m.parents, fn, constructors=True)
             if name != "__init__" and not name.startswith("_")}
    paths = sorted({p for name in names for p in project.callers(name) if p != file
                    and not in_tests(p, project.root)})
    if not names or not paths or len(paths) >= MAX_CALLER_MODULES:
        return None
    for path in paths:
        owner = project.analyzer(Path(path))
        if owner is None:
            continue
        m.dependencies.add(owner.unit.path)  # a change there changes what this parameter holds
        for call, bound in _bound_by(owner, fn, m.parents, file, param.id, names, env.depth + 1):
            found = owner.sources.untrusted(bound.node, bound.env)
            if found is None:
                continue
            built = f" to `{last_name(call.func)}(...)`" if last_name(call.func) != fn.name else ""
            step = Evidence(EvidenceKind.FLOW, f"passed as `{param.id}`{built} by the call at "
                            f"{owner.unit.span(call).path}:{call.lineno}", owner.unit.span(call))
            return m.adopt_source(replace(found, flow=(*found.flow, step)), m.span(param))
    return None


def _bound_by(owner: Analyzer, fn: FunctionNode, parents: dict[int, ast.AST], file: Path, param: str,
              names: set[str], depth: int) -> list[tuple[ast.Call, Bound]]:
    """The calls of ``fn`` in the module ``owner`` analyses, with the argument each binds to ``param``."""
    unit, cls = owner.unit, parents.get(id(fn))
    found: list[tuple[ast.Call, Bound]] = []
    for call, home in unit.calls_named(names)[:_MAX_CALLS]:
        if last_name(call.func) != fn.name:  # the class called: its arguments are `__init__`'s after `self`
            built = owner.callees.class_named(call.func.id, home, foreign=True) \
                if isinstance(call.func, ast.Name) else None
            if built is not None and built[0] is not None and built[0].unit.file == file \
                    and isinstance(cls, ast.ClassDef) and isinstance(built[1].node, ast.ClassDef) \
                    and (built[1].node.name, built[1].node.lineno) == (cls.name, cls.lineno):
                found.extend((call, b) for b in constructor_argument(call, fn, param, Env(home, (), depth)))
            continue
        target = owner.callees.function_for(call, Env(home, (), depth), foreign=True,
                                            returns=False)
        if target is not None and _is(target, fn, file):
            bound = target.env.bound(param)
            if bound is not None and bound.owner is None:
                found.append((call, bound))
    return found


def _is(target: Called | None, fn: FunctionNode, file: Path) -> bool:
    """Whether the callee a call of another module resolves to is ``fn`` of the module ``file``."""
    return target is not None and target.owner is not None and target.owner.unit.file == file \
        and (target.fn.name, target.fn.lineno) == (fn.name, fn.lineno)
