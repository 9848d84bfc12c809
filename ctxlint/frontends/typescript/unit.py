"""One TypeScript or JavaScript module under analysis: its syntax tree and source positions, its
imports and scopes, what the analysis has seen so far, and the questions about syntax every
component asks (the name a property chain spells, the catalogue's sink a call is)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ctxlint.frameworks.typescript import TsSink, TypeScriptCatalogue, loaded_by_name
from ctxlint.frontends.code.guard import CycleGuard
from ctxlint.frontends.code.words import qualify
from ctxlint.frontends.typescript.knowledge import CHAINED, GLOBALS, MAX_CHAIN, WRAPPERS, Node
from ctxlint.frontends.typescript.syntax import Text, unescape
from ctxlint.frontends.typescript.values import Binding, Function, Piece, Scope, Timeline
from ctxlint.model import Observation, Source, Span

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ctxlint.frontends.code.pieces import Facts
    from ctxlint.frontends.typescript.project import Project


class Module(CycleGuard):
    """The module being analysed and the state the components share."""

    def __init__(self, root: Node, text: Text, knowledge: TypeScriptCatalogue, grammar: str, project: Project,
                 generation: int) -> None:
        self.root = root
        self.src = text
        self.path = text.path
        self.grammar = grammar
        self.ts = knowledge
        self.project = project  # the modules of the tree this one imports constants from
        self.generation = generation  # how many imports away from the linted module
        self.imports: dict[str, str] = {}  # local name -> "module" or "module.export"
        self.namespaces: set[str] = set()  # local names of `import * as name from "module"`
        self._loaded: dict[tuple[str, ...], bool] = {}  # answers of loads(), asked at every matching call
        self.module_scope = Scope("module", root)
        self.calls: list[tuple[Node, Scope]] = []
        self.functions: list[Function] = []
        self._functions_by_node: dict[int, Function] = {}  # (see function_of)
        self._functions_indexed = 0
        self.callback_scopes: dict[int, Scope] = {}  # `.map(item => ...)` callbacks by node id
        self.arrays: list[tuple[Node, Scope]] = []
        self.objects: list[tuple[Node, Scope]] = []
        self.observations: list[Observation] = []
        self.observed: set[Span] = set()
        self.active: set[int] = set()  # values being followed now (a guard against cycles)
        self.consumed: set[int] = set()  # values some request already includes
        # the entries a spread on a condition adds in one case only (``...(model === "x" ? {k} : {})``):
        # each entry's node id with the condition it is given on, and whether it holds then
        self.given_on: dict[int, tuple[Node, bool]] = {}
        self.marked: set[int] = set()  # cuts followed by a marker in the same expression
        self.timelines: dict[int, Timeline] = {}
        # What a name holds, kept by binding (see Strings.name_text): its text and what reading it consumed,
        # its untrusted source, its facts.
        self.text_memo: dict[tuple, tuple[list[Piece] | None, set[int]]] = {}
        self.untrusted_memo: dict[tuple, Source | None] = {}
        self.facts_memo: dict[tuple, tuple[Facts, set[int]]] = {}
        self.chains: dict[int, int] = {}  # property-chain depth by node id (see chain_depth)
        self.undotted: set[int] = set()  # chains `dotted` found no name for
        self.long_chain: Node | None = None  # the first chain past MAX_CHAIN, for the notice
        self.source_steps = 0  # steps spent following values to their sources (MAX_SOURCE_STEPS)
        self.answers: set[int] = set()  # calls that send a request: what they return is the model's answer
        self.answered: dict[int, Node | None] = {}  # a name's value -> the request call it is built from
        self.llm = False  # the module imports an LLM library
        self.mcp = False  # the module imports a library whose servers register tools
        self.method_calls: dict[str, list[Node]] | None = None  # `x.name(...)` calls by name (fills)
        # The sink this module forwards the body it is posted to, as an API route (routes.py): found once.
        self.route_sink: tuple[TsSink | None] | None = None

    def all_scopes(self) -> Iterator[Scope]:
        seen = {id(self.module_scope)}
        yield self.module_scope
        for function in self.functions:
            if id(function.scope) not in seen:
                seen.add(id(function.scope))
                yield function.scope

    def function_of(self, node: Node) -> Function | None:
        """The function of the module whose node is ``node`` (the first, should it be listed twice)."""
        # Functions are listed as their scopes are indexed: the table takes in those listed since.
        for function in self.functions[self._functions_indexed:]:
            self._functions_by_node.setdefault(function.node.id, function)
        self._functions_indexed = len(self.functions)
        return self._functions_by_node.get(node.id)

    def innermost_scope(self, node: Node) -> Scope:
        """The scope of the innermost function of the module around ``node``."""
        inner = None
        for function in self.functions:
            fn = function.node
            if fn.start_byte <= node.start_byte and node.end_byte <= fn.end_byte and (
                    inner is None or inner.node.start_byte <= fn.start_byte):
                inner = function
        return inner.scope if inner is not None else self.module_scope

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
        while node is not None and node.type in WRAPPERS:
            inner = [c for c in node.named_children if c.type != "comment"]
            if not inner:
                break
            node = inner[0]
        return node

    def callee(self, call: Node) -> Node | None:
        """What ``call`` calls. ``await api.post<T>(url)`` is read by the grammar as
        ``(await api.post)<T>(url)``: the function is then the awaited one."""
        callee = self.unwrap(self.field(call, "function"))
        if callee is not None and callee.type == "await_expression" and self.field(call, "type_arguments"):
            inner = [c for c in callee.named_children if c.type != "comment"]
            callee = self.unwrap(inner[0]) if inner else callee
        return callee

    def dotted(self, node: Node) -> str | None:
        """``a.b.c`` for names and property chains (``a["key"]`` and ``a?.b`` too)."""
        node = self.unwrap(node)
        if node.type in ("identifier", "shorthand_property_identifier", "this", "property_identifier"):
            return self.code(node)
        if node.id in self.undotted:  # each level of a long chain on an unnamed base is asked once
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
        self.undotted.add(node.id)
        return None

    def chain_depth(self, node: Node) -> int:
        """How many property accesses and calls ``node`` stacks (``a.b[c].d()``: 4), each level counted
        once per module."""
        path: list[Node] = []
        depth = 0
        current: Node | None = node
        while current is not None and current.type in CHAINED:
            known = self.chains.get(current.id)
            if known is not None:
                depth = known
                break
            path.append(current)
            if current.type == "await_expression":
                current = self.unwrap(next((c for c in current.named_children if c.type != "comment"), None))
            else:
                current = self.unwrap(self.field(current, CHAINED[current.type]))
        for level in reversed(path):
            depth += 1
            self.chains[level.id] = depth
        return depth

    def too_long(self, node: Node) -> bool:
        """A chain past MAX_CHAIN property accesses and calls, which values and sources are not followed
        through (following one at each of its levels would cost the square or the cube of its length)."""
        if self.chain_depth(node) <= MAX_CHAIN:
            return False
        if self.long_chain is None:
            self.long_chain = node
        return True

    def qualified(self, node: Node) -> str | None:
        return qualify(self.dotted(node), self.imports)

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
        return head not in GLOBALS or (head == "this" and "." in dotted)

    def is_zod_name(self, code: str) -> bool:
        head = code.split(".")[0]
        module = self.imports.get(head, "")
        return module.split(".")[0].startswith("zod") or (head == "z" and head not in self.imports)

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

    @staticmethod
    def guard_key(node: Node) -> int:
        return node.id  # the tree-sitter node objects are made afresh on each access

    def kept_key(self, binding: Binding) -> tuple | None:
        """The key under which what a binding holds (its text, facts, untrusted source) is kept, or
        None when it is read inside another name's reading: a cycle guard may have cut that short."""
        if self.active or binding.env.bindings:
            return None
        return binding.value.id, id(binding.env.scope), binding.env.depth, tuple(map(id, binding.extras))

    def short(self, callee: Node) -> str:
        return ".".join(self.chain(callee)[-2:]) or self.code(callee)

    def sink_of(self, call: Node) -> TsSink | None:
        """The catalogue's sink ``call`` is: a function by its name and module (``generateText``),
        a method by the end of its property chain (``chat.completions.create``), or a command
        built with the request (``new ConverseCommand({...})``)."""
        sinks = self.ts.sinks
        if call.type == "new_expression":
            built = self.field(call, "constructor")
            name = self.code(built) if built is not None and built.type == "identifier" else ""
            return next((s for s in sinks if name in s.classes), None) if name in self.ts.sink_classes else None
        if call.type != "call_expression":
            return None
        callee = self.unwrap(self.field(call, "function"))
        if callee is None:
            return None
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
            if sink.factories:
                continue  # known by what built the receiver (Sinks.factory_sink)
            if chain[-1] in sink.functions and module.startswith(sink.modules):
                return sink
            if any(tuple(chain[-len(m):]) == m for m in sink.methods) \
                    and not any(n in chain for n in sink.not_through) and (not sink.loaded or self.loads(sink.modules)):
                return sink
        return None

    def loads(self, modules: tuple[str, ...]) -> bool:
        """Whether the module imports one of ``modules`` or loads it by name: a call given the
        package's name (``await import("ollama")``, ``importOptional("ollama", "Ollama")``)."""
        known = self._loaded.get(modules)
        if known is None:
            known = self._loaded[modules] = any(
                value == m or value.startswith((m + ".", m + "/")) for value in self.imports.values() for m in modules
            ) or re.search(loaded_by_name(modules), self.src.text) is not None
        return known
