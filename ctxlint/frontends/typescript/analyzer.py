"""The module analysis: scopes and names, string values, slots and their sources, requests.

It mirrors the Python front-end's model on a tree-sitter tree. Values are followed through the
module's own constants, ``let``/``const`` bindings, ``+=`` and ``push``, object properties,
array spreads and simple local functions; whatever comes from elsewhere (a parameter, an import,
an API result) is a slot with the facts its expression shows.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from itertools import pairwise
from typing import Any

from ctxlint.frameworks.typescript import TsMessage, TsSink, TypeScriptCatalogue
from ctxlint.frontends import placeholders
from ctxlint.frontends.code import words
from ctxlint.frontends.code.pieces import Builder, Facts, Piece, in_loop, strip, unique
from ctxlint.frontends.code.words import cut_marker
from ctxlint.frontends.typescript.syntax import Text, named_children, unescape
from ctxlint.frontends.typescript.zod import ZodReader
from ctxlint.model import (
    Breakpoint,
    Evidence,
    EvidenceKind,
    Observation,
    OutputLimit,
    ParsedFile,
    Request,
    Role,
    Segment,
    Slot,
    Source,
    SourceKind,
    Span,
    ToolDef,
)
from ctxlint.providers import ROLE_NAMES, TEXT_PARTS

Node = Any

MAX_DEPTH = 400  # syntax-tree levels; deeper input is refused with a located error
_MAX_RESOLVE = 40  # how deep name and function resolution may go
_MAX_CHAIN = 24  # property accesses, calls and awaits (`a.b[c].d()`) a value or a source is followed through
_CHAINED = {"member_expression": "object", "subscript_expression": "object", "call_expression": "function",
            "await_expression": ""}  # the kinds a chain is made of, and the field that goes down it

_FUNCTIONS = {"function_declaration", "function_expression", "arrow_function", "method_definition",
              "generator_function_declaration", "generator_function", "function"}
_WRAPPERS = {"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
             "type_assertion"}
_LOOP_CALLBACKS = {"forEach", "map", "flatMap", "filter", "reduce", "some", "every", "find"}
_GLOBALS = {"Math", "Date", "JSON", "Object", "Array", "String", "Number", "Boolean", "Promise", "console",
            "crypto", "process", "Symbol", "Reflect", "Intl", "undefined", "null", "true", "false", "this",
            "globalThis", "window", "document", "fs", "path", "Buffer", "performance"}

_NOT_PROMPT_NAMES = (*words.NOT_PROMPT_NAMES, "*_schema", "*_props", "*_component", "*_element", "*_ref", "*_input",
                     "*_button", "*_state", "set_*", "use_*", "*_options", "*_config")
_MEASURES = {"length", "size", "byteLength"}
_MEASURING_CALLS = {"Boolean", "Number", "parseInt", "parseFloat", "Array.isArray", "isNaN", "Object.keys"}
_MEASURING_METHODS = {"startsWith", "endsWith", "includes", "indexOf", "lastIndexOf", "test", "has", "some",
                      "every", "localeCompare", "charCodeAt", "codePointAt", "search"}
_STATIC_PATH_CALLS = {"path.join", "path.resolve", "path.dirname", "path.basename", "node:path.join",
                      "node:path.resolve", "node:path.dirname", "fileURLToPath", "url.fileURLToPath",
                      "node:url.fileURLToPath", "process.cwd", "URL", "String"}
_STATIC_PATH_NAMES = {"__dirname", "__filename", "import.meta.dirname", "import.meta.filename", "import.meta.url"}
_UNORDERED_CALLS = {"fs.readdirSync": "fs.readdirSync", "fs.readdir": "fs.readdir",
                    "fs.promises.readdir": "fs.promises.readdir", "fs/promises.readdir": "fs.readdir",
                    "node:fs.readdirSync": "fs.readdirSync", "node:fs/promises.readdir": "fs.readdir",
                    "glob.sync": "glob.sync", "glob.globSync": "globSync", "glob.glob": "glob",
                    "fast-glob": "fast-glob", "fast-glob.sync": "fast-glob", "globby.globby": "globby",
                    "globby.globbySync": "globby"}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


def _prompt_name(name: str) -> bool:
    return words.prompt_name(snake(name), _NOT_PROMPT_NAMES)


def _strong_prompt_name(name: str) -> bool:
    return words.matches(snake(name), words.STRONG_PROMPT_NAMES)


def _system_name(name: str) -> bool:
    """A name that says its text is the system message (`instructions` alone does not: in
    TypeScript it as often names text added to the user's turn)."""
    return words.matches(snake(name), words.SYSTEM_NAMES)


class TooDeep(Exception):
    def __init__(self, node: Node):
        self.node = node


# --------------------------------------------------------------------------------------------
# Internal values.


@dataclass
class _Loop:
    node: Node
    text: str


@dataclass(eq=False)
class _Scope:
    kind: str  # "module" or "function"
    node: Node
    parent: _Scope | None = None
    assigns: dict[str, list[_Assign]] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)  # name -> type annotation text ("" if none)
    positional: list[str] = field(default_factory=list)
    functions: dict[str, _Function] = field(default_factory=dict)
    returns: list[Node] = field(default_factory=list)
    tool_results: dict[str, Span] = field(default_factory=dict)
    handler: bool = False  # a request handler: `(req, res) => ...`, `export async function POST(req)`


@dataclass(eq=False)
class _Function:
    node: Node
    scope: _Scope


@dataclass(eq=False)
class _Assign:
    kind: str  # "=", "+=", "append", "extend", "insert"
    value: Node | None
    end: int
    loops: tuple[_Loop, ...]
    scope: _Scope
    target: Node
    key: str | None = None  # `const { key } = value`: the name holds one property of the value


# A name assigned more often than this in one scope is looked up by bisection: generated or
# repeated code assigns one name thousands of times, and every lookup scanned every assignment.
_TIMELINE_FROM = 16


class _Timeline:
    """A name's assignments in one scope, for finding those made before an offset in log time.

    ``before(at)`` answers what a linear scan of the records answers: the last plain ``=`` among
    the records that end by ``at`` (the latest in list order), followed by the other records after
    it in list order that end by ``at`` or that a loop around ``at`` carries back (``at`` None:
    every record). The records' ends need not be in list order (error recovery can close a
    declaration long after the assignments inside it): they are sorted once, and the last ``=``
    among each prefix of that order is kept.
    """

    def __init__(self, records: list[_Assign]):
        self.records = records
        order = sorted(range(len(records)), key=lambda i: records[i].end)
        self.ends = [records[i].end for i in order]
        self.last_plain: list[int] = [-1]  # last_plain[n]: the latest `=` (in list order) among order[:n]
        for i in order:
            self.last_plain.append(max(self.last_plain[-1], i) if records[i].kind == "=" else self.last_plain[-1])
        self.others = [i for i, r in enumerate(records) if r.kind != "="]

    def before(self, at: int | None, carried) -> tuple[list[_Assign], int | None]:
        """The visible records from the last ``=`` on, and the index of that ``=`` (0), or ([], None)."""
        index = self.last_plain[len(self.ends) if at is None else bisect.bisect_right(self.ends, at)]
        if index < 0:
            return [], None
        later = (self.records[i] for i in self.others[bisect.bisect_right(self.others, index) :])
        visible = (r for r in later if at is None or r.end <= at or (r.loops and carried(r, at)))
        return [self.records[index], *visible], 0


@dataclass(frozen=True)
class _Env:
    scope: _Scope
    bindings: tuple[tuple[str, Node, Any], ...] = ()
    depth: int = 0

    def bound(self, name: str):
        for param, node, env in self.bindings:
            if param == name:
                return node, env
        return None


@dataclass
class _Binding:
    value: Node
    env: _Env
    extras: list[_Assign]
    target: Node
    loops: int = 0
    # Part of a value that cannot be read as a literal (`const { page } = await req.json()`): its
    # facts and sources are the whole value's, its text is unknown.
    part: str | None = None

    def loop_of(self, extra: _Assign) -> _Loop | None:
        return extra.loops[-1] if len(extra.loops) > self.loops else None


@dataclass
class _Item:
    node: Node
    env: _Env
    loop: str | None = None
    variable: bool = False


class _Builder(Builder):
    def placed(self, slot: Slot, role: Role) -> Slot:
        if not any(s.detail.startswith(_REQUEST_BODY) for s in slot.sources):
            return slot
        # What a client posts and the app sends back as the user's turn is the user's own input.
        # In the developer's text it is suspect, but weakly: the body is most often the app's own
        # front-end forwarding its settings, so the finding is low confidence.
        users_turn = role in (Role.USER, Role.ASSISTANT)
        return replace(slot, sources=tuple(
            replace(s, strong=False) if s.detail.startswith(_REQUEST_BODY) else s
            for s in slot.sources if not (users_turn and s.detail.startswith(_REQUEST_BODY))))


@dataclass
class _ToolGroup:
    """The tools one server (or one list) offers, and the slots of their descriptions."""

    tools: list[tuple[int, ToolDef]] = field(default_factory=list)
    builder: _Builder = field(default_factory=_Builder)


# --------------------------------------------------------------------------------------------


class Analyzer:
    def __init__(self, root: Node, text: Text, knowledge: TypeScriptCatalogue, grammar: str = "typescript",
                 siblings: dict | None = None, generation: int = 0):
        self.root = root
        self.ts = knowledge
        self.src = text
        self.path = text.path
        self.grammar = grammar
        # Modules of the same tree this one imports constants from, by path (shared with them).
        self.siblings: dict[str, Analyzer | None] = siblings if siblings is not None else {}
        self.generation = generation  # how many imports away from the linted module
        self.dependencies: list[str] = []
        self.imports: dict[str, str] = {}  # local name -> "module" or "module.export"
        self.module_scope = _Scope("module", root)
        self.calls: list[tuple[Node, _Scope]] = []
        self.functions: list[_Function] = []
        self.callback_scopes: dict[int, _Scope] = {}  # `.map(item => ...)` callbacks by node id
        self.arrays: list[tuple[Node, _Scope]] = []
        self.objects: list[tuple[Node, _Scope]] = []
        self.observations: list[Observation] = []
        self._observed: set[Span] = set()
        self._active: set[int] = set()
        self._consumed: set[int] = set()
        self._marked: set[int] = set()
        self._timelines: dict[int, _Timeline] = {}
        self._bound_texts: dict[tuple, tuple[list[Piece] | None, set[int]]] = {}  # see name_text
        self._bound_untrusted: dict[tuple, Source | None] = {}  # see bound_untrusted
        self._bound_facts: dict[tuple, tuple[Facts, set[int]]] = {}  # see bound_facts
        self._chains: dict[int, int] = {}  # property-chain depth by node id (see chain_depth)
        self._undotted: set[int] = set()  # chains `dotted` found no name for
        self.long_chain: Node | None = None  # the first chain past _MAX_CHAIN, for the notice
        self.llm = False
        self.mcp = False
        self.zod = ZodReader(self.code, self.deref, self.literal, self.entries, self.is_zod_name)

    # ---- basics ---------------------------------------------------------------------------------

    def code(self, node: Node) -> str:
        return self.src.code(node)

    def span(self, node: Node) -> Span:
        return self.src.node_span(node)

    def field(self, node: Node, name: str) -> Node | None:
        return node.child_by_field_name(name)

    def args(self, call: Node) -> list[Node]:
        arguments = call.child_by_field_name("arguments")
        if arguments is None or arguments.type != "arguments":
            return []
        return [a for a in arguments.named_children if a.type != "comment"]

    def unwrap(self, node: Node) -> Node:
        while node is not None and node.type in _WRAPPERS:
            inner = [c for c in node.named_children if c.type != "comment"]
            if not inner:
                break
            node = inner[0]
        return node

    def dotted(self, node: Node) -> str | None:
        """``a.b.c`` for names and property chains (``a["key"]`` and ``a?.b`` too)."""
        node = self.unwrap(node)
        if node.type in ("identifier", "shorthand_property_identifier", "this", "property_identifier"):
            return self.code(node)
        if node.id in self._undotted:  # each level of a long chain on an unnamed base is asked once
            return None
        if node.type == "member_expression":
            base = self.dotted(self.field(node, "object"))
            prop = self.field(node, "property")
            if base and prop is not None:
                return f"{base}.{self.code(prop)}"
        elif node.type == "subscript_expression":
            index = self.field(node, "index")
            base = self.dotted(self.field(node, "object"))
            if base and index is not None and index.type == "string":
                key = self.string_value(index)
                if key and key.isidentifier():
                    return f"{base}.{key}"
        elif node.type == "meta_property":
            return self.code(node)
        self._undotted.add(node.id)
        return None

    def chain_depth(self, node: Node) -> int:
        """How many property accesses and calls ``node`` stacks (``a.b[c].d()``: 4), each level counted
        once per module."""
        path: list[Node] = []
        depth = 0
        current: Node | None = node
        while current is not None and current.type in _CHAINED:
            known = self._chains.get(current.id)
            if known is not None:
                depth = known
                break
            path.append(current)
            if current.type == "await_expression":
                current = self.unwrap(next((c for c in current.named_children if c.type != "comment"), None))
            else:
                current = self.unwrap(self.field(current, _CHAINED[current.type]))
        for level in reversed(path):
            depth += 1
            self._chains[level.id] = depth
        return depth

    def too_long(self, node: Node) -> bool:
        """A chain past _MAX_CHAIN property accesses and calls, which values and sources are not followed
        through (following one at each of its levels would cost the square or the cube of its length)."""
        if self.chain_depth(node) <= _MAX_CHAIN:
            return False
        if self.long_chain is None:
            self.long_chain = node
        return True

    def qualified(self, node: Node) -> str | None:
        dotted = self.dotted(node)
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            return self.imports[head] + ("." + rest if rest else "")
        return dotted

    def chain(self, node: Node) -> list[str]:
        """Property names from the root down: ``new OpenAI().chat.completions.create`` ->
        ``[chat, completions, create]``."""
        names = []
        node = self.unwrap(node)
        while node.type == "member_expression":
            prop = self.field(node, "property")
            names.append(self.code(prop) if prop is not None else "")
            node = self.unwrap(self.field(node, "object"))
        if node.type == "identifier":
            names.append(self.code(node))
        return names[::-1]

    def string_value(self, node: Node) -> str | None:
        if node.type == "string":
            return unescape(self.code(node)[1:-1])
        if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.named_children):
            return unescape(self.code(node)[1:-1])
        return None

    def is_variable(self, dotted: str) -> bool:
        head = dotted.split(".")[0]
        if head in self.imports:
            return False
        return head not in _GLOBALS or (head == "this" and "." in dotted)

    def is_zod_name(self, code: str) -> bool:
        head = code.split(".")[0]
        module = self.imports.get(head, "")
        return module.split(".")[0].startswith("zod") or (head == "z" and head not in self.imports)

    # ---- indexing -------------------------------------------------------------------------------

    def index(self, node: Node, scope: _Scope, loops: tuple[_Loop, ...], depth: int, function: str | None) -> None:
        if depth > MAX_DEPTH:
            raise TooDeep(node)
        handler = _INDEX_HANDLERS.get(node.type)
        if handler is not None and handler(self, node, scope, loops, depth, function):
            return  # the handler indexed the children itself
        # Most nodes (names, keys, string parts): only their children matter. A cursor hands them over
        # one at a time (a broken module can be one node with a million children).
        for child in named_children(node):
            self.index(child, scope, loops, depth + 1, function)

    # Each `_index_KIND` records what a node of that kind means, and returns True when it has indexed
    # the node's children itself (`_INDEX_HANDLERS`, after the class, maps kinds to them).

    def _index_function(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        self.index_function(node, scope, loops, depth, None)
        return True

    def _index_import(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        self.index_import(node)
        return True

    def _index_for_in(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        right = self.field(node, "right")
        if right is not None:
            self.index(right, scope, loops, depth + 1, function)
        left = self.field(node, "left")
        operator = self.field(node, "operator")
        if right is not None and left is not None and left.type == "identifier" and (
                operator is not None and self.code(operator) == "of"):
            self.record(self.code(left), _Assign("=", right, node.start_byte, loops, scope, left, key=_ITEM))
        else:
            self.unknowable(left, scope, node, loops)
        body = self.field(node, "body")
        if body is not None:
            loop = _Loop(node, self.code(right) if right is not None else "")
            self.index(body, scope, (*loops, loop), depth + 1, function)
        return True

    def _index_loop(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        condition = self.field(node, "condition")
        loop = _Loop(node, "while " + (self.code(condition) if condition is not None else "..."))
        for child in named_children(node):
            inner = (*loops, loop) if child.type.endswith("statement") or child.type == "statement_block" else loops
            self.index(child, scope, inner, depth + 1, function)
        return True

    def _index_declarator(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        handled = self.index_declarator(node, scope, loops, depth)
        if handled is None:
            return False
        for child in named_children(node):  # a function bound to a name: indexed with its name already
            if child.id != handled.id:
                self.index(child, scope, loops, depth + 1, function)
        return True

    def _index_assignment(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        left, right = self.field(node, "left"), self.field(node, "right")
        if left is not None and right is not None:
            if left.type == "identifier":
                name = self.code(left)
                self.record(name, _Assign("=", right, node.end_byte, loops, self.owner(name, scope), left))
            self.estimate_context(self.dotted(left), right)
        return False

    def _index_augmented(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        left, right = self.field(node, "left"), self.field(node, "right")
        operator = self.field(node, "operator")
        if left is not None and right is not None and left.type == "identifier" and (
                operator is None or self.code(operator) == "+="):
            name = self.code(left)
            self.record(name, _Assign("+=", right, node.end_byte, loops, self.owner(name, scope), left))
        return False

    def _index_return(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        value = next((c for c in node.named_children if c.type != "comment"), None)
        if value is not None and scope.kind == "function":
            scope.returns.append(value)
            if function and "token" in function.lower():
                self.estimates_in(value)
        return False

    def _index_call(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        self.calls.append((node, scope))
        self.mutation(node, scope, loops)
        return node.type == "call_expression" and self.index_callbacks(node, scope, loops, depth, function)

    def _index_array(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        self.arrays.append((node, scope))
        return False

    def _index_object(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        self.objects.append((node, scope))
        self.tool_result_message(node, scope)
        return False

    def _index_pair(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        key = self.field(node, "key")
        if key is not None and "token" in self.code(key).lower():
            value = self.field(node, "value")
            if value is not None:
                self.estimates_in(value)
        return False

    def _index_comparison(self, node: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        operator = self.field(node, "operator")
        if operator is not None and self.code(operator) in ("<", ">", "<=", ">=", "===", "=="):
            left, right = self.field(node, "left"), self.field(node, "right")
            if any("token" in self.code(side).lower() for side in (left, right) if side is not None):
                for side in (left, right):
                    if side is not None:
                        self.estimates_in(side)
        return False

    def index_import(self, node: Node) -> None:
        source = self.field(node, "source")
        module = self.string_value(source) if source is not None else None
        if module is None:
            return
        self.imported(module)
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            return
        for part in clause.named_children:
            if part.type == "identifier":
                self.imports[self.code(part)] = module
            elif part.type == "namespace_import":
                name = next((c for c in part.named_children if c.type == "identifier"), None)
                if name is not None:
                    self.imports[self.code(name)] = module
            elif part.type == "named_imports":
                for spec in part.named_children:
                    if spec.type != "import_specifier":
                        continue
                    name, alias = self.field(spec, "name"), self.field(spec, "alias")
                    if name is not None:
                        self.imports[self.code(alias or name)] = f"{module}.{self.code(name)}"

    def imported(self, module: str) -> None:
        self.llm = self.llm or self.ts.imports(module, self.ts.llm_imports)
        self.mcp = self.mcp or self.ts.imports(module, self.ts.server_imports)

    def index_function(self, node: Node, scope: _Scope, loops, depth: int, name: str | None) -> None:
        inner = _Scope("function", node, scope)
        params = self.field(node, "parameters")
        if params is None:
            single = self.field(node, "parameter")  # `x => ...`
            if single is not None:
                inner.params[self.code(single)] = ""
                inner.positional.append(self.code(single))
        else:
            for param in params.named_children:
                self.parameter(param, inner)
        own = self.field(node, "name")
        title = name or (self.code(own) if own is not None else None)
        function = _Function(node, inner)
        if title:
            scope.functions[title] = function
        self.functions.append(function)
        inner.handler = self.is_handler(node, inner, title)
        body = self.field(node, "body")
        if body is None:
            return
        if body.type != "statement_block":
            inner.returns.append(body)  # an arrow function's expression body
        self.index(body, inner, (), depth + 1, title)

    def parameter(self, param: Node, scope: _Scope) -> None:
        kind = param.type
        annotation = ""
        pattern = param
        if kind in ("required_parameter", "optional_parameter"):
            pattern = self.field(param, "pattern") or param
            type_node = self.field(param, "type")
            annotation = self.code(type_node).lstrip(": ") if type_node is not None else ""
        if pattern.type == "assignment_pattern":
            pattern = self.field(pattern, "left") or pattern
        if pattern.type == "identifier":
            scope.params[self.code(pattern)] = annotation
            scope.positional.append(self.code(pattern))
            return
        scope.positional.append("")  # a destructured or rest parameter: its position still counts
        for name in self.pattern_names(pattern):
            scope.params[name] = ""

    def pattern_names(self, pattern: Node | None) -> list[str]:
        if pattern is None:
            return []
        if pattern.type in ("identifier", "shorthand_property_identifier_pattern"):
            return [self.code(pattern)]
        names = []
        for child in pattern.named_children:
            if child.type == "pair_pattern":
                names.extend(self.pattern_names(self.field(child, "value")))
            elif child.type not in ("property_identifier", "type_annotation"):
                names.extend(self.pattern_names(child))
        return names

    def is_handler(self, node: Node, scope: _Scope, name: str | None) -> bool:
        """A function that receives an HTTP request: Next.js route handlers (`export async
        function POST(req)`), Express-style `(req, res) => ...`, or a parameter typed as a request."""
        types = self.ts.request_types
        if types is not None and any(types.search(t) for t in scope.params.values() if t):
            return True
        if name in self.ts.source("requests", "handlers") and scope.positional:
            return True
        return tuple(scope.positional[:2]) in self.ts.source("requests", "parameters")

    def index_declarator(self, node: Node, scope: _Scope, loops, depth: int) -> Node | None:
        """Record a declaration; returns the function it binds, once indexed, or None."""
        name, value = self.field(node, "name"), self.field(node, "value")
        if name is None:
            return None
        if value is None:
            if name.type == "identifier":
                self.record(self.code(name), _Assign("=", None, node.end_byte, loops, scope, name))
            return None
        bare = self.unwrap(value)
        if bare.type == "await_expression":
            bare = self.unwrap(bare.named_children[0]) if bare.named_children else bare
        if bare.type == "call_expression" and self.code(self.field(bare, "function") or bare) == "require":
            module = next((self.string_value(a) for a in self.args(bare) if a.type == "string"), None)
            if module is not None:
                self.imported(module)
                if name.type == "identifier":
                    self.imports[self.code(name)] = module
                else:
                    for local in self.pattern_names(name):
                        self.imports[local] = f"{module}.{local}"
                return None
        if name.type == "object_pattern":
            for key, local in self.destructured(name):
                self.record(local, _Assign("=", value, node.end_byte, loops, scope, name, key=key))
            return None
        if name.type != "identifier":
            self.unknowable(name, scope, node, loops)
            return None
        title = self.code(name)
        self.record(title, _Assign("=", value, node.end_byte, loops, scope, name))
        self.estimate_context(title, value)
        if bare.type in ("arrow_function", "function_expression", "function"):
            self.index_function(bare, scope, loops, depth + 1, title)
            return bare
        return None

    def destructured(self, pattern: Node) -> list[tuple[str, str]]:
        """``{ a, b: c, d = 1 }`` -> [(a, a), (b, c), (d, d)]: (property, local name)."""
        found = []
        for child in pattern.named_children:
            if child.type == "shorthand_property_identifier_pattern":
                found.append((self.code(child), self.code(child)))
            elif child.type == "object_assignment_pattern":
                left = self.field(child, "left")
                if left is not None:
                    found.append((self.code(left), self.code(left)))
            elif child.type == "pair_pattern":
                key, value = self.key_text(self.field(child, "key")), self.field(child, "value")
                if value is not None and value.type == "assignment_pattern":
                    value = self.field(value, "left")
                if key is not None and value is not None and value.type == "identifier":
                    found.append((key, self.code(value)))
        return found

    def record(self, name: str, assign: _Assign) -> None:
        assign.scope.assigns.setdefault(name, []).append(assign)

    def unknowable(self, target: Node | None, scope: _Scope, statement: Node, loops) -> None:
        if target is None:
            return
        if target.type in ("lexical_declaration", "variable_declaration"):
            for declarator in target.named_children:
                self.unknowable(self.field(declarator, "name"), scope, statement, loops)
            return
        for name in self.pattern_names(target):
            self.record(name, _Assign("=", None, statement.start_byte, loops, scope, target))

    def owner(self, name: str, scope: _Scope) -> _Scope:
        current: _Scope | None = scope
        while current is not None:
            if name in current.assigns or name in current.params:
                return current
            current = current.parent
        return scope

    def mutation(self, call: Node, scope: _Scope, loops) -> None:
        function = self.field(call, "function")
        if function is None or function.type != "member_expression":
            return
        receiver, prop = self.field(function, "object"), self.field(function, "property")
        if receiver is None or prop is None or receiver.type != "identifier":
            return
        method = self.code(prop)
        if method not in ("push", "unshift"):
            return
        name = self.code(receiver)
        home = self.owner(name, scope)
        for arg in self.args(call):
            if arg.type == "spread_element":
                inner = arg.named_children[0] if arg.named_children else arg
                self.record(name, _Assign("extend", inner, call.end_byte, loops, home, receiver))
            else:
                self.record(name, _Assign("append" if method == "push" else "insert", arg, call.end_byte, loops,
                                          home, receiver))

    def index_callbacks(self, call: Node, scope: _Scope, loops, depth: int, function: str | None) -> bool:
        """``items.map(item => ...)``: the callback runs once per item, a loop over ``items``."""
        callee = self.field(call, "function")
        if callee is None or callee.type != "member_expression":
            return False
        prop = self.field(callee, "property")
        if prop is None or self.code(prop) not in _LOOP_CALLBACKS:
            return False
        receiver = self.field(callee, "object")
        if receiver is None:
            return False
        self.index(callee, scope, loops, depth + 1, function)
        loop = _Loop(call, self.code(receiver))
        for arg in self.args(call):
            if arg.type in _FUNCTIONS:
                inner = _Scope("function", arg, scope)
                params = self.field(arg, "parameters")
                single = self.field(arg, "parameter")
                for param in ([single] if single is not None else params.named_children if params is not None else []):
                    self.parameter(param, inner)
                item = inner.positional[0] if inner.positional else ""
                if item and self.code(prop) != "reduce":  # the callback's first parameter is an item
                    self.record(item, _Assign("=", receiver, arg.start_byte, (), inner, arg, key=_ITEM))
                self.functions.append(_Function(arg, inner))
                self.callback_scopes[arg.id] = inner
                body = self.field(arg, "body")
                if body is not None:
                    if body.type != "statement_block":
                        inner.returns.append(body)
                    self.index(body, inner, (*loops, loop), depth + 1, function)
            else:
                self.index(arg, scope, loops, depth + 1, function)
        return True

    def tool_result_message(self, node: Node, scope: _Scope) -> None:
        """``{role: "tool", content: result}``: ``result`` holds what a tool returned."""
        entries = self.raw_pairs(node)
        kind = entries.get("role") or entries.get("type")
        kind_text = self.string_value(kind) if kind is not None else None
        key = {"tool": "content", "function": "content", "tool_result": "content",
               "function_call_output": "output"}.get(kind_text or "")
        value = entries.get(key) if key else None
        if value is not None:
            value = self.unwrap(value)
            if value.type == "call_expression" and self.args(value):
                value = self.args(value)[0]  # JSON.stringify(result), String(result)
            if value.type in ("identifier", "shorthand_property_identifier"):
                scope.tool_results.setdefault(self.code(value), self.span(value))

    def raw_pairs(self, node: Node) -> dict[str, Node]:
        pairs: dict[str, Node] = {}
        for child in node.named_children:
            if child.type == "pair":
                key = self.key_text(self.field(child, "key"))
                value = self.field(child, "value")
                if key is not None and value is not None:
                    pairs[key] = value
            elif child.type == "shorthand_property_identifier":
                pairs[self.code(child)] = child
        return pairs

    def key_text(self, key: Node | None) -> str | None:
        if key is None:
            return None
        if key.type in ("property_identifier", "identifier"):
            return self.code(key)
        if key.type == "string":
            return self.string_value(key)
        if key.type == "number":
            return self.code(key)
        return None

    # ---- names ---------------------------------------------------------------------------------

    def binding(self, name: str, env: _Env, at: int | None) -> _Binding | None:
        bound = env.bound(name)
        if bound is not None:
            return _Binding(bound[0], bound[1], [], bound[0])
        scope: _Scope | None = env.scope
        first = True
        while scope is not None:
            records = scope.assigns.get(name)
            if records:
                if len(records) > _TIMELINE_FROM:
                    visible, index = self.timeline(records).before(at if first else None, self.carried)
                else:
                    visible = [r for r in records if not first or at is None or r.end <= at
                               or (r.kind != "=" and self.carried(r, at))]
                    index = max((i for i, r in enumerate(visible) if r.kind == "="), default=None)
                if index is not None:
                    base = visible[index]
                    if base.value is None:
                        return None
                    benv = _Env(base.scope, env.bindings if base.scope is env.scope else (), env.depth + 1)
                    if base.key is not None:
                        found = self.entries(base.value, benv)
                        if found is not None and base.key in found:
                            value, venv, _ = found[base.key]
                            return _Binding(value, venv, visible[index + 1 :], base.target, len(base.loops))
                        return _Binding(base.value, benv, [], base.target, len(base.loops), part=base.key)
                    return _Binding(base.value, benv, visible[index + 1 :], base.target, len(base.loops))
                if first and scope.kind == "function" and any(r.kind == "=" for r in records):
                    return None
            if name in scope.params:
                return None
            first = False
            scope = scope.parent
        return None

    def timeline(self, records: list[_Assign]) -> _Timeline:
        """The records of a name assigned many times in one scope, indexed once (see _Timeline)."""
        found = self._timelines.get(id(records))
        if found is None or found.records is not records:
            found = self._timelines[id(records)] = _Timeline(records)
        return found

    def carried(self, record: _Assign, at: int) -> bool:
        return any(loop.node.start_byte <= at <= loop.node.end_byte for loop in record.loops)

    def resolve(self, node: Node, env: _Env) -> _Binding | None:
        if env.depth > _MAX_RESOLVE:
            return None
        node = self.unwrap(node)
        if node.type in ("identifier", "shorthand_property_identifier"):
            return self.binding(self.code(node), env, node.start_byte)
        if node.type in ("member_expression", "subscript_expression"):
            # `PROMPTS.system`, `CONFIG["model"]`: a property of an object literal of the module.
            if self.too_long(node):
                return None
            obj = self.field(node, "object")
            key = self.property_key(node)
            if obj is None or key is None:
                return None
            found = self.entries(obj, env)
            if found is not None and key in found:
                value, venv, pair = found[key]
                return _Binding(value, venv, [], pair)
        return None

    def property_key(self, node: Node) -> str | None:
        if node.type == "member_expression":
            prop = self.field(node, "property")
            return self.code(prop) if prop is not None else None
        index = self.field(node, "index")
        return self.string_value(index) if index is not None else None

    def deref(self, node: Node, env: _Env) -> tuple[Node, _Env]:
        for _ in range(10):
            binding = self.resolve(node, env)
            if binding is None or binding.extras or binding.part is not None:
                break
            node, env = binding.value, binding.env
        return self.unwrap(node), env

    def function_for(self, call: Node, env: _Env) -> tuple[Node, Node, _Env] | None:
        """The module's own function that ``call`` calls, its last return and its parameters bound."""
        if env.depth > _MAX_RESOLVE or call.type != "call_expression":
            return None
        callee = self.unwrap(self.field(call, "function"))
        if callee is None or callee.type != "identifier":
            return None
        name = self.code(callee)
        scope: _Scope | None = env.scope
        found = None
        while scope is not None and found is None:
            found = scope.functions.get(name)
            scope = scope.parent
        if found is None or not found.scope.returns:
            return None
        inner = found.scope
        bindings = tuple((param, arg, env) for param, arg in zip(inner.positional, self.args(call), strict=False)
                         if param and arg.type != "spread_element")
        return found.node, inner.returns[-1], _Env(inner, bindings, env.depth + 1)

    def enter(self, node: Node) -> bool:
        if node.id in self._active:
            return False
        self._active.add(node.id)
        return True

    def leave(self, node: Node) -> None:
        self._active.discard(node.id)

    # ---- constants imported from sibling modules ----------------------------------------------------

    def imported_constant(self, name: str) -> tuple[Analyzer, Node, _Env] | None:
        """``import { SYSTEM_PROMPT } from "./prompts"``: the constant in the sibling module, read
        by that module's own analyzer (its spans point into it). Only relative imports are
        followed, two modules deep, each file once per run; the file becomes a dependency."""
        source = self.imports.get(name, "")
        module, _, exported = source.rpartition(".") if "." in source.lstrip(".").lstrip("/") else ("", "", "")
        if not module.startswith(("./", "../")) or self.generation >= _MAX_IMPORT_DEPTH:
            return None
        sibling = self.sibling(module)
        if sibling is None:
            return None
        records = sibling.module_scope.assigns.get(exported) or []
        bases = [r for r in records if r.kind == "=" and r.value is not None and r.key is None]
        if not bases or len(records) != len([r for r in records if r.kind == "="]):
            return None
        return sibling, bases[-1].value, _Env(sibling.module_scope, (), _MAX_RESOLVE // 2)

    def sibling(self, module: str) -> Analyzer | None:
        import os

        base = os.path.normpath(os.path.join(os.path.dirname(self.path), module))
        stem, suffix = os.path.splitext(base)
        if suffix in (".js", ".mjs", ".cjs", ".jsx"):
            candidates = [stem + s for s in (".ts", ".tsx", ".mts", ".cts")] + [base]
        elif suffix in _SIBLING_SUFFIXES:
            candidates = [base]
        else:
            candidates = [base + s for s in _SIBLING_SUFFIXES]
            candidates += [os.path.join(base, "index" + s) for s in _SIBLING_SUFFIXES]
        target = next((c for c in candidates if os.path.isfile(c)), None)
        if target is None:
            return None
        if target in self.siblings:
            return self.siblings[target]
        self.siblings[target] = None  # an import cycle reads each file once
        try:
            if os.path.getsize(target) > _MAX_SIBLING_BYTES:
                return None
            with open(target, "rb") as handle:
                text = handle.read().decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
        except (OSError, UnicodeDecodeError):
            return None
        from ctxlint.frontends.typescript.syntax import GRAMMARS, parse

        grammar = GRAMMARS.get(os.path.splitext(target)[1], "typescript")
        source = Text(text, target)
        root = parse(grammar, source.data)
        if root is None or root.has_error:
            return None
        analyzer = Analyzer(root, source, self.ts, grammar, self.siblings, self.generation + 1)
        try:
            analyzer.index(root, analyzer.module_scope, (), 0, None)
        except (TooDeep, RecursionError):
            return None
        self.siblings[target] = analyzer
        self.dependencies.append(target)
        return analyzer

    # ---- string values --------------------------------------------------------------------------

    def text(self, node: Node, env: _Env) -> list[Piece] | None:
        if env.depth > _MAX_RESOLVE:
            return None
        node = self.unwrap(node)
        kind = node.type
        if kind == "string":
            return self.static(node.start_byte + 1, node.end_byte - 1)
        if kind == "template_string":
            return self.template(node, env)
        if kind == "binary_expression":
            operator = self.field(node, "operator")
            if operator is None or self.code(operator) != "+":
                return None
            left, right = self.field(node, "left"), self.field(node, "right")
            ltext, rtext = self.text(left, env), self.text(right, env)
            if ltext is None and rtext is None:
                return None
            return (ltext if ltext is not None else [self.slot_piece(left, env)]) + (
                rtext if rtext is not None else [self.slot_piece(right, env)])
        if kind in ("identifier", "member_expression", "subscript_expression", "shorthand_property_identifier"):
            return self.name_text(node, env)
        if kind == "call_expression":
            return self.call_text(node, env)
        return None

    def static(self, start: int, end: int) -> list[Piece]:
        if end <= start:
            return []
        return [Piece(unescape(self.src.slice(start, end)), self.src.span(start, end))]

    def template(self, node: Node, env: _Env) -> list[Piece]:
        pieces: list[Piece] = []
        cursor = node.start_byte + 1
        for child in node.named_children:
            if child.type != "template_substitution":
                continue
            pieces.extend(self.static(cursor, child.start_byte))
            inner = next((c for c in child.named_children if c.type != "comment"), None)
            inline = None
            if inner is not None and self.unwrap(inner).type in ("identifier", "member_expression", "call_expression"):
                inline = self.text(inner, env)
            if inline is not None:
                pieces.extend(inline)
            elif inner is not None:
                pieces.append(self.slot_piece(inner, env, span_node=child))
            cursor = child.end_byte
        pieces.extend(self.static(cursor, node.end_byte - 1))
        return pieces

    def pieces(self, node: Node, env: _Env) -> list[Piece]:
        return self.or_slot(self.text(node, env), node, env)

    def or_slot(self, found: list[Piece] | None, node: Node, env: _Env) -> list[Piece]:
        """``found``, the text of ``node`` already read, or the slot that stands for it."""
        return found if found is not None else [self.slot_piece(node, env)]

    def kept_key(self, binding: _Binding) -> tuple | None:
        """The key under which what a binding holds (its text, facts, untrusted source) is kept, or
        None when it is read inside another name's reading: a cycle guard may have cut that short."""
        if self._active or binding.env.bindings:
            return None
        return binding.value.id, id(binding.env.scope), binding.env.depth, tuple(map(id, binding.extras))

    def name_text(self, node: Node, env: _Env) -> list[Piece] | None:
        binding = self.resolve(node, env)
        if binding is None and node.type == "identifier":
            imported = self.imported_constant(self.code(node))
            return imported[0].text(imported[1], imported[2]) if imported is not None else None
        if binding is None or binding.part is not None:
            return None
        # Every call site in functions of a module reads a module constant's last value: its text is read
        # once (1,829 call sites naming one `skills` read it 1,829 times). Only what is read outside any
        # other name's reading is kept, where no cycle guard cut it short; what it read (_consumed) is
        # replayed with it.
        key = self.kept_key(binding)
        if key is not None and key in self._bound_texts:
            found, consumed = self._bound_texts[key]
            self._consumed |= consumed
            return None if found is None else list(found)
        if not self.enter(binding.value):
            return None
        outer, self._consumed = self._consumed, set()
        try:
            found = self.bound_text(binding)
        finally:
            self.leave(binding.value)
            consumed, self._consumed = self._consumed, outer
            outer |= consumed
        if key is not None:
            self._bound_texts[key] = (found, consumed)
        return None if found is None else list(found)

    def bound_text(self, binding: _Binding) -> list[Piece] | None:
        """The text of a name's value and of what ``+=`` adds to it afterwards."""
        found = self.text(binding.value, binding.env)
        if found is None:
            return None
        found = list(found)
        for extra in binding.extras:
            if extra.kind != "+=" or extra.value is None:
                return None
            more = self.pieces(extra.value, binding.env)
            loop = binding.loop_of(extra)
            if loop is not None:
                more = [replace(p, loop=p.loop or loop.text) for p in more]
            found.extend(more)
        self._consumed.add(binding.value.id)
        self._consumed.update(e.value.id for e in binding.extras if e.value is not None)
        if binding.env.scope.kind == "module":  # built once, when the module loads
            found = [_evaluated_once(p) for p in found]
        return found

    def call_text(self, call: Node, env: _Env) -> list[Piece] | None:
        callee = self.unwrap(self.field(call, "function"))
        arguments = self.field(call, "arguments")
        if callee is None:
            return None
        if arguments is not None and arguments.type == "template_string":
            # A tagged template: `dedent\`...\``, `String.raw\`...\``: the text as written.
            tag = (self.dotted(callee) or "").rsplit(".", 1)[-1]
            if tag in ("dedent", "raw", "outdent", "stripIndent", "stripIndents", "oneLine", "html", "md",
                       "markdown", "prompt", "endent"):
                tagged = self.template(arguments, env)
                return _dedent(tagged) if tag in ("dedent", "outdent", "stripIndent", "endent") else tagged
            return None
        args = self.args(call)
        if callee.type == "member_expression":
            method = self.code(self.field(callee, "property"))
            receiver = self.field(callee, "object")
            if method == "join" and len(args) <= 1:
                return self.join(call, receiver, args, env)
            if method in ("trim", "trimStart", "trimEnd") and not args:
                inner = self.text(receiver, env)
                return None if inner is None else strip(inner, start=method != "trimEnd", end=method != "trimStart")
            if method == "concat":
                inner = self.text(receiver, env)
                if inner is not None:
                    for arg in args:
                        inner = inner + self.pieces(arg, env)
                    return inner
            if method == "replaceAll" or method == "replace":
                return None
        qualified = self.qualified(callee)
        if qualified in ("String", "dedent") and len(args) == 1:
            argument = self.text(args[0], env)
            return _dedent(argument) if argument is not None and qualified == "dedent" else argument
        target = self.function_for(call, env)
        if target is None or not self.enter(target[0]):
            return None
        try:
            found = self.text(target[1], target[2])
        finally:
            self.leave(target[0])
        if found is not None:
            self._consumed.add(target[1].id)
        return found

    def join(self, call: Node, receiver: Node, args: list[Node], env: _Env) -> list[Piece] | None:
        separator = ","
        if args:
            value = self.text(args[0], env)
            if value is None or any(p.slot for p in value):
                separator = ""
            else:
                separator = "".join(p.text for p in value)
        sep_span = self.span(args[0]) if args else self.span(call)
        items = self.items(receiver, env)
        if items is None or any(i.variable for i in items):
            return [self.slot_piece(call, env, variable=True)]
        pieces: list[Piece] = []
        for i, item in enumerate(items):
            if i and separator:
                pieces.append(Piece(separator, sep_span, loop=item.loop))
            pieces.extend(in_loop(self.pieces(item.node, item.env), item.loop))
        return pieces

    # ---- slots and facts ------------------------------------------------------------------------

    def slot_piece(self, node: Node, env: _Env, span_node: Node | None = None, variable: bool = False) -> Piece:
        expression = " ".join(self.code(node).split())
        facts = self.facts(node, env)
        facts.sources.extend(self.iteration_sources(node, env))
        if variable:
            facts.variable_length = True
        return Piece(expression, self.span(span_node or node), self.make_slot(expression, facts))

    def make_slot(self, expression: str, facts: Facts) -> Slot:
        sources, seen = [], set()
        for source in facts.sources:
            if (source.kind, source.span) not in seen:
                seen.add((source.kind, source.span))
                sources.append(source)
        once = tuple(c for c in _named(facts.once) if c not in facts.calls)
        return Slot(expression, _named(facts.names), _named([*facts.calls, *once]), (), facts.variable_length,
                    tuple(sources), once=once)

    def facts(self, node: Node, env: _Env, acc: Facts | None = None) -> Facts:
        acc = acc if acc is not None else Facts()
        if env.depth > _MAX_RESOLVE:
            return acc
        node = self.unwrap(node)
        kind = node.type
        if kind in ("identifier", "member_expression", "subscript_expression", "call_expression", "await_expression",
                    "shorthand_property_identifier"):
            for source in (self.untrusted(node, env), self.truncation(node, env)):
                if source is not None:
                    acc.sources.append(source)
        elif kind in ("binary_expression", "template_string"):
            self.mark_cuts(node)
        if kind in ("identifier", "member_expression", "subscript_expression", "shorthand_property_identifier"):
            dotted = self.dotted(node)
            if dotted is not None:
                if kind == "member_expression" and dotted.rsplit(".", 1)[-1] in _MEASURES:
                    inner = self.facts(self.field(node, "object"), env)
                    acc.calls.extend(inner.calls)
                    acc.once.extend(inner.once)
                    return acc
                if self.is_variable(dotted):
                    acc.names.append(dotted)
                    if kind in ("identifier", "shorthand_property_identifier"):
                        self.merge_binding(node, env, acc)
                return acc
            if kind == "member_expression":
                return self.facts(self.field(node, "object"), env, acc)
        if kind in ("call_expression", "new_expression"):
            self.call_facts(node, env, acc)
            return acc
        if kind in _FUNCTIONS or kind == "ERROR":
            # What error recovery swallowed into an expression (a whole run of statements in one
            # `${...}`) is not a value; following each of its names and calls is not done.
            return acc
        for child in node.named_children:
            if child.type not in ("comment", "property_identifier", "type_arguments", "type_annotation"):
                self.facts(child, env, acc)
        return acc

    def merge_binding(self, node: Node, env: _Env, acc: Facts) -> None:
        binding = self.resolve(node, env)
        inner = self.bound_facts(binding) if binding is not None else None
        if binding is None or inner is None:
            return
        # A module-level constant is evaluated once, when the module loads.
        (acc.once if binding.env.scope.kind == "module" else acc.calls).extend(inner.calls)
        acc.once.extend(inner.once)
        acc.names.extend(inner.names)
        acc.sources.extend(inner.sources)
        acc.variable_length = acc.variable_length or inner.variable_length

    def bound_facts(self, binding: _Binding) -> Facts | None:
        """The facts of a name's value and of what is added to it afterwards (None when a cycle
        guard stops the reading). Like its text (see name_text), they are kept when read outside
        any other name's reading, with what the reading consumed: a page quoted in 10,000
        messages is followed to its fetch once, not 10,000 times."""
        key = self.kept_key(binding)
        kept = self._bound_facts.get(key) if key is not None else None
        if kept is not None:
            self._consumed |= kept[1]
            return kept[0]
        if not self.enter(binding.value):
            return None
        outer, self._consumed = self._consumed, set()
        try:
            inner = self.facts(binding.value, binding.env)
            for extra in binding.extras:
                if extra.value is not None:
                    self.facts(extra.value, binding.env, inner)
                if binding.loop_of(extra) is not None:
                    inner.variable_length = True
        finally:
            self.leave(binding.value)
            consumed, self._consumed = self._consumed, outer
            outer |= consumed
        if key is not None:
            self._bound_facts[key] = (inner, consumed)
        return inner

    def call_facts(self, call: Node, env: _Env, acc: Facts) -> None:
        callee = self.field(call, "function") if call.type == "call_expression" else self.field(call, "constructor")
        args = self.args(call)
        if callee is None:
            return
        callee = self.unwrap(callee)
        qualified = self.qualified(callee)
        method = self.code(self.field(callee, "property")) if callee.type == "member_expression" else None
        if call.type == "new_expression":
            if qualified == "Date" and not args:
                acc.calls.append("new Date")  # the current time; `new Date(value)` is that value's date
            elif qualified:
                acc.calls.append(qualified)
            for arg in args:
                self.facts(arg, env, acc)
            return
        if qualified in _MEASURING_CALLS or method in _MEASURING_METHODS:
            inner = Facts()
            if callee.type == "member_expression":
                self.facts(self.field(callee, "object"), env, inner)
            for arg in args:
                self.facts(arg, env, inner)
            acc.calls.append(qualified or method or "")
            acc.calls.extend(inner.calls)
            acc.once.extend(inner.once)
            return
        if qualified:
            acc.calls.append(qualified)
            written = self.dotted(callee)
            if written and written != qualified:
                acc.calls.append(written)  # `uuidv4` as written, `uuid.v4` as imported: rules name either
            if callee.type == "member_expression":
                receiver = self.field(callee, "object")
                receiver_name = self.dotted(receiver)
                if receiver_name and self.is_variable(receiver_name):
                    acc.names.append(receiver_name)
                    if self.unwrap(receiver).type == "identifier":
                        self.merge_binding(receiver, env, acc)
                elif receiver_name is None:
                    self.facts(receiver, env, acc)
        else:
            self.facts(callee, env, acc)
        target = self.function_for(call, env)
        if target is not None and self.enter(target[0]):
            try:
                self.facts(target[1], target[2], acc)
            finally:
                self.leave(target[0])
            inner = Facts()
            for arg in args:
                self.facts(arg, env, inner)
            acc.calls.extend(inner.calls)
            acc.once.extend(inner.once)
            acc.sources.extend(s for s in inner.sources if s.kind not in (SourceKind.UNTRUSTED, SourceKind.TRUNCATION))
            return
        for arg in args:
            if arg.type not in _FUNCTIONS:
                self.facts(arg, env, acc)

    # ---- sources: untrusted content --------------------------------------------------------------

    def untrusted(self, node: Node, env: _Env) -> Source | None:
        if env.depth > _MAX_RESOLVE:
            return None
        node = self.unwrap(node)
        kind = node.type
        if kind == "await_expression":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.untrusted(inner, env) if inner is not None and not self.too_long(node) else None
        if kind in ("member_expression", "subscript_expression"):
            if self.too_long(node):
                return None
            obj = self.field(node, "object")
            key = self.property_key(node) if kind == "member_expression" else None
            if key in _MEASURES:
                return None
            carrier = self.carrier(obj, env)
            if carrier is not None:
                what, kind_of, strong = carrier
                if self.content_attribute(kind_of, key):
                    return Source(SourceKind.UNTRUSTED, _described(kind_of, f"{what}.{key}"), self.span(node),
                                  strong=strong)
                return None
            binding = self.resolve(node, env)
            if binding is not None and self.enter(binding.value):
                try:
                    found = self.untrusted(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
                if found is not None:
                    return found
            return self.untrusted(obj, env) if obj is not None else None
        if kind == "call_expression":
            return None if self.too_long(node) else self.untrusted_call(node, env)
        if kind in ("identifier", "shorthand_property_identifier"):
            name = self.code(node)
            binding = self.resolve(node, env)
            if binding is not None and binding.part is not None:
                carrier = self.carrier(binding.value, binding.env)
                if carrier is not None:
                    what, kind_of, strong = carrier
                    if self.content_attribute(kind_of, binding.part):
                        return Source(SourceKind.UNTRUSTED, _described(kind_of, f"{what}.{binding.part}"),
                                      self.span(binding.target), strong=strong)
                    return None
            if binding is not None:
                found = self.bound_untrusted(binding)
                if found is not None:
                    step = Evidence(EvidenceKind.FLOW, f"`{name}` holds it", self.span(binding.target))
                    return replace(found, flow=found.flow + (step,))
            scope: _Scope | None = env.scope
            while scope is not None:
                if name in scope.tool_results:
                    return Source(SourceKind.UNTRUSTED, "a tool result", scope.tool_results[name])
                if name in scope.assigns or name in scope.params:
                    break
                scope = scope.parent
            return None
        if kind in ("template_string", "binary_expression", "ternary_expression", "array", "object", "pair",
                    "template_substitution", "spread_element"):
            for child in node.named_children:
                if child.type in ("property_identifier", "comment"):
                    continue
                if kind == "ternary_expression" and child == self.field(node, "condition"):
                    continue
                found = self.untrusted(child, env)
                if found is not None:
                    return found
        return None

    def bound_untrusted(self, binding: _Binding) -> Source | None:
        """The untrusted content a name's value, or what is added to it afterwards, holds. Like its
        text (see name_text), it is kept when read outside any other name's reading: a page
        quoted in 10,000 messages is followed to its fetch once, not 10,000 times."""
        key = self.kept_key(binding)
        if key is not None and key in self._bound_untrusted:
            return self._bound_untrusted[key]
        if not self.enter(binding.value):
            return None
        try:
            found = self.untrusted(binding.value, binding.env)
            for extra in binding.extras:
                if found is None and extra.value is not None:
                    found = self.untrusted(extra.value, binding.env)
        finally:
            self.leave(binding.value)
        if key is not None:
            self._bound_untrusted[key] = found
        return found

    def untrusted_call(self, call: Node, env: _Env) -> Source | None:
        callee = self.unwrap(self.field(call, "function"))
        if callee is None:
            return None
        args = self.args(call)
        qualified = self.qualified(callee) or ""
        if qualified in _MEASURING_CALLS or self.sink_of(call) is not None:
            return None
        files = self.ts.sources["files"]
        if qualified in files["calls"] or qualified.rsplit(".", 1)[-1] in files["methods"] and (
                qualified.split(".")[0] in files["modules"]):
            path = args[0] if args else None
            if path is not None and not self.static_path(path, env):
                return Source(SourceKind.UNTRUSTED, f"{_short_call(qualified)}(...)", self.span(call))
            return None
        if callee.type == "subscript_expression":
            holder = self.dotted(self.field(callee, "object")) or ""
            if words.TOOL_HOLDERS.search(snake(holder.rsplit(".", 1)[-1])):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({holder}[...](...))", self.span(call))
        if callee.type == "member_expression":
            method = self.code(self.field(callee, "property"))
            receiver = self.field(callee, "object")
            if method in _MEASURING_METHODS:
                return None
            carrier = self.carrier(receiver, env)
            if carrier is not None:
                what, kind_of, strong = carrier
                if (kind_of == "http" and (method in self.ts.source("http", "methods") or method == "then")) or (
                        kind_of == "request" and method in self.ts.source("requests", "methods")) or kind_of == "file":
                    return Source(SourceKind.UNTRUSTED, _described(kind_of, f"{what}.{method}()"), self.span(call),
                                  strong=strong)
            receiver_name = snake((self.dotted(receiver) or "").rsplit(".", 1)[-1])
            retrievers = self.ts.sources["retrievers"]
            if method in retrievers["methods"]:
                return Source(SourceKind.UNTRUSTED, f"retrieved documents ({method}(...))", self.span(call))
            if method in retrievers["receiver_methods"] and any(r in receiver_name for r in retrievers["receivers"]):
                return Source(SourceKind.UNTRUSTED, f"retrieved documents ({receiver_name}.{method}(...))",
                              self.span(call), strong=False)
            if method in self.ts.source("tool_results", "methods"):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({self.short(callee)}(...))", self.span(call))
            if words.TOOL_RUNNERS.search(snake(method)) or (method == "execute" and "tool" in receiver_name):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({self.short(callee)}(...))", self.span(call))
            if method in ("text", "json") and self.is_request_name(receiver, env):
                return Source(SourceKind.UNTRUSTED, _described("request", f"{self.short(callee)}()"), self.span(call),
                              strong=False)
            found = self.untrusted(receiver, env) if receiver is not None else None
            if found is not None:
                return found
        elif callee.type == "identifier":
            name = self.code(callee)
            if words.TOOL_RUNNERS.search(snake(name)):
                return Source(SourceKind.UNTRUSTED, f"a tool result ({name}(...))", self.span(call))
        target = self.function_for(call, env)
        if target is not None:
            if not self.enter(target[0]):
                return None
            try:
                found = self.untrusted(target[1], target[2])
            finally:
                self.leave(target[0])
            if found is not None:
                step = Evidence(EvidenceKind.FLOW, f"returned by `{self.code(callee)}()`", self.span(call))
                return replace(found, flow=found.flow + (step,))
            return None
        for arg in args:
            if arg.type in _FUNCTIONS:
                continue
            found = self.untrusted(arg, env)
            if found is not None:
                return found
        return None

    def carrier(self, node: Node | None, env: _Env) -> tuple[str, str, bool] | None:
        """``(what, kind, strong)`` when ``node`` holds third-party content: an HTTP response
        (``http``), a request to the server (``request``), or a file handle (``file``)."""
        if node is None or env.depth > _MAX_RESOLVE:
            return None
        node = self.unwrap(node)
        if node.type == "await_expression":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.carrier(inner, env)
        if node.type == "call_expression":
            callee = self.unwrap(self.field(node, "function"))
            if callee is None:
                return None
            qualified = self.qualified(callee) or ""
            http = self.ts.sources["http"]
            if qualified in http["calls"]:
                return f"{_short_call(qualified)}(...)", "http", True
            if callee.type == "member_expression":
                method = self.code(self.field(callee, "property"))
                root = qualified.split(".")[0]
                if method in http["verbs"] and (root in http["clients"] or self.imports.get(root, "").split(".")[0]
                                                in http["clients"]):
                    return f"{_short_call(qualified)}(...)", "http", True
                handle = next((h for h in self.ts.source("files", "handles") if qualified.startswith(h)), None)
                if handle is not None:
                    path = self.args(node)[0] if self.args(node) else None
                    if path is not None and not self.static_path(path, env):
                        return f"{handle}(...)", "file", True
            return None
        if node.type == "identifier":
            name = self.code(node)
            scope: _Scope | None = env.scope
            while scope is not None:
                if name in scope.params:
                    annotation = scope.params[name]
                    if annotation and self.ts.request_types is not None and self.ts.request_types.search(annotation):
                        return name, "request", True
                    if scope.handler and scope.positional[:1] == [name]:
                        return name, "request", True
                    return None
                if name in scope.assigns:
                    break
                scope = scope.parent
            binding = self.resolve(node, env)
            if binding is not None and self.enter(binding.value):
                try:
                    return self.carrier(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
        return None

    def is_request_name(self, node: Node | None, env: _Env) -> bool:
        return node is not None and self.unwrap(node).type == "identifier" and (
            self.code(node) in self.ts.source("requests", "names"))

    def content_attribute(self, kind: str, key: str | None) -> bool:
        """Whether attribute ``key`` of a carrier of ``kind`` holds its content (``response.data``)."""
        return (kind == "http" and key in self.ts.source("http", "attributes")
                or kind == "request" and key in self.ts.source("requests", "attributes"))

    def static_path(self, node: Node, env: _Env) -> bool:
        """A path built only from literals, the module's own location and configuration names."""
        if env.depth > _MAX_RESOLVE:
            return False
        node = self.unwrap(node)
        kind = node.type
        if kind in ("string", "number"):
            return True
        if kind == "template_string":
            return all(self.static_path(c.named_children[0], env) for c in node.named_children
                       if c.type == "template_substitution" and c.named_children)
        if kind == "binary_expression":
            left, right = self.field(node, "left"), self.field(node, "right")
            return self.static_path(left, env) and (
                self.static_path(right, env) or not words.UPLOAD_WORDS.search(self.code(node)))
        if kind in ("call_expression", "new_expression"):
            callee = self.field(node, "function") or self.field(node, "constructor")
            qualified = self.qualified(self.unwrap(callee)) or "" if callee is not None else ""
            if qualified in _STATIC_PATH_CALLS or qualified.rsplit(".", 1)[-1] in ("join", "resolve", "dirname"):
                args = self.args(node)
                return all(self.static_path(a, env) for a in args) or (
                    bool(args) and self.static_path(args[0], env) and not words.UPLOAD_WORDS.search(self.code(node)))
            return False
        if kind in ("identifier", "member_expression", "meta_property", "subscript_expression"):
            dotted = self.dotted(node) or self.code(node)
            if dotted in _STATIC_PATH_NAMES or dotted.startswith(("import.meta", "process.env")):
                return True
            if any(fnmatchcase(snake(dotted.rsplit(".", 1)[-1]), p) for p in words.CONFIG_NAMES):
                return True
            binding = self.resolve(node, env)
            if binding is not None and not binding.extras and self.enter(binding.value):
                try:
                    return self.static_path(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
        return False

    def short(self, callee: Node) -> str:
        return ".".join(self.chain(callee)[-2:]) or self.code(callee)

    # ---- sources: truncation and order ----------------------------------------------------------------

    def truncation(self, node: Node, env: _Env) -> Source | None:
        """``text.slice(0, 4000)``: a string cut to a fixed length."""
        node = self.unwrap(node)
        if node.type != "call_expression" or node.id in self._marked:
            return None
        callee = self.unwrap(self.field(node, "function"))
        if callee is None or callee.type != "member_expression":
            return None
        method = self.code(self.field(callee, "property"))
        args = self.args(node)
        if method not in ("slice", "substring", "substr") or len(args) != 2:
            return None
        ok, start = self.literal(args[0], env)
        if not ok or start != 0:
            return None
        upper = self.unwrap(args[1])
        if upper.type == "unary_expression" or ".length" in self.code(upper):
            return None
        ok, value = self.literal(upper, env)
        if ok and (not isinstance(value, int) or isinstance(value, bool) or value < words.MIN_CUT):
            return None
        receiver = self.field(callee, "object")
        if self.is_list(receiver, env) is not False or self.literal_str(receiver, env) is not None:
            return None  # a list's items, or the program's own constant text
        content = tuple(Segment(Role.SYSTEM, p.span, p.text) for p in self.text(receiver, env) or () if p.slot is None)
        return Source(SourceKind.TRUNCATION, " ".join(self.code(node).split()), self.span(node), content=content,
                      kept=value if ok and isinstance(value, int) else None)

    def is_list(self, node: Node, env: _Env) -> bool | None:
        node = self.unwrap(node)
        if node.type in ("string", "template_string"):
            return False
        if node.type == "array":
            return True
        if node.type == "call_expression":
            callee = self.unwrap(self.field(node, "function"))
            if callee is not None and callee.type == "member_expression":
                method = self.code(self.field(callee, "property"))
                if method in ("split", "map", "filter", "flatMap", "concat", "entries", "keys", "values", "sort"):
                    return True
                if method in ("text", "trim", "join", "toString", "replace", "replaceAll", "toLowerCase",
                              "readFileSync", "readFile", "stringify"):
                    return False
            return None if self.text(node, env) is None else False
        if node.type == "await_expression":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.is_list(inner, env) if inner is not None else None
        if node.type in ("identifier", "member_expression"):
            raw_name = (self.dotted(node) or "").rsplit(".", 1)[-1]
            name = snake(raw_name)
            scope: _Scope | None = env.scope
            while scope is not None:
                annotation = scope.params.get(raw_name)
                if annotation:
                    if annotation.endswith("[]") or annotation.startswith(("Array", "ReadonlyArray")):
                        return True
                    if annotation.startswith("string"):
                        return False
                scope = scope.parent
            binding = self.resolve(node, env)
            if binding is not None and self.enter(binding.value):
                try:
                    found = self.is_list(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
                if found is not None:
                    return found
                if any(e.kind in ("append", "extend", "insert") for e in binding.extras):
                    return True
            if name.endswith(("text", "content", "body", "html", "markdown", "page", "prompt", "message", "output",
                              "result", "response", "description", "summary", "doc", "document", "transcript")):
                return False
            return name.endswith("s") and not name.endswith(("ss", "us", "is"))  # a plural names a collection
        return None

    def mark_cuts(self, node: Node) -> None:
        """``text.slice(0, 500) + "…"``: a cut followed by a marker is not silent."""
        if node.type == "binary_expression":
            left, right = self.unwrap(self.field(node, "left")), self.unwrap(self.field(node, "right"))
            while left is not None and left.type == "binary_expression":
                left = self.unwrap(self.field(left, "right"))
            if left is not None and right is not None and left.type == "call_expression":
                marker = self.string_value(right)
                if marker is not None and cut_marker(marker):
                    self._marked.add(left.id)
        elif node.type == "template_string":
            children = list(node.children)
            for part, after in pairwise(children):
                if part.type == "template_substitution" and after.type in ("string_fragment", "escape_sequence"):
                    inner = next((c for c in part.named_children if c.type != "comment"), None)
                    if inner is not None and cut_marker(unescape(self.code(after))):
                        self._marked.add(self.unwrap(inner).id)

    def unordered(self, node: Node, env: _Env) -> str | None:
        """What makes ``node`` a collection in no fixed order: a directory listing, a glob, a shuffle."""
        if env.depth > _MAX_RESOLVE:
            return None
        node = self.unwrap(node)
        if node.type == "await_expression":
            inner = next((c for c in node.named_children if c.type != "comment"), None)
            return self.unordered(inner, env) if inner is not None else None
        if node.type == "call_expression":
            callee = self.unwrap(self.field(node, "function"))
            qualified = self.qualified(callee) or "" if callee is not None else ""
            if qualified in _UNORDERED_CALLS:
                return _UNORDERED_CALLS[qualified]
            if callee is not None and callee.type == "member_expression":
                method = self.code(self.field(callee, "property"))
                args = self.args(node)
                if method == "sort" and args and "Math.random" in self.code(args[0]):
                    return "Math.random() shuffle"
                if method in ("map", "filter", "slice", "flatMap"):
                    return self.unordered(self.field(callee, "object"), env)
            return None
        if node.type in ("identifier", "member_expression"):
            binding = self.resolve(node, env)
            if binding is not None and self.enter(binding.value):
                try:
                    return self.unordered(binding.value, binding.env)
                finally:
                    self.leave(binding.value)
        return None

    def iteration_sources(self, node: Node, env: _Env) -> list[Source]:
        found = self.unordered_source(node, env)
        if found:
            return found
        node = self.unwrap(node)
        if node.type == "call_expression":
            callee = self.unwrap(self.field(node, "function"))
            if callee is not None and callee.type == "member_expression" and self.code(
                    self.field(callee, "property")) in ("join", "map"):
                return self.unordered_source(self.field(callee, "object"), env)
        return []

    def unordered_source(self, node: Node, env: _Env) -> list[Source]:
        detail = self.unordered(node, env)
        return [] if detail is None else [Source(SourceKind.UNORDERED_ITERATION, detail, self.span(node))]

    # ---- literals, objects, arrays -------------------------------------------------------------------

    def literal(self, node: Node, env: _Env) -> tuple[bool, object]:
        if env.depth > _MAX_RESOLVE:
            return False, None
        node = self.unwrap(node)
        kind = node.type
        if kind in ("string", "template_string", "binary_expression"):
            if kind == "binary_expression":
                operator = self.field(node, "operator")
                if operator is None or self.code(operator) != "+":
                    return False, None
            found = self.text(node, env)
            if found is None or any(p.slot for p in found):
                return False, None
            return True, "".join(p.text for p in found)
        if kind == "number":
            return _number(self.code(node))
        if kind in ("true", "false", "null"):
            return True, {"true": True, "false": False, "null": None}[kind]
        if kind == "unary_expression":
            operator = self.field(node, "operator")
            argument = self.field(node, "argument")
            if operator is not None and argument is not None and self.code(operator) == "-":
                ok, value = self.literal(argument, env)
                if ok and isinstance(value, (int, float)) and not isinstance(value, bool):
                    return True, -value
            return False, None
        if kind in ("identifier", "member_expression", "subscript_expression", "shorthand_property_identifier"):
            binding = self.resolve(node, env)
            if binding is None and kind == "identifier":
                imported = self.imported_constant(self.code(node))
                return imported[0].literal(imported[1], imported[2]) if imported is not None else (False, None)
            if binding is None or binding.extras or binding.part is not None or not self.enter(binding.value):
                return False, None
            try:
                return self.literal(binding.value, binding.env)
            finally:
                self.leave(binding.value)
        if kind == "array":
            values = []
            for element in node.named_children:
                if element.type == "comment":
                    continue
                if element.type == "spread_element":
                    return False, None
                ok, value = self.literal(element, env)
                if not ok:
                    return False, None
                values.append(value)
            return True, values
        if kind == "object":
            entries = self.entries(node, env)
            if entries is None:
                return False, None
            result = {}
            for key, (value_node, value_env, _) in entries.items():
                ok, value = self.literal(value_node, value_env)
                if not ok:
                    return False, None
                result[key] = value
            return True, result
        if kind == "call_expression":
            callee = self.unwrap(self.field(node, "function"))
            name = (self.qualified(callee) or "") if callee is not None else ""
            args = self.args(node)
            if name.rsplit(".", 1)[-1] in self.ts.json_schemas and args:  # the AI SDK's jsonSchema({...})
                return self.literal(args[0], env)
        return False, None

    def literal_str(self, node: Node, env: _Env) -> str | None:
        ok, value = self.literal(node, env)
        return value if ok and isinstance(value, str) else None

    def entries(self, node: Node, env: _Env, opaque: list[bool] | None = None) -> dict | None:
        """Keyed entries of an object literal, through names: key -> (value, env, pair)."""
        if env.depth > _MAX_RESOLVE:
            return None
        node = self.unwrap(node)
        if node.type in ("identifier", "member_expression", "subscript_expression", "shorthand_property_identifier"):
            binding = self.resolve(node, env)
            if binding is None or binding.extras or binding.part is not None or not self.enter(binding.value):
                return None
            try:
                return self.entries(binding.value, binding.env, opaque)
            finally:
                self.leave(binding.value)
        if node.type != "object":
            return None
        found: dict[str, tuple[Node, _Env, Node]] = {}
        for child in node.named_children:
            if child.type == "pair":
                key = self.key_text(self.field(child, "key"))
                value = self.field(child, "value")
                if key is None or value is None:
                    if opaque is not None:
                        opaque[0] = True
                    continue
                found[key] = (value, env, child)
            elif child.type == "shorthand_property_identifier":
                found[self.code(child)] = (child, env, child)
            elif child.type == "method_definition":
                name = self.field(child, "name")
                if name is not None:
                    found[self.code(name)] = (child, env, child)
            elif child.type == "spread_element":
                inner = self.entries(child.named_children[0], env, opaque) if child.named_children else None
                if inner is None:
                    if opaque is not None:
                        opaque[0] = True
                else:
                    found.update(inner)
        return found

    def items(self, node: Node, env: _Env, loop: str | None = None) -> list[_Item] | None:
        if env.depth > _MAX_RESOLVE:
            return None
        node = self.unwrap(node)
        if node.type == "array":
            self._consumed.add(node.id)
            items = []
            for element in node.named_children:
                if element.type == "comment":
                    continue
                if element.type == "spread_element":
                    inner_node = element.named_children[0] if element.named_children else element
                    inner = self.items(inner_node, env, loop)
                    items.extend(inner if inner is not None else [_Item(inner_node, env, loop, True)])
                else:
                    items.append(_Item(element, env, loop))
            return items
        if node.type in ("identifier", "member_expression", "shorthand_property_identifier"):
            binding = self.resolve(node, env)
            if binding is None or binding.part is not None or not self.enter(binding.value):
                return None
            try:
                bound = self.items(binding.value, binding.env, loop)
                if bound is None:
                    return None
                items = bound
                for extra in binding.extras:
                    inner_loop = binding.loop_of(extra)
                    where = inner_loop.text if inner_loop is not None else loop
                    if extra.kind in ("append", "insert") and extra.value is not None:
                        item = _Item(extra.value, binding.env, where)
                        items.insert(0, item) if extra.kind == "insert" else items.append(item)
                    elif extra.kind == "extend" and extra.value is not None:
                        more = self.items(extra.value, binding.env, where)
                        items.extend(more if more is not None else [_Item(extra.value, binding.env, where, True)])
                self._consumed.add(binding.value.id)
                return items
            finally:
                self.leave(binding.value)
        if node.type == "call_expression":
            callee = self.unwrap(self.field(node, "function"))
            if callee is not None and callee.type == "member_expression":
                method = self.code(self.field(callee, "property"))
                receiver = self.field(callee, "object")
                args = self.args(node)
                if method == "concat":
                    joined = self.items(receiver, env, loop)
                    if joined is None:
                        return None
                    for arg in args:
                        added = self.items(arg, env, loop)
                        joined.extend(added if added is not None else [_Item(arg, env, loop, True)])
                    return joined
                if method in ("map", "flatMap") and args and args[0].type in ("arrow_function", "function_expression"):
                    body = self.field(args[0], "body")
                    callback = self.callback_scopes.get(args[0].id)
                    if body is not None and body.type != "statement_block" and callback is not None:
                        return [_Item(body, _Env(callback, env.bindings, env.depth + 1), self.code(receiver))]
            target = self.function_for(node, env)
            if target is not None and self.enter(target[0]):
                try:
                    found = self.items(target[1], target[2], loop)
                finally:
                    self.leave(target[0])
                if found is not None:
                    self._consumed.add(target[1].id)
                return found
        return None

    # ---- call sites ------------------------------------------------------------------------------

    def sink_of(self, call: Node) -> TsSink | None:
        """The catalogue's sink ``call`` is: a function by its name and module (``generateText``),
        or a method by the end of its property chain (``chat.completions.create``)."""
        if call.type != "call_expression":
            return None
        callee = self.unwrap(self.field(call, "function"))
        if callee is None:
            return None
        sinks = self.ts.sinks
        if callee.type == "identifier":
            name = self.code(callee)
            if name not in self.ts.sink_functions:
                return None
            module = self.imports.get(name, "")
            return next((s for s in sinks if name in s.functions and (not module or module.startswith(s.modules))),
                        None)
        chain = [n for n in self.chain(callee) if n not in self.ts.passthrough]
        if len(chain) < 2:
            return None
        module = self.imports.get(chain[0], "")
        for sink in sinks:
            if chain[-1] in sink.functions and module.startswith(sink.modules):
                return sink
            if any(tuple(chain[-len(m):]) == m for m in sink.methods) and not any(n in chain for n in sink.not_through):
                return sink
        return None

    def call_site_requests(self) -> list[Request]:
        requests = []
        for call, scope in self.calls:
            sink = self.sink_of(call)
            if sink is not None:
                request = self.call_request(call, sink, _Env(scope))
                if request is not None:
                    requests.append(request)
        return requests

    def call_request(self, call: Node, sink: TsSink, env: _Env) -> Request | None:
        args = self.args(call)
        options = args[0] if args else None
        opaque = [False]
        keywords = self.entries(options, env, opaque) if options is not None else None
        if keywords is None:
            keywords, opaque = {}, [True]
        shape = sink.shape
        if not shape.request_keys & set(keywords) and not opaque[0]:
            return None
        builder = _Builder()
        tools: list[ToolDef] = []
        if shape.tools in keywords:
            node, kenv, _ = keywords[shape.tools]
            tools.extend(self.tool_map(node, kenv, builder) if shape.tools_by_name
                         else self.tool_list(node, kenv, builder))
        for key in shape.system:
            if key in keywords:
                node, kenv, _ = keywords[key]
                builder.next_message()
                self.content(node, kenv, builder, Role.SYSTEM, None)
        for key in shape.messages:
            if key in keywords:
                node, kenv, _ = keywords[key]
                self.messages(node, kenv, builder)
        for key in shape.input:
            if key in keywords:
                node, kenv, _ = keywords[key]
                found = self.text(node, kenv)
                if found is not None or self.items(node, kenv) is None:
                    builder.next_message()
                    builder.add(self.or_slot(found, node, kenv), Role.USER)
                else:
                    self.messages(node, kenv, builder)
        model = self.model_name(keywords["model"][0], keywords["model"][1]) if "model" in keywords else None
        provider = (self.model_provider(keywords["model"][0], keywords["model"][1], sink) if "model" in keywords
                    else None)
        if provider == "mock":
            return None  # a mock model in a test or demo: nothing is sent
        limit = None
        for key in shape.limit_keys:
            if key in keywords:
                node, kenv, pair = keywords[key]
                ok, value = self.literal(node, kenv)
                number = value if ok and isinstance(value, int) and not isinstance(value, bool) else None
                limit = OutputLimit(key, number, self.span(pair))
                break
        if limit is None and provider in sink.limited_providers:
            limit = OutputLimit(f"{shape.limit_keys[0]} (the SDK's default: the model's maximum)", None,
                                self.span(call))
        return Request(path=self.path, anchor=self.span(call), segments=tuple(builder.segments), tools=tuple(tools),
                       model=model, output_limit=limit, declares_settings=not opaque[0] or limit is not None,
                       settings_hint=shape.hint(":"), breakpoints=tuple(builder.breakpoints))

    def model_provider(self, node: Node, env: _Env, sink: TsSink) -> str | None:
        """The word of the sink's ``limited_providers`` that names the provider a model is made by
        (`anthropic("claude-…")`, `vertexAnthropic(…)`, `createAnthropic(…)(…)`), ``mock`` for a
        mock model, else None."""
        node, env = self.deref(node, env)
        if node.type == "new_expression":
            constructor = self.field(node, "constructor")
            mock = constructor is not None and any(fnmatchcase(self.code(constructor), p) for p in sink.mock_models)
            return "mock" if mock else None
        if node.type != "call_expression":
            return None
        callee = self.field(node, "function")
        while callee is not None and callee.type == "call_expression":  # createAnthropic({...})("claude-…")
            callee = self.field(callee, "function")
        if callee is None:
            return None
        chain = self.chain(callee)
        root = chain[0] if chain else self.code(callee)
        module = self.imports.get(root, "")
        return next((word for word in sink.limited_providers
                     if word in module.split(".")[0] or (not module and word in root.lower())), None)

    def model_name(self, node: Node, env: _Env) -> str | None:
        """``"gpt-4o"``, ``openai("gpt-4o")``, ``anthropic("claude-…")`` or ``"openai/gpt-4o"``."""
        node, env = self.deref(node, env)
        text = self.literal_str(node, env)
        if text is None and node.type == "call_expression":
            args = self.args(node)
            text = self.literal_str(args[0], env) if args else None
        if text and "/" in text and not text.startswith("/"):
            text = text.split("/", 1)[1]  # the AI gateway's "provider/model"
        return text

    def messages(self, node: Node, env: _Env, builder: _Builder) -> None:
        items = self.items(node, env)
        if items is None:
            items = [_Item(node, env, None, True)]
        for item in items:
            self.message(item, builder)

    def message(self, item: _Item, builder: _Builder) -> None:
        builder.next_message()
        if item.variable:
            piece = self.slot_piece(item.node, item.env, variable=True)
            builder.add([piece], Role.USER, item.loop)
            return
        node, env = self.deref(item.node, item.env)
        if node.type == "ternary_expression":  # `cond ? toolMessage : userMessage`: either one
            for key in ("consequence", "alternative"):
                branch = self.field(node, key)
                if branch is not None:
                    self.message(_Item(branch, env, item.loop), builder)
            return
        if node.type == "array":  # LangChain's ["system", "text"] tuples
            parts = [c for c in node.named_children if c.type != "comment"]
            role_name = self.literal_str(parts[0], env) if len(parts) == 2 else None
            if role_name is not None:
                self.langchain_text(parts[1], env, builder, ROLE_NAMES.get(role_name.lower(), Role.USER), item.loop)
                return
        if node.type in ("new_expression", "call_expression"):
            kind = self.message_class(node)
            if kind is not None and kind.role is not None:
                args = self.args(node)
                if args:
                    value = args[0]
                    entries = self.entries(value, env)
                    if entries is not None and "content" in entries:
                        value, env = entries["content"][0], entries["content"][1]
                    maker = self.unwrap(self.field(node, "function") or self.field(node, "constructor"))
                    if kind.template is not None and (self.dotted(maker) or "").endswith("." + kind.template):
                        self.langchain_text(value, env, builder, ROLE_NAMES[kind.role], item.loop)
                    else:
                        self.content(value, env, builder, ROLE_NAMES[kind.role], item.loop)
                return
            if any(name in self.code(node)[:40] for name in self.ts.variable_messages):
                builder.add([self.slot_piece(node, env, variable=True)], Role.USER, item.loop)
                return
        entries = self.entries(node, env)
        if entries is None:
            builder.add(self.pieces(item.node, item.env), Role.USER, item.loop)
            return
        self._consumed.update((item.node.id, node.id))
        role = Role.USER
        if "role" in entries:
            name = self.literal_str(entries["role"][0], entries["role"][1])
            role = ROLE_NAMES.get(name.lower(), Role.USER) if name else Role.USER
        if "content" in entries:
            value, venv, _ = entries["content"]
            self.content(value, venv, builder, role, item.loop)

    def message_class(self, node: Node) -> TsMessage | None:
        """The message class ``node`` makes (``new SystemMessage(...)``, ``SystemMessagePromptTemplate
        .fromTemplate(...)``), by its name."""
        callee = self.field(node, "constructor") if node.type == "new_expression" else self.field(node, "function")
        if callee is None:
            return None
        dotted = self.dotted(self.unwrap(callee)) or ""
        head, _, last = dotted.rpartition(".")
        name = dotted.split(".")[0] if head and last in self.ts.template_methods else last
        return self.ts.messages.get(name)

    def content(self, node: Node, env: _Env, builder: _Builder, role: Role, loop: str | None) -> None:
        found = self.text(node, env)  # read once: reading it again would repeat every lookup
        if found is None:
            blocks = self.items(node, env)
            if blocks and not any(b.variable for b in blocks):
                for block in blocks:
                    self.block(block, builder, role, loop)
                return
        builder.add(self.or_slot(found, node, env), role, loop)

    def block(self, item: _Item, builder: _Builder, role: Role, loop: str | None) -> None:
        entries = self.entries(item.node, item.env)
        loop = item.loop or loop
        if entries is None:
            builder.add(self.pieces(item.node, item.env), role, loop)
            return
        kind = self.literal_str(entries["type"][0], entries["type"][1]) if "type" in entries else "text"
        if kind in TEXT_PARTS and "text" in entries:
            node, env, _ = entries["text"]
            builder.add(self.pieces(node, env), role, loop)
        elif kind in ("tool_result", "tool-result") and ("content" in entries or "output" in entries):
            node, env, _ = entries["content"] if "content" in entries else entries["output"]
            self.content(node, env, builder, Role.TOOL, loop)
        for key in ("cache_control", "providerOptions"):
            if key in entries:
                _, _, pair = entries[key]
                if key == "cache_control" or "cacheControl" in self.code(pair):
                    builder.breakpoints.append(Breakpoint(self.span(pair), len(builder.segments), None))

    # ---- LangChain templates ----------------------------------------------------------------------

    def langchain_text(self, node: Node, env: _Env, builder: _Builder, role: Role, loop: str | None) -> None:
        """A LangChain template string: ``{name}`` fields are slots filled when the template runs."""
        node, env = self.deref(node, env)
        pieces = self.text(node, env)
        if pieces is None:
            builder.add(self.pieces(node, env), role, loop)
            return
        out: list[Piece] = []
        for piece in pieces:
            fields = placeholders.format_fields(piece.text) if piece.slot is None else None
            if not fields:
                out.append(piece if fields is None or piece.slot is not None else
                           replace(piece, text=piece.text.replace("{{", "{").replace("}}", "}")))
                continue
            cursor = 0
            for start, end, name in fields:
                if start > cursor:
                    out.append(Piece(piece.text[cursor:start].replace("{{", "{").replace("}}", "}"), piece.span))
                out.append(Piece(name, piece.span, Slot(name, names=(name,) if name.isidentifier() else ())))
                cursor = end
            if cursor < len(piece.text):
                out.append(Piece(piece.text[cursor:].replace("{{", "{").replace("}}", "}"), piece.span))
        builder.add(out, role, loop)

    def langchain_requests(self) -> list[Request]:
        requests = []
        for call, scope in self.calls:
            if call.type != "call_expression":
                continue
            dotted = self.dotted(self.unwrap(self.field(call, "function"))) or ""
            args = self.args(call)
            if not args:
                continue
            env = _Env(scope)
            builder = _Builder()
            template = self.ts.template(dotted)
            if template is None:
                continue
            if template.messages:
                self.messages(args[0], env, builder)
            else:
                builder.next_message()
                self.langchain_text(args[0], env, builder, Role.USER, None)
            self._consumed.add(args[0].id)
            if builder.segments:
                requests.append(Request(self.path, self.span(call), tuple(builder.segments),
                                        roles_marked=template.messages))
        return requests

    # ---- tools ---------------------------------------------------------------------------------------

    def tool_list(self, node: Node, env: _Env, builder: _Builder) -> list[ToolDef]:
        items = self.items(node, env)
        if items is None:
            sources = self.iteration_sources(node, env)
            if sources:
                piece = self.slot_piece(node, env, variable=True)
                builder.add([piece], Role.TOOLS)
            return []
        tools = []
        for item in items:
            if item.variable:
                continue
            tool = self.tool_object(item.node, item.env, builder) if item.loop is None else None
            if tool is not None:
                tools.append(tool)
        return tools

    def tool_map(self, node: Node, env: _Env, builder: _Builder) -> list[ToolDef]:
        """The AI SDK's ``tools: { name: tool({...}), ... }``."""
        entries = self.entries(node, env)
        if entries is None:
            return []
        tools = []
        for name, (value, venv, pair) in entries.items():
            tool = self.ai_sdk_tool(value, venv, builder, name, pair)
            if tool is not None:
                tools.append(tool)
        return tools

    def ai_sdk_tool(self, node: Node, env: _Env, builder: _Builder, name: str | None, anchor: Node) -> ToolDef | None:
        node, env = self.deref(node, env)
        if node.type == "call_expression":
            callee = self.unwrap(self.field(node, "function"))
            called = (self.dotted(callee) or "") if callee is not None else ""
            if called.rsplit(".", 1)[-1] not in self.ts.tool_constructors:
                return None
            args = self.args(node)
            if not args:
                return None
            self._consumed.add(node.id)
            node = self.unwrap(args[0])
        config = self.entries(node, env)
        if config is None:
            return None
        self._consumed.add(node.id)
        if not any(k in config for k in ("description", "parameters", "inputSchema", "execute")):
            return None
        if "name" in config:
            name = self.literal_str(config["name"][0], config["name"][1]) or name
        key = "inputSchema" if "inputSchema" in config else "parameters"
        return self.make_tool(name, config, key, env, builder, anchor)

    def make_tool(self, name: str | None, config: dict, schema_key: str, env: _Env, builder: _Builder,
                  anchor: Node) -> ToolDef:
        description = None
        literal_description = None
        if "description" in config:
            value, venv, _ = config["description"]
            description = self.tool_description(value, venv, builder)
            literal_description = self.literal_str(value, venv)
        schema, estimate = None, None
        if schema_key in config:
            value, venv, _ = config[schema_key]
            schema, estimate = self.schema_of(value, venv)
        raw: dict | None = None
        if name is not None and schema is not None and ("description" not in config or literal_description is not None):
            raw = {"name": name}
            if literal_description is not None:
                raw["description"] = literal_description
            raw[schema_key] = schema
        return ToolDef(name, description, schema, self.span(anchor), raw, schema_estimate=estimate)

    def schema_of(self, node: Node, env: _Env) -> tuple[object, str | None]:
        """A tool's input schema as JSON: a literal, ``jsonSchema({...})``, or zod converted."""
        target, tenv = self.deref(node, env)
        ok, value = self.literal(target, tenv)
        if ok and isinstance(value, dict):
            if list(value) == ["json"] and isinstance(value["json"], dict):
                return value["json"], None  # Amazon Bedrock's toolSpec: inputSchema: {json: {...}}
            return value, None
        if target.type == "call_expression":
            callee = self.unwrap(self.field(target, "function"))
            called = (self.qualified(callee) or "") if callee is not None else ""
            args = self.args(target)
            if called.rsplit(".", 1)[-1] in self.ts.zod_schemas and args:
                target, tenv = self.deref(args[0], tenv)
        if target.type == "object":
            conversion = self.zod.object_schema(target, tenv)
        elif self.zod.looks_like_zod(target, tenv):
            conversion = self.zod.convert(target, tenv)
        else:
            return None, None
        schema = dict(conversion.schema)
        guesses = ", ".join(dict.fromkeys(conversion.approximate))
        note = "converted from zod" + (f"; not read: {guesses}" if guesses else "")
        return schema, note

    def tool_object(self, node: Node, env: _Env, builder: _Builder) -> ToolDef | None:
        """A tool written as an object literal: OpenAI (``function: {name, parameters}``, or
        flat), Anthropic (``input_schema``) or MCP (``inputSchema``)."""
        node, env = self.deref(node, env)
        entries = self.entries(node, env)
        if entries is None:
            return None
        self._consumed.add(node.id)
        if "cache_control" in entries:
            builder.breakpoints.append(Breakpoint(self.span(entries["cache_control"][2]), 0, None))
        inner = entries
        if "function" in entries:
            nested = self.entries(entries["function"][0], entries["function"][1])
            if nested is not None:
                inner = nested
        name = self.literal_str(inner["name"][0], inner["name"][1]) if "name" in inner else None
        key = next((k for k in ("parameters", "input_schema", "inputSchema") if k in inner), "parameters")
        tool = self.make_tool(name, inner, key, env, builder, node)
        ok, raw = self.literal(node, env)
        if ok and isinstance(raw, dict):
            tool = replace(tool, raw=raw)
        return tool

    def tool_description(self, node: Node, env: _Env, builder: _Builder) -> str | None:
        pieces = self.text(node, env)
        if pieces is None:
            builder.add([self.slot_piece(node, env)], Role.TOOLS)
            return None
        slots = [p for p in pieces if p.slot is not None]
        if slots:
            builder.add(slots, Role.TOOLS)
        return "".join(p.text if p.slot is None else "{" + p.text + "}" for p in pieces)

    def mcp_tools(self) -> dict[object, _ToolGroup]:
        """MCP SDK registrations: ``server.tool(name, description?, shape?, ..., handler)`` and
        ``server.registerTool(name, {description, inputSchema}, handler)``, grouped by server:
        each server lists its own tools (a test file may build a dozen servers)."""
        groups: dict[object, _ToolGroup] = {}
        if not self.mcp:
            return groups
        for call, scope in self.calls:
            if call.type != "call_expression":
                continue
            callee = self.unwrap(self.field(call, "function"))
            if callee is None or callee.type != "member_expression":
                continue
            method = self.code(self.field(callee, "property"))
            if method not in self.ts.tool_servers:
                continue
            env = _Env(scope)
            args = self.args(call)
            name = self.literal_str(args[0], env) if args else None
            if name is None:
                continue
            group = groups.setdefault(self.server_of(self.field(callee, "object"), env), _ToolGroup())
            builder = group.builder
            if self.ts.tool_servers[method] == "config":
                config = self.entries(args[1], env) if len(args) > 1 else None
                if config is None:
                    continue
                tool = self.make_tool(name, config, "inputSchema", env, builder, call)
                tool = _object_root(tool)
            else:
                config = {}
                for arg in args[1:]:
                    bare = self.unwrap(arg)
                    if bare.type in _FUNCTIONS:
                        break
                    if "description" not in config and self.text(arg, env) is not None and bare.type != "object":
                        config["description"] = (arg, env, arg)
                    elif "inputSchema" not in config:
                        config["inputSchema"] = (arg, env, arg)
                if "inputSchema" not in config:
                    config["inputSchema"] = (call, env, call)  # no parameters: an empty object schema
                tool = _object_root(self.make_tool(name, config, "inputSchema", env, builder, call))
                if tool.schema is None:
                    empty = {"type": "object", "properties": {}}
                    raw = dict(tool.raw) if isinstance(tool.raw, dict) else {"name": name}
                    raw["inputSchema"] = empty
                    tool = replace(tool, schema=empty, schema_estimate="converted from zod", raw=raw)
            group.tools.append((call.start_byte, tool))
        return groups

    def server_of(self, receiver: Node | None, env: _Env) -> object:
        """What identifies the server a registration is made on: the declaration its name is
        bound to, or the name within the function that receives it as a parameter."""
        if receiver is None:
            return None
        binding = self.resolve(receiver, env)
        if binding is not None:
            return binding.target.id
        code = self.code(receiver)
        scope: _Scope | None = env.scope
        while scope is not None and code not in scope.params:
            scope = scope.parent
        return (code, id(scope))

    def literal_tools(self) -> dict[object, _ToolGroup]:
        """Object literals in a tool's shape that no call site sends (an MCP ``tools/list``
        handler's result, a tool catalogue constant): one group per array that lists them."""
        groups: dict[object, _ToolGroup] = {}
        for node, scope in self.objects:
            if node.id in self._consumed:
                continue
            keys = self.raw_pairs(node)
            shaped = ("name" in keys and any(k in keys for k in ("inputSchema", "input_schema"))) or (
                "function" in keys and keys["function"].type == "object"
                and "parameters" in self.raw_pairs(keys["function"]))
            if not shaped:
                continue
            parent = node.parent
            group = groups.setdefault(parent.id if parent is not None and parent.type == "array" else node.id,
                                      _ToolGroup())
            tool = self.tool_object(node, _Env(scope), group.builder)
            if tool is not None and (tool.name is not None or tool.schema is not None):
                group.tools.append((node.start_byte, tool))
        return groups

    # ---- prompts that reach no call site ------------------------------------------------------------

    def standalone_requests(self, used: set[int], context: bool) -> list[Request]:
        candidates: list[tuple[int, Span, _Builder, set[int], bool, bool]] = []

        def add(key: int, anchor: Span, build, strong: bool, says_role: bool) -> None:
            self._consumed = set()
            builder = _Builder()
            build(builder)
            if builder.segments:
                candidates.append((key, anchor, builder, self._consumed, strong, says_role))

        for scope in self.scopes():
            for name, records in scope.assigns.items():
                bases = [i for i, r in enumerate(records) if r.kind == "=" and r.value is not None]
                if not bases or not _prompt_name(name):
                    continue
                base = records[bases[-1]]
                if base.value is None or base.value.id in used:
                    continue
                env = _Env(base.scope)
                pieces = self.text(base.value, env)
                if pieces is None:
                    continue
                extras = records[bases[-1] + 1 :]
                if any(e.kind != "+=" for e in extras):
                    continue
                for extra in extras:
                    if extra.value is not None:
                        pieces = pieces + self.pieces(extra.value, env)
                if any(p.slot is not None or p.text.strip() for p in pieces):
                    role = Role.SYSTEM
                    add(base.value.id, self.span(base.target), lambda b, p=pieces, r=role: b.system(p, r),
                        _strong_prompt_name(name), _system_name(name))
        for node, scope in self.arrays:
            if node.id in used:
                continue
            env = _Env(scope)
            if any(self.is_message_object(e, env) for e in node.named_children):
                add(node.id, self.span(node), lambda b, n=node, e=env: self.messages(n, e, b), True, True)
        context = context or any(c[4] for c in candidates)
        # A candidate that another one reads (a constant inside a longer prompt) is part of that one.
        inside_another = _read_by_another((key, consumed) for key, _, _, consumed, _, _ in candidates)
        requests = []
        for key, anchor, builder, _, _, says_role in candidates:
            if key in used or key in inside_another:
                continue
            if not context or not any(s.has_words for s in builder.segments):
                continue
            requests.append(Request(self.path, anchor, tuple(builder.segments),
                                    breakpoints=tuple(builder.breakpoints), roles_marked=says_role))
        return requests

    def is_message_object(self, node: Node, env: _Env) -> bool:
        if node.type != "object":
            return False
        pairs = self.raw_pairs(node)
        if "role" not in pairs or "content" not in pairs:
            return False
        role = self.string_value(pairs["role"])
        return role is not None and role.lower() in ROLE_NAMES

    def scopes(self):
        seen = {id(self.module_scope)}
        yield self.module_scope
        for function in self.functions:
            if id(function.scope) not in seen:
                seen.add(id(function.scope))
                yield function.scope

    # ---- token estimates -------------------------------------------------------------------------------

    def estimate_context(self, target: str | None, value: Node) -> None:
        if target and "token" in target.rsplit(".", 1)[-1].lower():
            self.estimates_in(value)

    def estimates_in(self, node: Node) -> None:
        """Observe ``text.length / 4``-style estimates inside an expression used as a token count."""
        node = self.unwrap(node)
        if node.type == "call_expression":
            callee = self.dotted(self.unwrap(self.field(node, "function"))) or ""
            if callee in ("Math.ceil", "Math.floor", "Math.round", "Math.max", "Math.min", "Math.trunc"):
                args = self.args(node)
                if callee != "Math.max" and callee != "Math.min" and args and self.is_estimate(args[0]):
                    self.observe(node)
                    return
                for arg in args:
                    self.estimates_in(arg)
        elif node.type == "binary_expression":
            if self.is_estimate(node):
                self.observe(node)
                return
            for side in (self.field(node, "left"), self.field(node, "right")):
                if side is not None:
                    self.estimates_in(side)
        elif node.type == "ternary_expression":
            for key in ("consequence", "alternative"):
                branch = self.field(node, key)
                if branch is not None:
                    self.estimates_in(branch)

    def is_estimate(self, node: Node) -> bool:
        node = self.unwrap(node)
        if node.type != "binary_expression":
            return False
        operator = self.code(self.field(node, "operator"))
        left, right = self.unwrap(self.field(node, "left")), self.unwrap(self.field(node, "right"))
        if operator == "/":
            ok, number = _number(self.code(right)) if right.type == "number" else (False, None)
            if not ok or not isinstance(number, (int, float)):
                return False
            if self.is_word_count(left):
                return 0.5 <= number < 1
            return self.is_len_like(left) and 2 <= number <= 6
        if operator == "*":
            for a, b in ((left, right), (right, left)):
                ok, number = _number(self.code(b)) if b.type == "number" else (False, None)
                if not ok or not isinstance(number, (int, float)):
                    continue
                if self.is_word_count(a):
                    return 1 < number <= 2
                if self.is_len_like(a):
                    return 0 < number <= 0.5
        return False

    def is_len_like(self, node: Node) -> bool:
        dotted = self.dotted(node) or ""
        last = snake(dotted.rsplit(".", 1)[-1])
        if node.type == "member_expression" and last == "length":
            return not self.is_word_count(node)
        return "char" in last or last.endswith(("_len", "_length"))

    def is_word_count(self, node: Node) -> bool:
        node = self.unwrap(node)
        if node.type == "member_expression" and self.code(self.field(node, "property")) == "length":
            return ".split(" in self.code(self.field(node, "object"))
        return "word" in snake((self.dotted(node) or "").rsplit(".", 1)[-1])

    def observe(self, node: Node) -> None:
        span = self.span(node)
        if span not in self._observed:
            self._observed.add(span)
            self.observations.append(Observation("char-token-estimate", span, " ".join(self.code(node).split())))

    # ---- the whole module ---------------------------------------------------------------------------

    def run(self, parsed: ParsedFile) -> None:
        self.index(self.root, self.module_scope, (), 0, None)
        requests = self.call_site_requests()
        requests.extend(self.langchain_requests())
        used = set(self._consumed)
        groups = list(self.mcp_tools().values())
        used |= self._consumed
        groups += list(self.literal_tools().values())
        used |= self._consumed
        parsed.requests.extend(requests)
        context = bool(self.llm or requests or any(g.tools for g in groups))
        parsed.requests.extend(self.standalone_requests(used, context))
        for group in groups:
            if group.tools:
                tools = sorted(group.tools, key=lambda t: t[0])
                parsed.requests.append(Request(self.path, tools[0][1].span, tuple(group.builder.segments),
                                               tuple(t for _, t in tools),
                                               breakpoints=tuple(group.builder.breakpoints)))
        parsed.observations.extend(self.observations)
        if self.long_chain is not None:
            line, _ = self.src.position(self.long_chain.start_byte)
            parsed.notices.append(f"stopped following a chain of property accesses and calls after {_MAX_CHAIN} "
                                  f"(line {line}); values and untrusted sources are not followed through longer chains")
        parsed.dependencies.extend(path for path, sibling in self.siblings.items() if sibling is not None)

    def release(self) -> None:
        """Break the cycles the analysis is made of (scopes and their assignments, the zod reader's
        methods, the modules it read constants from), so that the syntax trees they hold (up to 100
        bytes per byte of a broken module) are freed as soon as the module is done, not at the
        collector's next pass (a few cyclic objects do not prompt one)."""
        for analyzer in [self, *(a for a in self.siblings.values() if a is not None and a is not self)]:
            for scope in analyzer.scopes():
                scope.assigns.clear()
                scope.functions.clear()
            analyzer.__dict__.clear()


# What `Analyzer.index` records for each kind of node; it passes through every other kind.
_INDEX_HANDLERS: dict[str, Callable[[Analyzer, Node, _Scope, tuple[_Loop, ...], int, str | None], bool]] = {
    **dict.fromkeys(_FUNCTIONS, Analyzer._index_function),
    "import_statement": Analyzer._index_import,
    "for_in_statement": Analyzer._index_for_in,
    **dict.fromkeys(("for_statement", "while_statement", "do_statement"), Analyzer._index_loop),
    "variable_declarator": Analyzer._index_declarator,
    "assignment_expression": Analyzer._index_assignment,
    "augmented_assignment_expression": Analyzer._index_augmented,
    "return_statement": Analyzer._index_return,
    **dict.fromkeys(("call_expression", "new_expression"), Analyzer._index_call),
    "array": Analyzer._index_array,
    "object": Analyzer._index_object,
    "pair": Analyzer._index_pair,
    "binary_expression": Analyzer._index_comparison,
}


def _read_by_another(candidates: Iterable[tuple[int, Iterable[int]]]) -> set[int]:
    """The nodes some candidate other than their own reads, in one pass over what each one read."""
    found: set[int] = set()
    for key, consumed in candidates:
        found.update(node for node in consumed if node != key)
    return found


def _object_root(tool: ToolDef) -> ToolDef:
    """The MCP SDK lists a zod schema without a root ``type`` (a union of objects) as
    ``type: object``; the schema here says what the SDK sends."""
    schema = tool.schema
    if not tool.schema_estimate or not isinstance(schema, dict) or "type" in schema:
        return tool
    stamped = {"type": "object", **schema}
    raw = dict(tool.raw) if isinstance(tool.raw, dict) else tool.raw
    if isinstance(raw, dict):
        raw["inputSchema"] = stamped
    return replace(tool, schema=stamped, raw=raw)


def _number(code: str) -> tuple[bool, object]:
    text = code.replace("_", "").rstrip("n")
    try:
        if text.lower().startswith(("0x", "0o", "0b")):
            return True, int(text, 0)
        value = float(text)
    except ValueError:
        return False, None
    return True, int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


_MAX_IMPORT_DEPTH = 2
_MAX_SIBLING_BYTES = 500_000
_SIBLING_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")
_REQUEST_BODY = "the request body"
_ITEM = "[item]"  # the `key` of a name bound to each item of a collection in turn


def _described(kind: str, what: str) -> str:
    return f"{_REQUEST_BODY} ({what})" if kind == "request" else what


def _short_call(qualified: str) -> str:
    return qualified.replace("node:", "")


def _named(items: list[str]) -> tuple[str, ...]:
    """The names or calls, once each, without the empty ones."""
    return unique(i for i in items if i)


def _dedent(pieces: list[Piece]) -> list[Piece]:
    """What ``dedent`` makes of the text: the common indentation removed, first and last blank
    lines dropped (each slot stands in as one non-blank character)."""
    joined = "".join("\x00" if p.slot is not None else p.text for p in pieces)
    lines = joined.split("\n")
    indents = [len(line) - len(line.lstrip(" \t")) for line in lines[1:] if line.strip(" \t")]
    margin = min(indents) if indents else 0
    keep: list[bool] = []
    for number, line in enumerate(lines):
        drop = 0 if number == 0 else min(margin, len(line) - len(line.lstrip(" \t")))
        keep.extend([False] * drop + [True] * (len(line) - drop))
        keep.append(True)
    result, offset = [], 0
    for piece in pieces:
        width = 1 if piece.slot is not None else len(piece.text)
        if piece.slot is not None:
            result.append(piece)
        else:
            text = "".join(c for c, k in zip(piece.text, keep[offset : offset + width], strict=False) if k)
            if text:
                result.append(replace(piece, text=text))
        offset += width
    return strip(result)


def _evaluated_once(piece: Piece) -> Piece:
    """A piece of a module-level constant: the calls in its slot run once per process."""
    slot = piece.slot
    if slot is None or not slot.calls:
        return piece
    return replace(piece, slot=replace(slot, once=slot.calls))

