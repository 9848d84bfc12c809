"""Whether a set is shown to hold strings: string literals, f-strings, ``str(...)``, items its
function checks with ``isinstance(x, str)``, keys of a dict keyed by strings; or paths
(``Path(...)``, ``p.parent``, ``p.with_suffix(...)``), which hash as their text; or the matches
of ``re.finditer``, which hash by their address in memory.

Strings hash differently in each process (the hash seed), so a set of them iterates in an order
that changes from one process to the next; a set of ints does not (an int hashes to itself), and
a set whose items are not shown stays unproven.
"""

from __future__ import annotations

import ast
import re

from ctxlint.frontends.python.declaredtext import DeclaredText, text_collection
from ctxlint.frontends.python.hashedtext import declared_set, field_annotation, hashed_items
from ctxlint.frontends.python.knowledge import IDENTITY_HASHED, SET_METHODS, STR_METHODS
from ctxlint.frontends.python.nodes import statement_of
from ctxlint.frontends.python.ordering import own_nodes
from ctxlint.frontends.python.unit import Component
from ctxlint.frontends.python.values import Env

_STR_KEYED = re.compile(r"(typing\.)?(Dict|dict|Mapping|MutableMapping)\[\s*str\s*,")
# A path's hash is its text's, so a set of paths is in hash-seed order too: the calls that make
# one and the methods only a path has whose result is a path again.
_PATH_CALLS = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PurePosixPath", "pathlib.PosixPath"})
_PATH_METHODS = frozenset({"with_suffix", "with_name", "with_stem", "relative_to", "joinpath", "resolve", "absolute"})
# The functions of `os.path` whose result is a path's text (given text; bytes hash with the seed too).
_TEXT_CALLS = frozenset({"os.path.join", "os.path.relpath", "os.path.abspath", "os.path.normpath", "os.path.realpath",
                         "os.path.basename", "os.path.dirname", "os.path.expanduser", "os.fspath"})
MAX_HOPS = 6  # how many assignments back a set is followed


class StringSets(DeclaredText):
    def string_items(self, node: ast.expr, env: Env, hops: int = MAX_HOPS) -> bool:
        """Whether the set behind ``node`` is shown to hold strings."""
        if self.returned_as_declared(node, env):
            return True
        for _ in range(hops):
            inner = node.value if isinstance(node, ast.Await) else copy_of(node)
            if inner is not None:
                node = inner
                continue
            if isinstance(node, (ast.Name, ast.Attribute)):
                binding = self.scopes.resolve(node, env)
                if binding is None and isinstance(node, ast.Attribute) \
                        and (declared := declared_set(self.m, node, env)) is not None:
                    return hashed_items(declared[0], declared[2], declared[1])  # `state.glossary: set[Term]`
                if binding is None or binding.owner is not None:
                    return False
                value = binding.value
                if isinstance(value, ast.Call) and _is_set_call(value, self) and _empty(value):
                    return self.added_strings(node.id, binding.env) if isinstance(node, ast.Name) \
                        else self.attribute_strings(node, env)
                if isinstance(node, ast.Name) and self.added_strings(node.id, binding.env):
                    # a set a call gives, whose items are not shown, that the function then adds
                    # strings to (`actors = self.first(...)`, `actors.update(set(names))`): one string
                    # among its items is enough for its order to follow the hash seed
                    return True
                node, env = binding.value, binding.env
                continue
            break
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.Sub)):
            # `a & b` holds items of both, `a - b` of `a`: one side shown is enough; `a | b` needs both
            left = self.string_items(node.left, env, hops - 1) if hops > 1 else False
            if isinstance(node.op, ast.Sub):
                return left
            right = self.string_items(node.right, env, hops - 1) if hops > 1 else False
            return left or right if isinstance(node.op, ast.BitAnd) else left and right
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SET_METHODS \
                and hops > 1:
            return self.combined_strings(node, env, hops - 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" \
                and not node.args:
            return self.str_keyed(node.func.value, env)  # `tools.keys()`, as a set already
        if isinstance(node, ast.Set):
            return all(self.text_item(e, env, ()) for e in node.elts)
        if isinstance(node, ast.SetComp):
            if never_kept(node):
                return False  # every item its filter keeps would raise: the set is always empty
            # `{r for r in roots if ...}` holds what `roots` holds (a set filtered in a loop,
            # perhaps itself as it was: each copy is one hop fewer)
            return self.text_item(node.elt, env, node.generators) or (
                hops > 1 and _filtered_copy(node) and self.string_items(node.generators[0].iter, env, hops - 1))
        if _is_set_call(node, self) and isinstance(node, ast.Call) and len(node.args) == 1:
            arg = node.args[0]
            if isinstance(arg, (ast.ListComp, ast.GeneratorExp)):
                return not never_kept(arg) and self.text_item(arg.elt, env, arg.generators)
            if isinstance(arg, (ast.List, ast.Tuple)):
                return bool(arg.elts) and all(self.text_item(e, env, ()) for e in arg.elts)
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "keys" \
                    and not arg.args:
                return self.str_keyed(arg.func.value, env)  # `set(self.tools.keys())`
            return self.declared_text(arg, env) or self.listed_strings(arg, env) \
                or isinstance(arg, ast.Call) and self.m.qualified(arg.func) in IDENTITY_HASHED \
                or isinstance(arg, (ast.Name, ast.Attribute)) and self.str_keyed(arg, env)  # a dict gives its keys
        if isinstance(node, ast.Call) and not _is_set_call(node, self):
            return self.returned_strings(node, env)
        return False

    def returned_as_declared(self, node: ast.expr, env: Env) -> bool:
        """Whether ``node`` names a set its function returns a copy of (``return list(found)``,
        perhaps cut: ``list(found)[:n]``) where the function declares that it returns a collection
        of text or of objects of a project class that hash as their text (``-> list[str]``,
        ``-> Sequence[Rule]``, ``Rule.__hash__`` returning ``hash(self.id)``): the declaration says
        what the set holds where the code that fills it does not (``set(chain(*results))``)."""
        fn = env.scope.node
        if not isinstance(node, ast.Name) or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or fn.returns is None:
            return False
        for value in env.scope.returns:  # the function's own returns, nested functions left out
            if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
                value = value.value
            copied = copy_of(value)
            if isinstance(copied, ast.Name) and copied.id == node.id:
                return hashed_items(self.m, fn.returns, env.scope)
        return False

    def combined_strings(self, call: ast.Call, env: Env, hops: int) -> bool:
        """``a.union(b)`` and the other methods as their operators (``a | b`` needs both sides shown,
        ``a & b`` either, ``a - b`` its left); ``set().union(*found)`` holds what the sets it is
        given hold: each one a call of a function declared to return strings
        (``found = await asyncio.gather(*[search(q) for q in queries])``, ``search -> set[str]``)."""
        assert isinstance(call.func, ast.Attribute)
        receiver, method = call.func.value, call.func.attr
        if not call.args:
            return False
        given = [self.starred_strings(a.value, env) if isinstance(a, ast.Starred) else self.string_items(a, env, hops)
                 for a in call.args]
        if isinstance(receiver, ast.Call) and _is_set_call(receiver, self) and _empty(receiver):
            return method == "union" and all(given)  # the empty set adds nothing: the arguments are the items
        left = self.string_items(receiver, env, hops)
        if method == "difference":
            return left
        return left or any(given) if method == "intersection" else left and all(given)

    def starred_strings(self, node: ast.expr, env: Env) -> bool:
        """Whether each collection of the list ``node`` holds strings: the results of
        ``asyncio.gather(*[f(x) for x in xs])`` with ``f`` declared to return a collection of text."""
        for _ in range(MAX_HOPS):
            if isinstance(node, ast.Await):
                node = node.value
            elif isinstance(node, ast.Name) and (binding := self.scopes.resolve(node, env)) is not None \
                    and binding.owner is None:
                node, env = binding.value, binding.env
            else:
                break
        if isinstance(node, ast.Call) and self.m.qualified(node.func) == "asyncio.gather" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Starred):
            node = node.args[0].value
        if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or not isinstance(node.elt, ast.Call):
            return False
        target = self.callees.function_for(node.elt, env, foreign=True, returns=False)
        return target is not None and text_collection(target.fn.returns)

    def statement_of(self, node: ast.AST) -> ast.AST | None:
        """The statement ``node`` is part of (a loop for its ``iter``)."""
        return statement_of(self.m.parents, self.m.parents.get(id(node)))

    def returned_strings(self, call: ast.Call, env: Env) -> bool:
        """Whether a function of the module the call reaches returns a set of strings: its
        return is annotated so, or every value it returns is shown to be one (not a copy). A
        function of another module is read by what it declares it returns (``-> list[str]``,
        ``-> Sequence[Rule]`` with ``Rule`` hashing as its text): the module that fills the set
        may ask no model, and its reader here is where the order reaches one."""
        target = self.callees.function_for(call, env, foreign=True, returns=False)
        if target is None or env.depth > MAX_HOPS:
            return False
        if target.owner is not None:  # a function of another module: what it declares it returns
            return hashed_items(target.owner.unit, target.fn.returns, target.env.scope)
        if not target.returns or any(copy_of(value) is not None for value in target.returns):
            return False  # a return that copies the set into a list is where the order is lost: reported there
        return text_collection(target.fn.returns) or all(self.string_items(v, target.env) for v in target.returns)

    def listed_strings(self, node: ast.expr, env: Env) -> bool:
        """Whether the list a name holds is built of strings (``queries = [q.strip() for q in
        text.split("\\n")]``, perhaps cut after: ``queries = queries[:n]``)."""
        for _ in range(MAX_HOPS):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                node = node.value
                continue
            if not isinstance(node, ast.Name):
                break
            binding = self.scopes.resolve(node, env)
            if binding is None or binding.owner is not None:
                return False
            node, env = binding.value, binding.env
        if isinstance(node, ast.ListComp):
            return self.text_item(node.elt, env, node.generators)
        if isinstance(node, (ast.List, ast.Tuple)):
            return bool(node.elts) and all(self.text_item(e, env, ()) for e in node.elts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            # `defaults + list(extra)`: one side's strings are among the items
            return self.listed_strings(node.left, env) or self.listed_strings(node.right, env)
        return False

    def added_strings(self, name: str, env: Env) -> bool:
        """Whether a ``name.add(item)`` of the function adds a string, or a ``name.update(items)``
        a collection of them: one string among its items is enough for the set's order to change
        with the hash seed (as for ``attribute_strings``)."""
        fn = env.scope.node
        added = [node for node in own_nodes(fn) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Attribute) and node.func.attr in ("add", "update")
                 and isinstance(node.func.value, ast.Name) and node.func.value.id == name and len(node.args) == 1]
        return any(
            self.text_item(call.args[0], env, ()) if call.func.attr == "add"  # type: ignore[attr-defined]
            else self.string_items(call.args[0], env) or self.declared_text(call.args[0], env)
            or self.comprehended_text(call.args[0], env) for call in added)

    def comprehended_text(self, node: ast.expr, env: Env) -> bool:
        """``(p.strip() for p in paths)``, ``[str(n) for n in ids]``: items shown to be strings."""
        return isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) \
            and self.text_item(node.elt, env, node.generators)

    def attribute_strings(self, node: ast.Attribute, env: Env) -> bool:
        """Whether a method of the class adds a string to the set ``self.<name>`` holds: one
        string among its items is enough for their order to change with the hash seed."""
        cls = env.scope.cls
        if not (isinstance(node.value, ast.Name) and node.value.id == "self" and cls is not None):
            return False
        for fn, scope in cls.functions.values():
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for call in own_nodes(fn):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "add" \
                        and len(call.args) == 1 and self.m.code(call.func.value) == self.m.code(node) \
                        and self.text_item(call.args[0], Env(scope), ()):
                    return True
        return False

    def text_item(self, item: ast.expr, env: Env, generators: list[ast.comprehension] | tuple[()]) -> bool:
        """Whether ``item`` is a string: a literal, an f-string, ``str(...)``, a value its
        function checks with ``isinstance(item, str)``, or a key of a dict keyed by strings."""
        if isinstance(item, ast.Constant):
            return isinstance(item.value, str)
        if isinstance(item, ast.JoinedStr):
            return True
        if isinstance(item, ast.Call) and self.m.qualified(item.func) == "str":
            return True
        if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr in STR_METHODS:
            return True  # `q.strip()`, `name.lower()`: text (or bytes, whose hash is seeded too)
        if self.path_item(item):
            return True
        if isinstance(item, ast.Call) and self.text_call(item, env):
            return True
        if isinstance(item, ast.Name):
            for comp in generators:
                if self.dict_key_of(item.id, comp, env):
                    return True
                if isinstance(comp.target, ast.Name) and comp.target.id == item.id \
                        and self.declared_text(comp.iter, env):
                    return True  # `(f for f in action.add_files)`, `add_files: List[str]`
            if not generators and (listed := self.looped_item(item, env)) is not None:
                return self.text_item(*listed)  # `for folder in folders: roots.add(folder)`
            binding = None if generators else self.scopes.resolve(item, env)
            if binding is not None and binding.owner is None and not binding.extras \
                    and isinstance(binding.value, (ast.Constant, ast.JoinedStr, ast.Call)) \
                    and self.text_item(binding.value, binding.env, ()):
                return True  # `fname = str(path.resolve())`, then `names.add(fname)`
        return self.checked_str(item, env)

    def text_call(self, call: ast.Call, env: Env) -> bool:
        """Whether ``call`` gives text: a function of ``os.path`` that makes a path's text
        (``os.path.relpath(f, root)``), or one of the project declared to return ``str`` or, in this
        module, whose every return is shown to be text (``return os.path.relpath(fname, self.root)``)."""
        if self.m.qualified(call.func) in _TEXT_CALLS:
            return True
        if env.depth > MAX_HOPS:
            return False
        target = self.callees.function_for(call, env, foreign=True, returns=False)
        if target is None:
            return False
        if target.fn.returns is not None:
            return ast.unparse(target.fn.returns) == "str"
        return target.owner is None and bool(target.returns) \
            and all(self.text_item(value, target.env, ()) for value in target.returns)

    def path_item(self, item: ast.expr) -> bool:
        """Whether ``item`` is a path: ``Path(...)``, ``p.parent``, ``p.with_suffix(...)``."""
        if isinstance(item, ast.Attribute):
            return item.attr == "parent"
        if isinstance(item, ast.Call):
            return self.m.qualified(item.func) in _PATH_CALLS or (
                isinstance(item.func, ast.Attribute) and item.func.attr in _PATH_METHODS)
        return False

    def looped_item(self, item: ast.Name, env: Env) -> tuple[ast.expr, Env, list[ast.comprehension]] | None:
        """For the target of the one loop of its function that binds ``item``, over a list its
        function builds with a comprehension (``folders = [p.parent for p in files]``): the
        comprehension's item, its env and its generators."""
        loops = [node for node in own_nodes(env.scope.node) if isinstance(node, (ast.For, ast.AsyncFor))
                 and isinstance(node.target, ast.Name) and node.target.id == item.id]
        if len(loops) != 1 or not isinstance(loops[0].iter, ast.Name):
            return None
        binding = self.scopes.resolve(loops[0].iter, env)
        if binding is None or binding.owner is not None or binding.extras \
                or not isinstance(binding.value, (ast.ListComp, ast.GeneratorExp)):
            return None
        return binding.value.elt, binding.env, binding.value.generators

    def dict_key_of(self, name: str, comp: ast.comprehension, env: Env) -> bool:
        """``for name in d`` / ``d.keys()`` / ``for name, _ in d.items()`` over a dict keyed by strings."""
        target, source = comp.target, comp.iter
        if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name) \
                and target.elts[0].id == name and isinstance(source, ast.Call) \
                and isinstance(source.func, ast.Attribute) and source.func.attr == "items":
            return self.str_keyed(source.func.value, env)
        if isinstance(target, ast.Name) and target.id == name:
            if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "keys":
                source = source.func.value
            return self.str_keyed(source, env)
        return False

    def str_keyed(self, node: ast.expr, env: Env) -> bool:
        for _ in range(MAX_HOPS):
            if isinstance(node, ast.Dict):
                return bool(node.keys) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                               for k in node.keys)
            if not isinstance(node, (ast.Name, ast.Attribute)):
                return False
            if isinstance(node, ast.Attribute) and (declared := self.self_field(node, env)) is not None:
                return bool(_STR_KEYED.match(ast.unparse(declared)))
            binding = self.scopes.resolve(node, env)
            if binding is None and isinstance(node, ast.Attribute):
                # `tool.parameters`, a field the class of `tool` declares `dict[str, Parameter]`
                field = field_annotation(self.m, node, env)
                return field is not None and bool(_STR_KEYED.match(ast.unparse(field[2])))
            if binding is None:
                annotation = self.callees.param_annotation(node.id, env) if isinstance(node, ast.Name) else None
                return annotation is not None and bool(_STR_KEYED.match(annotation))
            if binding.owner is not None:
                return False
            node, env = binding.value, binding.env
        return False

    def checked_str(self, item: ast.expr, env: Env) -> bool:
        """Whether the function ``item`` is in tests ``isinstance(item, str)``."""
        written = self.m.code(item)
        return any(isinstance(node, ast.Call) and self.m.qualified(node.func) == "isinstance"
                   and len(node.args) == 2 and isinstance(node.args[1], ast.Name) and node.args[1].id == "str"
                   and self.m.code(node.args[0]) == written for node in own_nodes(env.scope.node))


def copy_of(node: ast.expr) -> ast.expr | None:
    """The collection ``list(x)`` / ``tuple(x)`` copies."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") \
            and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    return None


# Built-in types a comprehension's filter may test for, by the name `isinstance` is given.
_BUILTIN_TYPES: dict[str, type] = {"dict": dict, "list": list, "str": str, "tuple": tuple, "set": set,
                                   "int": int, "float": float, "bytes": bytes}


def never_kept(comp: ast.SetComp | ast.ListComp | ast.GeneratorExp) -> bool:
    """Whether every item a comprehension's filter keeps would raise where its element reads it:
    the filter keeps only built-in values (``if isinstance(item, dict)``) and the element reads
    an attribute none of them has (``item.uri``), so the comprehension only ever gives nothing."""
    for generator in comp.generators:
        target = generator.target
        if not isinstance(target, ast.Name):
            continue
        kinds = [kind for test in generator.ifs for kind in _tested_types(test, target.id)]
        if not kinds:
            continue
        read = {n.attr for n in ast.walk(comp.elt) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and n.value.id == target.id}
        if any(all(not hasattr(kind, attr) for kind in kinds) for attr in read):
            return True
    return False


def _tested_types(test: ast.expr, name: str) -> list[type]:
    """The built-in types ``isinstance(name, ...)`` keeps, when the whole test is that call."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == name):
        return []
    given = test.args[1]
    names = given.elts if isinstance(given, ast.Tuple) else [given]
    kinds = [_BUILTIN_TYPES.get(n.id) if isinstance(n, ast.Name) else None for n in names]
    return [] if None in kinds else [k for k in kinds if k is not None]


def _filtered_copy(comp: ast.SetComp) -> bool:
    """``{r for r in roots if ...}``: a set of the items of one collection, kept as they are."""
    return len(comp.generators) == 1 and isinstance(comp.elt, ast.Name) \
        and isinstance(comp.generators[0].target, ast.Name) and comp.generators[0].target.id == comp.elt.id


def _empty(call: ast.Call) -> bool:
    """``set()``, ``set([])``, ``set(())``: a set started empty, filled by what is added to it."""
    return not call.args or (len(call.args) == 1 and isinstance(call.args[0], (ast.List, ast.Tuple))
                             and not call.args[0].elts)


def _is_set_call(node: ast.expr, part: Component) -> bool:
    return isinstance(node, ast.Call) and part.m.qualified(node.func) in ("set", "frozenset")
