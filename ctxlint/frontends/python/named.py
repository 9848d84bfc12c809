"""The functions and constants of a module that only code naming them reaches (what the
uncalled-code filters ask of a Python module), and its main block."""

from __future__ import annotations

import ast
from dataclasses import replace

from ctxlint.frontends.python.nodes import base_name, walk
from ctxlint.model import NamedFunction


def named_functions(tree: ast.Module) -> list[NamedFunction]:
    """The functions of a module that only a call by their name reaches: those at its top and
    the methods of its classes with no base (``object`` and ``ABC`` aside), when nothing decorates them (a
    decorator registers a route, a tool, a task; ``staticmethod`` and the like only wrap) and
    their name is not a dunder (Python calls those itself). A method of a subclass may be what its
    base class or a framework calls: the subclass itself stands for its methods, since only code
    that names it makes one; so does a class with no base for its dunder methods (``__call__``).
    A constant at its top (a string, a number worked out from numbers) is read only by code that
    names it: a prompt template no line names is never rendered. Each comes with its readers: the
    others whose bodies name it, and theirs in turn."""
    found: list[tuple[NamedFunction, ast.stmt]] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            if node.decorator_list or node.keywords:
                continue
            if any(not _calls_nothing(b) for b in node.bases):
                # a subclass's methods may be what its base calls, but only once something makes
                # one: a class whose name nothing writes is never made
                found.append((NamedFunction(node.name, node.lineno, node.end_lineno or node.lineno, top_level=True),
                              node))
                continue
            within = NamedFunction(node.name, node.lineno, node.end_lineno or node.lineno, top_level=True)
            found.extend((replace(_named(item), within=within), item) for item in node.body if _callable_by_name(item))
            if any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _callable_by_name(item)
                   and not item.decorator_list for item in node.body):
                # its dunder methods (`__call__`, `__init__`) run only once code that names the class makes one
                found.append((within, node))
        elif _callable_by_name(node):
            found.append((_named(node, top_level=True), node))
        elif (name := _constant_name(node)) is not None:
            found.append((NamedFunction(name, node.lineno, node.end_lineno or node.lineno, top_level=True,
                                        constant=True), node))
    return _with_readers(found)


def _calls_nothing(base: ast.expr) -> bool:
    """A base that calls none of its subclasses' methods: ``object``, or ``ABC`` (``abc.ABC``),
    which only marks the class abstract; its own methods are still reached by name alone."""
    name = base.attr if isinstance(base, ast.Attribute) else base_name(base)
    return name in ("object", "ABC")


def _with_readers(found: list[tuple[NamedFunction, ast.stmt]]) -> list[NamedFunction]:
    """Each function with the transitive closure of the others whose bodies (or values) name it,
    worked out over their names (a name bound twice reads the same). A closure past
    ``MAX_READERS`` is left out: the function is then asked about alone, and the readers' uses of
    its name count as calls."""
    read_by: dict[str, set[str]] = {}
    for function, node in found:
        for name in _names_in(node):
            read_by.setdefault(name, set()).add(function.name)
    result = []
    closures: dict[str, set[str]] = {}
    for function, _ in found:
        if function.name not in closures:
            closure: set[str] = set()
            stack = list(read_by.get(function.name, ()))
            while stack and len(closure) <= MAX_READERS:
                name = stack.pop()
                if name not in closure:
                    closure.add(name)
                    stack.extend(read_by.get(name, ()))
            closures[function.name] = closure if len(closure) <= MAX_READERS else set()
        names = closures[function.name]
        # (most have no reader: not a pass over every other function for each)
        readers = tuple(other for other, _ in found if other is not function and other.name in names) if names else ()
        result.append(replace(function, readers=readers) if 0 < len(readers) <= MAX_READERS else function)
    return result


def _names_in(node: ast.AST) -> set[str]:
    """The names and attribute names a definition's body writes (``PROMPT``, ``self.build``)."""
    return {n.id if isinstance(n, ast.Name) else n.attr for n in walk(node)
            if isinstance(n, (ast.Name, ast.Attribute))}


def _constant_name(node: ast.stmt) -> str | None:
    """The name a module-level statement binds to a constant written in place, not a dunder
    (`__doc__`): a string or an f-string (`PROMPT = \"\"\"...\"\"\" + RULES`), or a number worked out from
    numbers (`MAX_CHARS = 4096 * 4 * 0.95`): a template or a limit only code that names it reads."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    written = _textual(value) or _numeric(value)
    if not written or not isinstance(target, ast.Name) or target.id.startswith("__"):
        return None
    return target.id


def _textual(value: ast.expr) -> bool:
    """A string or an f-string, or strings and names joined with ``+`` (`\"\"\"...\"\"\" + FORMAT_PROMPT`)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        sides = (value.left, value.right)
        return all(_textual(side) or isinstance(side, ast.Name) for side in sides) and any(map(_textual, sides))
    return isinstance(value, ast.JoinedStr) or isinstance(value, ast.Constant) and isinstance(value.value, str)


def _numeric(value: ast.expr) -> bool:
    """A number, or arithmetic on numbers only."""
    if isinstance(value, ast.BinOp):
        return _numeric(value.left) and _numeric(value.right)
    return isinstance(value, ast.Constant) and type(value.value) in (int, float)


# The most functions whose bodies alone may reach one: past it, the function is asked about alone.
MAX_READERS = 32
# Decorators that only wrap the function they decorate: what they return is still reached by its name.
_WRAPPING = frozenset({"staticmethod", "classmethod", "property", "cache", "lru_cache", "cached_property"})


def _callable_by_name(node: ast.stmt) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and all(_decorator_name(d) in _WRAPPING for d in node.decorator_list) \
        and not (node.name.startswith("__") and node.name.endswith("__"))


def _decorator_name(decorator: ast.expr) -> str | None:
    """``lru_cache`` for ``@lru_cache``, ``@functools.lru_cache(maxsize=8)``."""
    decorator = decorator.func if isinstance(decorator, ast.Call) else decorator
    return decorator.id if isinstance(decorator, ast.Name) else decorator.attr if isinstance(
        decorator, ast.Attribute) else None


def _named(node: ast.stmt, top_level: bool = False) -> NamedFunction:
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    return NamedFunction(node.name, node.lineno, node.end_lineno or node.lineno, top_level)


def main_block(tree: ast.Module) -> tuple[int, int] | None:
    """The lines of the module's top-level ``if __name__ == "__main__":`` block, if it has one."""
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
                and {_main_side(test.left), _main_side(test.comparators[0])} == {"name", "main"}:
            return node.lineno, node.end_lineno or node.lineno
    return None


# Imports that make a module a test's, whatever else it does.
_TEST_FRAMEWORKS = frozenset({"pytest", "unittest", "mock", "hypothesis", "nose"})


def program_module(tree: ast.Module) -> bool:
    """Whether the module is a program of its own: it has a main block, defines no test function
    or class (``test_*``, ``Test*``) and imports no test framework."""
    if main_block(tree) is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            return False
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            return False
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in _TEST_FRAMEWORKS for a in node.names):
            return False
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in _TEST_FRAMEWORKS:
            return False
    return True


def _main_side(node: ast.expr) -> str:
    if isinstance(node, ast.Name) and node.id == "__name__":
        return "name"
    return "main" if isinstance(node, ast.Constant) and node.value == "__main__" else ""
