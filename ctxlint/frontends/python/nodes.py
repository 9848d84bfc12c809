"""Walking CPython's syntax trees quickly: every module the front-end reads is walked several
times (prefilter, depth bound, scope index), so these skip what nothing reads."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace
from typing import cast

from ctxlint.model import NamedFunction
from ctxlint.providers import LIMIT_KEYWORDS

# Nodes with no child but their marker: the most common nodes of any module.
LEAVES = frozenset({ast.Name, ast.Constant})


def children(node: ast.AST) -> tuple[ast.AST, ...]:
    """The child nodes of ``node`` in field order, as ``ast.iter_child_nodes`` gives them but
    without context and operator markers.

    Listed once per node and kept on it: a module is walked by many passes (prefilter, depth
    bound, scope index, parents, each component's own walk of a function), and the trees of the
    modules a project follows outlive one file's analysis. A tuple, shared by every caller."""
    kind = type(node)
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        fields = _CHILD_FIELDS[kind] = _child_fields(kind)
    if not fields:
        return ()  # names and constants, most of the nodes: nothing is kept on them
    known: tuple[ast.AST, ...] | None = getattr(node, _KEPT, None)
    if known is not None:
        return known
    found: list[ast.AST] = []
    for name, holes in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            if holes:  # None: a dict's `**` key, a missing keyword-only default
                found.extend([v for v in value if v is not None])
            else:
                found.extend(value)
        elif value is not None:
            found.append(value)
    known = tuple(found)
    setattr(node, _KEPT, known)
    return known


# The attribute a node's children are kept in (no field of any node type has this name).
_KEPT = "_ctxlint_children"
# Fields that never hold a child node: the markers (a name's load/store context, an operator),
# which nothing reads as nodes, identifiers and plain values. Leaving them out of the per-type
# field lists spares a lookup and a type test per field on every node walked.
_NOT_NODES = frozenset({"ctx", "op", "ops", "id", "attr", "name", "arg", "asname", "module", "level", "kind",
                        "conversion", "is_async", "simple", "type_comment", "kwd_attrs", "rest"})
# The list fields whose entries may be None (the grammar's `expr?*`); every other list holds nodes
# only and is taken whole, without a test per entry.
_HOLED = frozenset({(ast.Dict, "keys"), (ast.arguments, "kw_defaults")})
# Per node type: its child fields, each with whether it is a holed list.
_CHILD_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _child_fields(kind: type) -> tuple[tuple[str, bool], ...]:
    if kind in (ast.Constant, ast.MatchSingleton, ast.Global, ast.Nonlocal, ast.TypeIgnore):
        return ()  # their only fields are values or identifiers
    if kind.__name__ == "TypeAlias":  # Python 3.12: `type X = ...` names its alias with a Name node
        names = tuple(f for f in kind._fields if f == "name" or f not in _NOT_NODES)  # type: ignore[attr-defined]
    else:
        names = tuple(f for f in kind._fields if f not in _NOT_NODES)  # type: ignore[attr-defined]
    return tuple((f, (kind, f) in _HOLED) for f in names)


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (itself included), depth first, markers left out."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)


def enclosing(node: ast.AST, parents: dict[int, ast.AST], kinds: tuple[type, ...] = FUNCTION_NODES) -> ast.AST | None:
    """The nearest node above ``node`` of one of ``kinds`` (by default the function whose body
    holds it), climbing the module's parents; None when there is none."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, kinds):
        current = parents.get(id(current))
    return current


def function_of(node: ast.AST, parents: dict[int, ast.AST]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose body holds ``node`` (None at the module's top level)."""
    return cast("ast.FunctionDef | ast.AsyncFunctionDef | None", enclosing(node, parents))


def reads_of(fn: ast.AST, name: str, after: ast.stmt | None = None) -> list[ast.Name]:
    """The reads of the local ``name`` in ``fn``, in order; with ``after``, those on its lines or
    later, outside it."""
    inside = {id(n) for n in walk(after)} if after is not None else set()
    start = after.lineno if after is not None else 0
    reads = [n for n in walk(fn) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
             and id(n) not in inside and n.lineno >= start]
    return sorted(reads, key=lambda n: (n.lineno, n.col_offset))


# Statements after which nothing else of their block runs.
_ENDS_BLOCK = (ast.Return, ast.Raise, ast.Continue, ast.Break)
# The statement lists of a node that run one after another.
BLOCKS = ("body", "orelse", "finalbody")


def drop_unreachable(tree: ast.AST) -> None:
    """Take out the statements that follow a ``return``, ``raise``, ``continue`` or ``break`` of
    their own block (``return done(); selected = await self._select(...)``): they never run, as
    CPython's compiler knows when it leaves them out, so no call, request or cut in them is the
    program's. A dropped tail that yields is kept: its ``yield`` still makes the function a generator."""
    stack: list[ast.AST] = [tree]  # statements only sit in statement lists: expressions are not visited
    while stack:
        node = stack.pop()
        for field in BLOCKS:
            block = getattr(node, field, None)
            if type(block) is not list or not block or not isinstance(block[0], ast.stmt):
                continue
            end = next((at for at, statement in enumerate(block[:-1]) if isinstance(statement, _ENDS_BLOCK)), None)
            if end is not None and not any(isinstance(n, (ast.Yield, ast.YieldFrom))
                                           for statement in block[end + 1:] for n in walk(statement)):
                del block[end + 1:]
                vars(node).pop(_KEPT, None)  # its children as kept before (a depth check lists them) are stale
            stack.extend(block)
        stack.extend(getattr(node, "handlers", None) or ())  # `except` clauses (ExceptHandler.body)
        stack.extend(getattr(node, "cases", None) or ())  # `case` clauses (match_case.body)


def chain(node: ast.AST) -> list[str]:
    """Attribute names from the root down, whatever the root is
    (``OpenAI().chat.completions.create`` -> ``[chat, completions, create]``)."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def forward_reference(annotation: ast.Constant) -> ast.expr | None:
    """The expression a string annotation holds (``"BaseLLM | None"``), placed where the string is;
    None when the text is no expression (or one CPython refuses: null bytes, nesting too deep)."""
    try:
        parsed = ast.parse(str(annotation.value).strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(parsed):
        ast.copy_location(node, annotation)
    return parsed


def base_name(base: ast.expr) -> str | None:
    """The name a class's base is written with: ``Base``, or ``Base[T]`` of a generic one."""
    base = base.value if isinstance(base, ast.Subscript) else base
    return base.id if isinstance(base, ast.Name) else None


def arguments(call: ast.Call) -> list[ast.expr]:
    """The values a call passes, positional and by keyword, in neither case starred."""
    return [a for a in call.args if not isinstance(a, ast.Starred)] + [k.value for k in call.keywords
                                                                       if k.arg is not None]


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
                found.append((NamedFunction(node.name, node.lineno, node.end_lineno or node.lineno, top_level=True),
                              node))
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


def abstract(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A method with no body of its own: ``pass``, ``...``, a docstring, ``raise
    NotImplementedError``, or ``@abstractmethod``."""
    if any((d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", "")) == "abstractmethod"
           for d in fn.decorator_list):
        return True
    for statement in fn.body:
        if isinstance(statement, ast.Pass) or (isinstance(statement, ast.Expr)
                                               and isinstance(statement.value, ast.Constant)):
            continue
        if isinstance(statement, ast.Raise):
            exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                continue
        return False
    return True


def generic_alias(node: ast.Subscript) -> bool:
    """Whether ``node`` is a generic class given its type parameters (``Agent[Context]``,
    ``Agent[None, str]``): a class named in CapWords, subscripted with type names."""
    name = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", "")
    if not (name[:1].isupper() and any(c.islower() for c in name)):
        return False  # `MODELS[name]` reads a table
    types = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return all(_type_name(t) for t in types)


def _type_name(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.Subscript):  # `list[str]`
        return _type_name(node.value)
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return bool(name) and (name[:1].isupper() or name in _BUILTIN_TYPES)


_BUILTIN_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set"})


def kept_default(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The default of ``fn``'s parameter ``name`` when ``fn`` never gives the name another value
    (``history = history or self.memory`` would): what it holds whenever a call leaves it out."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    with_defaults = positional[len(positional) - len(fn.args.defaults):]
    defaults = dict(zip((a.arg for a in with_defaults), fn.args.defaults, strict=True))
    defaults.update((a.arg, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True) if d is not None)
    default = defaults.get(name)
    if default is None or any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                              for n in walk(fn)):
        return None
    return default


def statement_of(parents: dict[int, ast.AST], node: ast.AST | None) -> ast.AST | None:
    """The statement ``node`` is part of: itself when it is one; None above a module's statements."""
    while node is not None and not isinstance(node, ast.stmt):
        node = parents.get(id(node))
    return node


def signed_constant(node: ast.AST | None) -> ast.Constant | None:
    """A constant as written, a negative number (``-1``, a unary minus on a number) included."""
    if isinstance(node, ast.Constant):
        return node
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return ast.Constant(-value)
    return None


def overwritten_before_read(parents: dict[int, ast.AST], value: ast.expr) -> bool:
    """``model = ChatOpenAI(...)`` whose next statements give ``model`` another value before anything
    reads it (``model = ChatAnthropic(...)`` on the next line): the first value is never used. Read
    only through the straight-line statements that follow in the same block."""
    assign = parents.get(id(value))
    if not (isinstance(assign, ast.Assign) and assign.value is value and len(assign.targets) == 1
            and isinstance(assign.targets[0], ast.Name)):
        return False
    name = assign.targets[0].id
    block = parents.get(id(assign))
    body = next((getattr(block, field) for field in ("body", "orelse", "finalbody")
                 if any(s is assign for s in getattr(block, field, ()))), None)
    if body is None:
        return False
    for statement in body[[id(s) for s in body].index(id(assign)) + 1:]:
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in walk(statement)):
            return False
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                     for t in statement.targets):
            return True
        if not isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Expr)):
            return False
    return False


def loop_binding(parents: dict[int, ast.AST], name: ast.Name) -> ast.For | ast.AsyncFor | None:
    """The ``for`` loop, in ``name``'s own function, whose target is ``name`` (``for item in
    items: ... item ...``): what the name holds is an item of what that loop goes over."""
    current = parents.get(id(name))
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(current, (ast.For, ast.AsyncFor)) and isinstance(current.target, ast.Name) \
                and current.target.id == name.id:
            return current
        current = parents.get(id(current))
    return None


def no_sizes(node: ast.AST) -> set[int]:
    """The names in ``node`` that cannot be a size or a budget: a function called
    (``len``, ``count_tokens``), and a collection an item is read from (``int(words[0]) >= 400``
    compares the item, whatever the collection's name says)."""
    return {id(n.func if isinstance(n, ast.Call) else n.value) for n in ast.walk(node)
            if isinstance(n, (ast.Call, ast.Subscript))}


def picked_from(node: ast.expr) -> ast.expr | None:
    """The dict a comprehension picks its entries from (``{k: v for k, v in hints.items() if k in
    allowed}``, ``{k: hints[k] for k in hints}``): it holds some of that dict's keys, no others."""
    if not (isinstance(node, ast.DictComp) and len(node.generators) == 1):
        return None
    loop = node.generators[0]
    source = loop.iter
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) \
            and source.func.attr in ("items", "keys") and not source.args:
        source = source.func.value
    names = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
    return source if isinstance(node.key, ast.Name) and node.key.id in names else None


def filtered_source(node: ast.expr) -> ast.expr | None:
    """The dict ``node`` copies leaving out only some values (``{k: v for k, v in raw.items() if v
    is not None}``): every key it keeps, it keeps with its value. None when a test reads the key
    (which keys it drops is then not known) or the comprehension changes keys or values."""
    source = picked_from(node)
    if source is None:
        return None
    assert isinstance(node, ast.DictComp)
    loop = node.generators[0]
    names = [e.id for e in loop.target.elts if isinstance(e, ast.Name)] if isinstance(loop.target, ast.Tuple) else []
    if len(names) != 2 or not (isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Attribute)
                               and loop.iter.func.attr == "items"):
        return None
    key, value = names
    if not (isinstance(node.key, ast.Name) and node.key.id == key and isinstance(node.value, ast.Name)
            and node.value.id == value):
        return None
    if any(isinstance(n, ast.Name) and n.id == key for test in loop.ifs for n in walk(test)):
        return None
    return source


def none_written(node: ast.AST | None) -> bool:
    """``None`` written as such: a value the filter drops."""
    return isinstance(node, ast.Constant) and node.value is None


def empty_literal(node: ast.expr) -> bool:
    """``None``, ``{}`` or ``dict()``."""
    return (isinstance(node, ast.Constant) and node.value is None) or (isinstance(node, ast.Dict) and not node.keys) \
        or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict"
            and not node.args and not node.keywords)


def or_empty(node: ast.expr) -> ast.expr | None:
    """``value`` of ``value or {}`` or ``value if value else {}``: what the expression holds unless it
    falls back on an empty one."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2 \
            and empty_literal(node.values[1]):
        return node.values[0]
    if isinstance(node, ast.IfExp) and empty_literal(node.orelse) and ast.dump(node.test) == ast.dump(node.body):
        return node.body
    return None


def filled_when_none(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``fn`` gives its parameter ``name`` a value of its own when a call leaves it out
    (``if params is None: params = defaults(config)``): not empty by default, whatever it defaults to."""
    for node in walk(fn):
        if not isinstance(node, ast.If):
            continue
        test = node.test.operand if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) \
            else node.test.left if isinstance(node.test, ast.Compare) and isinstance(node.test.ops[0], ast.Is) \
            and len(node.test.ops) == 1 and isinstance(node.test.comparators[0], ast.Constant) \
            and node.test.comparators[0].value is None else None
        if isinstance(test, ast.Name) and test.id == name and any(
                isinstance(statement, ast.Assign) and not empty_literal(statement.value)
                and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)
                for statement in node.body):
            return True
    return False


def sets_limit_key(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether ``fn`` puts an output limit into the dict ``name`` itself: ``name["max_tokens"] = ...``,
    ``name.setdefault("max_tokens", ...)``, ``name.update(max_tokens=...)``."""
    for node in walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                        and target.value.id == name and isinstance(target.slice, ast.Constant) \
                        and target.slice.value in LIMIT_KEYWORDS:
                    return True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            if node.func.attr == "setdefault" and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value in LIMIT_KEYWORDS:
                return True
            if node.func.attr == "update" and any(k.arg in LIMIT_KEYWORDS for k in node.keywords):
                return True
    return False


def item_names(target: ast.expr, iterable: ast.expr) -> set[str]:
    """The names a loop (or a comprehension) binds to the items of what it goes over: the whole
    target, but of the pairs of ``enumerate(items)`` or ``table.items()`` only the second (the
    first is an index or a key)."""
    if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 and isinstance(iterable, ast.Call):
        func = iterable.func
        if (isinstance(func, ast.Name) and func.id == "enumerate") or (isinstance(func, ast.Attribute)
                                                                      and func.attr == "items"):
            target = target.elts[1]
    return {n.id for n in walk(target) if isinstance(n, ast.Name)}


def left_before(change: ast.AST, use: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whether the function is left before ``use`` on every path through ``change``: ``change``
    sits in a block that ends with a ``return`` or ``raise`` and does not hold ``use``
    (``if local: data.pop("max_tokens"); return send(**data)`` then ``return send(**data)``)."""
    line = getattr(use, "lineno", None)
    child, parent = change, parents.get(id(change))
    while line is not None and parent is not None and not isinstance(
            parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
        for field in BLOCKS:
            block = getattr(parent, field, None)
            if type(block) is list and block and any(s is child for s in block) \
                    and isinstance(block[-1], (ast.Return, ast.Raise)) \
                    and not block[0].lineno <= line <= (block[-1].end_lineno or block[-1].lineno):
                return True
        child, parent = parent, parents.get(id(parent))
    return False


def never_true(test: ast.expr) -> bool:
    """Whether ``test`` is false whatever the program's state: a false constant, an ``and`` with a
    false operand, an ``or`` of false operands, ``not`` of a true constant."""
    if isinstance(test, ast.Constant):
        return not test.value
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And):
            return any(never_true(v) for v in test.values)
        return all(never_true(v) for v in test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Constant) and bool(test.operand.value)
    return False
